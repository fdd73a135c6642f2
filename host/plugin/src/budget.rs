//! Per-call budgets for what a plugin sends the host besides its result: `log` lines
//! and `progress` updates. Both cost the host (a log written to the terminal, an update
//! written to the session store) and neither is bounded by the plugin's output limit,
//! so a plugin logging in a tight loop for its whole time limit could otherwise write
//! hundreds of megabytes.
//!
//! - **Logs:** each message is cut at [`MAX_LOG_LINE`]; a call may log at most
//!   [`MAX_LOG_LINES`] messages and [`MAX_LOG_BYTES`] in all. What is over the budget
//!   is dropped and counted, and one note at the end of the call says how much.
//!   Messages at a level nobody listens to cost nothing and are not counted.
//! - **Progress:** the title is cut at [`MAX_PROGRESS_TITLE`], metadata larger than
//!   [`MAX_PROGRESS_METADATA`] is replaced by `{}`, and at most one update per
//!   [`PROGRESS_INTERVAL`] reaches the sink. Updates in between are coalesced: the
//!   latest is kept and delivered when the interval is up, so a plugin that reports and
//!   then works quietly still shows its last report. Nothing is delivered once the call
//!   is over.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tracing::Level;

use crate::bindings::host::LogLevel;
use crate::state::ProgressSink;

/// The longest log message kept, in bytes; the rest is cut.
pub const MAX_LOG_LINE: usize = 4 << 10;
/// Log messages one call may write.
pub const MAX_LOG_LINES: usize = 200;
/// Log bytes one call may write, after cutting.
pub const MAX_LOG_BYTES: usize = 64 << 10;
/// The shortest time between two progress updates reaching the sink.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);
/// The longest progress title kept, in bytes; the rest is cut.
pub const MAX_PROGRESS_TITLE: usize = 1 << 10;
/// The largest progress metadata passed on, in bytes; larger metadata becomes `{}`
/// (cutting JSON would only make it invalid).
pub const MAX_PROGRESS_METADATA: usize = 16 << 10;

/// One call's log budget. Dropped with the call's store, when it writes the note about
/// what it had to drop.
pub(crate) struct LogBudget {
    plugin: String,
    lines: usize,
    bytes: usize,
    dropped_lines: usize,
    dropped_bytes: usize,
}

impl LogBudget {
    /// A full budget for one call into `plugin`.
    pub(crate) fn new(plugin: &str) -> Self {
        LogBudget {
            plugin: plugin.to_string(),
            lines: 0,
            bytes: 0,
            dropped_lines: 0,
            dropped_bytes: 0,
        }
    }

    /// Logs `message` from the plugin at `level`, within the budget.
    pub(crate) fn write(&mut self, level: LogLevel, message: &str) {
        let listened = match level {
            LogLevel::Trace => tracing::enabled!(Level::TRACE),
            LogLevel::Debug => tracing::enabled!(Level::DEBUG),
            LogLevel::Info => tracing::enabled!(Level::INFO),
            LogLevel::Warn => tracing::enabled!(Level::WARN),
            LogLevel::Error => tracing::enabled!(Level::ERROR),
        };
        if !listened {
            return;
        }
        let Some(message) = self.admit(message) else {
            return;
        };
        let plugin = self.plugin.as_str();
        match level {
            LogLevel::Trace => tracing::trace!(plugin, "{message}"),
            LogLevel::Debug => tracing::debug!(plugin, "{message}"),
            LogLevel::Info => tracing::info!(plugin, "{message}"),
            LogLevel::Warn => tracing::warn!(plugin, "{message}"),
            LogLevel::Error => tracing::error!(plugin, "{message}"),
        }
    }

    /// The part of `message` that may be logged, or `None` once the budget is spent.
    fn admit(&mut self, message: &str) -> Option<String> {
        let kept = cut(message, MAX_LOG_LINE);
        if self.lines >= MAX_LOG_LINES || self.bytes + kept.len() > MAX_LOG_BYTES {
            self.dropped_lines += 1;
            self.dropped_bytes = self.dropped_bytes.saturating_add(message.len());
            return None;
        }
        self.lines += 1;
        self.bytes += kept.len();
        Some(if kept.len() < message.len() {
            format!("{kept}… [{} bytes cut]", message.len() - kept.len())
        } else {
            kept.to_string()
        })
    }
}

impl Drop for LogBudget {
    fn drop(&mut self) {
        if self.dropped_lines > 0 {
            tracing::warn!(
                plugin = %self.plugin,
                "{} log lines dropped ({} bytes): over the per-call budget of {MAX_LOG_LINES} \
                 lines and {} KiB",
                self.dropped_lines,
                self.dropped_bytes,
                MAX_LOG_BYTES >> 10,
            );
        }
    }
}

/// `text` cut to at most `max` bytes, at a character boundary.
fn cut(text: &str, max: usize) -> &str {
    &text[..text.floor_char_boundary(max)]
}

/// One progress update: title and metadata JSON.
type Update = (Option<String>, String);

/// One call's progress gate between the plugin and the caller's sink. Dropped with
/// the call's store, which closes it.
pub(crate) struct ProgressGate {
    sink: Option<ProgressSink>,
    state: Arc<Mutex<Throttle>>,
}

#[derive(Default)]
struct Throttle {
    /// When an update last reached the sink.
    last: Option<Instant>,
    /// The latest update held back, waiting for the interval to end.
    pending: Option<Update>,
    /// A task will deliver `pending` when the interval ends.
    armed: bool,
    /// The call is over: deliver nothing more.
    closed: bool,
}

impl ProgressGate {
    /// A gate in front of `sink` (none: updates go nowhere).
    pub(crate) fn new(sink: Option<ProgressSink>) -> Self {
        ProgressGate {
            sink,
            state: Arc::default(),
        }
    }

    /// Passes an update on, capped, now or when the interval is up.
    pub(crate) fn send(&self, title: Option<String>, metadata: String) {
        let Some(sink) = &self.sink else { return };
        let title = title.map(|t| cut(&t, MAX_PROGRESS_TITLE).to_string());
        let metadata = if metadata.len() > MAX_PROGRESS_METADATA {
            "{}".to_string()
        } else {
            metadata
        };
        let now = Instant::now();
        let mut state = lock(&self.state);
        let due = state.last.map_or(now, |last| last + PROGRESS_INTERVAL);
        if due <= now && !state.armed {
            state.last = Some(now);
            // The sink may write to the store; do not hold the lock across it.
            drop(state);
            sink(title, metadata);
            return;
        }
        state.pending = Some((title, metadata));
        if state.armed {
            return;
        }
        // Without a runtime there is no one to deliver later: the update is dropped,
        // which is all a rate limit owes.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        state.armed = true;
        let (shared, sink) = (self.state.clone(), sink.clone());
        runtime.spawn(async move {
            tokio::time::sleep_until(due.into()).await;
            let update = {
                let mut state = lock(&shared);
                state.armed = false;
                if state.closed {
                    return;
                }
                state.last = Some(Instant::now());
                state.pending.take()
            };
            if let Some((title, metadata)) = update {
                sink(title, metadata);
            }
        });
    }
}

impl Drop for ProgressGate {
    fn drop(&mut self) {
        let mut state = lock(&self.state);
        state.closed = true;
        state.pending = None;
    }
}

/// The throttle's state; a panic in a sink while it was held left it usable.
fn lock(state: &Mutex<Throttle>) -> MutexGuard<'_, Throttle> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[test]
    fn log_lines_are_cut_and_counted() {
        let mut b = LogBudget::new("p");
        let long = "é".repeat(MAX_LOG_LINE);
        let kept = b.admit(&long).unwrap();
        assert!(kept.len() < MAX_LOG_LINE + 40, "{}", kept.len());
        assert!(kept.ends_with("bytes cut]"), "{kept}");
        assert_eq!(b.admit("short").as_deref(), Some("short"));
    }

    #[test]
    fn the_log_budget_runs_out_in_lines_and_in_bytes() {
        let mut b = LogBudget::new("p");
        for _ in 0..MAX_LOG_LINES {
            assert!(b.admit("x").is_some());
        }
        assert!(b.admit("x").is_none());
        assert_eq!(b.dropped_lines, 1);

        let mut b = LogBudget::new("p");
        let line = "y".repeat(MAX_LOG_LINE);
        let fit = MAX_LOG_BYTES / MAX_LOG_LINE;
        for _ in 0..fit {
            assert!(b.admit(&line).is_some());
        }
        assert!(b.admit(&line).is_none());
        assert!(b.bytes <= MAX_LOG_BYTES);
    }

    #[tokio::test]
    async fn progress_is_coalesced_to_the_latest() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink: ProgressSink = {
            let seen = seen.clone();
            Arc::new(move |title, _| seen.lock().unwrap().push(title))
        };
        let gate = ProgressGate::new(Some(sink));
        for i in 0..1000 {
            gate.send(Some(i.to_string()), "{}".into());
        }
        // The first goes through at once, the latest when the interval is up.
        assert_eq!(seen.lock().unwrap().len(), 1);
        tokio::time::sleep(PROGRESS_INTERVAL * 2).await;
        let seen = seen.lock().unwrap().clone();
        assert_eq!(seen, vec![Some("0".into()), Some("999".into())]);
    }

    #[tokio::test]
    async fn nothing_is_delivered_after_the_call() {
        let count = Arc::new(AtomicUsize::new(0));
        let sink: ProgressSink = {
            let count = count.clone();
            Arc::new(move |_, _| {
                count.fetch_add(1, Ordering::SeqCst);
            })
        };
        let gate = ProgressGate::new(Some(sink));
        gate.send(None, "{}".into());
        gate.send(None, "{}".into());
        drop(gate);
        tokio::time::sleep(PROGRESS_INTERVAL * 2).await;
        assert_eq!(count.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn oversized_progress_is_capped() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink: ProgressSink = {
            let seen = seen.clone();
            Arc::new(move |title: Option<String>, metadata: String| {
                seen.lock()
                    .unwrap()
                    .push((title.map_or(0, |t| t.len()), metadata));
            })
        };
        let gate = ProgressGate::new(Some(sink));
        gate.send(
            Some("t".repeat(MAX_PROGRESS_TITLE * 4)),
            format!("\"{}\"", "m".repeat(MAX_PROGRESS_METADATA)),
        );
        let seen = seen.lock().unwrap().clone();
        assert_eq!(seen, vec![(MAX_PROGRESS_TITLE, "{}".to_string())]);
    }
}
