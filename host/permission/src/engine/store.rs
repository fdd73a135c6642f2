//! Where "always" approvals are kept.
//!
//! Owns the [`ApprovalStore`] contract and the in-memory implementation. Approvals
//! are scoped to a (project, agent) pair so approving `git push *` for `build` in
//! one project grants nothing to another agent or project; an answer to a question a
//! plugin asked is scoped to that plugin too ([`approval_scope`]).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use crate::error::SaveError;
use crate::rule::Rule;

/// Persistent storage of approval rules per (project, agent).
pub trait ApprovalStore: Send + Sync {
    /// All approval rules for `project` and `agent`, oldest first; empty if none.
    fn load(&self, project: &str, agent: &str) -> Vec<Rule>;

    /// Adds `rules` to the approvals for `project` and `agent`, after the existing
    /// ones. Rules already stored need not be stored twice. The error is shown to the
    /// user.
    fn save(&self, project: &str, agent: &str, rules: &[Rule]) -> Result<(), SaveError>;
}

/// The agent key an approval is stored under: `agent` for the host's own questions,
/// `"{agent} plugin:{plugin}"` for a question `plugin` asked, so the store keeps each
/// plugin's approvals apart without a schema of its own. The space cannot occur in an
/// agent a component defines, so no agent name can alias another's plugin scope.
pub fn approval_scope(agent: &str, plugin: Option<&str>) -> String {
    match plugin {
        Some(plugin) => format!("{agent} plugin:{plugin}"),
        None => agent.to_string(),
    }
}

/// Approvals kept in memory for the life of the process (tests, `--no-store` runs).
#[derive(Debug, Default)]
pub struct MemoryApprovals {
    rules: Mutex<HashMap<(String, String), Vec<Rule>>>,
}

impl MemoryApprovals {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl ApprovalStore for MemoryApprovals {
    fn load(&self, project: &str, agent: &str) -> Vec<Rule> {
        let map = self.rules.lock().unwrap_or_else(PoisonError::into_inner);
        map.get(&(project.to_string(), agent.to_string()))
            .cloned()
            .unwrap_or_default()
    }

    fn save(&self, project: &str, agent: &str, rules: &[Rule]) -> Result<(), SaveError> {
        let mut map = self.rules.lock().unwrap_or_else(PoisonError::into_inner);
        let stored = map
            .entry((project.to_string(), agent.to_string()))
            .or_default();
        for rule in rules {
            if !stored.contains(rule) {
                stored.push(rule.clone());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::Action;

    #[test]
    fn memory_store_is_scoped_and_deduplicated() {
        let store = MemoryApprovals::new();
        let rule = Rule::new("bash", "git push *", Action::Allow);
        store
            .save("p1", "build", std::slice::from_ref(&rule))
            .expect("saves");
        store
            .save("p1", "build", std::slice::from_ref(&rule))
            .expect("saves");
        assert_eq!(store.load("p1", "build"), vec![rule]);
        assert!(store.load("p1", "plan").is_empty());
        assert!(store.load("p2", "build").is_empty());
    }
}
