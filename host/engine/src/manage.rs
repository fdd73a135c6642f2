//! Managing stored sessions as wholes: the last session of a directory (`--continue`),
//! fork, rename, delete, and — in [`crate::transfer`] — export and import.
//!
//! Each operation is a free function over the store, so a command that only manages
//! sessions (`ward session fork …`) need not load the plugins, and an [`Engine`]
//! method of the same name for the frontends that have one open (`ward serve`).
//! Every write is one transaction: a fork or an import is all there or absent.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use ward_store::{
    Blobs, IdKind, ImportedSession, Message, MessageInfo, Session, SessionRecords, SqliteStore,
    Store, StoreError, new_id,
};

use crate::engine::Engine;
use crate::error::EngineError;
pub use crate::transfer::{
    EXPORT_FORMAT, ExportFile, ImportError, MAX_IMPORT_BYTES, MAX_STRING_BYTES, SessionTree,
    export, import_bytes, import_file,
};

/// Why a session could not be managed as asked.
#[derive(Debug, thiserror::Error)]
pub enum ManageError {
    /// The store failed, or an id is not stored ([`StoreError::NotFound`]).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// `--continue` found no session of this directory.
    #[error(
        "no session to continue in {}: none was started in this directory (run a prompt \
         without --continue first, or pass --session ID)", directory.display()
    )]
    NothingToContinue {
        /// The project directory looked for.
        directory: PathBuf,
    },
    /// The message to fork at is not in the session.
    #[error("message {message} is not in session {session}")]
    NotInSession {
        /// The session.
        session: String,
        /// The message asked for.
        message: String,
    },
    /// A title must say something.
    #[error("a session title cannot be empty")]
    EmptyTitle,
    /// An import file was refused; nothing was stored.
    #[error(transparent)]
    Import(#[from] ImportError),
}

impl From<ManageError> for EngineError {
    fn from(error: ManageError) -> Self {
        match error {
            // An unknown id stays recognisable by `is_not_found`.
            ManageError::Store(e) => EngineError::Store(e),
            other => EngineError::Manage(other),
        }
    }
}

/// The top-level session of `directory` changed most recently (what `ward run
/// --continue` continues).
pub fn last_session(store: &SqliteStore, directory: &Path) -> Result<Session, ManageError> {
    let wanted = directory.to_string_lossy();
    store
        .list_sessions()?
        .into_iter()
        .find(|s| s.directory == wanted)
        .ok_or_else(|| ManageError::NothingToContinue {
            directory: directory.to_path_buf(),
        })
}

/// Renames session `id`; returns it as stored.
pub fn rename(store: &SqliteStore, id: &str, title: &str) -> Result<Session, ManageError> {
    let title = title.trim();
    if title.is_empty() {
        return Err(ManageError::EmptyTitle);
    }
    let session = store.get_session(id)?;
    Ok(store.update_session(&Session {
        title: title.to_string(),
        ..session
    })?)
}

/// Deletes session `id` and every session under it (its subagents'), with all
/// their messages, in one transaction; then removes from `blobs` the files no
/// remaining session refers to (a blob a fork or another session shares stays).
pub fn delete(store: &SqliteStore, blobs: &Blobs, id: &str) -> Result<(), ManageError> {
    for url in store.delete_session_freeing(id)? {
        // The session is gone whatever happens here: a file left behind costs space,
        // not correctness, so a failure is logged rather than reported as a failed
        // delete.
        if let Err(e) = blobs.remove(&url) {
            tracing::warn!("deleting session {id}: {e}");
        }
    }
    Ok(())
}

/// A copy of session `id` — its messages before `message` (all of them without
/// one), the fork point OpenCode's `session.fork` uses: forking at a prompt copies
/// what led up to it — under new ids, as a new top-level session titled
/// "TITLE (fork #n)". Assistant messages point at their copied user message;
/// compaction points whose summary is copied come along; the task list and the
/// subagents' sessions do not (a copied `task` call still names the original's
/// child session, which is only read). Copies of imported messages stay imported:
/// the fork's undo no more restores their snapshots than the original's does.
pub fn fork(store: &SqliteStore, id: &str, message: Option<&str>) -> Result<Session, ManageError> {
    let source = store.get_session(id)?;
    let mut messages = store.messages(id, None)?;
    if let Some(wanted) = message {
        let Some(at) = messages.iter().position(|m| m.info.id() == wanted) else {
            return Err(ManageError::NotInSession {
                session: id.to_string(),
                message: wanted.to_string(),
            });
        };
        messages.truncate(at);
    }
    let imported = store.imported(id)?;
    let mut session = Session::new(source.directory.clone(), source.agent.clone());
    session.title = forked_title(&source.title);
    session.model = source.model.clone();
    session.permission = source.permission.clone();
    // New ids are made in the source's order, so the copy sorts the same way.
    let mut ids: HashMap<String, String> = HashMap::new();
    let mut copied = Vec::with_capacity(messages.len());
    let mut through_message = None;
    for m in messages {
        let new = new_id(IdKind::Message);
        ids.insert(m.info.id().to_string(), new.clone());
        if imported.as_ref().is_some_and(|i| i.holds(m.info.id())) {
            through_message = Some(new.clone());
        }
        let info = match m.info {
            MessageInfo::User(mut u) => {
                u.id = new.clone();
                u.session_id = session.id.clone();
                MessageInfo::User(u)
            }
            MessageInfo::Assistant(mut a) => {
                a.id = new.clone();
                a.session_id = session.id.clone();
                if let Some(parent) = ids.get(&a.parent_id) {
                    a.parent_id = parent.clone();
                }
                session.tokens = session.tokens.plus(a.tokens);
                session.cost += a.cost;
                MessageInfo::Assistant(a)
            }
        };
        let parts = m
            .parts
            .into_iter()
            .map(|mut p| {
                p.id = new_id(IdKind::Part);
                p.message_id = new.clone();
                p.session_id = session.id.clone();
                p
            })
            .collect();
        copied.push(Message { info, parts });
    }
    let mut compactions = Vec::new();
    for point in store.compactions(id)? {
        if let (Some(summary), Some(from)) = (
            ids.get(&point.summary_message_id),
            ids.get(&point.from_message_id),
        ) {
            compactions.push(ward_store::CompactionPoint {
                session_id: session.id.clone(),
                index: u32::try_from(compactions.len() + 1).unwrap_or(u32::MAX),
                summary_message_id: summary.clone(),
                from_message_id: from.clone(),
                time: point.time,
            });
        }
    }
    // The fork starts unreverted: only the imported messages' mark is carried.
    let imported = through_message.map(|through| ImportedSession {
        session_id: session.id.clone(),
        through_message: Some(through),
        revert_snapshot: None,
    });
    store.insert_records(&SessionRecords {
        sessions: vec![session.clone()],
        messages: copied,
        todos: Vec::new(),
        compactions,
        imported: imported.into_iter().collect(),
    })?;
    Ok(session)
}

/// OpenCode's fork title: "T" → "T (fork #1)", "T (fork #1)" → "T (fork #2)".
pub fn forked_title(title: &str) -> String {
    if let Some(base) = title.strip_suffix(')')
        && let Some((base, n)) = base.rsplit_once(" (fork #")
        && let Ok(n) = n.parse::<u64>()
    {
        return format!("{base} (fork #{})", n.saturating_add(1));
    }
    format!("{title} (fork #1)")
}

impl Engine {
    /// The top-level session of this project changed most recently.
    pub fn last_session(&self) -> Result<Session, EngineError> {
        Ok(last_session(
            &self.shared.store,
            &self.shared.ws.config.project_root,
        )?)
    }

    /// A copy of session `id`'s messages before `message` (see [`fork`]).
    pub fn fork_session(&self, id: &str, message: Option<&str>) -> Result<Session, EngineError> {
        Ok(fork(&self.shared.store, id, message)?)
    }

    /// Renames session `id`.
    pub fn rename_session(&self, id: &str, title: &str) -> Result<Session, EngineError> {
        Ok(rename(&self.shared.store, id, title)?)
    }

    /// Session `id` with everything in it and under it (see [`crate::transfer`]).
    pub fn export_session(&self, id: &str) -> Result<ExportFile, EngineError> {
        Ok(crate::transfer::export(&self.shared.store, id)?)
    }

    /// Stores the sessions of an export file's bytes, checked first, in one
    /// transaction; returns the top-level one.
    pub fn import_session(&self, bytes: &[u8]) -> Result<Session, EngineError> {
        Ok(crate::transfer::import_bytes(&self.shared.store, bytes)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fork_titles_count_up() {
        assert_eq!(forked_title("Fix it"), "Fix it (fork #1)");
        assert_eq!(forked_title("Fix it (fork #1)"), "Fix it (fork #2)");
        assert_eq!(forked_title("Fix (it)"), "Fix (it) (fork #1)");
        assert_eq!(forked_title("x (fork #y)"), "x (fork #y) (fork #1)");
    }
}
