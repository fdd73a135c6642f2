//! Message records: who said it, with which model, and how the turn ended.
//!
//! Owns [`MessageInfo`] (user or assistant) and what it holds. The content of a message
//! is its parts ([`crate::Part`]), stored separately so streaming one part rewrites
//! only that part.

use serde::{Deserialize, Serialize};

use super::part::Part;
use super::session::{ModelRef, Tokens};
use crate::clock::now_ms;
use crate::id::{IdKind, new_id};

/// The error name of a message cut off by an abort or a crash, as OpenCode names it.
pub const ABORTED_ERROR: &str = "MessageAbortedError";

/// Why the model stopped producing output: the provider's own reading, stored as
/// it came (one type from the wire to the store, never mapped between two).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FinishReason {
    /// Natural end of the turn.
    Stop,
    /// The model wants tool results before it continues.
    ToolCalls,
    /// The output token limit was hit.
    Length,
    /// A safety system stopped or refused the output.
    ContentFilter,
    /// Anything else the provider reported.
    Unknown,
}

/// An error that ended an assistant message or a retried attempt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageError {
    /// The error's class: `MessageAbortedError`, `ProviderAuthError`, `APIError`, …
    pub name: String,
    /// What happened, for the user.
    pub message: String,
}

impl MessageError {
    /// Builds an error.
    pub fn new(name: impl Into<String>, message: impl Into<String>) -> Self {
        MessageError {
            name: name.into(),
            message: message.into(),
        }
    }
}

/// When a user message was sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserTime {
    /// Unix milliseconds.
    pub created: i64,
}

/// When an assistant message started and finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssistantTime {
    /// Unix milliseconds.
    pub created: i64,
    /// Unix milliseconds; `None` while the model is still answering.
    #[serde(default)]
    pub completed: Option<i64>,
}

/// A message the user (or the loop on the user's behalf) sent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UserMessage {
    /// `msg_…`.
    pub id: String,
    /// The session it belongs to.
    pub session_id: String,
    /// The agent that is to answer.
    pub agent: String,
    /// The model that is to answer.
    pub model: ModelRef,
    /// Extra system prompt for this turn (the third layer of the system prompt).
    #[serde(default)]
    pub system: Option<String>,
    /// When it was sent.
    pub time: UserTime,
    /// What the turn it started changed in the project's files (OpenCode's
    /// per-message `summary`), written after the turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<MessageSummary>,
}

/// What one prompt's turn changed in the files.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageSummary {
    /// A short, title-like description of the changes (by the `summary` agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Per file.
    #[serde(default)]
    pub diffs: Vec<super::session::FileDiff>,
}

/// A model's answer: one or more steps of text, reasoning and tool calls.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AssistantMessage {
    /// `msg_…`.
    pub id: String,
    /// The session it belongs to.
    pub session_id: String,
    /// The user message it answers.
    pub parent_id: String,
    /// The agent that answered.
    pub agent: String,
    /// The model that answered.
    pub model: ModelRef,
    /// Whether this is a compaction summary.
    #[serde(default)]
    pub summary: bool,
    /// Cost in US dollars.
    #[serde(default)]
    pub cost: f64,
    /// Token usage.
    #[serde(default)]
    pub tokens: Tokens,
    /// Why the last step ended; `None` while streaming.
    #[serde(default)]
    pub finish: Option<FinishReason>,
    /// What went wrong, if the message ended in an error.
    #[serde(default)]
    pub error: Option<MessageError>,
    /// Start and end.
    pub time: AssistantTime,
}

impl AssistantMessage {
    /// A new, open assistant message answering `parent`.
    pub fn new(parent: &UserMessage) -> Self {
        AssistantMessage {
            id: new_id(IdKind::Message),
            session_id: parent.session_id.clone(),
            parent_id: parent.id.clone(),
            agent: parent.agent.clone(),
            model: parent.model.clone(),
            summary: false,
            cost: 0.0,
            tokens: Tokens::default(),
            finish: None,
            error: None,
            time: AssistantTime {
                created: now_ms(),
                completed: None,
            },
        }
    }
}

impl UserMessage {
    /// A new user message in `session_id` for `agent` and `model`.
    pub fn new(session_id: impl Into<String>, agent: impl Into<String>, model: ModelRef) -> Self {
        UserMessage {
            id: new_id(IdKind::Message),
            session_id: session_id.into(),
            agent: agent.into(),
            model,
            system: None,
            time: UserTime { created: now_ms() },
            summary: None,
        }
    }
}

/// The record of a message, tagged by `role`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum MessageInfo {
    /// Sent by the user.
    User(UserMessage),
    /// Written by the model.
    Assistant(AssistantMessage),
}

impl MessageInfo {
    /// The message's id.
    pub fn id(&self) -> &str {
        match self {
            MessageInfo::User(user) => &user.id,
            MessageInfo::Assistant(assistant) => &assistant.id,
        }
    }

    /// The session the message belongs to.
    pub fn session_id(&self) -> &str {
        match self {
            MessageInfo::User(user) => &user.session_id,
            MessageInfo::Assistant(assistant) => &assistant.session_id,
        }
    }
}

impl From<UserMessage> for MessageInfo {
    fn from(user: UserMessage) -> Self {
        MessageInfo::User(user)
    }
}

impl From<AssistantMessage> for MessageInfo {
    fn from(assistant: AssistantMessage) -> Self {
        MessageInfo::Assistant(assistant)
    }
}

/// A message with its parts in creation order, as history is loaded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// The record.
    pub info: MessageInfo,
    /// The content.
    pub parts: Vec<Part>,
}
