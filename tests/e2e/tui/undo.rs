//! `/undo` and `/redo` in the terminal UI: the file an edit changed comes back byte
//! for byte, the screen says what was undone and stops showing it, and `/redo` puts
//! both back.

use serde_json::json;
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn};

use super::Tui;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undo_restores_the_edited_file_and_redo_puts_it_back() {
    let p = Project::new("tui-undo");
    // Bytes an editor would keep: no final newline, a tab, a CRLF.
    let original = "alpha\tone\r\nbeta\ngamma";
    p.write("notes.txt", original);
    let llm = ScriptedLlm::start(vec![
        Turn::tool("call_r", "read", json!({"filePath": "notes.txt"})),
        Turn::tool(
            "call_e",
            "edit",
            json!({"filePath": "notes.txt", "oldString": "beta", "newString": "BETA"}),
        ),
        Turn::text("edited the notes"),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    let mut tui = Tui::start(&p, &["--yes"], 40, 100);
    tui.wait_for(" build ").await;
    tui.keys("shout beta\r");
    tui.wait_for("edited the notes").await;
    let edited = p.read("notes.txt");
    assert_eq!(edited, "alpha\tone\r\nBETA\ngamma");

    tui.keys("/undo\r");
    let screen = tui.wait_for("undone:").await;
    assert_eq!(
        std::fs::read(p.path("notes.txt")).unwrap(),
        original.as_bytes()
    );
    // What was undone: the prompt and the file, and the turn no longer shown.
    assert!(
        screen.contains("undone: \"shout beta\" — 1 file(s) restored"),
        "{screen}"
    );
    assert!(screen.contains("  notes.txt"), "{screen}");
    assert!(!screen.contains("> shout beta"), "{screen}");
    assert!(!screen.contains("edited the notes"), "{screen}");

    tui.keys("/redo\r");
    let screen = tui.wait_for("redone").await;
    assert_eq!(p.read("notes.txt"), edited);
    assert!(screen.contains("> shout beta"), "{screen}");
    assert!(screen.contains("edited the notes"), "{screen}");

    // Undo twice: the second has nothing left before the first prompt.
    tui.keys("/undo\r");
    tui.wait_until("undone again", |s| !s.contains("> shout beta"))
        .await;
    tui.keys("/undo\r");
    tui.wait_for("nothing to undo").await;
    assert_eq!(
        std::fs::read(p.path("notes.txt")).unwrap(),
        original.as_bytes()
    );
    tui.keys("\x04");
    assert!(tui.exit_status().await);
}

/// The line mode's `/undo` and `/redo` go through the same engine calls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_line_mode_undoes_and_redoes_through_the_same_calls() {
    let p = Project::new("tui-undo-line");
    p.write("notes.txt", "beta\n");
    let llm = ScriptedLlm::start(vec![
        Turn::tool("call_r", "read", json!({"filePath": "notes.txt"})),
        Turn::tool(
            "call_e",
            "edit",
            json!({"filePath": "notes.txt", "oldString": "beta", "newString": "BETA"}),
        ),
        Turn::text("edited the notes"),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    let mut tui = Tui::start(&p, &["--yes", "--no-tui"], 40, 100);
    tui.wait_for("/exit to quit").await;
    tui.keys("shout beta\r");
    tui.wait_for("edited the notes").await;
    assert_eq!(p.read("notes.txt"), "BETA\n");
    tui.keys("/undo\r");
    tui.wait_for("undone: 1 file(s) restored").await;
    assert_eq!(p.read("notes.txt"), "beta\n");
    tui.keys("/redo\r");
    tui.wait_for("redone").await;
    assert_eq!(p.read("notes.txt"), "BETA\n");
    tui.keys("/redo\r");
    tui.wait_for("nothing to redo").await;
    tui.keys("/exit\r");
    assert!(tui.exit_status().await);
}
