//! The `task` tool's subagents: a runner for the agent it asks for, from the same
//! engine — the same store, permission engine (a subagent's questions go to the same
//! person), client and running loops.
//!
//! A subagent works under its own layers plus two: `task` and `todowrite` denied
//! (its own rules may allow them again), and every deny of the caller kept last, so
//! delegating never widens what the session may do.

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
    let denies: Vec<Rule> = parent
        .iter()
        .flat_map(|layer| &layer.rules)
        .filter(|rule| rule.action == Action::Deny)
        .cloned()
        .collect();
    layers.push(Ruleset::new("the calling session's denies", denies));
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
