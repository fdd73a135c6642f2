//! Where a session's history starts after its last compaction.
//!
//! Owns [`CompactionPoint`]. Loading the context reads only messages with ids from
//! [`CompactionPoint::from_message_id`] on, so its cost follows the messages since the
//! last compaction, not the length of the whole session.

use serde::{Deserialize, Serialize};

/// A completed compaction of a session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompactionPoint {
    /// The session compacted.
    pub session_id: String,
    /// How many compactions the session has completed, this one included (1, 2, …).
    pub index: u32,
    /// The assistant message holding the summary (`summary = true`).
    pub summary_message_id: String,
    /// The first message history is loaded from: the compaction request, or the
    /// first of the turns kept verbatim before it.
    pub from_message_id: String,
    /// When the compaction completed, in Unix milliseconds.
    pub time: i64,
}
