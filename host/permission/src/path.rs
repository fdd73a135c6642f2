//! File paths as permission patterns.
//!
//! Owns how a path becomes the pattern that `read` / `edit` rules see (relative to
//! the project, `/`-separated) and whether it lies outside the project, which needs
//! the `external_directory` permission. Everything is lexical: no filesystem access,
//! so a path that does not exist yet (a file about to be written) works the same.

use std::path::{Component, Path, PathBuf};

/// Resolves `.` and `..` lexically. `..` above the root stays at the root; leading
/// `..` of a relative path are kept. Symlinks are deliberately not followed.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                Some(Component::ParentDir | Component::CurDir) | None => out.push(".."),
            },
            other => out.push(other),
        }
    }
    out
}

/// The pattern rules see for `path`: relative to `project_root` with `/`
/// separators (`.` for the root itself), or the absolute normalised path when it
/// is outside the project. A relative `path` is taken relative to the project.
pub fn relative_pattern(path: &Path, project_root: &Path) -> String {
    let root = normalize(project_root);
    let full = normalize(&root.join(path));
    match full.strip_prefix(&root) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => slashes(rel),
        Err(_) => slashes(&full),
    }
}

/// Whether `path` lies outside `project_root` and every directory in
/// `also_allowed` (e.g. the tool-output and temp dirs). Paths are normalised
/// lexically first, so `src/../../etc` is external; comparison is by whole
/// components, so `/proj2` is not inside `/proj`.
pub fn is_external(path: &Path, project_root: &Path, also_allowed: &[PathBuf]) -> bool {
    let root = normalize(project_root);
    let full = normalize(&root.join(path));
    if full.starts_with(&root) {
        return false;
    }
    !also_allowed
        .iter()
        .any(|dir| full.starts_with(normalize(&root.join(dir))))
}

fn slashes(path: &Path) -> String {
    let text = path.to_string_lossy();
    if std::path::MAIN_SEPARATOR == '/' {
        text.into_owned()
    } else {
        text.replace(std::path::MAIN_SEPARATOR, "/")
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn p(s: &str) -> PathBuf {
        PathBuf::from(s)
    }

    #[test]
    fn normalize_resolves_dots() {
        assert_eq!(normalize(&p("/a/./b/../c")), p("/a/c"));
        assert_eq!(normalize(&p("/../x")), p("/x"));
        assert_eq!(normalize(&p("a/../../b")), p("../b"));
        assert_eq!(normalize(&p("./a/")), p("a"));
        assert_eq!(normalize(&p("")), p(""));
    }

    #[test]
    fn relative_pattern_inside_and_outside() {
        let root = p("/work/proj");
        assert_eq!(
            relative_pattern(&p("/work/proj/src/main.rs"), &root),
            "src/main.rs"
        );
        assert_eq!(relative_pattern(&p("src/main.rs"), &root), "src/main.rs");
        assert_eq!(relative_pattern(&p("./src/../.env"), &root), ".env");
        assert_eq!(relative_pattern(&p("/work/proj"), &root), ".");
        assert_eq!(relative_pattern(&p("/etc/passwd"), &root), "/etc/passwd");
        assert_eq!(relative_pattern(&p("../other/x"), &root), "/work/other/x");
        assert_eq!(
            relative_pattern(&p("/work/proj2/x"), &root),
            "/work/proj2/x"
        );
        assert_eq!(
            relative_pattern(&p("/work/proj/a/../b"), &p("/work/./proj/")),
            "b"
        );
    }

    #[test]
    fn external_directory_with_dotdot() {
        let root = p("/work/proj");
        let none: &[PathBuf] = &[];
        assert!(!is_external(&p("src/lib.rs"), &root, none));
        assert!(!is_external(&p("/work/proj"), &root, none));
        assert!(!is_external(&p("/work/proj/a/../b"), &root, none));
        assert!(is_external(&p("src/../../etc/passwd"), &root, none));
        assert!(is_external(&p("/work/proj/../secret"), &root, none));
        assert!(is_external(&p("/work/proj2/file"), &root, none));
        assert!(is_external(&p("/etc/hosts"), &root, none));
    }

    #[test]
    fn also_allowed_dirs_are_not_external() {
        let root = p("/work/proj");
        let allowed = [p("/tmp/ward"), p("/home/u/.local/share/ward/tool-output/")];
        assert!(!is_external(&p("/tmp/ward/x.txt"), &root, &allowed));
        assert!(!is_external(
            &p("/home/u/.local/share/ward/tool-output/t1"),
            &root,
            &allowed
        ));
        assert!(is_external(&p("/tmp/ward/../other"), &root, &allowed));
        assert!(is_external(&p("/tmp/wardx"), &root, &allowed));
    }
}

/// Symlinks followed while resolving one path (Linux's `MAXSYMLINKS`).
const MAX_LINKS: u8 = 40;

/// `path` (absolute) with every symlink resolved, as far as it exists: an existing path
/// is canonicalised; a missing one is its resolved parent joined with its name (a file
/// about to be created); a dangling symlink is resolved through its target. `None` when
/// it cannot be resolved (a loop, unreadable directories).
pub fn resolve_links(path: &Path) -> Option<PathBuf> {
    resolve_at(path, 0)
}

fn resolve_at(path: &Path, depth: u8) -> Option<PathBuf> {
    if depth > MAX_LINKS {
        return None;
    }
    if let Ok(found) = std::fs::canonicalize(path) {
        return Some(found);
    }
    let (parent, name) = (path.parent()?, path.file_name()?);
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            let target = std::fs::read_link(path).ok()?;
            let base = resolve_at(parent, depth + 1)?;
            resolve_at(&normalize(&base.join(target)), depth + 1)
        }
        Ok(_) => None,
        Err(_) => Some(resolve_at(parent, depth + 1)?.join(name)),
    }
}
