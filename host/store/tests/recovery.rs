//! Crash recovery: a process that dies mid-turn leaves tool calls running and the
//! answer open; reopening the file interrupts the calls, closes the answer, and keeps
//! every part that was put and every delta batch that was flushed.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is how a test fails"
)]

mod common;

use std::process::Command;
use std::time::Duration;

use common::{TempDir, exchange, text};
use serde_json::json;
use ward_store::{
    ABORTED_ERROR, Bus, CompletedTime, DeltaOptions, INTERRUPTED, MessageInfo, Part, PartKind,
    RunningTime, SqliteOptions, SqliteStore, Store, ToolPart, ToolState,
};

/// Set (to the database path) in the child process that crashes.
const CHILD_DB: &str = "WARD_STORE_CRASH_DB";

/// Deltas that reach the file before the crash.
const FLUSHED: &str = "Hello, wor";

fn tool(session: &str, message: &str, call: &str, state: ToolState) -> Part {
    Part::new(
        session,
        message,
        PartKind::Tool(ToolPart {
            call_id: call.into(),
            tool: "bash".into(),
            state,
        }),
    )
}

/// The crashing process: writes a turn in progress, flushes some deltas, puts tool
/// parts, buffers one more delta, and aborts without any cleanup.
#[test]
#[ignore = "run as a child process by a_crash_mid_turn_is_recovered_on_open"]
fn crash_mid_turn() {
    let Ok(db) = std::env::var(CHILD_DB) else {
        return;
    };
    let options = SqliteOptions {
        // Nothing is flushed unless asked, so the test decides what is durable.
        deltas: DeltaOptions {
            flush_interval: Duration::from_secs(3600),
            batch_deltas: 1_000_000,
            max_pending: 1_000_000,
        },
        ..SqliteOptions::default()
    };
    let store = SqliteStore::open_with(&db, options).expect("opens");
    let (session, _, assistant) = exchange(&store);
    let (s, m) = (session.id.as_str(), assistant.id.as_str());
    let streamed = text(&session, m, "");
    store.put_part(&streamed).expect("puts text");
    for chunk in ["Hel", "lo, ", "wor"] {
        store
            .update_part_delta(s, m, &streamed.id, "text", chunk)
            .expect("buffers");
    }
    store.flush().expect("flushes");

    let done = tool(
        s,
        m,
        "done",
        ToolState::Completed {
            input: json!({"command": "ls"}),
            output: "ok".into(),
            title: "ls".into(),
            metadata: json!({}),
            time: CompletedTime {
                start: 1,
                end: 2,
                compacted: None,
            },
            attachments: Vec::new(),
        },
    );
    let running = tool(
        s,
        m,
        "running",
        ToolState::Running {
            input: json!({"command": "sleep 100"}),
            title: None,
            metadata: None,
            time: RunningTime { start: 42 },
        },
    );
    let pending = tool(s, m, "pending", ToolState::Pending { input: json!({}) });
    for part in [&done, &running, &pending] {
        store.put_part(part).expect("puts tool");
    }
    // The last batch: buffered after the last write, so still only in memory.
    store
        .update_part_delta(s, m, &streamed.id, "text", "ld! (never flushed)")
        .expect("buffers");
    println!("SESSION={s}");
    std::process::abort();
}

#[test]
fn a_crash_mid_turn_is_recovered_on_open() {
    let dir = TempDir::new("crash");
    let exe = std::env::current_exe().expect("test binary");
    let output = Command::new(exe)
        .args(["crash_mid_turn", "--exact", "--ignored", "--nocapture"])
        .env(CHILD_DB, dir.db())
        .output()
        .expect("runs the child");
    assert!(!output.status.success(), "the child must crash");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let session_id = stdout
        .lines()
        .find_map(|line| line.strip_prefix("SESSION="))
        .unwrap_or_else(|| panic!("child did not get far enough: {stdout}"))
        .to_string();

    let bus = Bus::new(64);
    let mut events = bus.subscribe();
    let store = SqliteStore::open_with(
        dir.db(),
        SqliteOptions {
            bus,
            ..SqliteOptions::default()
        },
    )
    .expect("reopens");
    let recovered = store.recovered();
    assert_eq!(recovered.interrupted_parts, 2);
    assert_eq!(recovered.aborted_messages, 1);

    let history = store.messages(&session_id, None).expect("loads");
    let MessageInfo::Assistant(answer) = &history[1].info else {
        panic!("second message is the answer");
    };
    assert!(answer.time.completed.is_some());
    assert_eq!(
        answer.error.as_ref().map(|e| e.name.as_str()),
        Some(ABORTED_ERROR)
    );

    let parts = &history[1].parts;
    assert!(matches!(&parts[0].kind, PartKind::Text(t) if t.text == FLUSHED));
    assert!(
        matches!(parts[1].tool_state(), Some(ToolState::Completed { output, .. }) if output == "ok")
    );
    for part in &parts[2..] {
        match part.tool_state() {
            Some(ToolState::Error { error, .. }) => assert_eq!(error, INTERRUPTED),
            other => panic!("expected an interrupted call, got {other:?}"),
        }
    }
    assert!(matches!(
        parts[2].tool_state(),
        Some(ToolState::Error { time, input, .. }) if time.start == 42 && input["command"] == "sleep 100"
    ));

    let published: Vec<&str> = std::iter::from_fn(|| events.try_recv().ok())
        .map(|e| e.name())
        .collect();
    assert_eq!(
        published,
        vec![
            "message.updated",
            "message.part.updated",
            "message.part.updated"
        ]
    );

    // Recovery is idempotent: a second open finds nothing left to repair.
    drop(store);
    let again = SqliteStore::open(dir.db()).expect("reopens");
    assert_eq!(again.recovered(), ward_store::Recovery::default());
}

#[test]
fn dropping_the_store_mid_turn_is_recovered_on_reopen() {
    let dir = TempDir::new("drop");
    let (session_id, part_id) = {
        let store = SqliteStore::open(dir.db()).expect("opens");
        let (session, _, assistant) = exchange(&store);
        let running = tool(
            &session.id,
            &assistant.id,
            "c1",
            ToolState::Running {
                input: json!({}),
                title: Some("working".into()),
                metadata: None,
                time: RunningTime { start: 1 },
            },
        );
        store.put_part(&running).expect("puts");
        (session.id, running.id)
    };
    let store = SqliteStore::open(dir.db()).expect("reopens");
    assert_eq!(store.recovered().interrupted_parts, 1);
    let history = store.messages(&session_id, None).expect("loads");
    let part = history[1]
        .parts
        .iter()
        .find(|p| p.id == part_id)
        .expect("part kept");
    assert!(
        matches!(part.tool_state(), Some(ToolState::Error { error, .. }) if error == INTERRUPTED)
    );
}
