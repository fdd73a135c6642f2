//! When to try a failed model call again, and how long to wait first.
//!
//! [`crate::stream`] makes exactly one attempt. The caller (the agent loop)
//! owns retrying, because only it knows whether a tool call of the failed
//! attempt has already run: re-sending blindly could execute a tool twice.
//! A cut stream never yields `ToolCallEnd` for its unfinished call, so a
//! caller that executes only completed calls and retries from the same
//! history stays safe.

use std::time::{Duration, Instant, SystemTime};

use reqwest::header::HeaderMap;

use crate::error::ProviderError;

/// How long retries of a server that cannot be connected to may go on, by default.
pub const DEFAULT_CONNECT_BUDGET: Duration = Duration::from_secs(20);

/// Retry limits and backoff. The defaults are the spec's: at most 8 attempts,
/// waiting what the provider asked for, else 2 s · 2^(n-1) capped at 30 s —
/// except that failures to connect are given up on after
/// [`DEFAULT_CONNECT_BUDGET`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Total attempts, the first one included.
    pub max_attempts: u32,
    /// Wait after the first failure when the provider gave no hint.
    pub initial_delay: Duration,
    /// Ceiling of the exponential wait (not of a provider's own hint).
    pub max_delay: Duration,
    /// How long a run of [`ProviderError::Connect`] failures is retried, measured
    /// from the start of its first attempt. A local server that is not running
    /// refuses at once, and eight attempts would otherwise take 2.5 minutes that
    /// look like a hang; zero means such failures are not retried.
    pub connect_budget: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 8,
            initial_delay: Duration::from_secs(2),
            max_delay: Duration::from_secs(30),
            connect_budget: DEFAULT_CONNECT_BUDGET,
        }
    }
}

/// The retries of one model call: which attempt this is, and since when
/// connecting has been failing — what [`RetryPolicy`] needs beyond the error to
/// decide. Times are passed in, so the decision is testable without waiting.
#[derive(Debug, Clone)]
pub struct Retries {
    policy: RetryPolicy,
    /// Attempts started so far.
    attempt: u32,
    /// When the latest attempt started.
    started: Option<Instant>,
    /// When the first attempt of the current run of connect failures started.
    connecting_since: Option<Instant>,
}

impl Retries {
    /// No attempt made yet.
    pub fn new(policy: RetryPolicy) -> Self {
        Self {
            policy,
            attempt: 0,
            started: None,
            connecting_since: None,
        }
    }

    /// Notes that an attempt starts at `now`.
    pub fn begin(&mut self, now: Instant) {
        self.attempt += 1;
        self.started = Some(now);
    }

    /// The latest attempt's number, from 1.
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The attempt limit.
    pub fn max_attempts(&self) -> u32 {
        self.policy.max_attempts
    }

    /// How long to wait before the next attempt, the latest one having failed
    /// with `error` at `now`; `None` to give up. Failures to connect are retried
    /// only while the time since their run began (waits and attempts alike) is
    /// within [`RetryPolicy::connect_budget`], the last wait shortened to end
    /// on it; any other error ends such a run.
    pub fn failed(&mut self, error: &ProviderError, now: Instant) -> Option<Duration> {
        let wait = self.policy.delay(self.attempt, error)?;
        if !error.is_connect() {
            self.connecting_since = None;
            return Some(wait);
        }
        let since = *self
            .connecting_since
            .get_or_insert(self.started.unwrap_or(now));
        let left = self
            .policy
            .connect_budget
            .saturating_sub(now.saturating_duration_since(since));
        (!left.is_zero()).then(|| wait.min(left))
    }
}

impl RetryPolicy {
    /// How long to wait before attempt `attempt + 1`, given that attempt
    /// `attempt` (counting from 1) failed with `error`; `None` when the error
    /// is final or the attempts are used up.
    pub fn delay(&self, attempt: u32, error: &ProviderError) -> Option<Duration> {
        if !error.retryable() || attempt >= self.max_attempts {
            return None;
        }
        Some(error.retry_after().unwrap_or_else(|| self.backoff(attempt)))
    }

    /// The exponential wait after failed attempt `attempt` (from 1).
    pub fn backoff(&self, attempt: u32) -> Duration {
        let doublings = attempt.saturating_sub(1).min(31);
        self.initial_delay
            .saturating_mul(1u32 << doublings)
            .min(self.max_delay)
    }
}

/// The wait a reply's headers ask for: `retry-after-ms` (milliseconds, as
/// OpenAI and Anthropic send), else `retry-after` in seconds or as an HTTP
/// date. A date in the past means "now".
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return seconds(ms / 1000.0);
    }
    let value = header("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return seconds(secs);
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(
        at.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

fn seconds(secs: f64) -> Option<Duration> {
    Duration::try_from_secs_f64(secs).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            if let Ok(value) = value.parse() {
                map.insert(*name, value);
            }
        }
        map
    }

    fn server_error(retry_after: Option<Duration>) -> ProviderError {
        ProviderError::Server {
            status: Some(503),
            message: "down".into(),
            retry_after,
        }
    }

    #[test]
    fn exponential_backoff_is_capped() {
        let policy = RetryPolicy::default();
        let waits: Vec<u64> = (1..=7).map(|n| policy.backoff(n).as_secs()).collect();
        assert_eq!(waits, [2, 4, 8, 16, 30, 30, 30]);
        assert_eq!(policy.backoff(1000), Duration::from_secs(30));
    }

    #[test]
    fn at_most_eight_attempts() {
        let policy = RetryPolicy::default();
        assert_eq!(
            policy.delay(7, &server_error(None)),
            Some(Duration::from_secs(30))
        );
        assert_eq!(policy.delay(8, &server_error(None)), None);
        let custom = RetryPolicy {
            max_attempts: 2,
            ..policy
        };
        assert_eq!(custom.delay(2, &server_error(None)), None);
    }

    #[test]
    fn provider_hint_wins_over_backoff() {
        let policy = RetryPolicy::default();
        let hinted = server_error(Some(Duration::from_secs(90)));
        assert_eq!(policy.delay(1, &hinted), Some(Duration::from_secs(90)));
    }

    #[test]
    fn final_errors_are_not_retried() {
        let overflow = ProviderError::ContextOverflow {
            message: "too long".into(),
        };
        assert_eq!(RetryPolicy::default().delay(1, &overflow), None);
    }

    fn refused() -> ProviderError {
        ProviderError::Connect {
            message: "connection refused by 127.0.0.1:9".into(),
        }
    }

    /// Runs attempts that each fail with `errors[i]` after `took`, waiting what
    /// [`Retries::failed`] says; returns the waits and the elapsed time when it
    /// gave up (or ran out of errors).
    fn simulate(
        policy: RetryPolicy,
        errors: &[ProviderError],
        took: Duration,
    ) -> (Vec<Duration>, Duration) {
        let start = Instant::now();
        let mut now = start;
        let mut retries = Retries::new(policy);
        let mut waits = Vec::new();
        for error in errors {
            retries.begin(now);
            now += took;
            match retries.failed(error, now) {
                Some(wait) => {
                    waits.push(wait);
                    now += wait;
                }
                None => break,
            }
        }
        (waits, now - start)
    }

    #[test]
    fn refused_connections_stop_at_the_time_budget() {
        let policy = RetryPolicy::default();
        let (waits, elapsed) = simulate(policy, &vec![refused(); 8], Duration::ZERO);
        let secs: Vec<u64> = waits.iter().map(Duration::as_secs).collect();
        // 2 + 4 + 8 and the rest of the 20 s: 6, instead of 2.5 minutes.
        assert_eq!(secs, [2, 4, 8, 6]);
        assert_eq!(elapsed, DEFAULT_CONNECT_BUDGET);
        assert!(DEFAULT_CONNECT_BUDGET <= Duration::from_secs(20));
    }

    #[test]
    fn the_budget_counts_the_attempts_time_too() {
        // A connect attempt that takes 1 s (a slow DNS, a dropped SYN) spends the
        // budget as much as the waits do.
        let policy = RetryPolicy {
            connect_budget: Duration::from_secs(3),
            ..RetryPolicy::default()
        };
        let (waits, elapsed) = simulate(policy, &vec![refused(); 8], Duration::from_secs(1));
        assert_eq!(waits, [Duration::from_secs(2)]);
        assert_eq!(
            elapsed,
            Duration::from_secs(4),
            "the 3 s budget, then the attempt"
        );
        let none = RetryPolicy {
            connect_budget: Duration::ZERO,
            ..policy
        };
        assert!(simulate(none, &[refused()], Duration::ZERO).0.is_empty());
    }

    #[test]
    fn other_errors_keep_the_attempt_limit_and_end_a_connect_run() {
        let policy = RetryPolicy {
            connect_budget: Duration::from_secs(3),
            ..RetryPolicy::default()
        };
        let (waits, _) = simulate(policy, &vec![server_error(None); 8], Duration::ZERO);
        assert_eq!(waits.len(), 7, "8 attempts, whatever the connect budget");
        // Refused for 2 s, a 503 (the server is up again), then refused again: the
        // second run of refusals gets a budget of its own.
        let errors = [refused(), server_error(None), refused(), refused()];
        let (waits, _) = simulate(policy, &errors, Duration::ZERO);
        let secs: Vec<u64> = waits.iter().map(Duration::as_secs).collect();
        assert_eq!(secs, [2, 4, 3]);
    }

    #[test]
    fn the_attempt_limit_still_applies_to_connect_failures() {
        let policy = RetryPolicy {
            max_attempts: 2,
            ..RetryPolicy::default()
        };
        let (waits, _) = simulate(policy, &vec![refused(); 8], Duration::ZERO);
        assert_eq!(waits, [Duration::from_secs(2)]);
    }

    #[test]
    fn retry_after_headers() {
        let ms = headers(&[("retry-after-ms", "1500"), ("retry-after", "9")]);
        assert_eq!(retry_after(&ms), Some(Duration::from_millis(1500)));
        assert_eq!(
            retry_after(&headers(&[("retry-after", "7")])),
            Some(Duration::from_secs(7))
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after", "0.5")])),
            Some(Duration::from_millis(500))
        );
        let past = headers(&[("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")]);
        assert_eq!(retry_after(&past), Some(Duration::ZERO));
        let future = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(120));
        let wait = retry_after(&headers(&[("retry-after", future.as_str())])).unwrap_or_default();
        assert!(
            wait > Duration::from_secs(100) && wait <= Duration::from_secs(120),
            "{wait:?}"
        );
        assert_eq!(retry_after(&headers(&[("retry-after", "soon")])), None);
        assert_eq!(retry_after(&headers(&[("retry-after", "-3")])), None);
        assert_eq!(retry_after(&HeaderMap::new()), None);
    }
}
