//! The project's snapshot store as the loop sees it ([`StepSnapshots`]): what a
//! failure means for a run (a one-time warning, then no snapshots — a run never
//! fails because its files could not be snapshotted), the note for each file left
//! out for its size, and the record of every snapshot taken here (the taken list
//! undo checks: see [`crate::provenance`]).

use std::collections::HashSet;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use ward_session::StepSnapshots;
use ward_snapshot::{DEFAULT_MAX_FILE_SIZE, SnapshotError, Snapshots};

use crate::provenance::TakenList;

/// A project's snapshots, shared by every runner of an engine.
pub(crate) struct ProjectSnapshots {
    pub(crate) store: Snapshots,
    /// Set when the configuration turns snapshots off, or once `git` is found
    /// missing: no more attempts, no more warnings.
    off: AtomicBool,
    /// The files already noted as too large, so each is noted once.
    noted: Mutex<HashSet<String>>,
    /// The last snapshot taken, while the files are known to be as it has them
    /// (cleared by a restore): the summary compares against it without a new one.
    latest: Mutex<Option<String>>,
    /// The snapshots this data directory took: the only ones undo restores from.
    pub(crate) taken: TakenList,
}

impl ProjectSnapshots {
    /// The store for `project` under `data_dir`, used only if `enabled` (the
    /// configuration's `snapshot`); touches nothing yet.
    pub(crate) fn new(data_dir: &Path, project: &Path, enabled: bool) -> ProjectSnapshots {
        let store = Snapshots::new(data_dir, project, DEFAULT_MAX_FILE_SIZE);
        ProjectSnapshots {
            taken: TakenList::new(store.git_dir()),
            store,
            off: AtomicBool::new(!enabled),
            noted: Mutex::new(HashSet::new()),
            latest: Mutex::new(None),
        }
    }

    /// Whether snapshots are off (by configuration, or `git` was found missing).
    pub(crate) fn is_off(&self) -> bool {
        self.off.load(Ordering::Relaxed)
    }

    /// Gets the store ready to follow the project's changes ([`Snapshots::watch_ahead`])
    /// unless snapshots are off: called as a turn starts.
    pub(crate) fn watch_ahead(&self) {
        if !self.is_off() {
            self.store.watch_ahead();
        }
    }

    /// A snapshot now, for a revert: errors are the caller's to report.
    pub(crate) fn track_now(&self) -> Result<String, SnapshotError> {
        let hash = self.store.track().map(|t| t.hash)?;
        self.taken.record(&hash)?;
        self.remember(Some(hash.clone()));
        Ok(hash)
    }

    /// The last snapshot taken (see `latest`), else a new one.
    pub(crate) fn latest_or_track(&self) -> Result<String, SnapshotError> {
        match self.latest.lock().ok().and_then(|l| l.clone()) {
            Some(hash) => Ok(hash),
            None => self.track_now(),
        }
    }

    /// Restores `files` (see [`Snapshots::restore`]); the files no longer match the
    /// last snapshot.
    pub(crate) fn restore(&self, files: &[(String, String)]) -> Result<(), SnapshotError> {
        self.remember(None);
        self.store.restore(files)
    }

    fn remember(&self, hash: Option<String>) {
        if let Ok(mut latest) = self.latest.lock() {
            *latest = hash;
        }
    }
}

impl StepSnapshots for ProjectSnapshots {
    fn track(&self) -> Option<String> {
        if self.is_off() {
            return None;
        }
        match self.store.track() {
            Ok(tracked) => {
                if let Ok(mut noted) = self.noted.lock() {
                    for skipped in tracked.skipped {
                        if noted.insert(skipped.path.clone()) {
                            tracing::warn!(
                                "snapshot: `{}` ({} bytes) is over the {} byte limit and is left \
                                 out: undo will not restore it",
                                skipped.path,
                                skipped.size,
                                DEFAULT_MAX_FILE_SIZE
                            );
                        }
                    }
                }
                // Unrecorded, the snapshot could never be restored from: the step
                // is left without one rather than with a patch undo will refuse.
                if let Err(e) = self.taken.record(&tracked.hash) {
                    tracing::warn!(
                        "snapshot: recording it as taken here failed, this step cannot be undone: {e}"
                    );
                    return None;
                }
                self.remember(Some(tracked.hash.clone()));
                Some(tracked.hash)
            }
            Err(SnapshotError::GitMissing) => {
                if !self.off.swap(true, Ordering::Relaxed) {
                    tracing::warn!("{}", SnapshotError::GitMissing);
                }
                None
            }
            Err(e) => {
                tracing::warn!("snapshot failed, this step cannot be undone: {e}");
                None
            }
        }
    }

    fn changed(&self, from: &str, to: &str) -> Vec<String> {
        self.store.changed(from, to).unwrap_or_else(|e| {
            tracing::warn!("snapshot: comparing {from} and {to}: {e}");
            Vec::new()
        })
    }
}
