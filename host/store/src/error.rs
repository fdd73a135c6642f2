//! Errors of the store.
//!
//! Owns [`StoreError`]. Every database error carries what the store was doing when it
//! failed (`"put part prt_…"`), because SQLite's own text ("FOREIGN KEY constraint
//! failed") does not say which row or operation was involved.

use thiserror::Error;

/// Shorthand for results of store operations.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Why a store operation failed.
#[derive(Debug, Error)]
pub enum StoreError {
    /// The database refused or failed an operation.
    #[error("{context}: {source}")]
    Sqlite {
        /// What the store was doing, with the ids involved.
        context: String,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// A stored JSON document could not be read or a value could not be written as one.
    #[error("{context}: {source}")]
    Json {
        /// Which document, with its id.
        context: String,
        /// The serde error.
        #[source]
        source: serde_json::Error,
    },
    /// No row has this id.
    #[error("{kind} {id} not found")]
    NotFound {
        /// `session`, `message` or `part`.
        kind: &'static str,
        /// The id asked for.
        id: String,
    },
    /// The database file was written by a newer Ward whose schema this build does not know.
    #[error(
        "the database is at schema version {found}, newer than the {known} this build of \
         Ward knows; upgrade Ward or use another data directory (WARD_DATA_DIR)"
    )]
    NewerSchema {
        /// `PRAGMA user_version` of the file.
        found: i64,
        /// The last migration this build has.
        known: i64,
    },
    /// The directory for the database file could not be created.
    #[error("creating {path}: {source}")]
    Io {
        /// The directory.
        path: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A delta named a field that is not text in the stored part.
    #[error("part {part_id}: field {field:?} is not text, so a delta cannot be appended to it")]
    NotText {
        /// The part the delta was for.
        part_id: String,
        /// The field named by the delta.
        field: String,
    },
    /// The thread that writes streamed deltas could not be started.
    #[error("starting the delta writer thread: {0}")]
    Spawn(#[source] std::io::Error),
}

/// Attaches a description of the operation to database and JSON errors.
pub(crate) trait Context<T> {
    /// Wraps the error with `context`, computed only on failure.
    fn context(self, context: impl FnOnce() -> String) -> Result<T>;
}

impl<T> Context<T> for std::result::Result<T, rusqlite::Error> {
    fn context(self, context: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|source| StoreError::Sqlite {
            context: context(),
            source,
        })
    }
}

impl<T> Context<T> for std::result::Result<T, serde_json::Error> {
    fn context(self, context: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|source| StoreError::Json {
            context: context(),
            source,
        })
    }
}
