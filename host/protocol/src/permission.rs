//! What a permission question and its answer are, and the rules a person writes.
//!
//! Owns [`AskRequest`] (a tool call asking), [`Reply`] (a person's answer), [`Rule`]
//! and [`Action`]: the data frontends show and send. Deciding a request against rules
//! is `ward-permission`'s job.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The permission a command needs to leave the sandbox (pattern: the command). Asked
/// by default; a rule may allow or deny it; only a person may answer it.
pub const ESCAPE_PERMISSION: &str = "unsandboxed";

/// A tool call's request for a permission.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AskRequest {
    /// The session making the call; replies cascade within it.
    pub session_id: String,
    /// The project (approvals are scoped to project and agent).
    pub project: String,
    /// The agent making the call.
    pub agent: String,
    /// The permission key (`bash`, `edit`, `read`, a tool name, …).
    pub permission: String,
    /// The patterns checked, e.g. one per bash sub-command; all must be allowed.
    pub patterns: Vec<String>,
    /// The patterns to allow from now on if the user answers "always".
    pub always: Vec<String>,
    /// Tool-specific detail for the prompt (diff, command, …).
    #[serde(default)]
    pub metadata: serde_json::Value,
    /// The tool call this belongs to, if any.
    #[serde(default)]
    pub call_id: Option<String>,
    /// The assistant message holding that call, when it is a session's call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// The plugin whose call asks (through `ask`, or a capability it uses); `None` when
    /// the host asks about a tool call. Shown with the question; an "always" answer to
    /// it is stored for that plugin alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
}

/// The user's answer to an ask.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "lowercase")]
pub enum Reply {
    /// Allow this call only.
    Once,
    /// Allow this call and persist allow rules for its `always` patterns.
    Always,
    /// Refuse this call and every other pending ask of the session.
    Reject {
        /// Told to the model with the rejection.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        feedback: Option<String>,
    },
}

/// What happens when a rule decides a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Run without asking.
    Allow,
    /// Suspend the call until the user answers.
    Ask,
    /// Refuse the call; the model sees an error.
    Deny,
}

impl Action {
    /// The lowercase name used in config files.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Allow => "allow",
            Action::Ask => "ask",
            Action::Deny => "deny",
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The text was not one of `allow`, `ask` or `deny`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("expected \"allow\", \"ask\" or \"deny\", found {0:?}")]
pub struct ParseActionError(pub String);

impl FromStr for Action {
    type Err = ParseActionError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "allow" => Ok(Action::Allow),
            "ask" => Ok(Action::Ask),
            "deny" => Ok(Action::Deny),
            other => Err(ParseActionError(other.to_string())),
        }
    }
}

/// One permission rule: `action` applies to requests for `permission` whose pattern
/// matches `pattern`. Both fields use `ward-permission`'s wildcard language.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rule {
    /// Permission key (`read`, `edit`, `bash`, a tool name, or `*`).
    pub permission: String,
    /// Pattern over the request's subject (path, command, URL, …).
    pub pattern: String,
    /// What to do when this rule decides.
    pub action: Action,
}

impl Rule {
    /// Builds a rule.
    pub fn new(permission: impl Into<String>, pattern: impl Into<String>, action: Action) -> Self {
        Rule {
            permission: permission.into(),
            pattern: pattern.into(),
            action,
        }
    }
}

/// Renders as `bash rm * = deny`, the form used in explanations and errors.
impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} = {}", self.permission, self.pattern, self.action)
    }
}
