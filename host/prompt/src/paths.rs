//! Path helpers: the git root, the global config directory, `~/` expansion
//! and normalisation for comparing paths.

use std::path::{Component, Path, PathBuf};

/// The nearest ancestor of `dir` (itself included) holding `.git` (a
/// directory, or a file in worktrees and submodules).
pub(crate) fn git_root(dir: &Path) -> Option<&Path> {
    dir.ancestors().find(|d| d.join(".git").exists())
}

/// Where the global `AGENTS.md` lives, from the process environment:
/// `$WARD_CONFIG_DIR` when set and non-empty, else Ward's global configuration
/// directory (`$XDG_CONFIG_HOME/ward`, else `~/.config/ward`).
pub fn default_global_dir() -> Option<PathBuf> {
    let env = |name: &str| std::env::var(name).ok();
    global_dir_from(&env)
}

/// [`default_global_dir`] with the environment supplied by the caller.
pub(crate) fn global_dir_from(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    match env("WARD_CONFIG_DIR").filter(|dir| !dir.is_empty()) {
        Some(dir) => Some(PathBuf::from(dir)),
        None => ward_config::global_config_dir(env),
    }
}

/// Expands a leading `~/` (or a bare `~`) against `home`.
pub(crate) fn expand_tilde(path: &str, home: Option<&Path>) -> PathBuf {
    match (path.strip_prefix('~'), home) {
        (Some(""), Some(home)) => home.to_path_buf(),
        (Some(rest), Some(home)) if rest.starts_with('/') || rest.starts_with('\\') => {
            home.join(&rest[1..])
        }
        _ => PathBuf::from(path),
    }
}

/// `path` resolved for comparison: canonical when it (or its parent) exists,
/// else cleaned of `.` and `..` lexically.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    if let Ok(canonical) = path.canonicalize() {
        return canonical;
    }
    if let (Some(parent), Some(name)) = (path.parent(), path.file_name())
        && let Ok(parent) = parent.canonicalize()
    {
        return parent.join(name);
    }
    lexical_clean(path)
}

/// Removes `.` components and folds `..` into the preceding component.
pub(crate) fn lexical_clean(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(component);
                }
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn global_dir_prefers_ward_config_dir() {
        let env = |name: &str| match name {
            "WARD_CONFIG_DIR" => Some("/w".to_owned()),
            "XDG_CONFIG_HOME" => Some("/x".to_owned()),
            _ => None,
        };
        assert_eq!(global_dir_from(&env), Some(PathBuf::from("/w")));
        let env = |name: &str| match name {
            "WARD_CONFIG_DIR" => Some(String::new()),
            "XDG_CONFIG_HOME" => Some("/x".to_owned()),
            _ => None,
        };
        assert_eq!(global_dir_from(&env), Some(PathBuf::from("/x/ward")));
        let env = |name: &str| (name == "HOME").then(|| "/h".to_owned());
        assert_eq!(
            global_dir_from(&env),
            Some(PathBuf::from("/h/.config/ward"))
        );
        assert_eq!(global_dir_from(&|_: &str| None), None);
    }

    #[test]
    fn tilde_expands_only_at_the_start() {
        let home = Some(Path::new("/h"));
        assert_eq!(expand_tilde("~/a.md", home), PathBuf::from("/h/a.md"));
        assert_eq!(expand_tilde("~", home), PathBuf::from("/h"));
        assert_eq!(expand_tilde("~x/a.md", home), PathBuf::from("~x/a.md"));
        assert_eq!(expand_tilde("a/~/b", home), PathBuf::from("a/~/b"));
        assert_eq!(expand_tilde("~/a.md", None), PathBuf::from("~/a.md"));
    }

    #[test]
    fn lexical_clean_folds_dots() {
        assert_eq!(
            lexical_clean(Path::new("/a/./b/../c")),
            PathBuf::from("/a/c")
        );
    }
}
