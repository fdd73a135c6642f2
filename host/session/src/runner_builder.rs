//! Building a [`Runner`]: what it cannot run without is given up front, every
//! setting with a sensible default is a method, so a caller names only what it
//! changes and a new setting never breaks a caller.

use std::path::PathBuf;
use std::sync::Arc;

use ward_permission::{PermissionEngine, Ruleset};
use ward_prompt::{PromptInputs, SystemPrompt};
use ward_provider::{Client, RetryPolicy};
use ward_store::Store;

use crate::active::ActiveLoops;
use crate::runner::{ModelSetup, Runner};
use crate::title::Titles;
use crate::tools::ToolBox;
use ward_context::budget::ContextPolicy;

/// A [`Runner`] being set up (from [`Runner::builder`]).
pub struct RunnerBuilder {
    runner: Runner,
}

impl RunnerBuilder {
    pub(crate) fn new(
        store: Arc<dyn Store>,
        tools: ToolBox,
        model: ModelSetup,
        permissions: PermissionEngine,
        project: PathBuf,
    ) -> Self {
        let system = Arc::new(SystemPrompt::new(PromptInputs::new(
            project.clone(),
            &model.provider,
            &model.model,
        )));
        RunnerBuilder {
            runner: Runner {
                store,
                tools,
                model,
                client: Client::new(),
                permissions,
                rules: Arc::new(vec![ward_permission::defaults()]),
                project,
                agent: "build".to_string(),
                system,
                steps: None,
                temperature: None,
                top_p: None,
                retry: RetryPolicy::default(),
                loops: ActiveLoops::default(),
                context: ContextPolicy::default(),
                nested: Default::default(),
                user_system: None,
                titles: None,
                compaction: Default::default(),
                blobs: None,
                snapshots: None,
            },
        }
    }

    /// The permission layers (default: Ward's built-in defaults alone).
    pub fn rules(mut self, rules: Arc<Vec<Ruleset>>) -> Self {
        self.runner.rules = rules;
        self
    }

    /// The agent's name (default `build`).
    pub fn agent(mut self, agent: impl Into<String>) -> Self {
        self.runner.agent = agent.into();
        self
    }

    /// The system prompt (default: the model family's base prompt and the project's
    /// instruction files, nothing of an agent).
    pub fn system(mut self, system: Arc<SystemPrompt>) -> Self {
        self.runner.system = system;
        self
    }

    /// At most this many steps per prompt (default unlimited).
    pub fn steps(mut self, steps: Option<u32>) -> Self {
        self.runner.steps = steps;
        self
    }

    /// The sampling temperature and nucleus sampling the agent sets.
    pub fn sampling(mut self, temperature: Option<f64>, top_p: Option<f64>) -> Self {
        self.runner.temperature = temperature;
        self.runner.top_p = top_p;
        self
    }

    /// How provider errors are retried.
    pub fn retry(mut self, retry: RetryPolicy) -> Self {
        self.runner.retry = retry;
        self
    }

    /// The HTTP client (share one across runners: it pools connections).
    pub fn client(mut self, client: Client) -> Self {
        self.runner.client = client;
        self
    }

    /// The running loops, shared with every other runner of the same sessions, so
    /// a session never has two loops whichever runner a prompt comes through.
    pub fn loops(mut self, loops: ActiveLoops) -> Self {
        self.runner.loops = loops;
        self
    }

    /// When history is pruned and compacted.
    pub fn context(mut self, context: ContextPolicy) -> Self {
        self.runner.context = context;
        self
    }

    /// System text every prompt carries as its own (`ward run --system`).
    pub fn user_system(mut self, text: Option<String>) -> Self {
        self.runner.user_system = text;
        self
    }

    /// How untitled sessions get a title (default: the first prompt's first line).
    pub fn titles(mut self, titles: Option<Titles>) -> Self {
        self.runner.titles = titles;
        self
    }

    /// What `[agent.compaction]` sets for the summariser (default: nothing).
    pub fn compaction(mut self, agent: crate::runner::CompactionAgent) -> Self {
        self.runner.compaction = agent;
        self
    }

    /// Where attachment bytes are kept (default: nowhere; tools' files are then
    /// replaced by a note).
    pub fn blobs(mut self, blobs: ward_store::Blobs) -> Self {
        self.runner.blobs = Some(blobs);
        self
    }

    /// Where the project's files are snapshotted around every step that runs a
    /// tool, for undo (default: nowhere, no `patch` parts).
    pub fn snapshots(
        mut self,
        snapshots: Option<std::sync::Arc<dyn crate::snapshots::StepSnapshots>>,
    ) -> Self {
        self.runner.snapshots = snapshots;
        self
    }

    /// The runner.
    pub fn build(self) -> Runner {
        self.runner
    }
}
