//! `kill -9` of a first `ward run` on a fresh data directory, in each slow phase
//! before the model answers — the tools loading, a slash command expanding, the model
//! holding the request: the session exists, its first message is the user's prompt
//! (stored once), and `--session` carries on from it.

use std::process::{Child, Output, Stdio};

use ward_store::{MessageInfo, PartKind, SqliteStore, Store};
use ward_tests::Project;
use ward_tests::llm::{Fault, ScriptedLlm, Turn};

use super::{configure, integrity_ok, wait_until};

/// Starts `ward ARGS` in the background, its output captured.
fn spawn(p: &Project, args: &[&str]) -> Child {
    let mut cmd = p.ward();
    cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.spawn().expect("spawn ward")
}

/// SIGKILL, then what the process had written.
async fn kill(mut child: Child) -> Output {
    child.kill().expect("kill -9");
    tokio::task::spawn_blocking(move || child.wait_with_output().expect("wait"))
        .await
        .expect("wait task")
}

/// Whether a part holding exactly `text` is stored, read with plain SQL: opening a
/// `SqliteStore` beside the live process is not what is being tested.
fn stored(p: &Project, text: &str) -> bool {
    let Ok(db) = rusqlite::Connection::open(p.data.join("ward.db")) else {
        return false;
    };
    let needle = serde_json::to_string(text).unwrap_or_default();
    db.query_row(
        "SELECT count(*) FROM part WHERE instr(data, ?1) > 0",
        [format!("\"text\":{needle}")],
        |r| r.get::<_, i64>(0),
    )
    .is_ok_and(|n| n > 0)
}

/// Asserts the data directory holds one session whose first message is the user's
/// `prompt`, alone in its message; returns the session's id.
fn first_message_is(p: &Project, prompt: &str) -> String {
    integrity_ok(p);
    let store = SqliteStore::open(p.data.join("ward.db")).expect("store");
    let sessions = store.list_sessions().expect("sessions");
    assert_eq!(sessions.len(), 1, "one session: {sessions:?}");
    let messages = store.messages(&sessions[0].id, None).expect("messages");
    let first = messages.first().expect("the session has a message");
    assert!(
        matches!(first.info, MessageInfo::User(_)),
        "{:?}",
        first.info
    );
    let texts: Vec<&str> = first
        .parts
        .iter()
        .filter_map(|part| match &part.kind {
            PartKind::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(texts, [prompt]);
    let users = messages
        .iter()
        .filter(|m| matches!(m.info, MessageInfo::User(_)))
        .count();
    assert_eq!(users, 1, "the prompt is stored once");
    sessions[0].id.clone()
}

/// `ward run --session SESSION "go on"` answers, and the model is sent the killed
/// run's prompt once, before the new one.
async fn carries_on(p: &Project, llm: &ScriptedLlm, session: &str, prompt: &str) {
    llm.push([Turn::text("carried on")]);
    let q = Project::clone_handle(p);
    let s = session.to_string();
    let out = tokio::task::spawn_blocking(move || q.run(&["run", "--session", &s, "go on"], ""))
        .await
        .expect("ward task");
    assert!(out.expect_ok().contains("carried on"));
    let body = llm.requests().last().expect("a request").body.to_string();
    let prompt = serde_json::to_string(prompt).expect("json");
    assert_eq!(body.matches(prompt.as_str()).count(), 1, "{body}");
    let (old, new) = (body.find(prompt.as_str()), body.find("\"go on\""));
    assert!(old.is_some() && new.is_some() && old < new, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_while_the_tools_load_keeps_the_prompt() {
    let p = Project::new("crash-first-load");
    // Listing this plugin's tools takes ten seconds (then fails): the kill lands in it.
    p.install_test_plugin("slow-load");
    let llm = ScriptedLlm::start(Vec::new()).await;
    configure(&p, &llm);
    let prompt = "remember the milk";
    let child = spawn(&p, &["run", prompt]);
    wait_until("the prompt to be stored", || stored(&p, prompt)).await;
    let out = kill(child).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("slow-load"),
        "the tools had loaded when the prompt was stored: {stderr}"
    );
    assert!(llm.requests().is_empty(), "the model was called");
    let session = first_message_is(&p, prompt);

    std::fs::remove_dir_all(p.path(".ward/plugins/slow-load")).expect("remove plugin");
    carries_on(&p, &llm, &session, prompt).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_while_a_command_expands_keeps_what_was_typed() {
    let p = Project::new("crash-first-command");
    p.write(
        ".ward/commands/slow.md",
        "Check this: !`touch expanding.txt; sleep 5`\n$ARGUMENTS\n",
    );
    let llm = ScriptedLlm::start(Vec::new()).await;
    configure(&p, &llm);
    let mut config = p.read("ward.toml");
    config.push_str("[permission]\nbash = \"allow\"\n");
    p.write("ward.toml", &config);
    let typed = "/slow the parser";
    let child = spawn(&p, &["run", typed]);
    // The template's shell command is running: the expansion is under way.
    wait_until("the template's command", || {
        p.path("expanding.txt").exists()
    })
    .await;
    kill(child).await;
    assert!(llm.requests().is_empty(), "the model was called");
    // What the user typed, until the expansion replaces it.
    let session = first_message_is(&p, typed);
    carries_on(&p, &llm, &session, typed).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_while_the_model_holds_the_request_keeps_the_prompt() {
    let p = Project::new("crash-first-model");
    let llm = ScriptedLlm::start(vec![Turn::Fault(Fault::Hang)]).await;
    configure(&p, &llm);
    let prompt = "what is the time";
    let child = spawn(&p, &["run", prompt]);
    // The scripted server holds the request: the kill lands while the model "thinks".
    wait_until("the model request", || !llm.requests().is_empty()).await;
    kill(child).await;
    let session = first_message_is(&p, prompt);
    carries_on(&p, &llm, &session, prompt).await;
}
