//! Questions the model puts to the user (the `question` tool), as events carry them.
//!
//! Owns [`QuestionRequest`] and its parts, in OpenCode's shape (`question`, `header`,
//! `options: [{label, description}]`, `multiple`). A question is not a permission
//! ask: its answer is text for the model and grants nothing, so it travels as its own
//! event and is answered through its own call.

use serde::{Deserialize, Serialize};

/// One choice offered with a question.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionOption {
    /// What the user picks (a few words).
    pub label: String,
    /// What picking it means.
    #[serde(default)]
    pub description: String,
}

/// One question.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionInfo {
    /// The question in full.
    pub question: String,
    /// A very short label for it.
    #[serde(default)]
    pub header: String,
    /// The choices.
    #[serde(default)]
    pub options: Vec<QuestionOption>,
    /// Whether several choices may be picked.
    #[serde(default)]
    pub multiple: bool,
}

/// The tool call a question came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionCall {
    /// The assistant message holding the call.
    pub message_id: String,
    /// The call's id.
    pub call_id: String,
}

/// Questions waiting for the user's answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionRequest {
    /// `que_…`: what a reply names.
    pub id: String,
    /// The session asking.
    pub session_id: String,
    /// The questions, answered in this order.
    pub questions: Vec<QuestionInfo>,
    /// The call asking, if a tool call did.
    #[serde(default)]
    pub tool: Option<QuestionCall>,
}
