//! One loop per session, driven in-process: a prompt to a busy session joins the
//! running loop (and reaches the model as a `<system-reminder>` interjection), and an
//! abort stops the model call and the running tool — its processes included — and
//! leaves a history the next prompt can continue from.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use ward_session::{LoopError, TOOL_ABORTED};
use ward_store::{ABORTED_ERROR, MessageInfo, PartKind, SqliteStore, Store, ToolState};
use ward_tests::Project;
use ward_tests::llm::{Turn, message_texts};
use ward_tests::rig::LoopRig;

fn bash(id: &str, command: &str) -> Turn {
    Turn::tool(
        id,
        "bash",
        json!({"command": command, "description": "test"}),
    )
}

/// Waits until the session has a bash call in the running state.
async fn until_tool_runs(store: &SqliteStore, session_id: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let running = store
            .messages(session_id, None)
            .expect("messages")
            .iter()
            .flat_map(|m| &m.parts)
            .any(|p| {
                matches!(&p.kind, PartKind::Tool(t) if matches!(t.state, ToolState::Running { .. }))
            });
        if running {
            return;
        }
        assert!(Instant::now() < deadline, "the tool never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_to_a_busy_session_joins_the_running_loop() {
    let p = Project::new("session-join");
    p.install_test_plugin("bash");
    let rig = LoopRig::start(&p, &[("bash", &["exec", "fs-read", "fs-write"])]).await;
    rig.llm
        .push([bash("c1", "sleep 1; echo slow"), Turn::text("did both")]);
    let session = rig.session(&p);

    let first = tokio::spawn({
        let (runner, session) = (rig.runner.clone(), session.clone());
        async move { runner.prompt(&session, "run the slow thing").await }
    });
    until_tool_runs(&rig.store, &session.id).await;
    assert!(rig.runner.loops().is_busy(&session.id));
    let second = rig
        .runner
        .prompt(&session, "also say hi")
        .await
        .expect("joined");
    let first = first.await.expect("task").expect("first prompt");

    // One loop answered both: the same final message, two model calls in all.
    assert_eq!(first.id, second.id);
    let requests = rig.llm.requests();
    assert_eq!(requests.len(), 2, "a second loop was started");
    assert_eq!(
        message_texts(&requests[0].body, "user"),
        ["run the slow thing"]
    );
    let later = message_texts(&requests[1].body, "user");
    assert_eq!(later.len(), 2, "{later:?}");
    assert_eq!(later[0], "run the slow thing");
    assert!(
        later[1].starts_with("<system-reminder>")
            && later[1].contains("The user sent the following message:\nalso say hi")
            && later[1].contains("Please address this message and continue with your tasks."),
        "the interjection was not wrapped: {:?}",
        later[1]
    );
    // Both user messages are stored as they were typed (the wrapping is on the wire only).
    let stored = rig.store.messages(&session.id, None).expect("messages");
    let users: Vec<&str> = stored
        .iter()
        .filter(|m| matches!(m.info, MessageInfo::User(_)))
        .flat_map(|m| &m.parts)
        .filter_map(|p| match &p.kind {
            PartKind::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(users, ["run the slow thing", "also say hi"]);
    assert!(!rig.runner.loops().is_busy(&session.id));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abort_kills_the_running_tool_and_the_session_continues() {
    let p = Project::new("session-abort");
    p.install_test_plugin("bash");
    let rig = LoopRig::start(&p, &[("bash", &["exec", "fs-read", "fs-write"])]).await;
    // A background grandchild: only a process-group kill reaches it.
    rig.llm.push([bash(
        "c1",
        "(sleep 1; touch late.txt) & echo $! > bg.pid; wait",
    )]);
    let session = rig.session(&p);
    let run = tokio::spawn({
        let (runner, session) = (rig.runner.clone(), session.clone());
        async move { runner.prompt(&session, "start the long job").await }
    });
    until_tool_runs(&rig.store, &session.id).await;
    let pid_file = p.path("bg.pid");
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::fs::read_to_string(&pid_file).map_or(true, |s| s.trim().is_empty()) {
        assert!(Instant::now() < deadline, "the job never wrote its pid");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    let asked = Instant::now();
    assert!(rig.runner.abort(&session.id));
    let outcome = run.await.expect("task");
    assert!(matches!(outcome, Err(LoopError::Aborted)), "{outcome:?}");
    assert!(
        asked.elapsed() < Duration::from_secs(2),
        "abort took {:?}",
        asked.elapsed()
    );
    assert!(!rig.runner.loops().is_busy(&session.id));
    assert!(
        !rig.runner.abort(&session.id),
        "an idle session has nothing to abort"
    );

    // The background process went with the tool call (its pid is the sandbox's PID
    // namespace's, meaningless here, so what it would have done is what is checked).
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        !p.path("late.txt").exists(),
        "the background process outlived the abort"
    );

    // The stored history says what happened.
    let stored = rig.store.messages(&session.id, None).expect("messages");
    let assistant = stored
        .iter()
        .find_map(|m| match &m.info {
            MessageInfo::Assistant(a) => Some(a),
            _ => None,
        })
        .expect("assistant message");
    assert_eq!(
        assistant.error.as_ref().map(|e| e.name.as_str()),
        Some(ABORTED_ERROR)
    );
    assert!(assistant.time.completed.is_some());
    let tool_error = stored
        .iter()
        .flat_map(|m| &m.parts)
        .find_map(|p| match &p.kind {
            PartKind::Tool(t) => match &t.state {
                ToolState::Error { error, .. } => Some(error.clone()),
                other => panic!("tool left in {other:?}"),
            },
            _ => None,
        })
        .expect("tool part");
    assert_eq!(tool_error, TOOL_ABORTED);

    // The session goes on; the model sees the aborted call's result.
    rig.llm.push([Turn::text("understood")]);
    let next = rig
        .runner
        .prompt(&session, "never mind")
        .await
        .expect("next prompt");
    assert!(next.error.is_none());
    let last = rig.llm.requests().pop().expect("request");
    let tool_results: Vec<&Value> = last.body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] == "tool")
        .collect();
    assert_eq!(tool_results.len(), 1);
    assert!(
        tool_results[0]["content"]
            .to_string()
            .contains(TOOL_ABORTED),
        "{:?}",
        tool_results[0]
    );
    std::thread::sleep(Duration::from_millis(100));
    assert!(!p.path("late.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abort_during_a_hanging_model_call() {
    let p = Project::new("session-abort-stream");
    let rig = LoopRig::start(&p, &[]).await;
    rig.llm.push([Turn::Fault(ward_tests::llm::Fault::Hang)]);
    let session = rig.session(&p);
    let run = tokio::spawn({
        let (runner, session) = (rig.runner.clone(), session.clone());
        async move { runner.prompt(&session, "hello").await }
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    while rig.llm.requests().is_empty() {
        assert!(Instant::now() < deadline, "the model was never called");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(rig.runner.abort(&session.id));
    let outcome = tokio::time::timeout(Duration::from_secs(2), run)
        .await
        .expect("abort did not end the hanging call")
        .expect("task");
    assert!(matches!(outcome, Err(LoopError::Aborted)), "{outcome:?}");
    let aborted = rig
        .store
        .messages(&session.id, None)
        .expect("messages")
        .into_iter()
        .filter_map(|m| match m.info {
            MessageInfo::Assistant(a) => a.error.map(|e| e.name),
            _ => None,
        })
        .collect::<Vec<_>>();
    assert_eq!(aborted, [ABORTED_ERROR]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_calls_of_one_step_run_concurrently() {
    let p = Project::new("session-parallel");
    p.install_test_plugin("bash");
    let rig = LoopRig::start(&p, &[("bash", &["exec", "fs-read", "fs-write"])]).await;
    let call = |id: &str, file: &str| ward_tests::llm::Item::ToolCall {
        id: id.into(),
        name: "bash".into(),
        args: json!({"command": format!("sleep 1; echo done > {file}"), "description": "wait"}),
    };
    rig.llm.push([
        Turn::Reply {
            items: vec![call("c1", "one.txt"), call("c2", "two.txt")],
            usage: Default::default(),
        },
        Turn::text("both done"),
    ]);
    let session = rig.session(&p);
    let started = Instant::now();
    rig.runner
        .prompt(&session, "two slow things")
        .await
        .expect("prompt");
    let took = started.elapsed();
    assert_eq!(p.read("one.txt"), "done\n");
    assert_eq!(p.read("two.txt"), "done\n");
    assert!(
        took < Duration::from_millis(1800),
        "the calls ran one after the other: {took:?}"
    );
    // Both results went back, in the order the model made the calls.
    let last = rig.llm.requests().pop().expect("request");
    let ids: Vec<&str> = last.body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] == "tool")
        .filter_map(|m| m["tool_call_id"].as_str())
        .collect();
    assert_eq!(ids, ["c1", "c2"]);
}
