//! Whole sessions in and out at once: what export, import and fork need beyond the
//! row-at-a-time [`crate::Store`] calls.
//!
//! Owns [`SessionRecords`] and writing them in ONE immediate transaction: sessions
//! (parents first), messages, parts, todos, compaction points and import marks are
//! inserted — never upserted — so an id that is already stored fails the whole write
//! and nothing of it is kept. A half-imported session would be worse than none: the
//! loop would continue it with a history that was never the model's (and one stored
//! without its import mark could have its snapshots restored as if taken here).

use rusqlite::{Connection, params};

use super::imported::{self, ImportedSession};
use super::{SqliteStore, sessions};
use crate::bus::Event;
use crate::error::{Context, Result, StoreError};
use crate::model::compaction::CompactionPoint;
use crate::model::message::Message;
use crate::model::session::Session;
use crate::model::todo::Todo;

/// Sessions with everything stored in them, to be written together.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SessionRecords {
    /// The sessions, each after its parent when both are here.
    pub sessions: Vec<Session>,
    /// Their messages with their parts.
    pub messages: Vec<Message>,
    /// Task lists, by session id (sessions without one are absent).
    pub todos: Vec<(String, Vec<Todo>)>,
    /// Completed compactions, with the index each had.
    pub compactions: Vec<CompactionPoint>,
    /// Import marks of these sessions (those that came from an import file).
    pub imported: Vec<ImportedSession>,
}

/// Which of the ids asked about are already stored, by table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TakenIds {
    /// Session ids in use.
    pub sessions: Vec<String>,
    /// Message ids in use.
    pub messages: Vec<String>,
    /// Part ids in use.
    pub parts: Vec<String>,
}

impl TakenIds {
    /// Whether none is in use.
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty() && self.messages.is_empty() && self.parts.is_empty()
    }
}

impl SqliteStore {
    /// Stores `records` in one transaction: all of them, or — if any id is taken, a
    /// parent is missing or the disk fails — none. Publishes `session.created` for
    /// each session once committed.
    pub fn insert_records(&self, records: &SessionRecords) -> Result<()> {
        self.shared.write(|conn| insert(conn, records))?;
        for info in &records.sessions {
            self.shared
                .bus
                .publish(Event::SessionCreated { info: info.clone() });
        }
        Ok(())
    }

    /// Every completed compaction of `session_id`, oldest first (the store keeps
    /// them all; [`crate::Store::compaction`] gives the latest).
    pub fn compactions(&self, session_id: &str) -> Result<Vec<CompactionPoint>> {
        self.shared.read(|conn| {
            conn.prepare_cached(
                "SELECT session_id, idx, summary_message_id, from_message_id, time \
                 FROM compaction WHERE session_id = ?1 ORDER BY idx",
            )
            .and_then(|mut statement| {
                statement
                    .query_map([session_id], |row| {
                        Ok(CompactionPoint {
                            session_id: row.get(0)?,
                            index: row.get(1)?,
                            summary_message_id: row.get(2)?,
                            from_message_id: row.get(3)?,
                            time: row.get(4)?,
                        })
                    })?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .context(|| format!("list the compactions of session {session_id}"))
        })
    }

    /// Which of these ids are already stored.
    pub fn taken_ids(
        &self,
        sessions: &[&str],
        messages: &[&str],
        parts: &[&str],
    ) -> Result<TakenIds> {
        self.shared.read(|conn| {
            Ok(TakenIds {
                sessions: taken(conn, "session", sessions)?,
                messages: taken(conn, "message", messages)?,
                parts: taken(conn, "part", parts)?,
            })
        })
    }

    /// `id` and every session under it, parents before children.
    pub fn session_tree(&self, id: &str) -> Result<Vec<Session>> {
        let tree = self
            .shared
            .read(|conn| sessions::with_descendants(conn, id))?;
        if tree.is_empty() {
            return Err(StoreError::NotFound {
                kind: "session",
                id: id.to_string(),
            });
        }
        Ok(tree)
    }
}

/// The ids of `ids` present in `table` (one of ours: never user text).
fn taken(conn: &Connection, table: &str, ids: &[&str]) -> Result<Vec<String>> {
    let sql = format!("SELECT 1 FROM {table} WHERE id = ?1");
    let mut statement = conn
        .prepare_cached(&sql)
        .context(|| format!("look up {table} ids"))?;
    let mut found = Vec::new();
    for id in ids {
        if statement
            .exists([id])
            .context(|| format!("look up {table} {id}"))?
        {
            found.push((*id).to_string());
        }
    }
    Ok(found)
}

fn insert(conn: &Connection, records: &SessionRecords) -> Result<()> {
    for session in &records.sessions {
        sessions::insert(conn, session)?;
    }
    for mark in &records.imported {
        imported::insert(conn, mark)?;
    }
    let mut message_insert = conn
        .prepare_cached("INSERT INTO message (id, session_id, data) VALUES (?1, ?2, ?3)")
        .context(|| "prepare the message insert".into())?;
    let mut part_insert = conn
        .prepare_cached(
            "INSERT INTO part (id, message_id, session_id, data) VALUES (?1, ?2, ?3, ?4)",
        )
        .context(|| "prepare the part insert".into())?;
    for message in &records.messages {
        let info = &message.info;
        let data =
            serde_json::to_string(info).context(|| format!("encoding message {}", info.id()))?;
        message_insert
            .execute(params![info.id(), info.session_id(), data])
            .context(|| {
                format!(
                    "insert message {} in session {}",
                    info.id(),
                    info.session_id()
                )
            })?;
        for part in &message.parts {
            let data =
                serde_json::to_string(part).context(|| format!("encoding part {}", part.id))?;
            part_insert
                .execute(params![part.id, part.message_id, part.session_id, data])
                .context(|| format!("insert part {} in message {}", part.id, part.message_id))?;
        }
    }
    for (session_id, todos) in &records.todos {
        super::todos::set(conn, session_id, todos)?;
    }
    for point in &records.compactions {
        conn.prepare_cached(
            "INSERT INTO compaction (session_id, idx, summary_message_id, from_message_id, time) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .and_then(|mut statement| {
            statement.execute(params![
                point.session_id,
                point.index,
                point.summary_message_id,
                point.from_message_id,
                point.time
            ])
        })
        .context(|| {
            format!(
                "insert compaction {} of session {}",
                point.index, point.session_id
            )
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::message::{MessageInfo, UserMessage};
    use crate::model::part::{Part, PartKind, TextPart};
    use crate::model::session::ModelRef;
    use crate::store::Store;

    fn one_session() -> SessionRecords {
        let session = Session::new("/p", "build");
        let user = UserMessage::new(&session.id, "build", ModelRef::new("p", "m"));
        let part = Part::new(
            &session.id,
            &user.id,
            PartKind::Text(TextPart {
                text: "hi".into(),
                ..TextPart::default()
            }),
        );
        SessionRecords {
            messages: vec![Message {
                info: MessageInfo::User(user),
                parts: vec![part],
            }],
            todos: vec![(session.id.clone(), Vec::new())],
            sessions: vec![session],
            compactions: Vec::new(),
            imported: Vec::new(),
        }
    }

    #[test]
    fn a_taken_part_id_keeps_nothing_of_the_write() {
        let store = SqliteStore::open_in_memory().expect("opens");
        let first = one_session();
        store.insert_records(&first).expect("first write");
        let mut second = one_session();
        // A fresh session and message, but the part id of the first write.
        second.messages[0].parts[0].id = first.messages[0].parts[0].id.clone();
        let error = store
            .insert_records(&second)
            .expect_err("the part id is taken");
        assert!(error.to_string().contains("insert part"), "{error}");
        let ids: Vec<_> = store
            .list_sessions()
            .expect("lists")
            .into_iter()
            .map(|s| s.id)
            .collect();
        assert_eq!(ids, vec![first.sessions[0].id.clone()]);
    }

    #[test]
    fn import_marks_are_stored_with_the_session_and_go_with_it() {
        let store = SqliteStore::open_in_memory().expect("opens");
        let mut records = one_session();
        let session = records.sessions[0].id.clone();
        let message = records.messages[0].info.id().to_string();
        records.imported.push(ImportedSession {
            session_id: session.clone(),
            through_message: Some(message.clone()),
            revert_snapshot: Some("abc".into()),
        });
        store.insert_records(&records).expect("writes");
        let mark = store.imported(&session).expect("reads").expect("marked");
        assert!(mark.holds(&message));
        assert!(
            !mark.holds(&format!("{message}z")),
            "a later message is not"
        );
        assert_eq!(mark.revert_snapshot.as_deref(), Some("abc"));

        // A mark whose session is not stored keeps nothing of the write.
        let mut orphan = one_session();
        orphan.imported.push(ImportedSession {
            session_id: "ses_missing".into(),
            ..ImportedSession::default()
        });
        store.insert_records(&orphan).expect_err("no such session");
        assert!(store.get_session(&orphan.sessions[0].id).is_err());

        store.delete_session(&session).expect("deletes");
        assert_eq!(store.imported(&session).expect("reads"), None);
    }
}
