//! A subagent's progress: while the `task` tool runs, its block shows the child
//! session's tool calls as they go (running, then done), then the child's answer.

use serde_json::json;
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn};

use super::Tui;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_call_shows_its_childs_tool_calls_live() {
    let p = Project::new("tui-subagent");
    let llm = ScriptedLlm::start(vec![
        Turn::tool(
            "t1",
            "task",
            json!({"description": "survey the tree", "prompt": "look around", "subagent_type": "general"}),
        ),
        // The child's turns: a slow command, then its answer.
        Turn::tool(
            "c1",
            "bash",
            json!({"command": "sleep 2 && echo child-out", "description": "slow child step"}),
        ),
        Turn::text("the child is done"),
        Turn::text("parent wraps up"),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    let mut tui = Tui::start(&p, &["--yes"], 40, 100);
    tui.wait_for(" build ").await;
    tui.keys("delegate\r");
    // The child's command, running, inside the parent's task block.
    let screen = tui.wait_for("│ … bash").await;
    assert!(screen.contains("task survey the tree"), "{screen}");
    let task_row = screen
        .lines()
        .position(|l| l.contains("task survey the tree"))
        .unwrap();
    let child_row = screen.lines().position(|l| l.contains("│ … bash")).unwrap();
    assert!(child_row > task_row, "{screen}");
    // Its completion shows too (or the task has already finished with it).
    let screen = tui
        .wait_until("the child's step done", |s| {
            s.contains("│ ✓ bash") || s.contains("parent wraps up")
        })
        .await;
    assert!(!screen.contains("│ … bash"), "{screen}");
    let screen = tui.wait_for("parent wraps up").await;
    assert!(screen.contains("✓ task survey the tree"), "{screen}");
    assert!(screen.contains("the child is done"), "{screen}");
    tui.keys("\x04");
    assert!(tui.exit_status().await);
}
