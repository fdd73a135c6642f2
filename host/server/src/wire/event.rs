//! The events of the stream, as OpenCode's clients read them: `{"type": …,
//! "properties": {…}}`, converted from the engine's [`ward_engine::Event`].
//!
//! The engine's events are Ward's; the names and fields here are OpenCode's
//! (`sessionID`, `permission.asked` with `patterns` and `always`, `session.idle` after
//! a loop ends), plus Ward's own (`plugin.*`, `server.lagged`) that OpenCode clients
//! ignore.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;
use ward_engine::{AskRequest, Event, Reply};
use ward_protocol::SessionStatus;

use super::message::{MessageInfo, PartInfo};
use super::session::{SessionInfo, TodoInfo};

/// One event of the stream.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(tag = "type", content = "properties")]
pub enum EventInfo {
    /// The stream is open (always the first event).
    #[serde(rename = "server.connected")]
    ServerConnected {},
    /// Events were lost to this client: it fell too far behind, or reconnected
    /// after they left the replay buffer. Reload what it shows from the API.
    #[serde(rename = "server.lagged")]
    ServerLagged {
        /// How many events it missed (at least).
        missed: u64,
    },
    /// A session was created.
    #[serde(rename = "session.created")]
    SessionCreated {
        /// The session.
        #[serde(rename = "sessionID")]
        session_id: String,
        /// The session.
        info: SessionInfo,
    },
    /// A session changed.
    #[serde(rename = "session.updated")]
    SessionUpdated {
        /// The session.
        #[serde(rename = "sessionID")]
        session_id: String,
        /// The session.
        info: SessionInfo,
    },
    /// A session was deleted.
    #[serde(rename = "session.deleted")]
    SessionDeleted {
        /// The session.
        #[serde(rename = "sessionID")]
        session_id: String,
        /// The session as it was.
        info: SessionInfo,
    },
    /// A session's loop started, stopped or waits to retry.
    #[serde(rename = "session.status")]
    SessionStatus {
        /// The session.
        #[serde(rename = "sessionID")]
        session_id: String,
        /// Its status.
        status: StatusInfo,
    },
    /// A session's loop stopped (after `session.status` idle).
    #[serde(rename = "session.idle")]
    SessionIdle {
        /// The session.
        #[serde(rename = "sessionID")]
        session_id: String,
    },
    /// A session's history was compacted.
    #[serde(rename = "session.compacted")]
    SessionCompacted {
        /// The session.
        #[serde(rename = "sessionID")]
        session_id: String,
    },
    /// A message was created or changed.
    #[serde(rename = "message.updated")]
    MessageUpdated {
        /// Its session.
        #[serde(rename = "sessionID")]
        session_id: String,
        /// The message.
        info: MessageInfo,
    },
    /// A message was removed.
    #[serde(rename = "message.removed")]
    MessageRemoved {
        /// Its session.
        #[serde(rename = "sessionID")]
        session_id: String,
        /// The message.
        #[serde(rename = "messageID")]
        message_id: String,
    },
    /// A part was created or replaced.
    #[serde(rename = "message.part.updated")]
    PartUpdated {
        /// Its session.
        #[serde(rename = "sessionID")]
        session_id: String,
        /// The part.
        part: PartInfo,
        /// When, in Unix milliseconds.
        time: i64,
    },
    /// Text was appended to a streaming part.
    #[serde(rename = "message.part.delta")]
    PartDelta {
        /// Its session.
        #[serde(rename = "sessionID")]
        session_id: String,
        /// Its message.
        #[serde(rename = "messageID")]
        message_id: String,
        /// The part.
        #[serde(rename = "partID")]
        part_id: String,
        /// The field appended to (`text`).
        field: String,
        /// What was appended.
        delta: String,
    },
    /// A part was removed.
    #[serde(rename = "message.part.removed")]
    PartRemoved {
        /// Its session.
        #[serde(rename = "sessionID")]
        session_id: String,
        /// Its message.
        #[serde(rename = "messageID")]
        message_id: String,
        /// The part.
        #[serde(rename = "partID")]
        part_id: String,
    },
    /// A session's task list was replaced.
    #[serde(rename = "todo.updated")]
    TodoUpdated {
        /// The session.
        #[serde(rename = "sessionID")]
        session_id: String,
        /// The whole list.
        todos: Vec<TodoInfo>,
    },
    /// A tool call waits for a person's answer: reply with
    /// `POST /permission/{id}/reply`.
    #[serde(rename = "permission.asked")]
    PermissionAsked(PermissionInfo),
    /// An ask was answered.
    #[serde(rename = "permission.replied")]
    PermissionReplied {
        /// The session.
        #[serde(rename = "sessionID")]
        session_id: String,
        /// The ask.
        #[serde(rename = "requestID")]
        request_id: String,
        /// `once`, `always` or `reject`.
        reply: String,
    },
    /// The model asks the user questions.
    #[serde(rename = "question.asked")]
    QuestionAsked(crate::routes::question::QuestionWire),
    /// Questions were answered.
    #[serde(rename = "question.replied")]
    QuestionReplied {
        /// The session.
        #[serde(rename = "sessionID")]
        session_id: String,
        /// The request.
        #[serde(rename = "requestID")]
        request_id: String,
        /// One list per question.
        answers: Vec<Vec<String>>,
    },
    /// Questions were dismissed.
    #[serde(rename = "question.rejected")]
    QuestionRejected {
        /// The session.
        #[serde(rename = "sessionID")]
        session_id: String,
        /// The request.
        #[serde(rename = "requestID")]
        request_id: String,
    },
    /// A plugin is ready.
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
    /// A plugin was refused something it was not granted.
    #[serde(rename = "plugin.denied")]
    PluginDenied {
        /// The plugin.
        plugin: String,
        /// `fs`, `exec`, `net`, `env`, …
        capability: String,
        /// What it asked for.
        target: String,
        /// Why it was refused.
        reason: String,
    },
}

/// A session's status (OpenCode's `SessionStatus`).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum StatusInfo {
    /// No loop runs.
    Idle,
    /// The loop runs.
    Busy,
    /// A model call failed and will be retried.
    Retry {
        /// The attempt about to be made.
        attempt: u32,
        /// Why the previous one failed.
        message: String,
        /// When the next starts, in Unix milliseconds.
        next: i64,
    },
}

impl From<&SessionStatus> for StatusInfo {
    fn from(status: &SessionStatus) -> Self {
        match status {
            SessionStatus::Idle => StatusInfo::Idle,
            SessionStatus::Busy => StatusInfo::Busy,
            SessionStatus::Retry {
                attempt,
                message,
                next,
                ..
            } => StatusInfo::Retry {
                attempt: *attempt,
                message: message.clone(),
                next: *next,
            },
        }
    }
}

/// A permission ask (OpenCode's `PermissionRequest`).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PermissionInfo {
    /// `per_…`: what to reply to.
    pub id: String,
    /// The session whose call asks.
    #[serde(rename = "sessionID")]
    pub session_id: String,
    /// The permission asked for (`edit`, `bash`, a tool, …).
    pub permission: String,
    /// What it is asked for (paths, commands, URLs).
    pub patterns: Vec<String>,
    /// What the tool says about the call (a diff, a command's description).
    pub metadata: Value,
    /// The patterns an `always` answer allows from now on.
    pub always: Vec<String>,
    /// The tool call asking, when a call asks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<ToolRef>,
    /// The plugin asking, when a plugin's own question asks (Ward only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
}

/// The tool call an ask is about: OpenCode's clients find the call's part by these
/// (its dialog shows the call's input: the path read, the command run).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ToolRef {
    /// The assistant message holding the call (absent for a call outside a session's
    /// loop, which has none).
    #[serde(rename = "messageID", skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// The model's id for the call.
    #[serde(rename = "callID")]
    pub call_id: String,
}

impl PermissionInfo {
    /// The ask `id`.
    pub fn of(id: &str, request: &AskRequest) -> Self {
        PermissionInfo {
            id: id.to_string(),
            session_id: request.session_id.clone(),
            permission: request.permission.clone(),
            patterns: request.patterns.clone(),
            metadata: request.metadata.clone(),
            always: request.always.clone(),
            tool: request.call_id.as_ref().map(|call_id| ToolRef {
                message_id: request.message_id.clone(),
                call_id: call_id.clone(),
            }),
            plugin: request.plugin.clone(),
        }
    }
}

/// The name of a reply on the wire.
pub fn reply_name(reply: &Reply) -> &'static str {
    match reply {
        Reply::Once => "once",
        Reply::Always => "always",
        Reply::Reject { .. } => "reject",
    }
}

/// The client events `event` makes: one, or two where OpenCode sends two (a loop
/// going idle is also `session.idle`). `root` is the project's root directory,
/// `now` stamps part updates.
pub fn events_of(event: &Event, root: &str, now: i64) -> Vec<EventInfo> {
    let one = match event {
        Event::SessionCreated { info } => EventInfo::SessionCreated {
            session_id: info.id.clone(),
            info: SessionInfo::of(info),
        },
        Event::SessionUpdated { info } => EventInfo::SessionUpdated {
            session_id: info.id.clone(),
            info: SessionInfo::of(info),
        },
        Event::SessionDeleted { info } => EventInfo::SessionDeleted {
            session_id: info.id.clone(),
            info: SessionInfo::of(info),
        },
        Event::SessionStatus { session_id, status } => {
            let mut out = vec![EventInfo::SessionStatus {
                session_id: session_id.clone(),
                status: status.into(),
            }];
            if *status == SessionStatus::Idle {
                out.push(EventInfo::SessionIdle {
                    session_id: session_id.clone(),
                });
            }
            return out;
        }
        Event::SessionCompacted { session_id } => EventInfo::SessionCompacted {
            session_id: session_id.clone(),
        },
        Event::MessageUpdated { info } => EventInfo::MessageUpdated {
            session_id: info.session_id().to_string(),
            info: MessageInfo::of(info, root),
        },
        Event::MessageRemoved {
            session_id,
            message_id,
        } => EventInfo::MessageRemoved {
            session_id: session_id.clone(),
            message_id: message_id.clone(),
        },
        Event::PartUpdated { part } => EventInfo::PartUpdated {
            session_id: part.session_id.clone(),
            part: PartInfo::of(part),
            time: now,
        },
        Event::PartDelta {
            session_id,
            message_id,
            part_id,
            field,
            delta,
        } => EventInfo::PartDelta {
            session_id: session_id.clone(),
            message_id: message_id.clone(),
            part_id: part_id.clone(),
            field: field.clone(),
            delta: delta.clone(),
        },
        Event::PartRemoved {
            session_id,
            message_id,
            part_id,
        } => EventInfo::PartRemoved {
            session_id: session_id.clone(),
            message_id: message_id.clone(),
            part_id: part_id.clone(),
        },
        Event::TodoUpdated { session_id, todos } => EventInfo::TodoUpdated {
            session_id: session_id.clone(),
            todos: todos.iter().map(TodoInfo::from).collect(),
        },
        Event::PermissionAsked { id, request } => {
            EventInfo::PermissionAsked(PermissionInfo::of(id, request))
        }
        Event::PermissionReplied {
            session_id,
            id,
            reply,
        } => EventInfo::PermissionReplied {
            session_id: session_id.clone(),
            request_id: id.clone(),
            reply: reply_name(reply).to_string(),
        },
        Event::QuestionAsked { request } => {
            EventInfo::QuestionAsked(crate::routes::question::QuestionWire::of(request))
        }
        Event::QuestionReplied {
            session_id,
            id,
            answers,
        } => EventInfo::QuestionReplied {
            session_id: session_id.clone(),
            request_id: id.clone(),
            answers: answers.clone(),
        },
        Event::QuestionRejected { session_id, id } => EventInfo::QuestionRejected {
            session_id: session_id.clone(),
            request_id: id.clone(),
        },
        Event::PluginLoaded { plugin } => EventInfo::PluginLoaded {
            plugin: plugin.clone(),
        },
        Event::PluginFailed { plugin, reason } => EventInfo::PluginFailed {
            plugin: plugin.clone(),
            reason: reason.clone(),
        },
        Event::PluginDenied {
            plugin,
            capability,
            target,
            reason,
        } => EventInfo::PluginDenied {
            plugin: plugin.clone(),
            capability: capability.clone(),
            target: target.clone(),
            reason: reason.clone(),
        },
    };
    vec![one]
}
