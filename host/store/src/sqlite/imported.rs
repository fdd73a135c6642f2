//! SQL for the `imported` table: which sessions came from `ward session import`, and
//! how much of each.
//!
//! An import keeps the file's ids and rows as they were (so an export of it is the
//! same bytes), so what marks them as someone else's history lives beside them: one
//! row per imported session, written in the import's own transaction — a session is
//! never stored without its mark — and deleted with the session. Undo reads it to
//! refuse restoring files from snapshots another data directory took.

use rusqlite::{Connection, OptionalExtension, params};

use super::SqliteStore;
use crate::error::{Context, Result};
use crate::now_ms;

/// A session (or the part of it) that came from an import file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportedSession {
    /// The session.
    pub session_id: String,
    /// The last message the file held: it and every message before it (in id order)
    /// are history written elsewhere; messages after it were added here. `None` when
    /// the file held none.
    pub through_message: Option<String>,
    /// The snapshot the file's revert point named, if the session came reverted: it
    /// was taken elsewhere, so undoing that revert has nothing here to restore from.
    pub revert_snapshot: Option<String>,
}

impl ImportedSession {
    /// Whether message `message_id` of the session came from the import file.
    pub fn holds(&self, message_id: &str) -> bool {
        self.through_message
            .as_deref()
            .is_some_and(|last| message_id <= last)
    }
}

impl SqliteStore {
    /// The import mark of session `session_id`; `None` if it was made here (or
    /// imported by a Ward that did not yet mark imports).
    pub fn imported(&self, session_id: &str) -> Result<Option<ImportedSession>> {
        self.shared.read_unstreamed(|conn| get(conn, session_id))
    }
}

fn get(conn: &Connection, session_id: &str) -> Result<Option<ImportedSession>> {
    conn.prepare_cached(
        "SELECT through_message, revert_snapshot FROM imported WHERE session_id = ?1",
    )
    .and_then(|mut statement| {
        statement
            .query_row([session_id], |row| {
                Ok(ImportedSession {
                    session_id: session_id.to_string(),
                    through_message: row.get(0)?,
                    revert_snapshot: row.get(1)?,
                })
            })
            .optional()
    })
    .context(|| format!("get the import mark of session {session_id}"))
}

/// Stores `mark` (inside the caller's transaction, after its session).
pub(crate) fn insert(conn: &Connection, mark: &ImportedSession) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO imported (session_id, through_message, revert_snapshot, time) \
         VALUES (?1, ?2, ?3, ?4)",
    )
    .and_then(|mut statement| {
        statement.execute(params![
            mark.session_id,
            mark.through_message,
            mark.revert_snapshot,
            now_ms()
        ])
    })
    .context(|| format!("mark session {} as imported", mark.session_id))?;
    Ok(())
}
