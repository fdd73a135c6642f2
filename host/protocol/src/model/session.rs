//! The session record and the usage counters shared with messages.
//!
//! Owns [`Session`], [`ModelRef`] and [`Tokens`]. A session is one conversation:
//! its messages live in their own table and are not part of this record.

use crate::permission::Rule;
use serde::{Deserialize, Serialize};

use crate::clock::now_ms;
use crate::id::{IdKind, new_id};

/// Which model of which provider answers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ModelRef {
    /// Provider id from the config (`anthropic`, `openai`, `local`, …).
    pub provider: String,
    /// Model id as the provider names it.
    pub model: String,
}

impl ModelRef {
    /// Builds a reference.
    pub fn new(provider: impl Into<String>, model: impl Into<String>) -> Self {
        ModelRef {
            provider: provider.into(),
            model: model.into(),
        }
    }
}

/// Tokens read from or written to the prompt cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheTokens {
    /// Prompt tokens served from the cache.
    pub read: u64,
    /// Prompt tokens written to the cache.
    pub write: u64,
}

/// Token usage of a step, a message or a whole session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// Prompt tokens not served from the cache.
    pub input: u64,
    /// Completion tokens, reasoning excluded.
    pub output: u64,
    /// Reasoning ("thinking") tokens.
    pub reasoning: u64,
    /// Prompt cache traffic.
    #[serde(default)]
    pub cache: CacheTokens,
}

impl Tokens {
    /// The sum of both, field by field (saturating: counters never wrap).
    pub fn plus(self, other: Tokens) -> Tokens {
        Tokens {
            input: self.input.saturating_add(other.input),
            output: self.output.saturating_add(other.output),
            reasoning: self.reasoning.saturating_add(other.reasoning),
            cache: CacheTokens {
                read: self.cache.read.saturating_add(other.cache.read),
                write: self.cache.write.saturating_add(other.cache.write),
            },
        }
    }
}

/// When a session was created and last changed, in Unix milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionTime {
    /// Creation time.
    pub created: i64,
    /// Last update of the session record.
    pub updated: i64,
}

/// One conversation with an agent in a directory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// `ses_…`, time-ascending.
    pub id: String,
    /// The session that started this one as a subtask, if any.
    #[serde(default)]
    pub parent_id: Option<String>,
    /// Title shown in lists; generated after the first exchange.
    pub title: String,
    /// The project directory the session works in.
    pub directory: String,
    /// The agent in charge (`build`, `plan`, a plugin agent, …).
    pub agent: String,
    /// The model chosen for the session, if one was chosen explicitly.
    #[serde(default)]
    pub model: Option<ModelRef>,
    /// Permission rules added for this session only (the `session` ruleset layer).
    #[serde(default)]
    pub permission: Vec<Rule>,
    /// Token usage summed over the session's assistant messages.
    #[serde(default)]
    pub tokens: Tokens,
    /// Cost in US dollars summed over the session's assistant messages.
    #[serde(default)]
    pub cost: f64,
    /// Creation and update times.
    pub time: SessionTime,
    /// Where the session's files and messages were rolled back to, while the later
    /// messages are hidden (OpenCode's `session.revert`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revert: Option<SessionRevert>,
    /// What the session changed in the project's files, from its snapshots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<SessionSummary>,
}

/// A session rolled back to a message (or a part of it): the files are as they were
/// before it, and it and the messages after it are hidden until they are put back
/// or a new prompt discards them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRevert {
    /// The first message rolled back.
    #[serde(rename = "messageID")]
    pub message_id: String,
    /// The first part rolled back, when the roll-back starts inside the message.
    #[serde(rename = "partID", default, skip_serializing_if = "Option::is_none")]
    pub part_id: Option<String>,
    /// The snapshot of the files just before the roll-back (what unrevert restores).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
    /// The files the roll-back restored.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

/// Files changed, and lines added and removed, over a session or a prompt.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionSummary {
    /// Lines added.
    pub additions: u64,
    /// Lines removed.
    pub deletions: u64,
    /// Files changed.
    pub files: u64,
    /// Per file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diffs: Vec<FileDiff>,
}

/// One file's change.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDiff {
    /// Its path in the project.
    pub file: String,
    /// Lines added.
    pub additions: u64,
    /// Lines removed.
    pub deletions: u64,
}

impl Session {
    /// A new, empty session with a fresh id and the current time.
    pub fn new(directory: impl Into<String>, agent: impl Into<String>) -> Self {
        let now = now_ms();
        Session {
            id: new_id(IdKind::Session),
            parent_id: None,
            title: String::new(),
            directory: directory.into(),
            agent: agent.into(),
            model: None,
            permission: Vec::new(),
            tokens: Tokens::default(),
            cost: 0.0,
            time: SessionTime {
                created: now,
                updated: now,
            },
            revert: None,
            summary: None,
        }
    }

    /// A new session that runs as a subtask of `parent`, in the same directory.
    pub fn child_of(parent: &Session, agent: impl Into<String>) -> Self {
        Session {
            parent_id: Some(parent.id.clone()),
            ..Session::new(parent.directory.clone(), agent)
        }
    }
}
