//! A session's task list, as the `todowrite` tool leaves it.
//!
//! Owns [`Todo`]. The JSON shape matches the tool's output metadata (`todos`), so the
//! host can store what the tool returned without translating it.

use serde::{Deserialize, Serialize};

/// Where a task stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
    /// No longer needed.
    Cancelled,
}

/// How soon a task should be done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TodoPriority {
    /// Do first.
    High,
    /// The default.
    #[default]
    Medium,
    /// Do last.
    Low,
}

/// One task of a session's list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Todo {
    /// Identifies the task within the list.
    #[serde(default)]
    pub id: String,
    /// What is to be done.
    pub content: String,
    /// Where it stands.
    pub status: TodoStatus,
    /// How soon.
    #[serde(default)]
    pub priority: TodoPriority,
}
