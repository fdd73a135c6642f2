//! When to try a failed model call again, and how long to wait first.
//!
//! [`crate::stream`] makes exactly one attempt. The caller (the agent loop)
//! owns retrying, because only it knows whether a tool call of the failed
//! attempt has already run: re-sending blindly could execute a tool twice.
//! A cut stream never yields `ToolCallEnd` for its unfinished call, so a
//! caller that executes only completed calls and retries from the same
//! history stays safe.

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;

use crate::error::ProviderError;

/// Retry limits and backoff. The defaults are the spec's: at most 8 attempts,
/// waiting what the provider asked for, else 2 s · 2^(n-1) capped at 30 s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Total attempts, the first one included.
    pub max_attempts: u32,
    /// Wait after the first failure when the provider gave no hint.
    pub initial_delay: Duration,
    /// Ceiling of the exponential wait (not of a provider's own hint).
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 8,
            initial_delay: Duration::from_secs(2),
            max_delay: Duration::from_secs(30),
        }
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
