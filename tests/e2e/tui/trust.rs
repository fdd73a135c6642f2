//! Opening a project nobody decided about on a terminal asks once, with the list of
//! what its files ask for: kept restricted, nothing it asks for runs and the question
//! does not come back; once what it asks for changes, it is asked again, and trusted,
//! the same files count.

use std::time::{Duration, Instant};

use ward_tests::Project;
use ward_tests::llm::ScriptedLlm;

use super::Tui;

/// The user's own model, in their configuration (which needs no trust).
fn user_model(p: &Project, llm: &ScriptedLlm) {
    let dir = p.home.join(".config/ward");
    std::fs::create_dir_all(&dir).unwrap();
    let config = format!(
        "model = \"scripted/test-model\"\n[provider.scripted]\nkind = \"openai-compatible\"\n\
         base_url = \"{}/v1\"\napi_key = \"k\"\n[provider.scripted.models.test-model]\n\
         output = 1024\n",
        llm.base_url
    );
    std::fs::write(dir.join("ward.toml"), config).unwrap();
}

fn server(name: &str) -> String {
    format!("[mcp.{name}]\ntype = \"local\"\ncommand = [\"sh\", \"-c\", \"touch ran-{name}\"]\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_project_is_asked_about_once_on_a_terminal() {
    let p = Project::stranger("tui-trust");
    let llm = ScriptedLlm::start(Vec::new()).await;
    user_model(&p, &llm);
    p.write("ward.toml", &server("first"));

    let mut tui = Tui::start(&p, &["--no-tui"], 30, 120);
    let screen = tui.wait_for("Trust this project?").await;
    assert!(screen.contains("starts MCP server `first`"), "{screen}");
    tui.keys("n\r");
    tui.wait_for("/exit to quit").await;
    tui.keys("/exit\r");
    assert!(tui.exit_status().await);
    assert!(
        !p.path("ran-first").exists(),
        "a restricted project's server ran"
    );

    // Decided: the next open does not ask.
    let mut tui = Tui::start(&p, &["--no-tui"], 30, 120);
    let screen = tui.wait_for("/exit to quit").await;
    assert!(!screen.contains("Trust this project?"), "{screen}");
    tui.keys("/exit\r");
    assert!(tui.exit_status().await);

    // What it asks for changes: asked again; trusted, its servers start.
    p.write(
        "ward.toml",
        &format!("{}{}", server("first"), server("second")),
    );
    let mut tui = Tui::start(&p, &["--no-tui"], 30, 120);
    let screen = tui.wait_for("Trust this project?").await;
    assert!(screen.contains("starts MCP server `second`"), "{screen}");
    tui.keys("y\r");
    tui.wait_for("/exit to quit").await;
    let started = Instant::now();
    while !p.path("ran-second").exists() && started.elapsed() < Duration::from_secs(20) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        p.path("ran-second").exists(),
        "a trusted project's server starts"
    );
    tui.keys("/exit\r");
    assert!(tui.exit_status().await);
}
