//! The stored data model, as serde types.
//!
//! Owns the shapes of sessions, messages, parts, todos and compaction points. These
//! are what the JSON columns hold and what events carry, so a change here is a change
//! of the on-disk format and of the event stream.

pub mod compaction;
pub mod message;
pub mod part;
pub mod question;
pub mod session;
pub mod todo;
