//! What of a session's history fits the model's window, the context defences the
//! agent loop applies before each request:
//!
//! - [`truncate`]: a tool's output cut to the configured lines and bytes before the
//!   model sees it, the whole saved under the data directory (swept after a week).
//! - [`budget`]: how full the window is and how full the next request would make it —
//!   the `[compaction]` settings ([`budget::ContextPolicy`]), the usable input, and
//!   the token tally of stored messages.
//! - [`prune`]: old and superseded tool outputs replaced by a placeholder, nothing
//!   deleted.
//!
//! Compaction, the third defence, needs a model call and lives with the loop
//! (`ward-session`).

pub mod budget;
#[cfg(test)]
mod fixtures;
pub mod prune;
pub mod truncate;

pub use budget::ContextPolicy;
