//! Several writers at once — threads sharing a store, and a second connection to the
//! same file — leave a consistent database, and another process sees what was
//! committed.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is how a test fails"
)]

mod common;

use std::process::Command;
use std::sync::Arc;

use common::{TempDir, exchange, model, text};
use ward_store::{PartKind, Session, SqliteOptions, SqliteStore, Store, UserMessage};

/// Set (to "path session") in the child process that reads.
const CHILD_READ: &str = "WARD_STORE_READ";

fn integrity(db: &std::path::Path) -> String {
    let conn = rusqlite::Connection::open(db).expect("opens");
    conn.query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .expect("checks")
}

/// This test binary run again as a child for the ignored test `name` alone, with
/// `var` set to `value` (the child test does nothing without it).
fn child(name: &str, var: &str, value: &str) -> Command {
    let mut command = Command::new(std::env::current_exe().expect("test binary"));
    command
        .args([name, "--exact", "--ignored", "--nocapture"])
        .env(var, value);
    command
}

fn secondary(db: &std::path::Path) -> SqliteStore {
    SqliteStore::open_with(
        db,
        SqliteOptions {
            recover: false,
            ..SqliteOptions::default()
        },
    )
    .expect("opens a second connection")
}

#[test]
fn concurrent_writers_leave_an_intact_database() {
    let dir = TempDir::new("concurrent");
    let first = Arc::new(SqliteStore::open(dir.db()).expect("opens"));
    let second = Arc::new(secondary(&dir.db()));
    let writers: Vec<_> = (0..6)
        .map(|n| {
            // Alternate stores so both connections contend for the write lock.
            let store: Arc<SqliteStore> = if n % 2 == 0 {
                Arc::clone(&first)
            } else {
                Arc::clone(&second)
            };
            std::thread::spawn(move || {
                let (session, _, assistant) = exchange(&store);
                for turn in 0..50 {
                    let part = text(&session, &assistant.id, "");
                    store.put_part(&part).expect("puts");
                    for _ in 0..20 {
                        store
                            .update_part_delta(&session.id, &assistant.id, &part.id, "text", "z")
                            .expect("buffers");
                    }
                    if turn % 10 == 0 {
                        let user = UserMessage::new(&session.id, "build", model());
                        store.put_message(&user.into()).expect("puts");
                    }
                }
                session.id
            })
        })
        .collect();
    let sessions: Vec<String> = writers
        .into_iter()
        .map(|writer| writer.join().expect("writer finished"))
        .collect();
    drop(first);
    drop(second);

    assert_eq!(integrity(&dir.db()), "ok");
    let store = SqliteStore::open(dir.db()).expect("reopens");
    for id in sessions {
        let history = store.messages(&id, None).expect("loads");
        assert_eq!(history.len(), 2 + 5);
        let texts: Vec<&str> = history
            .iter()
            .flat_map(|m| &m.parts)
            .filter_map(|p| match &p.kind {
                PartKind::Text(t) => Some(t.text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(texts.len(), 50);
        assert!(texts.iter().all(|t| *t == "z".repeat(20)));
    }
}

/// Set (to "path start", the start a UNIX time in milliseconds) in the child processes
/// that open a database together.
const CHILD_OPEN: &str = "WARD_STORE_OPEN";

/// An opening process: waits for the agreed moment, opens the database, and prints
/// `OPENED` or the error.
#[test]
#[ignore = "run as a child process by processes_opening_a_new_database_at_once_all_open_it"]
fn open_in_child() {
    let Ok(args) = std::env::var(CHILD_OPEN) else {
        return;
    };
    let (db, at) = args.split_once(' ').expect("path and start");
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(at.parse().expect("ms"));
    if let Ok(wait) = at.duration_since(std::time::SystemTime::now()) {
        std::thread::sleep(wait);
    }
    match SqliteStore::open(db) {
        Ok(_) => println!("OPENED"),
        Err(e) => println!("ERROR={e}"),
    }
}

/// Two `ward` processes started together on a new data directory (an MCP client
/// starting two servers, `ward run` beside `ward mcp serve`) both open its database.
/// Switching a new file to WAL takes a lock the other may hold for a moment; SQLite
/// answers that busy without calling the busy handler, and it used to fail the start
/// ("enabling WAL: database is locked", seen with two `ward mcp serve`).
#[test]
fn processes_opening_a_new_database_at_once_all_open_it() {
    for round in 0..20 {
        let dir = TempDir::new(&format!("open-at-once-{round}"));
        let at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock")
            .as_millis()
            + 300;
        let children: Vec<_> = (0..4)
            .map(|_| {
                child(
                    "open_in_child",
                    CHILD_OPEN,
                    &format!("{} {at}", dir.db().display()),
                )
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("runs the child")
            })
            .collect();
        for child in children {
            let output = child.wait_with_output().expect("the child ran");
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(
                stdout.lines().any(|line| line == "OPENED"),
                "round {round}: {stdout}"
            );
        }
        assert_eq!(integrity(&dir.db()), "ok");
    }
}

#[test]
fn a_second_connection_sees_committed_writes() {
    let dir = TempDir::new("second");
    let writer = SqliteStore::open(dir.db()).expect("opens");
    let reader = secondary(&dir.db());
    let (session, _, assistant) = exchange(&writer);
    writer
        .put_part(&text(&session, &assistant.id, "visible"))
        .expect("puts");
    let history = reader.messages(&session.id, None).expect("reads");
    assert_eq!(history.len(), 2);
    assert!(matches!(&history[1].parts[0].kind, PartKind::Text(t) if t.text == "visible"));
    assert_eq!(reader.get_session(&session.id).expect("reads"), session);
}

/// The reading process: prints the session it was asked for as JSON.
#[test]
#[ignore = "run as a child process by another_process_sees_committed_data"]
fn read_in_child() {
    let Ok(args) = std::env::var(CHILD_READ) else {
        return;
    };
    let (db, id) = args.split_once(' ').expect("path and id");
    let store = secondary(std::path::Path::new(db));
    let session = store.get_session(id).expect("reads");
    let history = store.messages(id, None).expect("reads");
    println!("SESSION={}", serde_json::to_string(&session).expect("json"));
    println!("MESSAGES={}", history.len());
}

#[test]
fn another_process_sees_committed_data() {
    let dir = TempDir::new("process");
    // The writer stays open while the other process reads.
    let store = SqliteStore::open(dir.db()).expect("opens");
    let mut session = Session::new(dir.path().display().to_string(), "build");
    session.title = "shared".into();
    store.create_session(&session).expect("creates");
    let user = UserMessage::new(&session.id, "build", model());
    store.put_message(&user.into()).expect("puts");

    let output = child(
        "read_in_child",
        CHILD_READ,
        &format!("{} {}", dir.db().display(), session.id),
    )
    .output()
    .expect("runs the child");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "child failed: {stdout}");
    let json = stdout
        .lines()
        .find_map(|line| line.strip_prefix("SESSION="))
        .expect("child printed the session");
    let seen: Session = serde_json::from_str(json).expect("parses");
    assert_eq!(seen, session);
    assert!(stdout.lines().any(|line| line == "MESSAGES=1"));
}
