//! [`Store`] and [`ApprovalStore`] for [`SqliteStore`].
//!
//! Owns the sequence of each operation: run the SQL in the right kind of transaction
//! (see the parent module), then publish the event once the change is committed.

use ward_permission::{ApprovalStore, Rule, SaveError};

use super::deltas::Backlog;
use super::{SqliteStore, approvals, compaction, messages, recover, sessions, todos};
use crate::bus::{Bus, Event};
use crate::error::{Context, Result};
use crate::model::compaction::CompactionPoint;
use crate::model::message::{Message, MessageInfo};
use crate::model::part::Part;
use crate::model::session::{Session, Tokens};
use crate::model::todo::Todo;
use crate::now_ms;
use crate::store::{Recovery, Store};

impl Store for SqliteStore {
    fn bus(&self) -> &Bus {
        &self.shared.bus
    }

    fn create_session(&self, session: &Session) -> Result<()> {
        self.shared.write(|conn| sessions::insert(conn, session))?;
        self.publish(Event::SessionCreated {
            info: session.clone(),
        });
        Ok(())
    }

    fn get_session(&self, id: &str) -> Result<Session> {
        self.shared.read_unstreamed(|conn| sessions::get(conn, id))
    }

    fn list_sessions(&self) -> Result<Vec<Session>> {
        self.shared.read_unstreamed(sessions::list_roots)
    }

    fn list_children(&self, parent_id: &str) -> Result<Vec<Session>> {
        self.shared
            .read_unstreamed(|conn| sessions::list_children(conn, parent_id))
    }

    fn update_session(&self, session: &Session) -> Result<Session> {
        let stored = self
            .shared
            .write(|conn| sessions::update(conn, session, now_ms()))?;
        self.publish(Event::SessionUpdated {
            info: stored.clone(),
        });
        Ok(stored)
    }

    fn add_usage(&self, session_id: &str, tokens: Tokens, cost: f64) -> Result<Session> {
        let stored = self
            .shared
            .write(|conn| sessions::add_usage(conn, session_id, tokens, cost, now_ms()))?;
        self.publish(Event::SessionUpdated {
            info: stored.clone(),
        });
        Ok(stored)
    }

    fn delete_session(&self, id: &str) -> Result<()> {
        self.delete_session_freeing(id).map(drop)
    }

    fn put_message(&self, info: &MessageInfo) -> Result<()> {
        self.shared
            .write(|conn| messages::put_message(conn, info))?;
        self.publish(Event::MessageUpdated { info: info.clone() });
        Ok(())
    }

    fn get_message(&self, message_id: &str) -> Result<Message> {
        self.shared
            .read(|conn| messages::get_message(conn, message_id))
    }

    /// Removing a message that is not there is not an error (a retried removal), and
    /// publishes nothing.
    fn remove_message(&self, session_id: &str, message_id: &str) -> Result<()> {
        let removed = self
            .shared
            .write(|conn| messages::remove_message(conn, session_id, message_id))?;
        if removed {
            self.publish(Event::MessageRemoved {
                session_id: session_id.to_string(),
                message_id: message_id.to_string(),
            });
        }
        Ok(())
    }

    fn put_message_with_parts(&self, info: &MessageInfo, parts: &[Part]) -> Result<()> {
        self.shared.write(|conn| {
            messages::put_message(conn, info)?;
            parts
                .iter()
                .try_for_each(|part| messages::put_part(conn, part))
        })?;
        self.publish(Event::MessageUpdated { info: info.clone() });
        for part in parts {
            self.publish(Event::PartUpdated { part: part.clone() });
        }
        Ok(())
    }

    fn put_part(&self, part: &Part) -> Result<()> {
        self.shared.write(|conn| messages::put_part(conn, part))?;
        self.publish(Event::PartUpdated { part: part.clone() });
        Ok(())
    }

    fn update_part_delta(
        &self,
        session_id: &str,
        message_id: &str,
        part_id: &str,
        field: &str,
        delta: &str,
    ) -> Result<()> {
        self.publish(Event::PartDelta {
            session_id: session_id.to_string(),
            message_id: message_id.to_string(),
            part_id: part_id.to_string(),
            field: field.to_string(),
            delta: delta.to_string(),
        });
        match self.shared.deltas.push(part_id, field, delta) {
            Backlog::Fine => Ok(()),
            // The writer is behind: waiting for this write is the back-pressure that
            // keeps what a crash can lose bounded.
            Backlog::Full => self.shared.flush(),
        }
    }

    /// Removing a part that is not there is not an error, and publishes nothing.
    fn remove_part(&self, session_id: &str, message_id: &str, part_id: &str) -> Result<()> {
        let removed = self
            .shared
            .write(|conn| messages::remove_part(conn, message_id, part_id))?;
        if removed {
            self.publish(Event::PartRemoved {
                session_id: session_id.to_string(),
                message_id: message_id.to_string(),
                part_id: part_id.to_string(),
            });
        }
        Ok(())
    }

    fn messages(&self, session_id: &str, since: Option<&str>) -> Result<Vec<Message>> {
        self.shared
            .read(|conn| messages::list(conn, session_id, since.unwrap_or("")))
    }

    fn todos(&self, session_id: &str) -> Result<Vec<Todo>> {
        self.shared
            .read_unstreamed(|conn| todos::get(conn, session_id))
    }

    fn set_todos(&self, session_id: &str, list: &[Todo]) -> Result<()> {
        self.shared
            .write(|conn| todos::set(conn, session_id, list))?;
        self.publish(Event::TodoUpdated {
            session_id: session_id.to_string(),
            todos: list.to_vec(),
        });
        Ok(())
    }

    fn compaction(&self, session_id: &str) -> Result<Option<CompactionPoint>> {
        self.shared
            .read(|conn| compaction::latest(conn, session_id))
    }

    fn set_compaction(
        &self,
        session_id: &str,
        summary_message_id: &str,
        from_message_id: &str,
    ) -> Result<CompactionPoint> {
        let point = self.shared.write(|conn| {
            compaction::append(
                conn,
                session_id,
                summary_message_id,
                from_message_id,
                now_ms(),
            )
        })?;
        self.publish(Event::SessionCompacted {
            session_id: session_id.to_string(),
        });
        Ok(point)
    }

    fn flush(&self) -> Result<()> {
        self.shared.flush()
    }

    fn recover(&self) -> Result<Recovery> {
        let repaired = self.shared.write(|conn| recover::recover(conn, now_ms()))?;
        let recovery = Recovery {
            interrupted_parts: repaired.parts.len(),
            aborted_messages: repaired.messages.len(),
        };
        if recovery != Recovery::default() {
            tracing::info!(
                interrupted_parts = recovery.interrupted_parts,
                aborted_messages = recovery.aborted_messages,
                "recovered unfinished work of a previous run"
            );
        }
        for info in repaired.messages {
            self.publish(Event::MessageUpdated { info });
        }
        for part in repaired.parts {
            self.publish(Event::PartUpdated { part });
        }
        Ok(recovery)
    }
}

impl ApprovalStore for SqliteStore {
    /// A failed read is logged and yields no approvals: the user is asked again,
    /// which is the safe direction to fail in.
    fn load(&self, project: &str, agent: &str) -> Vec<Rule> {
        self.shared
            .read(|conn| approvals::load(conn, project, agent))
            .unwrap_or_else(|error| {
                tracing::error!(%error, "approvals could not be read; asking again");
                Vec::new()
            })
    }

    fn save(&self, project: &str, agent: &str, rules: &[Rule]) -> Result<(), SaveError> {
        self.shared
            .write(|conn| approvals::save(conn, project, agent, rules))
            .map_err(|error| SaveError {
                project: project.to_string(),
                scope: agent.to_string(),
                reason: error.to_string(),
            })
    }
}

impl SqliteStore {
    pub(super) fn publish(&self, event: Event) {
        self.shared.bus.publish(event);
    }

    /// Sets (or clears) session `id`'s roll-back point; returns the session.
    pub fn set_revert(
        &self,
        id: &str,
        revert: Option<&crate::model::session::SessionRevert>,
    ) -> Result<Session> {
        let value = revert
            .map(serde_json::to_string)
            .transpose()
            .context(|| format!("encoding the revert of session {id}"))?;
        self.set_json(id, sessions::JsonColumn::Revert, value)
    }

    /// Sets session `id`'s file-change summary; returns the session.
    pub fn set_summary(
        &self,
        id: &str,
        summary: &crate::model::session::SessionSummary,
    ) -> Result<Session> {
        let value = serde_json::to_string(summary)
            .context(|| format!("encoding the summary of session {id}"))?;
        self.set_json(id, sessions::JsonColumn::Summary, Some(value))
    }

    fn set_json(
        &self,
        id: &str,
        column: sessions::JsonColumn,
        value: Option<String>,
    ) -> Result<Session> {
        let stored = self
            .shared
            .write(|conn| sessions::set_json(conn, id, column, value, now_ms()))?;
        self.publish(Event::SessionUpdated {
            info: stored.clone(),
        });
        Ok(stored)
    }
}
