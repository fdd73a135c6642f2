//! The permission bits git's trees leave out, kept with each snapshot so a restore
//! is exact.
//!
//! A git tree records a regular file as `100644` or `100755` only: restored from the
//! tree alone, a `600` key file comes back `644`. So each snapshot carries a
//! manifest of the files whose permission bits are not the ones git would give them
//! (path → mode), as a blob in the tree itself at [`MANIFEST`] — a path under Ward's
//! own `.ward/cache/`, which the store never takes from the project (it is in the
//! store's `info/exclude`, and the snapshot code never lists it as a project file).
//! Being in the tree, the manifest makes two snapshots that differ only in a file's
//! mode two different trees, so a change of mode alone is a change that
//! [`crate::Snapshots::changed`] reports and undo restores. A tree without it
//! (every file `644`/`755`, or a tree taken by an earlier Ward) says every file has
//! the mode git gives it; trees of projects whose files are all `644`/`755` are
//! exactly what they were before the manifest existed.
//!
//! Its format: `<octal mode> SP <path> NUL` per file, sorted by path.
//!
//! Cost: the manifest of the index is kept in memory between snapshots ([`Modes`])
//! and updated from the `lstat` each changed path gets anyway; it is written (one
//! `git hash-object`) only when it changed. So a snapshot the watcher answers for
//! looks at no more files than before. A full scan looks at the mode of every file
//! ([`look`]): git reports no change of mode alone — `ls-files --modified` checks
//! the content of a file whose stat data changed, and the stat data cannot tell
//! either, its times being compared to the second (a `chmod` in the second the file
//! was last written leaves it as git recorded it).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::os::fd::OwnedFd;
use std::path::Path;
use std::sync::{Arc, Mutex};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};

use crate::error::SnapshotError;
use crate::git::Git;

/// Where a snapshot's tree keeps its manifest.
pub(crate) const MANIFEST: &str = ".ward/cache/snapshot-modes";

/// Path → permission bits (`0o7777`) of the files git would restore otherwise.
pub(crate) type Manifest = BTreeMap<String, u32>;

/// The manifest of the store's index as the last snapshot left it, while that
/// snapshot is the one the next can build on.
#[derive(Clone, Debug, Default)]
pub(crate) struct Modes {
    shared: Arc<Mutex<Option<Known>>>,
}

/// A manifest and the blob it was written as (`None`: not written, as when empty).
#[derive(Debug)]
pub(crate) struct Known {
    pub(crate) manifest: Manifest,
    pub(crate) oid: Option<String>,
}

impl Modes {
    /// Takes what the last snapshot left; a snapshot that fails leaves nothing,
    /// and the next one looks at every file's mode again.
    pub(crate) fn take(&self) -> Option<Known> {
        self.shared.lock().ok().and_then(|mut known| known.take())
    }

    /// Records what a snapshot just wrote.
    pub(crate) fn put(&self, known: Known) {
        if let Ok(mut slot) = self.shared.lock() {
            *slot = Some(known);
        }
    }
}

/// The mode git gives a regular file of git mode `git_mode` (or of `st_mode`: git
/// takes the owner's execute bit).
fn git_default(mode: u32) -> u32 {
    if mode & 0o100 != 0 { 0o755 } else { 0o644 }
}

/// The permission bits of a regular file whose `st_mode` is `st_mode`, if they are
/// not what git would restore (so the manifest must say them).
pub(crate) fn recorded(st_mode: u32) -> Option<u32> {
    let bits = st_mode & 0o7777;
    (bits != git_default(bits)).then_some(bits)
}

/// The permission bits to restore a file with: the manifest's, unless they
/// disagree with the tree about the execute bit (the file changed between the two
/// looks), else what git would give it.
pub(crate) fn restored(git_mode: u32, recorded: Option<u32>) -> u32 {
    let default = if git_mode & 0o111 != 0 { 0o755 } else { 0o644 };
    match recorded {
        Some(bits) if git_default(bits) == default => bits & 0o7777,
        _ => default,
    }
}

/// Sets (or clears, with `None`) `path`'s entry; returns whether it changed.
pub(crate) fn set(manifest: &mut Manifest, path: &str, mode: Option<u32>) -> bool {
    match mode {
        Some(bits) => manifest.insert(path.to_string(), bits) != Some(bits),
        None => manifest.remove(path).is_some(),
    }
}

/// The manifest as stored.
pub(crate) fn encode(manifest: &Manifest) -> Vec<u8> {
    let mut out = Vec::new();
    for (path, bits) in manifest {
        out.extend_from_slice(format!("{bits:o} ").as_bytes());
        out.extend_from_slice(path.as_bytes());
        out.push(0);
    }
    out
}

/// A stored manifest; an entry that cannot be read is left out (its file is
/// restored with git's mode).
pub(crate) fn decode(bytes: &[u8]) -> Manifest {
    let mut manifest = Manifest::new();
    for record in bytes.split(|b| *b == 0) {
        let Ok(record) = std::str::from_utf8(record) else {
            continue;
        };
        if let Some((bits, path)) = record.split_once(' ')
            && let Ok(bits) = u32::from_str_radix(bits, 8)
        {
            manifest.insert(path.to_string(), bits & 0o7777);
        }
    }
    manifest
}

/// Records in `manifest` the mode of each of `paths` (regular files of the
/// project, in the index's order) but those in `except`.
///
/// Each directory is opened once and its files looked at relative to it: a walk of
/// one name instead of the whole path, measured 8 ms instead of 10–25 ms over
/// 10,000 files on a loaded two-core machine. A directory that is a symlink is not
/// opened (its files are not the project's).
pub(crate) fn look(
    root: &Path,
    paths: &[String],
    except: &BTreeSet<String>,
    manifest: &mut Manifest,
) {
    let mut open: Option<(&str, Option<OwnedFd>)> = None;
    for path in paths {
        if except.contains(path) {
            continue;
        }
        let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
        if open.as_ref().is_none_or(|(current, _)| *current != dir) {
            let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            open = Some((
                dir,
                rustix::fs::open(root.join(dir), flags, Mode::empty()).ok(),
            ));
        }
        let Some((_, Some(fd))) = &open else {
            continue;
        };
        if let Ok(stat) = rustix::fs::statat(fd, name, AtFlags::SYMLINK_NOFOLLOW)
            && FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile
            && let Some(bits) = recorded(stat.st_mode)
        {
            manifest.insert(path.clone(), bits);
        }
    }
}

/// Whether the manifest can be put in the index: `.ward` and `.ward/cache` are
/// directories or absent in the project. (A file or symlink there is a project
/// file the manifest's path would collide with: then modes are not recorded,
/// rather than the project's file be pushed out of the snapshot.)
pub(crate) fn has_room(root: &Path) -> bool {
    let mut dir = root.to_path_buf();
    for name in [".ward", "cache"] {
        dir.push(name);
        match std::fs::symlink_metadata(&dir) {
            Ok(meta) if meta.is_dir() => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return true,
            _ => return false,
        }
    }
    true
}

/// The files whose mode alone differs between trees `from` and `to`, read from
/// their manifests (both in one `git cat-file`), sorted.
pub(crate) fn mode_changes(git: &Git, from: &str, to: &str) -> Result<Vec<String>, SnapshotError> {
    let [from, to] = [from, to].map(|tree| {
        tree.bytes()
            .all(|b| b.is_ascii_hexdigit())
            .then(|| format!("{tree}:{MANIFEST}"))
    });
    let specs: Vec<&str> = [&from, &to]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect();
    let mut found = git.cat_batch(&specs)?.into_iter();
    let mut read = |spec: &Option<String>| match spec {
        Some(_) => found
            .next()
            .flatten()
            .map(|b| decode(&b))
            .unwrap_or_default(),
        None => Manifest::new(),
    };
    let (from, to) = (read(&from), read(&to));
    let paths: HashSet<&String> = from.keys().chain(to.keys()).collect();
    let mut changed: Vec<String> = paths
        .into_iter()
        .filter(|path| from.get(*path) != to.get(*path))
        .cloned()
        .collect();
    changed.sort();
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_modes_git_would_not_restore_are_recorded() {
        assert_eq!(recorded(0o100644), None);
        assert_eq!(recorded(0o100755), None);
        assert_eq!(recorded(0o100600), Some(0o600));
        assert_eq!(recorded(0o100640), Some(0o640));
        assert_eq!(recorded(0o100700), Some(0o700));
        assert_eq!(recorded(0o100664), Some(0o664));
        assert_eq!(recorded(0o104755), Some(0o4755));
    }

    #[test]
    fn a_recorded_mode_is_used_unless_it_disagrees_with_the_tree() {
        assert_eq!(restored(0o100644, Some(0o600)), 0o600);
        assert_eq!(restored(0o100755, Some(0o700)), 0o700);
        assert_eq!(restored(0o100755, Some(0o600)), 0o755);
        assert_eq!(restored(0o100644, Some(0o700)), 0o644);
        assert_eq!(restored(0o100644, None), 0o644);
        assert_eq!(restored(0o100755, None), 0o755);
    }

    #[test]
    fn a_manifest_reads_back_as_written() {
        let mut manifest = Manifest::new();
        assert!(set(&mut manifest, "key.pem", Some(0o600)));
        assert!(!set(&mut manifest, "key.pem", Some(0o600)));
        assert!(set(&mut manifest, "a dir/with\nnewline", Some(0o640)));
        assert_eq!(decode(&encode(&manifest)), manifest);
        assert!(set(&mut manifest, "key.pem", None));
        assert!(!set(&mut manifest, "key.pem", None));
        assert_eq!(decode(b"600 ok\0zz bad\0\xff\xfe\0"), {
            let mut m = Manifest::new();
            m.insert("ok".into(), 0o600);
            m
        });
    }
}
