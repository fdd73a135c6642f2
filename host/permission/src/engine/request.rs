//! The messages of the ask channel.
//!
//! Owns what the engine publishes ([`PermissionEvent`]); what a tool call asks for
//! ([`AskRequest`]) and what the user answers ([`Reply`]) cross the engine's front
//! door and live in `ward-protocol`.

use serde::{Deserialize, Serialize};
pub use ward_protocol::permission::{AskRequest, Reply};

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
