//! An OpenCode project's agents and commands work in Ward unchanged: files in
//! `.opencode/agent/` and `.opencode/command/` (and OpenCode's global directory
//! beside Ward's) are listed and used by `ward run`, below Ward's own directories.

use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn, text_parts, tool_names};

/// An agent file as OpenCode's documentation writes one.
const DOCS_AGENT: &str = "---
description: Writes documentation
mode: primary
temperature: 0.2
tools:
  bash: false
---
You write documentation. DOCS-AGENT-PROMPT
";

/// A command file as OpenCode's documentation writes one.
const SHIP_COMMAND: &str = "---
description: Ship the release
agent: docs
---
Prepare release $ARGUMENTS.
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opencode_agents_and_commands_are_used() {
    let p = Project::new("opencode-dirs");
    p.write(".opencode/agent/docs.md", DOCS_AGENT);
    p.write(".opencode/command/ship.md", SHIP_COMMAND);
    // OpenCode's global directory, beside Ward's under the same configuration base.
    let global = p.home.join(".config/opencode/commands/hello.md");
    std::fs::create_dir_all(global.parent().unwrap()).unwrap();
    std::fs::write(&global, "---\ndescription: Say hello\n---\nHello $1.\n").unwrap();
    let llm = ScriptedLlm::start(vec![Turn::text("Shipped.")]).await;
    llm.configure(&p, "openai-compatible");

    let agents = p.run(&["agent", "list"], "").expect_ok();
    assert!(
        agents.contains("docs") && agents.contains("Writes documentation"),
        "{agents}"
    );
    let commands = p.run(&["command", "list"], "").expect_ok();
    assert!(
        commands.contains("/ship") && commands.contains("Ship the release"),
        "{commands}"
    );
    assert!(
        commands.contains("/hello") && commands.contains("Say hello"),
        "the global OpenCode command is listed: {commands}"
    );

    let run = p.run_async(&["run", "/ship 1.2"], "").await;
    assert!(run.expect_ok().contains("Shipped."), "{}", run.stderr());
    let request = &llm.requests()[0].body;
    assert!(
        text_parts(request, "user")
            .join("\n")
            .contains("Prepare release 1.2."),
        "the command's template: {request}"
    );
    assert!(
        text_parts(request, "system")
            .join("\n")
            .contains("DOCS-AGENT-PROMPT"),
        "the command's agent ran it"
    );
    let offered = tool_names(request);
    assert!(
        offered.iter().any(|t| t == "read") && !offered.iter().any(|t| t == "bash"),
        "the agent's `bash: false` switch holds: {offered:?}"
    );
}

#[test]
fn ward_directories_override_opencode_ones() {
    let p = Project::new("opencode-override");
    p.write(".opencode/agent/docs.md", DOCS_AGENT);
    p.write(".opencode/command/ship.md", SHIP_COMMAND);
    p.write(
        ".ward/agents/docs.md",
        "---\ndescription: Ward's own docs agent\nmode: primary\n---\nWard's.\n",
    );
    p.write(
        ".ward/commands/ship.md",
        "---\ndescription: Ward's own ship\n---\nShip.\n",
    );
    let agents = p.run(&["agent", "list"], "").expect_ok();
    assert!(
        agents.contains("Ward's own docs agent") && !agents.contains("Writes documentation"),
        "{agents}"
    );
    let commands = p.run(&["command", "list"], "").expect_ok();
    assert!(
        commands.contains("Ward's own ship") && !commands.contains("Ship the release"),
        "{commands}"
    );
}
