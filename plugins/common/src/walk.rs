//! A recursive directory walker for the search tools: sorted, skips well-known heavy
//! directories (`.git`, `node_modules`), honours `.gitignore`, never follows symlinked
//! directories (no loops), and lets the caller stop early.
//!
//! Hand-written over [`crate::fs::read_dir`] rather than the `ignore` crate's walker
//! (#15 item 7): that walker builds for wasm32-wasip2 and gave the same results on
//! every tool test, but lists directories through `std::fs` (inside the sandbox that is
//! wasi-libc, one more host call per entry) and was measurably slower even natively —
//! fastest of 30 runs, this walker against `ignore::WalkBuilder`: grep over 5,000 files
//! 11.9–16.4 ms against 20.4–24.0 ms, glob `**/*.txt` over 11,300 files 10.1–12.7 ms
//! against 15.3–16.9 ms, list 3.0–4.1 ms against 5.1–5.2 ms. In the sandbox (criterion,
//! `tools/grep 5,000 files, sandboxed`, runs alternated with this walker's) it took
//! 96, 120, 72 and 60 ms against 66, 81, 52 and 56 ms. The `.gitignore` rules
//! themselves are the `ignore` crate's (see [`crate::ignore`]).

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use crate::fs::{self, Kind};
use crate::glob::Glob;
use crate::ignore::{IgnoreFile, is_ignored};

/// Directories the search tools (`glob`, `grep`) never enter.
pub const ALWAYS_SKIPPED: &[&str] = &[".git", "node_modules"];

/// What to walk and what to leave out.
#[derive(Debug, Clone, Default)]
pub struct WalkOptions {
    /// Directory names never entered, at any depth.
    pub skip_dirs: Vec<String>,
    /// Honour `.gitignore` files.
    pub gitignore: bool,
    /// The project root: `.gitignore` files between it and the walked root apply too.
    pub project: Option<PathBuf>,
    /// Extra globs; matching entries (relative to the root) are left out.
    pub ignore: Vec<Glob>,
}

impl WalkOptions {
    /// The search tools' defaults: skip `.git` and `node_modules`, honour `.gitignore`.
    pub fn search(project: &str) -> Self {
        WalkOptions {
            skip_dirs: ALWAYS_SKIPPED.iter().map(|s| s.to_string()).collect(),
            gitignore: true,
            project: Some(PathBuf::from(project)),
            ignore: Vec::new(),
        }
    }
}

/// One file or directory found.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Its full path.
    pub path: PathBuf,
    /// Its path relative to the walked root, `/`-separated.
    pub rel: String,
    /// A directory (or a symlink to one).
    pub is_dir: bool,
    /// A symbolic link (not followed when it points to a directory).
    pub is_symlink: bool,
    /// 1 for the root's direct children.
    pub depth: usize,
}

impl Entry {
    /// The entry's modification time in nanoseconds since the epoch (0 when unknown), for
    /// newest-first sorting.
    pub fn mtime(&self) -> u128 {
        mtime(&self.path)
    }
}

/// Modification time of `path` in nanoseconds since the epoch, 0 when unknown.
pub fn mtime(path: &Path) -> u128 {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

/// Walks `root` depth-first, entries of each directory sorted by name, calling `visit`
/// for every entry not left out; `visit` returns `Break` to stop. Fails only when `root`
/// itself cannot be read; unreadable subdirectories are skipped.
pub fn walk(
    root: &Path,
    options: &WalkOptions,
    mut visit: impl FnMut(&Entry) -> ControlFlow<()>,
) -> std::io::Result<()> {
    std::fs::read_dir(root)?;
    let mut stack = Vec::new();
    if options.gitignore
        && let Some(project) = &options.project
        && let Ok(rel) = root.strip_prefix(project)
    {
        let mut dir = project.clone();
        for component in rel.parent().into_iter().flat_map(|p| p.components()) {
            stack.extend(IgnoreFile::load(&dir));
            dir.push(component);
        }
        if !rel.as_os_str().is_empty() {
            stack.extend(IgnoreFile::load(&dir));
        }
    }
    let _ = walk_dir(root, "", 1, options, &mut stack, &mut visit);
    Ok(())
}

fn walk_dir(
    dir: &Path,
    prefix: &str,
    depth: usize,
    options: &WalkOptions,
    stack: &mut Vec<IgnoreFile>,
    visit: &mut impl FnMut(&Entry) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let pushed = match options.gitignore.then(|| IgnoreFile::load(dir)).flatten() {
        Some(file) => {
            stack.push(file);
            true
        }
        None => false,
    };
    let result = walk_entries(dir, prefix, depth, options, stack, visit);
    if pushed {
        stack.pop();
    }
    result
}

fn walk_entries(
    dir: &Path,
    prefix: &str,
    depth: usize,
    options: &WalkOptions,
    stack: &mut Vec<IgnoreFile>,
    visit: &mut impl FnMut(&Entry) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let Ok(entries) = fs::read_dir(dir) else {
        return ControlFlow::Continue(());
    };
    let mut children: Vec<(String, PathBuf, bool, bool)> = entries
        .into_iter()
        .map(|entry| {
            let path = dir.join(&entry.name);
            let is_symlink = entry.kind == Kind::Symlink;
            let is_dir = if is_symlink {
                std::fs::metadata(&path).is_ok_and(|m| m.is_dir())
            } else {
                entry.kind == Kind::Dir
            };
            let name = entry.name.to_string_lossy().into_owned();
            (name, path, is_dir, is_symlink)
        })
        .collect();
    children.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, path, is_dir, is_symlink) in children {
        if is_dir && options.skip_dirs.contains(&name) {
            continue;
        }
        if options.gitignore && is_ignored(stack, &path, is_dir) {
            continue;
        }
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        if options.ignore.iter().any(|g| g.is_match(&rel)) {
            continue;
        }
        let entry = Entry {
            path,
            rel,
            is_dir,
            is_symlink,
            depth,
        };
        visit(&entry)?;
        if is_dir && !is_symlink {
            walk_dir(&entry.path, &entry.rel, depth + 1, options, stack, visit)?;
        }
    }
    ControlFlow::Continue(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TempDir;

    fn collect(root: &Path, options: &WalkOptions) -> Vec<String> {
        let mut out = Vec::new();
        let walked = walk(root, options, |e| {
            out.push(if e.is_dir {
                format!("{}/", e.rel)
            } else {
                e.rel.clone()
            });
            ControlFlow::Continue(())
        });
        assert!(walked.is_ok());
        out
    }

    #[test]
    fn walks_sorted_and_skips_heavy_dirs() -> std::io::Result<()> {
        let t = TempDir::new("walk")?;
        t.write("b.txt", "")?;
        t.write("a/x.rs", "")?;
        t.write(".git/HEAD", "")?;
        t.write("node_modules/m/index.js", "")?;
        let got = collect(t.path(), &WalkOptions::search(&t.dir()));
        assert_eq!(got, vec!["a/", "a/x.rs", "b.txt"]);
        Ok(())
    }

    #[test]
    fn honours_gitignore_including_parents_of_the_root() -> std::io::Result<()> {
        let t = TempDir::new("walk-ignore")?;
        t.write(".gitignore", "target/\n*.log\n")?;
        t.write("sub/.gitignore", "!keep.log\n")?;
        t.write("target/debug/x", "")?;
        t.write("sub/a.log", "")?;
        t.write("sub/keep.log", "")?;
        t.write("sub/deeper/b.log", "")?;
        t.write("sub/deeper/c.txt", "")?;
        let all = collect(t.path(), &WalkOptions::search(&t.dir()));
        assert_eq!(
            all,
            vec![
                ".gitignore",
                "sub/",
                "sub/.gitignore",
                "sub/deeper/",
                "sub/deeper/c.txt",
                "sub/keep.log"
            ]
        );
        let deeper = collect(&t.path().join("sub/deeper"), &WalkOptions::search(&t.dir()));
        assert_eq!(deeper, vec!["c.txt"]);
        Ok(())
    }

    #[test]
    fn extra_ignore_globs_and_early_stop() -> std::io::Result<()> {
        let t = TempDir::new("walk-stop")?;
        for i in 0..5 {
            t.write(&format!("f{i}.txt"), "")?;
        }
        t.write("skip.md", "")?;
        let mut options = WalkOptions::search(&t.dir());
        options.ignore = vec![Glob::new("*.md").map_err(std::io::Error::other)?];
        assert_eq!(collect(t.path(), &options).len(), 5);
        let mut seen = 0;
        walk(t.path(), &options, |_| {
            seen += 1;
            if seen == 2 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })?;
        assert_eq!(seen, 2);
        Ok(())
    }

    #[test]
    fn a_missing_root_is_an_error() {
        let missing = std::env::temp_dir().join("ward-definitely-missing-dir-xyz");
        assert!(
            walk(
                &missing,
                &WalkOptions::default(),
                |_| ControlFlow::Continue(())
            )
            .is_err()
        );
    }
}
