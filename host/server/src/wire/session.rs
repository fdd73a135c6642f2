//! Sessions, todos and permission rules as OpenCode's server shows them.
//!
//! The store keeps its own names (`parent_id`, `provider`); these types are the
//! JSON a client of `opencode serve` reads (`parentID`, `providerID`), converted
//! with `From`, and they carry the schemas the OpenAPI document is made of.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use ward_protocol::{Action, Rule};
use ward_protocol::{Session, Todo, TodoPriority, TodoStatus, Tokens};

/// Token counts of a message, a step or a whole session.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TokenCounts {
    /// Tokens read.
    pub input: u64,
    /// Tokens written.
    pub output: u64,
    /// Tokens spent reasoning.
    pub reasoning: u64,
    /// Prompt-cache reads and writes.
    pub cache: CacheCounts,
}

/// Prompt-cache token counts.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CacheCounts {
    /// Tokens read from the cache.
    pub read: u64,
    /// Tokens written to the cache.
    pub write: u64,
}

impl From<Tokens> for TokenCounts {
    fn from(t: Tokens) -> Self {
        TokenCounts {
            input: t.input,
            output: t.output,
            reasoning: t.reasoning,
            cache: CacheCounts {
                read: t.cache.read,
                write: t.cache.write,
            },
        }
    }
}

/// A session (OpenCode's `Session`).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SessionInfo {
    /// `ses_…`.
    pub id: String,
    /// A short name for links; Ward uses the id.
    pub slug: String,
    /// The project: a stable hash of its root directory.
    #[serde(rename = "projectID")]
    pub project_id: String,
    /// The directory the session works in.
    pub directory: String,
    /// The session that started this one (a subagent's caller).
    #[serde(rename = "parentID", skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    /// Its title ("" until one is written).
    pub title: String,
    /// The Ward version that serves it.
    pub version: String,
    /// The primary agent leading it.
    pub agent: String,
    /// The model its prompts go to, once one was used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<SessionModel>,
    /// What it has cost so far, in dollars.
    pub cost: f64,
    /// What it has used so far.
    pub tokens: TokenCounts,
    /// The session's own permission rules, layered over the project's.
    pub permission: Vec<RuleInfo>,
    /// When it was created and last changed.
    pub time: SessionTimes,
    /// Where it was rolled back to (undo), while the later messages are hidden.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revert: Option<crate::wire::revert::RevertInfo>,
    /// What it changed in the project's files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<crate::wire::revert::SummaryInfo>,
}

/// The model a session uses.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SessionModel {
    /// The model as its provider names it.
    pub id: String,
    /// The provider's id.
    #[serde(rename = "providerID")]
    pub provider_id: String,
}

/// A session's times, in Unix milliseconds.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SessionTimes {
    /// Created.
    pub created: i64,
    /// Last changed.
    pub updated: i64,
}

/// A permission rule (OpenCode's `PermissionRule`).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RuleInfo {
    /// The permission it is about (`read`, `edit`, `bash`, a tool, or `*`).
    pub permission: String,
    /// The pattern over what is asked (a path, a command, a URL).
    pub pattern: String,
    /// `allow`, `ask` or `deny`.
    pub action: ActionName,
}

/// What a rule does.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ActionName {
    /// Run without asking.
    Allow,
    /// Ask a person.
    Ask,
    /// Refuse.
    Deny,
}

impl From<&Rule> for RuleInfo {
    fn from(rule: &Rule) -> Self {
        RuleInfo {
            permission: rule.permission.clone(),
            pattern: rule.pattern.clone(),
            action: match rule.action {
                Action::Allow => ActionName::Allow,
                Action::Ask => ActionName::Ask,
                Action::Deny => ActionName::Deny,
            },
        }
    }
}

impl From<&RuleInfo> for Rule {
    fn from(rule: &RuleInfo) -> Self {
        let action = match rule.action {
            ActionName::Allow => Action::Allow,
            ActionName::Ask => Action::Ask,
            ActionName::Deny => Action::Deny,
        };
        Rule::new(&rule.permission, &rule.pattern, action)
    }
}

/// The project id of a root directory: the first 16 hex digits of its SHA-256, so
/// it is the same on every start and tells two checkouts apart.
pub fn project_id(root: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(root.as_bytes());
    hex::encode(&digest[..8])
}

impl SessionInfo {
    /// `session` as a client sees it.
    pub fn of(session: &Session) -> Self {
        SessionInfo {
            id: session.id.clone(),
            slug: session.id.clone(),
            project_id: project_id(&session.directory),
            directory: session.directory.clone(),
            parent_id: session.parent_id.clone(),
            title: session.title.clone(),
            version: crate::VERSION.to_string(),
            agent: session.agent.clone(),
            model: session.model.as_ref().map(|m| SessionModel {
                id: m.model.clone(),
                provider_id: m.provider.clone(),
            }),
            cost: session.cost,
            tokens: session.tokens.into(),
            permission: session.permission.iter().map(RuleInfo::from).collect(),
            time: SessionTimes {
                created: session.time.created,
                updated: session.time.updated,
            },
            revert: session.revert.as_ref().map(Into::into),
            summary: session.summary.as_ref().map(Into::into),
        }
    }
}

/// A task of a session's list (OpenCode's `Todo`).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TodoInfo {
    /// Its id within the list.
    pub id: String,
    /// What is to be done.
    pub content: String,
    /// `pending`, `in_progress`, `completed` or `cancelled`.
    pub status: String,
    /// `high`, `medium` or `low`.
    pub priority: String,
}

impl From<&Todo> for TodoInfo {
    fn from(todo: &Todo) -> Self {
        TodoInfo {
            id: todo.id.clone(),
            content: todo.content.clone(),
            status: match todo.status {
                TodoStatus::Pending => "pending",
                TodoStatus::InProgress => "in_progress",
                TodoStatus::Completed => "completed",
                TodoStatus::Cancelled => "cancelled",
            }
            .to_string(),
            priority: match todo.priority {
                TodoPriority::High => "high",
                TodoPriority::Medium => "medium",
                TodoPriority::Low => "low",
            }
            .to_string(),
        }
    }
}
