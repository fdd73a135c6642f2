//! Snapshots around the steps that run tools able to write: the project's files are
//! recorded before such a step's tool calls run and after, and the files that
//! changed become the step's `patch` part — what undo (the engine's revert)
//! restores from.
//!
//! Neither snapshot waits on the loop when it need not. The "before" one starts as
//! soon as the model begins calling a tool that may write ([`StepSnapshot::start`],
//! told by the stream), so it is taken while the rest of the reply streams in; the
//! "after" one runs in the background while the next request goes to the model,
//! and is waited for only before the next tools run (they must not write into it)
//! and when the loop ends. A step whose tools cannot write (`read`, `grep`, a
//! question…: see [`crate::ToolBox::may_write_files`]) is not snapshotted at all.
//!
//! The store itself lives outside this crate (the engine gives the runner one
//! through [`crate::RunnerBuilder::snapshots`]); snapshots take milliseconds of
//! file-system work and child processes, so they run on the blocking pool, never
//! on an async worker.

use std::sync::{Arc, Mutex};

use tokio::task::JoinHandle;
use ward_store::{Part, PartKind, Store};

use crate::runner::{LoopState, Runner};

/// A project's snapshot store, as the loop uses it.
pub trait StepSnapshots: Send + Sync {
    /// Records the project's files now and returns the snapshot's hash; `None`
    /// when snapshots are off or this one failed (the store says why, once).
    fn track(&self) -> Option<String>;
    /// The files that differ between snapshots `from` and `to`.
    fn changed(&self, from: &str, to: &str) -> Vec<String>;
}

/// The "before" snapshot of one step: started at most once, when the first call
/// of a tool that may write begins (or, failing that, before the tools run).
pub(crate) struct StepSnapshot {
    snapshots: Option<Arc<dyn StepSnapshots>>,
    taking: Mutex<Option<JoinHandle<Option<String>>>>,
}

impl StepSnapshot {
    /// Starts the snapshot unless it already was (or snapshots are off).
    pub(crate) fn start(&self) {
        let Some(snapshots) = self.snapshots.clone() else {
            return;
        };
        if let Ok(mut taking) = self.taking.lock()
            && taking.is_none()
        {
            *taking = Some(tokio::task::spawn_blocking(move || snapshots.track()));
        }
    }

    /// The snapshot's hash once taken; `None` if it never started or failed.
    async fn taken(self) -> Option<String> {
        let handle = self.taking.lock().ok()?.take()?;
        handle.await.ok().flatten()
    }
}

/// The "after" snapshot of a step and the `patch` part it leads to, in progress.
pub(crate) type PendingPatch = JoinHandle<()>;

impl Runner {
    /// A step's "before" snapshot, not started yet.
    pub(crate) fn step_snapshot(&self) -> StepSnapshot {
        StepSnapshot {
            snapshots: self.snapshots.clone(),
            taking: Mutex::new(None),
        }
    }

    /// The hash of the files as they are before this step's tools run, if any of
    /// `tools` may write (a step that cannot change files has nothing to undo).
    /// Also waits for the previous step's "after" snapshot: these tools must not
    /// write while it is being taken.
    pub(crate) async fn before_tools<'a>(
        &self,
        snapshot: StepSnapshot,
        tools: impl IntoIterator<Item = &'a str>,
        loop_state: &mut LoopState,
    ) -> Option<String> {
        let writes = tools
            .into_iter()
            .any(|tool| self.tools.may_write_files(tool));
        if writes {
            snapshot.start();
        }
        settle_patch(loop_state).await;
        if writes { snapshot.taken().await } else { None }
    }

    /// After a step's tool calls: snapshots the files again in the background and
    /// records a `patch` part in `message_id` naming those changed since `before`.
    /// [`settle_patch`] waits for it.
    pub(crate) fn patch_in_background(
        &self,
        session_id: &str,
        message_id: &str,
        before: String,
        loop_state: &mut LoopState,
    ) {
        let Some(snapshots) = self.snapshots.clone() else {
            return;
        };
        let store: Arc<dyn Store> = self.store.clone();
        let (session_id, message_id) = (session_id.to_string(), message_id.to_string());
        let handle = tokio::task::spawn_blocking(move || {
            let Some(after) = snapshots.track() else {
                return;
            };
            let files = snapshots.changed(&before, &after);
            if files.is_empty() {
                return;
            }
            let part = Part::new(
                &session_id,
                &message_id,
                PartKind::Patch {
                    hash: before,
                    files,
                },
            );
            if let Err(e) = store.put_part(&part) {
                tracing::warn!("snapshot: recording the step's changed files: {e}");
            }
        });
        loop_state.pending_patch = Some(handle);
    }
}

/// Waits for the last step's "after" snapshot and its `patch` part, if one is being
/// taken: before more tools run, and before the loop reports its outcome (a
/// revert right after must find the part).
pub(crate) async fn settle_patch(loop_state: &mut LoopState) {
    if let Some(pending) = loop_state.pending_patch.take() {
        let _ = pending.await;
    }
}
