//! Context management end to end (SPEC §5), asserted on the request bodies Ward sends
//! to the scripted model: pruned outputs as the placeholder, the history after a
//! compaction, and a 300-step session against a 64k window that never sends a request
//! over the limit.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use ward_context::truncate::OutputPolicy;
use ward_provider::Limits;
use ward_session::ContextPolicy;
use ward_session::compact::{CONTINUE, SUMMARY_REQUEST};
use ward_store::Store;
use ward_tests::Project;
use ward_tests::llm::{Item, Recorded, Turn, Usage};
use ward_tests::rig::{LoopRig, RigOptions};
use ward_tokens::{Encoding, TokenCounter};

const PLACEHOLDER: &str = "[Old tool result content cleared]";

/// Every text a Chat Completions message carries, tool calls included.
fn message_text(m: &Value) -> String {
    let mut text = match &m["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    };
    for call in m["tool_calls"].as_array().into_iter().flatten() {
        text.push_str(call["function"]["name"].as_str().unwrap_or_default());
        text.push_str(call["function"]["arguments"].as_str().unwrap_or_default());
    }
    text
}

/// The tokens a provider would count for a request: every message's text plus a few
/// tokens of framing each, and the tool definitions.
fn request_tokens(counter: &TokenCounter, body: &Value) -> u64 {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let text: u64 = messages
        .iter()
        .map(|m| 4 + counter.count(&message_text(m)))
        .sum();
    text + counter.count(&body["tools"].to_string())
}

fn body(request: &Recorded) -> Value {
    serde_json::from_slice(&request.raw).unwrap_or(Value::Null)
}

/// The first session id in `ward run --format json` output.
fn session_in(events: &str) -> String {
    let start = events.find("\"ses_").expect("a session id in the events") + 1;
    let len = events[start..].find('"').expect("closing quote");
    events[start..start + len].to_string()
}

fn is_summary_request(body: &Value) -> bool {
    body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .is_some_and(|m| message_text(m).starts_with(&SUMMARY_REQUEST[..40]))
}

/// 30k o200k tokens of file-like text.
fn big_file() -> String {
    (0..2500)
        .map(|i| format!("{i:05} alpha beta gamma delta epsilon zeta eta theta\n"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_session_never_sends_a_request_over_the_window() {
    const STEPS: usize = 300;
    const CONTEXT: u64 = 64_000;
    const MAX_OUTPUT: u32 = 8_000;
    let p = Project::new("context-long");
    p.install_test_plugin("bash");
    p.write("big.txt", &big_file());
    let counter = TokenCounter::new(Encoding::O200k);
    let file_tokens = counter.count(&big_file());
    assert!(
        (29_000..=34_000).contains(&file_tokens),
        "a 30k-token output: {file_tokens}"
    );
    let narration: String = (0..120)
        .map(|i| format!("Step note {i}: checked the output. "))
        .collect();

    let steps = Arc::new(Mutex::new(0usize));
    let seen = steps.clone();
    let responder = Box::new(move |request: &Recorded| {
        let body = body(request);
        let input = request_tokens(&counter, &body);
        let usage = Usage {
            input,
            output: 900,
            cache_read: 0,
        };
        if is_summary_request(&body) {
            let summary = "## Goal\nRead big.txt repeatedly.\n## Progress\n### Done\nMany reads.";
            return Turn::Reply {
                items: vec![Item::Text(summary.into())],
                usage,
            };
        }
        let Ok(mut n) = seen.lock() else {
            return Turn::text("lock poisoned");
        };
        *n += 1;
        if *n > STEPS {
            return Turn::Reply {
                items: vec![Item::Text("All steps done.".into())],
                usage,
            };
        }
        Turn::Reply {
            items: vec![
                Item::Text(narration.clone()),
                Item::ToolCall {
                    id: format!("call_{n}"),
                    name: "bash".into(),
                    args: json!({ "command": format!("cat big.txt # {n}"), "description": "read" }),
                },
            ],
            usage,
        }
    });
    let rig = LoopRig::start_with(
        &p,
        &[("bash", &["exec", "fs-read", "fs-write"])],
        RigOptions {
            responder: Some(responder),
            limits: Limits {
                context: Some(CONTEXT),
                input: None,
                output: Some(u64::from(MAX_OUTPUT)),
            },
            max_tokens: Some(MAX_OUTPUT),
            encoding: Some(Encoding::O200k),
            context: ContextPolicy::default(),
            output: Some(whole_outputs()),
            ..RigOptions::default()
        },
    )
    .await;
    let session = rig.session(&p);
    let answer = rig
        .runner
        .prompt(&session, "Read big.txt again and again.")
        .await
        .expect("the loop finishes");
    assert!(answer.time.completed.is_some());

    let counter = TokenCounter::new(Encoding::O200k);
    let usable = CONTEXT - u64::from(MAX_OUTPUT);
    let requests = rig.llm.requests();
    let mut first_prune = None;
    let mut first_compaction = None;
    let mut largest = 0;
    for (i, request) in requests.iter().enumerate() {
        let body = body(request);
        let tokens = request_tokens(&counter, &body);
        largest = largest.max(tokens);
        assert!(
            tokens <= usable,
            "request {i} holds {tokens} tokens, over the usable {usable}"
        );
        if first_prune.is_none() && body.to_string().contains(PLACEHOLDER) {
            first_prune = Some(i);
        }
        if first_compaction.is_none() && is_summary_request(&body) {
            first_compaction = Some(i);
        }
    }
    let compactions = requests
        .iter()
        .filter(|r| is_summary_request(&body(r)))
        .count();
    let tool_steps = *steps.lock().expect("steps");
    assert_eq!(
        tool_steps,
        STEPS + 1,
        "every step ran, then the final answer"
    );
    let (Some(prune), Some(compaction)) = (first_prune, first_compaction) else {
        panic!("prune {first_prune:?} and compaction {first_compaction:?} both happen");
    };
    assert!(
        prune < compaction,
        "prune sufficed first ({prune} < {compaction})"
    );
    let point = rig
        .store
        .compaction(&session.id)
        .expect("point")
        .expect("compacted");
    assert_eq!(point.index as usize, compactions);
    eprintln!(
        "{} requests, largest {largest} tokens of {usable}, {compactions} compactions, first prune at request {prune}",
        requests.len()
    );
    // After every compaction the loop went on: the request after a summary request
    // starts with the question and the summary, then the synthetic continue.
    for (i, request) in requests.iter().enumerate() {
        if !is_summary_request(&body(request)) || i + 1 == requests.len() {
            continue;
        }
        let next = body(&requests[i + 1]);
        let texts: Vec<String> = next["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .filter(|m| m["role"] != "system")
            .map(message_text)
            .collect();
        assert_eq!(texts[0], "What did we do so far?", "request {}", i + 1);
        assert!(texts[1].starts_with("## Goal"), "{}", texts[1]);
        assert!(texts.iter().any(|t| t == CONTINUE), "{texts:?}");
    }
}

/// The non-system messages of a request, as texts.
fn texts(request: &Recorded) -> Vec<String> {
    body(request)["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] != "system")
        .map(message_text)
        .collect()
}

/// Sends `prompt`, answered with `reply`; returns what the request held.
async fn exchange(
    rig: &LoopRig,
    session: &ward_store::Session,
    prompt: &str,
    reply: &str,
) -> Vec<String> {
    rig.llm.push([Turn::text(reply)]);
    rig.runner.prompt(session, prompt).await.expect("the turn");
    texts(rig.llm.requests().last().expect("request"))
}

/// Tool outputs passed whole (the tests feed 30k-token outputs on purpose).
fn whole_outputs() -> OutputPolicy {
    OutputPolicy {
        max_lines: 100_000,
        max_bytes: 1 << 20,
        spill_dir: None,
    }
}

fn known_window() -> RigOptions {
    RigOptions {
        limits: Limits {
            context: Some(200_000),
            input: None,
            output: Some(8_000),
        },
        max_tokens: Some(8_000),
        encoding: Some(Encoding::O200k),
        ..RigOptions::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn outputs_older_than_the_last_two_turns_are_sent_as_the_placeholder() {
    let p = Project::new("context-prune");
    p.install_test_plugin("bash");
    p.write("big.txt", &big_file());
    let rig = LoopRig::start_with(
        &p,
        &[("bash", &["exec", "fs-read", "fs-write"])],
        RigOptions {
            output: Some(whole_outputs()),
            ..RigOptions::default()
        },
    )
    .await;
    let session = rig.session(&p);
    let cat = |n: u32| {
        Turn::tool(
            &format!("c{n}"),
            "bash",
            json!({ "command": format!("cat big.txt # {n}"), "description": "read" }),
        )
    };
    rig.llm
        .push([cat(1), cat(2), cat(3), Turn::text("read three times")]);
    rig.runner
        .prompt(&session, "read it")
        .await
        .expect("turn 1");
    for turn in ["second", "third"] {
        rig.llm.push([Turn::text("ok")]);
        rig.runner.prompt(&session, turn).await.expect("turn");
    }
    rig.llm.push([Turn::text("ok")]);
    rig.runner.prompt(&session, "fourth").await.expect("turn 4");

    let requests = rig.llm.requests();
    let last = texts(requests.last().expect("requests"));
    let results: Vec<&String> = last
        .iter()
        .filter(|t| t.contains("alpha beta") || *t == PLACEHOLDER)
        .collect();
    assert_eq!(results.len(), 3, "{last:?}");
    // Newest first: 31k kept (under 40k), the two older ones (62k freed > 20k) pruned.
    assert_eq!(results[0], PLACEHOLDER);
    assert_eq!(results[1], PLACEHOLDER);
    assert!(
        results[2].contains("02499 alpha"),
        "the newest output is whole"
    );
    // The turn-3 request still had all three: the last two turns are protected.
    let third = texts(&requests[requests.len() - 2]);
    assert!(!third.iter().any(|t| t == PLACEHOLDER), "{third:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_compaction_history_is_question_summary_tail_then_newer() {
    let p = Project::new("context-compact");
    let rig = LoopRig::start_with(&p, &[], known_window()).await;
    let session = rig.session(&p);
    for (prompt, reply) in [
        ("first task", "did one"),
        ("second task", "did two"),
        ("third task", "did three"),
    ] {
        rig.llm.push([Turn::text(reply)]);
        rig.runner.prompt(&session, prompt).await.expect("turn");
    }
    rig.llm.push([Turn::text("## Goal\nSUMMARY ONE")]);
    let summary = rig
        .runner
        .compact_session(&session)
        .await
        .expect("compacted");
    assert!(summary.summary);

    let requests = rig.llm.requests();
    let summariser = texts(requests.last().expect("summary request"));
    assert_eq!(
        summariser[..2],
        ["first task".to_string(), "did one".to_string()]
    );
    assert!(summariser[2].starts_with(&SUMMARY_REQUEST[..40]));
    assert_eq!(
        summariser.len(),
        3,
        "the last two turns are not summarised: {summariser:?}"
    );
    let system = &body(requests.last().expect("summary request"))["messages"][0];
    assert!(
        message_text(system).contains("summariser"),
        "the compaction agent's prompt"
    );
    assert!(
        body(requests.last().expect("r"))["tools"].is_null(),
        "no tools for the summariser"
    );

    let sent = exchange(&rig, &session, "fourth task", "did four").await;
    assert_eq!(
        sent,
        [
            "What did we do so far?",
            "## Goal\nSUMMARY ONE",
            "second task",
            "did two",
            "third task",
            "did three",
            "fourth task"
        ]
    );

    // A second compaction updates the first summary: the summariser sees it.
    rig.llm.push([Turn::text("## Goal\nSUMMARY TWO")]);
    rig.runner
        .compact_session(&session)
        .await
        .expect("compacted again");
    let summariser = texts(rig.llm.requests().last().expect("summary request"));
    assert_eq!(
        summariser[..2],
        [
            "What did we do so far?".to_string(),
            "## Goal\nSUMMARY ONE".to_string()
        ]
    );
    assert!(
        summariser.contains(&"second task".to_string()),
        "{summariser:?}"
    );
    assert!(
        !summariser.contains(&"fourth task".to_string()),
        "kept verbatim: {summariser:?}"
    );
    let sent = exchange(&rig, &session, "fifth task", "did five").await;
    assert_eq!(
        sent,
        [
            "What did we do so far?",
            "## Goal\nSUMMARY TWO",
            "third task",
            "did three",
            "fourth task",
            "did four",
            "fifth task"
        ]
    );
    let point = rig
        .store
        .compaction(&session.id)
        .expect("point")
        .expect("set");
    assert_eq!(point.index, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaving_plan_mode_is_announced_exactly_once() {
    let p = Project::new("context-plan");
    let plan = LoopRig::start_with(
        &p,
        &[],
        RigOptions {
            agent: Some("plan".into()),
            ..RigOptions::default()
        },
    )
    .await;
    let session = plan.session(&p);
    plan.llm.push([Turn::text("here is the plan")]);
    plan.runner
        .prompt(&session, "plan it")
        .await
        .expect("plan turn");
    let first = texts(&plan.llm.requests()[0]).join("\n");
    assert!(first.contains("Plan mode is active"), "{first}");
    assert!(!first.contains("operational mode"), "nothing to leave yet");

    let build = LoopRig::start(&p, &[]).await;
    build
        .llm
        .push([Turn::text("building"), Turn::text("still building")]);
    build
        .runner
        .prompt(&session, "go ahead")
        .await
        .expect("build turn");
    build
        .runner
        .prompt(&session, "continue")
        .await
        .expect("second build turn");
    for request in build.llm.requests() {
        let all = texts(&request).join("\n");
        assert_eq!(
            all.matches("Your operational mode has changed from plan to build.")
                .count(),
            1,
            "{all}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ward_run_sends_the_layered_system_prompt_with_the_cache_marker() {
    let p = Project::new("context-system");
    p.write("AGENTS.md", "PROJECT-RULE: answer briefly.\n");
    p.write("docs/style.md", "STYLE-RULE: use British spelling.\n");
    p.write(
        "sub/AGENTS.md",
        "NESTED-RULE: tests live beside the code.\n",
    );
    p.write("sub/a.txt", "alpha\n");
    p.write("sub/b.txt", "beta\n");
    let llm = ward_tests::llm::ScriptedLlm::start(vec![
        Turn::tool("r1", "read", json!({ "filePath": "sub/a.txt" })),
        Turn::tool("r2", "read", json!({ "filePath": "sub/b.txt" })),
        Turn::text("Read both."),
    ])
    .await;
    llm.configure(&p, "anthropic");
    let mut config = p.read("ward.toml");
    config.insert_str(0, "instructions = [\"docs/*.md\"]\n");
    p.write("ward.toml", &config);
    let args = ["run", "--yes", "--system", "USER-LAYER", "read the files"];
    let out = p.run_async(&args, "").await;
    assert!(out.expect_ok().contains("Read both."));

    let requests = llm.requests();
    assert_eq!(requests.len(), 3);
    let system = body(&requests[0])["system"].clone();
    let blocks = system.as_array().expect("system blocks");
    assert_eq!(blocks.len(), 3, "{system}");
    // Layer 3, the prompt's own system text, comes last.
    assert_eq!(blocks[2]["text"], "USER-LAYER");
    assert_eq!(system.to_string().matches("USER-LAYER").count(), 1);
    let stable = blocks[0]["text"].as_str().expect("text");
    assert_eq!(blocks[0]["cache_control"]["type"], "ephemeral");
    assert!(
        blocks[1].get("cache_control").is_none(),
        "the dynamic block is not cached"
    );
    // Layer 1 (the Anthropic family's base prompt), then the instructions in order:
    // the project's AGENTS.md, then the configured files.
    let project_rule = stable.find("PROJECT-RULE").expect("AGENTS.md");
    let style_rule = stable.find("STYLE-RULE").expect("configured instructions");
    assert!(project_rule > 200 && project_rule < style_rule, "{stable}");
    assert!(
        !stable.contains("NESTED-RULE"),
        "nested files wait for a read"
    );
    let dynamic = blocks[1]["text"].as_str().expect("text");
    assert!(dynamic.contains("<env>") && dynamic.contains(&p.root.display().to_string()));
    assert!(dynamic.contains("sub/"), "the file tree: {dynamic}");
    // The same stable block on every call (so the cache hits).
    for r in &requests[1..] {
        assert_eq!(body(r)["system"][0]["text"], blocks[0]["text"]);
    }
    // The nested AGENTS.md came with the first read beneath it, and only once.
    let last = body(&requests[2]).to_string();
    assert_eq!(last.matches("NESTED-RULE").count(), 1, "{last}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ward_session_compact_summarises_a_session() {
    let p = Project::new("context-compact-cli");
    let llm = ward_tests::llm::ScriptedLlm::start(vec![
        Turn::text("Did the first thing."),
        Turn::text("## Goal\nThe CLI summary."),
        Turn::text("Carrying on."),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    let mut config = p.read("ward.toml");
    config.push_str("context = 100000\n"); // into the model's table, the last one
    p.write("ward.toml", &config);
    let out = p.run_async(&["run", "--format", "json", "first"], "").await;
    let events = out.expect_ok();
    let session = session_in(&events);
    let compact = p.run_async(&["session", "compact", &session], "").await;
    assert!(compact.expect_ok().contains("The CLI summary."));
    let shown = p
        .run_async(&["session", "show", &session], "")
        .await
        .expect_ok();
    assert!(shown.contains("[summary "), "{shown}");
    assert!(
        shown.contains("context 100 tokens"),
        "each request's context: {shown}"
    );
    let next = p
        .run_async(&["run", "--session", &session, "second"], "")
        .await;
    assert!(next.expect_ok().contains("Carrying on."));
    // The context budget of the last request is reported: 100 in, 10 out, of the
    // 100000-token window less the 1024 kept for output.
    assert!(
        next.stderr().contains("context 110 of 98976 tokens (0%)"),
        "{}",
        next.stderr()
    );
    let sent = texts(llm.requests().last().expect("request"));
    // One turn only: it is the tail kept verbatim.
    assert_eq!(
        sent,
        [
            "What did we do so far?",
            "## Goal\nThe CLI summary.",
            "first",
            "Did the first thing.",
            "second"
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_compaction_agent_settings_choose_its_prompt_model_and_sampling() {
    let p = Project::new("context-compaction-agent");
    let llm = ward_tests::llm::ScriptedLlm::start(vec![
        Turn::text("Did the first thing."),
        Turn::text("## Goal\nSummarised by the cheap model."),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    let mut config = p.read("ward.toml");
    config.push_str(
        "[provider.scripted.models.cheap-summariser]\noutput = 512\n\
         [agent.compaction]\nmodel = \"scripted/cheap-summariser\"\n\
         prompt = \"SUMMARISE-TERSELY\"\ntemperature = 0.1\n",
    );
    p.write("ward.toml", &config);
    let out = p.run_async(&["run", "--format", "json", "first"], "").await;
    let events = out.expect_ok();
    let session = session_in(&events);
    let compact = p.run_async(&["session", "compact", &session], "").await;
    assert!(
        compact
            .expect_ok()
            .contains("Summarised by the cheap model.")
    );

    let requests = llm.requests();
    let (chat, summary) = (body(&requests[0]), body(&requests[1]));
    assert_eq!(chat["model"], "test-model");
    assert_eq!(summary["model"], "cheap-summariser");
    assert_eq!(summary["max_tokens"], 512);
    assert_eq!(summary["temperature"], 0.1);
    let system = summary["messages"][0]["content"].to_string();
    assert!(system.contains("SUMMARISE-TERSELY"), "{system}");
    assert!(!system.contains("You are a summariser"), "{system}");
    // The summary records which model wrote it.
    let store = ward_store::SqliteStore::open(p.data.join("ward.db")).expect("store");
    let messages = store.messages(&session, None).expect("messages");
    let written = messages
        .iter()
        .find_map(|m| match &m.info {
            ward_store::MessageInfo::Assistant(a) if a.summary => Some(a.model.clone()),
            _ => None,
        })
        .expect("a summary message");
    assert_eq!(written.model, "cheap-summariser");
}
