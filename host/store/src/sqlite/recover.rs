//! Repairing what a crash left unfinished.
//!
//! Owns the start-up recovery: tool calls left pending or running become errors ("Tool
//! execution was interrupted") so every call the model made has a result, and
//! assistant messages left open are closed as aborted so the loop does not wait for
//! them. Both queries repeat the predicates of the partial indexes `part_open` and
//! `message_open`, which lets SQLite read only the unfinished rows.

use rusqlite::Connection;

use super::messages::{decode, put_message, put_part};
use crate::error::{Context, Result};
use crate::model::message::{ABORTED_ERROR, MessageError, MessageInfo};
use crate::model::part::{INTERRUPTED, Part, PartKind};

/// Unfinished tool parts, by the `part_open` index.
const OPEN_PARTS: &str = "SELECT id, data FROM part \
    WHERE json_extract(data, '$.type') = 'tool' \
      AND json_extract(data, '$.state.status') IN ('pending', 'running')";

/// Open assistant messages, by the `message_open` index.
const OPEN_MESSAGES: &str = "SELECT id, data FROM message \
    WHERE json_extract(data, '$.role') = 'assistant' \
      AND json_extract(data, '$.time.completed') IS NULL";

/// What recovery changed, to be published once committed.
#[derive(Debug, Default)]
pub(crate) struct Repaired {
    /// Tool parts now in the error state.
    pub(crate) parts: Vec<Part>,
    /// Assistant messages now completed with an error.
    pub(crate) messages: Vec<MessageInfo>,
}

/// Interrupts unfinished tool calls and aborts open assistant messages, at time `now`.
pub(crate) fn recover(conn: &Connection, now: i64) -> Result<Repaired> {
    let mut repaired = Repaired::default();
    for (id, data) in open_rows(conn, OPEN_PARTS, "unfinished tool calls")? {
        let mut part: Part = decode(&data, || format!("part {id}"))?;
        if let PartKind::Tool(tool) = &mut part.kind
            && let Some(state) = tool.state.cut_short(INTERRUPTED, now)
        {
            tool.state = state;
        }
        put_part(conn, &part)?;
        repaired.parts.push(part);
    }
    for (id, data) in open_rows(conn, OPEN_MESSAGES, "open assistant messages")? {
        let mut info: MessageInfo = decode(&data, || format!("message {id}"))?;
        if let MessageInfo::Assistant(assistant) = &mut info {
            assistant.time.completed = Some(now);
            // An error recorded before the crash says more than "aborted".
            assistant
                .error
                .get_or_insert_with(|| MessageError::new(ABORTED_ERROR, "aborted"));
        }
        put_message(conn, &info)?;
        repaired.messages.push(info);
    }
    Ok(repaired)
}

fn open_rows(conn: &Connection, sql: &str, what: &str) -> Result<Vec<(String, String)>> {
    conn.prepare_cached(sql)
        .and_then(|mut statement| {
            statement
                .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
                .collect::<rusqlite::Result<Vec<_>>>()
        })
        .context(|| format!("find {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sqlite::schema;

    #[test]
    fn recovery_reads_only_the_partial_indexes() {
        let mut conn = Connection::open_in_memory().expect("opens");
        schema::configure(&conn).expect("configures");
        schema::migrate(&mut conn).expect("migrates");
        for (sql, index) in [(OPEN_PARTS, "part_open"), (OPEN_MESSAGES, "message_open")] {
            let plan: Vec<String> = conn
                .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
                .and_then(|mut s| {
                    s.query_map([], |row| row.get::<_, String>(3))?
                        .collect::<rusqlite::Result<_>>()
                })
                .expect("plans");
            assert!(
                plan.iter().any(|step| step.contains(index)),
                "{index} not used: {plan:?}"
            );
        }
    }
}
