//! Message parts: the pieces a message is made of.
//!
//! Owns [`Part`], its [`PartKind`]s (serialised with a `type` tag, as OpenCode does) and
//! the tool call life cycle [`ToolState`]: pending → running → completed | error.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::message::{FinishReason, MessageError};
use super::session::Tokens;
use crate::id::{IdKind, new_id};

/// The error text given to tool calls cut off by a crash or an abort.
pub const INTERRUPTED: &str = "Tool execution was interrupted";

/// One piece of a message, addressed by its ids.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Part {
    /// `prt_…`; parts of a message are ordered by id.
    pub id: String,
    /// The message holding the part.
    pub message_id: String,
    /// The session holding the message.
    pub session_id: String,
    /// What the part is; its fields sit beside the ids in JSON, under a `type` tag.
    #[serde(flatten)]
    pub kind: PartKind,
}

impl Part {
    /// A new part of `kind` with a fresh id.
    pub fn new(
        session_id: impl Into<String>,
        message_id: impl Into<String>,
        kind: PartKind,
    ) -> Self {
        Part {
            id: new_id(IdKind::Part),
            message_id: message_id.into(),
            session_id: session_id.into(),
            kind,
        }
    }

    /// The tool call state, if this is a tool part.
    pub fn tool_state(&self) -> Option<&ToolState> {
        match &self.kind {
            PartKind::Tool(tool) => Some(&tool.state),
            _ => None,
        }
    }
}

/// The kinds of part, tagged by `type` in JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum PartKind {
    /// Text written by the user or the model.
    Text(TextPart),
    /// The model's reasoning.
    Reasoning {
        /// The reasoning text.
        text: String,
        /// What the provider needs to take the reasoning back, keyed by provider
        /// family as OpenCode does: `{"anthropic": {"signature": …}}`,
        /// `{"anthropic": {"redactedData": …}}`, `{"openai": {"itemId": …,
        /// "reasoningEncryptedContent": …}}`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        metadata: Option<Value>,
        /// When the model wrote it: `end` once the block is whole (as a text part's).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        time: Option<TextTime>,
    },
    /// A tool call and its result.
    Tool(ToolPart),
    /// An attached file or image.
    File(FilePart),
    /// A request to compact the session (asked as "What did we do so far?").
    Compaction {
        /// Whether the loop started it rather than the user.
        auto: bool,
        /// Whether it was started because the context overflowed.
        overflow: bool,
    },
    /// A subagent task waiting to run in a child session.
    Subtask {
        /// What the subagent is asked to do.
        prompt: String,
        /// A short description for the user.
        description: String,
        /// The subagent.
        agent: String,
    },
    /// The start of a model call.
    StepStart,
    /// The end of a model call, with its usage.
    StepFinish {
        /// Why the call ended.
        reason: FinishReason,
        /// Its token usage.
        tokens: Tokens,
        /// Its cost in US dollars.
        cost: f64,
    },
    /// Files changed during a step, by snapshot hash.
    Patch {
        /// The snapshot the files were changed against.
        hash: String,
        /// The changed paths.
        files: Vec<String>,
    },
    /// A mention of an agent (`@explore`) in user input.
    Agent {
        /// The agent's name.
        name: String,
    },
    /// A failed attempt that will be retried.
    Retry {
        /// Which attempt failed, from 1.
        attempt: u32,
        /// Why it failed.
        error: MessageError,
        /// When it failed.
        time: RetryTime,
    },
}

/// Text written by the user or the model.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextPart {
    /// The text.
    pub text: String,
    /// Written by the loop, not by the user (reminders, "continue" prompts).
    #[serde(default)]
    pub synthetic: bool,
    /// Kept in the history but not sent to the model.
    #[serde(default)]
    pub ignored: bool,
    /// When the model began and finished writing it (OpenCode's text `time`; a
    /// client shows a text part once it has an `end`). `None` for text the model did
    /// not write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<TextTime>,
}

/// When the model wrote a text part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextTime {
    /// The first delta, Unix milliseconds.
    pub start: i64,
    /// The end of the stream, once the text is whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<i64>,
}

/// When a retried attempt failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetryTime {
    /// Unix milliseconds.
    pub created: i64,
}

/// An attached file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FilePart {
    /// Media type, e.g. `image/png`.
    pub mime: String,
    /// Where the content is: a `file://` or `data:` URL.
    pub url: String,
    /// The name to show.
    #[serde(default)]
    pub filename: Option<String>,
    /// Where the attachment came from (a file, a symbol, an MCP resource), stored as
    /// the client described it: its shape belongs to the interface, not to storage.
    #[serde(default)]
    pub source: Option<Value>,
}

/// A tool call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolPart {
    /// The provider's id for the call, used to pair the result with it.
    pub call_id: String,
    /// The tool's name.
    pub tool: String,
    /// Where the call is in its life cycle.
    pub state: ToolState,
}

/// A tool call's life cycle, tagged by `status` in JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum ToolState {
    /// The arguments are still streaming or the call awaits permission.
    Pending {
        /// The arguments so far.
        input: Value,
    },
    /// The tool is executing.
    Running {
        /// The arguments.
        input: Value,
        /// A title the tool reported while running.
        #[serde(default)]
        title: Option<String>,
        /// Progress metadata the tool reported.
        #[serde(default)]
        metadata: Option<Value>,
        /// When it started.
        time: RunningTime,
    },
    /// The tool finished.
    Completed {
        /// The arguments.
        input: Value,
        /// The (possibly truncated) output the model sees.
        output: String,
        /// A title for the user.
        title: String,
        /// Metadata the tool reported.
        metadata: Value,
        /// When it ran, and when its output was pruned.
        time: CompletedTime,
        /// Files the tool returned (an image `read` loaded), their bytes stored
        /// once and referred to by URL (`ward_store::Blobs`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        attachments: Vec<FilePart>,
    },
    /// The tool failed, was denied or was interrupted.
    Error {
        /// The arguments.
        input: Value,
        /// The error the model sees.
        error: String,
        /// When it ran.
        time: ErrorTime,
    },
}

impl ToolState {
    /// Whether the call has an outcome (completed or error).
    pub fn is_finished(&self) -> bool {
        matches!(self, ToolState::Completed { .. } | ToolState::Error { .. })
    }

    /// The error state that ends an unfinished call at `now` with `error` (keeping its
    /// input and start time); `None` if the call already has an outcome. Crash recovery
    /// and abort both close calls this way.
    pub fn cut_short(&self, error: &str, now: i64) -> Option<ToolState> {
        let (input, start) = match self {
            ToolState::Pending { input } => (input.clone(), now),
            ToolState::Running { input, time, .. } => (input.clone(), time.start),
            ToolState::Completed { .. } | ToolState::Error { .. } => return None,
        };
        Some(ToolState::Error {
            input,
            error: error.to_string(),
            time: ErrorTime { start, end: now },
        })
    }
}

/// When a running tool started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunningTime {
    /// Unix milliseconds.
    pub start: i64,
}

/// When a completed tool ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompletedTime {
    /// Unix milliseconds.
    pub start: i64,
    /// Unix milliseconds.
    pub end: i64,
    /// When the output was pruned from the context (sent as a placeholder since).
    #[serde(default)]
    pub compacted: Option<i64>,
}

/// When a failed tool ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorTime {
    /// Unix milliseconds.
    pub start: i64,
    /// Unix milliseconds.
    pub end: i64,
}
