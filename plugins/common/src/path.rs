//! Resolving the path arguments tools receive: absolute, or relative to the project
//! directory, normalised lexically (the sandbox has no symlink-free `canonicalize`).

use std::path::{Component, Path, PathBuf};

use ward_sdk::ToolError;

/// Resolves `input` against `directory` (the project root) unless it is absolute, then
/// removes `.` and `..` components lexically. An empty input means the directory itself.
pub fn resolve(directory: &str, input: &str) -> PathBuf {
    let input = input.trim();
    let joined = if input.is_empty() {
        PathBuf::from(directory)
    } else if Path::new(input).is_absolute() {
        PathBuf::from(input)
    } else {
        Path::new(directory).join(input)
    };
    normalize(&joined)
}

/// Removes `.` and `..` components without touching the filesystem. `..` at the root
/// stays at the root, as the OS would do.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                let can_pop = matches!(out.components().next_back(), Some(Component::Normal(_)));
                if can_pop {
                    out.pop();
                } else if !out.has_root() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// How a path is shown in titles: relative to the project directory when inside it
/// (`.` for the directory itself), absolute otherwise.
pub fn display_path(directory: &str, path: &Path) -> String {
    match path.strip_prefix(directory) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => path.to_string_lossy().into_owned(),
    }
}

/// Whether `path` lies inside the project directory.
pub fn is_inside(directory: &str, path: &Path) -> bool {
    path.starts_with(directory)
}

/// A filesystem error as a [`ToolError::Failed`] naming the path. Outside the project the
/// sandbox only sees granted directories, so a hint says why the path may be missing.
pub fn fs_error(directory: &str, path: &Path, err: &std::io::Error) -> ToolError {
    ToolError::Failed(format!(
        "{}: {err}{}",
        path.display(),
        outside_hint(directory, path)
    ))
}

/// Creates the missing parent directories of `path`. Existing ones are left alone (not
/// even `mkdir`ed again): inside Ward every directory creation is checked against the
/// `edit` rules, and re-creating the project directory would ask about `.`.
pub fn ensure_parent(directory: &str, path: &Path) -> Result<(), ToolError> {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() && !parent.is_dir() => {
            std::fs::create_dir_all(parent).map_err(|e| fs_error(directory, parent, &e))
        }
        _ => Ok(()),
    }
}

/// The hint appended to errors about paths outside the project directory.
pub fn outside_hint(directory: &str, path: &Path) -> &'static str {
    if is_inside(directory, path) {
        ""
    } else {
        " (the path is outside the project directory; only directories granted to this tool are accessible)"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_join_the_project_directory() {
        assert_eq!(resolve("/p", "src/a.rs"), PathBuf::from("/p/src/a.rs"));
        assert_eq!(resolve("/p", "./src/../b.rs"), PathBuf::from("/p/b.rs"));
        assert_eq!(resolve("/p", ""), PathBuf::from("/p"));
        assert_eq!(resolve("/p", "."), PathBuf::from("/p"));
    }

    #[test]
    fn absolute_paths_are_normalised() {
        assert_eq!(
            resolve("/p", "/etc/./x/../passwd"),
            PathBuf::from("/etc/passwd")
        );
        assert_eq!(resolve("/p", "/../../x"), PathBuf::from("/x"));
        assert_eq!(resolve("/p/q", "../../../r"), PathBuf::from("/r"));
    }

    #[test]
    fn relative_normalisation_keeps_leading_parents() {
        assert_eq!(
            normalize(Path::new("../a/../../b")),
            PathBuf::from("../../b")
        );
        assert_eq!(normalize(Path::new("a/..")), PathBuf::from("."));
    }

    #[test]
    fn display_is_relative_inside_the_project() {
        assert_eq!(display_path("/p", Path::new("/p/src/a.rs")), "src/a.rs");
        assert_eq!(display_path("/p", Path::new("/p")), ".");
        assert_eq!(display_path("/p", Path::new("/q/a")), "/q/a");
        assert_eq!(display_path("/p", Path::new("/pq/a")), "/pq/a");
    }

    #[test]
    fn errors_outside_the_project_carry_a_hint() {
        let err = std::io::Error::from(std::io::ErrorKind::NotFound);
        let ToolError::Failed(msg) = fs_error("/p", Path::new("/etc/x"), &err) else {
            panic!("expected Failed");
        };
        assert!(msg.starts_with("/etc/x: "));
        assert!(msg.contains("outside the project"));
    }
}
