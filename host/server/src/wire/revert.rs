//! Undo's shapes, as OpenCode's server has them: a session's `revert` and
//! `summary`, and the body of `POST /session/{id}/revert`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use ward_protocol::{SessionRevert, SessionSummary};

/// Where a session was rolled back to (OpenCode's `session.revert`).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RevertInfo {
    /// The first message rolled back.
    #[serde(rename = "messageID")]
    pub message_id: String,
    /// The first part rolled back, when the roll-back starts inside the message.
    #[serde(rename = "partID", skip_serializing_if = "Option::is_none")]
    pub part_id: Option<String>,
    /// The snapshot of the files just before the roll-back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
    /// The files the roll-back restored.
    pub files: Vec<String>,
}

impl From<&SessionRevert> for RevertInfo {
    fn from(r: &SessionRevert) -> Self {
        RevertInfo {
            message_id: r.message_id.clone(),
            part_id: r.part_id.clone(),
            snapshot: r.snapshot.clone(),
            files: r.files.clone(),
        }
    }
}

/// What a session changed in the files (OpenCode's `session.summary`).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SummaryInfo {
    /// Lines added.
    pub additions: u64,
    /// Lines removed.
    pub deletions: u64,
    /// Files changed.
    pub files: u64,
}

impl From<&SessionSummary> for SummaryInfo {
    fn from(s: &SessionSummary) -> Self {
        SummaryInfo {
            additions: s.additions,
            deletions: s.deletions,
            files: s.files,
        }
    }
}

/// `POST /session/{sessionID}/revert`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RevertRequest {
    /// The first message to roll back.
    #[serde(rename = "messageID")]
    pub message_id: String,
    /// The first part of it to roll back (default: the whole message).
    #[serde(rename = "partID", default)]
    pub part_id: Option<String>,
}
