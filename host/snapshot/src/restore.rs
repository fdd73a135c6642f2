//! Writing files back from a snapshot without ever writing outside the project.
//!
//! Hand-written rather than `git checkout-index`: the rules that keep a restore
//! inside the project are ours to state and test. Every path is checked first
//! (relative, no `..`, nothing under `.git`); every directory on the way is looked
//! at without following links, and a symlink where a directory should be is
//! removed (the link, never its target) and replaced by a directory; a file is
//! written to a fresh temporary name beside its target and renamed over it, so a
//! symlink at the target is replaced rather than written through. A file gets the
//! permission bits the snapshot's mode manifest (the `modes` module) records for
//! it, else those git gives it; the manifest itself is never written out.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use crate::error::SnapshotError;
use crate::git::{Git, nul_fields};
use crate::modes::{self, MANIFEST};

/// A tree entry: its mode and object.
struct Entry {
    mode: u32,
    oid: String,
}

/// Restores each `(path, tree)`: see [`crate::Snapshots::restore`].
pub(crate) fn restore(git: &Git, files: &[(String, String)]) -> Result<(), SnapshotError> {
    for (path, _) in files {
        check(path)?;
    }
    let mut by_tree: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (path, tree) in files {
        // The snapshot's own record of modes, not a file of the project.
        if path != MANIFEST {
            by_tree.entry(tree).or_default().push(path);
        }
    }
    let root = &git.work_tree;
    for (tree, paths) in by_tree {
        let mut asked = paths.clone();
        asked.push(MANIFEST);
        let mut entries = entries(git, tree, &asked)?;
        let manifest = entries.remove(MANIFEST);
        let wanted: Vec<&str> = entries
            .values()
            .chain(&manifest)
            .filter(|e| e.mode != 0o160000)
            .map(|e| e.oid.as_str())
            .collect();
        let mut blobs = HashMap::new();
        for (oid, content) in wanted.iter().zip(git.cat_batch(&wanted)?) {
            let content = content.ok_or_else(|| SnapshotError::Output {
                args: "cat-file --batch".into(),
                detail: format!("object not found: `{oid}`"),
            })?;
            blobs.insert(oid.to_string(), content);
        }
        let recorded = manifest
            .and_then(|e| blobs.get(&e.oid))
            .map(|bytes| modes::decode(bytes))
            .unwrap_or_default();
        for path in paths {
            match entries.get(path) {
                // A nested repository's commit: nothing of ours to write.
                Some(entry) if entry.mode == 0o160000 => {}
                Some(entry) => {
                    let content = blobs.get(&entry.oid).map(Vec::as_slice).unwrap_or_default();
                    let perms = modes::restored(entry.mode, recorded.get(path).copied());
                    write(root, path, entry.mode, perms, content)?;
                }
                None => remove(root, path)?,
            }
        }
    }
    Ok(())
}

/// Refuses a path that could name something outside the project.
fn check(path: &str) -> Result<(), SnapshotError> {
    let unsafe_path = || SnapshotError::UnsafePath {
        path: path.to_string(),
    };
    if path.is_empty() || path.contains('\0') {
        return Err(unsafe_path());
    }
    for component in Path::new(path).components() {
        match component {
            Component::Normal(name) if !name.eq_ignore_ascii_case(".git") => {}
            _ => return Err(unsafe_path()),
        }
    }
    Ok(())
}

/// What `tree` holds at `paths`.
fn entries(git: &Git, tree: &str, paths: &[&str]) -> Result<HashMap<String, Entry>, SnapshotError> {
    let mut args = vec!["ls-tree", "-r", "-z", "--full-tree", tree, "--"];
    args.extend(paths);
    let out = git.run(&args, None)?;
    let mut entries = HashMap::new();
    for record in nul_fields(&out) {
        // `<mode> SP <type> SP <object> TAB <path>`
        let parsed = record.split_once('\t').and_then(|(meta, path)| {
            let mut meta = meta.split(' ');
            let mode = u32::from_str_radix(meta.next()?, 8).ok()?;
            let _kind = meta.next()?;
            let oid = meta.next()?.to_string();
            Some((path.to_string(), Entry { mode, oid }))
        });
        let Some((path, entry)) = parsed else {
            return Err(SnapshotError::Output {
                args: "ls-tree".into(),
                detail: format!("unreadable entry `{record}`"),
            });
        };
        entries.insert(path, entry);
    }
    Ok(entries)
}

/// Makes `rel`'s parent directories under `root` real directories; returns the
/// parent's path.
fn parent_dirs(root: &Path, rel: &Path) -> Result<PathBuf, SnapshotError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SnapshotError::Io { path, source }
    };
    let mut dir = root.to_path_buf();
    let Some(parent) = rel.parent() else {
        return Ok(dir);
    };
    for component in parent.components() {
        dir.push(component);
        match std::fs::symlink_metadata(&dir) {
            Ok(meta) if meta.is_dir() => continue,
            // A link (to anywhere) or a file where the snapshot has a directory: the
            // link itself goes, its target is never touched.
            Ok(_) => std::fs::remove_file(&dir).map_err(io(&dir))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(SnapshotError::Io { path: dir, source }),
        }
        std::fs::create_dir(&dir).map_err(io(&dir))?;
    }
    Ok(dir)
}

/// Writes `content` at `rel` with git `mode` (a file or a symlink), a file with
/// permission bits `perms`.
fn write(
    root: &Path,
    rel: &str,
    mode: u32,
    perms: u32,
    content: &[u8],
) -> Result<(), SnapshotError> {
    let rel_path = Path::new(rel);
    let parent = parent_dirs(root, rel_path)?;
    let Some(name) = rel_path.file_name() else {
        return Err(SnapshotError::UnsafePath { path: rel.into() });
    };
    let target = parent.join(name);
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SnapshotError::Io { path, source }
    };
    if let Ok(meta) = std::fs::symlink_metadata(&target)
        && meta.is_dir()
    {
        std::fs::remove_dir_all(&target).map_err(io(&target))?;
    }
    let temp = parent.join(format!(
        ".ward-restore.{}.{}",
        std::process::id(),
        name.to_string_lossy()
    ));
    let _ = std::fs::remove_file(&temp);
    if mode == 0o120000 {
        let link = <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(content);
        std::os::unix::fs::symlink(link, &temp).map_err(io(&temp))?;
    } else {
        // Created with `perms` (narrowed by the umask), so a `600` file's content is
        // never readable by others, not even for a moment before the rename.
        let mut file = std::fs::File::options()
            .write(true)
            .create_new(true)
            .mode(perms)
            .open(&temp)
            .map_err(io(&temp))?;
        file.write_all(content).map_err(io(&temp))?;
        // The umask may have narrowed what `mode` asked for.
        file.set_permissions(std::fs::Permissions::from_mode(perms))
            .map_err(io(&temp))?;
    }
    std::fs::rename(&temp, &target).map_err(io(&target))
}

/// Removes the file (or link) at `rel`, then the directories it leaves empty. A
/// path whose directories are not all real directories under `root` names nothing
/// inside the project: nothing is removed.
fn remove(root: &Path, rel: &str) -> Result<(), SnapshotError> {
    let rel_path = Path::new(rel);
    let mut dir = root.to_path_buf();
    if let Some(parent) = rel_path.parent() {
        for component in parent.components() {
            dir.push(component);
            match std::fs::symlink_metadata(&dir) {
                Ok(meta) if meta.is_dir() => {}
                _ => return Ok(()),
            }
        }
    }
    let target = root.join(rel_path);
    match std::fs::symlink_metadata(&target) {
        Ok(meta) if !meta.is_dir() => {
            std::fs::remove_file(&target).map_err(|source| SnapshotError::Io {
                path: target.clone(),
                source,
            })?;
        }
        _ => return Ok(()),
    }
    let mut parent = target.parent();
    while let Some(dir) = parent {
        if dir == root || std::fs::remove_dir(dir).is_err() {
            break;
        }
        parent = dir.parent();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn paths_leaving_the_project_are_refused() {
        for bad in [
            "../x",
            "/etc/passwd",
            "a/../../x",
            ".git/config",
            "a/.GIT/x",
            "",
        ] {
            assert!(check(bad).is_err(), "{bad}");
        }
        for good in ["a", "a/b.txt", ".gitignore", "x/.github/y"] {
            assert!(check(good).is_ok(), "{good}");
        }
    }
}
