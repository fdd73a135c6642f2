//! Commands end to end: `/name args` in `ward run` expands the template — positional
//! arguments, shell output through the bash tool and its rules, `@file` attached —
//! and a command's agent is used; a command naming an unknown agent is a warning.

use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn, text_parts};

const COMPARE: &str = "---
description: Compare two things
---
Compare $1 with $2.
Status: !`echo STATUS-OUT`
Blocked: !`rm -rf precious`
See @notes.txt and ask @explore.
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_expands_arguments_shell_output_and_files() {
    let p = Project::new("commands-expand");
    p.write(".ward/commands/compare.md", COMPARE);
    p.write(
        ".ward/commands/sketch.md",
        "---\nagent: plan\n---\nSketch $ARGUMENTS.\n",
    );
    p.write(".ward/commands/odd.md", "---\nagent: nobody\n---\nHi.\n");
    p.write("notes.txt", "NOTES-CONTENT\n");
    std::fs::create_dir_all(p.path("precious")).expect("dir");
    let llm = ScriptedLlm::start(vec![Turn::text("Compared."), Turn::text("Sketched.")]).await;
    llm.configure(&p, "openai-compatible");
    let mut config = p.read("ward.toml");
    config.push_str("[permission]\nbash = { \"*\" = \"allow\", \"rm *\" = \"deny\" }\n");
    p.write("ward.toml", &config);

    let run = p
        .run_async(&["run", "/compare \"the old parser\" the new one"], "")
        .await;
    assert!(run.expect_ok().contains("Compared."));
    assert!(
        run.stderr().contains(".ward/commands/odd.md:2:") && run.stderr().contains("nobody"),
        "a command naming an unknown agent is a warning: {}",
        run.stderr()
    );
    assert!(
        p.path("precious").exists(),
        "the denied command did not run"
    );
    let texts = text_parts(&llm.requests()[0].body, "user");
    let typed = &texts[0];
    assert!(
        typed.starts_with("Compare the old parser with the new one.\nStatus: STATUS-OUT\n"),
        "{typed}"
    );
    assert!(
        typed.contains("Blocked: [command failed: `rm -rf precious`"),
        "{typed}"
    );
    assert!(
        typed.contains("See @notes.txt and ask @explore."),
        "{typed}"
    );
    assert_eq!(
        texts.len(),
        2,
        "the file is attached, @explore is not a file: {texts:?}"
    );
    assert!(texts[1].contains("NOTES-CONTENT"), "{}", texts[1]);

    let list = p.run(&["command", "list"], "").expect_ok();
    assert!(
        list.contains("/compare  [") && list.contains("Compare two things"),
        "{list}"
    );
    assert!(
        list.contains("/sketch (agent plan)") && list.contains("/init  [built-in]"),
        "{list}"
    );

    // A command's agent is used for the run.
    let run = p.run_async(&["run", "/sketch a cache"], "").await;
    assert!(run.expect_ok().contains("Sketched."));
    let texts = text_parts(&llm.requests()[1].body, "user").join("\n");
    assert!(texts.contains("Sketch a cache."), "{texts}");
    assert!(
        texts.contains("Plan mode is active"),
        "the plan agent ran it: {texts}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mentions_attach_files_and_ask_for_subagents() {
    let p = Project::new("commands-mentions");
    p.write("notes.txt", "NOTES-CONTENT\n");
    let llm = ScriptedLlm::start(vec![Turn::text("Noted.")]).await;
    llm.configure(&p, "openai-compatible");
    let run = p
        .run_async(
            &[
                "run",
                "read @notes.txt, then ask @explore about @missing.txt",
            ],
            "",
        )
        .await;
    assert!(run.expect_ok().contains("Noted."));
    let texts = text_parts(&llm.requests()[0].body, "user");
    assert_eq!(texts.len(), 3, "{texts:?}");
    assert_eq!(
        texts[0],
        "read @notes.txt, then ask @explore about @missing.txt"
    );
    assert!(texts[1].contains("NOTES-CONTENT"), "{}", texts[1]);
    assert!(texts[2].contains("subagent_type `explore`"), "{}", texts[2]);
}
