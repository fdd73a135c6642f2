//! Messages and their parts as OpenCode's server shows them.
//!
//! Owns [`MessageInfo`] (user or assistant, tagged by `role`), [`PartInfo`] (tagged
//! by `type`) and the tool-call [`ToolStateInfo`] (tagged by `status`), converted
//! from the store's records.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;
use ward_protocol::{self as store, PartKind, ToolState};

use super::session::TokenCounts;

/// A message with its parts.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MessageWithParts {
    /// The message.
    pub info: MessageInfo,
    /// What it is made of, in order.
    pub parts: Vec<PartInfo>,
}

impl MessageWithParts {
    /// `message` as a client sees it; `root` is the project's root directory.
    pub fn of(message: &store::Message, root: &str) -> Self {
        MessageWithParts {
            info: MessageInfo::of(&message.info, root),
            parts: message.parts.iter().map(PartInfo::of).collect(),
        }
    }
}

/// A user's or the assistant's message (OpenCode's `Message`).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum MessageInfo {
    /// What a person sent.
    User(UserInfo),
    /// What the model answered in one loop.
    Assistant(Box<AssistantInfo>),
}

/// A user message.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct UserInfo {
    /// `msg_…`.
    pub id: String,
    /// Its session.
    #[serde(rename = "sessionID")]
    pub session_id: String,
    /// When it was sent.
    pub time: CreatedTime,
    /// The agent it was addressed to.
    pub agent: String,
    /// The model it was addressed to.
    pub model: ModelIds,
    /// System text sent with it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
}

/// An assistant message.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AssistantInfo {
    /// `msg_…`.
    pub id: String,
    /// Its session.
    #[serde(rename = "sessionID")]
    pub session_id: String,
    /// When it started and finished.
    pub time: AssistantTimes,
    /// Why it ended without finishing, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
    /// The user message it answers.
    #[serde(rename = "parentID")]
    pub parent_id: String,
    /// The model that answered.
    #[serde(rename = "modelID")]
    pub model_id: String,
    /// Its provider.
    #[serde(rename = "providerID")]
    pub provider_id: String,
    /// The agent that answered (OpenCode's older name for it).
    pub mode: String,
    /// The agent that answered.
    pub agent: String,
    /// Where it worked.
    pub path: WorkPath,
    /// Whether it is a compaction summary.
    pub summary: bool,
    /// What it cost, in dollars.
    pub cost: f64,
    /// What it used.
    pub tokens: TokenCounts,
    /// How the last step ended (`stop`, `tool-calls`, `length`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finish: Option<String>,
}

/// A creation time, in Unix milliseconds.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CreatedTime {
    /// Created.
    pub created: i64,
}

/// An assistant message's times, in Unix milliseconds.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AssistantTimes {
    /// Started.
    pub created: i64,
    /// Finished (absent while it runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completed: Option<i64>,
}

/// A provider and model id pair.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ModelIds {
    /// The provider.
    #[serde(rename = "providerID")]
    pub provider_id: String,
    /// The model.
    #[serde(rename = "modelID")]
    pub model_id: String,
}

/// The directories an assistant message worked in.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct WorkPath {
    /// The working directory.
    pub cwd: String,
    /// The project root.
    pub root: String,
}

/// An error as OpenCode names it: `{name, data: {message}}`.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ErrorInfo {
    /// What kind of error (`MessageAbortedError`, `APIError`, …).
    pub name: String,
    /// Its details.
    pub data: ErrorData,
}

/// An error's details.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ErrorData {
    /// What went wrong, for a person.
    pub message: String,
}

impl ErrorInfo {
    /// An error named `name` saying `message`.
    pub fn new(name: impl Into<String>, message: impl Into<String>) -> Self {
        ErrorInfo {
            name: name.into(),
            data: ErrorData {
                message: message.into(),
            },
        }
    }
}

impl MessageInfo {
    /// `info` as a client sees it; `root` is the project's root directory.
    pub fn of(info: &store::MessageInfo, root: &str) -> Self {
        match info {
            store::MessageInfo::User(u) => MessageInfo::User(UserInfo {
                id: u.id.clone(),
                session_id: u.session_id.clone(),
                time: CreatedTime {
                    created: u.time.created,
                },
                agent: u.agent.clone(),
                model: ModelIds {
                    provider_id: u.model.provider.clone(),
                    model_id: u.model.model.clone(),
                },
                system: u.system.clone(),
            }),
            store::MessageInfo::Assistant(a) => {
                MessageInfo::Assistant(Box::new(AssistantInfo::of(a, root)))
            }
        }
    }
}

impl AssistantInfo {
    /// `a` as a client sees it; `root` is the project's root directory.
    pub fn of(a: &store::AssistantMessage, root: &str) -> Self {
        AssistantInfo {
            id: a.id.clone(),
            session_id: a.session_id.clone(),
            time: AssistantTimes {
                created: a.time.created,
                completed: a.time.completed,
            },
            error: a
                .error
                .as_ref()
                .map(|e| ErrorInfo::new(&e.name, &e.message)),
            parent_id: a.parent_id.clone(),
            model_id: a.model.model.clone(),
            provider_id: a.model.provider.clone(),
            mode: a.agent.clone(),
            agent: a.agent.clone(),
            path: WorkPath {
                cwd: root.to_string(),
                root: root.to_string(),
            },
            summary: a.summary,
            cost: a.cost,
            tokens: a.tokens.into(),
            finish: a.finish.as_ref().map(finish_name),
        }
    }
}

/// A finish reason as its JSON string (`stop`, `tool-calls`, …).
fn finish_name(reason: &store::FinishReason) -> String {
    match serde_json::to_value(reason) {
        Ok(Value::String(s)) => s,
        _ => format!("{reason:?}"),
    }
}

/// A part of a message (OpenCode's `Part`).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PartInfo {
    /// `prt_…`.
    pub id: String,
    /// Its session.
    #[serde(rename = "sessionID")]
    pub session_id: String,
    /// Its message.
    #[serde(rename = "messageID")]
    pub message_id: String,
    /// What it is.
    #[serde(flatten)]
    pub body: PartBody,
}

/// When a text part was written, in Unix milliseconds.
#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
pub struct TextTimeInfo {
    /// The first delta.
    pub start: i64,
    /// The end of the stream.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<i64>,
}

/// What a part holds, tagged by `type`.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum PartBody {
    /// Text of the user or the model.
    Text {
        /// The text.
        text: String,
        /// Added by Ward, not typed or written by the model.
        synthetic: bool,
        /// Left out of what the model sees.
        ignored: bool,
        /// When the model wrote it: `end` once it is whole (OpenCode's clients show
        /// a model's text part then).
        #[serde(skip_serializing_if = "Option::is_none")]
        time: Option<TextTimeInfo>,
    },
    /// The model's reasoning.
    Reasoning {
        /// The text.
        text: String,
        /// When the model wrote it (`end` once the block is whole), as OpenCode's
        /// `ReasoningPart` carries it.
        #[serde(skip_serializing_if = "Option::is_none")]
        time: Option<TextTimeInfo>,
    },
    /// A tool call.
    Tool {
        /// The model's id for the call.
        #[serde(rename = "callID")]
        call_id: String,
        /// The tool.
        tool: String,
        /// Where the call stands.
        state: ToolStateInfo,
    },
    /// An attached file.
    File {
        /// Its media type.
        mime: String,
        /// Where it is (`file://`, `data:`).
        url: String,
        /// Its name.
        #[serde(skip_serializing_if = "Option::is_none")]
        filename: Option<String>,
    },
    /// Where a compaction happened.
    Compaction {
        /// Started by Ward rather than asked for.
        auto: bool,
        /// Started because the context overflowed.
        overflow: bool,
    },
    /// A task for a subagent.
    Subtask {
        /// What it was told.
        prompt: String,
        /// A short description.
        description: String,
        /// The subagent.
        agent: String,
    },
    /// A model call started.
    StepStart {},
    /// A model call ended.
    StepFinish {
        /// How (`stop`, `tool-calls`, …).
        reason: String,
        /// What it cost.
        cost: f64,
        /// What it used.
        tokens: TokenCounts,
    },
    /// Files a step changed.
    Patch {
        /// The snapshot after it.
        hash: String,
        /// The files.
        files: Vec<String>,
    },
    /// An agent mentioned in a prompt.
    Agent {
        /// The agent.
        name: String,
    },
    /// A failed model call that will be retried.
    Retry {
        /// The attempt about to be made.
        attempt: u32,
        /// Why the previous one failed.
        error: ErrorInfo,
    },
}

/// Where a tool call stands, tagged by `status`.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum ToolStateInfo {
    /// Its arguments are known; it has not started.
    Pending {
        /// Its arguments.
        input: Value,
        /// Its arguments as the model wrote them.
        raw: String,
    },
    /// It runs.
    Running {
        /// Its arguments.
        input: Value,
        /// A title for it, once known.
        #[serde(skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        /// What it has reported so far.
        #[serde(skip_serializing_if = "Option::is_none")]
        metadata: Option<Value>,
        /// When it started.
        time: StartTime,
    },
    /// It finished.
    Completed {
        /// Its arguments.
        input: Value,
        /// What the model reads.
        output: String,
        /// A title for it.
        title: String,
        /// What it reported.
        metadata: Value,
        /// When it ran.
        time: SpanTime,
    },
    /// It failed.
    Error {
        /// Its arguments.
        input: Value,
        /// Why.
        error: String,
        /// When it ran.
        time: SpanTime,
    },
}

/// A start time, in Unix milliseconds.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct StartTime {
    /// Started.
    pub start: i64,
}

/// A start and end time, in Unix milliseconds.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SpanTime {
    /// Started.
    pub start: i64,
    /// Ended.
    pub end: i64,
    /// When its output was pruned from the context, if it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compacted: Option<i64>,
}

impl ToolStateInfo {
    fn of(state: &ToolState) -> Self {
        match state {
            ToolState::Pending { input } => ToolStateInfo::Pending {
                input: input.clone(),
                raw: input.to_string(),
            },
            ToolState::Running {
                input,
                title,
                metadata,
                time,
            } => ToolStateInfo::Running {
                input: input.clone(),
                title: title.clone(),
                metadata: metadata.clone(),
                time: StartTime { start: time.start },
            },
            ToolState::Completed {
                input,
                output,
                title,
                metadata,
                time,
                ..
            } => ToolStateInfo::Completed {
                input: input.clone(),
                output: output.clone(),
                title: title.clone(),
                metadata: metadata.clone(),
                time: SpanTime {
                    start: time.start,
                    end: time.end,
                    compacted: time.compacted,
                },
            },
            ToolState::Error { input, error, time } => ToolStateInfo::Error {
                input: input.clone(),
                error: error.clone(),
                time: SpanTime {
                    start: time.start,
                    end: time.end,
                    compacted: None,
                },
            },
        }
    }
}

impl PartInfo {
    /// `part` as a client sees it.
    pub fn of(part: &store::Part) -> Self {
        let body = match &part.kind {
            PartKind::Text(t) => PartBody::Text {
                text: t.text.clone(),
                synthetic: t.synthetic,
                ignored: t.ignored,
                time: t.time.map(|time| TextTimeInfo {
                    start: time.start,
                    end: time.end,
                }),
            },
            PartKind::Reasoning { text, time, .. } => PartBody::Reasoning {
                text: text.clone(),
                time: time.map(|time| TextTimeInfo {
                    start: time.start,
                    end: time.end,
                }),
            },
            PartKind::Tool(t) => PartBody::Tool {
                call_id: t.call_id.clone(),
                tool: t.tool.clone(),
                state: ToolStateInfo::of(&t.state),
            },
            PartKind::File(f) => PartBody::File {
                mime: f.mime.clone(),
                url: f.url.clone(),
                filename: f.filename.clone(),
            },
            PartKind::Compaction { auto, overflow } => PartBody::Compaction {
                auto: *auto,
                overflow: *overflow,
            },
            PartKind::Subtask {
                prompt,
                description,
                agent,
            } => PartBody::Subtask {
                prompt: prompt.clone(),
                description: description.clone(),
                agent: agent.clone(),
            },
            PartKind::StepStart => PartBody::StepStart {},
            PartKind::StepFinish {
                reason,
                tokens,
                cost,
            } => PartBody::StepFinish {
                reason: finish_name(reason),
                cost: *cost,
                tokens: (*tokens).into(),
            },
            PartKind::Patch { hash, files } => PartBody::Patch {
                hash: hash.clone(),
                files: files.clone(),
            },
            PartKind::Agent { name } => PartBody::Agent { name: name.clone() },
            PartKind::Retry { attempt, error, .. } => PartBody::Retry {
                attempt: *attempt,
                error: ErrorInfo::new(&error.name, &error.message),
            },
        };
        PartInfo {
            id: part.id.clone(),
            session_id: part.session_id.clone(),
            message_id: part.message_id.clone(),
            body,
        }
    }
}
