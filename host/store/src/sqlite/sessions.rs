//! SQL for the `session` table.
//!
//! Owns the mapping between [`Session`] and its columns. Sessions are columns rather
//! than one JSON document so listings can sort and filter on them and usage totals can
//! be incremented in place.

use rusqlite::types::Type;
use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::error::{Context, Result, StoreError};
use crate::model::session::{CacheTokens, ModelRef, Session, SessionTime, Tokens};

/// The columns [`from_row`] reads, in its order.
const COLUMNS: &str = "id, parent_id, title, directory, agent, provider, model, permission, \
    tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write, \
    cost, time_created, time_updated, revert, summary";

/// Inserts a new session.
pub(crate) fn insert(conn: &Connection, session: &Session) -> Result<()> {
    let permission = serde_json::to_string(&session.permission)
        .context(|| format!("encoding the permission rules of session {}", session.id))?;
    let (provider, model) = split_model(session.model.as_ref());
    conn.prepare_cached(
        "INSERT INTO session (id, parent_id, title, directory, agent, provider, model, \
         permission, tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, \
         tokens_cache_write, cost, time_created, time_updated) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
    )
    .and_then(|mut statement| {
        statement.execute(params![
            session.id,
            session.parent_id,
            session.title,
            session.directory,
            session.agent,
            provider,
            model,
            permission,
            count(session.tokens.input),
            count(session.tokens.output),
            count(session.tokens.reasoning),
            count(session.tokens.cache.read),
            count(session.tokens.cache.write),
            session.cost,
            session.time.created,
            session.time.updated,
        ])
    })
    .context(|| format!("create session {}", session.id))?;
    Ok(())
}

/// Replaces every column but the id, parent and creation time; returns the row.
pub(crate) fn update(conn: &Connection, session: &Session, now: i64) -> Result<Session> {
    let permission = serde_json::to_string(&session.permission)
        .context(|| format!("encoding the permission rules of session {}", session.id))?;
    let (provider, model) = split_model(session.model.as_ref());
    let sql = format!(
        "UPDATE session SET title = ?2, directory = ?3, agent = ?4, provider = ?5, \
         model = ?6, permission = ?7, tokens_input = ?8, tokens_output = ?9, \
         tokens_reasoning = ?10, tokens_cache_read = ?11, tokens_cache_write = ?12, \
         cost = ?13, time_updated = ?14 WHERE id = ?1 RETURNING {COLUMNS}"
    );
    conn.prepare_cached(&sql)
        .and_then(|mut statement| {
            statement
                .query_row(
                    params![
                        session.id,
                        session.title,
                        session.directory,
                        session.agent,
                        provider,
                        model,
                        permission,
                        count(session.tokens.input),
                        count(session.tokens.output),
                        count(session.tokens.reasoning),
                        count(session.tokens.cache.read),
                        count(session.tokens.cache.write),
                        session.cost,
                        now,
                    ],
                    from_row,
                )
                .optional()
        })
        .context(|| format!("update session {}", session.id))?
        .ok_or_else(|| not_found(&session.id))
}

/// Adds usage to the totals in one statement; returns the row.
pub(crate) fn add_usage(
    conn: &Connection,
    id: &str,
    tokens: Tokens,
    cost: f64,
    now: i64,
) -> Result<Session> {
    let sql = format!(
        "UPDATE session SET tokens_input = tokens_input + ?2, \
         tokens_output = tokens_output + ?3, tokens_reasoning = tokens_reasoning + ?4, \
         tokens_cache_read = tokens_cache_read + ?5, \
         tokens_cache_write = tokens_cache_write + ?6, cost = cost + ?7, \
         time_updated = ?8 WHERE id = ?1 RETURNING {COLUMNS}"
    );
    conn.prepare_cached(&sql)
        .and_then(|mut statement| {
            statement
                .query_row(
                    params![
                        id,
                        count(tokens.input),
                        count(tokens.output),
                        count(tokens.reasoning),
                        count(tokens.cache.read),
                        count(tokens.cache.write),
                        cost,
                        now,
                    ],
                    from_row,
                )
                .optional()
        })
        .context(|| format!("add usage to session {id}"))?
        .ok_or_else(|| not_found(id))
}

/// The session with `id`.
pub(crate) fn get(conn: &Connection, id: &str) -> Result<Session> {
    let sql = format!("SELECT {COLUMNS} FROM session WHERE id = ?1");
    conn.prepare_cached(&sql)
        .and_then(|mut statement| statement.query_row([id], from_row).optional())
        .context(|| format!("get session {id}"))?
        .ok_or_else(|| not_found(id))
}

/// Top-level sessions, most recently updated first.
pub(crate) fn list_roots(conn: &Connection) -> Result<Vec<Session>> {
    query(conn, &list_roots_sql(), &[], || "list sessions".to_string())
}

/// Walks `session_parent_updated` backwards: no sort, however many sessions.
fn list_roots_sql() -> String {
    format!(
        "SELECT {COLUMNS} FROM session WHERE parent_id IS NULL \
         ORDER BY time_updated DESC, id DESC"
    )
}

/// Children of `parent_id`, oldest first.
pub(crate) fn list_children(conn: &Connection, parent_id: &str) -> Result<Vec<Session>> {
    let sql = format!("SELECT {COLUMNS} FROM session WHERE parent_id = ?1 ORDER BY id");
    query(conn, &sql, &[&parent_id], || {
        format!("list children of session {parent_id}")
    })
}

/// `id` and all its descendants, parents before children.
pub(crate) fn with_descendants(conn: &Connection, id: &str) -> Result<Vec<Session>> {
    let sql = format!(
        "WITH RECURSIVE tree(id, depth) AS ( \
             SELECT id, 0 FROM session WHERE id = ?1 \
             UNION ALL \
             SELECT session.id, tree.depth + 1 FROM session JOIN tree ON session.parent_id = tree.id \
         ) \
         SELECT {COLUMNS} FROM session JOIN tree USING (id) ORDER BY tree.depth, session.id"
    );
    query(conn, &sql, &[&id], || {
        format!("find the descendants of session {id}")
    })
}

/// Deletes the session; foreign keys cascade to its descendants and their contents.
pub(crate) fn delete(conn: &Connection, id: &str) -> Result<()> {
    conn.prepare_cached("DELETE FROM session WHERE id = ?1")
        .and_then(|mut statement| statement.execute([id]))
        .context(|| format!("delete session {id}"))?;
    Ok(())
}

fn query(
    conn: &Connection,
    sql: &str,
    params: &[&dyn rusqlite::ToSql],
    context: impl FnOnce() -> String,
) -> Result<Vec<Session>> {
    conn.prepare_cached(sql)
        .and_then(|mut statement| {
            statement
                .query_map(params, from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()
        })
        .context(context)
}

fn from_row(row: &Row<'_>) -> rusqlite::Result<Session> {
    let provider: Option<String> = row.get(5)?;
    let model: Option<String> = row.get(6)?;
    let permission: String = row.get(7)?;
    let permission = serde_json::from_str(&permission)
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(7, Type::Text, Box::new(e)))?;
    Ok(Session {
        id: row.get(0)?,
        parent_id: row.get(1)?,
        title: row.get(2)?,
        directory: row.get(3)?,
        agent: row.get(4)?,
        model: provider.zip(model).map(|(p, m)| ModelRef::new(p, m)),
        permission,
        tokens: Tokens {
            input: stored_count(row, 8)?,
            output: stored_count(row, 9)?,
            reasoning: stored_count(row, 10)?,
            cache: CacheTokens {
                read: stored_count(row, 11)?,
                write: stored_count(row, 12)?,
            },
        },
        cost: row.get(13)?,
        time: SessionTime {
            created: row.get(14)?,
            updated: row.get(15)?,
        },
        revert: json_column(row, 16)?,
        summary: json_column(row, 17)?,
    })
}

/// An optional JSON document column.
fn json_column<T: serde::de::DeserializeOwned>(
    row: &Row<'_>,
    index: usize,
) -> rusqlite::Result<Option<T>> {
    let text: Option<String> = row.get(index)?;
    text.map(|t| serde_json::from_str(&t))
        .transpose()
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(index, Type::Text, Box::new(e)))
}

/// Sets (or clears) a JSON document column — `revert` or `summary` — of session
/// `id`; returns the row.
pub(crate) fn set_json(
    conn: &Connection,
    id: &str,
    column: JsonColumn,
    value: Option<String>,
    now: i64,
) -> Result<Session> {
    let name = match column {
        JsonColumn::Revert => "revert",
        JsonColumn::Summary => "summary",
    };
    let sql = format!(
        "UPDATE session SET {name} = ?2, time_updated = ?3 WHERE id = ?1 RETURNING {COLUMNS}"
    );
    conn.prepare_cached(&sql)
        .and_then(|mut statement| {
            statement
                .query_row(params![id, value, now], from_row)
                .optional()
        })
        .context(|| format!("set the {name} of session {id}"))?
        .ok_or_else(|| not_found(id))
}

/// The session columns written whole by [`set_json`].
#[derive(Clone, Copy)]
pub(crate) enum JsonColumn {
    /// `revert`.
    Revert,
    /// `summary`.
    Summary,
}

fn split_model(model: Option<&ModelRef>) -> (Option<&str>, Option<&str>) {
    match model {
        Some(model) => (Some(&model.provider), Some(&model.model)),
        None => (None, None),
    }
}

/// A token count as SQLite's signed integer; counts past `i64::MAX` saturate rather
/// than fail a write over a number no real session reaches.
fn count(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// A stored token count; a negative one (only a hand-edited file has them) reads as 0.
fn stored_count(row: &Row<'_>, index: usize) -> rusqlite::Result<u64> {
    let value: i64 = row.get(index)?;
    Ok(u64::try_from(value).unwrap_or(0))
}

fn not_found(id: &str) -> StoreError {
    StoreError::NotFound {
        kind: "session",
        id: id.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sqlite::schema;

    #[test]
    fn listing_sessions_walks_the_index_without_sorting() {
        let mut conn = Connection::open_in_memory().expect("opens");
        schema::configure(&conn).expect("configures");
        schema::migrate(&mut conn).expect("migrates");
        let sql = format!("EXPLAIN QUERY PLAN {}", list_roots_sql());
        let plan: Vec<String> = conn
            .prepare(&sql)
            .and_then(|mut s| {
                s.query_map([], |row| row.get::<_, String>(3))?
                    .collect::<rusqlite::Result<_>>()
            })
            .expect("plans");
        assert!(
            plan.iter()
                .any(|step| step.contains("session_parent_updated")),
            "{plan:?}"
        );
        assert!(
            !plan.iter().any(|step| step.contains("TEMP B-TREE")),
            "{plan:?}"
        );
    }
}
