//! Subagents end to end: the `task` tool runs `explore` in a child session whose rules
//! hold (no edits, no nested tasks), its progress shows in the parent's running call,
//! its answer comes back with a `task_id`, and that id resumes the same child.

use serde_json::{Value, json};
use ward_store::{SqliteStore, Store};
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn, tool_names};

fn task(prompt: &str, task_id: Option<&str>) -> Turn {
    let mut args =
        json!({ "description": "look around", "prompt": prompt, "subagent_type": "explore" });
    if let Some(id) = task_id {
        args["task_id"] = json!(id);
    }
    Turn::tool("t1", "task", args)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subagent_runs_in_a_child_session_under_its_rules_and_resumes() {
    let p = Project::new("subagents");
    p.write("a.txt", "alpha\n");
    let llm = ScriptedLlm::start(vec![
        task("What is in a.txt?", None),
        Turn::tool("r1", "read", json!({ "filePath": "a.txt" })),
        Turn::tool(
            "w1",
            "write",
            json!({ "filePath": "a.txt", "content": "x" }),
        ),
        Turn::text("FOUND-ALPHA"),
        Turn::text("The subagent says alpha."),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    let run = p
        .run_async(&["run", "--yes", "--format", "json", "ask a subagent"], "")
        .await;
    let events = run.expect_ok();
    assert_eq!(p.read("a.txt"), "alpha\n", "explore may not write");

    let requests = llm.requests();
    assert_eq!(requests.len(), 5);
    let parent_tools = tool_names(&requests[0].body);
    assert!(
        parent_tools.contains(&"task".to_string()),
        "{parent_tools:?}"
    );
    let description = requests[0].body["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["function"]["name"] == "task")
        .map(|t| t["function"]["description"].to_string())
        .unwrap_or_default();
    assert!(description.contains("- explore:"), "{description}");
    let child_tools = tool_names(&requests[1].body);
    for denied in ["task", "write", "edit", "todowrite"] {
        assert!(
            !child_tools.contains(&denied.to_string()),
            "{denied} in {child_tools:?}"
        );
    }
    assert!(child_tools.contains(&"read".to_string()));
    let child_system = requests[1].body["messages"][0]["content"].to_string();
    assert!(
        child_system.to_lowercase().contains("explor"),
        "explore's prompt: {child_system}"
    );

    let result = requests[4].body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .find(|m| m["role"] == "tool")
        .map(|m| m["content"].to_string())
        .expect("the task result");
    assert!(
        result.contains("<task_result>\\nFOUND-ALPHA\\n</task_result>"),
        "{result}"
    );
    let start = result.find("ses_").expect("a task_id");
    let task_id: String = result[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();

    // The child's calls showed in the parent's running task call as they happened.
    let progress = events.lines().any(|line| {
        let event: Value = serde_json::from_str(line).unwrap_or(Value::Null);
        let part = &event["properties"]["part"];
        part["tool"] == "task"
            && part["state"]["status"] == "running"
            && part["state"]["metadata"]["summary"]
                .as_array()
                .is_some_and(|s| s.iter().any(|c| c["tool"] == "read"))
    });
    assert!(
        progress,
        "no progress from the child in the parent's events"
    );

    let store = SqliteStore::open(p.data.join("ward.db")).expect("store");
    let child = store.get_session(&task_id).expect("the child session");
    let parent_id = child
        .parent_id
        .clone()
        .expect("a child of the run's session");
    assert_eq!(store.list_children(&parent_id).expect("children").len(), 1);
    drop(store);

    // task_id resumes the same child, with its history.
    llm.push([
        task("And the first letter?", Some(&task_id)),
        Turn::text("A"),
        Turn::text("It starts with a."),
    ]);
    let run = p
        .run_async(
            &[
                "run",
                "--yes",
                "--session",
                &parent_id,
                "and the first letter?",
            ],
            "",
        )
        .await;
    assert!(run.expect_ok().contains("It starts with a."));
    let resumed = llm.requests()[6].body.to_string();
    assert!(
        resumed.contains("What is in a.txt?") && resumed.contains("FOUND-ALPHA"),
        "{resumed}"
    );
    let store = SqliteStore::open(p.data.join("ward.db")).expect("store");
    assert_eq!(
        store.list_children(&parent_id).expect("children").len(),
        1,
        "no new child"
    );
}

/// `plan` → `task` → `general` → `touch FILE`, run with `args`; whether FILE exists
/// afterwards.
async fn delegated_command_ran(name: &str, args: &[&str]) -> bool {
    let p = Project::new(name);
    let llm = ScriptedLlm::start(vec![
        Turn::tool(
            "t1",
            "task",
            json!({ "description": "make a file", "prompt": "touch it", "subagent_type": "general" }),
        ),
        Turn::tool(
            "b1",
            "bash",
            json!({ "command": "touch planted-by-general", "description": "touch" }),
        ),
        Turn::text("the child is done"),
        Turn::text("the parent is done"),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    p.run_async(args, "").await.expect_ok();
    let child_tools = tool_names(&llm.requests()[1].body);
    assert!(child_tools.contains(&"bash".to_string()), "{child_tools:?}");
    p.path("planted-by-general").exists()
}

/// `plan` asks before running a command; delegating to `general` (which allows every
/// command) through `task` must not run it unasked. Without `--yes` and a terminal
/// nobody answers, so the command is refused and never runs; with `--yes` (the
/// person's answer) it runs, so the path is real.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subagent_asks_what_its_caller_would_ask() {
    let unasked = ["run", "--agent", "plan", "delegate a command"];
    assert!(
        !delegated_command_ran("subagents-narrow", &unasked).await,
        "general ran what plan asks about, unasked"
    );
    let answered = ["run", "--yes", "--agent", "plan", "delegate a command"];
    assert!(delegated_command_ran("subagents-narrow-yes", &answered).await);
}
