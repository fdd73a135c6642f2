//! The event bus: what changed, for user interfaces and the server's event stream.
//!
//! Owns [`Event`] and [`Bus`]. Events serialise as `{"type": "message.part.updated",
//! "properties": {...}}`, the shape OpenCode's clients read. The bus is a tokio
//! broadcast channel: publishing never blocks the writer, and a subscriber that falls
//! more than the channel's capacity behind is told how many events it missed
//! ([`tokio::sync::broadcast::error::RecvError::Lagged`]) and can reload from the store.
//!
//! The channel carries each event behind an [`Arc`]: its slots are made (and their
//! memory written) up front, 4,096 of them, and an inline [`Event`] is 272 bytes — 1.2
//! MB zeroed on every start of every process, a millisecond and a tenth of a one-shot
//! run's heap — where a pointer's slot is 40 bytes. Subscribers still receive an owned
//! [`Event`] ([`Subscription`]): tokio cloned it for each of them before too.

use std::sync::Arc;

use crate::permission::{AskRequest, Reply};
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};

use crate::model::message::MessageInfo;
use crate::model::part::Part;
use crate::model::question::QuestionRequest;
use crate::model::session::Session;
use crate::model::todo::Todo;

/// Events kept for slow subscribers by default before they lag.
pub const DEFAULT_CAPACITY: usize = 4096;

/// Whether a session's loop is running.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum SessionStatus {
    /// No loop is running.
    Idle,
    /// The loop is running.
    Busy,
    /// A model call failed and will be retried: what a person needs to tell a
    /// retry from a hang (which attempt, of how many, how long until it).
    Retry {
        /// The attempt about to be made, from 2.
        attempt: u32,
        /// The most attempts the call gets (fewer when the server cannot be
        /// reached: those retries are bounded by time).
        #[serde(default)]
        max: u32,
        /// How long the loop waits before the attempt, in milliseconds.
        #[serde(default)]
        delay_ms: u64,
        /// Why the previous attempt failed.
        message: String,
        /// When the next attempt starts, in Unix milliseconds.
        next: i64,
    },
}

/// Something that changed in the store or in a session's loop.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "properties")]
pub enum Event {
    /// A session was created.
    #[serde(rename = "session.created")]
    SessionCreated {
        /// The new session.
        info: Session,
    },
    /// A session's record changed.
    #[serde(rename = "session.updated")]
    SessionUpdated {
        /// The session as stored now.
        info: Session,
    },
    /// A session was deleted, with its messages.
    #[serde(rename = "session.deleted")]
    SessionDeleted {
        /// The session as it was.
        info: Session,
    },
    /// A session's loop started, stopped or is waiting to retry.
    #[serde(rename = "session.status")]
    SessionStatus {
        /// The session.
        session_id: String,
        /// Its status now.
        status: SessionStatus,
    },
    /// A session's history was compacted.
    #[serde(rename = "session.compacted")]
    SessionCompacted {
        /// The session.
        session_id: String,
    },
    /// A message was created or its record changed.
    #[serde(rename = "message.updated")]
    MessageUpdated {
        /// The record as stored now.
        info: MessageInfo,
    },
    /// A message was removed, with its parts.
    #[serde(rename = "message.removed")]
    MessageRemoved {
        /// The session it was in.
        session_id: String,
        /// The message.
        message_id: String,
    },
    /// A part was created or replaced.
    #[serde(rename = "message.part.updated")]
    PartUpdated {
        /// The part as stored now.
        part: Part,
    },
    /// Text was appended to a streaming part (published before it is stored).
    #[serde(rename = "message.part.delta")]
    PartDelta {
        /// The session.
        session_id: String,
        /// The message.
        message_id: String,
        /// The part.
        part_id: String,
        /// The field appended to, e.g. `text`.
        field: String,
        /// The appended text.
        delta: String,
    },
    /// A part was removed.
    #[serde(rename = "message.part.removed")]
    PartRemoved {
        /// The session.
        session_id: String,
        /// The message.
        message_id: String,
        /// The part.
        part_id: String,
    },
    /// A session's task list was replaced.
    #[serde(rename = "todo.updated")]
    TodoUpdated {
        /// The session.
        session_id: String,
        /// The whole list.
        todos: Vec<Todo>,
    },
    /// A tool call waits for a person's answer (reply through the engine that
    /// published it, with this `id`).
    #[serde(rename = "permission.asked")]
    PermissionAsked {
        /// The ask's id.
        id: String,
        /// What is asked, by which session, agent and (if one asks) plugin.
        request: AskRequest,
    },
    /// An ask was answered (directly, or by a cascade from another reply).
    #[serde(rename = "permission.replied")]
    PermissionReplied {
        /// The session the ask was in.
        session_id: String,
        /// The ask's id.
        id: String,
        /// The answer that settled it.
        #[serde(flatten)]
        reply: Reply,
    },
    /// A plugin was compiled (or loaded from the cache) and is ready.
    #[serde(rename = "plugin.loaded")]
    PluginLoaded {
        /// The plugin.
        plugin: String,
    },
    /// A plugin failed to load or was disabled.
    #[serde(rename = "plugin.failed")]
    PluginFailed {
        /// The plugin.
        plugin: String,
        /// Why.
        reason: String,
    },
    /// The model asks the user questions (the `question` tool); answered through
    /// the engine, never as a permission.
    #[serde(rename = "question.asked")]
    QuestionAsked {
        /// The questions and who asks.
        request: QuestionRequest,
    },
    /// The user answered questions: one list of picked labels (or typed text) per
    /// question, in order.
    #[serde(rename = "question.replied")]
    QuestionReplied {
        /// The session that asked.
        session_id: String,
        /// The request answered.
        id: String,
        /// The answers.
        answers: Vec<Vec<String>>,
    },
    /// The user dismissed questions (or nobody was left to answer them).
    #[serde(rename = "question.rejected")]
    QuestionRejected {
        /// The session that asked.
        session_id: String,
        /// The request dismissed.
        id: String,
    },
    /// A plugin was refused something it was not granted.
    #[serde(rename = "plugin.denied")]
    PluginDenied {
        /// The plugin.
        plugin: String,
        /// `fs`, `exec`, `net`, `env`, …
        capability: String,
        /// What it asked for: a path, a command, a URL.
        target: String,
        /// Why it was refused.
        reason: String,
    },
}

impl Event {
    /// The event's `type` as serialised, e.g. `message.part.updated`.
    pub fn name(&self) -> &'static str {
        match self {
            Event::SessionCreated { .. } => "session.created",
            Event::SessionUpdated { .. } => "session.updated",
            Event::SessionDeleted { .. } => "session.deleted",
            Event::SessionStatus { .. } => "session.status",
            Event::SessionCompacted { .. } => "session.compacted",
            Event::MessageUpdated { .. } => "message.updated",
            Event::MessageRemoved { .. } => "message.removed",
            Event::PartUpdated { .. } => "message.part.updated",
            Event::PartDelta { .. } => "message.part.delta",
            Event::PartRemoved { .. } => "message.part.removed",
            Event::TodoUpdated { .. } => "todo.updated",
            Event::PermissionAsked { .. } => "permission.asked",
            Event::PermissionReplied { .. } => "permission.replied",
            Event::PluginLoaded { .. } => "plugin.loaded",
            Event::PluginFailed { .. } => "plugin.failed",
            Event::PluginDenied { .. } => "plugin.denied",
            Event::QuestionAsked { .. } => "question.asked",
            Event::QuestionReplied { .. } => "question.replied",
            Event::QuestionRejected { .. } => "question.rejected",
        }
    }

    /// The session the event is about, if it is about one (plugin events are not).
    pub fn session_id(&self) -> Option<&str> {
        match self {
            Event::SessionCreated { info }
            | Event::SessionUpdated { info }
            | Event::SessionDeleted { info } => Some(&info.id),
            Event::SessionStatus { session_id, .. }
            | Event::SessionCompacted { session_id }
            | Event::MessageRemoved { session_id, .. }
            | Event::PartDelta { session_id, .. }
            | Event::PartRemoved { session_id, .. }
            | Event::TodoUpdated { session_id, .. }
            | Event::PermissionReplied { session_id, .. }
            | Event::QuestionReplied { session_id, .. }
            | Event::QuestionRejected { session_id, .. } => Some(session_id),
            Event::QuestionAsked { request } => Some(&request.session_id),
            Event::MessageUpdated { info } => Some(info.session_id()),
            Event::PartUpdated { part } => Some(&part.session_id),
            Event::PermissionAsked { request, .. } => Some(&request.session_id),
            Event::PluginLoaded { .. }
            | Event::PluginFailed { .. }
            | Event::PluginDenied { .. } => None,
        }
    }
}

/// A broadcast channel of [`Event`]s; cheap to clone, every clone publishes to the same
/// subscribers.
#[derive(Clone, Debug)]
pub struct Bus {
    sender: broadcast::Sender<Arc<Event>>,
}

impl Bus {
    /// A bus keeping up to `capacity` events for each slow subscriber (at least 1).
    pub fn new(capacity: usize) -> Self {
        let (sender, _) = broadcast::channel(capacity.max(1));
        Bus { sender }
    }

    /// Publishes `event` to every current subscriber.
    pub fn publish(&self, event: Event) {
        // An error only means nobody is subscribed, which is normal (e.g. `ward run`
        // without JSON output): the store is the record, events are notifications.
        let _ = self.sender.send(Arc::new(event));
    }

    /// A receiver of every event published from now on.
    pub fn subscribe(&self) -> Subscription {
        Subscription(self.sender.subscribe())
    }
}

/// One subscriber's place in a [`Bus`]: a tokio broadcast receiver that hands out owned
/// events, with the same errors.
#[derive(Debug)]
pub struct Subscription(broadcast::Receiver<Arc<Event>>);

impl Subscription {
    /// The next event, waiting for one; [`RecvError::Lagged`] says how many this
    /// subscriber missed by falling behind, [`RecvError::Closed`] that the bus is gone.
    pub async fn recv(&mut self) -> Result<Event, RecvError> {
        self.0.recv().await.map(Arc::unwrap_or_clone)
    }

    /// The next event if one is waiting.
    pub fn try_recv(&mut self) -> Result<Event, TryRecvError> {
        self.0.try_recv().map(Arc::unwrap_or_clone)
    }

    /// A new subscription to the same bus, from its next event on.
    pub fn resubscribe(&self) -> Subscription {
        Subscription(self.0.resubscribe())
    }
}

impl Default for Bus {
    fn default() -> Self {
        Bus::new(DEFAULT_CAPACITY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_serialise_like_opencode() {
        let event = Event::PartDelta {
            session_id: "ses_1".into(),
            message_id: "msg_1".into(),
            part_id: "prt_1".into(),
            field: "text".into(),
            delta: "Hel".into(),
        };
        let json = serde_json::to_value(&event).expect("serialises");
        assert_eq!(json["type"], "message.part.delta");
        assert_eq!(json["properties"]["part_id"], "prt_1");
        assert_eq!(json["properties"]["delta"], "Hel");
        assert_eq!(event.name(), "message.part.delta");
        let back: Event = serde_json::from_value(json).expect("deserialises");
        assert_eq!(back, event);

        let status = Event::SessionStatus {
            session_id: "ses_1".into(),
            status: SessionStatus::Retry {
                attempt: 2,
                max: 8,
                delay_ms: 2000,
                message: "overloaded".into(),
                next: 5,
            },
        };
        let json = serde_json::to_value(&status).expect("serialises");
        assert_eq!(json["type"], "session.status");
        assert_eq!(json["properties"]["status"]["type"], "retry");
        assert_eq!(json["properties"]["status"]["max"], 8);
        assert_eq!(json["properties"]["status"]["delay_ms"], 2000);
    }

    #[test]
    fn permission_and_plugin_events_name_their_session_and_round_trip() {
        let replied = Event::PermissionReplied {
            session_id: "ses_1".into(),
            id: "per_1".into(),
            reply: Reply::Reject {
                feedback: Some("no".into()),
            },
        };
        let json = serde_json::to_value(&replied).expect("serialises");
        assert_eq!(json["type"], "permission.replied");
        assert_eq!(json["properties"]["reply"], "reject");
        assert_eq!(json["properties"]["feedback"], "no");
        assert_eq!(replied.session_id(), Some("ses_1"));
        let back: Event = serde_json::from_value(json).expect("deserialises");
        assert_eq!(back, replied);

        let denied = Event::PluginDenied {
            plugin: "p".into(),
            capability: "fs".into(),
            target: "/etc/shadow".into(),
            reason: "not granted".into(),
        };
        assert_eq!(denied.name(), "plugin.denied");
        assert_eq!(denied.session_id(), None);
        let json = serde_json::to_value(&denied).expect("serialises");
        assert_eq!(json["properties"]["target"], "/etc/shadow");
    }

    #[test]
    fn subscribers_receive_published_events() {
        let bus = Bus::new(8);
        bus.publish(Event::SessionCompacted {
            session_id: "lost".into(),
        });
        let mut receiver = bus.subscribe();
        bus.publish(Event::SessionCompacted {
            session_id: "ses_1".into(),
        });
        let event = receiver.try_recv().expect("one event");
        assert_eq!(
            event,
            Event::SessionCompacted {
                session_id: "ses_1".into()
            }
        );
    }
}
