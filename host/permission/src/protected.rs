//! Ward's protected paths: its own configuration and state, and the repository's
//! `.git`, which no plugin grant may ever write and which the model may change only
//! with a person's answer.
//!
//! Owns the one definition of what they are for a project — `ward.toml` (the
//! project's and every ancestor's, since configuration is layered from the root
//! down), `ward.lock`, `.ward/` (but `.ward/plans/`, the plan agent's notes), every
//! `.git` at any depth in the project, the data directory, the user configuration
//! directory and a file named by `WARD_CONFIG` — and the predicate over a path. A
//! path is compared lexically and with its symlinks resolved, against each protected
//! path as written and as it really is, so a link inside the project pointing at
//! `.git/hooks` does not help. The filesystem guard refuses plugin writes here, the
//! permission checks turn every `edit` here into a person's question, and the list
//! ([`ProtectedPaths::entries`]) is what a process sandbox mounts read-only.

use std::path::{Component, Path, PathBuf};

use crate::path::normalize;

/// The key an ask's metadata carries, set by the host, when the question is a change
/// to Ward's configuration: hooks may not answer it and `--yes` does not approve it.
pub const CONFIG_CHANGE_KEY: &str = "wardConfigChange";

/// The directory beneath `.ward/` that holds plans, not configuration.
const PLANS: &str = "plans";

/// One protected path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Protected {
    /// Absolute and lexically normalised, as configured.
    pub path: PathBuf,
    /// The same path with its symlinks resolved, as far as it exists.
    pub real: PathBuf,
    /// Whether everything beneath it is protected too (a directory), not only itself.
    pub tree: bool,
    /// What it is, for errors: "Ward's project configuration", ….
    pub what: &'static str,
}

/// Where Ward keeps what it reads outside the project.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Locations {
    /// The data directory (`WARD_DATA_DIR`, else `$XDG_DATA_HOME/ward`, else
    /// `~/.local/share/ward`).
    pub data_dir: Option<PathBuf>,
    /// User configuration directories (`WARD_CONFIG_DIR`, `$XDG_CONFIG_HOME/ward`,
    /// `~/.config/ward`).
    pub config_dirs: Vec<PathBuf>,
    /// Further files or directories: `WARD_CONFIG`, a shared compiled cache, plugin
    /// directories, ….
    pub extra: Vec<(PathBuf, bool, &'static str)>,
}

impl Locations {
    /// The locations the process environment names, read through `env`.
    pub fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Self {
        let set = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let home = set("HOME");
        let data_dir = set("WARD_DATA_DIR")
            .or_else(|| set("XDG_DATA_HOME").map(|d| d.join("ward")))
            .or_else(|| home.as_ref().map(|h| h.join(".local/share/ward")));
        let mut config_dirs: Vec<PathBuf> = set("WARD_CONFIG_DIR").into_iter().collect();
        match set("XDG_CONFIG_HOME").filter(|d| d.is_absolute()) {
            Some(xdg) => config_dirs.push(xdg.join("ward")),
            None => config_dirs.extend(home.as_ref().map(|h| h.join(".config/ward"))),
        }
        let mut extra = Vec::new();
        if let Some(file) = set("WARD_CONFIG") {
            extra.push((file, false, "the configuration file named by WARD_CONFIG"));
        }
        if let Some(cache) = set("WARD_CACHE_DIR") {
            extra.push((cache, true, "Ward's compiled-component cache"));
        }
        Locations {
            data_dir,
            config_dirs,
            extra,
        }
    }
}

/// The protected paths of one project.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProtectedPaths {
    /// The project root, normalised, and as it really is.
    project: PathBuf,
    real_project: PathBuf,
    entries: Vec<Protected>,
}

impl ProtectedPaths {
    /// The protected paths of `project` (absolute) with Ward's `locations`.
    pub fn new(project: &Path, locations: &Locations) -> Self {
        let project = normalize(project);
        let mut out = ProtectedPaths {
            real_project: real(&project),
            project: project.clone(),
            entries: Vec::new(),
        };
        out.add(
            project.join("ward.toml"),
            false,
            "Ward's project configuration",
        );
        out.add(project.join("ward.lock"), false, "Ward's plugin lock file");
        out.add(project.join(".ward"), true, "Ward's project directory");
        out.add(project.join(".git"), true, "the git repository");
        for dir in project.ancestors().skip(1) {
            out.add(dir.join("ward.toml"), false, "a Ward configuration file");
        }
        if let Some(data) = &locations.data_dir {
            out.add(project.join(data), true, "Ward's data directory");
        }
        for dir in &locations.config_dirs {
            out.add(project.join(dir), true, "Ward's user configuration");
        }
        for (path, tree, what) in &locations.extra {
            out.add(project.join(path), *tree, what);
        }
        out
    }

    /// The protected paths of `project` with the locations the process environment
    /// names.
    pub fn from_env(project: &Path) -> Self {
        Self::new(project, &Locations::from_env(&|k| std::env::var(k).ok()))
    }

    /// Adds `path` (absolute; a directory when `tree`), described as `what`.
    pub fn add(&mut self, path: PathBuf, tree: bool, what: &'static str) {
        let path = normalize(&path);
        if self.entries.iter().any(|e| e.path == path) {
            return;
        }
        let real = real(&path);
        self.entries.push(Protected {
            path,
            real,
            tree,
            what,
        });
    }

    /// Every protected path, for a sandbox to mount read-only. `.git` directories
    /// below the project root are protected too but not listed (found by name).
    pub fn entries(&self) -> &[Protected] {
        &self.entries
    }

    /// What protects `path` (absolute, normalised; lexical or already resolved),
    /// compared without touching the filesystem; `None` when nothing does.
    pub fn find_lexical(&self, path: &Path) -> Option<&'static str> {
        for root in [&self.project, &self.real_project] {
            if let Ok(rel) = path.strip_prefix(root)
                && is_git_inside(rel)
            {
                return Some("a git repository");
            }
        }
        self.entries
            .iter()
            .find(|e| e.covers(path, &e.path) || e.covers(path, &e.real))
            .map(|e| e.what)
    }

    /// What protects `path` (absolute or relative to the project), looked at as
    /// written and with its symlinks resolved; `None` when nothing does.
    pub fn find(&self, path: &Path) -> Option<&'static str> {
        let lexical = normalize(&self.project.join(path));
        self.find_lexical(&lexical)
            .or_else(|| self.find_lexical(&real(&lexical)))
    }

    /// What protects a path beneath directory `dir` (absolute, normalised), for an
    /// operation that moves everything in it; `None` when nothing does. `.git`
    /// directories deeper in the project are not looked for.
    pub fn find_within(&self, dir: &Path) -> Option<&'static str> {
        self.find_lexical(dir).or_else(|| {
            self.entries
                .iter()
                .find(|e| {
                    strip_prefix(&e.path, dir).is_some() || strip_prefix(&e.real, dir).is_some()
                })
                .map(|e| e.what)
        })
    }

    /// Whether an "always" answer for `pattern` (a rule pattern of the `edit`
    /// permission, wildcards allowed) could approve changes to a protected path from
    /// then on; such patterns are never stored.
    pub fn covered_by(&self, pattern: &str) -> bool {
        let samples = [
            "ward.toml",
            "ward.lock",
            ".ward",
            ".ward/ward.toml",
            ".ward/plugins/p/plugin.toml",
            ".git",
            ".git/config",
            ".git/hooks/pre-commit",
            "d/.git/config",
        ];
        if samples.iter().any(|s| crate::wildcard::matches(pattern, s)) {
            return true;
        }
        let absolute = self.entries.iter().flat_map(|e| [&e.path, &e.real]);
        absolute.into_iter().any(|p| {
            let text = p.to_string_lossy();
            crate::wildcard::matches(pattern, &text)
                || crate::wildcard::matches(pattern, &format!("{text}/x"))
        }) || self.find_pattern(pattern).is_some()
    }

    /// [`find`](Self::find) for a rule pattern of the `edit` permission: a path
    /// relative to the project (`.` for the root) or absolute.
    pub fn find_pattern(&self, pattern: &str) -> Option<&'static str> {
        self.find(Path::new(pattern))
    }
}

impl Protected {
    /// Whether `path` is `base` (this entry as written or resolved) or, for a tree,
    /// beneath it; `.ward/plans/` is not configuration.
    fn covers(&self, path: &Path, base: &Path) -> bool {
        let Some(rel) = strip_prefix(path, base) else {
            return false;
        };
        if rel.as_os_str().is_empty() {
            return true;
        }
        if !self.tree {
            return false;
        }
        let plans = base.file_name().is_some_and(|n| n == ".ward")
            && rel.components().next() == Some(Component::Normal(PLANS.as_ref()));
        !plans
    }
}

/// Whether an ask's `metadata` marks it as a change to Ward's configuration (the host
/// sets [`CONFIG_CHANGE_KEY`], and removes it from whatever a plugin sent).
pub fn marks_config_change(metadata: &serde_json::Value) -> bool {
    metadata
        .get(CONFIG_CHANGE_KEY)
        .is_some_and(|v| !v.is_null())
}

/// Whether `rel` (relative to the project) passes through a `.git`.
fn is_git_inside(rel: &Path) -> bool {
    rel.components()
        .any(|c| matches!(c, Component::Normal(name) if same_name(name, ".git".as_ref())))
}

/// `path` without its prefix `base`, compared component by component (ignoring ASCII
/// case where file systems usually do).
fn strip_prefix<'a>(path: &'a Path, base: &Path) -> Option<&'a Path> {
    if cfg!(any(target_os = "macos", windows)) {
        let mut rest = path.components();
        for want in base.components() {
            match rest.next() {
                Some(Component::Normal(a)) => match want {
                    Component::Normal(b) if same_name(a, b) => {}
                    _ => return None,
                },
                Some(other) if other == want => {}
                _ => return None,
            }
        }
        Some(rest.as_path())
    } else {
        path.strip_prefix(base).ok()
    }
}

fn same_name(a: &std::ffi::OsStr, b: &std::ffi::OsStr) -> bool {
    if cfg!(any(target_os = "macos", windows)) {
        a.eq_ignore_ascii_case(b)
    } else {
        a == b
    }
}

/// `path` (absolute, normalised) with its symlinks resolved as far as it exists (a
/// dangling link through its target); itself when it cannot be resolved.
fn real(path: &Path) -> PathBuf {
    crate::path::resolve_links(path).unwrap_or_else(|| path.to_path_buf())
}

// Two attributes, not `cfg(all(test, unix))`: clippy's allow-*-in-tests only sees a
// plain `cfg(test)` (rust-clippy#16369).
#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("ward-protected-{name}-{}", std::process::id()));
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
        std::os::unix::fs::symlink(project.join(".git/hooks"), project.join("innocent"))
            .expect("link");
        std::os::unix::fs::symlink(project.join("ward.toml"), project.join("notes.txt"))
            .expect("link");
        // A plans directory that is really `.ward` itself.
        std::fs::remove_dir(project.join(".ward/plans")).expect("rmdir");
        std::os::unix::fs::symlink(project.join(".ward"), project.join(".ward/plans"))
            .expect("link");
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
    }
}
