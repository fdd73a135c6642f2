//! Snapshots of a project's files, so what an agent did can be undone.
//!
//! A [`Snapshots`] store is a git object database of Ward's own, under the data
//! directory (`snapshot/<project-id>`), with the project as its work tree. It never
//! reads or writes the user's `.git`, and works the same in a directory that is not
//! a git repository. [`Snapshots::track`] records the project's files and returns
//! the hash of the tree; [`Snapshots::changed`] and [`Snapshots::stats`] compare two
//! trees; [`Snapshots::restore`] puts chosen files back as a tree had them (content
//! and mode — every permission bit, not only git's `644`/`755`: see the `modes`
//! module; a file the tree lacks is removed).
//!
//! Why git plumbing (`git --git-dir … --work-tree …`, what OpenCode does) rather
//! than gitoxide: measured on this machine on a 10,000-file project with 3 files
//! changed, `ls-files` + `update-index` + `write-tree` cost 27–37 ms wall (git's own
//! stat cache and untracked cache doing the work), and nothing in gitoxide's
//! minimal feature set replaces git's index-refresh and untracked cache without
//! pulling in its status machinery — a dependency of some hundred crates on the
//! start-up path of every `ward` run, for an unmeasured gain. The store is plain
//! git, so a person can inspect it with git. The cost: `git` must be installed;
//! without it [`SnapshotError::GitMissing`] is returned and the caller carries on
//! without snapshots.
//!
//! What a snapshot leaves out: what `.gitignore` (and `.git/info/exclude`-style
//! patterns of the store: Ward's own directories, the data directory when it lies
//! inside the project) excludes, and files over the size limit (each named in
//! [`Tracked::skipped`]). Symlinks are recorded as links, never followed.
//!
//! Crash safety: git writes objects and the index atomically (temporary file and
//! rename); a process killed mid-snapshot leaves at most `index.lock` behind. Every
//! operation holds an exclusive advisory lock on the store (`ward.lock`, released
//! by the kernel when the process dies), and so does each git process it starts
//! (the lock is inherited: a git child orphaned by a killed Ward keeps the store
//! locked until it ends), so a lock file found while holding it is stale and is
//! removed.

mod error;
mod git;
mod last_tree;
mod modes;
mod restore;
mod track;
mod watch;

use std::collections::HashSet;
use std::fs::File;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

pub use error::SnapshotError;
use git::{Git, Held, nul_fields};
use last_tree::LastTree;
use modes::{MANIFEST, Modes};
use watch::Watch;

/// The default limit on a file's size: larger files are left out of snapshots.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 2 * 1024 * 1024;

/// A project's snapshot store.
#[derive(Clone, Debug)]
pub struct Snapshots {
    git: Git,
    max_file_size: u64,
    /// Directories inside the project never snapshotted (the data directory).
    excluded: Vec<String>,
    /// The tree last written from the store's index.
    last_tree: LastTree,
    /// What changed in the project since the last snapshot.
    watch: Watch,
    /// The modes git's trees leave out, as the last snapshot recorded them.
    modes: Modes,
}

/// A snapshot just taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tracked {
    /// The tree's hash.
    pub hash: String,
    /// Files left out this time because of their size.
    pub skipped: Vec<Skipped>,
    /// Whether every file of the project was looked at (rather than only those the
    /// file-system watcher said changed).
    pub full_scan: bool,
}

/// A file left out of a snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// Its path in the project.
    pub path: String,
    /// Its size in bytes.
    pub size: u64,
}

/// One file's change between two snapshots.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileStat {
    /// Its path in the project.
    pub file: String,
    /// Lines added (0 for a binary file).
    pub additions: u64,
    /// Lines removed (0 for a binary file).
    pub deletions: u64,
}

impl Snapshots {
    /// The store for `project` under `data_dir` (`snapshot/<project-id>`). Nothing
    /// is touched until the first [`Snapshots::track`]: opening costs nothing.
    pub fn new(data_dir: &Path, project: &Path, max_file_size: u64) -> Snapshots {
        let project = project
            .canonicalize()
            .unwrap_or_else(|_| project.to_path_buf());
        let id = hex::encode(&Sha256::digest(project.as_os_str().as_encoded_bytes())[..16]);
        let data = data_dir
            .canonicalize()
            .unwrap_or_else(|_| data_dir.to_path_buf());
        let excluded: Vec<String> = data
            .strip_prefix(&project)
            .ok()
            .filter(|p| !p.as_os_str().is_empty())
            .map(|p| p.to_string_lossy().into_owned())
            .into_iter()
            .collect();
        let git_dir = data_dir.join("snapshot").join(id);
        Snapshots {
            last_tree: LastTree::new(&git_dir),
            watch: Watch::new(&project, &excluded),
            modes: Modes::default(),
            git: Git {
                git_dir,
                work_tree: project,
            },
            max_file_size,
            excluded,
        }
    }

    /// The store's git directory.
    pub fn git_dir(&self) -> &Path {
        &self.git.git_dir
    }

    /// The project it snapshots.
    pub fn project(&self) -> &Path {
        &self.git.work_tree
    }

    /// Records the project's files now; returns the tree's hash and what was left
    /// out for its size.
    ///
    /// The first snapshot, and any the file-system watcher cannot answer for (see
    /// the `watch` module), scans every file; once the watcher follows the project,
    /// a snapshot looks only at the paths changed since the last one.
    pub fn track(&self) -> Result<Tracked, SnapshotError> {
        let store = self.lock()?;
        let scope = self.watch.begin();
        let tracked = self.track_in(&store, &scope)?;
        self.watch.done(&scope);
        Ok(tracked)
    }

    /// Starts the file-system watcher now rather than with the first snapshot, so
    /// that the first snapshot can already be the one later snapshots build on (a
    /// turn calls it as it starts: the model's first reply takes longer than the
    /// watches take to set). Costs a walk of the project's directories on a thread of
    /// its own.
    pub fn watch_ahead(&self) {
        self.watch.start_early();
    }

    /// Whether the file-system watcher follows the project, so that snapshots look
    /// only at what changed (it starts with the first snapshot).
    pub fn watching(&self) -> bool {
        self.watch.is_ready()
    }

    /// The files that differ between trees `from` and `to`, in content, type or
    /// mode.
    pub fn changed(&self, from: &str, to: &str) -> Result<Vec<String>, SnapshotError> {
        if from == to {
            return Ok(Vec::new());
        }
        let out = self.git.run(
            &[
                "diff-tree",
                "-r",
                "-z",
                "--no-renames",
                "--name-only",
                from,
                to,
            ],
            None,
        )?;
        let mut files: Vec<String> = nul_fields(&out).collect();
        let Some(at) = files.iter().position(|f| f == MANIFEST) else {
            return Ok(files);
        };
        files.remove(at);
        let listed: HashSet<String> = files.iter().cloned().collect();
        for file in modes::mode_changes(&self.git, from, to)? {
            if !listed.contains(&file) {
                files.push(file);
            }
        }
        Ok(files)
    }

    /// Lines added and removed per file between trees `from` and `to` (a file whose
    /// mode alone changed: none).
    pub fn stats(&self, from: &str, to: &str) -> Result<Vec<FileStat>, SnapshotError> {
        if from == to {
            return Ok(Vec::new());
        }
        let args = [
            "diff-tree",
            "-r",
            "-z",
            "--no-renames",
            "--numstat",
            from,
            to,
        ];
        let out = self.git.run(&args, None)?;
        let mut stats = Vec::new();
        let mut modes_changed = false;
        for record in nul_fields(&out) {
            let mut fields = record.splitn(3, '\t');
            let (Some(add), Some(del), Some(file)) = (fields.next(), fields.next(), fields.next())
            else {
                return Err(SnapshotError::Output {
                    args: args.join(" "),
                    detail: format!("`{record}` is not `added<TAB>deleted<TAB>path`"),
                });
            };
            if file == MANIFEST {
                modes_changed = true;
                continue;
            }
            stats.push(FileStat {
                file: file.to_string(),
                additions: add.parse().unwrap_or(0),
                deletions: del.parse().unwrap_or(0),
            });
        }
        if modes_changed {
            let listed: HashSet<String> = stats.iter().map(|s| s.file.clone()).collect();
            for file in modes::mode_changes(&self.git, from, to)? {
                if !listed.contains(&file) {
                    stats.push(FileStat {
                        file,
                        additions: 0,
                        deletions: 0,
                    });
                }
            }
        }
        Ok(stats)
    }

    /// Puts each `(path, tree)` back as `tree` has it: its content and mode, or
    /// removed when the tree lacks it. Paths are checked before anything is written:
    /// one that would land outside the project refuses the whole restore, and no
    /// write goes through a symlink (a symlink in the way is replaced, never
    /// followed).
    pub fn restore(&self, files: &[(String, String)]) -> Result<(), SnapshotError> {
        let store = self.lock()?;
        restore::restore(store.git(), files)
    }

    /// Creates the store if needed and takes its lock; clears what a process killed
    /// while holding it left behind.
    fn lock(&self) -> Result<Held<'_>, SnapshotError> {
        if !self.git.git_dir.join("HEAD").exists() {
            git::init(&self.git.git_dir, &self.excluded)?;
        }
        let path = self.git.git_dir.join("ward.lock");
        let io = |source| SnapshotError::Io {
            path: path.clone(),
            source,
        };
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io)?;
        file.lock().map_err(io)?;
        clear_stale_index_lock(&self.git.git_dir.join("index.lock"));
        Ok(Held::new(&self.git, file))
    }
}

/// Whether a directory on `rel`'s way under `root` is not a real directory (a
/// symlink, a file, or missing).
pub(crate) fn under_symlink(root: &Path, rel: &str) -> bool {
    let Some(parent) = Path::new(rel).parent() else {
        return false;
    };
    let mut dir = root.to_path_buf();
    for component in parent.components() {
        dir.push(component);
        match std::fs::symlink_metadata(&dir) {
            Ok(meta) if meta.is_dir() => {}
            _ => return true,
        }
    }
    false
}

/// Only a process holding the store's lock runs git on it, and every git process
/// that writes the store holds the lock too (see [`Held`]), so an `index.lock`
/// found then was left by a git process that died mid-write: it is removed.
fn clear_stale_index_lock(path: &Path) {
    match std::fs::remove_file(path) {
        Ok(()) => tracing::warn!(path = %path.display(), "snapshot: removed a stale index.lock"),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => {
            tracing::warn!(path = %path.display(), %error, "snapshot: a stale index.lock could not be removed")
        }
    }
}

/// The store path for tests and tools: where [`Snapshots::new`] keeps `project`'s.
pub fn store_dir(data_dir: &Path, project: &Path) -> PathBuf {
    Snapshots::new(data_dir, project, DEFAULT_MAX_FILE_SIZE)
        .git_dir()
        .to_path_buf()
}
