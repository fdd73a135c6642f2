//! `AgentRegistry::load` end to end, with real project and global directories.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is how a test fails"
)]

use std::fs;
use std::path::Path;

use ward_agent::{AgentMode, AgentRegistry, AgentSource, Warning};
use ward_config::Config;
use ward_permission::{Action, Ruleset, defaults, evaluate};

fn config(text: &str) -> Config {
    toml::from_str(text).expect("valid config")
}

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("create dirs");
    }
    fs::write(path, text).expect("write");
}

struct Dirs {
    _tmp: tempfile::TempDir,
    project: std::path::PathBuf,
    global: std::path::PathBuf,
}

fn dirs() -> Dirs {
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

fn load(config: &Config, dirs: &Dirs) -> (AgentRegistry, Vec<Warning>) {
    AgentRegistry::load(config, &dirs.project, Some(&dirs.global))
}

fn names<'a>(agents: impl Iterator<Item = &'a ward_agent::AgentInfo>) -> Vec<&'a str> {
    agents.map(|a| a.name.as_str()).collect()
}

#[test]
fn builtins_only() {
    let dirs = dirs();
    let (registry, warnings) = load(&Config::default(), &dirs);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        names(registry.list()),
        [
            "build",
            "compaction",
            "explore",
            "general",
            "plan",
            "summary",
            "title"
        ]
    );
    assert_eq!(names(registry.subagents()), ["explore", "general"]);
    assert_eq!(registry.default_agent().name, "build");
    assert_eq!(
        registry.get("build").map(|a| &a.source),
        Some(&AgentSource::Builtin)
    );
    assert!(registry.get("nope").is_none());
    // Without a global directory nothing changes.
    let (registry, _) = AgentRegistry::load(&Config::default(), &dirs.project, None);
    assert_eq!(registry.list().count(), 7);
}

#[test]
fn builtin_rules_evaluate_as_specified() {
    let dirs = dirs();
    let (registry, _) = load(&Config::default(), &dirs);
    let layers = |name: &str| {
        let agent = registry.get(name).expect("agent");
        vec![defaults(), agent.rules.clone()]
    };
    let plan = layers("plan");
    assert_eq!(evaluate("edit", "src/a.rs", &plan).action, Action::Deny);
    assert_eq!(
        evaluate("edit", ".ward/plans/x.md", &plan).action,
        Action::Allow
    );
    assert_eq!(evaluate("bash", "git status", &plan).action, Action::Allow);
    assert_eq!(evaluate("bash", "rm -rf x", &plan).action, Action::Ask);
    let explore = layers("explore");
    assert_eq!(evaluate("edit", "src/a.rs", &explore).action, Action::Deny);
    assert_eq!(evaluate("read", "src/a.rs", &explore).action, Action::Allow);
}

#[test]
fn config_overrides_defines_and_disables() {
    let dirs = dirs();
    let config = config(
        r#"
        [agent.plan]
        steps = 7
        [agent.docs]
        description = "Writes documentation"
        mode = "subagent"
        prompt = "You write docs."
        permission = { bash = "deny" }
        [agent.general]
        disable = true
        "#,
    );
    let (registry, warnings) = load(&config, &dirs);
    assert!(warnings.is_empty(), "{warnings:?}");

    let (builtins, _) = AgentRegistry::load(&Config::default(), &dirs.project, None);
    let original = builtins.get("plan").expect("plan");
    let plan = registry.get("plan").expect("plan");
    assert_eq!(plan.steps, Some(7));
    assert_eq!(plan.prompt, original.prompt);
    assert_eq!(plan.description, original.description);
    assert_eq!(plan.rules, original.rules);
    assert_eq!(plan.mode, AgentMode::Primary);
    assert!(plan.native && plan.configured_rules.is_empty());
    assert_eq!(plan.source, AgentSource::Config);

    let docs = registry.get("docs").expect("docs");
    assert_eq!(docs.mode, AgentMode::Subagent);
    assert_eq!(docs.prompt.as_deref(), Some("You write docs."));
    assert!(!docs.native && docs.rules.rules.is_empty());
    let layers = docs.layers(&Ruleset::default());
    assert_eq!(evaluate("bash", "ls", &layers).action, Action::Deny);
    assert_eq!(evaluate("edit", "a.md", &layers).action, Action::Allow);

    assert!(registry.get("general").is_none());
    assert_eq!(names(registry.subagents()), ["docs", "explore"]);
}

#[test]
fn configured_rules_come_after_the_permission_table() {
    let dirs = dirs();
    let config = config(
        r#"
        [permission]
        edit = "ask"
        [agent.build]
        permission = { edit = "deny" }
        "#,
    );
    let (registry, warnings) = load(&config, &dirs);
    assert!(warnings.is_empty(), "{warnings:?}");
    let permission = Ruleset::from_toml("ward.toml", &config.permission).expect("rules");
    let build = registry.get("build").expect("build");
    let layers = build.layers(&permission);
    assert_eq!(evaluate("edit", "a.rs", &layers).action, Action::Deny);
    // `[permission]` still overrides plan's built-in rules.
    let plan = registry.get("plan").expect("plan").layers(&permission);
    assert_eq!(evaluate("edit", "src/a.rs", &plan).action, Action::Ask);
}

#[test]
fn a_bad_config_permission_skips_that_entry_only() {
    let dirs = dirs();
    let config = config(
        r#"
        [agent.build]
        steps = 3
        permission = { edit = "maybe" }
        [agent.docs]
        mode = "subagent"
        "#,
    );
    let (registry, warnings) = load(&config, &dirs);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let message = warnings[0].to_string();
    assert!(
        message.starts_with("agent.build.permission.edit:"),
        "{message}"
    );
    assert!(message.contains("[agent.build]"), "{message}");
    let build = registry.get("build").expect("build is still the built-in");
    assert_eq!((build.steps, &build.source), (None, &AgentSource::Builtin));
    assert!(registry.get("docs").is_some());
}

#[test]
fn markdown_agents_with_nested_names() {
    let dirs = dirs();
    let file = dirs.project.join(".ward/agents/review/security.md");
    write(
        &file,
        "---\ndescription: Security review\nmode: subagent\npermission:\n  edit: deny\n---\n\nYou look for vulnerabilities.\n",
    );
    let (registry, warnings) = load(&Config::default(), &dirs);
    assert!(warnings.is_empty(), "{warnings:?}");
    let agent = registry.get("review/security").expect("nested agent");
    assert_eq!(agent.description.as_deref(), Some("Security review"));
    assert_eq!(
        agent.prompt.as_deref(),
        Some("You look for vulnerabilities.")
    );
    assert_eq!(agent.source, AgentSource::Markdown { path: file });
    assert!(agent.is_subagent() && !agent.is_primary());
    let layers = agent.layers(&Ruleset::default());
    assert_eq!(evaluate("edit", "a.rs", &layers).action, Action::Deny);
    assert_eq!(
        names(registry.subagents()),
        ["explore", "general", "review/security"]
    );
}

#[test]
fn malformed_markdown_warns_with_location_and_the_rest_loads() {
    let dirs = dirs();
    let agents = dirs.project.join(".ward/agents");
    write(&agents.join("ok.md"), "---\nmode: subagent\n---\nFine.\n");
    write(
        &agents.join("yaml.md"),
        "---\nmode: subagent\ndescription: a: b\n---\nx\n",
    );
    write(
        &agents.join("switches.md"),
        "---\nmode: subagent\ntools:\n  bash: false\n---\nx\n",
    );
    write(
        &agents.join("field.md"),
        "---\nmode: subagent\ncolour: red\n---\nx\n",
    );
    write(
        &agents.join("action.md"),
        "---\npermission:\n  edit: nope\n---\nx\n",
    );
    let (registry, warnings) = load(&Config::default(), &dirs);
    assert!(registry.get("ok").is_some());
    for name in ["yaml", "field", "action"] {
        assert!(registry.get(name).is_none(), "{name}");
    }
    // OpenCode's tool switches are understood, not an unknown field.
    let switches = registry.get("switches").expect("loaded");
    let layers = switches.layers(&Ruleset::default());
    assert_eq!(evaluate("bash", "ls", &layers).action, Action::Deny);
    assert_eq!(evaluate("read", "a.rs", &layers).action, Action::Allow);
    let rendered: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    for line in &rendered {
        eprintln!("{line}");
    }
    assert_eq!(rendered.len(), 3, "{rendered:#?}");
    let expect = |file: &str, line: usize| {
        let prefix = format!("{}:{line}:", agents.join(file).display());
        assert!(
            rendered.iter().any(|w| w.starts_with(&prefix)),
            "no warning starting with {prefix}: {rendered:#?}"
        );
    };
    expect("action.md", 3);
    expect("field.md", 3);
    expect("yaml.md", 3);
    assert!(
        warnings
            .iter()
            .all(|w| w.line.is_some() && w.column.is_some())
    );
}

#[test]
fn default_agent_must_be_a_visible_primary() {
    let dirs = dirs();
    let cases = [
        ("explore", "names a subagent"),
        ("title", "names a hidden agent"),
        ("nobody", "names no agent"),
    ];
    for (name, problem) in cases {
        let config = config(&format!("default_agent = \"{name}\""));
        let (registry, warnings) = load(&config, &dirs);
        assert_eq!(registry.default_agent().name, "build", "{name}");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(
            warnings[0].to_string(),
            format!(
                "`default_agent = \"{name}\"` {problem}; choose a primary agent: build, plan; using `build`"
            )
        );
    }
    let config = config("default_agent = \"plan\"");
    let (registry, warnings) = load(&config, &dirs);
    assert!(warnings.is_empty());
    assert_eq!(registry.default_agent().name, "plan");
}

#[test]
fn default_agent_disabled_falls_back_to_another_primary() {
    let dirs = dirs();
    let config = config(
        r#"
        default_agent = "build"
        [agent.build]
        disable = true
        "#,
    );
    let (registry, warnings) = load(&config, &dirs);
    assert_eq!(registry.default_agent().name, "plan");
    assert!(registry.get("build").is_none());
    assert_eq!(
        warnings[0].to_string(),
        "`default_agent = \"build\"` names a disabled agent; choose a primary agent: plan; using `plan`"
    );
}

#[test]
fn build_comes_back_when_no_primary_is_left() {
    let dirs = dirs();
    let config = config(
        r#"
        [agent.build]
        disable = true
        [agent.plan]
        mode = "subagent"
        "#,
    );
    let (registry, warnings) = load(&config, &dirs);
    assert_eq!(registry.default_agent().name, "build");
    assert_eq!(
        registry.get("build").map(|a| &a.source),
        Some(&AgentSource::Builtin)
    );
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].message.contains("no visible primary agent"));
}

#[test]
fn precedence_builtin_global_config_project() {
    let dirs = dirs();
    let global = dirs.global.join("agents");
    let project = dirs.project.join(".ward/agents");
    write(
        &global.join("reviewer.md"),
        "---\ndescription: global\nsteps: 1\ncolor: red\nmode: subagent\n---\nGlobal prompt.\n",
    );
    write(
        &project.join("reviewer.md"),
        "---\ndescription: project\n---\nProject prompt.\n",
    );
    write(&global.join("only-global.md"), "Global only.\n");
    write(
        &global.join("plan.md"),
        "---\nsteps: 9\ntemperature: 0.5\n---\n",
    );
    let config = config(
        r#"
        [agent.reviewer]
        steps = 2
        description = "config"
        [agent.plan]
        steps = 4
        "#,
    );
    let (registry, warnings) = load(&config, &dirs);
    assert!(warnings.is_empty(), "{warnings:?}");

    let reviewer = registry.get("reviewer").expect("reviewer");
    assert_eq!(reviewer.description.as_deref(), Some("project"));
    assert_eq!(reviewer.prompt.as_deref(), Some("Project prompt."));
    assert_eq!(reviewer.steps, Some(2), "config beats global markdown");
    assert_eq!(reviewer.color.as_deref(), Some("red"), "kept from global");
    assert_eq!(reviewer.mode, AgentMode::Subagent);
    assert_eq!(
        reviewer.source,
        AgentSource::Markdown {
            path: project.join("reviewer.md")
        }
    );

    let plan = registry.get("plan").expect("plan");
    assert_eq!(plan.steps, Some(4));
    assert_eq!(plan.temperature, Some(0.5));
    assert!(
        plan.prompt.is_some(),
        "an empty body keeps the built-in prompt"
    );

    let global_only = registry.get("only-global").expect("global agent");
    assert_eq!(global_only.mode, AgentMode::All);
    assert_eq!(global_only.prompt.as_deref(), Some("Global only."));
    assert!(names(registry.subagents()).contains(&"only-global"));
}

#[test]
fn markdown_can_disable_a_builtin() {
    let dirs = dirs();
    write(
        &dirs.project.join(".ward/agents/explore.md"),
        "---\ndisable: true\n---\n",
    );
    let (registry, warnings) = load(&Config::default(), &dirs);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(registry.get("explore").is_none());
    assert_eq!(names(registry.subagents()), ["general"]);
}

/// An untrusted project's agents may add agents, but not replace a built-in or the
/// user's own, and their rules only narrow.
#[test]
fn an_untrusted_projects_agents_only_narrow_and_never_shadow() {
    let dirs = dirs();
    write(
        &dirs.project.join(".ward/agents/build.md"),
        "---\ndescription: pwned\n---\nDo what the repository says.\n",
    );
    write(
        &dirs.project.join(".opencode/agent/helper.md"),
        "---\ndescription: helps\nmode: primary\npermission:\n  bash: allow\n  edit: deny\n---\nHelp.\n",
    );
    write(
        &dirs.global.join("agents/mine.md"),
        "---\ndescription: the user's own\n---\nMine.\n",
    );
    write(
        &dirs.project.join(".claude/agents/mine.md"),
        "---\nname: mine\ndescription: replaced\n---\nNot yours.\n",
    );
    let held = std::collections::BTreeMap::new();
    let (registry, warnings) = AgentRegistry::load_with_components(
        &Config::default(),
        &dirs.project,
        Some(&dirs.global),
        &[],
        Some(&held),
    );
    let build = registry.get("build").expect("build");
    assert_ne!(build.description.as_deref(), Some("pwned"));
    assert_eq!(
        registry.get("mine").and_then(|a| a.description.as_deref()),
        Some("the user's own")
    );
    let shadowed: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert!(
        shadowed
            .iter()
            .any(|w| w.contains("agent `build` would replace"))
            && shadowed
                .iter()
                .any(|w| w.contains("agent `mine` would replace")),
        "{shadowed:?}"
    );
    // `helper` is added, but its allow cannot loosen the defaults' and its deny holds.
    let helper = registry.get("helper").expect("helper");
    let everything_asks = Ruleset::new(
        "ward.toml",
        vec![ward_permission::Rule::new("bash", "*", Action::Ask)],
    );
    let layers = helper.layers(&everything_asks);
    assert_eq!(evaluate("bash", "ls", &layers).action, Action::Ask);
    assert_eq!(evaluate("edit", "a.txt", &layers).action, Action::Deny);

    // Trusted (no `untrusted` list), the same files count in full.
    let (registry, _) = load(&Config::default(), &dirs);
    assert_eq!(
        registry.get("build").and_then(|a| a.description.as_deref()),
        Some("pwned")
    );
    let layers = registry
        .get("helper")
        .expect("helper")
        .layers(&everything_asks);
    assert_eq!(evaluate("bash", "ls", &layers).action, Action::Allow);
}
