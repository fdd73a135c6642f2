//! Ward's storage: sessions, messages, parts, todos, compaction points and approvals.
//!
//! - [`id`]: type-prefixed ids (`ses_…`, `msg_…`, `prt_…`) whose string order is
//!   creation order.
//! - [`model`]: the serde types stored and carried by events.
//! - [`store`]: the [`Store`] trait every backend implements.
//! - [`sqlite`]: the embedded backend, [`SqliteStore`] — one WAL-mode file, streamed
//!   deltas written in batches, crash recovery on open.
//! - [`blobs`]: attachment bytes, stored once by content hash.
//! - [`bus`]: the [`Event`]s published on every change.
//! - [`error`]: what can go wrong, as [`StoreError`].

#![warn(missing_docs)]

pub mod blobs;
pub mod bus;
mod clock;
pub mod error;
pub mod id;
pub mod model;
pub mod sqlite;
pub mod store;

pub use blobs::{BLOB_SCHEME, BlobError, Blobs, is_blob};
pub use bus::{Bus, Event, SessionStatus, Subscription};
pub use clock::now_ms;
pub use error::{Result, StoreError};
pub use id::{IdKind, new_id};
pub use model::compaction::CompactionPoint;
pub use model::message::{
    ABORTED_ERROR, AssistantMessage, AssistantTime, FinishReason, Message, MessageError,
    MessageInfo, MessageSummary, UserMessage, UserTime,
};
pub use model::part::{
    CompletedTime, ErrorTime, FilePart, INTERRUPTED, Part, PartKind, RetryTime, RunningTime,
    TextPart, TextTime, ToolPart, ToolState,
};
pub use model::question::{QuestionCall, QuestionInfo, QuestionOption, QuestionRequest};
pub use model::session::{
    CacheTokens, FileDiff, ModelRef, Session, SessionRevert, SessionSummary, SessionTime, Tokens,
};
pub use model::todo::{Todo, TodoPriority, TodoStatus};
pub use sqlite::{
    DeltaOptions, DeltaStats, ImportedSession, SessionRecords, SqliteOptions, SqliteStore, TakenIds,
};
pub use store::{Recovery, Store};
