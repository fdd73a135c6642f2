//! Instruction files: walking up, the CLAUDE.md fallback, the global file and
//! configured paths and globs.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is how a test fails"
)]

mod common;

use std::fs;
use std::path::PathBuf;

use common::{inputs, write};
use ward_prompt::SystemPrompt;

#[test]
fn walks_up_to_the_git_root_outermost_first() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path();
    // Above the git root: never read.
    write(t, "AGENTS.md", "outside the repository");
    fs::create_dir_all(t.join("repo/.git")).unwrap();
    let top = write(t, "repo/AGENTS.md", "top rule");
    // Both names in one directory: AGENTS.md wins.
    let mid = write(t, "repo/mid/AGENTS.md", "mid rule");
    write(t, "repo/mid/CLAUDE.md", "mid claude rule");
    // Only CLAUDE.md: used as the fallback.
    let leaf = write(t, "repo/mid/leaf/CLAUDE.md", "leaf rule");
    // Below the project: left for NestedInstructions.
    write(t, "repo/mid/leaf/deeper/AGENTS.md", "deeper rule");

    let prompt = SystemPrompt::new(inputs(&t.join("repo/mid/leaf")));
    assert_eq!(prompt.loaded_instructions(), [top, mid, leaf]);
    let stable = prompt.blocks(None)[0].text.clone();
    let order: Vec<usize> = ["top rule", "mid rule", "leaf rule"]
        .iter()
        .map(|rule| stable.find(rule).unwrap())
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]));
    for absent in ["outside the repository", "mid claude rule", "deeper rule"] {
        assert!(!stable.contains(absent), "{absent}");
    }
}

#[test]
fn walk_stops_at_home_outside_git() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path();
    write(t, "AGENTS.md", "above home");
    let home_rule = write(t, "home/AGENTS.md", "home rule");
    let project_rule = write(t, "home/p/AGENTS.md", "project rule");
    let mut inputs = inputs(&t.join("home/p"));
    inputs.home = Some(t.join("home"));
    let prompt = SystemPrompt::new(inputs);
    assert_eq!(prompt.loaded_instructions(), [home_rule, project_rule]);
}

#[test]
fn global_file_comes_first() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path();
    fs::create_dir_all(t.join("p/.git")).unwrap();
    let global = write(t, "global/AGENTS.md", "global rule");
    let local = write(t, "p/AGENTS.md", "local rule");
    let mut inputs = inputs(&t.join("p"));
    inputs.global_dir = Some(t.join("global"));
    let prompt = SystemPrompt::new(inputs);
    assert_eq!(prompt.loaded_instructions(), [global.clone(), local]);
    let stable = prompt.blocks(None)[0].text.clone();
    assert!(stable.contains(&format!(
        "Instructions from: {}\nglobal rule",
        global.display()
    )));
    assert!(stable.find("global rule").unwrap() < stable.find("local rule").unwrap());

    // A global directory without AGENTS.md is skipped silently.
    let mut inputs = common::inputs(&t.join("p"));
    inputs.global_dir = Some(t.join("nowhere"));
    assert_eq!(SystemPrompt::new(inputs).loaded_instructions().len(), 1);
}

#[test]
fn configured_paths_and_globs() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path();
    let project = t.join("p [x]"); // glob characters in the project path
    fs::create_dir_all(project.join(".git")).unwrap();
    let b = write(&project, "docs/b.md", "doc b");
    let a = write(&project, "docs/a.md", "doc a");
    write(&project, "docs/skip.txt", "not markdown");
    let style = write(&project, "STYLE.md", "style rule");
    let abs = write(t, "elsewhere/rules.md", "absolute rule");
    let home = write(t, "home/.ward-rules.md", "home rule");

    let mut inputs = inputs(&project);
    inputs.home = Some(t.join("home"));
    inputs.instructions = vec![
        "docs/*.md".to_owned(),
        "STYLE.md".to_owned(),
        "missing.md".to_owned(),
        "nothing/*.md".to_owned(),
        abs.display().to_string(),
        "~/.ward-rules.md".to_owned(),
        // Already included: not repeated.
        "docs/a.md".to_owned(),
    ];
    let prompt = SystemPrompt::new(inputs);
    let loaded = prompt.loaded_instructions();
    let expected: Vec<PathBuf> = vec![a, b, style, abs, home];
    assert_eq!(loaded, expected);
    let stable = prompt.blocks(None)[0].text.clone();
    assert!(!stable.contains("not markdown"));
    assert_eq!(stable.matches("doc a").count(), 1);
}

#[test]
fn huge_files_are_capped() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join(".git")).unwrap();
    write(dir.path(), "AGENTS.md", &"x".repeat(200_000));
    let stable = SystemPrompt::new(inputs(dir.path())).blocks(None)[0]
        .text
        .clone();
    assert!(stable.len() < ward_prompt::FILE_CAP + 10_000);
    assert!(stable.contains("[truncated: the file is 200000 bytes"));
}
