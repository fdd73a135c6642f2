//! Writing files back from a snapshot without ever writing outside the project.
//!
//! Hand-written rather than `git checkout-index`: the rules that keep a restore
//! inside the project are ours to state and test. Every path is checked first
//! (relative, no `..`, nothing under `.git`); every directory on the way is looked
//! at without following links, and a symlink where a directory should be is
//! removed (the link, never its target) and replaced by a directory; a file is
//! written to a fresh temporary name beside its target and renamed over it, so a
//! symlink at the target is replaced rather than written through.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::SnapshotError;
use crate::git::{Git, nul_fields};

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
        by_tree.entry(tree).or_default().push(path);
    }
    let root = &git.work_tree;
    for (tree, paths) in by_tree {
        let entries = entries(git, tree, &paths)?;
        let wanted: Vec<&Entry> = entries.values().filter(|e| e.mode != 0o160000).collect();
        let mut blobs = blobs(git, wanted.iter().map(|e| e.oid.as_str()))?;
        for path in paths {
            match entries.get(path) {
                // A nested repository's commit: nothing of ours to write.
                Some(entry) if entry.mode == 0o160000 => {}
                Some(entry) => {
                    let content = blobs.remove(&entry.oid).unwrap_or_default();
                    write(root, path, entry.mode, &content)?;
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

/// The contents of `oids`, read in one `git cat-file --batch`.
fn blobs<'a>(
    git: &Git,
    oids: impl Iterator<Item = &'a str>,
) -> Result<HashMap<String, Vec<u8>>, SnapshotError> {
    let mut input = String::new();
    for oid in oids {
        input.push_str(oid);
        input.push('\n');
    }
    let mut found = HashMap::new();
    if input.is_empty() {
        return Ok(found);
    }
    let mut command = Command::new("git");
    command
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("GIT_DIR")
        .env_remove("GIT_OBJECT_DIRECTORY")
        .env_remove("GIT_ALTERNATE_OBJECT_DIRECTORIES")
        .arg("--git-dir")
        .arg(&git.git_dir)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let spawn = |source: std::io::Error| SnapshotError::Spawn { source };
    let mut child = command.spawn().map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            SnapshotError::GitMissing
        } else {
            spawn(source)
        }
    })?;
    let stdin = child.stdin.take();
    let writer = std::thread::spawn(move || {
        if let Some(mut stdin) = stdin {
            let _ = stdin.write_all(input.as_bytes());
        }
    });
    let output = |detail: String| SnapshotError::Output {
        args: "cat-file --batch".into(),
        detail,
    };
    if let Some(stdout) = child.stdout.take() {
        let mut reader = BufReader::new(stdout);
        let mut header = String::new();
        loop {
            header.clear();
            if reader.read_line(&mut header).map_err(spawn)? == 0 {
                break;
            }
            // `<oid> SP <type> SP <size> LF <contents> LF`, or `<oid> missing LF`.
            let fields: Vec<&str> = header.split_whitespace().collect();
            let [oid, _kind, size] = fields[..] else {
                return Err(output(format!("object not found: `{}`", header.trim())));
            };
            let size: usize = size
                .parse()
                .map_err(|_| output(format!("bad size in `{}`", header.trim())))?;
            let mut content = vec![0; size + 1];
            reader.read_exact(&mut content).map_err(spawn)?;
            content.truncate(size);
            found.insert(oid.to_string(), content);
        }
    }
    let _ = writer.join();
    let _ = child.wait();
    Ok(found)
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

/// Writes `content` at `rel` with git `mode` (file, executable or symlink).
fn write(root: &Path, rel: &str, mode: u32, content: &[u8]) -> Result<(), SnapshotError> {
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
        let perms = if mode & 0o111 != 0 { 0o755 } else { 0o644 };
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
