//! The CLI's other faces of the loop: `ward` alone (the interactive mode keeping one
//! session across prompts, answering permission questions from the same input) and
//! `ward run --format json` (one JSON event per line).

use serde_json::{Value, json};
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_interactive_mode_keeps_one_session_across_prompts() {
    let p = Project::new("interactive");
    let llm = ScriptedLlm::start(vec![
        Turn::text("first answer"),
        Turn::tool(
            "call_w",
            "bash",
            json!({"command": "echo hi > made.txt", "description": "write"}),
        ),
        Turn::text("second answer"),
    ])
    .await;
    configure_asking_for_bash(&p, &llm);
    // Piped input: each line is a prompt, except the line after a permission question,
    // which answers it.
    let run = p.run_async(&[], "say one\nmake a file\ny\n/exit\n").await;
    let out = run.expect_ok();
    assert!(out.contains("first answer"), "{out}");
    assert!(out.contains("second answer"), "{out}");
    assert_eq!(p.read("made.txt"), "hi\n");
    assert!(
        run.stderr().contains("Allow bash for echo hi > made.txt?"),
        "{}",
        run.stderr()
    );

    // One session; the second prompt's request carried the first exchange.
    let requests = llm.requests();
    assert_eq!(requests.len(), 3);
    let history: Vec<(String, String)> = requests[1].body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] != "system")
        .map(|m| {
            (
                m["role"].as_str().unwrap_or("").to_string(),
                text_of(&m["content"]),
            )
        })
        .collect();
    assert_eq!(
        history,
        [
            ("user".to_string(), "say one".to_string()),
            ("assistant".to_string(), "first answer".to_string()),
            ("user".to_string(), "make a file".to_string()),
        ]
    );
    let sessions = p.run(&["session", "list"], "").expect_ok();
    assert_eq!(
        sessions.lines().filter(|l| l.starts_with("ses_")).count(),
        1,
        "{sessions}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn end_of_input_rejects_an_open_question_and_exits() {
    let p = Project::new("interactive-eof");
    let llm = ScriptedLlm::start(vec![
        Turn::tool(
            "call_w",
            "bash",
            json!({"command": "echo hi > never.txt", "description": "write"}),
        ),
        Turn::text("ok, I will not"),
    ])
    .await;
    configure_asking_for_bash(&p, &llm);
    let run = p.run_async(&[], "make a file\n").await;
    run.expect_ok();
    assert!(!p.path("never.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_format_json_prints_one_event_per_line() {
    let p = Project::new("run-json");
    p.write("a.txt", "alpha\n");
    let llm = ScriptedLlm::start(vec![
        Turn::tool("call_r", "read", json!({"filePath": "a.txt"})),
        Turn::text("it says alpha"),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    let out = p
        .run_async(&["run", "--format", "json", "what is in a.txt"], "")
        .await
        .expect_ok();
    let events: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let names: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    assert_eq!(names.len(), events.len(), "an event without a type: {out}");
    for expected in [
        "message.updated",
        "message.part.updated",
        "message.part.delta",
        "session.status",
    ] {
        assert!(names.contains(&expected), "no {expected} in {names:?}");
    }
    let completed_read = events.iter().any(|e| {
        let part = &e["properties"]["part"];
        part["type"] == "tool"
            && part["tool"] == "read"
            && part["state"]["status"] == "completed"
            && part["state"]["output"]
                .as_str()
                .is_some_and(|o| o.contains("alpha"))
    });
    assert!(completed_read, "no completed read part in {out}");
    let text: String = events
        .iter()
        .filter(|e| e["type"] == "message.part.delta")
        .filter_map(|e| e["properties"]["delta"].as_str())
        .collect();
    assert!(text.contains("it says alpha"), "{text}");
}

fn configure_asking_for_bash(p: &Project, llm: &ScriptedLlm) {
    llm.configure(p, "openai-compatible");
    let mut config = p.read("ward.toml");
    config.push_str("[permission]\nbash = \"ask\"\n");
    p.write("ward.toml", &config);
}

fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        _ => String::new(),
    }
}
