//! Snapshots around the steps that run tools: the project's files are recorded
//! before a step's tool calls run and after, and the files that changed become the
//! step's `patch` part — what undo (the engine's revert) restores from.
//!
//! The store itself lives outside this crate (the engine gives the runner one
//! through [`crate::RunnerBuilder::snapshots`]); snapshots take tens of
//! milliseconds of file-system work, so they run on the blocking pool, never on an
//! async worker.

use std::sync::Arc;

use ward_store::{AssistantMessage, Part, PartKind, Session};

use crate::runner::{LoopError, Runner};

/// A project's snapshot store, as the loop uses it.
pub trait StepSnapshots: Send + Sync {
    /// Records the project's files now and returns the snapshot's hash; `None`
    /// when snapshots are off or this one failed (the store says why, once).
    fn track(&self) -> Option<String>;
    /// The files that differ between snapshots `from` and `to`.
    fn changed(&self, from: &str, to: &str) -> Vec<String>;
}

impl Runner {
    /// The snapshot before a step's tool calls run, if snapshots are on.
    pub(crate) async fn snapshot_before_tools(&self) -> Option<String> {
        let snapshots: Arc<dyn StepSnapshots> = self.snapshots.clone()?;
        tokio::task::spawn_blocking(move || snapshots.track())
            .await
            .ok()
            .flatten()
    }

    /// After a step's tool calls: records a `patch` part in `assistant` naming the
    /// files they changed since `before`, if any.
    pub(crate) async fn record_patch(
        &self,
        session: &Session,
        assistant: &AssistantMessage,
        before: String,
    ) -> Result<(), LoopError> {
        let Some(snapshots) = self.snapshots.clone() else {
            return Ok(());
        };
        let from = before.clone();
        let files = tokio::task::spawn_blocking(move || {
            let after = snapshots.track()?;
            Some(snapshots.changed(&from, &after))
        })
        .await
        .ok()
        .flatten()
        .unwrap_or_default();
        if files.is_empty() {
            return Ok(());
        }
        self.store.put_part(&Part::new(
            &session.id,
            &assistant.id,
            PartKind::Patch {
                hash: before,
                files,
            },
        ))?;
        Ok(())
    }
}
