//! Undo and redo: [`Engine::revert`] puts the project's files back as they were
//! before a message (or a part of it) and hides that message and the later ones
//! from the model; [`Engine::unrevert`] puts the files and the messages back; the
//! next prompt after a revert discards the hidden tail for good
//! ([`discard_reverted`]) and continues from the reverted point.
//!
//! The files come from the `patch` parts the loop records for every step that ran a
//! tool: each names the snapshot taken before the step and the files the step
//! changed. Reverting from a point restores every file those parts name, after the
//! point, to the earliest snapshot that names it — so a file changed by three
//! steps comes back as it was before the first of them, a file a step created is
//! removed and one it deleted comes back. Before restoring, the files are
//! snapshotted once more: unrevert restores the same files from that snapshot.
//!
//! Only snapshots this data directory took are restored from, and never those an
//! imported session's history names ([`crate::provenance`]): such a revert or
//! unrevert is refused before anything is written.

use std::collections::BTreeMap;

use ward_store::{Message, PartKind, Session, SessionRevert, SqliteStore, Store};

use crate::engine::Engine;
use crate::error::EngineError;
use crate::provenance::Provenance;

impl Engine {
    /// Rolls session `id` back to just before message `message_id` (or, with
    /// `part_id`, just before that part of it): the files the steps from there on
    /// changed are restored exactly, and those messages are hidden from the model
    /// until [`Engine::unrevert`] or discarded by the next prompt. Refused while the
    /// session's loop runs. Returns the session, with its `revert` set.
    pub async fn revert(
        &self,
        id: &str,
        message_id: &str,
        part_id: Option<&str>,
    ) -> Result<Session, EngineError> {
        let session = self.session(id)?;
        if self.is_busy(id) {
            return Err(EngineError::Busy { id: id.to_string() });
        }
        let messages = self.shared.store.messages(id, None)?;
        let start = messages
            .iter()
            .position(|m| m.info.id() == message_id)
            .ok_or_else(|| not_found("message", message_id))?;
        if let Some(part) = part_id
            && !messages[start].parts.iter().any(|p| p.id == part)
        {
            return Err(not_found("part", part));
        }
        let files = patched_files(&messages[start..], part_id);
        // Reverting further back while reverted: unrevert still goes back to the
        // files as they were before the first revert.
        let earlier = session.revert.clone();
        let snapshots = self.shared.snapshots.clone();
        if snapshots.is_off() {
            return Err(EngineError::SnapshotsOff);
        }
        let provenance = Provenance::load(&self.shared.store, id, &snapshots.taken)?;
        let names: Vec<String> = files.keys().cloned().collect();
        provenance.check_patches(
            patches(&messages[start..], part_id).map(|(message, hash, _)| (message, hash)),
            &names,
        )?;
        let restore: Vec<(String, String)> =
            files.iter().map(|(f, h)| (f.clone(), h.clone())).collect();
        // An earlier snapshot not taken here (the revert point an import came with)
        // is not one unrevert may restore from: a new one is taken instead.
        let kept = earlier
            .as_ref()
            .and_then(|e| e.snapshot.clone())
            .filter(|s| provenance.may_restore(s));
        let snapshot = tokio::task::spawn_blocking(move || {
            let snapshot = match kept {
                Some(s) => s,
                None => snapshots.track_now()?,
            };
            snapshots.restore(&restore)?;
            Ok::<_, EngineError>(snapshot)
        })
        .await
        .map_err(|_| EngineError::Busy { id: id.to_string() })??;
        let revert = SessionRevert {
            message_id: message_id.to_string(),
            part_id: part_id.map(str::to_string),
            snapshot: Some(snapshot),
            files: files.into_keys().collect(),
        };
        let session = self.shared.store.set_revert(id, Some(&revert))?;
        self.shared.summarize_in_background(id);
        Ok(session)
    }

    /// What undo (`/undo`, `ward session revert` without a message) reverts from in
    /// session `id`: its last prompt still shown (before the current revert point,
    /// if reverted); `None` if there is none.
    pub fn undo_target(&self, id: &str) -> Result<Option<String>, EngineError> {
        let session = self.session(id)?;
        let messages = self.shared.store.messages(id, None)?;
        let shown = match &session.revert {
            Some(revert) => messages
                .iter()
                .position(|m| m.info.id() == revert.message_id)
                .unwrap_or(messages.len()),
            None => messages.len(),
        };
        Ok(messages[..shown]
            .iter()
            .rev()
            .find(|m| matches!(m.info, ward_store::MessageInfo::User(_)))
            .map(|m| m.info.id().to_string()))
    }

    /// Undo as `/undo` does it, in the line mode and the terminal UI alike: reverts
    /// session `id` from its last prompt still shown ([`Engine::undo_target`]).
    /// `None` when there is nothing to undo.
    pub async fn undo(&self, id: &str) -> Result<Option<Undone>, EngineError> {
        let Some(message_id) = self.undo_target(id)? else {
            return Ok(None);
        };
        let prompt = self
            .shared
            .store
            .messages(id, None)?
            .into_iter()
            .find(|m| m.info.id() == message_id)
            .map(|m| prompt_text(&m))
            .unwrap_or_default();
        let session = self.revert(id, &message_id, None).await?;
        let files = session
            .revert
            .as_ref()
            .map(|r| r.files.clone())
            .unwrap_or_default();
        Ok(Some(Undone {
            session,
            message_id,
            prompt,
            files,
        }))
    }

    /// Redo as `/redo` does it: puts back what the last revert of session `id` took
    /// away. `None` when the session is not reverted (nothing to redo).
    pub async fn redo(&self, id: &str) -> Result<Option<Session>, EngineError> {
        if self.session(id)?.revert.is_none() {
            return Ok(None);
        }
        self.unrevert(id).await.map(Some)
    }

    /// Undoes [`Engine::revert`]: the files it restored are put back as they were
    /// just before it, and the hidden messages are shown again. Refused while the
    /// session's loop runs; a session that is not reverted is returned unchanged.
    pub async fn unrevert(&self, id: &str) -> Result<Session, EngineError> {
        let session = self.session(id)?;
        if self.is_busy(id) {
            return Err(EngineError::Busy { id: id.to_string() });
        }
        let Some(revert) = session.revert else {
            return Ok(session);
        };
        if let Some(snapshot) = revert.snapshot {
            let snapshots = self.shared.snapshots.clone();
            Provenance::load(&self.shared.store, id, &snapshots.taken)?
                .check_snapshot(&snapshot, &revert.files)?;
            let files: Vec<(String, String)> = revert
                .files
                .into_iter()
                .map(|f| (f, snapshot.clone()))
                .collect();
            tokio::task::spawn_blocking(move || snapshots.restore(&files))
                .await
                .map_err(|_| EngineError::Busy { id: id.to_string() })??;
        }
        let session = self.shared.store.set_revert(id, None)?;
        self.shared.summarize_in_background(id);
        Ok(session)
    }
}

/// What [`Engine::undo`] did.
#[derive(Clone, Debug)]
pub struct Undone {
    /// The session, with its `revert` set.
    pub session: Session,
    /// The prompt reverted from (it and what followed are hidden from the model).
    pub message_id: String,
    /// That prompt's text (what a person recognises it by).
    pub prompt: String,
    /// The files put back as they were before it.
    pub files: Vec<String>,
}

/// The text a person typed in a user message: its text parts that are not the
/// engine's own additions.
fn prompt_text(message: &Message) -> String {
    let texts: Vec<&str> = message
        .parts
        .iter()
        .filter_map(|p| match &p.kind {
            PartKind::Text(t) if !t.synthetic => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    texts.join("\n")
}

/// The `patch` parts of `messages` (from `part_id` on in the first one), in order:
/// each as the message holding it, the snapshot it names and the files it lists.
fn patches<'a>(
    messages: &'a [Message],
    part_id: Option<&'a str>,
) -> impl Iterator<Item = (&'a str, &'a str, &'a [String])> {
    messages.iter().enumerate().flat_map(move |(i, message)| {
        message.parts.iter().filter_map(move |part| {
            if i == 0 && part_id.is_some_and(|first| part.id.as_str() < first) {
                return None;
            }
            match &part.kind {
                PartKind::Patch { hash, files } => {
                    Some((message.info.id(), hash.as_str(), files.as_slice()))
                }
                _ => None,
            }
        })
    })
}

/// Each file the `patch` parts of `messages` (from `part_id` on in the first one)
/// name, with the earliest snapshot that names it: the state to restore.
fn patched_files(messages: &[Message], part_id: Option<&str>) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    for (_, hash, names) in patches(messages, part_id) {
        for name in names {
            files
                .entry(name.clone())
                .or_insert_with(|| hash.to_string());
        }
    }
    files
}

/// Before a prompt is stored in `session_id`: if the session is reverted, the
/// hidden messages (and parts) are deleted and the revert cleared, so the prompt
/// continues from the reverted point and the model never sees what was undone.
pub(crate) fn discard_reverted(store: &SqliteStore, session_id: &str) -> Result<(), EngineError> {
    let session = store.get_session(session_id)?;
    let Some(revert) = session.revert else {
        return Ok(());
    };
    let messages = store.messages(session_id, None)?;
    if let Some(start) = messages
        .iter()
        .position(|m| m.info.id() == revert.message_id)
    {
        let (first, rest) = (&messages[start], &messages[start + 1..]);
        match &revert.part_id {
            Some(part_id) => {
                for part in first.parts.iter().filter(|p| p.id >= *part_id) {
                    store.remove_part(session_id, first.info.id(), &part.id)?;
                }
            }
            None => store.remove_message(session_id, first.info.id())?,
        }
        for message in rest {
            store.remove_message(session_id, message.info.id())?;
        }
    }
    store.set_revert(session_id, None)?;
    Ok(())
}

fn not_found(kind: &'static str, id: &str) -> EngineError {
    EngineError::Store(ward_store::StoreError::NotFound {
        kind,
        id: id.to_string(),
    })
}

#[cfg(test)]
mod tests;
