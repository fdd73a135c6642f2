//! SQL for the `todo` table: one JSON list per session, replaced whole.

use rusqlite::{Connection, OptionalExtension, params};

use super::messages::decode;
use crate::error::{Context, Result};
use crate::model::todo::Todo;

/// The session's list; empty if none was written.
pub(crate) fn get(conn: &Connection, session_id: &str) -> Result<Vec<Todo>> {
    let data: Option<String> = conn
        .prepare_cached("SELECT data FROM todo WHERE session_id = ?1")
        .and_then(|mut statement| {
            statement
                .query_row([session_id], |row| row.get(0))
                .optional()
        })
        .context(|| format!("get the todos of session {session_id}"))?;
    match data {
        Some(data) => decode(&data, || format!("todos of session {session_id}")),
        None => Ok(Vec::new()),
    }
}

/// Replaces the session's list.
pub(crate) fn set(conn: &Connection, session_id: &str, todos: &[Todo]) -> Result<()> {
    let data = serde_json::to_string(todos)
        .context(|| format!("encoding the todos of session {session_id}"))?;
    conn.prepare_cached(
        "INSERT INTO todo (session_id, data) VALUES (?1, ?2) \
         ON CONFLICT (session_id) DO UPDATE SET data = excluded.data",
    )
    .and_then(|mut statement| statement.execute(params![session_id, data]))
    .context(|| format!("set the todos of session {session_id}"))?;
    Ok(())
}
