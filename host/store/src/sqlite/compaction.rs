//! SQL for the `compaction` table: one row per completed compaction of a session.
//!
//! Rows are keyed by (session, index), so the latest point is the last entry of the
//! primary key for the session: one seek, however many compactions there were.

use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::error::{Context, Result};
use crate::model::compaction::CompactionPoint;

/// The session's latest compaction point.
pub(crate) fn latest(conn: &Connection, session_id: &str) -> Result<Option<CompactionPoint>> {
    conn.prepare_cached(
        "SELECT session_id, idx, summary_message_id, from_message_id, time FROM compaction \
         WHERE session_id = ?1 ORDER BY idx DESC LIMIT 1",
    )
    .and_then(|mut statement| statement.query_row([session_id], from_row).optional())
    .context(|| format!("get the compaction point of session {session_id}"))
}

/// Appends a compaction point, numbered after the previous one.
pub(crate) fn append(
    conn: &Connection,
    session_id: &str,
    summary_message_id: &str,
    from_message_id: &str,
    now: i64,
) -> Result<CompactionPoint> {
    conn.prepare_cached(
        "INSERT INTO compaction (session_id, idx, summary_message_id, from_message_id, time) \
         SELECT ?1, COALESCE(MAX(idx), 0) + 1, ?2, ?3, ?4 FROM compaction WHERE session_id = ?1 \
         RETURNING session_id, idx, summary_message_id, from_message_id, time",
    )
    .and_then(|mut statement| {
        statement.query_row(
            params![session_id, summary_message_id, from_message_id, now],
            from_row,
        )
    })
    .context(|| {
        format!("set the compaction point of session {session_id} (summary {summary_message_id})")
    })
}

fn from_row(row: &Row<'_>) -> rusqlite::Result<CompactionPoint> {
    Ok(CompactionPoint {
        session_id: row.get(0)?,
        index: row.get(1)?,
        summary_message_id: row.get(2)?,
        from_message_id: row.get(3)?,
        time: row.get(4)?,
    })
}
