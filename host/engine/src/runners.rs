//! Which runner a prompt goes to, and building one.
//!
//! A prompt names (or a command it runs implies) an agent and a model; the session's
//! own rules add a layer. A runner is built once per such combination and kept: the
//! tool box, system prompt and `task` tool are made once, and every runner shares the
//! engine's store, permission engine, HTTP client and running loops — so whichever
//! runner a prompt comes through, a session never has two loops.

use std::sync::Arc;

use ward_agent::{AgentInfo, AgentRegistry};
use ward_command::CommandInfo;
use ward_permission::Ruleset;
use ward_session::task::TaskTool;
use ward_session::{ModelSetup, Runner};
use ward_store::{Session, Store};

use crate::engine::{PromptRequest, Shared};
use crate::error::EngineError;
use crate::subagents::EngineSubagents;

/// What a runner is kept under: everything that makes two runners differ.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct RunnerKey {
    agent: String,
    provider: String,
    model: String,
    /// The session's own rules, as JSON (they are a layer of the runner's rules).
    session_rules: String,
    system: Option<String>,
    steps: Option<u32>,
    variant: Option<String>,
}

/// The per-runner settings a prompt may set over its agent's.
#[derive(Clone, Debug, Default)]
pub(crate) struct RunnerSettings {
    pub(crate) steps: Option<u32>,
    pub(crate) system: Option<String>,
}

impl RunnerSettings {
    /// The agent's own settings.
    pub(crate) fn of(agent: &AgentInfo) -> Self {
        RunnerSettings {
            steps: agent.steps,
            system: None,
        }
    }
}

/// The agent asked for: the request's, else the agent of the command being run if
/// it is a primary one (a subtask's agent runs the child session, not this one).
pub(crate) fn wanted_agent<'a>(
    requested: Option<&'a str>,
    command: Option<&'a CommandInfo>,
    agents: &AgentRegistry,
) -> Option<&'a str> {
    let command_agent = command
        .filter(|c| !c.subtask)
        .and_then(|c| c.agent.as_deref())
        .filter(|name| agents.get(name).is_some_and(|a| a.is_primary()));
    requested.or(command_agent)
}

/// The request's model, else the command's, else the agent's (else, when resolved,
/// the configured one).
fn model_choice<'a>(
    requested: Option<&'a str>,
    command: Option<&'a CommandInfo>,
    agent: &'a AgentInfo,
) -> Option<&'a str> {
    requested
        .or(command.and_then(|c| c.model.as_deref()))
        .or(agent.model.as_deref())
}

/// The model `request` goes to, led by `agent` (after `command`, if it names one):
/// [`model_choice`] with the variant the request or the agent asks for, resolved in
/// `models`. The one place a prompt's model is decided.
pub(crate) fn model_for(
    models: &crate::model::Models,
    config: &ward_config::LoadedConfig,
    request: &PromptRequest,
    command: Option<&CommandInfo>,
    agent: &AgentInfo,
) -> Result<ModelSetup, crate::error::ModelError> {
    let choice = model_choice(request.model.as_deref(), command, agent);
    let variant = request.variant.as_deref().or(agent.variant.as_deref());
    models.resolve_variant(config, choice, variant)
}

impl Shared {
    /// The runner `request` goes to in `session`, built if no prompt needed it yet.
    pub(crate) async fn runner_for(
        &self,
        session: &Session,
        request: &PromptRequest,
    ) -> Result<Arc<Runner>, EngineError> {
        let ws = &self.ws;
        let command = ws.commands.resolve(&request.text).map(|(c, _)| c.clone());
        let agent = ws
            .primary_agent(wanted_agent(
                request.agent.as_deref(),
                command.as_ref(),
                &ws.agents,
            ))?
            .clone();
        let model = model_for(&ws.models, &ws.config, request, command.as_ref(), &agent)?;
        self.remember_model(&session.id, &model);
        // The session as stored now: its rules may have changed since it was read.
        let stored = self
            .store
            .get_session(&session.id)
            .unwrap_or_else(|_| session.clone());
        let settings = RunnerSettings {
            steps: request.steps.or(agent.steps),
            system: request.system.clone(),
        };
        let key = RunnerKey {
            agent: agent.name.clone(),
            provider: model.provider.clone(),
            model: model.model.clone(),
            session_rules: serde_json::to_string(&stored.permission).unwrap_or_default(),
            system: settings.system.clone(),
            steps: settings.steps,
            variant: model.variant.as_ref().map(|(name, _)| name.clone()),
        };
        if let Some(runner) = self.cached_runner(&key) {
            return Ok(runner);
        }
        let rules = ws.session_rules_for(&agent, &stored.permission);
        let runner = Arc::new(self.build_runner(&agent, rules, model, settings).await);
        if let Ok(mut runners) = self.runners.lock() {
            runners.insert(key, runner.clone());
        }
        Ok(runner)
    }

    fn cached_runner(&self, key: &RunnerKey) -> Option<Arc<Runner>> {
        self.runners.lock().ok()?.get(key).cloned()
    }

    /// A runner for `agent` under `rules`, calling `model`.
    pub(crate) async fn build_runner(
        &self,
        agent: &AgentInfo,
        rules: Arc<Vec<Ruleset>>,
        model: ModelSetup,
        settings: RunnerSettings,
    ) -> Runner {
        let ws = &self.ws;
        // A plugin that fails to load was reported when the engine opened.
        let (mut tools, _) = ws.tool_box(&rules).await;
        // An MCP server that failed to start is reported (once), beside the reason
        // each of its calls would give the model.
        let failed = ws.mcp.unreported_failures();
        if !failed.is_empty()
            && let Ok(mut warnings) = self.warnings.lock()
        {
            warnings.extend(failed);
        }
        // The model's first shell command should not wait for its sandbox to start
        // (the loop runs for at least one model call: time enough to start it).
        if tools.names().iter().any(|name| name == "bash") {
            ws.host.prepare_command_sandbox();
        }
        if ws.agents.subagents().next().is_some() {
            let subagents = EngineSubagents {
                shared: self.me.clone(),
            };
            let store: Arc<dyn Store> = self.store.clone();
            let task = TaskTool::new(Arc::new(subagents), store, self.children.clone());
            tools = tools.with_host_tool(Arc::new(task), &rules);
        }
        let question = ward_session::question::QuestionTool::new(self.questions.clone());
        tools = tools.with_host_tool(Arc::new(question), &rules);
        let system = Arc::new(ws.system_prompt(&model, agent, &rules));
        let store: Arc<dyn Store> = self.store.clone();
        Runner::builder(
            store,
            tools,
            model,
            self.permissions.clone(),
            ws.config.project_root.clone(),
        )
        .rules(rules)
        .agent(agent.name.clone())
        .system(system)
        .steps(settings.steps)
        .sampling(agent.temperature, agent.top_p)
        .retry(self.retry)
        .client(self.client.clone())
        .loops(self.loops.clone())
        .context(ws.context_policy())
        .user_system(settings.system)
        .titles(self.titles.clone())
        .compaction(self.compaction.clone())
        .blobs(ward_store::Blobs::new(ws.data_dir.join("blobs")))
        .snapshots(
            (!self.snapshots.is_off())
                .then(|| self.snapshots.clone() as Arc<dyn ward_session::StepSnapshots>),
        )
        .build()
    }
}
