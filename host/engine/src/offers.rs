//! What an opened project offers a frontend to show and pick from, in
//! `ward-protocol`'s words: where it is, its agents, `/commands`, providers and
//! models, tools, and its configuration with the secrets masked.
//!
//! Frontends read the project through these and never through the workspace: what
//! they can see is what is listed here, and a change below the engine changes these
//! functions, not five frontends.

use std::path::{Path, PathBuf};

use ward_config::AgentMode as ConfigAgentMode;
use ward_config::ToolTraits;
use ward_config::manifest::Access as ConfigAccess;
use ward_mcp_client::Status as McpStatus;
use ward_plugin::Plugin;
use ward_plugin::discovery::Origin;
use ward_protocol::{
    Access, AgentMode, AgentSummary, AskRequest, CommandSummary, McpServerSummary, McpState,
    ModelChoice, ModelSummary, ProviderSummary, ToolSummary,
};

use crate::Engine;
use crate::error::{EngineError, ModelError};

impl Engine {
    /// The project's root directory (where its `.git` or configuration is).
    pub fn project_root(&self) -> &Path {
        &self.shared.ws.config.project_root
    }

    /// Where sessions, caches and saved outputs live.
    pub fn data_dir(&self) -> &Path {
        &self.shared.ws.data_dir
    }

    /// The plugin directories this project loads plugins from.
    pub fn plugin_dirs(&self) -> Vec<PathBuf> {
        self.shared.ws.plugin_dirs()
    }

    /// The user's configuration directory (`$XDG_CONFIG_HOME/ward`, `~/.config/ward`),
    /// if one can be named.
    pub fn global_config_dir() -> Option<PathBuf> {
        ward_config::global_config_dir(&|name: &str| std::env::var(name).ok())
    }

    /// The root of the project `dir` is in, without opening it: the nearest ancestor
    /// holding `.git` or Ward's configuration, else `dir`.
    pub fn project_root_of(dir: &Path) -> PathBuf {
        ward_config::project_root(dir)
    }

    /// Every agent, in the registry's order (hidden ones included, marked so).
    pub fn agents(&self) -> Vec<AgentSummary> {
        self.shared
            .ws
            .agents
            .list()
            .map(|a| AgentSummary {
                name: a.name.clone(),
                description: a.description.clone(),
                mode: match a.mode {
                    ConfigAgentMode::Primary => AgentMode::Primary,
                    ConfigAgentMode::Subagent => AgentMode::Subagent,
                    ConfigAgentMode::All => AgentMode::All,
                },
                hidden: a.hidden,
                built_in: a.native,
                model: a.model.clone(),
                color: a.color.clone(),
            })
            .collect()
    }

    /// The `/commands` a prompt can start with: Ward's and the project's.
    pub fn commands(&self) -> Vec<CommandSummary> {
        self.shared
            .ws
            .commands
            .list()
            .iter()
            .map(|c| CommandSummary {
                name: c.name.clone(),
                description: c.description.clone(),
                agent: c.agent.clone(),
                model: c.model.clone(),
                template: c.template.clone(),
                subtask: c.subtask,
            })
            .collect()
    }

    /// The project's MCP servers, once each has started or failed (the engine starts
    /// them when it opens; this waits for them, each within its own timeout).
    pub async fn mcp_servers(&self) -> Vec<McpServerSummary> {
        let mcp = &self.shared.ws.mcp;
        mcp.ready().await;
        mcp.statuses()
            .into_iter()
            .map(|s| McpServerSummary {
                state: match s.status {
                    McpStatus::Disabled => McpState::Disabled,
                    McpStatus::Starting => McpState::Starting,
                    McpStatus::Connected => McpState::Connected,
                    McpStatus::Failed(why) => McpState::Failed(why),
                },
                tools: s.tools.into_iter().map(|(name, _)| name).collect(),
                name: s.name,
            })
            .collect()
    }

    /// The MCP servers' prompts, as `(/SERVER:PROMPT, description)`.
    pub fn mcp_prompts(&self) -> Vec<(String, String)> {
        self.shared.ws.mcp.prompts()
    }

    /// Every provider the configuration and Ward's catalogue know, with their models
    /// (a model named by `model =` but not declared is listed with its limits unknown).
    pub fn providers(&self) -> Result<Vec<ProviderSummary>, EngineError> {
        let ws = &self.shared.ws;
        let registry = ws.models.registry(&ws.config)?;
        let env = |name: &str| std::env::var(name).ok();
        Ok(registry
            .providers()
            .map(|provider| ProviderSummary {
                id: provider.id.clone(),
                env: provider.env.clone(),
                callable: provider.env.is_empty() || provider.endpoint(&env).api_key.is_some(),
                models: provider
                    .models
                    .values()
                    .map(|m| ModelSummary {
                        id: m.id.clone(),
                        name: m.name.clone(),
                        context: m.limits.context,
                        output: m.limits.output,
                        input_price: m.prices.input,
                        output_price: m.prices.output,
                    })
                    .collect(),
            })
            .collect())
    }

    /// The configured default model, `provider/model`, as written.
    pub fn default_model(&self) -> Option<String> {
        self.shared.ws.config.config.model.clone()
    }

    /// The models the configuration names, `provider/model`: those declared under
    /// `[provider.X.models]`, then any `model =` (the default's, an agent's, a
    /// command's) names that is not declared.
    pub fn configured_models(&self) -> Vec<String> {
        let ws = &self.shared.ws;
        let config = &ws.config.config;
        let mut models: Vec<String> = config
            .provider
            .iter()
            .flat_map(|(provider, p)| p.models.keys().map(move |m| format!("{provider}/{m}")))
            .collect();
        let named = config
            .model
            .iter()
            .chain(ws.agents.list().filter_map(|a| a.model.as_ref()))
            .chain(ws.commands.list().iter().filter_map(|c| c.model.as_ref()));
        for model in named {
            if model.contains('/') && !models.contains(model) {
                models.push(model.clone());
            }
        }
        models
    }

    /// The model `choice` (`provider/model`; `None`: the configured default) resolves
    /// to, or why it resolves to none.
    pub fn resolve_model(&self, choice: Option<&str>) -> Result<ModelChoice, ModelError> {
        let ws = &self.shared.ws;
        let setup = ws.models.resolve_variant(&ws.config, choice, None)?;
        Ok(ModelChoice {
            provider: setup.provider,
            model: setup.model,
            context: setup.limits.context,
        })
    }

    /// The merged configuration as JSON with every secret (keys, header and MCP
    /// environment values, what `{env:…}`/`{file:…}` wrote, URL credentials) replaced
    /// by `***`.
    pub fn config_json(&self) -> Result<serde_json::Value, EngineError> {
        ward_config::show::redact::config_json(&self.shared.ws.config)
            .map_err(EngineError::ConfigJson)
    }

    /// Every tool the project's plugins offer, with what their manifests declare
    /// (before any agent's rules take tools off the offer).
    pub async fn tools(&self) -> Vec<ToolSummary> {
        let (tools, _) = self.shared.ws.host.all_tools().await;
        tools
            .into_iter()
            .map(|(plugin, tool)| {
                let traits = plugin.tool_traits(&tool.name);
                let parameters =
                    serde_json::from_str(&tool.parameters).unwrap_or(serde_json::Value::Null);
                summary(
                    tool.name,
                    tool.description,
                    parameters,
                    Some(&plugin),
                    traits,
                )
            })
            .collect()
    }

    /// Whether `request` must be answered by a person, never by a rule, a hook or a
    /// client's standing answer: a change to Ward's own configuration, or a command
    /// asking to leave the sandbox.
    pub fn needs_a_person(request: &AskRequest) -> bool {
        ward_plugin::sandbox::needs_a_person(request)
    }
}

/// Tool `name` as a frontend sees it: what its declaration (`traits`) says, and what
/// its plugin was granted (`None`: a tool of the host's own or an MCP server's, which
/// counts as Ward's own only when no plugin offers it).
pub(crate) fn summary(
    name: String,
    description: String,
    parameters: serde_json::Value,
    plugin: Option<&Plugin>,
    traits: ToolTraits,
) -> ToolSummary {
    let caps = plugin.map(|p| &p.source.manifest.capabilities);
    ToolSummary {
        name,
        plugin: plugin.map(|p| p.name().to_string()),
        standard: plugin.is_none_or(|p| p.source.origin == Origin::Builtin),
        description,
        parameters,
        access: traits.access.map(|a| match a {
            ConfigAccess::Read => Access::Read,
            ConfigAccess::Write => Access::Write,
        }),
        path_arg: traits.path,
        pattern_arg: traits.pattern,
        patch_arg: traits.patch,
        keeps_todos: traits.todos.is_some(),
        runs_programs: caps.is_some_and(|c| !c.exec.is_empty()),
        uses_network: caps.is_some_and(|c| !c.net.is_empty()),
    }
}
