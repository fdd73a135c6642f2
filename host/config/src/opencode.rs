//! Where an OpenCode project and user keep what Ward also reads: OpenCode's
//! directories of agents and commands (singular and plural spellings, as OpenCode
//! accepts both), in the project's `.opencode/` and in OpenCode's global
//! configuration directory, which sits beside Ward's (`$XDG_CONFIG_HOME/opencode`,
//! else `~/.config/opencode`). They are read below Ward's own directories, so a
//! `.ward/agents/review.md` overrides a `.opencode/agent/review.md`.

use std::path::{Path, PathBuf};

/// OpenCode's spellings of its agents directory.
pub const AGENT_DIRS: &[&str] = &["agent", "agents"];
/// OpenCode's spellings of its commands directory.
pub const COMMAND_DIRS: &[&str] = &["command", "commands"];

/// OpenCode's global configuration directory, beside Ward's `global_dir` (both
/// under the same XDG configuration base).
pub fn global_dir(ward_global_dir: &Path) -> Option<PathBuf> {
    ward_global_dir.parent().map(|base| base.join("opencode"))
}

/// The project's OpenCode directories named `names` (`.opencode/agent`, …).
pub fn project_dirs(project: &Path, names: &[&str]) -> Vec<PathBuf> {
    names
        .iter()
        .map(|name| project.join(".opencode").join(name))
        .collect()
}

/// OpenCode's global directories named `names`, found beside Ward's global
/// directory.
pub fn global_dirs(ward_global_dir: Option<&Path>, names: &[&str]) -> Vec<PathBuf> {
    let Some(base) = ward_global_dir.and_then(global_dir) else {
        return Vec::new();
    };
    names.iter().map(|name| base.join(name)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opencode_lives_beside_ward() {
        let ward = Path::new("/home/u/.config/ward");
        assert_eq!(
            global_dirs(Some(ward), AGENT_DIRS),
            [
                PathBuf::from("/home/u/.config/opencode/agent"),
                PathBuf::from("/home/u/.config/opencode/agents")
            ]
        );
        assert_eq!(
            project_dirs(Path::new("/p"), COMMAND_DIRS)[1],
            PathBuf::from("/p/.opencode/commands")
        );
    }
}
