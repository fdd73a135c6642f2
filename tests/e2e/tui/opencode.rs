//! OpenCode's own terminal UI (1.18.33, `opencode attach URL -p TOKEN`, installed by
//! `scripts/setup.sh` in `tests/clients/opencode-cli`) attached to `ward serve`, on a
//! real pseudo-terminal: it logs in with the token as its password, shows the project
//! and Ward's model, and a prompt typed in it is answered on its screen; its own
//! permission and question dialogs answer Ward's questions; it draws the todo list,
//! switches agent and model, and interrupts a turn.

use portable_pty::CommandBuilder;
use ward_tests::llm::Turn;

use super::Tui;
use crate::serve::{Served, project_asking_for_reads};

/// `opencode attach` (OpenCode's terminal UI) on a pseudo-terminal, logged in to
/// `served` with its token as the password, its own state in the project's home.
fn attach(p: &ward_tests::Project, served: &Served) -> Tui {
    let opencode = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("clients/opencode-cli/node_modules/.bin/opencode");
    assert!(
        opencode.exists(),
        "OpenCode's command line is not installed: run scripts/setup.sh"
    );
    let mut cmd = CommandBuilder::new(opencode);
    cmd.args(["attach", &served.url, "-p", &served.token]);
    cmd.env("XDG_DATA_HOME", p.home.join(".local/share"));
    cmd.env("XDG_CACHE_HOME", p.home.join(".cache"));
    cmd.env("XDG_STATE_HOME", p.home.join(".local/state"));
    cmd.env_remove("OPENCODE_SERVER_PASSWORD");
    Tui::spawn(p, cmd, 30, 110)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opencodes_terminal_ui_attached_to_ward_serve_answers_a_prompt() {
    let (p, llm) = project_asking_for_reads(
        "tui-opencode-attach",
        vec![Turn::text("Hello from the scripted model.")],
    )
    .await;
    let served = Served::start(&p, &[], &[]).await;
    let mut tui = attach(&p, &served);
    // Logged in: its prompt, with the model Ward's configuration chose.
    tui.wait_for("Ask anything").await;
    tui.wait_for("scripted").await;
    tui.keys("say hello");
    tui.wait_for("say hello").await;
    tui.keys("\r");
    tui.wait_for("Hello from the scripted model.").await;
    assert_eq!(llm.requests().len(), 1);
    let body = llm.requests()[0].body.to_string();
    assert!(body.contains("say hello"), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opencodes_terminal_ui_answers_a_permission_and_a_question() {
    let (p, llm) = project_asking_for_reads(
        "tui-opencode-asks",
        vec![
            Turn::tool("call_1", "read", serde_json::json!({"filePath": "a.txt"})),
            Turn::tool(
                "call_2",
                "question",
                serde_json::json!({"questions": [{
                    "question": "Which colour should the button be?",
                    "header": "Colour",
                    "options": [
                        {"label": "Crimson", "description": "a deep red"},
                        {"label": "Teal", "description": "a blue green"}
                    ]
                }]}),
            ),
            Turn::text("The file says alpha; the button will be the colour you chose."),
        ],
    )
    .await;
    let served = Served::start(&p, &[], &[]).await;
    let mut tui = attach(&p, &served);
    tui.wait_for("Ask anything").await;
    tui.keys("read a.txt then ask me");
    tui.wait_for("read a.txt then ask me").await;
    tui.keys("\r");
    // OpenCode's own permission dialog, showing the call's input: it finds the call by
    // the message and call ids the question carries.
    let screen = tui.wait_for("Permission required").await;
    assert!(screen.contains("Read a.txt"), "{screen}");
    assert!(screen.contains("Path: a.txt"), "{screen}");
    assert!(screen.contains("Allow once"), "{screen}");
    assert_eq!(llm.requests().len(), 1, "nothing goes on before the answer");
    // Enter: "Allow once".
    tui.keys("\r");
    // The model's question, in OpenCode's question dialog.
    let screen = tui.wait_for("Which colour should the button be?").await;
    assert!(screen.contains("Crimson"), "{screen}");
    assert!(screen.contains("Teal"), "{screen}");
    let read = llm.requests()[1].body.to_string();
    assert!(read.contains("alpha"), "the read ran once allowed: {read}");
    // Down to the second choice, and submit it.
    tui.keys("\x1b[B");
    tui.wait_until("the second choice picked", |s| {
        s.lines().any(|l| l.contains("2. Teal"))
    })
    .await;
    tui.keys("\r");
    let screen = tui
        .wait_for("the button will be the colour you chose")
        .await;
    assert!(screen.contains("Teal"), "the answer is shown: {screen}");
    assert_eq!(llm.requests().len(), 3);
    // The question's result, as the model reads it: the choice picked, alone.
    let body = &llm.requests()[2].body;
    let answer = body["messages"]
        .as_array()
        .and_then(|m| m.iter().rfind(|m| m["tool_call_id"] == "call_2"))
        .map(|m| m["content"].to_string())
        .unwrap_or_default();
    assert!(
        answer.contains("Teal"),
        "the model reads the answer: {answer}"
    );
    assert!(!answer.contains("Crimson"), "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opencodes_terminal_ui_shows_todos_switches_agent_and_aborts() {
    let (p, llm) = project_asking_for_reads(
        "tui-opencode-todo",
        vec![
            Turn::tool(
                "call_1",
                "todowrite",
                serde_json::json!({"todos": [
                    {"content": "Sketch the layout", "status": "in_progress", "priority": "high"},
                    {"content": "Write the tests", "status": "pending", "priority": "medium"}
                ]}),
            ),
            Turn::text("Planned."),
            Turn::Fault(ward_tests::llm::Fault::Hang),
            Turn::text("Answered by the second model."),
        ],
    )
    .await;
    let toml = p.read("ward.toml");
    p.write(
        "ward.toml",
        &format!("{toml}[provider.scripted.models.second-model]\noutput = 512\n"),
    );
    let served = Served::start(&p, &[], &[]).await;
    let mut tui = attach(&p, &served);
    tui.wait_for("Ask anything").await;
    tui.keys("plan it");
    tui.wait_for("plan it").await;
    tui.keys("\r");
    // The todo list, drawn by OpenCode from the call Ward reports.
    let screen = tui.wait_for("Planned.").await;
    assert!(screen.contains("[•] Sketch the layout"), "{screen}");
    assert!(screen.contains("[ ] Write the tests"), "{screen}");
    // Tab: the next of Ward's primary agents, and the next prompt goes to it.
    tui.keys("\t");
    tui.wait_for("Plan · test-model").await;
    tui.keys("go on");
    tui.wait_for("go on").await;
    tui.keys("\r");
    tui.wait_until("the model called", |_| llm.requests().len() == 3)
        .await;
    // Esc twice: the hung call is interrupted.
    tui.keys("\x1b");
    tui.wait_for("again to interrupt").await;
    tui.keys("\x1b");
    tui.wait_for("interrupted").await;
    let (_, sessions) = served.call("GET", "/session", None).await;
    let sessions: serde_json::Value = serde_json::from_str(&sessions).unwrap();
    let id = sessions[0]["id"].as_str().unwrap().to_string();
    let (_, messages) = served
        .call("GET", &format!("/session/{id}/message"), None)
        .await;
    let messages: serde_json::Value = serde_json::from_str(&messages).unwrap();
    let messages = messages.as_array().unwrap();
    let last_user = messages
        .iter()
        .rfind(|m| m["info"]["role"] == "user")
        .unwrap();
    assert_eq!(last_user["info"]["agent"], "plan", "{last_user}");
    let last = messages.last().unwrap();
    assert_eq!(last["info"]["role"], "assistant", "{last}");
    assert_eq!(last["info"]["agent"], "plan", "{last}");
    assert_eq!(
        last["info"]["error"]["name"], "MessageAbortedError",
        "{last}"
    );
    let (_, status) = served.call("GET", "/session/status", None).await;
    assert!(!status.contains("busy"), "the loop stopped: {status}");
    // Ward's models, in OpenCode's model picker.
    tui.keys("/models");
    tui.wait_for("/models").await;
    tui.keys("\r");
    let screen = tui.wait_for("Select model").await;
    assert!(screen.contains("test-model"), "{screen}");
    tui.keys("second");
    tui.wait_for("second-model").await;
    // The list is filtered as typed; its selection follows a frame later.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    tui.keys("\r");
    tui.wait_for("Plan · second-model").await;
    tui.keys("once more");
    tui.wait_for("once more").await;
    tui.keys("\r");
    tui.wait_for("Answered by the second model.").await;
    assert_eq!(llm.requests()[3].body["model"], "second-model");
}
