//! Where skills are looked for.
//!
//! Owns the search order of the skill roots and where each root's directory
//! comes from (`HOME`, `XDG_CONFIG_HOME`, the global Ward config directory and
//! the project). Roots are searched in the order of [`SkillRoots::search_order`];
//! a skill found in a later root replaces one of the same name from an earlier
//! root, so project skills override personal ones and `.ward/skills` overrides
//! everything.

use std::fmt;
use std::path::{Path, PathBuf};

/// The directories skills are discovered under.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SkillRoots {
    /// The user's home directory (`$HOME`); `None` skips the personal roots.
    pub home: Option<PathBuf>,
    /// The XDG configuration home (`$XDG_CONFIG_HOME`). `None` means
    /// `<home>/.config`, as the XDG specification says.
    pub config_home: Option<PathBuf>,
    /// Ward's global configuration directory (`~/.config/ward`); its `skills/`
    /// subdirectory is searched. `None` skips it.
    pub global_dir: Option<PathBuf>,
    /// The project root; its `.claude/skills`, `.agents/skills`,
    /// `.opencode/skill(s)` and `.ward/skills` are searched. Only this directory
    /// is looked at, not its ancestors: pass the project root, not the working
    /// directory.
    pub project: PathBuf,
}

/// Which kind of root a skill was found under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// A personal directory under the home directory (`~/.claude/skills`, …).
    User,
    /// Ward's global configuration directory (`~/.config/ward/skills`).
    Global,
    /// A directory inside the project (`.claude/skills`, `.ward/skills`, …).
    Project,
    /// A plugin component exporting the `skill` interface.
    Plugin,
}

impl Scope {
    /// `user`, `global`, `project` or `plugin`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Global => "global",
            Scope::Project => "project",
            Scope::Plugin => "plugin",
        }
    }
}

/// One skills directory: where a skill came from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SkillSource {
    /// The kind of root.
    pub scope: Scope,
    /// The skills directory itself, e.g. `/home/me/.claude/skills` (absolute).
    pub root: PathBuf,
}

/// Renders as `project /repo/.claude/skills`.
impl fmt::Display for SkillSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.scope.as_str(), self.root.display())
    }
}

/// Skills directories inside the home directory, in search order.
const HOME_DIRS: &[&str] = &[".claude/skills", ".agents/skills"];
/// Skills directories inside the XDG configuration home, in search order.
/// OpenCode reads both spellings.
const CONFIG_HOME_DIRS: &[&str] = &["opencode/skill", "opencode/skills"];
/// Skills directories inside the project, in search order (last wins).
const PROJECT_DIRS: &[&str] = &[
    ".claude/skills",
    ".agents/skills",
    ".opencode/skill",
    ".opencode/skills",
    ".ward/skills",
];

impl SkillRoots {
    /// Roots for `project` from the process environment (`HOME`,
    /// `XDG_CONFIG_HOME`); the global directory is Ward's
    /// (`$XDG_CONFIG_HOME/ward`, else `~/.config/ward`).
    pub fn from_env(project: impl Into<PathBuf>) -> Self {
        let env = |name: &str| std::env::var(name).ok();
        Self::from_lookup(project, &env)
    }

    /// [`SkillRoots::from_env`] reading variables through `env`, so callers
    /// and tests control them. Empty `HOME` and relative `XDG_CONFIG_HOME`
    /// values are ignored (the XDG specification says relative ones are
    /// invalid).
    pub fn from_lookup(project: impl Into<PathBuf>, env: &dyn Fn(&str) -> Option<String>) -> Self {
        let home = env("HOME")
            .filter(|home| !home.is_empty())
            .map(PathBuf::from);
        let config_home = env("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .filter(|dir| dir.is_absolute());
        SkillRoots {
            home,
            config_home,
            global_dir: ward_config::global_config_dir(env),
            project: project.into(),
        }
    }

    /// Every skills directory, in search order (later wins on equal names):
    ///
    /// 1. `~/.claude/skills`, `~/.agents/skills`
    /// 2. `$XDG_CONFIG_HOME/opencode/skill`, `$XDG_CONFIG_HOME/opencode/skills`
    ///    (`~/.config/opencode/…` without `XDG_CONFIG_HOME`)
    /// 3. `<global_dir>/skills`
    /// 4. `<project>/.claude/skills`, `.agents/skills`, `.opencode/skill`,
    ///    `.opencode/skills`, `.ward/skills`
    ///
    /// Directories are made absolute (against the current directory) but not
    /// resolved, so symlinked skill directories keep the path the user wrote.
    /// A directory listed twice (say the project is the home directory) is
    /// kept at its last position only.
    pub fn search_order(&self) -> Vec<SkillSource> {
        let mut out = Vec::new();
        let mut push = |scope, root: PathBuf| {
            let root = std::path::absolute(&root).unwrap_or(root);
            out.retain(|s: &SkillSource| s.root != root);
            out.push(SkillSource { scope, root });
        };
        if let Some(home) = &self.home {
            for dir in HOME_DIRS {
                push(Scope::User, join(home, dir));
            }
        }
        let config_home = self
            .config_home
            .clone()
            .or_else(|| self.home.as_ref().map(|home| home.join(".config")));
        if let Some(config_home) = config_home {
            for dir in CONFIG_HOME_DIRS {
                push(Scope::User, join(&config_home, dir));
            }
        }
        if let Some(global) = &self.global_dir {
            push(Scope::Global, global.join("skills"));
        }
        for dir in PROJECT_DIRS {
            push(Scope::Project, join(&self.project, dir));
        }
        out
    }
}

/// `base` joined with a `/`-separated relative path.
fn join(base: &Path, relative: &str) -> PathBuf {
    relative
        .split('/')
        .fold(base.to_path_buf(), |p, c| p.join(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_and_environment() {
        let env = |name: &str| match name {
            "HOME" => Some("/home/me".to_string()),
            "XDG_CONFIG_HOME" => Some("/xdg".to_string()),
            _ => None,
        };
        let roots = SkillRoots::from_lookup("/repo", &env);
        assert_eq!(roots.global_dir, Some(PathBuf::from("/xdg/ward")));
        let order: Vec<String> = roots.search_order().iter().map(|s| s.to_string()).collect();
        assert_eq!(
            order,
            [
                "user /home/me/.claude/skills",
                "user /home/me/.agents/skills",
                "user /xdg/opencode/skill",
                "user /xdg/opencode/skills",
                "global /xdg/ward/skills",
                "project /repo/.claude/skills",
                "project /repo/.agents/skills",
                "project /repo/.opencode/skill",
                "project /repo/.opencode/skills",
                "project /repo/.ward/skills",
            ]
        );
    }

    #[test]
    fn without_xdg_and_with_project_at_home() {
        let env = |name: &str| (name == "HOME").then(|| "/home/me".to_string());
        let roots = SkillRoots::from_lookup("/home/me", &env);
        let order = roots.search_order();
        let roots: Vec<_> = order.iter().map(|s| s.root.clone()).collect();
        assert!(roots.contains(&PathBuf::from("/home/me/.config/opencode/skills")));
        assert!(roots.contains(&PathBuf::from("/home/me/.config/ward/skills")));
        // `~/.claude/skills` is also the project's; it counts once, as project.
        let claude: Vec<_> = order
            .iter()
            .filter(|s| s.root == Path::new("/home/me/.claude/skills"))
            .collect();
        assert_eq!(claude.len(), 1);
        assert_eq!(claude[0].scope, Scope::Project);
        assert!(SkillRoots::from_lookup("/p", &|_| None).home.is_none());
    }
}
