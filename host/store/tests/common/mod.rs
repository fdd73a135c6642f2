//! Helpers shared by the integration tests: a temporary directory and a session with
//! one exchange in it.

#![allow(dead_code)] // Each test binary uses a different subset.

use std::path::{Path, PathBuf};

use ward_store::{
    AssistantMessage, ModelRef, Part, PartKind, Session, SqliteStore, Store, TextPart, UserMessage,
};

/// A directory under the system temp dir, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    /// A fresh, empty directory named after `label`.
    pub fn new(label: &str) -> Self {
        let path = std::env::temp_dir().join(format!(
            "ward-store-{label}-{}-{}",
            std::process::id(),
            ward_store::new_id(ward_store::IdKind::Call)
        ));
        std::fs::create_dir_all(&path).expect("creates the temp dir");
        TempDir(path)
    }

    /// The database file inside it.
    pub fn db(&self) -> PathBuf {
        self.0.join("ward.db")
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A model reference for tests.
pub fn model() -> ModelRef {
    ModelRef::new("local", "scripted")
}

/// Creates a session with a user message and an open assistant answer.
pub fn exchange(store: &SqliteStore) -> (Session, UserMessage, AssistantMessage) {
    let session = Session::new("/project", "build");
    store.create_session(&session).expect("creates session");
    let user = UserMessage::new(&session.id, "build", model());
    store.put_message(&user.clone().into()).expect("puts user");
    let assistant = AssistantMessage::new(&user);
    store
        .put_message(&assistant.clone().into())
        .expect("puts assistant");
    (session, user, assistant)
}

/// A text part of `message`.
pub fn text(session: &Session, message_id: &str, text: &str) -> Part {
    Part::new(
        &session.id,
        message_id,
        PartKind::Text(TextPart {
            text: text.to_string(),
            ..TextPart::default()
        }),
    )
}

/// Runs `sql` returning one text value on a separate connection, which sees only what
/// the store has committed.
pub fn committed(db: &Path, sql: &str, param: &str) -> Option<String> {
    let conn = rusqlite::Connection::open(db).expect("opens a second connection");
    conn.query_row(sql, [param], |row| row.get(0)).ok()
}
