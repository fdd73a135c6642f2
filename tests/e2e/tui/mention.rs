//! `@` completion in the input: the project's files (what `.gitignore` ignores
//! left out, even outside a git repository) and the subagents are offered, Tab
//! takes the first, and the completed mention attaches the file to the prompt.

use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn};

use super::Tui;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_completes_files_respecting_gitignore_and_agents() {
    let p = Project::new("tui-mention");
    p.write("src/alpha_module.rs", "pub fn alpha() -> u32 { 4242 }\n");
    p.write("src/beta.rs", "pub fn beta() {}\n");
    p.write("build/alpha_module.generated.rs", "ignored\n");
    p.write(".gitignore", "build/\n");
    let llm = ScriptedLlm::start(vec![Turn::text("read it")]).await;
    llm.configure(&p, "openai-compatible");
    let mut tui = Tui::start(&p, &[], 30, 100);
    tui.wait_for(" build ").await;
    tui.keys("explain @alpha");
    let screen = tui.wait_for("@src/alpha_module.rs").await;
    assert!(
        screen.contains("files and agents (Tab completes)"),
        "{screen}"
    );
    assert!(!screen.contains("generated"), "{screen}");
    // Agents are offered too.
    tui.keys("\x15ask @gen");
    let screen = tui.wait_for("@general").await;
    let row = screen.lines().find(|l| l.contains("@general")).unwrap();
    assert!(row.contains("@general  agent"), "{screen}");
    assert!(!screen.contains("generated"), "{screen}");
    // Tab takes the first file; Enter sends the prompt with the file attached.
    tui.keys("\x15explain @src/al\t");
    tui.wait_for("explain @src/alpha_module.rs ").await;
    tui.keys("please\r");
    tui.wait_for("read it").await;
    let sent = llm.requests()[0].body.to_string();
    assert!(sent.contains("4242"), "the file was not attached: {sent}");
    tui.keys("\x04");
    assert!(tui.exit_status().await);
}
