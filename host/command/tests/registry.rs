//! `CommandRegistry::load` and `validate` end to end, with real project and
//! global directories.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is how a test fails"
)]

use std::fs;
use std::path::{Path, PathBuf};

use ward_command::{CommandRegistry, CommandSource, Warning};

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("create dirs");
    }
    fs::write(path, text).expect("write");
}

struct Dirs {
    _tmp: tempfile::TempDir,
    project: PathBuf,
    global: PathBuf,
}

impl Dirs {
    fn new() -> Dirs {
        let tmp = tempfile::tempdir().expect("tempdir");
        let project = tmp.path().join("project");
        let global = tmp.path().join("global");
        fs::create_dir_all(&project).expect("project");
        fs::create_dir_all(&global).expect("global");
        Dirs {
            _tmp: tmp,
            project,
            global,
        }
    }

    fn project_file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.project.join(".ward/commands").join(name);
        write(&path, text);
        path
    }

    fn global_file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.global.join("commands").join(name);
        write(&path, text);
        path
    }

    fn load(&self) -> (CommandRegistry, Vec<Warning>) {
        CommandRegistry::load(&self.project, Some(&self.global))
    }
}

fn names(registry: &CommandRegistry) -> Vec<&str> {
    registry.list().iter().map(|c| c.name.as_str()).collect()
}

#[test]
fn builtins_only() {
    let dirs = Dirs::new();
    let (registry, warnings) = dirs.load();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(names(&registry), ["init", "review"]);
    let init = registry.get("init").expect("init");
    assert_eq!(init.source, CommandSource::Builtin);
    assert!(init.template.contains("AGENTS.md"));
    assert!(!init.subtask);
    let review = registry.get("review").expect("review");
    assert!(review.template.contains("$ARGUMENTS"));
    assert!(review.template.contains("git diff"));
    assert!(review.subtask);
    assert!(registry.get("nope").is_none());
    // No global directory at all is fine too.
    let (registry, warnings) = CommandRegistry::load(&dirs.project, None);
    assert!(warnings.is_empty());
    assert_eq!(names(&registry), ["init", "review"]);
}

#[test]
fn nested_names_and_front_matter() {
    let dirs = Dirs::new();
    let commit = dirs.project_file(
        "git/commit.md",
        "---\ndescription: Commit staged changes\nagent: build\nmodel: local/qwen\nsubtask: true\n---\n\nCommit: $ARGUMENTS\n\n",
    );
    dirs.project_file("deep/er/x.md", "Body only.\n");
    dirs.project_file("notes.txt", "not a command");
    let (registry, warnings) = dirs.load();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        names(&registry),
        ["deep/er/x", "git/commit", "init", "review"]
    );
    let command = registry.get("git/commit").expect("git/commit");
    assert_eq!(
        command.description.as_deref(),
        Some("Commit staged changes")
    );
    assert_eq!(command.agent.as_deref(), Some("build"));
    assert_eq!(command.model.as_deref(), Some("local/qwen"));
    assert!(command.subtask);
    assert_eq!(command.template, "Commit: $ARGUMENTS");
    assert_eq!(command.source, CommandSource::File { path: commit });
    let plain = registry.get("deep/er/x").expect("deep/er/x");
    assert_eq!(plain.description, None);
    assert!(!plain.subtask);
    assert_eq!(plain.template, "Body only.");
}

#[test]
fn project_wins_over_global_and_files_override_builtins() {
    let dirs = Dirs::new();
    dirs.global_file("shared.md", "---\ndescription: global\n---\nglobal body\n");
    dirs.global_file("only-global.md", "from global\n");
    let project_shared = dirs.project_file(
        "shared.md",
        "---\ndescription: project\n---\nproject body\n",
    );
    let review = dirs.global_file("review.md", "My own review of $1.\n");
    let (registry, warnings) = dirs.load();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        names(&registry),
        ["init", "only-global", "review", "shared"]
    );
    let shared = registry.get("shared").expect("shared");
    assert_eq!(shared.description.as_deref(), Some("project"));
    assert_eq!(shared.template, "project body");
    assert_eq!(
        shared.source,
        CommandSource::File {
            path: project_shared
        }
    );
    let review_command = registry.get("review").expect("review");
    assert_eq!(review_command.template, "My own review of $1.");
    assert_eq!(review_command.source, CommandSource::File { path: review });
    assert!(
        !review_command.subtask,
        "an override replaces the built-in as a whole"
    );
    assert_eq!(
        registry.get("init").expect("init").source,
        CommandSource::Builtin
    );
}

#[test]
fn bad_files_are_skipped_with_located_warnings() {
    let dirs = Dirs::new();
    let bad_type = dirs.project_file(
        "bad-type.md",
        "---\ndescription: ok\nsubtask: maybe\n---\nbody\n",
    );
    let unknown = dirs.project_file(
        "unknown.md",
        "---\ndescription: ok\n\ncolour: red\n---\nbody\n",
    );
    let bad_model = dirs.project_file("bad-model.md", "---\nmodel: qwen\n---\nbody\n");
    let empty = dirs.project_file("empty.md", "---\ndescription: nothing\n---\n\n");
    let spaced = dirs.project_file("has space.md", "body\n");
    dirs.project_file("good.md", "fine\n");
    let (registry, warnings) = dirs.load();
    assert_eq!(names(&registry), ["good", "init", "review"]);
    assert_eq!(warnings.len(), 5, "{warnings:#?}");
    let find = |path: &Path| -> &Warning {
        warnings
            .iter()
            .find(|w| w.file.as_deref() == Some(path))
            .unwrap_or_else(|| panic!("no warning for {}: {warnings:#?}", path.display()))
    };

    let warning = find(&bad_type);
    assert_eq!(warning.line, Some(3), "{warning}");
    assert!(warning.column.is_some());
    assert!(
        warning
            .to_string()
            .starts_with(&format!("{}:3:", bad_type.display()))
    );
    assert!(warning.message.contains("skipped"), "{warning}");

    let warning = find(&unknown);
    assert_eq!(warning.line, Some(4), "{warning}");
    assert!(warning.message.contains("colour"), "{warning}");

    let warning = find(&bad_model);
    assert_eq!(warning.line, Some(2), "{warning}");
    assert!(warning.message.contains("provider/model"), "{warning}");

    assert!(find(&empty).message.contains("no template"));
    assert!(find(&spaced).message.contains("not a valid command name"));
}

#[test]
fn bad_project_file_does_not_hide_the_global_one_silently() {
    // The project's broken file is skipped, so the global definition stays.
    let dirs = Dirs::new();
    dirs.global_file("x.md", "global\n");
    dirs.project_file("x.md", "---\nsubtask: [\n---\nproject\n");
    let (registry, warnings) = dirs.load();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(registry.get("x").expect("x").template, "global");
}

#[test]
fn validate_reports_unknown_agents_with_the_file() {
    let dirs = Dirs::new();
    let ghost = dirs.project_file(
        "ghost.md",
        "---\ndescription: uses a missing agent\nagent: ghost\n---\nbody\n",
    );
    dirs.project_file("fine.md", "---\nagent: plan\n---\nbody\n");
    dirs.project_file("none.md", "body\n");
    let (registry, warnings) = dirs.load();
    assert!(warnings.is_empty(), "{warnings:?}");
    let problems = registry.validate(&["build", "plan", "general"]);
    assert_eq!(problems.len(), 1, "{problems:?}");
    let warning = &problems[0];
    assert_eq!(warning.file.as_deref(), Some(ghost.as_path()));
    assert_eq!(warning.line, Some(3));
    assert!(warning.message.contains("`ghost`"), "{warning}");
    assert!(
        warning
            .to_string()
            .starts_with(&format!("{}:3:1: ", ghost.display())),
        "{warning}"
    );
    assert!(registry.get("ghost").is_some(), "the command is kept");
}

#[test]
fn resolve_finds_registered_commands() {
    let dirs = Dirs::new();
    dirs.project_file("usr/bin.md", "odd but allowed\n");
    let (registry, _) = dirs.load();
    let (command, invocation) = registry.resolve("/review  HEAD~2 ").expect("review");
    assert_eq!(command.name, "review");
    assert_eq!(invocation.arguments, "HEAD~2");
    assert!(registry.resolve("/unknown x").is_none());
    assert!(registry.resolve("review").is_none());
    assert!(ward_command::parse_invocation("/usr/bin").is_none());
    assert_eq!(
        registry.resolve("/usr/bin").expect("exists").0.name,
        "usr/bin"
    );
}

/// An untrusted project adds commands but replaces neither a built-in (`/init`) nor
/// the user's own; trusted, its files override as before.
#[test]
fn an_untrusted_project_cannot_shadow_builtin_or_user_commands() {
    let dirs = Dirs::new();
    dirs.project_file("init.md", "---\ndescription: not init\n---\nexfiltrate\n");
    dirs.global_file("mine.md", "---\ndescription: the user's\n---\nmine\n");
    dirs.project_file("mine.md", "---\ndescription: replaced\n---\ntheirs\n");
    dirs.project_file("extra.md", "---\ndescription: new\n---\nextra $ARGUMENTS\n");
    let data = dirs.project.join("../data").display().to_string();
    let env = move |name: &str| (name == "WARD_DATA_DIR").then(|| data.clone());
    let config = ward_config::load_with_env(&dirs.project, &env).expect("config");
    assert!(config.trust.restricted());
    let (registry, warnings) =
        CommandRegistry::load_with_config(&dirs.project, Some(&dirs.global), Some(&config));
    let init = registry.get("init").expect("init");
    assert!(
        matches!(init.source, CommandSource::Builtin),
        "{:?}",
        init.source
    );
    assert_eq!(
        registry.get("mine").and_then(|c| c.description.as_deref()),
        Some("the user's")
    );
    assert!(registry.get("extra").is_some());
    let text: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert!(
        text.iter().any(|w| w.contains("`/init` would replace")),
        "{text:?}"
    );

    let (registry, _) = dirs.load();
    assert_eq!(
        registry.get("init").and_then(|c| c.description.as_deref()),
        Some("not init")
    );
}
