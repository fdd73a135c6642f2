//! The engine driven directly, as a frontend would (no binary): a prompt whose tool
//! call asks permission, answered through the API; a subagent through the `task`
//! tool; an abort of a hung model call — each asserted on the engine's one event
//! stream, which carries the permission asks and replies in order with the parts.

use std::time::Duration;

use serde_json::json;
use ward_engine::{Engine, EngineOptions, Event, PromptRequest, Reply};
use ward_store::{PartKind, SessionStatus, Store, ToolState};
use ward_tests::Project;
use ward_tests::llm::{Fault, ScriptedLlm, Turn};

/// What a test keeps of an event: its name and what it says about a tool call.
#[derive(Debug, Clone, PartialEq)]
enum Seen {
    Asked(String),
    Replied(String),
    Tool(String, &'static str),
    Idle,
    Other(&'static str),
}

fn seen(event: &Event) -> Seen {
    match event {
        Event::PermissionAsked { request, .. } => Seen::Asked(request.permission.clone()),
        Event::PermissionReplied { reply, .. } => Seen::Replied(format!("{reply:?}")),
        Event::PartUpdated { part } => match &part.kind {
            PartKind::Tool(t) => Seen::Tool(
                t.tool.clone(),
                match &t.state {
                    ToolState::Pending { .. } => "pending",
                    ToolState::Running { .. } => "running",
                    ToolState::Completed { .. } => "completed",
                    ToolState::Error { .. } => "error",
                },
            ),
            _ => Seen::Other(event.name()),
        },
        Event::SessionStatus {
            status: SessionStatus::Idle,
            ..
        } => Seen::Idle,
        _ => Seen::Other(event.name()),
    }
}

/// The events of `session` until it goes idle, answering every ask with `reply`.
async fn until_idle(
    engine: &Engine,
    events: &mut ward_store::Subscription,
    session: &str,
    reply: Reply,
) -> Vec<Seen> {
    let mut out = Vec::new();
    loop {
        let event = tokio::time::timeout(Duration::from_secs(30), events.recv())
            .await
            .expect("an event within 30 s")
            .expect("the bus is open");
        if event.session_id() != Some(session) {
            continue;
        }
        if let Event::PermissionAsked { id, .. } = &event {
            engine.reply(id, reply.clone()).expect("the ask is pending");
        }
        let s = seen(&event);
        out.push(s.clone());
        if s == Seen::Idle {
            return out;
        }
    }
}

/// A project with `a.txt`, whose `read` tool (a project plugin) the rules ask about,
/// the model server scripted with `turns`, and an engine opened over them.
async fn engine_asking_for_reads(name: &str, turns: Vec<Turn>) -> (Project, ScriptedLlm, Engine) {
    let p = Project::new(name);
    p.write("a.txt", "alpha\n");
    p.install_test_plugin("read");
    let llm = ScriptedLlm::start(turns).await;
    llm.configure(&p, "openai-compatible");
    let toml = p.read("ward.toml");
    p.write(
        "ward.toml",
        &format!("{toml}[permission]\nread = \"ask\"\n[plugins.read]\ngrant = [\"fs-read\"]\n"),
    );
    p.trust();
    let helper = ward_sandbox::helper_beside(&ward_tests::ward_binary());
    let options = EngineOptions::new(&p.root)
        .data_dir(&p.data)
        .sandbox_helper(helper);
    let engine = Engine::open(options).await.expect("the engine opens");
    (p, llm, engine)
}

fn position(events: &[Seen], wanted: &Seen) -> usize {
    events
        .iter()
        .position(|e| e == wanted)
        .unwrap_or_else(|| panic!("{wanted:?} not in {events:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frontend_prompts_answers_delegates_and_aborts_through_the_engine() {
    let (_p, llm, engine) = engine_asking_for_reads(
        "engine",
        vec![
            // 1: a read the rules ask about.
            Turn::tool("r1", "read", json!({ "filePath": "a.txt" })),
            Turn::text("READ-DONE"),
            // 2: a subagent.
            Turn::tool(
                "t1",
                "task",
                json!({ "description": "look", "prompt": "say hi", "subagent_type": "explore" }),
            ),
            Turn::text("CHILD-ANSWER"),
            Turn::text("PARENT-DONE"),
            // 3: a model that never answers, until aborted.
            Turn::Fault(Fault::Hang),
        ],
    )
    .await;
    assert_eq!(engine.take_warnings(), Vec::<String>::new());
    let session = engine.create_session(None).expect("a session");
    let mut events = engine.subscribe();

    // 1: the ask reaches the stream, the answer goes back through the API.
    let prompt = {
        let (engine, session) = (engine.clone(), session.clone());
        tokio::spawn(async move {
            engine
                .prompt(&session, PromptRequest::text("read a.txt"))
                .await
        })
    };
    let first = until_idle(&engine, &mut events, &session.id, Reply::Once).await;
    let turn = prompt.await.expect("joined").expect("the prompt succeeds");
    let asked = position(&first, &Seen::Asked("read".into()));
    let replied = position(&first, &Seen::Replied("Once".into()));
    let completed = position(&first, &Seen::Tool("read".into(), "completed"));
    assert!(
        asked < replied && replied < completed,
        "ask, reply, then the tool completes: {first:?}"
    );
    assert!(!first[..asked].contains(&Seen::Tool("read".into(), "completed")));
    let text = engine
        .store()
        .messages(&session.id, None)
        .expect("messages")
        .iter()
        .flat_map(|m| m.parts.clone())
        .filter_map(|p| match p.kind {
            PartKind::Text(t) if t.text == "READ-DONE" => Some(t.text),
            _ => None,
        })
        .count();
    assert_eq!(text, 1, "the final text is stored");
    assert_eq!(turn.message.session_id, session.id);
    // The tool result the model read is the file, read after the answer.
    let requests = llm.requests();
    assert!(requests[1].raw.windows(5).any(|w| w == b"alpha"));

    // 2: the subagent runs in a child session of this one.
    let second = engine
        .prompt(&session, PromptRequest::text("ask a subagent"))
        .await
        .expect("the delegating prompt succeeds");
    assert_eq!(second.message.session_id, session.id);
    let children = engine.store().list_children(&session.id).expect("children");
    assert_eq!(children.len(), 1, "one child session");
    assert_eq!(children[0].agent, "explore");
    let requests = llm.requests();
    assert_eq!(requests.len(), 5);
    assert!(
        String::from_utf8_lossy(&requests[4].raw).contains("CHILD-ANSWER"),
        "the parent reads the child's answer"
    );

    // 3: an abort stops a hung model call and the prompt says it was aborted.
    let prompt = {
        let (engine, session) = (engine.clone(), session.clone());
        tokio::spawn(async move { engine.prompt(&session, PromptRequest::text("hang")).await })
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while llm.requests().len() < 6 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the model was called"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(engine.is_busy(&session.id));
    assert!(engine.abort(&session.id));
    let outcome = tokio::time::timeout(Duration::from_secs(10), prompt)
        .await
        .expect("the abort ends the prompt")
        .expect("joined");
    assert!(
        outcome.as_ref().is_err_and(|e| e.is_abort()),
        "{:?}",
        outcome.map(|t| t.message.id)
    );
    assert!(!engine.is_busy(&session.id));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejection_with_feedback_reaches_the_model_and_the_stream() {
    let (_p, llm, engine) = engine_asking_for_reads(
        "engine-reject",
        vec![
            Turn::tool("r1", "read", json!({ "filePath": "a.txt" })),
            Turn::text("OK"),
        ],
    )
    .await;
    let session = engine.create_session(None).expect("a session");
    let mut events = engine.subscribe();
    let prompt = {
        let (engine, session) = (engine.clone(), session.clone());
        tokio::spawn(async move { engine.prompt(&session, PromptRequest::text("read")).await })
    };
    let feedback = Reply::Reject {
        feedback: Some("use b.txt".into()),
    };
    let seen = until_idle(&engine, &mut events, &session.id, feedback).await;
    prompt.await.expect("joined").expect("the loop goes on");
    position(&seen, &Seen::Tool("read".into(), "error"));
    let second = String::from_utf8_lossy(&llm.requests()[1].raw).into_owned();
    assert!(second.contains("use b.txt"), "{second}");
    assert!(!second.contains("alpha"), "the file was not read");
}
