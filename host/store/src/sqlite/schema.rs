//! Connection settings and the versioned schema.
//!
//! Owns the pragmas every connection runs with and the migrations, applied in order and
//! recorded in `PRAGMA user_version`. A migration is never edited once released: a
//! change to the schema is a new entry at the end of [`MIGRATIONS`].

use std::time::{Duration, Instant};

use rusqlite::{Connection, TransactionBehavior};

use crate::error::{Context, Result, StoreError};

/// How long a write waits for another connection's write to finish before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The schema, one migration per version; `user_version` counts those applied.
const MIGRATIONS: &[&str] = &[V1, V2, V3];

/// Sessions, messages, parts, todos, approvals and compaction points.
///
/// Index choices:
/// - `session_parent_updated` serves both listings: top-level sessions by recency
///   (`parent_id IS NULL`) and a session's children.
/// - `message_session` serves loading a session in id order, and "messages since"
///   (the compaction point) as a range seek that never reads older rows.
/// - `part_session` does the same for the parts of those messages; `part_message`
///   serves one message's parts and cascading deletes.
/// - `part_open` and `message_open` are partial indexes holding only unfinished tool
///   calls and open assistant messages, so start-up recovery reads those rows alone.
const V1: &str = "
CREATE TABLE session (
    id                 TEXT PRIMARY KEY,
    parent_id          TEXT REFERENCES session(id) ON DELETE CASCADE,
    title              TEXT NOT NULL,
    directory          TEXT NOT NULL,
    agent              TEXT NOT NULL,
    provider           TEXT,
    model              TEXT,
    permission         TEXT NOT NULL DEFAULT '[]',
    tokens_input       INTEGER NOT NULL DEFAULT 0,
    tokens_output      INTEGER NOT NULL DEFAULT 0,
    tokens_reasoning   INTEGER NOT NULL DEFAULT 0,
    tokens_cache_read  INTEGER NOT NULL DEFAULT 0,
    tokens_cache_write INTEGER NOT NULL DEFAULT 0,
    cost               REAL NOT NULL DEFAULT 0,
    time_created       INTEGER NOT NULL,
    time_updated       INTEGER NOT NULL
);
CREATE INDEX session_parent_updated ON session(parent_id, time_updated, id);

CREATE TABLE message (
    id         TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
    data       TEXT NOT NULL
);
CREATE INDEX message_session ON message(session_id, id);
CREATE INDEX message_open ON message(id)
    WHERE json_extract(data, '$.role') = 'assistant'
      AND json_extract(data, '$.time.completed') IS NULL;

CREATE TABLE part (
    id         TEXT PRIMARY KEY,
    message_id TEXT NOT NULL REFERENCES message(id) ON DELETE CASCADE,
    session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
    data       TEXT NOT NULL
);
CREATE INDEX part_message ON part(message_id, id);
CREATE INDEX part_session ON part(session_id, message_id, id);
CREATE INDEX part_open ON part(id)
    WHERE json_extract(data, '$.type') = 'tool'
      AND json_extract(data, '$.state.status') IN ('pending', 'running');

CREATE TABLE todo (
    session_id TEXT PRIMARY KEY REFERENCES session(id) ON DELETE CASCADE,
    data       TEXT NOT NULL
);

CREATE TABLE approval (
    seq        INTEGER PRIMARY KEY,
    project    TEXT NOT NULL,
    agent      TEXT NOT NULL,
    permission TEXT NOT NULL,
    pattern    TEXT NOT NULL,
    action     TEXT NOT NULL CHECK (action IN ('allow', 'ask', 'deny')),
    UNIQUE (project, agent, permission, pattern, action)
);

CREATE TABLE compaction (
    session_id         TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
    idx                INTEGER NOT NULL,
    summary_message_id TEXT NOT NULL REFERENCES message(id) ON DELETE CASCADE,
    from_message_id    TEXT NOT NULL,
    time               INTEGER NOT NULL,
    PRIMARY KEY (session_id, idx)
) WITHOUT ROWID;
CREATE INDEX compaction_summary ON compaction(summary_message_id);
";

/// A session's roll-back point and its file-change summary, each one JSON document
/// (read and written whole, never filtered on).
const V2: &str = "
ALTER TABLE session ADD COLUMN revert TEXT;
ALTER TABLE session ADD COLUMN summary TEXT;
";

/// Which sessions came from `ward session import` (see the `imported` module): kept
/// beside the rows rather than in them, so an imported session's rows — and an
/// export of it — stay exactly as the file had them.
const V3: &str = "
CREATE TABLE imported (
    session_id      TEXT PRIMARY KEY REFERENCES session(id) ON DELETE CASCADE,
    through_message TEXT,
    revert_snapshot TEXT,
    time            INTEGER NOT NULL
);
";

/// Sets up a freshly opened connection: WAL, `synchronous = NORMAL`, foreign keys and
/// a busy timeout.
///
/// WAL lets readers (another process, the server) read while the loop writes, and with
/// `synchronous = NORMAL` a commit is an append to the log without an fsync: it
/// survives a crash of the process, and a power cut can lose only the last commits,
/// never corrupt the file.
pub(crate) fn configure(conn: &Connection) -> Result<()> {
    // First, so every statement below waits for another connection's lock too.
    conn.busy_timeout(BUSY_TIMEOUT)
        .context(|| "setting the busy timeout".to_string())?;
    let mode = enable_wal(conn)?;
    // In-memory databases answer "memory": nothing else can read them anyway.
    if !mode.eq_ignore_ascii_case("wal") && !mode.eq_ignore_ascii_case("memory") {
        tracing::warn!(
            mode,
            "SQLite did not switch to WAL; readers will block writers"
        );
    }
    conn.pragma_update(None, "synchronous", "NORMAL")
        .context(|| "setting synchronous = NORMAL".to_string())?;
    conn.pragma_update(None, "foreign_keys", true)
        .context(|| "enabling foreign keys".to_string())?;
    Ok(())
}

/// Switches the file to WAL (a no-op when it already is), answering the mode it is in.
///
/// Two processes opening a new file at once both switch it: the one that comes second
/// may find the first holding the file's or the log's lock for a moment, and SQLite
/// answers that with "busy" at once rather than through the busy handler. That is
/// waited out here, within the same bound as any other lock.
fn enable_wal(conn: &Connection) -> Result<String> {
    let deadline = Instant::now() + BUSY_TIMEOUT;
    let mut pause = Duration::from_millis(1);
    loop {
        match conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0)) {
            Err(e) if is_busy(&e) && Instant::now() < deadline => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            answered => return answered.context(|| "enabling WAL".to_string()),
        }
    }
}

/// Whether `error` is another connection holding a lock.
fn is_busy(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// Brings the schema up to the newest version this build knows.
///
/// Each migration runs in an immediate transaction that re-reads the version first, so
/// two processes opening a new file at once apply each migration once.
pub(crate) fn migrate(conn: &mut Connection) -> Result<()> {
    let known = MIGRATIONS.len() as i64;
    loop {
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .context(|| "starting a migration".to_string())?;
        let version: i64 = tx
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .context(|| "reading the schema version".to_string())?;
        if version > known {
            return Err(StoreError::NewerSchema {
                found: version,
                known,
            });
        }
        let Some(migration) = usize::try_from(version)
            .ok()
            .and_then(|index| MIGRATIONS.get(index))
        else {
            return Ok(());
        };
        let next = version + 1;
        tx.execute_batch(migration)
            .context(|| format!("migrating the schema to version {next}"))?;
        tx.pragma_update(None, "user_version", next)
            .context(|| format!("recording schema version {next}"))?;
        tx.commit()
            .context(|| format!("committing schema version {next}"))?;
        tracing::debug!(version = next, "store schema migrated");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrates_once_and_refuses_newer_files() {
        let mut conn = Connection::open_in_memory().expect("opens");
        configure(&conn).expect("configures");
        migrate(&mut conn).expect("migrates");
        migrate(&mut conn).expect("second run is a no-op");
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .expect("reads");
        assert_eq!(version, MIGRATIONS.len() as i64);

        conn.pragma_update(None, "user_version", 99)
            .expect("sets version");
        let error = migrate(&mut conn).expect_err("newer schema");
        assert!(error.to_string().contains("schema version 99"), "{error}");
    }
}
