//! What a project asks for outside its configuration files: plugins it ships in
//! `.ward/plugins/`, grants its `ward.lock` records, and instruction files that
//! resolve outside the project.
//!
//! Each becomes a [`TrustItem`] whose content pins it exactly: a plugin by the
//! digest of every file in its directory (a changed component asks again), a lock
//! entry by its grants and file digests.

use std::path::Path;

use sha2::{Digest, Sha256};

use super::digests::{Digests, hex};
use super::{TrustItem, plain};

/// Most files hashed in one plugin directory, and the deepest level walked: a
/// plugin is a manifest and a component or two, and a hostile tree must not make
/// opening a project slow.
const MAX_FILES: usize = 256;
const MAX_DEPTH: usize = 4;

/// The items of `project` beyond its configuration layers, in a fixed order.
pub(crate) fn items(project: &Path, digests: &mut Digests) -> Vec<TrustItem> {
    let mut items = plugins(project, digests);
    items.extend(lock_grants(project));
    items.extend(instruction_links(project));
    items
}

/// Every plugin directory under `.ward/plugins/`.
fn plugins(project: &Path, digests: &mut Digests) -> Vec<TrustItem> {
    let dir = project.join(".ward").join("plugins");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut names: Vec<_> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir() || t.is_symlink()))
        .map(|e| e.file_name())
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let name = name.to_string_lossy().into_owned();
            TrustItem {
                what: plain(&format!("loads plugin `{name}` from .ward/plugins/{name}")),
                source: format!(".ward/plugins/{name}"),
                content: tree_digest(&dir.join(&name), digests),
            }
        })
        .collect()
}

/// The digest of every file below `dir` (paths and contents, sorted), bounded by
/// [`MAX_FILES`] and [`MAX_DEPTH`]; a symlink counts as its target's path.
fn tree_digest(dir: &Path, digests: &mut Digests) -> String {
    let mut files = Vec::new();
    walk(dir, dir, 0, &mut files, digests);
    files.sort();
    let mut hash = Sha256::new();
    for (rel, digest) in files {
        hash.update(rel.as_bytes());
        hash.update([0]);
        hash.update(digest.as_bytes());
        hash.update([0xff]);
    }
    hex(&hash.finalize())
}

fn walk(
    root: &Path,
    dir: &Path,
    depth: usize,
    files: &mut Vec<(String, String)>,
    digests: &mut Digests,
) {
    if depth > MAX_DEPTH || files.len() >= MAX_FILES {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        if files.len() >= MAX_FILES {
            return;
        }
        let path = entry.path();
        let rel = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            let target = std::fs::read_link(&path).unwrap_or_default();
            files.push((rel, format!("-> {}", target.display())));
        } else if kind.is_dir() {
            walk(root, &path, depth + 1, files, digests);
        } else if let Some(digest) = entry
            .metadata()
            .ok()
            .and_then(|meta| digests.of(&path, &meta))
        {
            files.push((rel, digest));
        }
    }
}

/// The grants `ward.lock` records: a person's words only when that person is the
/// user, which a repository's lock cannot show.
fn lock_grants(project: &Path) -> Vec<TrustItem> {
    let file = project.join("ward.lock");
    let Ok(text) = std::fs::read_to_string(&file) else {
        return Vec::new();
    };
    let Ok(lock) = text.parse::<toml::Table>() else {
        return vec![TrustItem {
            what: "has a ward.lock Ward cannot read".to_owned(),
            source: "ward.lock".to_owned(),
            content: hex(&Sha256::digest(text.as_bytes())),
        }];
    };
    let entries = lock.get("plugin").and_then(toml::Value::as_array);
    entries
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let name = entry.get("name")?.as_str()?;
            let grants: Vec<&str> = entry
                .get("grant")?
                .as_array()?
                .iter()
                .filter_map(toml::Value::as_str)
                .collect();
            if grants.is_empty() {
                return None;
            }
            Some(TrustItem {
                what: plain(&format!(
                    "grants plugin `{name}` (ward.lock): {}",
                    grants.join(", ")
                )),
                source: format!("ward.lock {name}"),
                content: entry.to_string(),
            })
        })
        .collect()
}

/// The project's own `AGENTS.md`/`CLAUDE.md` when it resolves outside the project.
fn instruction_links(project: &Path) -> Vec<TrustItem> {
    let Ok(root) = std::fs::canonicalize(project) else {
        return Vec::new();
    };
    ["AGENTS.md", "CLAUDE.md"]
        .iter()
        .filter_map(|name| {
            let path = project.join(name);
            std::fs::symlink_metadata(&path).ok()?;
            let real = std::fs::canonicalize(&path)
                .unwrap_or_else(|_| std::fs::read_link(&path).unwrap_or_else(|_| path.clone()));
            if real.starts_with(&root) {
                return None;
            }
            Some(TrustItem {
                what: plain(&format!(
                    "reads {} into the prompt ({name} links outside the project)",
                    real.display()
                )),
                source: (*name).to_owned(),
                content: real.display().to_string(),
            })
        })
        .collect()
}
