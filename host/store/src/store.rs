//! The storage contract every backend implements.
//!
//! Owns the [`Store`] trait and [`Recovery`]. SQLite ([`crate::SqliteStore`]) is the
//! embedded default; a PostgreSQL backend for multi-host deployments implements the same
//! trait. Methods are synchronous: an embedded SQLite write takes microseconds, less
//! than handing it to another thread would, and a networked backend can run them on
//! its own pool behind this interface.
//!
//! Every write publishes its event on [`Store::bus`] after it is committed, so a
//! subscriber that reloads on an event sees the change.

use ward_permission::ApprovalStore;

use crate::bus::Bus;
use crate::error::Result;
use crate::model::compaction::CompactionPoint;
use crate::model::message::{Message, MessageInfo};
use crate::model::part::Part;
use crate::model::session::{Session, Tokens};
use crate::model::todo::Todo;

/// What [`Store::recover`] repaired after an unclean shutdown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Tool parts left pending or running, now errors ("Tool execution was interrupted").
    pub interrupted_parts: usize,
    /// Assistant messages left open, now completed with a `MessageAbortedError`.
    pub aborted_messages: usize,
}

/// Sessions, messages, parts, todos, compaction points and approvals.
///
/// Also an [`ApprovalStore`], so the permission engine keeps "always" approvals here,
/// scoped to (project, agent).
pub trait Store: ApprovalStore + Send + Sync {
    /// The bus on which every change is published.
    fn bus(&self) -> &Bus;

    /// Stores a new session and publishes `session.created`.
    fn create_session(&self, session: &Session) -> Result<()>;

    /// The session with `id`, or [`crate::StoreError::NotFound`].
    fn get_session(&self, id: &str) -> Result<Session>;

    /// Top-level sessions (no parent), most recently updated first.
    fn list_sessions(&self) -> Result<Vec<Session>>;

    /// Sessions started as subtasks of `parent_id`, oldest first.
    fn list_children(&self, parent_id: &str) -> Result<Vec<Session>>;

    /// Replaces the session's record (title, agent, model, permission, totals), sets
    /// `time.updated` to now, publishes `session.updated` and returns what was stored.
    fn update_session(&self, session: &Session) -> Result<Session>;

    /// Adds a step's usage to the session's totals in place — no read-modify-write race
    /// with another writer — and returns the session as updated.
    fn add_usage(&self, session_id: &str, tokens: Tokens, cost: f64) -> Result<Session>;

    /// Deletes the session, its descendants and everything in them; publishes
    /// `session.deleted` for each.
    fn delete_session(&self, id: &str) -> Result<()>;

    /// Creates or replaces a message's record; publishes `message.updated`.
    fn put_message(&self, info: &MessageInfo) -> Result<()>;

    /// One message with its parts, or [`crate::StoreError::NotFound`].
    fn get_message(&self, message_id: &str) -> Result<Message>;

    /// Removes a message and its parts; publishes `message.removed`.
    fn remove_message(&self, session_id: &str, message_id: &str) -> Result<()>;

    /// [`Store::put_message`] and then [`Store::put_part`] for each of `parts`, in one
    /// transaction where the store has them: a prompt's message and its text are
    /// stored together, and a burst of prompts pays one commit each rather than two.
    /// Events are published in the same order, after the writes.
    fn put_message_with_parts(&self, info: &MessageInfo, parts: &[Part]) -> Result<()> {
        self.put_message(info)?;
        parts.iter().try_for_each(|part| self.put_part(part))
    }

    /// Creates or replaces a part; publishes `message.part.updated`. Deltas buffered for
    /// the part are made durable first, in the same transaction, so they can neither be
    /// lost nor applied on top of the part's new content.
    fn put_part(&self, part: &Part) -> Result<()>;

    /// Appends `delta` to the text `field` of a part: publishes `message.part.delta` at
    /// once and buffers the text, which a background writer makes durable in batches.
    fn update_part_delta(
        &self,
        session_id: &str,
        message_id: &str,
        part_id: &str,
        field: &str,
        delta: &str,
    ) -> Result<()>;

    /// Removes a part; publishes `message.part.removed`.
    fn remove_part(&self, session_id: &str, message_id: &str, part_id: &str) -> Result<()>;

    /// The session's messages with their parts, in id (creation) order; with `since`,
    /// only messages whose id is at least `since`. Buffered deltas are flushed first,
    /// so the result includes every delta published before the call.
    fn messages(&self, session_id: &str, since: Option<&str>) -> Result<Vec<Message>>;

    /// The history the loop sends to the model: messages from the last compaction
    /// point on, or all of them if the session was never compacted.
    fn messages_since_compaction(&self, session_id: &str) -> Result<Vec<Message>> {
        let point = self.compaction(session_id)?;
        self.messages(
            session_id,
            point.as_ref().map(|p| p.from_message_id.as_str()),
        )
    }

    /// The session's task list; empty if none was written.
    fn todos(&self, session_id: &str) -> Result<Vec<Todo>>;

    /// Replaces the session's task list; publishes `todo.updated`.
    fn set_todos(&self, session_id: &str, todos: &[Todo]) -> Result<()>;

    /// The session's last completed compaction, if any.
    fn compaction(&self, session_id: &str) -> Result<Option<CompactionPoint>>;

    /// Records a completed compaction — the summary message and the first message
    /// history now loads from — and publishes `session.compacted`.
    fn set_compaction(
        &self,
        session_id: &str,
        summary_message_id: &str,
        from_message_id: &str,
    ) -> Result<CompactionPoint>;

    /// Makes every buffered delta durable now.
    fn flush(&self) -> Result<()>;

    /// Repairs what an unclean shutdown left behind: interrupts unfinished tool calls
    /// and closes open assistant messages. Run it when no other process is writing to
    /// the same sessions; otherwise it would interrupt that process's live work.
    fn recover(&self) -> Result<Recovery>;
}
