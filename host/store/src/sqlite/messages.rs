//! SQL for the `message` and `part` tables.
//!
//! Owns storing messages and parts as JSON documents keyed by their ids, and loading a
//! session's history. History is two range scans in id order — messages, then the
//! parts of those messages — merged in memory, so loading "since" a message reads
//! only the rows from that message on.

use rusqlite::{Connection, OptionalExtension, params};
use serde::de::DeserializeOwned;

use crate::error::{Context, Result, StoreError};
use crate::model::message::{Message, MessageInfo};
use crate::model::part::Part;

/// A session's messages from an id on: a range seek on `message_session`.
const MESSAGES_SINCE: &str =
    "SELECT id, data FROM message WHERE session_id = ?1 AND id >= ?2 ORDER BY id";

/// The parts of those messages: a range seek on `part_session`, already in the order
/// the merge below needs.
const PARTS_SINCE: &str = "SELECT id, data FROM part WHERE session_id = ?1 \
    AND message_id >= ?2 ORDER BY message_id, id";

/// Creates or replaces a message's record.
pub(crate) fn put_message(conn: &Connection, info: &MessageInfo) -> Result<()> {
    let data = serde_json::to_string(info).context(|| format!("encoding message {}", info.id()))?;
    conn.prepare_cached(
        "INSERT INTO message (id, session_id, data) VALUES (?1, ?2, ?3) \
         ON CONFLICT (id) DO UPDATE SET data = excluded.data",
    )
    .and_then(|mut statement| statement.execute(params![info.id(), info.session_id(), data]))
    .context(|| format!("put message {} in session {}", info.id(), info.session_id()))?;
    Ok(())
}

/// Creates or replaces a part.
pub(crate) fn put_part(conn: &Connection, part: &Part) -> Result<()> {
    let data = serde_json::to_string(part).context(|| format!("encoding part {}", part.id))?;
    conn.prepare_cached(
        "INSERT INTO part (id, message_id, session_id, data) VALUES (?1, ?2, ?3, ?4) \
         ON CONFLICT (id) DO UPDATE SET data = excluded.data",
    )
    .and_then(|mut statement| {
        statement.execute(params![part.id, part.message_id, part.session_id, data])
    })
    .context(|| format!("put part {} in message {}", part.id, part.message_id))?;
    Ok(())
}

/// Removes a message (its parts cascade); whether it existed.
pub(crate) fn remove_message(conn: &Connection, session_id: &str, id: &str) -> Result<bool> {
    let removed = conn
        .prepare_cached("DELETE FROM message WHERE id = ?1 AND session_id = ?2")
        .and_then(|mut statement| statement.execute([id, session_id]))
        .context(|| format!("remove message {id}"))?;
    Ok(removed > 0)
}

/// Removes a part; whether it existed.
pub(crate) fn remove_part(conn: &Connection, message_id: &str, id: &str) -> Result<bool> {
    let removed = conn
        .prepare_cached("DELETE FROM part WHERE id = ?1 AND message_id = ?2")
        .and_then(|mut statement| statement.execute([id, message_id]))
        .context(|| format!("remove part {id}"))?;
    Ok(removed > 0)
}

/// One message and its parts.
pub(crate) fn get_message(conn: &Connection, id: &str) -> Result<Message> {
    let data: Option<String> = conn
        .prepare_cached("SELECT data FROM message WHERE id = ?1")
        .and_then(|mut statement| statement.query_row([id], |row| row.get(0)).optional())
        .context(|| format!("get message {id}"))?;
    let data = data.ok_or_else(|| StoreError::NotFound {
        kind: "message",
        id: id.to_string(),
    })?;
    let info: MessageInfo = decode(&data, || format!("message {id}"))?;
    let parts = conn
        .prepare_cached("SELECT id, data FROM part WHERE message_id = ?1 ORDER BY id")
        .and_then(|mut statement| {
            statement
                .query_map([id], |row| Ok((row.get(0)?, row.get(1)?)))?
                .collect::<rusqlite::Result<Vec<(String, String)>>>()
        })
        .context(|| format!("get the parts of message {id}"))?
        .into_iter()
        .map(|(part_id, data)| decode(&data, || format!("part {part_id}")))
        .collect::<Result<Vec<Part>>>()?;
    Ok(Message { info, parts })
}

/// The session's messages with ids from `since` on (all if empty), with their parts.
pub(crate) fn list(conn: &Connection, session_id: &str, since: &str) -> Result<Vec<Message>> {
    let mut messages: Vec<Message> = rows(conn, MESSAGES_SINCE, session_id, since)?
        .into_iter()
        .map(|(id, data)| {
            let info = decode(&data, || format!("message {id}"))?;
            Ok(Message {
                info,
                parts: Vec::new(),
            })
        })
        .collect::<Result<_>>()?;

    // Both lists are sorted by message id: walk them together.
    let parts = rows(conn, PARTS_SINCE, session_id, since)?;
    let mut index = 0;
    for (id, data) in parts {
        let part: Part = decode(&data, || format!("part {id}"))?;
        while index < messages.len() && messages[index].info.id() < part.message_id.as_str() {
            index += 1;
        }
        match messages.get_mut(index) {
            Some(message) if message.info.id() == part.message_id => message.parts.push(part),
            // Foreign keys make an orphan impossible; if one appears anyway (a file
            // edited by hand), skipping it keeps the session loadable.
            _ => {
                tracing::warn!(part = %part.id, message = %part.message_id, "part without its message")
            }
        }
    }
    Ok(messages)
}

fn rows(
    conn: &Connection,
    sql: &str,
    session_id: &str,
    since: &str,
) -> Result<Vec<(String, String)>> {
    conn.prepare_cached(sql)
        .and_then(|mut statement| {
            statement
                .query_map([session_id, since], |row| Ok((row.get(0)?, row.get(1)?)))?
                .collect::<rusqlite::Result<Vec<_>>>()
        })
        .context(|| format!("load the history of session {session_id}"))
}

/// Parses a stored JSON document, naming it in the error.
pub(crate) fn decode<T: DeserializeOwned>(data: &str, what: impl FnOnce() -> String) -> Result<T> {
    serde_json::from_str(data).context(|| format!("reading stored {}", what()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sqlite::schema;

    /// Loading history since the compaction point must not read older rows: both
    /// queries are range seeks on an index, and neither needs a sort.
    #[test]
    fn history_since_a_message_is_a_range_seek() {
        let mut conn = Connection::open_in_memory().expect("opens");
        schema::configure(&conn).expect("configures");
        schema::migrate(&mut conn).expect("migrates");
        for (sql, expected) in [
            (MESSAGES_SINCE, "message_session (session_id=? AND id>?)"),
            (PARTS_SINCE, "part_session (session_id=? AND message_id>?)"),
        ] {
            let plan: Vec<String> = conn
                .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
                .and_then(|mut s| {
                    s.query_map(["ses_1", "msg_1"], |row| row.get::<_, String>(3))?
                        .collect::<rusqlite::Result<_>>()
                })
                .expect("plans");
            assert!(plan.iter().any(|step| step.contains(expected)), "{plan:?}");
            assert!(
                !plan.iter().any(|step| step.contains("TEMP B-TREE")),
                "{plan:?}"
            );
        }
    }
}
