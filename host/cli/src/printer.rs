//! What the terminal shows of a running session: the answer's text as it streams (on
//! standard output), one line per finished tool call and per retry (on standard
//! error) — or, with `--format json`, every bus event as one JSON line.
//!
//! A retry says how long until the next attempt, which one it is and why
//! (`retrying in 4s (attempt 3 of 8): …`), so a person can tell it from a hang; on a
//! terminal the wait counts down in place, then the line settles to what a pipe gets.
//!
//! The printer runs as its own task fed by the bus. [`Printer::finish`] drains what
//! was published before it was called, so the last words of an answer are never lost
//! to a process exiting.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use clap::ValueEnum;
use tokio::sync::{broadcast, oneshot};
use ward_protocol::{Event, PartKind, SessionStatus, Subscription, ToolState};
use ward_term::{Stream, eoutln, inert_line, out, outln, rewrite_line};

/// How the loop's progress is printed.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    /// The answer as text; tool calls as one line each on standard error.
    Text,
    /// Every event as one JSON object per line.
    Json,
}

/// A running printer.
pub struct Printer {
    stop: oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

impl Printer {
    /// Prints `session`'s events from `events` until finished.
    pub fn start(events: Subscription, session: &str, format: Format) -> Printer {
        let (stop, stopped) = oneshot::channel();
        let view = View {
            session: session.to_string(),
            format,
            text_parts: HashSet::new(),
            live: ward_term::is_terminal(Stream::Stderr),
            mid_line: false,
            countdown: None,
        };
        let task = tokio::spawn(view.run(events, stopped));
        Printer { stop, task }
    }

    /// Prints what is still queued, then stops.
    pub async fn finish(self) {
        let _ = self.stop.send(());
        let _ = self.task.await;
    }
}

struct View {
    session: String,
    format: Format,
    /// The text parts of the session, whose deltas are the answer.
    text_parts: HashSet<String>,
    /// Whether standard error is a terminal, where a retry's wait counts down.
    live: bool,
    /// Whether the answer's last delta left its line open (a retry then starts a
    /// line of its own).
    mid_line: bool,
    /// The retry being waited for, while it counts down.
    countdown: Option<Countdown>,
}

/// A retry's wait shown live: its line, rewritten as the seconds go.
struct Countdown {
    until: Instant,
    delay_ms: u64,
    attempt: u32,
    max: u32,
    message: String,
    /// What the line shows now (it is rewritten only when that changes).
    shown: String,
}

/// How often a countdown is checked for a new second to show.
const TICK: Duration = Duration::from_millis(200);

impl View {
    async fn run(mut self, mut events: Subscription, mut stopped: oneshot::Receiver<()>) {
        let mut tick = tokio::time::interval(TICK);
        loop {
            tokio::select! {
                event = events.recv() => match event {
                    Ok(event) => self.print(event),
                    Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => break,
                },
                _ = tick.tick(), if self.countdown.is_some() => self.count_down(),
                _ = &mut stopped => break,
            }
        }
        loop {
            match events.try_recv() {
                Ok(event) => self.print(event),
                Err(broadcast::error::TryRecvError::Lagged(_)) => {}
                Err(_) => break,
            }
        }
        self.settle_countdown();
    }

    /// Rewrites the countdown's line if the seconds left changed.
    fn count_down(&mut self) {
        let Some(c) = &mut self.countdown else {
            return;
        };
        let left = c.until.saturating_duration_since(Instant::now());
        let left_ms = u64::try_from(left.as_millis()).unwrap_or(u64::MAX);
        let line = retry_line(left_ms.div_ceil(1000) * 1000, c.attempt, c.max, &c.message);
        if line != c.shown {
            rewrite_line(Stream::Stderr, format_args!("{line}"));
            c.shown = line;
        }
    }

    /// Ends a countdown: its line becomes the one a pipe would have got.
    fn settle_countdown(&mut self) {
        if let Some(c) = self.countdown.take() {
            let line = retry_line(c.delay_ms, c.attempt, c.max, &c.message);
            rewrite_line(Stream::Stderr, format_args!("{line}"));
            eoutln!();
        }
    }

    fn print(&mut self, event: Event) {
        if self.format == Format::Json {
            // Exact data for a pipe; terminal hazards spelt as JSON escapes.
            if let Ok(line) = ward_term::json_line(&event) {
                outln!("{line}");
            }
            return;
        }
        match event {
            Event::PartUpdated { part } if part.session_id == self.session => match &part.kind {
                PartKind::Text(_) => {
                    self.text_parts.insert(part.id.clone());
                }
                PartKind::Tool(t) => match &t.state {
                    // One line each: a title or an error cannot forge lines of ours.
                    ToolState::Completed { title, .. } => {
                        eoutln!("\n[{}] {}", inert_line(&t.tool), inert_line(title));
                        self.mid_line = false;
                    }
                    ToolState::Error { error, .. } => {
                        eoutln!(
                            "\n[{}] error: {}",
                            inert_line(&t.tool),
                            inert_line(error.lines().next().unwrap_or(""))
                        );
                        self.mid_line = false;
                    }
                    _ => {}
                },
                _ => {}
            },
            Event::PartDelta { part_id, delta, .. } if self.text_parts.contains(&part_id) => {
                // The answer is multi-line text; `out!` renders it inert and flushes.
                // Escapes are per character, so one split between deltas still shows.
                out!("{delta}");
                if !delta.is_empty() {
                    self.mid_line = !delta.ends_with('\n');
                }
            }
            Event::SessionStatus { session_id, status } if session_id == self.session => {
                // Whatever the status now, the wait being shown is over.
                self.settle_countdown();
                let SessionStatus::Retry {
                    attempt,
                    max,
                    delay_ms,
                    message,
                    ..
                } = status
                else {
                    return;
                };
                if std::mem::take(&mut self.mid_line) {
                    eoutln!();
                }
                if !self.live {
                    eoutln!("{}", retry_line(delay_ms, attempt, max, &message));
                    return;
                }
                self.countdown = Some(Countdown {
                    until: Instant::now() + Duration::from_millis(delay_ms),
                    delay_ms,
                    attempt,
                    max,
                    message,
                    shown: String::new(),
                });
                self.count_down();
            }
            _ => {}
        }
    }
}

/// `retrying in 4s (attempt 3 of 8): why`, on one line whatever the error says.
fn retry_line(delay_ms: u64, attempt: u32, max: u32, message: &str) -> String {
    let first = message.lines().next().unwrap_or("");
    format!(
        "retrying in {} (attempt {attempt} of {max}): {}",
        wait(delay_ms),
        inert_line(first)
    )
}

/// A wait as a person reads it: seconds, with tenths under ten seconds when they
/// are not zero (`4s`, `1.5s`), never rounded down to nothing.
fn wait(ms: u64) -> String {
    if ms >= 10_000 {
        return format!("{}s", (ms + 500) / 1000);
    }
    let tenths = ((ms + 50) / 100).max(u64::from(ms > 0));
    match tenths % 10 {
        0 => format!("{}s", tenths / 10),
        t => format!("{}.{t}s", tenths / 10),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_read_as_seconds() {
        assert_eq!(wait(2000), "2s");
        assert_eq!(wait(30_000), "30s");
        assert_eq!(wait(12_345), "12s");
        assert_eq!(wait(1500), "1.5s");
        assert_eq!(wait(2997), "3s");
        assert_eq!(wait(990), "1s");
        assert_eq!(wait(1), "0.1s");
        assert_eq!(wait(0), "0s");
    }

    #[test]
    fn a_retry_is_one_line_with_the_wait_attempt_and_cause() {
        assert_eq!(
            retry_line(
                4000,
                2,
                8,
                "could not connect: connection refused by 127.0.0.1:9"
            ),
            "retrying in 4s (attempt 2 of 8): could not connect: connection refused by 127.0.0.1:9"
        );
        assert_eq!(
            retry_line(2000, 3, 8, "boom\nforged line\x1b[2J"),
            "retrying in 2s (attempt 3 of 8): boom"
        );
        assert_eq!(
            retry_line(2000, 3, 8, "boom\x1b[2J"),
            "retrying in 2s (attempt 3 of 8): boom\\x1b[2J"
        );
    }
}
