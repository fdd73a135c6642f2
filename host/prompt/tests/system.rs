//! `SystemPrompt`: block order, cache flags, layers and caching.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is how a test fails"
)]

mod common;

use std::fs;
use std::time::{Duration, Instant};

use common::{git, have_git, inputs, write};
use ward_prompt::{Family, MAX_ENTRIES, STATUS_LINES, SystemPrompt};

#[test]
fn blocks_order_and_cache_flags() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join(".git")).unwrap();
    let prompt = SystemPrompt::new(inputs(dir.path()));

    let blocks = prompt.blocks(None);
    assert_eq!(blocks.len(), 2);
    assert!(blocks[0].cache);
    assert!(!blocks[1].cache);
    assert!(
        blocks[0]
            .text
            .starts_with(Family::Anthropic.base_prompt().trim_end())
    );
    assert!(blocks[1].text.starts_with("<env>\nWorking directory: "));
    assert!(blocks[1].text.contains("Is a git repository: yes"));
    assert!(blocks[1].text.contains("Today's date: "));

    let blocks = prompt.blocks(Some("Answer in French."));
    assert_eq!(blocks.len(), 3);
    assert_eq!(blocks[2].text, "Answer in French.");
    assert!(!blocks[2].cache);
    // A blank user system adds nothing.
    assert_eq!(prompt.blocks(Some("  \n")).len(), 2);
}

#[test]
fn base_prompt_per_family_and_agent_prompt_replaces_it() {
    let dir = tempfile::tempdir().unwrap();
    let stable = |provider: &str, model: &str, agent: Option<&str>| {
        let mut inputs = inputs(dir.path());
        inputs.provider = provider.to_owned();
        inputs.model = model.to_owned();
        inputs.agent_prompt = agent.map(str::to_owned);
        SystemPrompt::new(inputs).blocks(None)[0].text.clone()
    };
    let claude = stable("anthropic", "claude-opus-4", None);
    let gpt = stable("openai", "gpt-5", None);
    let gemini = stable("google", "gemini-2.5-pro", None);
    let qwen = stable("local", "qwen3-coder", None);
    assert_eq!(claude, Family::Anthropic.base_prompt().trim_end());
    assert_eq!(gpt, Family::OpenAi.base_prompt().trim_end());
    assert_eq!(gemini, Family::Gemini.base_prompt().trim_end());
    assert_eq!(qwen, Family::Other.base_prompt().trim_end());
    assert_ne!(claude, gpt);
    assert_ne!(gpt, qwen);

    let agent = stable("openai", "gpt-5", Some("You plan; you never edit.\n"));
    assert_eq!(agent, "You plan; you never edit.");
}

#[test]
fn skills_and_instructions_go_in_the_stable_block() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join(".git")).unwrap();
    write(dir.path(), "AGENTS.md", "Run `make check`.");
    let mut inputs = inputs(dir.path());
    inputs.skills = vec![("pdf".to_owned(), "Fill PDF forms".to_owned())];
    let prompt = SystemPrompt::new(inputs);
    let blocks = prompt.blocks(None);
    let stable = &blocks[0].text;
    let agents = stable
        .find(&format!(
            "Instructions from: {}\nRun `make check`.",
            dir.path().join("AGENTS.md").display()
        ))
        .unwrap();
    let skills = stable.find("<available_skills>\n").unwrap();
    assert!(agents < skills);
    assert!(stable.contains("- pdf: Fill PDF forms\n</available_skills>"));
    assert!(!blocks[1].text.contains("available_skills"));
    assert_eq!(prompt.loaded_instructions(), [dir.path().join("AGENTS.md")]);
}

#[test]
fn tree_is_bounded_and_respects_gitignore() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".gitignore", "target/\nsecret.txt\n");
    write(root, "target/debug/app", "");
    write(root, "secret.txt", "");
    write(root, ".cache/x", "");
    for d in 0..20 {
        for f in 0..21 {
            write(root, &format!("crate{d:02}/src/m{f:02}.rs"), "");
        }
    }
    let env = SystemPrompt::new(inputs(root)).blocks(None)[1].text.clone();
    let files = &env[env.find("<files>\n").unwrap() + 8..env.find("\n</files>").unwrap()];
    assert!(!files.contains("target"));
    assert!(!files.contains("secret.txt"));
    assert!(!files.contains(".cache"));
    let shown = files
        .lines()
        .filter(|l| !l.trim_start().starts_with('…'))
        .count();
    assert_eq!(shown, MAX_ENTRIES);
    assert!(files.starts_with("crate00/\n  src/\n    m00.rs\n"));
    assert!(files.ends_with("\ncrate19/\n  src/"), "{files}");
    assert!(files.contains("\n    … "));
}

#[test]
fn git_status_is_bounded() {
    if !have_git() {
        eprintln!("git not on PATH; skipping");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    for i in 0..50 {
        write(dir.path(), &format!("f{i:02}.txt"), "x");
    }
    let env = SystemPrompt::new(inputs(dir.path())).blocks(None)[1]
        .text
        .clone();
    let start = env.find("<git_status>\n").unwrap() + 13;
    let status = &env[start..env.find("\n</git_status>").unwrap()];
    let lines: Vec<&str> = status.lines().collect();
    // The branch line and 50 untracked files: 40 kept, 11 counted.
    assert_eq!(lines.len(), STATUS_LINES + 1, "{status}");
    assert!(lines[0].starts_with("## "), "{status}");
    assert_eq!(lines[1], "?? f00.txt");
    assert_eq!(lines[STATUS_LINES], "… 11 more");
}

#[test]
fn no_git_status_outside_a_repository() {
    let dir = tempfile::tempdir().unwrap();
    let env = SystemPrompt::new(inputs(dir.path())).blocks(None)[1]
        .text
        .clone();
    assert!(env.contains("Is a git repository: no"));
    assert!(!env.contains("<git_status>"));
}

#[test]
fn cached_parts_refresh_after_the_interval_or_on_demand() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join(".git")).unwrap();
    let mut slow = inputs(dir.path());
    slow.refresh_interval = Duration::from_secs(3600);
    let slow = SystemPrompt::new(slow);
    let mut fast = inputs(dir.path());
    fast.refresh_interval = Duration::ZERO;
    let fast = SystemPrompt::new(fast);
    let before = slow.blocks(None);
    fast.blocks(None);

    write(dir.path(), "AGENTS.md", "New rule.");
    assert_eq!(slow.blocks(None), before);
    assert!(fast.blocks(None)[0].text.contains("New rule."));
    slow.refresh();
    assert!(slow.blocks(None)[0].text.contains("New rule."));
    assert!(slow.blocks(None)[1].text.contains("AGENTS.md"));
}

#[test]
fn warm_blocks_are_cheap() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..300 {
        write(dir.path(), &format!("d{}/f{i}.rs", i % 10), "");
    }
    write(dir.path(), "AGENTS.md", &"Some rule.\n".repeat(2000));
    let mut inputs = inputs(dir.path());
    inputs.refresh_interval = Duration::from_secs(3600);
    let prompt = SystemPrompt::new(inputs);
    let cold = Instant::now();
    prompt.blocks(None);
    let cold = cold.elapsed();
    const N: u32 = 1000;
    let warm = Instant::now();
    for _ in 0..N {
        std::hint::black_box(prompt.blocks(Some("user system")));
    }
    let warm = warm.elapsed() / N;
    eprintln!("temp project: cold {cold:?}, warm blocks() {warm:?}");
    assert!(
        warm < Duration::from_micros(500),
        "warm blocks() took {warm:?}"
    );
}

/// Timings on this repository; run with `--ignored --nocapture`.
#[test]
#[ignore]
fn measure_on_workspace() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().unwrap();
    let mut inputs = ward_prompt::PromptInputs::new(&root, "anthropic", "claude-sonnet-4-5");
    inputs.refresh_interval = Duration::from_secs(3600);
    let prompt = SystemPrompt::new(inputs);
    let cold = Instant::now();
    let blocks = prompt.blocks(None);
    let cold = cold.elapsed();
    const N: u32 = 10_000;
    let warm = Instant::now();
    for _ in 0..N {
        std::hint::black_box(prompt.blocks(None));
    }
    let warm = warm.elapsed() / N;
    let refresh = Instant::now();
    prompt.refresh();
    let refresh = refresh.elapsed();
    eprintln!(
        "{}: cold {cold:?}, refresh {refresh:?}, warm blocks() {warm:?}; stable {} bytes, env {} bytes",
        root.display(),
        blocks[0].text.len(),
        blocks[1].text.len()
    );
    eprintln!("{}", blocks[1].text);
}

#[test]
fn system_prompt_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<SystemPrompt>();
    check::<ward_prompt::NestedInstructions>();
}
