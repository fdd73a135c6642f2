//! `kill -9` of `ward run` mid-stream and mid-tool: the database stays intact, every
//! finished part survives, the interrupted tool says so, and the session continues.
//! [`first_prompt`]: killed before the model answers, a first run keeps the prompt.

mod first_prompt;

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::json;
use ward_store::{MessageInfo, PartKind, SqliteStore, Store, ToolState};
use ward_tests::Project;
use ward_tests::llm::{Fault, ScriptedLlm, Turn};

fn configure(p: &Project, llm: &ScriptedLlm) {
    p.write(
        "ward.toml",
        &format!(
            "model = \"s/m\"\n[provider.s]\nkind = \"openai-compatible\"\nbase_url = \"{}/v1\"\n",
            llm.base_url
        ),
    );
}

fn integrity_ok(p: &Project) {
    let db = rusqlite::Connection::open(p.data.join("ward.db")).unwrap();
    let verdict: String = db
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(verdict, "ok");
}

async fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Whether a part of `tool` (any tool: `%`) is running, read with plain SQL: opening
/// a `SqliteStore` would run crash recovery and interrupt the live call.
fn running_tool(p: &Project, tool: &str) -> bool {
    let Ok(db) = rusqlite::Connection::open(p.data.join("ward.db")) else {
        return false;
    };
    db.query_row(
        "SELECT count(*) FROM part WHERE data LIKE '%\"status\":\"running\"%' \
         AND data LIKE '%\"tool\":\"' || ?1 || '\"%'",
        [tool],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n > 0)
    .unwrap_or(false)
}

/// After Ctrl-C: exit status 130, an intact database, and nothing left for crash
/// recovery (the run closed its own work). Returns the store.
fn closed_cleanly(p: &Project, out: &std::process::Output) -> SqliteStore {
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    integrity_ok(p);
    let store = SqliteStore::open(p.data.join("ward.db")).unwrap();
    assert_eq!(
        store.recovered(),
        Default::default(),
        "unfinished work was left"
    );
    store
}

/// Sends Ctrl-C (SIGINT) to `child` and waits for it to exit.
async fn interrupt(child: std::process::Child) -> std::process::Output {
    let interrupted = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap()
}

/// Starts `ward run --yes PROMPT` in the background (output captured) and returns once
/// a call of `tool` (any tool: `%`) is running.
async fn run_until_tool_runs(p: &Project, prompt: &str, tool: &str) -> std::process::Child {
    let mut child = p.ward();
    child
        .args(["run", "--yes", prompt])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = child.spawn().unwrap();
    wait_until("the tool to run", || running_tool(p, tool)).await;
    child
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_during_a_tool_then_continue() {
    let p = Project::new("crash-tool");
    let llm = ScriptedLlm::start(vec![
        Turn::text("first answer"),
        Turn::tool(
            "c1",
            "bash",
            json!({"command": "sleep 30", "description": "wait"}),
        ),
    ])
    .await;
    configure(&p, &llm);
    let first = {
        let q = Project::clone_handle(&p);
        tokio::task::spawn_blocking(move || q.run(&["run", "hello"], ""))
            .await
            .unwrap()
    };
    first.expect_ok();
    let store = SqliteStore::open(p.data.join("ward.db")).unwrap();
    let session = store.list_sessions().unwrap()[0].id.clone();
    drop(store);

    let mut child = p.ward();
    child
        .args(["run", "--yes", "--session", &session, "wait please"])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = child.spawn().unwrap();
    wait_until("the tool to run", || running_tool(&p, "%")).await;
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    integrity_ok(&p);
    let store = SqliteStore::open(p.data.join("ward.db")).unwrap();
    let recovery = store.recover().unwrap();
    let messages = store.messages(&session, None).unwrap();
    let texts: Vec<String> = messages
        .iter()
        .flat_map(|m| m.parts.iter())
        .filter_map(|part| match &part.kind {
            PartKind::Text(t) => Some(t.text.clone()),
            _ => None,
        })
        .collect();
    assert!(
        texts.contains(&"first answer".to_string()),
        "finished parts survive: {texts:?}"
    );
    let tool = messages
        .iter()
        .flat_map(|m| m.parts.iter())
        .find_map(|part| match &part.kind {
            PartKind::Tool(t) => Some(t.state.clone()),
            _ => None,
        });
    match tool {
        Some(ToolState::Error { error, .. }) => assert!(error.contains("interrupted"), "{error}"),
        other => panic!("expected an interrupted tool, got {other:?} (recovery {recovery:?})"),
    }
    let open = messages
        .iter()
        .filter(|m| matches!(&m.info, MessageInfo::Assistant(a) if a.time.completed.is_none()))
        .count();
    assert_eq!(open, 0, "no assistant message is left open");
    drop(store);

    // The session goes on, and the model sees the interrupted call's error.
    llm.push([Turn::text("recovered")]);
    let q = Project::clone_handle(&p);
    let s = session.clone();
    let out = tokio::task::spawn_blocking(move || q.run(&["run", "--session", &s, "go on"], ""))
        .await
        .unwrap();
    assert!(out.expect_ok().contains("recovered"));
    let last = llm.requests().last().unwrap().body.to_string();
    assert!(last.contains("interrupted"), "{last}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_during_streaming_then_continue() {
    let p = Project::new("crash-stream");
    let llm = ScriptedLlm::start(vec![Turn::text("kept"), Turn::Fault(Fault::Hang)]).await;
    configure(&p, &llm);
    let q = Project::clone_handle(&p);
    tokio::task::spawn_blocking(move || q.run(&["run", "one"], ""))
        .await
        .unwrap()
        .expect_ok();
    let store = SqliteStore::open(p.data.join("ward.db")).unwrap();
    let session = store.list_sessions().unwrap()[0].id.clone();
    drop(store);

    let mut child = p.ward();
    child
        .args(["run", "--session", &session, "two"])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = child.spawn().unwrap();
    wait_until("the second request", || llm.requests().len() >= 2).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    child.kill().unwrap();
    child.wait().unwrap();
    integrity_ok(&p);

    llm.push([Turn::text("back")]);
    let q = Project::clone_handle(&p);
    let s = session.clone();
    let out = tokio::task::spawn_blocking(move || q.run(&["run", "--session", &s, "three"], ""))
        .await
        .unwrap();
    assert!(out.expect_ok().contains("back"));
    let store = SqliteStore::open(p.data.join("ward.db")).unwrap();
    let messages = store.messages(&session, None).unwrap();
    let aborted = messages
        .iter()
        .filter(|m| matches!(&m.info, MessageInfo::Assistant(a) if a.error.is_some()))
        .count();
    assert_eq!(aborted, 1, "the killed step is closed as aborted");
    let texts: String = messages
        .iter()
        .flat_map(|m| m.parts.iter())
        .filter_map(|part| match &part.kind {
            PartKind::Text(t) => Some(t.text.clone()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("|");
    assert!(texts.contains("kept") && texts.contains("back"), "{texts}");
}

/// A second `ward run` on the same data directory while the first is running a tool:
/// the second must not take the live call for a crashed one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_process_does_not_interrupt_a_live_one() {
    let p = Project::new("crash-concurrent");
    let llm = ScriptedLlm::start(vec![
        Turn::tool(
            "c1",
            "bash",
            json!({"command": "sleep 2; echo finished > a.txt", "description": "wait"}),
        ),
        Turn::text("second process answer"),
        Turn::text("first process answer"),
    ])
    .await;
    configure(&p, &llm);
    let first = run_until_tool_runs(&p, "slow job", "%").await;

    let q = Project::clone_handle(&p);
    let second = tokio::task::spawn_blocking(move || q.run(&["run", "quick question"], ""))
        .await
        .unwrap();
    assert!(second.expect_ok().contains("second process answer"));
    assert!(
        running_tool(&p, "%"),
        "the second process interrupted the first one's tool"
    );

    let first = tokio::task::spawn_blocking(move || first.wait_with_output().unwrap())
        .await
        .unwrap();
    let out = ward_tests::Run(first);
    assert!(out.expect_ok().contains("first process answer"));
    assert_eq!(p.read("a.txt"), "finished\n");
    integrity_ok(&p);
    let store = SqliteStore::open(p.data.join("ward.db")).unwrap();
    let states: Vec<ToolState> = store
        .list_sessions()
        .unwrap()
        .iter()
        .flat_map(|s| store.messages(&s.id, None).unwrap())
        .flat_map(|m| m.parts)
        .filter_map(|part| match part.kind {
            PartKind::Tool(t) => Some(t.state),
            _ => None,
        })
        .collect();
    assert_eq!(states.len(), 1);
    assert!(
        matches!(&states[0], ToolState::Completed { .. }),
        "{states:?}"
    );
}

/// Ctrl-C during a running tool: `ward run` aborts the loop — the tool's processes
/// die with it, the message is closed as aborted — and exits with status 130.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_aborts_the_run() {
    let p = Project::new("crash-sigint");
    let llm = ScriptedLlm::start(vec![Turn::tool(
        "c1",
        "bash",
        json!({"command": "sleep 3; echo late > late.txt", "description": "wait"}),
    )])
    .await;
    configure(&p, &llm);
    let child = run_until_tool_runs(&p, "wait for it", "%").await;
    let started = Instant::now();
    let out = interrupt(child).await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "abort took {:?}",
        started.elapsed()
    );
    let store = closed_cleanly(&p, &out);
    let session = store.list_sessions().unwrap()[0].id.clone();
    let messages = store.messages(&session, None).unwrap();
    let tool = messages
        .iter()
        .flat_map(|m| m.parts.iter())
        .find_map(|part| match &part.kind {
            PartKind::Tool(t) => Some(t.state.clone()),
            _ => None,
        });
    assert!(
        matches!(&tool, Some(ToolState::Error { error, .. }) if error == ward_session::TOOL_ABORTED),
        "{tool:?}"
    );
    let aborted = messages.iter().any(|m| {
        matches!(&m.info, MessageInfo::Assistant(a)
            if a.error.as_ref().is_some_and(|e| e.name == ward_store::ABORTED_ERROR))
    });
    assert!(aborted, "the assistant message was not closed as aborted");
    std::thread::sleep(Duration::from_millis(3200));
    assert!(
        !p.path("late.txt").exists(),
        "the tool's process outlived the abort"
    );
}

/// Ctrl-C while a subagent's tool runs: the parent and the child session are both
/// closed as aborted (nothing left for crash recovery), and the child's process dies.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_aborts_the_subagents_too() {
    let p = Project::new("crash-sigint-task");
    let llm = ScriptedLlm::start(vec![
        Turn::tool(
            "t1",
            "task",
            json!({"description": "wait", "prompt": "run the slow command", "subagent_type": "general"}),
        ),
        Turn::tool(
            "c1",
            "bash",
            json!({"command": "sleep 3; echo late > late.txt", "description": "wait"}),
        ),
    ])
    .await;
    configure(&p, &llm);
    // The parent's `task` call runs first: wait for the subagent's own `bash`.
    let child = run_until_tool_runs(&p, "delegate", "bash").await;
    let out = interrupt(child).await;
    let store = closed_cleanly(&p, &out);
    let parent = store.list_sessions().unwrap()[0].clone();
    let children = store.list_children(&parent.id).unwrap();
    assert_eq!(children.len(), 1);
    for session in [&parent, &children[0]] {
        let messages = store.messages(&session.id, None).unwrap();
        let aborted = messages.iter().any(|m| {
            matches!(&m.info, MessageInfo::Assistant(a)
                if a.error.as_ref().is_some_and(|e| e.name == ward_store::ABORTED_ERROR))
        });
        assert!(aborted, "session {} was not closed as aborted", session.id);
    }
    std::thread::sleep(Duration::from_millis(3200));
    assert!(
        !p.path("late.txt").exists(),
        "the subagent's process outlived the abort"
    );
}
