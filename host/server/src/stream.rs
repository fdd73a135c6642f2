//! The event stream: every engine event, numbered, kept in a bounded replay buffer
//! and sent to each client over SSE from there.
//!
//! One recorder task turns the engine's events into client JSON once, in the bus's
//! order, and appends them to the [`EventLog`]. A client is a cursor into the log: it
//! costs no queue of its own, and a client that stops reading only stops its own
//! cursor — the loop never waits for it. A client whose cursor falls out of the
//! buffer is told with a `server.lagged` event and disconnected; one that reconnects
//! with `Last-Event-ID` gets every event after that id still in the buffer, or a
//! `server.lagged` first when some already left it.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use futures_util::Stream;
use tokio::sync::{broadcast, watch};

use crate::wire::event::{EventInfo, events_of};

/// Events kept for reconnecting and slow clients, by default.
pub const DEFAULT_REPLAY_EVENTS: usize = 16_384;
/// Bytes of event JSON kept, by default (whichever limit is reached first).
pub const DEFAULT_REPLAY_BYTES: usize = 64 * 1024 * 1024;

/// The numbered events still in the buffer.
pub struct EventLog {
    ring: Mutex<Ring>,
    /// Set when the server stops: every stream ends after what it has read.
    closed: std::sync::atomic::AtomicBool,
    latest: watch::Sender<u64>,
    max_events: usize,
    max_bytes: usize,
}

#[derive(Default)]
struct Ring {
    /// `(id, JSON)`, ids consecutive from `events[0].0`.
    events: VecDeque<(u64, Arc<str>)>,
    bytes: usize,
    next_id: u64,
}

/// What a cursor reads next.
enum Read {
    /// Events after the cursor (empty: none yet).
    Events(Vec<(u64, Arc<str>)>),
    /// Some events after the cursor left the buffer: this many, and the first id
    /// still there.
    Lagged { missed: u64, resume_after: u64 },
}

impl EventLog {
    /// A log keeping at most `max_events` events and `max_bytes` of their JSON.
    pub fn new(max_events: usize, max_bytes: usize) -> Self {
        let (latest, _) = watch::channel(0);
        EventLog {
            ring: Mutex::new(Ring {
                next_id: 1,
                ..Ring::default()
            }),
            closed: std::sync::atomic::AtomicBool::new(false),
            latest,
            max_events: max_events.max(1),
            max_bytes: max_bytes.max(1),
        }
    }

    /// Appends `json`; returns its id.
    pub fn push(&self, json: String) -> u64 {
        let id = {
            let Ok(mut ring) = self.ring.lock() else {
                return 0;
            };
            let id = ring.next_id;
            ring.next_id += 1;
            ring.bytes += json.len();
            ring.events.push_back((id, Arc::from(json)));
            while ring.events.len() > self.max_events
                || (ring.bytes > self.max_bytes && ring.events.len() > 1)
            {
                if let Some((_, old)) = ring.events.pop_front() {
                    ring.bytes -= old.len();
                }
            }
            id
        };
        self.latest.send_replace(id);
        id
    }

    /// Ends every client's stream once it has read what is logged (the server is
    /// stopping; a graceful shutdown waits for open streams).
    pub fn close(&self) {
        self.closed.store(true, std::sync::atomic::Ordering::SeqCst);
        self.latest.send_modify(|_| {});
    }

    fn is_closed(&self) -> bool {
        self.closed.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The id of the latest event (0: none yet).
    pub fn latest(&self) -> u64 {
        *self.latest.borrow()
    }

    /// Up to `max` events after `cursor`.
    fn read(&self, cursor: u64, max: usize) -> Read {
        let Ok(ring) = self.ring.lock() else {
            return Read::Events(Vec::new());
        };
        let Some(&(first, _)) = ring.events.front() else {
            return Read::Events(Vec::new());
        };
        if cursor + 1 < first {
            return Read::Lagged {
                missed: first - cursor - 1,
                resume_after: first - 1,
            };
        }
        let skip = usize::try_from(cursor + 1 - first).unwrap_or(usize::MAX);
        Read::Events(ring.events.iter().skip(skip).take(max).cloned().collect())
    }
}

/// Records the engine's events into `log` until the engine's bus closes. A lag of
/// the recorder itself (the bus outran it) is recorded as a `server.lagged` event,
/// so every client learns of it.
pub async fn record(mut events: ward_protocol::Subscription, log: Arc<EventLog>, root: String) {
    loop {
        match events.recv().await {
            Ok(event) => {
                for info in events_of(&event, &root, ward_protocol::now_ms()) {
                    if let Ok(json) = serde_json::to_string(&info) {
                        log.push(json);
                    }
                }
            }
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                if let Ok(json) = serde_json::to_string(&EventInfo::ServerLagged { missed }) {
                    log.push(json);
                }
            }
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}

/// How a client's stream goes on.
struct Cursor {
    log: Arc<EventLog>,
    latest: watch::Receiver<u64>,
    at: u64,
    queued: VecDeque<SseEvent>,
    /// Set once the client has been told it lagged: the stream ends after it.
    ending: bool,
    /// A reconnect that came too late continues after telling; a live client that
    /// fell behind is disconnected.
    connected: bool,
    /// How its events are framed.
    framing: Framing,
}

/// Events read from the log per wake-up: bounds the batch a slow client holds.
const BATCH: usize = 256;

/// How each event is framed on a stream: as it is (`/event`), or inside OpenCode's
/// global envelope naming the project's directory (`/global/event`:
/// `{"directory": …, "payload": event}`).
#[derive(Clone, Debug)]
pub enum Framing {
    /// The event itself.
    Plain,
    /// `{"directory": DIRECTORY, "payload": event}`.
    Global {
        /// The project directory, as a JSON string literal.
        directory: Arc<str>,
    },
}

impl Framing {
    /// OpenCode's global envelope for events of the project in `directory`.
    pub fn global(directory: &str) -> Self {
        let literal = serde_json::to_string(directory).unwrap_or_else(|_| "\"\"".into());
        Framing::Global {
            directory: literal.into(),
        }
    }

    fn frame(&self, json: &str) -> String {
        match self {
            Framing::Plain => json.to_string(),
            Framing::Global { directory } => {
                format!("{{\"directory\":{directory},\"payload\":{json}}}")
            }
        }
    }
}

/// The SSE response for a client that last saw `last_event_id` (none: a new client,
/// which starts with what happens from now on), each event framed as `framing` says.
pub fn sse(
    log: Arc<EventLog>,
    last_event_id: Option<u64>,
    framing: Framing,
) -> Sse<impl Stream<Item = Result<SseEvent, Infallible>>> {
    let at = last_event_id.unwrap_or_else(|| log.latest());
    let mut queued = VecDeque::new();
    if let Ok(json) = serde_json::to_string(&EventInfo::ServerConnected {}) {
        queued.push_back(SseEvent::default().data(framing.frame(&json)));
    }
    let cursor = Cursor {
        latest: log.latest.subscribe(),
        log,
        at,
        queued,
        ending: false,
        connected: last_event_id.is_none(),
        framing,
    };
    let stream = futures_util::stream::unfold(cursor, |mut c| async move {
        loop {
            if let Some(event) = c.queued.pop_front() {
                return Some((Ok(event), c));
            }
            if c.ending {
                return None;
            }
            match c.log.read(c.at, BATCH) {
                Read::Events(events) if events.is_empty() => {
                    if c.log.is_closed() || c.latest.changed().await.is_err() {
                        return None;
                    }
                }
                Read::Events(events) => {
                    for (id, json) in events {
                        c.at = id;
                        let data = c.framing.frame(&json);
                        c.queued
                            .push_back(SseEvent::default().id(id.to_string()).data(data));
                    }
                    c.connected = true;
                }
                Read::Lagged {
                    missed,
                    resume_after,
                } => {
                    if let Ok(json) = serde_json::to_string(&EventInfo::ServerLagged { missed }) {
                        let data = c.framing.frame(&json);
                        c.queued.push_back(SseEvent::default().data(data));
                    }
                    if c.connected {
                        c.ending = true;
                    } else {
                        c.at = resume_after;
                        c.connected = true;
                    }
                }
            }
        }
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(read: Read) -> Vec<u64> {
        match read {
            Read::Events(e) => e.into_iter().map(|(id, _)| id).collect(),
            Read::Lagged { .. } => panic!("lagged"),
        }
    }

    #[test]
    fn a_cursor_reads_what_follows_it_in_order() {
        let log = EventLog::new(10, 1 << 20);
        for n in 0..5 {
            log.push(format!("{{\"n\":{n}}}"));
        }
        assert_eq!(ids(log.read(0, 100)), vec![1, 2, 3, 4, 5]);
        assert_eq!(ids(log.read(3, 100)), vec![4, 5]);
        assert_eq!(ids(log.read(5, 100)), Vec::<u64>::new());
        assert_eq!(ids(log.read(1, 2)), vec![2, 3]);
    }

    #[test]
    fn a_cursor_behind_the_buffer_is_told_how_much_it_missed() {
        let log = EventLog::new(3, 1 << 20);
        for n in 0..10 {
            log.push(format!("{n}"));
        }
        match log.read(2, 100) {
            Read::Lagged {
                missed,
                resume_after,
            } => {
                assert_eq!(missed, 5, "events 3..=7 are gone");
                assert_eq!(resume_after, 7);
            }
            Read::Events(_) => panic!("expected a lag"),
        }
        assert_eq!(ids(log.read(7, 100)), vec![8, 9, 10]);
    }

    #[test]
    fn the_byte_limit_bounds_the_buffer_too() {
        let log = EventLog::new(1000, 10);
        for _ in 0..5 {
            log.push("abcd".to_string());
        }
        assert_eq!(ids(log.read(3, 100)), vec![4, 5]);
    }
}
