//! Permission rules for Ward: what the agent may do without asking.
//!
//! A [`Rule`] says whether a permission (`read`, `edit`, `bash`, a tool name, …) is
//! allowed, asked or denied for a pattern (a path, a command, a URL). Rules come in
//! [`Ruleset`]s layered in order (defaults → agent → user config → agent config →
//! session → approvals); the **last** matching rule wins and no match means *ask*.
//!
//! - [`wildcard`]: the `*` / `?` pattern language.
//! - [`rule`]: rules, rulesets, config parsing and the built-in defaults.
//! - [`mod@evaluate`]: deciding a request against layered rulesets.
//! - [`mod@explain`]: a human-readable account of a decision (`ward permission explain`).
//! - [`bash`]: parsing shell commands into patterns (fail closed) and the "always" prefix.
//! - [`path`]: project-relative path patterns and the external-directory check.
//! - [`protected`]: Ward's own configuration and state, which plugins never write.
//! - [`tree`]: path rules applied to directory operations.
//! - [`engine`]: the asynchronous ask channel and persisted approvals.

pub mod bash;
pub mod engine;
pub mod error;
pub mod evaluate;
pub mod explain;
pub mod path;
pub mod protected;
pub mod rule;
pub mod tree;
pub mod wildcard;

pub use engine::{
    ApprovalStore, AskHook, AskRequest, HookAnswer, MemoryApprovals, PermissionEngine,
    PermissionEvent, Publisher, Reply, approval_scope,
};
pub use error::{PermissionError, SaveError};
pub use evaluate::{Decision, disabled_tools, evaluate, evaluate_all};
pub use explain::{Explanation, explain};
pub use rule::{Action, Rule, RuleError, Ruleset, defaults};
