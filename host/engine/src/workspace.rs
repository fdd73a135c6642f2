//! Turning a directory into a working Ward: configuration, data directory,
//! discovered plugins, the plugin host and the permission layers.
//!
//! In two stages, because the second can take seconds (plugin components compiled
//! and asked what they declare): [`Settings`] is what files alone say, enough to store
//! a prompt; [`Workspace::load`] adds the plugins and what they provide.

use std::path::PathBuf;
use std::sync::Arc;

use ward_agent::{AgentInfo, AgentRegistry};
use ward_command::CommandRegistry;
use ward_config::LoadedConfig;
use ward_context::truncate::OutputPolicy;
use ward_grants::EventSink;
use ward_mcp_client::{McpClients, McpContext};
use ward_permission::{ApprovalStore, PermissionEngine, Rule, Ruleset};
use ward_plugin::discovery::{Builtin, Discovered, discover};
use ward_plugin::{HostOptions, PluginHost};
use ward_prompt::{EnvironmentAhead, PromptInputs, SystemPrompt};
use ward_session::skill_tool::SkillTool;
use ward_session::{ContextPolicy, ModelSetup, PluginAskHook, ToolBox};
use ward_skill::{SkillRegistry, SkillRoots, summaries};
use ward_store::Bus;

use crate::error::{AgentError, EngineError};
use crate::model::Models;
use crate::options::EngineOptions;
use crate::plugins::{Declared, grants, search_path};

/// A project as Ward sees it: configuration, plugins, agents, skills, commands.
pub struct Workspace {
    /// The loaded configuration.
    pub config: LoadedConfig,
    /// `config`'s model registry, built once.
    pub models: Models,
    /// Problems found while discovering plugins.
    pub discovery_errors: Vec<String>,
    /// The plugin host.
    pub host: Arc<PluginHost>,
    /// Permission layers: defaults, then config.
    pub rules: Arc<Vec<Ruleset>>,
    /// Where full tool outputs cut by truncation are saved.
    pub tool_output_dir: PathBuf,
    /// Where sessions, caches and saved outputs live.
    pub data_dir: PathBuf,
    /// The skills found in the user's and the project's skill directories.
    pub skills: Arc<SkillRegistry>,
    /// The agents: built-in, configured and from markdown files.
    pub agents: AgentRegistry,
    /// The commands: built-in and from markdown files.
    pub commands: CommandRegistry,
    /// The environment block (git status, file tree) being computed while the rest
    /// starts, for the first system prompt; set by the commands that run the loop.
    pub environment_ahead: Option<Arc<EnvironmentAhead>>,
    /// The MCP servers of `[mcp]` (started by the engine in the background, or when a
    /// tool list first needs them).
    pub mcp: Arc<McpClients>,
}

impl Workspace {
    /// A permission engine whose asks go first to the plugins' `permission.ask` hooks,
    /// then out on `bus` (as `permission.asked`, answered through
    /// [`PermissionEngine::reply`]), and whose "always" answers persist in
    /// `approvals` (scoped to project and agent).
    pub fn permission_engine(
        &self,
        approvals: Arc<dyn ApprovalStore>,
        bus: &Bus,
    ) -> PermissionEngine {
        let (tx, _) = tokio::sync::broadcast::channel(64);
        let engine = PermissionEngine::new(approvals, tx);
        engine.set_ask_hook(Arc::new(PluginAskHook::new(
            self.host.clone(),
            self.config.project_root.clone(),
        )));
        let bus = bus.clone();
        engine.set_publisher(Arc::new(move |event| {
            bus.publish(crate::events::permission_event(event));
        }));
        engine
    }

    /// The agent named `name` (or the default agent), if it may lead a session.
    pub fn primary_agent(&self, name: Option<&str>) -> Result<&AgentInfo, AgentError> {
        primary_agent(&self.agents, name)
    }

    /// The permission layers `agent` works under: the defaults, the agent's built-in
    /// rules, `[permission]`, then the agent's own configured rules.
    pub fn rules_for(&self, agent: &AgentInfo) -> Arc<Vec<Ruleset>> {
        self.session_rules_for(agent, &[])
    }

    /// [`Workspace::rules_for`] in a session whose own rules are `session` (stored with
    /// it): they are layered on top, as the `session` layer.
    pub fn session_rules_for(&self, agent: &AgentInfo, session: &[Rule]) -> Arc<Vec<Ruleset>> {
        let configured = self
            .rules
            .iter()
            .rfind(|r| !r.narrowing)
            .cloned()
            .unwrap_or_else(|| Ruleset::new("ward.toml", Vec::new()));
        let mut layers = agent.session_layers(&configured, session);
        // An untrusted project's rules come last: narrowing, they only tighten.
        layers.extend(self.rules.iter().filter(|r| r.narrowing).cloned());
        Arc::new(layers)
    }

    /// The permission key calls of `tool` are ruled under: the one its plugin
    /// declares (`write` → `edit`), as far as the host trusts that plugin, else the
    /// tool's own name (as for a permission key that names no tool).
    pub fn ruled_as(&self, tool: &str) -> String {
        self.host
            .plugins()
            .iter()
            .find(|p| p.source.manifest.tools.contains_key(tool))
            .and_then(|p| p.tool_traits(tool).permission)
            .unwrap_or_else(|| tool.to_string())
    }

    /// The directories plugins are installed in and found from (the user's, the
    /// project's, those the configuration names), whether or not they exist yet.
    pub fn plugin_dirs(&self) -> Vec<PathBuf> {
        search_path(&self.config)
            .into_iter()
            .map(|(_, dir)| dir)
            .collect()
    }

    /// The tools on offer under `rules`, their output bounded by `[tool_output]`, and
    /// a warning (`plugin: why`) for each plugin that failed to load.
    pub async fn tool_box(&self, rules: &Arc<Vec<Ruleset>>) -> (ToolBox, Vec<String>) {
        // The servers start alongside the plugins' tools being listed; a server that
        // fails is a warning, never a reason not to run.
        let ((tools, failed), mcp_failed) =
            futures_util::join!(ToolBox::load(self.host.clone(), rules), self.mcp.ready());
        let mut warnings: Vec<String> = failed
            .into_iter()
            .map(|(plugin, e)| format!("{plugin}: {e}"))
            .collect();
        warnings.extend(mcp_failed);
        let tools = if self.mcp.is_empty() {
            tools
        } else {
            tools.with_tool_source(self.mcp.clone(), rules.clone())
        };
        let limits = &self.config.config.tool_output;
        let tools = if self.skills.visible(rules).is_empty() {
            tools
        } else {
            let skill =
                SkillTool::new(self.skills.clone(), rules.clone()).with_plugins(self.host.clone());
            tools.with_host_tool(Arc::new(skill), rules)
        };
        let tools = tools.with_output(OutputPolicy {
            max_lines: limits.max_lines,
            max_bytes: limits.max_bytes,
            spill_dir: Some(self.tool_output_dir.clone()),
        });
        (tools, warnings)
    }

    /// The system prompt for `model`: its family's base prompt, the instruction files
    /// (walking up from the project, the global one, `instructions` in config) and the
    /// environment.
    pub fn system_prompt(
        &self,
        model: &ModelSetup,
        agent: &AgentInfo,
        rules: &[Ruleset],
    ) -> SystemPrompt {
        let mut inputs = PromptInputs::new(
            self.config.project_root.clone(),
            &model.provider,
            &model.model,
        );
        inputs.agent_prompt = agent.prompt.clone();
        inputs.instructions = self.config.config.instructions.clone();
        inputs.skills = summaries(&self.skills.visible(rules));
        inputs.environment_ahead = self.environment_ahead.clone();
        inputs.confine_to_project = self.config.trust.restricted();
        SystemPrompt::new(inputs)
    }

    /// When history is pruned and compacted (`[compaction]`).
    pub fn context_policy(&self) -> ContextPolicy {
        self.config.config.compaction.clone()
    }

    /// Loads everything for the project `options` name, for commands that inspect it
    /// (an engine that runs sessions opens its own).
    pub async fn open(options: &EngineOptions) -> Result<Self, EngineError> {
        Self::load(Settings::load(options)?, None).await
    }

    /// Loads the plugins and what they provide, on top of `settings`; plugin events
    /// go to `events` as they happen.
    pub async fn load(settings: Settings, events: Option<EventSink>) -> Result<Self, EngineError> {
        let Settings {
            config,
            models,
            rules,
            data_dir,
            global,
            commands,
            command_warnings,
            builtins,
            helper,
        } = settings;
        let mut found = discover(builtins, &search_path(&config));
        // A plugin named like a built-in one replaces it only when config says so.
        found.allow_replacements(|name| {
            config
                .config
                .plugins
                .get(name)
                .is_some_and(|p| p.replaces.iter().any(|r| r == name))
        });
        let Discovered {
            plugins,
            mut errors,
            ..
        } = found;
        let options = HostOptions {
            project: config.project_root.clone(),
            cache_dir: Some(crate::paths::component_cache_dir(&data_dir)),
            audit_log: Some(data_dir.join("audit.log")),
            grants: grants(&config, &plugins, &mut errors),
            disabled: config
                .config
                .plugins
                .iter()
                .filter(|(_, p)| !p.enabled)
                .map(|(name, _)| name.clone())
                .collect(),
            sandbox: match helper {
                Some(helper) => crate::sandbox::settings(&config, &data_dir, helper),
                None => crate::sandbox::settings(
                    &config,
                    &data_dir,
                    crate::sandbox::helper_beside_this_binary()?,
                ),
            },
            replaces: config
                .config
                .plugins
                .iter()
                .filter(|(_, p)| !p.replaces.is_empty())
                .map(|(name, p)| (name.clone(), p.replaces.clone()))
                .collect(),
            events,
        };
        let host = Arc::new(PluginHost::new(plugins, options)?);
        let mcp = McpClients::new(
            &config.config.mcp,
            McpContext::new(
                config.project_root.clone(),
                host.sandbox().protected_for(
                    host.protected(),
                    &config.project_root,
                    ward_plugin::sandbox::Confinement::Plugin,
                ),
                host.launcher(),
            ),
        );
        let declared = Declared::collect(&host, &mut errors).await;
        let (mut skills, skill_warnings) =
            SkillRegistry::discover(&SkillRoots::from_env(config.project_root.clone()));
        errors.extend(skill_warnings.iter().map(ToString::to_string));
        let plugin_skill_warnings = skills.add_plugin_skills(declared.skills);
        errors.extend(plugin_skill_warnings.iter().map(ToString::to_string));
        let (agents, agent_warnings) = AgentRegistry::load_with_components(
            &config.config,
            &config.project_root,
            global.as_deref(),
            &declared.agents,
            untrusted_agents(&config),
        );
        errors.extend(agent_warnings.iter().map(ToString::to_string));
        let agent_names: Vec<&str> = agents.list().map(|a| a.name.as_str()).collect();
        errors.extend(command_warnings);
        errors.extend(
            commands
                .validate(&agent_names)
                .iter()
                .map(ToString::to_string),
        );
        Ok(Workspace {
            config,
            models,
            skills: Arc::new(skills),
            agents,
            commands,
            discovery_errors: errors,
            host,
            rules,
            tool_output_dir: data_dir.join("tool-output"),
            data_dir,
            environment_ahead: None,
            mcp,
        })
    }
}

/// What Ward knows from files alone, before any plugin is looked at: configuration,
/// permission layers, data directory, commands, and the agents but those plugin
/// components declare. Cheap to load — enough to store a prompt before the plugins
/// load.
pub struct Settings {
    /// The loaded configuration.
    pub config: LoadedConfig,
    /// `config`'s model registry, built once.
    pub models: Models,
    /// Permission layers: defaults, then config.
    pub rules: Arc<Vec<Ruleset>>,
    /// Where sessions, caches and saved outputs live.
    pub data_dir: PathBuf,
    /// The global configuration directory, if there is one.
    global: Option<PathBuf>,
    /// The commands: built-in and from markdown files.
    pub commands: CommandRegistry,
    /// Problems found while loading the commands (reported by [`Workspace::load`]).
    command_warnings: Vec<String>,
    /// The plugins that come with the binary.
    builtins: &'static [Builtin],
    /// The sandbox helper (`None`: the one beside the running executable).
    helper: Option<PathBuf>,
}

impl Settings {
    /// Loads the configuration and the commands of the project `options` name.
    pub fn load(options: &EngineOptions) -> Result<Self, EngineError> {
        let data_dir = match &options.data_dir {
            Some(dir) => dir.clone(),
            None => crate::paths::data_dir()?,
        };
        let config = ward_config::load_with_data_dir(&options.directory, &data_dir)?;
        let rules = Arc::new(rules(&config)?);
        let global = ward_config::global_config_dir(&|k| std::env::var(k).ok());
        let (commands, mut warnings) = CommandRegistry::load_with_config(
            &config.project_root,
            global.as_deref(),
            Some(&config),
        );
        // OpenCode settings Ward does not act on are reported with the rest, after
        // the one line naming what an untrusted project's files were refused.
        warnings.splice(0..0, config.warnings.iter().cloned());
        if let Some(held) = config.trust.warning() {
            warnings.insert(0, ward_config::Warning::new(held));
        }
        Ok(Settings {
            config,
            models: Models::default(),
            rules,
            data_dir,
            global,
            commands,
            command_warnings: warnings.iter().map(ToString::to_string).collect(),
            builtins: options.builtins,
            helper: options.sandbox_helper.clone(),
        })
    }

    /// The agents of built-ins, configuration and markdown files: those of the
    /// workspace, but for what plugin components declare (their warnings are left
    /// for [`Workspace::load`] to report).
    pub fn agents_without_components(&self) -> AgentRegistry {
        let (agents, _) = AgentRegistry::load_with_components(
            &self.config.config,
            &self.config.project_root,
            self.global.as_deref(),
            &[],
            untrusted_agents(&self.config),
        );
        agents
    }
}

/// The agent named `name` in `agents` (or the default agent), if it may lead a
/// session.
pub fn primary_agent<'a>(
    agents: &'a AgentRegistry,
    name: Option<&str>,
) -> Result<&'a AgentInfo, AgentError> {
    let Some(name) = name else {
        return Ok(agents.default_agent());
    };
    let primary: Vec<&str> = agents
        .list()
        .filter(|a| a.is_primary() && !a.hidden)
        .map(|a| a.name.as_str())
        .collect();
    let primary = primary.join(", ");
    match agents.get(name) {
        Some(agent) if agent.is_primary() => Ok(agent),
        Some(_) => Err(AgentError::Subagent {
            name: name.to_string(),
            primary,
        }),
        None => Err(AgentError::Unknown {
            name: name.to_string(),
            primary,
        }),
    }
}

/// The permission layers from the built-in defaults and the loaded config, then, for
/// a project not trusted, its own rules as a narrowing layer (they can deny and ask,
/// never allow).
pub fn rules(config: &LoadedConfig) -> Result<Vec<Ruleset>, EngineError> {
    let configured = Ruleset::from_toml("ward.toml", &config.config.permission)?;
    let mut layers = vec![ward_permission::defaults(), configured];
    let held = &config.trust.held.permission;
    if !held.is_empty() {
        let project = Ruleset::from_toml("the project (not trusted)", held)?;
        layers.push(Ruleset::narrowing(project.source, project.rules));
    }
    Ok(layers)
}

/// The agents an untrusted project's configuration defines, to apply narrowed;
/// `None` when the project is trusted.
fn untrusted_agents(
    config: &LoadedConfig,
) -> Option<&std::collections::BTreeMap<String, ward_config::AgentConfig>> {
    config
        .trust
        .restricted()
        .then_some(&config.trust.held.agent)
}
