//! What a local server's own installation is: the files and directories its program
//! (and the files named on its command line) need to be read, found from where they
//! are installed — and nothing around them.
//!
//! - A file named as an **argument** opens that file (by the name given and where a
//!   link leads), never its directory or the package above it: naming a file is not
//!   evidence that anything beside it belongs to the server. The one exception is a
//!   file inside a package npm installed (below `node_modules`): that package is an
//!   installation by where it lies, so it opens as a program's does (below).
//! - The **program** is followed through links to the file it really is, and opens:
//!   - when it lies in a package installed below `node_modules`: that package and the
//!     packages its `package.json` depends on, resolved as Node resolves them — not
//!     the `node_modules` holding them, nor the directory holding that;
//!   - when it lies in a self-contained environment (a directory with `pyvenv.cfg` or
//!     `conda-meta`: a virtualenv, pipx's and uv's tool environments, conda): that
//!     environment, the interpreter its links lead to, and the directories its `.pth`
//!     files add to Python's path (an editable install's source);
//!   - else the nearest package root above it (`package.json`, `pyproject.toml`,
//!     `setup.py`);
//!   - as `PREFIX/bin/NAME`: `PREFIX/lib/NAME` and `PREFIX/lib/libNAME*` when they exist
//!     (an interpreter's own library: `python3.12`'s standard library) — never the
//!     prefix itself, which for `~/.local` or `/usr/local` holds every other program's
//!     files and, under `share`, their data;
//!   - the interpreter its `#!` line names, looked up in the server's `PATH`;
//!   - when none of those applies: its own directory, unless that is a `bin`
//!     directory (shared by every program installed beside it).
//!
//! No directory inferred is ever the root, the user's home or a directory above it.

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Files that mark the root of a package a program belongs to.
const PACKAGE_MARKERS: &[&str] = &["package.json", "pyproject.toml", "setup.py"];
/// Entries that make a directory a self-contained environment.
const ENVIRONMENT_MARKERS: &[&str] = &["pyvenv.cfg", "conda-meta"];
/// Node packages followed through their dependencies at most; a tree larger than this
/// opens its outermost `node_modules` instead (never the directory holding it).
const MAX_PACKAGES: usize = 4096;
/// How many interpreters deep a program is followed (a script run by a link to an
/// environment's interpreter, itself a link to the base one).
const MAX_DEPTH: usize = 4;
/// Bytes of a file read for its `#!` line, and at most of a `package.json` or a `.pth`.
const SHEBANG_BYTES: u64 = 256;
const MANIFEST_BYTES: u64 = 1 << 20;
/// Directory entries looked at at most when scanning one (a `bin`, a `lib`,
/// `site-packages`).
const MAX_ENTRIES: usize = 4096;

/// How a file came to be named on a server's command line.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Named {
    /// The program.
    Program,
    /// One of its arguments.
    Argument,
}

/// What bounds the search: the user's home (never opened, nor anything above it) and
/// the `PATH` the server will run with (where its `#!` interpreters are found).
pub struct Bounds<'a> {
    /// The user's home, when known.
    pub home: Option<&'a Path>,
    /// The server's `PATH`.
    pub path: &'a OsStr,
}

/// The files and directories `path`, named as `named`, opens to its server.
pub fn reach(path: &Path, named: Named, bounds: &Bounds<'_>) -> Vec<PathBuf> {
    let mut found = Found {
        bounds,
        paths: BTreeSet::new(),
        seen: BTreeSet::new(),
    };
    found.file(path, named, 0);
    found.paths.into_iter().collect()
}

/// What has been found so far.
struct Found<'a> {
    bounds: &'a Bounds<'a>,
    paths: BTreeSet<PathBuf>,
    /// Files and environments already followed (links can loop).
    seen: BTreeSet<PathBuf>,
}

impl Found<'_> {
    /// Whether `dir` is too broad to open: the root, the home or above it.
    fn too_broad(&self, dir: &Path) -> bool {
        dir.parent().is_none() || self.bounds.home.is_some_and(|h| h.starts_with(dir))
    }

    /// Opens `dir` unless it is too broad; whether it was.
    fn dir(&mut self, dir: &Path) -> bool {
        if self.too_broad(dir) {
            return false;
        }
        self.paths.insert(dir.to_path_buf());
        true
    }

    fn file(&mut self, path: &Path, named: Named, depth: usize) {
        if depth > MAX_DEPTH || !path.is_file() || !self.seen.insert(path.to_path_buf()) {
            return;
        }
        let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let mut names = vec![path.to_path_buf()];
        if real != path {
            names.push(real.clone());
        }
        self.paths.extend(names.iter().cloned());
        let mut housed = false;
        for p in &names {
            if let Some(package) = node_package(p) {
                self.node_packages(package);
                housed = true;
            }
        }
        if named == Named::Argument {
            return;
        }
        for p in &names {
            if let Some(env) = self.environment(p) {
                housed |= self.open_environment(&env, depth);
            } else if !in_node_modules(p)
                && let Some(root) = self.package_root(p)
            {
                housed |= self.dir(&root);
            }
            housed |= self.interpreter_library(p);
        }
        for interpreter in self.shebang(&real) {
            self.file(&interpreter, Named::Program, depth + 1);
        }
        if !housed
            && let Some(dir) = real.parent()
            && dir.file_name() != Some(OsStr::new("bin"))
        {
            self.dir(dir);
        }
    }

    /// The nearest directory above `path` that is a self-contained environment.
    fn environment(&self, path: &Path) -> Option<PathBuf> {
        path.ancestors()
            .skip(1)
            .take_while(|a| !self.too_broad(a))
            .find(|a| ENVIRONMENT_MARKERS.iter().any(|m| a.join(m).exists()))
            .map(Path::to_path_buf)
    }

    /// The nearest package root above `path`.
    fn package_root(&self, path: &Path) -> Option<PathBuf> {
        path.ancestors()
            .skip(1)
            .take_while(|a| !self.too_broad(a))
            .find(|a| PACKAGE_MARKERS.iter().any(|m| a.join(m).is_file()))
            .map(Path::to_path_buf)
    }

    /// Opens the environment `env`, the interpreters its links lead out to, and the
    /// directories its `.pth` files add; whether it was opened.
    fn open_environment(&mut self, env: &Path, depth: usize) -> bool {
        if !self.seen.insert(env.to_path_buf()) {
            return true;
        }
        if !self.dir(env) {
            return false;
        }
        // A virtualenv's interpreter is a link to the one it was made from, whose
        // standard library lies outside it: each link leading out is followed.
        let inside = std::fs::canonicalize(env).unwrap_or_else(|_| env.to_path_buf());
        for entry in entries(&env.join("bin")) {
            if let Ok(real) = std::fs::canonicalize(&entry)
                && !real.starts_with(&inside)
            {
                self.file(&entry, Named::Program, depth + 1);
            }
        }
        for site in site_packages(env) {
            for pth in entries(&site)
                .into_iter()
                .filter(|p| p.extension() == Some(OsStr::new("pth")))
            {
                for dir in pth_directories(&pth) {
                    self.dir(&dir);
                }
            }
        }
        true
    }

    /// `PREFIX/lib/NAME` and `PREFIX/lib/libNAME*` for `path` = `PREFIX/bin/NAME`;
    /// whether there were any.
    fn interpreter_library(&mut self, path: &Path) -> bool {
        let (Some(name), Some(bin)) = (path.file_name(), path.parent()) else {
            return false;
        };
        let Some(prefix) = bin
            .parent()
            .filter(|_| bin.file_name() == Some(OsStr::new("bin")))
        else {
            return false;
        };
        let lib = prefix.join("lib");
        let mut found = lib.join(name).is_dir() && self.dir(&lib.join(name));
        let mut shared = OsString::from("lib");
        shared.push(name);
        let shared = shared.to_string_lossy().into_owned();
        for entry in entries(&lib) {
            if entry.is_file()
                && entry
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(&shared))
            {
                self.paths.insert(entry);
                found = true;
            }
        }
        found
    }

    /// The programs `path`'s `#!` line names: each word but options, as an absolute
    /// path or looked up in the server's `PATH` (so `#!/usr/bin/env node` opens both
    /// `env` and the `node` it will run).
    fn shebang(&self, path: &Path) -> Vec<PathBuf> {
        let mut head = Vec::new();
        let read =
            std::fs::File::open(path).and_then(|f| f.take(SHEBANG_BYTES).read_to_end(&mut head));
        if read.is_err() || !head.starts_with(b"#!") {
            return Vec::new();
        }
        let line = head[2..].split(|b| *b == b'\n').next().unwrap_or_default();
        String::from_utf8_lossy(line)
            .split_whitespace()
            .filter(|w| !w.starts_with('-'))
            .filter_map(|w| {
                if w.starts_with('/') {
                    Some(PathBuf::from(w))
                } else if w.contains('/') {
                    None
                } else {
                    std::env::split_paths(self.bounds.path)
                        .map(|d| d.join(w))
                        .find(|c| c.is_file())
                }
            })
            .collect()
    }

    /// Opens `root` (a package below `node_modules`) and every package it depends on.
    fn node_packages(&mut self, root: PathBuf) {
        let mut queue = vec![root.clone()];
        let mut visited = BTreeSet::new();
        while let Some(package) = queue.pop() {
            if !visited.insert(package.clone()) {
                continue;
            }
            if visited.len() > MAX_PACKAGES {
                if let Some(modules) = root
                    .ancestors()
                    .filter(|a| a.file_name() == Some(OsStr::new("node_modules")))
                    .last()
                {
                    self.dir(modules);
                }
                return;
            }
            self.dir(&package);
            queue.extend(
                dependencies(&package)
                    .iter()
                    .filter_map(|name| resolve_package(&package, name)),
            );
        }
    }
}

/// Whether `path` lies below a `node_modules` directory.
fn in_node_modules(path: &Path) -> bool {
    path.ancestors()
        .any(|a| a.file_name() == Some(OsStr::new("node_modules")))
}

/// The package below `node_modules` that `path` belongs to: the deepest
/// `node_modules/NAME` or `node_modules/@SCOPE/NAME` above it with a `package.json`.
fn node_package(path: &Path) -> Option<PathBuf> {
    let modules =
        |p: Option<&Path>| p.and_then(Path::file_name) == Some(OsStr::new("node_modules"));
    path.ancestors()
        .skip(1)
        .find(|a| {
            let parent = a.parent();
            let scoped = parent
                .and_then(Path::file_name)
                .is_some_and(|n| n.to_string_lossy().starts_with('@'))
                && modules(parent.and_then(Path::parent));
            (modules(parent) || scoped) && a.join("package.json").is_file()
        })
        .map(Path::to_path_buf)
}

/// The names a package's `package.json` depends on (including optional and peer
/// dependencies, which Node loads when they are installed).
fn dependencies(package: &Path) -> Vec<String> {
    let Some(text) = read_bounded(&package.join("package.json"), MANIFEST_BYTES) else {
        return Vec::new();
    };
    let Ok(manifest) = serde_json::from_slice::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    ["dependencies", "optionalDependencies", "peerDependencies"]
        .iter()
        .filter_map(|field| manifest.get(field)?.as_object())
        .flat_map(|deps| deps.keys().cloned())
        .collect()
}

/// Where Node finds package `name` required from `package`: the first
/// `node_modules/NAME` in it or a directory above it.
fn resolve_package(package: &Path, name: &str) -> Option<PathBuf> {
    // A name is one path component, or `@SCOPE/NAME`: anything else (`..`, an absolute
    // path) in a manifest would reach outside `node_modules`.
    let parts: Vec<&str> = name.split('/').collect();
    let valid = |p: &&str| !p.is_empty() && *p != "." && *p != ".." && !p.contains('\\');
    let shaped = match parts.as_slice() {
        [one] => !one.starts_with('@'),
        [scope, _] => scope.starts_with('@'),
        _ => false,
    };
    if !shaped || !parts.iter().all(valid) {
        return None;
    }
    package
        .ancestors()
        .filter(|a| a.file_name() != Some(OsStr::new("node_modules")))
        .map(|a| a.join("node_modules").join(name))
        .find(|candidate| candidate.join("package.json").is_file())
        .and_then(|found| std::fs::canonicalize(found).ok())
}

/// The `site-packages` directories of an environment (`lib/pythonX.Y/site-packages`).
fn site_packages(env: &Path) -> Vec<PathBuf> {
    entries(&env.join("lib"))
        .into_iter()
        .map(|lib| lib.join("site-packages"))
        .filter(|s| s.is_dir())
        .collect()
}

/// The absolute directories a `.pth` file adds to Python's path (its other lines are
/// comments, imports, or paths relative to `site-packages`, already open).
fn pth_directories(pth: &Path) -> Vec<PathBuf> {
    let Some(text) = read_bounded(pth, MANIFEST_BYTES) else {
        return Vec::new();
    };
    String::from_utf8_lossy(&text)
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with('/'))
        .map(PathBuf::from)
        .filter(|p| p.is_dir())
        .collect()
}

/// The entries of `dir`, at most [`MAX_ENTRIES`].
fn entries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|list| list.flatten().take(MAX_ENTRIES).map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// At most `limit` bytes of `path`.
fn read_bounded(path: &Path, limit: u64) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(limit).read_to_end(&mut bytes))
        .ok()?;
    Some(bytes)
}

#[cfg(test)]
#[path = "installed_tests.rs"]
mod tests;
