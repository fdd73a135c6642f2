//! What the loop keeps about a session besides its messages: a title after the first
//! exchange (written by `small_model` with the `title` agent, else the first line of
//! the prompt) and the `todowrite` list.

use serde_json::json;
use ward_store::{SqliteStore, Store, TodoStatus};
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_small_model_the_first_line_is_the_title() {
    let p = Project::new("titles-fallback");
    let llm = ScriptedLlm::start(vec![
        Turn::tool(
            "t1",
            "todowrite",
            json!({ "todos": [
                { "content": "Find the flake", "status": "in_progress", "priority": "high" },
                { "content": "Fix it", "status": "pending" }
            ] }),
        ),
        Turn::text("Working on it."),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    p.run_async(
        &["run", "Fix the flaky parser test\nIt fails one run in ten."],
        "",
    )
    .await
    .expect_ok();
    assert_eq!(llm.requests().len(), 2, "no extra model call for the title");
    let list = p.run(&["session", "list"], "").expect_ok();
    assert!(list.contains("Fix the flaky parser test"), "{list}");

    let store = SqliteStore::open(p.data.join("ward.db")).expect("store");
    let session = store.list_sessions().expect("sessions")[0].id.clone();
    let todos = store.todos(&session).expect("todos");
    assert_eq!(todos.len(), 2, "{todos:?}");
    assert_eq!(todos[0].content, "Find the flake");
    assert_eq!(todos[0].status, TodoStatus::InProgress);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_small_model_writes_the_title_once() {
    let p = Project::new("titles-model");
    let llm = ScriptedLlm::start(vec![
        Turn::text("Done."),
        Turn::text("\"Parser flake fix\"\n"),
        Turn::text("Again."),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    let mut config = p.read("ward.toml");
    config.insert_str(0, "small_model = \"scripted/test-model\"\n");
    p.write("ward.toml", &config);
    let out = p
        .run_async(&["run", "--format", "json", "the parser flakes"], "")
        .await;
    let events = out.expect_ok();
    let title_request = &llm.requests()[1].body;
    let system = title_request["messages"][0]["content"].to_string();
    assert!(
        system.to_lowercase().contains("title"),
        "the title agent's prompt: {system}"
    );
    assert!(title_request["tools"].is_null(), "no tools for titles");
    let list = p.run(&["session", "list"], "").expect_ok();
    assert!(list.contains("Parser flake fix"), "{list}");

    let start = events.find("\"ses_").expect("session id") + 1;
    let len = events[start..].find('"').expect("quote");
    let session = &events[start..start + len];
    p.run_async(&["run", "--session", session, "and again"], "")
        .await
        .expect_ok();
    assert_eq!(
        llm.requests().len(),
        3,
        "a titled session is not titled again"
    );
}
