//! The messages of the ask channel.
//!
//! Owns what a tool call asks for ([`AskRequest`]), what the user answers
//! ([`Reply`]) and what the engine publishes ([`PermissionEvent`]). All are
//! serialisable because they cross the HTTP API and the event bus.

use serde::{Deserialize, Serialize};

/// A tool call's request for a permission.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AskRequest {
    /// The session making the call; replies cascade within it.
    pub session_id: String,
    /// The project (approvals are scoped to project and agent).
    pub project: String,
    /// The agent making the call.
    pub agent: String,
    /// The permission key (`bash`, `edit`, `read`, a tool name, …).
    pub permission: String,
    /// The patterns checked, e.g. one per bash sub-command; all must be allowed.
    pub patterns: Vec<String>,
    /// The patterns to allow from now on if the user answers "always".
    pub always: Vec<String>,
    /// Tool-specific detail for the prompt (diff, command, …).
    #[serde(default)]
    pub metadata: serde_json::Value,
    /// The tool call this belongs to, if any.
    #[serde(default)]
    pub call_id: Option<String>,
    /// The plugin whose call asks (through `ask`, or a capability it uses); `None` when
    /// the host asks about a tool call. Shown with the question; an "always" answer to
    /// it is stored for that plugin alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
}

/// The user's answer to an ask.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "lowercase")]
pub enum Reply {
    /// Allow this call only.
    Once,
    /// Allow this call and persist allow rules for its `always` patterns.
    Always,
    /// Refuse this call and every other pending ask of the session.
    Reject {
        /// Told to the model with the rejection.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        feedback: Option<String>,
    },
}

/// Published on the engine's broadcast channel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum PermissionEvent {
    /// A call is waiting for the user.
    #[serde(rename = "permission.asked")]
    Asked {
        /// Id to reply with.
        id: String,
        /// What is asked (boxed: the event is otherwise mostly the ask, and
        /// `serde_json` built with `preserve_order` — as `ward-acp`'s protocol crate
        /// builds it — makes its metadata large).
        request: Box<AskRequest>,
    },
    /// An ask was answered (directly, or by a cascade from another reply).
    #[serde(rename = "permission.replied")]
    Replied {
        /// The session the ask was in.
        #[serde(default)]
        session_id: String,
        /// The ask's id.
        id: String,
        /// The answer that settled it.
        #[serde(flatten)]
        reply: Reply,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reply_wire_format() {
        let r: Reply =
            serde_json::from_value(json!({"reply": "reject", "feedback": "no"})).expect("parses");
        assert_eq!(
            r,
            Reply::Reject {
                feedback: Some("no".into())
            }
        );
        let r: Reply = serde_json::from_value(json!({"reply": "reject"})).expect("parses");
        assert_eq!(r, Reply::Reject { feedback: None });
        assert_eq!(
            serde_json::to_value(Reply::Always).expect("ser"),
            json!({"reply": "always"})
        );
    }

    #[test]
    fn event_wire_format_round_trips() {
        let event = PermissionEvent::Replied {
            session_id: "ses_1".into(),
            id: "per_1".into(),
            reply: Reply::Reject {
                feedback: Some("x".into()),
            },
        };
        let value = serde_json::to_value(&event).expect("ser");
        assert_eq!(
            value,
            json!({"type": "permission.replied", "session_id": "ses_1", "id": "per_1", "reply": "reject", "feedback": "x"})
        );
        let back: PermissionEvent = serde_json::from_value(value).expect("de");
        assert_eq!(back, event);
    }
}
