//! Ward's storage: sessions, messages, parts, todos, compaction points and approvals.
//!
//! The records it keeps ([`model`], [`id`]) and the [`Event`]s it publishes ([`bus`])
//! are `ward-protocol`'s, re-exported here for the crates below the engine.
//!
//! - [`store`]: the [`Store`] trait every backend implements.
//! - [`sqlite`]: the embedded backend, [`SqliteStore`] — one WAL-mode file, streamed
//!   deltas written in batches, crash recovery on open.
//! - [`blobs`]: attachment bytes, stored once by content hash.
//! - [`error`]: what can go wrong, as [`StoreError`].

#![warn(missing_docs)]

pub mod blobs;
pub mod error;
pub mod sqlite;
pub mod store;

pub use blobs::{BLOB_SCHEME, BlobError, Blobs, is_blob};
pub use error::{Result, StoreError};
pub use sqlite::{
    DeltaOptions, DeltaStats, ImportedSession, SessionRecords, SqliteOptions, SqliteStore, TakenIds,
};
pub use store::{Recovery, Store};
pub use ward_protocol::{
    ABORTED_ERROR, AssistantMessage, AssistantTime, Bus, CacheTokens, CompactionPoint,
    CompletedTime, ErrorTime, Event, FileDiff, FilePart, FinishReason, INTERRUPTED, IdKind,
    Message, MessageError, MessageInfo, MessageSummary, ModelRef, Part, PartKind, QuestionCall,
    QuestionInfo, QuestionOption, QuestionRequest, RetryTime, RunningTime, Session, SessionRevert,
    SessionStatus, SessionSummary, SessionTime, Subscription, TextPart, TextTime, Todo,
    TodoPriority, TodoStatus, Tokens, ToolPart, ToolState, UserMessage, UserTime, bus, id, model,
    new_id, now_ms,
};
