//! One tool called by name outside a session's loop (`ward tool call`, `ward mcp
//! serve`): what it returned, or why it did not.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// What a tool returned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolOutput {
    /// A short title for the call.
    pub title: String,
    /// What the model would read.
    pub output: String,
    /// The tool's details for user interfaces.
    pub metadata: serde_json::Value,
}

/// Why a tool call returned nothing.
#[derive(Clone, Debug, PartialEq, Eq, Error, Serialize, Deserialize)]
pub enum ToolFailure {
    /// The call failed: unknown tool, bad arguments, a rule's deny, the tool's error.
    #[error("{0}")]
    Failed(String),
    /// A person rejected a question the call put.
    #[error("{message}")]
    Rejected {
        /// What they said, if anything.
        feedback: Option<String>,
        /// The refusal as the model would read it.
        message: String,
    },
}
