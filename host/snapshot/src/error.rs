//! What can go wrong taking, comparing or restoring a snapshot.

use std::path::PathBuf;

/// A snapshot operation failed.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// `git` is not installed (or not on `PATH`): snapshots are off.
    #[error("`git` was not found on PATH: snapshots (and undo) are off until it is installed")]
    GitMissing,
    /// `git` could not be started.
    #[error("starting git: {source}")]
    Spawn {
        /// Why.
        source: std::io::Error,
    },
    /// A `git` command failed.
    #[error("git {args} failed (exit {status:?}): {stderr}")]
    Git {
        /// Its arguments.
        args: String,
        /// Its exit status, if it exited.
        status: Option<i32>,
        /// What it wrote on stderr.
        stderr: String,
    },
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A path in a snapshot that would land outside the project (absolute, `..`,
    /// through `.git`): refused, nothing written.
    #[error("refusing to restore `{path}`: it would be written outside the project")]
    UnsafePath {
        /// The path as the snapshot names it.
        path: String,
    },
    /// `git` answered something this crate cannot read.
    #[error("unexpected output from git {args}: {detail}")]
    Output {
        /// The command's arguments.
        args: String,
        /// What was wrong.
        detail: String,
    },
}
