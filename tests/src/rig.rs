//! The agent loop in-process, for tests and benchmarks that need to reach inside it
//! (a second prompt while the first runs, an abort): the real runner, real plugins
//! from `.ward/plugins`, a real SQLite file and the scripted LLM server.

use std::sync::Arc;

use ward_permission::{MemoryApprovals, PermissionEngine};
use ward_plugin::discovery::{Origin, discover};
use ward_plugin::{HostOptions, PluginHost};
use ward_provider::{Endpoint, Protocol};
use ward_session::{ModelSetup, Runner, ToolBox};
use ward_store::{Session, SqliteStore, Store};

use crate::Project;
use crate::llm::ScriptedLlm;

/// What a rig's model and context settings are, where a test cares.
#[derive(Default)]
pub struct RigOptions {
    /// Computes every model reply (default: replies are queued with `llm.push`).
    pub responder: Option<crate::llm::Responder>,
    /// The model's token limits (default: unknown, so nothing is ever compacted).
    pub limits: ward_provider::Limits,
    /// Maximum output tokens asked for.
    pub max_tokens: Option<u32>,
    /// The tokenizer (default: the estimate, as for an unknown model).
    pub encoding: Option<ward_tokens::Encoding>,
    /// Prune and compaction settings.
    pub context: ward_session::ContextPolicy,
    /// Instruction paths or globs for the system prompt (as `instructions` in config).
    pub instructions: Vec<String>,
    /// The agent.
    pub agent: Option<String>,
    /// Tool output limits (default: 2000 lines / 50 KB, no saved copies).
    pub output: Option<ward_context::truncate::OutputPolicy>,
}

/// A runner wired to a project and a scripted model.
pub struct LoopRig {
    /// The scripted model (Chat Completions wire).
    pub llm: ScriptedLlm,
    /// The store, a file in the project's data directory.
    pub store: Arc<SqliteStore>,
    /// The runner.
    pub runner: Arc<Runner>,
}

impl LoopRig {
    /// A rig over `project` offering the tools of the plugins installed there, with
    /// `grants` per plugin name, and every permission allowed by the default rules.
    pub async fn start(project: &Project, grants: &[(&str, &[&str])]) -> LoopRig {
        Self::start_with(project, grants, RigOptions::default()).await
    }

    /// [`LoopRig::start`] with the model and context settings of `options`.
    pub async fn start_with(
        project: &Project,
        grants: &[(&str, &[&str])],
        options: RigOptions,
    ) -> LoopRig {
        let rig = options;
        let llm = match rig.responder {
            Some(responder) => ScriptedLlm::start_with(responder).await,
            None => ScriptedLlm::start(Vec::new()).await,
        };
        let found = discover(&[], &[(Origin::Project, project.path(".ward/plugins"))]);
        let options = HostOptions {
            project: project.root.clone(),
            cache_dir: Some(project.cache.clone()),
            grants: grants
                .iter()
                .map(|(name, g)| (name.to_string(), g.iter().map(|s| s.to_string()).collect()))
                .collect(),
            sandbox: crate::sandbox_settings(),
            ..HostOptions::default()
        };
        let host = Arc::new(PluginHost::new(found.plugins, options).expect("plugin host"));
        let rules = Arc::new(vec![ward_permission::defaults()]);
        let (tools, failed) = ToolBox::load(host, &rules).await;
        assert!(failed.is_empty(), "plugins failed to load: {failed:?}");
        let tools = tools.with_output(rig.output.unwrap_or_default());
        let store = Arc::new(SqliteStore::open(project.data.join("ward.db")).expect("store"));
        let (asks, _) = tokio::sync::broadcast::channel(16);
        let model = ModelSetup {
            provider: "scripted".into(),
            model: "m".into(),
            protocol: Protocol::OpenaiChat,
            endpoint: Endpoint::new(format!("{}/v1", llm.base_url)),
            prices: [0.0; 4],
            max_tokens: rig.max_tokens,
            limits: rig.limits,
            counter: ward_tokens::TokenCounter::new(
                rig.encoding.unwrap_or(ward_tokens::Encoding::Estimate),
            ),
            compaction_threshold: None,
            temperature: true,
            attachment: false,
            reasoning: false,
            variant: None,
        };
        let system = Arc::new(ward_prompt::SystemPrompt::new(ward_prompt::PromptInputs {
            instructions: rig.instructions,
            ..ward_prompt::PromptInputs::new(project.root.clone(), "scripted", "m")
        }));
        let permissions = PermissionEngine::new(Arc::new(MemoryApprovals::new()), asks);
        let runner = Runner::builder(
            store.clone(),
            tools,
            model,
            permissions,
            project.root.clone(),
        )
        .rules(rules)
        .agent(rig.agent.unwrap_or_else(|| "build".into()))
        .system(system)
        .context(rig.context)
        .build();
        LoopRig {
            llm,
            store,
            runner: Arc::new(runner),
        }
    }

    /// A new session in the project.
    pub fn session(&self, project: &Project) -> Session {
        let session = Session::new(project.root.to_string_lossy(), "build");
        self.store.create_session(&session).expect("create session");
        session
    }
}
