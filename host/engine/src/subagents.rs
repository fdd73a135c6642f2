//! The `task` tool's subagents: a runner for the agent it asks for, from the same
//! engine — the same store, permission engine (a subagent's questions go to the same
//! person), client and running loops.
//!
//! A subagent works under its own layers plus: `task` and `todowrite` denied (its
//! own rules may allow them again), then the caller's rules as narrowing layers, so
//! what the caller would ask about the child asks about too, and what it denies stays
//! denied: delegating never widens what the session may do (`plan` → `task` →
//! `general` cannot run unasked what `plan` asks about).

use std::sync::{Arc, Weak};

use futures_util::future::BoxFuture;
use ward_agent::AgentInfo;
use ward_permission::{Action, Rule, Ruleset};
use ward_plugin::CallScope;
use ward_session::Runner;
use ward_session::task::{SubagentError, Subagents};

use crate::engine::Shared;

/// The engine's subagents. It holds the engine weakly: the engine's runners hold
/// the `task` tool, which holds this, and a strong reference would keep the engine
/// (and its background tasks) alive forever.
pub(crate) struct EngineSubagents {
    pub(crate) shared: Weak<Shared>,
}

impl EngineSubagents {
    fn shared(&self) -> Option<Arc<Shared>> {
        self.shared.upgrade()
    }
}

/// The layers a subagent `agent` works under, called from a session under `parent`.
pub(crate) fn child_rules(shared: &Shared, agent: &AgentInfo, parent: &[Ruleset]) -> Vec<Ruleset> {
    let mut layers = (*shared.ws.rules_for(agent)).clone();
    let delegated = Ruleset::new(
        "subagent",
        vec![
            Rule::new("task", "*", Action::Deny),
            Rule::new("todowrite", "*", Action::Deny),
        ],
    );
    // After the defaults, the agent's built-in rules and [permission]; before the
    // agent's own configured rules, which may allow them again.
    layers.insert(layers.len().min(3), delegated);
    layers.extend(caller_narrowing(parent));
    layers
}

/// The caller's layers as narrowing ones: its ordinary layers flattened into one, in
/// order, so the last matching rule decides as it does for the caller (each apart, an
/// earlier layer's ask would outvote a later allow the caller has); its narrowing
/// layers as they are; and its denies once more on their own, so a deny the caller's
/// own narrowing keeps cannot be lost to a later allow in the flattened layer.
fn caller_narrowing(parent: &[Ruleset]) -> Vec<Ruleset> {
    let ordinary: Vec<Rule> = parent
        .iter()
        .filter(|layer| !layer.narrowing)
        .flat_map(|layer| layer.rules.iter().cloned())
        .collect();
    let denies: Vec<Rule> = parent
        .iter()
        .flat_map(|layer| &layer.rules)
        .filter(|rule| rule.action == Action::Deny)
        .cloned()
        .collect();
    let mut layers = vec![Ruleset::narrowing("the calling session's rules", ordinary)];
    layers.extend(parent.iter().filter(|layer| layer.narrowing).cloned());
    layers.push(Ruleset::narrowing("the calling session's denies", denies));
    layers
}

impl Subagents for EngineSubagents {
    fn list(&self) -> Vec<(String, String)> {
        let Some(shared) = self.shared() else {
            return Vec::new();
        };
        shared
            .ws
            .agents
            .subagents()
            .map(|a| (a.name.clone(), a.description.clone().unwrap_or_default()))
            .collect()
    }

    fn runner(
        &self,
        agent: &str,
        parent: &CallScope,
    ) -> BoxFuture<'_, Result<Arc<Runner>, SubagentError>> {
        let name = agent.to_string();
        let parent_rules = parent.rules.clone();
        let parent_session = parent.session_id.clone();
        Box::pin(async move {
            let shared = self.shared().ok_or(SubagentError::UnknownAgent {
                agent: name.clone(),
            })?;
            let agent = shared
                .ws
                .agents
                .get(&name)
                .cloned()
                .ok_or(SubagentError::UnknownAgent { agent: name })?;
            // The agent's own model, else the one the calling session's prompts use.
            let model =
                match &agent.model {
                    Some(reference) => shared
                        .ws
                        .models
                        .resolve_variant(&shared.ws.config, Some(reference), None)
                        .map_err(|e| SubagentError::Model {
                            agent: agent.name.clone(),
                            reason: e.to_string(),
                        })?,
                    None => shared.model_of_session(&parent_session).map_err(|e| {
                        SubagentError::Model {
                            agent: agent.name.clone(),
                            reason: e.to_string(),
                        }
                    })?,
                };
            let rules = Arc::new(child_rules(&shared, &agent, &parent_rules));
            let settings = crate::runners::RunnerSettings::of(&agent);
            Ok(Arc::new(
                shared.build_runner(&agent, rules, model, settings).await,
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use ward_permission::{Action, Rule, Ruleset, evaluate};

    use super::caller_narrowing;

    fn child_with(parent: &[Ruleset], child: Vec<Rule>) -> Vec<Ruleset> {
        let mut layers = vec![Ruleset::new("child", child)];
        layers.extend(caller_narrowing(parent));
        layers
    }

    #[test]
    fn what_the_caller_asks_about_the_child_asks_about() {
        // `plan`: bash asks but for `git status`; `general` allows all bash.
        let plan = vec![
            Ruleset::new("defaults", vec![Rule::new("bash", "*", Action::Allow)]),
            Ruleset::new(
                "agent plan",
                vec![
                    Rule::new("bash", "*", Action::Ask),
                    Rule::new("bash", "git status", Action::Allow),
                    Rule::new("bash", "rm *", Action::Deny),
                ],
            ),
        ];
        let child = child_with(&plan, vec![Rule::new("bash", "*", Action::Allow)]);
        assert_eq!(evaluate("bash", "touch x", &child).action, Action::Ask);
        assert_eq!(evaluate("bash", "git status", &child).action, Action::Allow);
        assert_eq!(evaluate("bash", "rm -rf /", &child).action, Action::Deny);
    }

    #[test]
    fn the_child_may_still_be_stricter_than_its_caller() {
        let caller = vec![Ruleset::new(
            "c",
            vec![Rule::new("edit", "*", Action::Allow)],
        )];
        let child = child_with(&caller, vec![Rule::new("edit", "*", Action::Deny)]);
        assert_eq!(evaluate("edit", "a.txt", &child).action, Action::Deny);
    }

    #[test]
    fn a_deny_the_caller_keeps_by_narrowing_survives() {
        let caller = vec![
            Ruleset::new("config", vec![Rule::new("bash", "rm *", Action::Deny)]),
            Ruleset::new("later", vec![Rule::new("bash", "*", Action::Allow)]),
            Ruleset::narrowing("guard", vec![Rule::new("bash", "curl *", Action::Deny)]),
        ];
        let child = child_with(&caller, vec![Rule::new("bash", "*", Action::Allow)]);
        assert_eq!(evaluate("bash", "curl x", &child).action, Action::Deny);
        assert_eq!(evaluate("bash", "rm x", &child).action, Action::Deny);
        assert_eq!(evaluate("bash", "ls", &child).action, Action::Allow);
    }
}
