//! OpenCode's own terminal UI (1.18.33, `opencode attach URL -p TOKEN`, installed by
//! `scripts/setup.sh` in `tests/clients/opencode-cli`) attached to `ward serve`, on a
//! real pseudo-terminal: it logs in with the token as its password, shows the project
//! and Ward's model, and a prompt typed in it is answered on its screen.

use portable_pty::CommandBuilder;
use ward_tests::llm::Turn;

use super::Tui;
use crate::serve::{Served, project_asking_for_reads};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opencodes_terminal_ui_attached_to_ward_serve_answers_a_prompt() {
    let opencode = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("clients/opencode-cli/node_modules/.bin/opencode");
    assert!(
        opencode.exists(),
        "OpenCode's command line is not installed: run scripts/setup.sh"
    );
    let (p, llm) = project_asking_for_reads(
        "tui-opencode-attach",
        vec![Turn::text("Hello from the scripted model.")],
    )
    .await;
    let served = Served::start(&p, &[], &[]).await;
    let mut cmd = CommandBuilder::new(opencode);
    cmd.args(["attach", &served.url, "-p", &served.token]);
    cmd.env("XDG_DATA_HOME", p.home.join(".local/share"));
    cmd.env("XDG_CACHE_HOME", p.home.join(".cache"));
    cmd.env("XDG_STATE_HOME", p.home.join(".local/state"));
    cmd.env_remove("OPENCODE_SERVER_PASSWORD");
    let mut tui = Tui::spawn(&p, cmd, 30, 110);
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
