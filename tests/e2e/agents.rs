//! Agents end to end: a markdown agent's prompt, sampling settings and rules reach the
//! request and hold; bad agent definitions are warnings naming the file, and Ward
//! still starts.

use serde_json::json;
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn};

const REVIEWER: &str = "---
description: Reviews changes without touching them
mode: primary
temperature: 0.1
steps: 5
permission:
  edit: deny
  bash:
    \"*\": deny
    \"git diff*\": allow
---
You are REVIEWER-PROMPT. Read the diff and report problems.
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_markdown_agents_prompt_and_rules_reach_the_model_and_hold() {
    let p = Project::new("agents-markdown");
    p.write(".ward/agents/reviewer.md", REVIEWER);
    p.write("a.txt", "alpha\n");
    let llm = ScriptedLlm::start(vec![
        Turn::tool(
            "w1",
            "write",
            json!({ "filePath": "a.txt", "content": "changed\n" }),
        ),
        Turn::tool(
            "b1",
            "bash",
            json!({ "command": "touch made.txt", "description": "touch" }),
        ),
        Turn::text("Reviewed."),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    let run = p
        .run_async(&["run", "--yes", "--agent", "reviewer", "review"], "")
        .await;
    assert!(run.expect_ok().contains("Reviewed."));
    assert_eq!(p.read("a.txt"), "alpha\n", "edit is denied to the reviewer");
    assert!(
        !p.path("made.txt").exists(),
        "bash is denied but for git diff"
    );

    let first = &llm.requests()[0].body;
    let system = first["messages"][0]["content"].to_string();
    assert!(system.contains("You are REVIEWER-PROMPT."), "{system}");
    assert_eq!(first["temperature"], 0.1);
    let offered: Vec<&str> = first["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(
        !offered.contains(&"write") && !offered.contains(&"edit"),
        "{offered:?}"
    );
    assert!(
        offered.contains(&"bash"),
        "git diff is allowed, so bash stays: {offered:?}"
    );
    assert!(offered.contains(&"read"));

    // The denied calls came back to the model as errors it can read.
    let third = llm.requests()[2].body.to_string();
    assert!(
        third.contains("Model tried to call unavailable tool 'write'"),
        "{third}"
    );
    assert!(
        third.contains("deny"),
        "the bash denial names its rule: {third}"
    );

    let list = p.run(&["agent", "list"], "").expect_ok();
    assert!(
        list.contains("reviewer  primary  [") && list.contains("Reviews changes"),
        "{list}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_agent_definitions_are_warnings_and_ward_still_runs() {
    let p = Project::new("agents-bad");
    p.write(
        ".ward/agents/broken.md",
        "---\ndescription: [unclosed\n---\nbody\n",
    );
    p.write(
        ".ward/agents/typo.md",
        "---\ndescripton: misspelt\n---\nbody\n",
    );
    let llm = ScriptedLlm::start(vec![Turn::text("Still here.")]).await;
    llm.configure(&p, "openai-compatible");
    let mut config = p.read("ward.toml");
    config.insert_str(0, "default_agent = \"explore\"\n");
    p.write("ward.toml", &config);
    let run = p.run_async(&["run", "hello"], "").await;
    let err = run.stderr();
    assert!(run.expect_ok().contains("Still here."));
    assert!(err.contains(".ward/agents/broken.md:2:"), "{err}");
    assert!(
        err.contains(".ward/agents/typo.md:2:") && err.contains("descripton"),
        "{err}"
    );
    assert!(
        err.contains("`default_agent = \"explore\"` names a subagent"),
        "{err}"
    );

    let refused = p
        .run(&["run", "--agent", "explore", "hello"], "")
        .expect_err();
    assert!(
        refused.contains("agent `explore` is a subagent"),
        "{refused}"
    );
    let unknown = p
        .run(&["run", "--agent", "nobody", "hello"], "")
        .expect_err();
    assert!(
        unknown.contains("no agent named `nobody`; primary agents: build, plan"),
        "{unknown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agents_temperature_is_not_sent_to_a_model_that_refuses_one() {
    let p = Project::new("agents-no-temperature");
    p.write(".ward/agents/reviewer.md", REVIEWER);
    let llm = ScriptedLlm::start(vec![Turn::text("Reviewed.")]).await;
    llm.configure(&p, "openai-compatible");
    let mut config = p.read("ward.toml");
    config.push_str("temperature = false\n"); // into the model's table, the last one
    p.write("ward.toml", &config);
    let run = p
        .run_async(&["run", "--agent", "reviewer", "review"], "")
        .await;
    assert!(run.expect_ok().contains("Reviewed."));
    let body = &llm.requests()[0].body;
    assert!(body.get("temperature").is_none(), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claude_code_agent_file_works_unchanged() {
    let p = Project::new("agents-claude");
    p.write(
        ".claude/agents/reviewer.md",
        "---\nname: code-reviewer\ndescription: Reviews code for quality\ntools: Read, Grep\nmodel: sonnet\n---\nYou are CLAUDE-REVIEWER.\n",
    );
    let llm = ScriptedLlm::start(vec![Turn::text("Looks fine.")]).await;
    llm.configure(&p, "openai-compatible");
    let run = p
        .run_async(&["run", "--agent", "code-reviewer", "review"], "")
        .await;
    assert!(run.expect_ok().contains("Looks fine."));
    assert!(
        run.stderr()
            .contains("model `sonnet` is not `provider/model`"),
        "{}",
        run.stderr()
    );
    let body = &llm.requests()[0].body;
    assert!(body.to_string().contains("You are CLAUDE-REVIEWER."));
    let mut offered: Vec<&str> = body["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    offered.sort();
    assert_eq!(offered, ["grep", "read"], "only its allow-list");
}
