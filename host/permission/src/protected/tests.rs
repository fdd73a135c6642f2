//! The protected paths against real directories: what is protected, what is not, and
//! what a symlink or a wildcard approval cannot get around.

use super::*;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ward-protected-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.canonicalize().expect("canonical")
}

fn locations(root: &Path) -> Locations {
    Locations {
        data_dir: Some(root.join("data")),
        config_dirs: vec![root.join("config/ward")],
        extra: Vec::new(),
    }
}

#[test]
fn configuration_state_and_git_are_protected() {
    let root = temp("basic");
    let project = root.join("proj");
    std::fs::create_dir_all(project.join("src")).expect("mkdir");
    let p = ProtectedPaths::new(&project, &locations(&root));
    for hit in [
        "ward.toml",
        "ward.lock",
        ".ward",
        ".ward/ward.toml",
        ".ward/plugins/x/plugin.toml",
        ".git",
        ".git/hooks/pre-commit",
        "vendor/lib/.git/config",
        "src/../ward.toml",
    ] {
        assert!(p.find_pattern(hit).is_some(), "{hit}");
    }
    assert!(p.find(&root.join("data/ward.db")).is_some());
    assert!(p.find(&root.join("config/ward/ward.toml")).is_some());
    assert!(p.find(&root.join("ward.toml")).is_some(), "an ancestor's");
    for miss in [
        "src/main.rs",
        "ward.toml.bak",
        ".wardx/a",
        ".ward/plans/today.md",
        ".gitignore",
        "docs/ward.toml",
    ] {
        assert_eq!(p.find_pattern(miss), None, "{miss}");
    }
    assert_eq!(p.find(&root.join("elsewhere/ward.lock")), None);
    std::fs::remove_dir_all(&root).expect("cleanup");
}

#[test]
fn symlinks_into_protected_paths_are_seen_through() {
    let root = temp("links");
    let project = root.join("proj");
    std::fs::create_dir_all(project.join(".git/hooks")).expect("mkdir");
    std::fs::create_dir_all(project.join(".ward/plans")).expect("mkdir");
    std::os::unix::fs::symlink(project.join(".git/hooks"), project.join("innocent")).expect("link");
    std::os::unix::fs::symlink(project.join("ward.toml"), project.join("notes.txt")).expect("link");
    // A plans directory that is really `.ward` itself.
    std::fs::remove_dir(project.join(".ward/plans")).expect("rmdir");
    std::os::unix::fs::symlink(project.join(".ward"), project.join(".ward/plans")).expect("link");
    let p = ProtectedPaths::new(&project, &locations(&root));
    assert!(p.find_pattern("innocent/pre-commit").is_some());
    assert!(p.find_pattern("notes.txt").is_some(), "a dangling link");
    assert!(p.find_pattern(".ward/plans/ward.toml").is_some());
    // The project reached through a link is the same project.
    std::os::unix::fs::symlink(&project, root.join("alias")).expect("link");
    let via = ProtectedPaths::new(&root.join("alias"), &locations(&root));
    assert!(via.find(&project.join("ward.toml")).is_some());
    assert!(via.find_lexical(&project.join(".git/config")).is_some());
    std::fs::remove_dir_all(&root).expect("cleanup");
}

#[test]
fn wildcard_approvals_that_would_cover_configuration() {
    let root = temp("always");
    let project = root.join("proj");
    std::fs::create_dir_all(project.join("src")).expect("mkdir");
    let p = ProtectedPaths::new(&project, &locations(&root));
    for wide in ["*", "ward.*", ".ward/*", "*.toml", "*/config", "ward.toml"] {
        assert!(p.covered_by(wide), "{wide}");
    }
    for narrow in ["src/*", "src/main.rs", "*.rs", "docs/*.md"] {
        assert!(!p.covered_by(narrow), "{narrow}");
    }
    assert!(p.find_within(&root).is_some(), "holds the project's .git");
    assert!(p.find_within(&project.join("src")).is_none());
    std::fs::remove_dir_all(&root).expect("cleanup");
}

#[test]
fn locations_come_from_the_environment() {
    let env = |k: &str| match k {
        "HOME" => Some("/home/u".to_string()),
        "WARD_CONFIG" => Some("/etc/ward-extra.toml".to_string()),
        _ => None,
    };
    let l = Locations::from_env(&env);
    assert_eq!(l.data_dir, Some(PathBuf::from("/home/u/.local/share/ward")));
    assert_eq!(l.config_dirs, vec![PathBuf::from("/home/u/.config/ward")]);
    let p = ProtectedPaths::new(Path::new("/nonexistent/proj"), &l);
    assert!(p.find(Path::new("/etc/ward-extra.toml")).is_some());
    assert!(
        p.find(Path::new("/home/u/.config/ward/plugins/x"))
            .is_some()
    );
    assert!(
        p.entries()
            .iter()
            .any(|e| e.path == Path::new("/nonexistent/proj/.git"))
    );
    for user in [
        "/home/u/.config/opencode/agent/x.md",
        "/home/u/.claude/skills/x/SKILL.md",
        "/home/u/.agents/skills/x/SKILL.md",
    ] {
        assert!(p.find(Path::new(user)).is_some(), "{user}");
    }
    assert_eq!(p.find(Path::new("/home/u/.claude/projects/x")), None);
    assert!(
        p.find_private(Path::new("/home/u/.local/share/ward/server/token"))
            .is_some()
    );
}

#[test]
fn opencode_and_claude_configuration_is_protected_like_wards() {
    let root = temp("others");
    let project = root.join("proj");
    std::fs::create_dir_all(project.join("src")).expect("mkdir");
    let p = ProtectedPaths::new(&project, &locations(&root));
    for hit in [
        "opencode.json",
        "opencode.jsonc",
        ".opencode/agent/build.md",
        ".opencode",
        ".claude/settings.json",
        ".claude/agents/x.md",
        ".mcp.json",
        ".agents/skills/x/SKILL.md",
        "AGENTS.md",
        "CLAUDE.md",
        "src/AGENTS.md",
        "vendor/lib/CLAUDE.md",
    ] {
        assert!(p.find_pattern(hit).is_some(), "{hit}");
    }
    for above in ["opencode.json", ".mcp.json", "AGENTS.md", "CLAUDE.md"] {
        assert!(p.find(&root.join(above)).is_some(), "an ancestor's {above}");
    }
    for miss in [
        "src/opencode.json.bak",
        "docs/agents.txt",
        ".claudex/a",
        "src/.mcp.jsonx",
    ] {
        assert_eq!(p.find_pattern(miss), None, "{miss}");
    }
    assert_eq!(
        p.find_pattern("opencode.json"),
        Some("OpenCode's project configuration")
    );
    // What a process creates at these paths is undone; the data directory is hidden.
    let kind = |rel: &str| {
        p.entries()
            .iter()
            .find(|e| e.path == project.join(rel))
            .map(|e| e.kind)
    };
    assert_eq!(kind(".claude"), Some(Kind::Configuration));
    assert_eq!(kind(".mcp.json"), Some(Kind::Configuration));
    assert_eq!(kind(".git"), Some(Kind::State));
    for wide in ["*.json", ".opencode/*", ".claude/*", "*.md"] {
        assert!(p.covered_by(wide), "{wide}");
    }
    std::fs::remove_dir_all(&root).expect("cleanup");
}

#[test]
fn the_data_directory_is_private_wherever_it_is() {
    let root = temp("private");
    let project = root.join("proj");
    std::fs::create_dir_all(&project).expect("mkdir");
    std::fs::create_dir_all(root.join("data/server")).expect("mkdir");
    let p = ProtectedPaths::new(&project, &locations(&root));
    let private: Vec<&Path> = p.private().collect();
    assert_eq!(private, [root.join("data").as_path()]);
    assert!(p.find_private(&root.join("data/server/token")).is_some());
    assert!(p.find_private(&root.join("data")).is_some());
    assert_eq!(p.find_private(&root.join("database")), None);
    assert_eq!(p.find_private(&project.join("ward.toml")), None);
    // Reached through a link, it is still private.
    std::os::unix::fs::symlink(root.join("data"), root.join("via")).expect("link");
    let linked = Locations {
        data_dir: Some(root.join("via")),
        ..Locations::default()
    };
    let p = ProtectedPaths::new(&project, &linked);
    assert!(p.find_private(&root.join("data/ward.db")).is_some());
    // Added again as private, a path already protected becomes private.
    let mut p = ProtectedPaths::new(&project, &Locations::default());
    p.add(root.join("state"), true, Kind::State, "state");
    p.add(root.join("state"), true, Kind::Private, "private");
    assert!(p.find_private(&root.join("state/x")).is_some());
    // A data directory that holds the project cannot be hidden from it.
    let inside = Locations {
        data_dir: Some(root.clone()),
        ..Locations::default()
    };
    let p = ProtectedPaths::new(&project, &inside);
    assert_eq!(p.private().count(), 0);
    assert!(p.find(&root.join("ward.db")).is_some(), "still protected");
    std::fs::remove_dir_all(&root).expect("cleanup");
}
