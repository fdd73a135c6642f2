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

impl QuestionInfo {
    /// What a line a person typed answers: the labels of the options picked by
    /// number (`2`, `1,3` when several may be picked), else the line itself as the
    /// person's own answer; `None` (dismissed) for an empty line. Every frontend that
    /// reads typed answers (the line mode, the terminal UI) reads them by this rule.
    pub fn answer_typed(&self, line: &str) -> Option<Vec<String>> {
        let line = line.trim();
        if line.is_empty() {
            return None;
        }
        let picked: Option<Vec<String>> = line
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|t| !t.is_empty())
            .map(|t| {
                let n: usize = t.parse().ok()?;
                self.options.get(n.checked_sub(1)?).map(|o| o.label.clone())
            })
            .collect();
        match picked {
            Some(labels) if !labels.is_empty() && (self.multiple || labels.len() == 1) => {
                Some(labels)
            }
            _ => Some(vec![line.to_string()]),
        }
    }
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
