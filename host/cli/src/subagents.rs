//! Building a runner for an agent — the session's own, or a subagent the `task` tool
//! asks for — from the workspace: its permission layers, model, tools (the `skill`
//! and `task` host tools included when its rules allow them) and system prompt.
//!
//! A subagent works under its own layers plus two: `task` and `todowrite` denied
//! (its own rules may allow them again), and every deny of the caller kept last, so
//! delegating never widens what the session may do.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use ward_agent::AgentInfo;
use ward_permission::{Action, PermissionEngine, Rule, Ruleset};
use ward_plugin::CallScope;
use ward_provider::RetryPolicy;
use ward_session::task::{ChildLoops, SubagentError, Subagents, TaskTool};
use ward_session::title::Titles;
use ward_session::{ModelSetup, Runner};
use ward_store::SqliteStore;
use ward_term::eoutln;

use crate::setup::Workspace;

/// Runners for the agents of one workspace, sharing its store and permission engine
/// (a subagent's questions go to the same user).
#[derive(Clone)]
pub struct CliSubagents {
    ws: Arc<Workspace>,
    store: Arc<SqliteStore>,
    engine: PermissionEngine,
    model: ModelSetup,
    retry: RetryPolicy,
    /// The subagent loops started, across every runner built here.
    pub children: ChildLoops,
    /// How sessions are titled: with `small_model`, if one is configured.
    titles: Option<Titles>,
}

impl CliSubagents {
    /// Runners use `model` unless their agent names one.
    pub fn new(
        ws: Arc<Workspace>,
        store: Arc<SqliteStore>,
        engine: PermissionEngine,
        model: &ModelSetup,
        retry: &RetryPolicy,
    ) -> Self {
        Self {
            titles: titles(&ws),
            ws,
            store,
            engine,
            model: model.clone(),
            retry: *retry,
            children: ChildLoops::default(),
        }
    }

    /// A runner for `agent` under `rules`, calling `model`.
    pub async fn runner_for(
        &self,
        agent: &AgentInfo,
        rules: Arc<Vec<Ruleset>>,
        model: ModelSetup,
    ) -> Runner {
        let ws = &self.ws;
        let mut tools = ws.tool_box(&rules).await;
        // The model's first shell command should not wait for its sandbox to start
        // (the loop runs for at least one model call: time enough to start it).
        if tools.names().iter().any(|name| name == "bash") {
            ws.host.prepare_command_sandbox();
        }
        if ws.agents.subagents().next().is_some() {
            let task = TaskTool::new(
                Arc::new(self.clone()),
                self.store.clone(),
                self.children.clone(),
            );
            tools = tools.with_host_tool(Arc::new(task), &rules);
        }
        let system = Arc::new(ws.system_prompt(&model, agent, &rules));
        Runner {
            store: self.store.clone(),
            tools,
            model,
            client: ward_provider::Client::new(),
            permissions: self.engine.clone(),
            rules,
            project: ws.config.project_root.clone(),
            agent: agent.name.clone(),
            system,
            steps: agent.steps,
            temperature: agent.temperature,
            top_p: agent.top_p,
            retry: self.retry,
            loops: ward_session::ActiveLoops::default(),
            context: ws.context_policy(),
            nested: Default::default(),
            user_system: None,
            titles: self.titles.clone(),
        }
    }

    /// The layers a subagent works under, called from a session under `parent`.
    fn child_rules(&self, agent: &AgentInfo, parent: &[Ruleset]) -> Vec<Ruleset> {
        let mut layers = (*self.ws.rules_for(agent)).clone();
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
}

/// Titles written by `small_model` with the `title` agent's prompt, when configured.
fn titles(ws: &Workspace) -> Option<Titles> {
    let small = ws.config.config.small_model.as_deref()?;
    let prompt = ws.agents.get("title")?.prompt.clone()?;
    match crate::model_setup::resolve(&ws.config, Some(small)) {
        Ok(model) => Some(Titles { model, prompt }),
        Err(e) => {
            eoutln!("warning: small_model `{small}`: {e:#}; titles come from the first prompt");
            None
        }
    }
}

impl Subagents for CliSubagents {
    fn list(&self) -> Vec<(String, String)> {
        self.ws
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
        let agent = self.ws.agents.get(agent).cloned();
        let parent_rules = parent.rules.clone();
        Box::pin(async move {
            let agent = agent.ok_or(SubagentError::UnknownAgent { agent: name })?;
            let model = match &agent.model {
                Some(reference) => crate::model_setup::resolve(&self.ws.config, Some(reference))
                    .map_err(|e| SubagentError::Model {
                        agent: agent.name.clone(),
                        reason: format!("{e:#}"),
                    })?,
                None => self.model.clone(),
            };
            let rules = Arc::new(self.child_rules(&agent, &parent_rules));
            Ok(Arc::new(self.runner_for(&agent, rules, model).await))
        })
    }
}
