//! Ward's protected paths: what Ward reads as configuration, its own state, and the
//! repository's `.git` — which no plugin grant may ever write, which the model may
//! change only with a person's answer, and which no process Ward starts may change.
//!
//! Owns the one definition of what they are for a project — at the project root
//! `ward.toml`, `ward.lock`, `.ward/` (but `.ward/plans/`, the plan agent's notes),
//! OpenCode's `opencode.json(c)` and `.opencode/`, Claude Code's `.claude/` and
//! `.mcp.json`, the skills in `.agents/` and the instructions in `AGENTS.md` /
//! `CLAUDE.md`; the configuration files of every directory above it (configuration
//! and instructions are layered from the root down); every `.git` and every
//! instruction file at any depth in the project; the data directory, the user's
//! configuration directories and a file named by `WARD_CONFIG` — and the predicate over
//! a path. A path is compared lexically and with its symlinks resolved, against each
//! protected path as written and as it really is, so a link inside the project
//! pointing at `.git/hooks` does not help.
//!
//! Each path has a [`Kind`]: configuration is read-only to every process and removed
//! when a process created it; state is read-only; the data directory is private —
//! hidden from every process and plugin, for reading too, wherever it lives. The
//! filesystem guard refuses plugin writes to all of them (and reads of the private
//! ones), the permission checks turn every `edit` of one into a person's question, and
//! the list ([`ProtectedPaths::entries`]) is what a process sandbox mounts.

use std::path::{Component, Path, PathBuf};

use crate::path::normalize;

/// The key an ask's metadata carries, set by the host, when the question is a change
/// to Ward's configuration: hooks may not answer it and `--yes` does not approve it.
pub const CONFIG_CHANGE_KEY: &str = "wardConfigChange";

/// The directory beneath `.ward/` that holds plans, not configuration.
const PLANS: &str = "plans";

/// Configuration files Ward reads at the project root and in every directory above it,
/// with what each is called at the root and above it.
const CONFIG_FILES: &[(&str, &str, &str)] = &[
    (
        "ward.toml",
        "Ward's project configuration",
        "a Ward configuration file",
    ),
    (
        "opencode.json",
        "OpenCode's project configuration",
        "an OpenCode configuration file",
    ),
    (
        "opencode.jsonc",
        "OpenCode's project configuration",
        "an OpenCode configuration file",
    ),
    (
        ".mcp.json",
        "the project's MCP server list",
        "an MCP server list",
    ),
    (
        "AGENTS.md",
        "the project's instructions for the model",
        "instructions for the model",
    ),
    (
        "CLAUDE.md",
        "the project's instructions for the model",
        "instructions for the model",
    ),
];

/// Configuration directories Ward reads at the project root: agents, commands, skills,
/// plugins.
const CONFIG_DIRS: &[(&str, &str)] = &[
    (".ward", "Ward's project directory"),
    (".opencode", "OpenCode's project directory"),
    (".claude", "Claude Code's project directory"),
    (".agents", "the project's skills directory"),
];

/// Instruction files, protected wherever they are in the project: a directory's own is
/// put before the model when a tool reads beneath it.
pub const INSTRUCTION_FILES: &[&str] = &["AGENTS.md", "CLAUDE.md"];

/// What protects an instruction file below the project root.
const NESTED_INSTRUCTIONS: &str = "instructions for the model";

/// Ward's own secrets that may be in its environment (the tokens of `ward serve` and
/// `ward mcp serve`): never passed to a process or a plugin, whatever it was granted,
/// so nothing Ward runs can answer its own question through Ward's API.
pub const PRIVATE_ENV: &[&str] = &["WARD_SERVER_TOKEN", "WARD_MCP_TOKEN"];

/// What Ward does with a protected path, besides refusing plugin writes and asking a
/// person before the model's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Configuration Ward reads from the project tree or above it: read-only to every
    /// process, and removed when a process created it where there was none.
    Configuration,
    /// Ward's configuration and state outside the project, the user's, and `.git`:
    /// read-only to every process.
    State,
    /// Ward's private state — the data directory: the server's token, the database,
    /// remembered approvals, the snapshot store: hidden from every process, and no
    /// plugin may read it either.
    Private,
}

/// One protected path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Protected {
    /// Absolute and lexically normalised, as configured.
    pub path: PathBuf,
    /// The same path with its symlinks resolved, as far as it exists.
    pub real: PathBuf,
    /// Whether everything beneath it is protected too (a directory), not only itself.
    pub tree: bool,
    /// What Ward does with it.
    pub kind: Kind,
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
        // What Ward reads from the user's OpenCode and Claude Code configuration.
        let config_home = set("XDG_CONFIG_HOME").filter(|d| d.is_absolute());
        if let Some(base) = config_home.or_else(|| home.as_ref().map(|h| h.join(".config"))) {
            extra.push((base.join("opencode"), true, "OpenCode's user configuration"));
        }
        for dir in [".claude/skills", ".agents/skills"] {
            if let Some(h) = &home {
                extra.push((h.join(dir), true, "the user's skills"));
            }
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
        let config = Kind::Configuration;
        for (name, what, _) in CONFIG_FILES {
            out.add(project.join(name), false, config, what);
        }
        out.add(
            project.join("ward.lock"),
            false,
            config,
            "Ward's plugin lock file",
        );
        for (name, what) in CONFIG_DIRS {
            out.add(project.join(name), true, config, what);
        }
        out.add(
            project.join(".git"),
            true,
            Kind::State,
            "the git repository",
        );
        for dir in project.ancestors().skip(1) {
            for (name, _, what) in CONFIG_FILES {
                out.add(dir.join(name), false, config, what);
            }
        }
        if let Some(data) = &locations.data_dir {
            out.add(
                project.join(data),
                true,
                Kind::Private,
                "Ward's data directory",
            );
        }
        for dir in &locations.config_dirs {
            out.add(
                project.join(dir),
                true,
                Kind::State,
                "Ward's user configuration",
            );
        }
        for (path, tree, what) in &locations.extra {
            out.add(project.join(path), *tree, Kind::State, what);
        }
        out
    }

    /// The protected paths of `project` with the locations the process environment
    /// names.
    pub fn from_env(project: &Path) -> Self {
        Self::new(project, &Locations::from_env(&|k| std::env::var(k).ok()))
    }

    /// Adds `path` (absolute; a directory when `tree`) of `kind`, described as `what`.
    /// A path added twice keeps the stricter kind. A private directory that holds the
    /// project cannot be hidden from the project's own processes: it is kept
    /// read-only instead.
    pub fn add(&mut self, path: PathBuf, tree: bool, kind: Kind, what: &'static str) {
        let path = normalize(&path);
        let real = real(&path);
        let kind = if kind == Kind::Private
            && (self.project.starts_with(&path) || self.real_project.starts_with(&real))
        {
            Kind::State
        } else {
            kind
        };
        if let Some(known) = self.entries.iter_mut().find(|e| e.path == path) {
            if kind == Kind::Private {
                known.kind = kind;
                known.tree = true;
            }
            return;
        }
        self.entries.push(Protected {
            path,
            real,
            tree,
            kind,
            what,
        });
    }

    /// Every protected path, for a sandbox to mount read-only (or hide, the private
    /// ones). `.git` directories and instruction files below the project root are
    /// protected too but not listed (found by name).
    pub fn entries(&self) -> &[Protected] {
        &self.entries
    }

    /// The private paths (the data directory), hidden from every process and plugin.
    pub fn private(&self) -> impl Iterator<Item = &Path> {
        self.entries
            .iter()
            .filter(|e| e.kind == Kind::Private)
            .map(|e| e.path.as_path())
    }

    /// What makes `path` (absolute, normalised; lexical or already resolved) private,
    /// compared without touching the filesystem; `None` when nothing does.
    pub fn find_private(&self, path: &Path) -> Option<&'static str> {
        self.entries
            .iter()
            .filter(|e| e.kind == Kind::Private)
            .find(|e| e.covers(path, &e.path) || e.covers(path, &e.real))
            .map(|e| e.what)
    }

    /// What protects `path` (absolute, normalised; lexical or already resolved),
    /// compared without touching the filesystem; `None` when nothing does.
    pub fn find_lexical(&self, path: &Path) -> Option<&'static str> {
        let listed = self
            .entries
            .iter()
            .find(|e| e.covers(path, &e.path) || e.covers(path, &e.real));
        if let Some(entry) = listed {
            return Some(entry.what);
        }
        [&self.project, &self.real_project]
            .into_iter()
            .find_map(|root| path.strip_prefix(root).ok().and_then(by_name))
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
            "opencode.json",
            "opencode.jsonc",
            ".opencode/agent/build.md",
            ".claude/settings.json",
            ".claude/agents/x.md",
            ".agents/skills/x/SKILL.md",
            ".mcp.json",
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

/// What protects `rel` (relative to the project) by its names alone: passing through a
/// `.git`, or being an instruction file.
fn by_name(rel: &Path) -> Option<&'static str> {
    let git = rel
        .components()
        .any(|c| matches!(c, Component::Normal(name) if same_name(name, ".git".as_ref())));
    if git {
        return Some("a git repository");
    }
    let name = rel.file_name()?;
    INSTRUCTION_FILES
        .iter()
        .any(|f| same_name(name, f.as_ref()))
        .then_some(NESTED_INSTRUCTIONS)
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
mod tests;
