//! What the terminal shows of a running session: the answer's text as it streams (on
//! standard output), one line per finished tool call and per retry (on standard
//! error) — or, with `--format json`, every bus event as one JSON line.
//!
//! The printer runs as its own task fed by the bus. [`Printer::finish`] drains what
//! was published before it was called, so the last words of an answer are never lost
//! to a process exiting.

use std::collections::HashSet;

use clap::ValueEnum;
use tokio::sync::{broadcast, oneshot};
use ward_store::{Event, PartKind, SessionStatus, ToolState};
use ward_term::{eoutln, inert_line, out, outln};

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
    pub fn start(events: broadcast::Receiver<Event>, session: &str, format: Format) -> Printer {
        let (stop, stopped) = oneshot::channel();
        let view = View {
            session: session.to_string(),
            format,
            text_parts: HashSet::new(),
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
}

impl View {
    async fn run(
        mut self,
        mut events: broadcast::Receiver<Event>,
        mut stopped: oneshot::Receiver<()>,
    ) {
        loop {
            tokio::select! {
                event = events.recv() => match event {
                    Ok(event) => self.print(event),
                    Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => return,
                },
                _ = &mut stopped => break,
            }
        }
        loop {
            match events.try_recv() {
                Ok(event) => self.print(event),
                Err(broadcast::error::TryRecvError::Lagged(_)) => {}
                Err(_) => return,
            }
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
                        eoutln!("\n[{}] {}", inert_line(&t.tool), inert_line(title))
                    }
                    ToolState::Error { error, .. } => {
                        eoutln!(
                            "\n[{}] error: {}",
                            inert_line(&t.tool),
                            inert_line(error.lines().next().unwrap_or(""))
                        )
                    }
                    _ => {}
                },
                _ => {}
            },
            Event::PartDelta { part_id, delta, .. } if self.text_parts.contains(&part_id) => {
                // The answer is multi-line text; `out!` renders it inert and flushes.
                // Escapes are per character, so one split between deltas still shows.
                out!("{delta}");
            }
            Event::SessionStatus {
                session_id,
                status:
                    SessionStatus::Retry {
                        attempt, message, ..
                    },
            } if session_id == self.session => {
                eoutln!("\nretrying (attempt {attempt}): {}", inert_line(&message));
            }
            _ => {}
        }
    }
}
