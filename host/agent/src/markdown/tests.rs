use std::fs;
use std::path::PathBuf;

use ward_permission::{Action, Rule};

use super::*;

fn write(dir: &Path, relative: &str, text: &str) -> PathBuf {
    let path = dir.join(relative);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("create dirs");
    }
    fs::write(&path, text).expect("write");
    path
}

fn load_dir(dir: &Path) -> (Vec<Definition>, Vec<Warning>) {
    let mut warnings = Vec::new();
    let defs = definitions(dir, &mut warnings);
    (defs, warnings)
}

#[test]
fn front_matter_body_and_nested_names() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = write(
        tmp.path(),
        "review/security.md",
        "---\ndescription: Reviews for security\nmode: subagent\nmodel: local/qwen\nsteps: 4\ntemperature: 0.1\npermission:\n  edit: deny\n  bash:\n    \"*\": ask\n    \"git diff *\": allow\n---\n\nYou review code for security problems.\n\n",
    );
    write(tmp.path(), "docs.md", "Just a prompt.\n");
    write(tmp.path(), "notes.txt", "not an agent");
    let (defs, warnings) = load_dir(tmp.path());
    assert!(warnings.is_empty(), "{warnings:?}");
    let names: Vec<_> = defs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["docs", "review/security"]);

    let review = &defs[1];
    assert_eq!(
        review.fields.description.as_deref(),
        Some("Reviews for security")
    );
    assert_eq!(review.fields.mode, Some(AgentMode::Subagent));
    assert_eq!(review.fields.model.as_deref(), Some("local/qwen"));
    assert_eq!(review.fields.steps, Some(4));
    assert_eq!(review.fields.temperature, Some(0.1));
    assert_eq!(
        review.fields.prompt.as_deref(),
        Some("You review code for security problems.")
    );
    assert_eq!(review.source, AgentSource::Markdown { path: path.clone() });
    let rules = review.rules.as_ref().expect("rules");
    assert_eq!(rules.source, path.display().to_string());
    assert_eq!(
        rules.rules,
        vec![
            Rule::new("edit", "*", Action::Deny),
            Rule::new("bash", "*", Action::Ask),
            Rule::new("bash", "git diff *", Action::Allow),
        ]
    );
    assert_eq!(defs[0].fields.prompt.as_deref(), Some("Just a prompt."));
    assert!(defs[0].rules.is_none());
}

#[test]
fn a_missing_directory_has_no_agents() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (defs, warnings) = load_dir(&tmp.path().join("nope"));
    assert!(defs.is_empty() && warnings.is_empty());
}

#[test]
fn an_empty_body_keeps_the_front_matter_prompt() {
    let tmp = tempfile::tempdir().expect("tempdir");
    write(
        tmp.path(),
        "a.md",
        "---\nprompt: From front matter\n---\n\n",
    );
    write(tmp.path(), "b.md", "---\nsteps: 2\n---\n");
    let (defs, warnings) = load_dir(tmp.path());
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(defs[0].fields.prompt.as_deref(), Some("From front matter"));
    assert_eq!(defs[1].fields.prompt, None);
    assert_eq!(defs[1].fields.steps, Some(2));
}

#[test]
fn malformed_files_are_located_warnings_and_the_rest_loads() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    write(dir, "good.md", "---\ndescription: fine\n---\nbody\n");
    let yaml = write(dir, "bad-yaml.md", "---\ndescription: [unclosed\n---\nx\n");
    let unknown = write(
        dir,
        "unknown.md",
        "---\ndescription: x\ncolour: red\n---\nx\n",
    );
    let action = write(
        dir,
        "action.md",
        "---\npermission:\n  edit: deny\n  bash:\n    \"git *\": yes\n---\nx\n",
    );
    let shape = write(dir, "shape.md", "---\npermission:\n  edit: 5\n---\nx\n");
    let model = write(dir, "model.md", "---\nmodel: qwen\n---\nx\n");
    let mode = write(dir, "mode.md", "---\nmode: sidekick\n---\nx\n");
    let (defs, warnings) = load_dir(dir);
    let names: Vec<_> = defs.iter().map(|d| d.name.as_str()).collect();
    // A model that names no provider is ignored (Claude Code writes `sonnet`).
    assert_eq!(names, ["good", "model"]);
    assert_eq!(defs[1].fields.model, None);
    assert_eq!(warnings.len(), 6, "{warnings:#?}");

    let find = |path: &Path| {
        warnings
            .iter()
            .find(|w| w.file.as_deref() == Some(path))
            .unwrap_or_else(|| panic!("no warning for {}", path.display()))
            .to_string()
    };
    let at = |path: &Path, line: usize| format!("{}:{line}:", path.display());

    let w = find(&yaml);
    assert!(w.starts_with(&at(&yaml, 2)), "{w}");
    assert!(w.ends_with("the agent file is skipped"), "{w}");
    let w = find(&unknown);
    assert!(
        w.starts_with(&at(&unknown, 3)) && w.contains("colour"),
        "{w}"
    );
    let w = find(&action);
    assert!(w.starts_with(&at(&action, 5)), "{w}");
    assert!(
        w.contains("expected allow, ask or deny, found `yes`"),
        "{w}"
    );
    let w = find(&shape);
    assert!(
        w.starts_with(&at(&shape, 3)) && w.contains("an action"),
        "{w}"
    );
    let w = find(&model);
    assert!(
        w.starts_with(&format!("{}: ", model.display())) && w.contains("provider/model"),
        "{w}"
    );
    let w = find(&mode);
    assert!(
        w.starts_with(&at(&mode, 2)) && w.contains("sidekick"),
        "{w}"
    );
}

#[test]
fn claude_code_agent_files_work_unchanged() {
    let tmp = tempfile::tempdir().expect("tempdir");
    write(
        tmp.path(),
        "reviewer.md",
        "---\nname: code-reviewer\ndescription: Reviews code\ntools: Read, Grep, Write\nmodel: inherit\n---\nYou review code.\n",
    );
    let (defs, warnings) = load_dir(tmp.path());
    assert!(warnings.is_empty(), "{warnings:?}");
    let def = &defs[0];
    assert_eq!(def.name, "code-reviewer", "the front matter's name wins");
    assert_eq!(def.fields.model, None, "inherit keeps the session's model");
    let rules = def.rules.clone().expect("an allow-list");
    let layers = [ward_permission::defaults(), rules];
    let action = |tool: &str| ward_permission::evaluate(tool, "*", &layers).action;
    assert_eq!(action("read"), Action::Allow);
    assert_eq!(action("grep"), Action::Allow);
    assert_eq!(action("edit"), Action::Allow, "Write is checked as edit");
    assert_eq!(action("bash"), Action::Deny, "not listed");
    assert_eq!(action("webfetch"), Action::Deny);
}
