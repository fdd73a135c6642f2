//! Turning the current directory into a working Ward: configuration, data directory,
//! discovered plugins, the plugin host and the permission layers.
//!
//! In two stages, because the second can take seconds (plugin components compiled
//! and asked what they declare): [`Settings`] is what files alone say, enough to store
//! a prompt; [`Workspace::load`] adds the plugins and what they provide.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use ward_agent::{AgentInfo, AgentRegistry};
use ward_command::CommandRegistry;
use ward_config::LoadedConfig;
use ward_permission::{ApprovalStore, PermissionEngine, PermissionEvent, Rule, Ruleset};
use ward_plugin::discovery::{Discovered, Origin, PluginSource, discover};
use ward_plugin::{DeclaredAgent, HostOptions, PluginHost};
use ward_prompt::{EnvironmentAhead, PromptInputs, SystemPrompt};
use ward_session::skill_tool::SkillTool;
use ward_session::truncate::{KEEP_SAVED, OutputPolicy, SWEEP_EVERY, sweep};
use ward_session::{ContextPolicy, ModelSetup, PluginAskHook, ToolBox};
use ward_skill::{SkillInfo, SkillRegistry, SkillRoots, summaries};
use ward_term::eoutln;

/// Everything a command needs.
pub struct Workspace {
    /// The loaded configuration.
    pub config: LoadedConfig,
    /// Problems found while discovering plugins.
    pub discovery_errors: Vec<String>,
    /// The plugin host.
    pub host: Arc<PluginHost>,
    /// Permission layers: defaults, then config.
    pub rules: Arc<Vec<Ruleset>>,
    /// Where full tool outputs cut by truncation are saved.
    pub tool_output_dir: PathBuf,
    /// The skills found in the user's and the project's skill directories.
    pub skills: Arc<SkillRegistry>,
    /// The agents: built-in, configured and from markdown files.
    pub agents: AgentRegistry,
    /// The commands: built-in and from markdown files.
    pub commands: CommandRegistry,
    /// The environment block (git status, file tree) being computed while the rest
    /// starts, for the first system prompt; set by the commands that run the loop.
    pub environment_ahead: Option<Arc<EnvironmentAhead>>,
}

impl Workspace {
    /// A permission engine whose asks go first to the plugins' `permission.ask` hooks,
    /// then out on the returned channel, and whose "always" answers persist in
    /// `approvals` (scoped to project and agent).
    pub fn permission_engine(
        &self,
        approvals: Arc<dyn ApprovalStore>,
    ) -> (
        PermissionEngine,
        tokio::sync::broadcast::Receiver<PermissionEvent>,
    ) {
        let (tx, rx) = tokio::sync::broadcast::channel(64);
        let engine = PermissionEngine::new(approvals, tx);
        engine.set_ask_hook(Arc::new(PluginAskHook::new(
            self.host.clone(),
            self.config.project_root.clone(),
        )));
        (engine, rx)
    }

    /// The agent named `name` (or the default agent), if it may lead a session.
    pub fn primary_agent(&self, name: Option<&str>) -> Result<&AgentInfo> {
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
            .last()
            .cloned()
            .unwrap_or_else(|| Ruleset::new("ward.toml", Vec::new()));
        Arc::new(agent.session_layers(&configured, session))
    }

    /// The tools on offer under `rules`, their output bounded by `[tool_output]`, with
    /// a warning printed for each plugin that failed to load. Starts the sweep of saved
    /// outputs older than a week: now, then hourly while the process lives.
    pub async fn tool_box(&self, rules: &Arc<Vec<Ruleset>>) -> ToolBox {
        let (tools, failed) = ToolBox::load(self.host.clone(), rules).await;
        for (plugin, e) in failed {
            eoutln!("warning: {plugin}: {e}");
        }
        let dir = self.tool_output_dir.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(SWEEP_EVERY);
            loop {
                every.tick().await;
                let dir = dir.clone();
                let _ = tokio::task::spawn_blocking(move || sweep(&dir, KEEP_SAVED)).await;
            }
        });
        let limits = &self.config.config.tool_output;
        let tools = if self.skills.visible(rules).is_empty() {
            tools
        } else {
            let skill =
                SkillTool::new(self.skills.clone(), rules.clone()).with_plugins(self.host.clone());
            tools.with_host_tool(Arc::new(skill), rules)
        };
        tools.with_output(OutputPolicy {
            max_lines: limits.max_lines,
            max_bytes: limits.max_bytes,
            spill_dir: Some(self.tool_output_dir.clone()),
        })
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
        SystemPrompt::new(inputs)
    }

    /// When history is pruned and compacted (`[compaction]`).
    pub fn context_policy(&self) -> ContextPolicy {
        self.config.config.compaction.clone()
    }

    /// Loads everything for `cwd`.
    pub async fn open(cwd: &Path) -> Result<Self> {
        Self::load(Settings::load(cwd)?).await
    }

    /// Loads the plugins and what they provide, on top of `settings`.
    pub async fn load(settings: Settings) -> Result<Self> {
        let Settings {
            config,
            rules,
            data_dir,
            global,
            commands,
            command_warnings,
        } = settings;
        let mut found = discover(crate::builtins::BUILTINS, &search_path(&config));
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
            cache_dir: Some(component_cache_dir(&data_dir)),
            audit_log: Some(data_dir.join("audit.log")),
            grants: grants(&config, &plugins, &mut errors),
            disabled: config
                .config
                .plugins
                .iter()
                .filter(|(_, p)| !p.enabled)
                .map(|(name, _)| name.clone())
                .collect(),
            sandbox: crate::sandbox::settings(&config, &data_dir)?,
            replaces: config
                .config
                .plugins
                .iter()
                .filter(|(_, p)| !p.replaces.is_empty())
                .map(|(name, p)| (name.clone(), p.replaces.clone()))
                .collect(),
        };
        let host = Arc::new(PluginHost::new(plugins, options)?);
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
            skills: Arc::new(skills),
            agents,
            commands,
            discovery_errors: errors,
            host,
            rules,
            tool_output_dir: data_dir.join("tool-output"),
            environment_ahead: None,
        })
    }

    /// Prints discovery problems as warnings.
    pub fn warn_discovery_errors(&self) {
        for e in &self.discovery_errors {
            eoutln!("warning: {e}");
        }
    }
}

/// What Ward knows from files alone, before any plugin is looked at: configuration,
/// permission layers, data directory, commands, and the agents but those plugin
/// components declare. Cheap to load — enough to store a prompt before the plugins
/// load.
pub struct Settings {
    /// The loaded configuration.
    pub config: LoadedConfig,
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
}

impl Settings {
    /// Loads the configuration and the commands for `cwd`.
    pub fn load(cwd: &Path) -> Result<Self> {
        let config = ward_config::load(cwd)?;
        let rules = Arc::new(rules(&config)?);
        let data_dir = data_dir()?;
        let global = ward_config::global_config_dir(&|k| std::env::var(k).ok());
        let (commands, warnings) = CommandRegistry::load(&config.project_root, global.as_deref());
        Ok(Settings {
            config,
            rules,
            data_dir,
            global,
            commands,
            command_warnings: warnings.iter().map(ToString::to_string).collect(),
        })
    }

    /// The agents of built-ins, configuration and markdown files: those of the
    /// workspace, but for what plugin components declare (their warnings are left
    /// for [`Workspace::load`] to report).
    pub fn agents_without_components(&self) -> AgentRegistry {
        let (agents, _) = AgentRegistry::load(
            &self.config.config,
            &self.config.project_root,
            self.global.as_deref(),
        );
        agents
    }
}

/// The agent named `name` in `agents` (or the default agent), if it may lead a
/// session.
pub fn primary_agent<'a>(agents: &'a AgentRegistry, name: Option<&str>) -> Result<&'a AgentInfo> {
    let Some(name) = name else {
        return Ok(agents.default_agent());
    };
    let primary: Vec<&str> = agents
        .list()
        .filter(|a| a.is_primary() && !a.hidden)
        .map(|a| a.name.as_str())
        .collect();
    match agents.get(name) {
        Some(agent) if agent.is_primary() => Ok(agent),
        Some(_) => anyhow::bail!(
            "agent `{name}` is a subagent: it runs through the task tool; primary agents: {}",
            primary.join(", ")
        ),
        None => anyhow::bail!(
            "no agent named `{name}`; primary agents: {}",
            primary.join(", ")
        ),
    }
}

/// What plugin components declare beyond tools and hooks.
struct Declared {
    /// `(plugin, agent)` pairs.
    agents: Vec<(String, DeclaredAgent)>,
    skills: Vec<SkillInfo>,
}

impl Declared {
    /// Asks every enabled agent and skill plugin (from the cache when it can); a
    /// plugin that cannot answer is reported in `errors` and contributes nothing.
    async fn collect(host: &PluginHost, errors: &mut Vec<String>) -> Self {
        let mut declared = Declared {
            agents: Vec::new(),
            skills: Vec::new(),
        };
        for plugin in host.plugins() {
            if plugin.disabled_reason().is_some() {
                continue;
            }
            match host.agents_of(plugin).await {
                Ok(agents) => declared
                    .agents
                    .extend(agents.into_iter().map(|a| (plugin.name().to_string(), a))),
                Err(e) => errors.push(format!("plugin `{}`: {e}", plugin.name())),
            }
            match host.skills_of(plugin).await {
                Ok(skills) => declared.skills.extend(
                    skills
                        .iter()
                        .map(|s| SkillInfo::from_plugin(plugin.name(), &s.name, &s.description)),
                ),
                Err(e) => errors.push(format!("plugin `{}`: {e}", plugin.name())),
            }
        }
        declared
    }
}

/// The permission layers from the built-in defaults and the loaded config.
pub fn rules(config: &LoadedConfig) -> Result<Vec<Ruleset>> {
    let configured = Ruleset::from_toml("ward.toml", &config.config.permission)
        .context("in the [permission] table")?;
    Ok(vec![ward_permission::defaults(), configured])
}

/// Grants per plugin: `[plugins.NAME] grant` from config, else the grants recorded in
/// `ward.lock` by `ward plugin install/grant`, pinned to what each manifest asked for
/// when they were given (what it asks for since is reported in `errors` and stays off
/// until granted). An unreadable lock grants nothing and is reported in `errors`.
fn grants(
    config: &LoadedConfig,
    plugins: &[PluginSource],
    errors: &mut Vec<String>,
) -> BTreeMap<String, Vec<String>> {
    let mut grants: BTreeMap<String, Vec<String>> = config
        .config
        .plugins
        .iter()
        .filter_map(|(name, p)| {
            let grants = p.grant.as_ref()?;
            Some((
                name.clone(),
                grants.iter().map(ToString::to_string).collect(),
            ))
        })
        .collect();
    match ward_market::Lock::load(&config.project_root) {
        Ok(lock) => {
            for entry in &lock.plugins {
                if grants.contains_key(&entry.name) {
                    continue;
                }
                let now: Vec<ward_config::Grant> = plugins
                    .iter()
                    .find(|p| p.manifest.name == entry.name)
                    .map(|p| ward_market::requested(&p.manifest.capabilities))
                    .map(|asks| asks.into_iter().map(|r| r.grant).collect())
                    .unwrap_or_else(|| entry.requested.clone());
                let (pinned, since) = ward_market::grants::pinned(entry, &now);
                if !since.is_empty() {
                    let since: Vec<String> = since.iter().map(ToString::to_string).collect();
                    errors.push(format!(
                        "plugin `{}` asks for {} since it was granted; not in effect until a \
                         person grants it (`ward plugin grant {} {}`)",
                        entry.name,
                        since.join(", "),
                        entry.name,
                        since.join(" ")
                    ));
                }
                let pinned = pinned.iter().map(ToString::to_string).collect();
                grants.insert(entry.name.clone(), pinned);
            }
        }
        Err(e) => errors.push(format!("{e} (its grants are ignored)")),
    }
    grants
}

fn search_path(config: &LoadedConfig) -> Vec<(Origin, PathBuf)> {
    let mut search = Vec::new();
    if let Some(dir) = ward_config::global_config_dir(&|k| std::env::var(k).ok()) {
        search.push((Origin::User, dir.join("plugins")));
    }
    search.push((Origin::Project, config.project_root.join(".ward/plugins")));
    for p in &config.config.plugin_paths {
        search.push((Origin::Config, PathBuf::from(p)));
    }
    for plugin in config.config.plugins.values() {
        if let Some(p) = &plugin.path {
            search.push((Origin::Config, PathBuf::from(p)));
        }
    }
    search
}

/// `WARD_DATA_DIR`, else `$XDG_DATA_HOME/ward`, else `~/.local/share/ward`.
pub fn data_dir() -> Result<PathBuf> {
    if let Some(d) = std::env::var_os("WARD_DATA_DIR") {
        return Ok(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_DATA_HOME") {
        return Ok(PathBuf::from(d).join("ward"));
    }
    let home = std::env::var_os("HOME").context("neither WARD_DATA_DIR nor HOME is set")?;
    Ok(PathBuf::from(home).join(".local/share/ward"))
}

/// The compiled-component cache: `$WARD_CACHE_DIR`, else `cache/components` in the data
/// directory. WARD_CACHE_DIR lets several data directories share one cache (entries are
/// keyed by content and sealed, so sharing is safe).
pub fn component_cache_dir(data_dir: &Path) -> PathBuf {
    std::env::var_os("WARD_CACHE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| data_dir.join("cache/components"))
}
