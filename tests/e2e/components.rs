//! Agents and skills provided by WebAssembly components, end to end: the built-in
//! `reviewer` agent component runs as a subagent whose rules narrow the user's, the
//! built-in `guides` skill component is listed and loaded through the `skill` tool,
//! and a hostile component can neither replace a built-in agent, nor allow itself
//! what the user's rules ask about, nor flood or crash the loop through a skill.

use serde_json::{Value, json};
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn, tool_names};

fn tool_description(body: &Value, tool: &str) -> String {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["function"]["name"] == tool)
        .map(|t| t["function"]["description"].to_string())
        .unwrap_or_default()
}

/// The text of every tool result in `body`'s messages, in order.
fn tool_results(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn system(body: &Value) -> String {
    body["messages"][0]["content"].to_string()
}

fn append_config(p: &Project, extra: &str) {
    let mut config = p.read("ward.toml");
    config.push_str(extra);
    p.write("ward.toml", &config);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reviewer_component_runs_as_a_subagent_under_rules_that_narrow_the_users() {
    let p = Project::new("agent-component");
    p.write("lib.rs", "fn main() {}\n");
    let llm = ScriptedLlm::start(vec![
        Turn::tool(
            "t1",
            "task",
            json!({ "description": "review", "prompt": "Review lib.rs", "subagent_type": "reviewer" }),
        ),
        Turn::tool("b1", "bash", json!({ "command": "git status", "description": "status" })),
        // Rejected (nobody answers the question), which ends the child's turn.
        Turn::tool("b2", "bash", json!({ "command": "touch hacked.txt", "description": "x" })),
        Turn::text("The reviewer stopped."),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    // The user allows everything; the reviewer's own rules still hold.
    append_config(&p, "[permission]\nedit = \"allow\"\nbash = \"allow\"\n");

    let listed = p.run(&["agent", "list"], "").expect_ok();
    assert!(
        listed.contains("reviewer  subagent  [plugin reviewer]"),
        "{listed}"
    );

    let run = p.run_async(&["run", "review my code"], "").await;
    assert!(run.expect_ok().contains("The reviewer stopped."));
    let requests = llm.requests();
    assert_eq!(requests.len(), 4);
    assert!(
        tool_description(&requests[0].body, "task").contains("- reviewer:"),
        "the reviewer is offered as a subagent"
    );
    let child = &requests[1].body;
    assert!(
        system(child).contains("You are a code reviewer"),
        "{}",
        system(child)
    );
    let child_tools = tool_names(child);
    for denied in ["write", "edit", "apply_patch", "task", "todowrite"] {
        assert!(
            !child_tools.contains(&denied.to_string()),
            "{denied} in {child_tools:?}"
        );
    }
    assert!(child_tools.contains(&"bash".to_string()), "{child_tools:?}");

    // Its `git status = allow` is within what the user allows: no question, it ran.
    let stderr = run.stderr();
    assert!(!stderr.contains("Allow bash for git status"), "{stderr}");
    assert_eq!(tool_results(&requests[2].body).len(), 1, "git status ran");
    // `bash * = ask` from the component beats the user's `bash = allow`: the command
    // was put to the user (nobody answered, so it was rejected) and never ran.
    assert!(
        stderr.contains("Allow bash for touch hacked.txt?"),
        "{stderr}"
    );
    assert!(!p.path("hacked.txt").exists(), "the rejected command ran");
    let result = tool_results(&requests[3].body).pop().unwrap_or_default();
    assert!(
        result.contains("task_id"),
        "the parent got the child's outcome: {result}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_guides_skill_component_is_listed_and_loaded() {
    let p = Project::new("skill-component");
    let llm = ScriptedLlm::start(vec![
        Turn::tool("s1", "skill", json!({ "name": "code-review" })),
        Turn::text("Loaded the checklist."),
    ])
    .await;
    llm.configure(&p, "openai-compatible");

    let listed = p.run(&["skill", "list"], "").expect_ok();
    assert!(listed.contains("code-review  Checklist"), "{listed}");
    assert!(listed.contains("plugin guides"), "{listed}");

    let run = p.run_async(&["run", "review with the checklist"], "").await;
    assert!(run.expect_ok().contains("Loaded the checklist."));
    let requests = llm.requests();
    let description = tool_description(&requests[0].body, "skill");
    assert!(
        description.contains("code-review") && description.contains("ward-plugins"),
        "{description}"
    );
    let loaded = tool_results(&requests[1].body).pop().unwrap_or_default();
    assert!(
        loaded.starts_with("<skill_content name=\"code-review\">"),
        "{loaded}"
    );
    assert!(loaded.contains("# Code review checklist"), "{loaded}");
    assert!(
        loaded.contains("provided by the plugin `guides`"),
        "{loaded}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_agent_and_skill_component_gets_nothing_it_was_not_given() {
    let p = Project::new("hostile-agent-component");
    p.install_test_plugin("agent-hostile");
    let llm = ScriptedLlm::start(vec![
        Turn::tool("s1", "skill", json!({ "name": "bomb" })),
        Turn::tool("s2", "skill", json!({ "name": "crash" })),
        // Rejected (nobody answers the question), which ends the run.
        Turn::tool(
            "b1",
            "bash",
            json!({ "command": "touch pwned.txt", "description": "x" }),
        ),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    append_config(&p, "[permission]\nbash = \"ask\"\n");

    // It cannot replace the built-in `build` agent; its other agent loads.
    let listed = p.run(&["agent", "list"], "");
    let out = listed.expect_ok();
    assert!(
        listed
            .stderr()
            .contains("plugin `agent-hostile`: agent `build`: it is a built-in agent, which a plugin cannot redefine"),
        "{}",
        listed.stderr()
    );
    assert!(
        out.contains("escalator  primary  [plugin agent-hostile]"),
        "{out}"
    );
    assert!(!out.contains("Hijacked"), "{out}");

    let run = p
        .run_async(&["run", "--agent", "escalator", "do anything"], "")
        .await;
    run.expect_ok();
    let requests = llm.requests();
    assert_eq!(requests.len(), 3);
    assert!(system(&requests[0].body).contains("ESCALATOR"));
    // Its `* = allow` rules do not loosen the user's `bash = ask`.
    assert!(
        !p.path("pwned.txt").exists(),
        "the command ran without asking"
    );
    assert!(
        run.stderr().contains("Allow bash for touch pwned.txt?"),
        "{}",
        run.stderr()
    );
    // A skill that returns too much, and one that crashes, are errors for the model.
    let results = tool_results(&requests[2].body);
    let bomb = &results[0];
    assert!(
        bomb.contains("plugin `agent-hostile` returned")
            && bomb.contains("more than its output limit of 65536 bytes"),
        "{bomb}"
    );
    assert!(bomb.len() < 4096, "the oversized skill reached the model");
    let crash = &results[1];
    assert!(crash.contains("plugin `agent-hostile` crashed"), "{crash}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subtask_commands_run_in_a_child_session_of_their_subagent() {
    let p = Project::new("subtask-commands");
    p.write(
        ".ward/commands/scan.md",
        "---\ndescription: scan the tree\nagent: explore\n---\nScan for $ARGUMENTS.\n",
    );
    let llm = ScriptedLlm::start(vec![
        Turn::text("FINDING: lib.rs:1: bug: off by one"),
        Turn::text("The review found one bug."),
        Turn::text("SCANNED: two TODOs"),
        Turn::text("The scan found two TODOs."),
    ])
    .await;
    llm.configure(&p, "openai-compatible");

    // The built-in `/review` is a subtask in the `reviewer` component's agent.
    let run = p.run_async(&["run", "/review HEAD~1"], "").await;
    assert!(run.expect_ok().contains("The review found one bug."));
    let requests = llm.requests();
    let child = &requests[0].body;
    assert!(
        system(child).contains("You are a code reviewer"),
        "{}",
        system(child)
    );
    let task = child["messages"].to_string();
    assert!(task.contains("What to review: HEAD~1"), "{task}");
    let parent = requests[1].body["messages"].to_string();
    assert!(parent.contains("/review HEAD~1"), "{parent}");
    assert!(
        parent.contains("FINDING: lib.rs:1: bug: off by one")
            && parent.contains("Summarize the task tool output above"),
        "{parent}"
    );
    assert!(
        !system(&requests[1].body).contains("You are a code reviewer"),
        "the session itself keeps its agent"
    );

    // A command whose agent is a subagent runs as a subtask too.
    let run = p.run_async(&["run", "/scan TODO"], "").await;
    assert!(run.expect_ok().contains("The scan found two TODOs."));
    let requests = llm.requests();
    let child = requests[2].body.to_string();
    assert!(child.contains("Scan for TODO."), "{child}");
    assert!(system(&requests[2].body).to_lowercase().contains("explor"));
    assert!(
        requests[3].body["messages"]
            .to_string()
            .contains("SCANNED: two TODOs")
    );
}
