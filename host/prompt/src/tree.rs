//! A bounded file tree of the project, respecting `.gitignore`.
//!
//! One sorted, depth-limited walk collects at most [`PER_DIR`] entries per
//! directory (hidden entries and ignored files are skipped, `.gitignore`
//! applies even outside a git repository). Entries are then chosen breadth
//! first up to [`MAX_ENTRIES`], so the top levels are always shown and deep
//! directories give way first. A directory with entries left out ends with
//! a `… N more` line; directories past the depth limit or the entry budget
//! are shown without their contents.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use ignore::WalkBuilder;

/// Most entries shown (the `… N more` lines not counted).
pub const MAX_ENTRIES: usize = 200;

/// Deepest level listed; the project's own entries are level 1.
pub const MAX_DEPTH: usize = 4;

/// Most entries of one directory collected.
pub const PER_DIR: usize = 50;

/// Most entries the walk visits before it stops, whatever their depth.
const MAX_VISITED: usize = 20_000;

/// One collected entry.
struct Node {
    name: String,
    is_dir: bool,
    depth: usize,
    children: Vec<usize>,
    /// Entries of this directory beyond [`PER_DIR`].
    skipped: usize,
    shown: bool,
}

/// The tree of `root` as indented lines, two spaces per level, directories
/// ending in `/`. Empty when nothing could be listed.
pub(crate) fn render(root: &Path) -> String {
    let nodes = collect(root);
    let mut lines = Vec::new();
    render_children(&nodes, 0, &mut lines);
    lines.join("\n")
}

/// Walks `root`; node 0 is the root itself.
fn collect(root: &Path) -> Vec<Node> {
    // Entries seen per directory, to cut each one at PER_DIR.
    let counts: Arc<Mutex<HashMap<PathBuf, usize>>> = Arc::default();
    let filter_counts = Arc::clone(&counts);
    let walk = WalkBuilder::new(root)
        .max_depth(Some(MAX_DEPTH))
        .require_git(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(move |entry| {
            let Some(parent) = entry.path().parent() else {
                return true;
            };
            let mut counts = filter_counts.lock().unwrap_or_else(PoisonError::into_inner);
            let count = counts.entry(parent.to_path_buf()).or_default();
            *count += 1;
            *count <= PER_DIR
        })
        .build();

    let mut nodes = vec![Node {
        name: String::new(),
        is_dir: true,
        depth: 0,
        children: Vec::new(),
        skipped: 0,
        shown: true,
    }];
    let mut index: HashMap<PathBuf, usize> = HashMap::new();
    index.insert(root.to_path_buf(), 0);
    for entry in walk.filter_map(Result::ok).take(MAX_VISITED) {
        if entry.depth() == 0 {
            continue;
        }
        let path = entry.path();
        let Some(&parent) = path.parent().and_then(|p| index.get(p)) else {
            continue;
        };
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        let id = nodes.len();
        nodes.push(Node {
            name: entry.file_name().to_string_lossy().into_owned(),
            is_dir,
            depth: entry.depth(),
            children: Vec::new(),
            skipped: 0,
            shown: false,
        });
        nodes[parent].children.push(id);
        if is_dir {
            index.insert(path.to_path_buf(), id);
        }
    }

    let counts = counts.lock().unwrap_or_else(PoisonError::into_inner);
    for (path, &id) in &index {
        nodes[id].skipped = counts.get(path).map_or(0, |n| n.saturating_sub(PER_DIR));
    }
    drop(counts);
    choose_breadth_first(&mut nodes);
    nodes
}

/// Marks up to [`MAX_ENTRIES`] nodes as shown, level by level.
fn choose_breadth_first(nodes: &mut [Node]) {
    let mut queue: VecDeque<usize> = nodes[0].children.iter().copied().collect();
    let mut budget = MAX_ENTRIES;
    while let Some(id) = queue.pop_front() {
        if budget == 0 {
            break;
        }
        budget -= 1;
        nodes[id].shown = true;
        queue.extend(nodes[id].children.iter().copied());
    }
}

/// Appends the shown children of `id`, depth first, with `… N more` lines.
fn render_children(nodes: &[Node], id: usize, lines: &mut Vec<String>) {
    let node = &nodes[id];
    let mut hidden = node.skipped;
    let mut any_shown = false;
    for &child in &node.children {
        let child_node = &nodes[child];
        if !child_node.shown {
            hidden += 1;
            continue;
        }
        any_shown = true;
        let indent = "  ".repeat(child_node.depth - 1);
        let slash = if child_node.is_dir { "/" } else { "" };
        lines.push(format!("{indent}{}{slash}", child_node.name));
        render_children(nodes, child, lines);
    }
    // A directory with nothing shown stays a bare `name/`: listing only a
    // marker under it would spend lines without naming anything.
    if hidden > 0 && (any_shown || id == 0) {
        let indent = "  ".repeat(node.depth);
        lines.push(format!("{indent}… {hidden} more"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn touch(root: &Path, rel: &str) {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, "x").unwrap();
    }

    #[test]
    fn respects_gitignore_and_hidden_and_sorts() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join(".gitignore"), "target/\n*.log\n").unwrap();
        touch(root, "target/debug/out");
        touch(root, "b.log");
        touch(root, ".hidden/x");
        touch(root, "src/main.rs");
        touch(root, "src/lib.rs");
        touch(root, "Cargo.toml");
        assert_eq!(render(root), "Cargo.toml\nsrc/\n  lib.rs\n  main.rs");
    }

    #[test]
    fn bounded_breadth_first_with_markers() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for i in 0..60 {
            touch(root, &format!("top{i:02}.txt"));
        }
        for d in 0..10 {
            for f in 0..32 {
                touch(root, &format!("dir{d}/f{f:02}.rs"));
            }
        }
        let out = render(root);
        let entries = out
            .lines()
            .filter(|l| !l.trim_start().starts_with('…'))
            .count();
        assert_eq!(entries, MAX_ENTRIES, "{out}");
        // All ten directories are listed, before any cut of their contents.
        for d in 0..10 {
            assert!(out.lines().any(|l| l == format!("dir{d}/")), "{out}");
        }
        // The top level holds 70 entries, of which PER_DIR are collected.
        assert!(out.ends_with(&format!("… {} more", 70 - PER_DIR)), "{out}");
        assert!(out.contains("\n  … "), "{out}");
        // Deterministic.
        assert_eq!(out, render(root));
    }

    #[test]
    fn depth_is_limited() {
        let dir = tempfile::tempdir().unwrap();
        touch(dir.path(), "a/b/c/d/e/f.txt");
        assert_eq!(render(dir.path()), "a/\n  b/\n    c/\n      d/");
    }
}
