//! Which snapshots undo may restore files from: only those this data directory
//! took, and never through the history of an imported session.
//!
//! A `patch` part names a snapshot (a tree in the project's snapshot store) and the
//! files a step changed; reverting restores those files as that tree has them, and
//! deletes those it lacks. Parts that came from `ward session import` were written
//! elsewhere: their hashes and file lists are whatever the file says, and a tree of
//! that hash may well exist here too — the same project content gives the same hash
//! on every machine, and every subtree is a tree — so restoring from them would let
//! a file chosen by whoever wrote the export rewrite or delete the user's files.
//! They are history to read. Two checks, both before anything is written:
//!
//! - The session's import mark ([`ward_store::ImportedSession`], written in the
//!   import's own transaction and carried over by fork): a revert whose range holds a
//!   `patch` part of an imported message, or an unrevert of the revert point the file
//!   came with, is refused.
//! - The taken list ([`TakenList`]): every snapshot this data directory takes is
//!   appended to `ward-taken` in the snapshot store, and every snapshot a restore
//!   would read from must be in it. Defence in depth: a database written by an
//!   import older than the mark, or edited by hand, still cannot name a tree the
//!   store holds but never took as a snapshot here.
//!
//! Refusals are [`ForeignSnapshot`], naming why and the files that would have been
//! changed; nothing is changed.

use std::collections::HashSet;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ward_snapshot::SnapshotError;
use ward_store::{ImportedSession, SqliteStore};

use crate::error::EngineError;

/// The file in the snapshot store listing the snapshots taken here.
const TAKEN_FILE: &str = "ward-taken";
/// How many file names a refusal lists before counting the rest.
const LISTED_FILES: usize = 10;

/// Why undo or redo refused to touch the files: a snapshot it would restore from was
/// not taken by this data directory. Nothing was changed.
#[derive(Debug, thiserror::Error)]
pub enum ForeignSnapshot {
    /// The snapshots are named by history that came from `ward session import`.
    #[error(
        "session {session} came from `ward session import`: its snapshots were taken by \
         another data directory, and undo restores files only from snapshots this one took; \
         nothing was changed (reverting would have changed {})",
        listed(files)
    )]
    Imported {
        /// The session.
        session: String,
        /// The files the revert would have restored or deleted.
        files: Vec<String>,
    },
    /// The snapshot is not one this data directory recorded taking.
    #[error(
        "snapshot {hash:?} was not taken by this data directory (it came from an import, an \
         edited database, or a Ward that did not yet record the snapshots it takes), and undo \
         restores files only from snapshots this one took; nothing was changed (reverting \
         would have changed {})",
        listed(files)
    )]
    NotTaken {
        /// The snapshot named.
        hash: String,
        /// The files the revert would have restored or deleted.
        files: Vec<String>,
    },
}

/// `files` for a message: quoted (a name from an import file may hold control
/// characters, and the message reaches a terminal), the first few then a count.
fn listed(files: &[String]) -> String {
    if files.is_empty() {
        return "no file".into();
    }
    let mut out: Vec<String> = files
        .iter()
        .take(LISTED_FILES)
        .map(|f| format!("{f:?}"))
        .collect();
    if files.len() > LISTED_FILES {
        out.push(format!("and {} more", files.len() - LISTED_FILES));
    }
    out.join(", ")
}

/// The snapshots this data directory took for a project: one hash a line in the
/// snapshot store's `ward-taken`, appended as each is taken.
///
/// Appends, not a rewrite: a line of a few dozen bytes written with `O_APPEND` lands
/// whole even when another Ward process (a server and a `ward run`) appends at once,
/// and a process killed mid-write loses at most the hash it was writing — that
/// step's undo is refused, never wrongly allowed.
#[derive(Debug)]
pub(crate) struct TakenList {
    path: PathBuf,
    /// The hash this process appended last: a snapshot of unchanged files is the
    /// same tree again, and is not written again.
    last: Mutex<Option<String>>,
}

impl TakenList {
    /// The list of the snapshot store at `git_dir`.
    pub(crate) fn new(git_dir: &Path) -> TakenList {
        TakenList {
            path: git_dir.join(TAKEN_FILE),
            last: Mutex::new(None),
        }
    }

    /// Records `hash` as taken here (the store exists: a snapshot was just taken).
    pub(crate) fn record(&self, hash: &str) -> Result<(), SnapshotError> {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if last.as_deref() == Some(hash) {
            return Ok(());
        }
        let io = |source| SnapshotError::Io {
            path: self.path.clone(),
            source,
        };
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(io)?;
        file.write_all(format!("{hash}\n").as_bytes()).map_err(io)?;
        *last = Some(hash.to_string());
        Ok(())
    }

    /// Every hash recorded (none when no snapshot was ever taken here).
    pub(crate) fn read(&self) -> Result<HashSet<String>, SnapshotError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => Ok(text
                .lines()
                .filter(|line| !line.is_empty())
                .map(str::to_string)
                .collect()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(HashSet::new()),
            Err(source) => Err(SnapshotError::Io {
                path: self.path.clone(),
                source,
            }),
        }
    }
}

/// What decides whether one session's snapshots may be restored from.
pub(crate) struct Provenance {
    session: String,
    imported: Option<ImportedSession>,
    taken: HashSet<String>,
}

impl Provenance {
    /// Session `session`'s import mark and the snapshots `taken` here.
    pub(crate) fn load(
        store: &SqliteStore,
        session: &str,
        taken: &TakenList,
    ) -> Result<Provenance, EngineError> {
        Ok(Provenance {
            session: session.to_string(),
            imported: store.imported(session)?,
            taken: taken.read()?,
        })
    }

    /// Refuses a revert that would restore `files` from `patches` (each the message
    /// holding a `patch` part and the snapshot it names) unless every one was
    /// recorded here, by this data directory.
    pub(crate) fn check_patches<'a>(
        &self,
        patches: impl IntoIterator<Item = (&'a str, &'a str)>,
        files: &[String],
    ) -> Result<(), ForeignSnapshot> {
        for (message, hash) in patches {
            if self.imported.as_ref().is_some_and(|m| m.holds(message)) {
                return Err(self.imported_error(files));
            }
            if !self.taken.contains(hash) {
                return Err(ForeignSnapshot::NotTaken {
                    hash: hash.to_string(),
                    files: files.to_vec(),
                });
            }
        }
        Ok(())
    }

    /// Refuses restoring `files` from the session's revert snapshot `hash` (what
    /// unrevert does) unless this data directory took it.
    pub(crate) fn check_snapshot(
        &self,
        hash: &str,
        files: &[String],
    ) -> Result<(), ForeignSnapshot> {
        if self.came_with_import(hash) {
            return Err(self.imported_error(files));
        }
        if !self.taken.contains(hash) {
            return Err(ForeignSnapshot::NotTaken {
                hash: hash.to_string(),
                files: files.to_vec(),
            });
        }
        Ok(())
    }

    /// Whether a revert may keep the session's earlier revert snapshot `hash` for
    /// unrevert (else it takes a new one).
    pub(crate) fn may_restore(&self, hash: &str) -> bool {
        !self.came_with_import(hash) && self.taken.contains(hash)
    }

    /// Whether `hash` is the revert snapshot the import file came with.
    fn came_with_import(&self, hash: &str) -> bool {
        self.imported
            .as_ref()
            .and_then(|m| m.revert_snapshot.as_deref())
            == Some(hash)
    }

    fn imported_error(&self, files: &[String]) -> ForeignSnapshot {
        ForeignSnapshot::Imported {
            session: self.session.clone(),
            files: files.to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_quote_names_and_count_the_rest() {
        let files: Vec<String> = (0..12).map(|i| format!("f{i}")).collect();
        let text = listed(&files);
        assert!(text.starts_with("\"f0\", \"f1\""), "{text}");
        assert!(text.ends_with("and 2 more"), "{text}");
        let hostile = listed(&["a\u{1b}[2Jb".to_string()]);
        assert!(!hostile.contains('\u{1b}'), "{hostile}");
    }
}
