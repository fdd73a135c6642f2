//! The documented shape of `ward.toml`.
//!
//! Every table rejects unknown keys so a typo is an error with a location
//! rather than a silently ignored setting. Every field is optional; the
//! defaults are the ones the rest of Ward assumes. Fields whose absence means
//! "keep the built-in" (agent overrides, model limits) are `Option`s rather
//! than defaults, so consumers can tell "not set" from "set to the default".
//!
//! ```toml
//! model = "local/qwen"
//! default_agent = "build"
//! [provider.local]
//! kind = "openai-compatible"
//! base_url = "http://127.0.0.1:8080/v1"
//! [permission]
//! edit = "ask"
//! [plugins.my-tool]
//! grant = ["fs-read", "net:https://api.example.com"]
//! [compaction]
//! threshold = 0.9
//! [retry]
//! connect_seconds = 5
//! [[marketplace.sources]]
//! name = "team"
//! url = "https://plugins.example.com/index.json"
//! ```

mod agent;
mod check;
mod command;
mod marketplace;
mod mcp;
mod provider;
mod retry;
mod sandbox;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use agent::{AgentConfig, AgentMode};
pub use check::model_ref as deserialize_model_ref;
pub use command::CommandConfig;
pub use marketplace::{MarketplaceConfig, SourceConfig};
pub use mcp::{McpConfig, McpEntryError, McpServer};
pub use provider::{Cost, ModelConfig, ProviderConfig, ProviderKind, Tokenizer};
pub use retry::RetryConfig;
pub use sandbox::{SandboxConfig, SandboxMode};

#[cfg(test)]
mod tests;

use crate::grant::Grant;

/// The whole configuration, after layering.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// The model to use, as `provider/model` (e.g. `local/qwen`).
    #[serde(deserialize_with = "check::model_ref")]
    pub model: Option<String>,
    /// A cheaper model for titles and summaries, as `provider/model`.
    #[serde(deserialize_with = "check::model_ref")]
    pub small_model: Option<String>,
    /// The agent a new session starts with; must name a primary agent.
    pub default_agent: Option<String>,
    /// Extra instruction files or globs added to the system prompt
    /// (e.g. `docs/*.md`), resolved by the prompt builder.
    pub instructions: Vec<String>,
    /// Extra directories searched for plugins, after the built-in,
    /// global and project ones. Relative paths are resolved against the
    /// directory of the file that declares them when loading.
    pub plugin_paths: Vec<PathBuf>,
    /// Model providers by id (the `provider` in `provider/model`).
    pub provider: BTreeMap<String, ProviderConfig>,
    /// Permission rules: `KEY = "allow" | "ask" | "deny"` or
    /// `KEY = { "pattern" = action, … }`. Kept as an ordered table because
    /// order decides (the last matching rule wins); `ward-permission` parses it.
    pub permission: toml::Table,
    /// Per-plugin settings by plugin name: grants, enablement, location.
    pub plugins: BTreeMap<String, PluginConfig>,
    /// Context compaction.
    pub compaction: CompactionConfig,
    /// Truncation of tool output before it reaches the model.
    pub tool_output: ToolOutputConfig,
    /// Agent definitions and overrides of built-in agents, by agent name.
    pub agent: BTreeMap<String, AgentConfig>,
    /// Package sources and trusted signing keys for `ward plugin install`.
    pub marketplace: MarketplaceConfig,
    /// How the `bash` tool's commands are confined.
    pub sandbox: SandboxConfig,
    /// How failed model calls are retried.
    pub retry: RetryConfig,
    /// MCP servers whose tools are offered as `NAME_tool`, by server name.
    pub mcp: BTreeMap<String, McpConfig>,
    /// Commands defined here rather than in markdown files, by command name.
    pub command: BTreeMap<String, CommandConfig>,
    /// Whether steps that run tools able to write are snapshotted, so undo can put
    /// the files back (default `true`; OpenCode's `snapshot`). Off, nothing is
    /// recorded and `revert` refuses.
    pub snapshot: Option<bool>,
}

/// `[plugins.NAME]`: what a person allows one plugin to do.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct PluginConfig {
    /// Granted capabilities, e.g. `fs-read`, `fs-read:$WORKSPACE/docs`,
    /// `net:https://api.example.com`, `exec:git *`, `env:GITHUB_TOKEN`.
    /// The effective right is the manifest's ceiling ∩ these ∩ the permission rules.
    /// Unset: built-in plugins get what their manifest asks for, others get nothing.
    pub grant: Option<Vec<Grant>>,
    /// Whether the plugin is loaded at all (default `true`).
    pub enabled: bool,
    /// Explicit plugin directory; relative paths are resolved against the
    /// directory of the file that declares them when loading.
    pub path: Option<PathBuf>,
    /// Standard tools (or built-in plugins, by name) this plugin may replace. Without
    /// it a standard tool keeps its name, and a plugin that declares the name too is
    /// refused for that tool.
    pub replaces: Vec<String>,
}

impl Default for PluginConfig {
    fn default() -> Self {
        Self {
            grant: None,
            enabled: true,
            path: None,
            replaces: Vec::new(),
        }
    }
}

/// `[compaction]`: when and how history is compacted.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct CompactionConfig {
    /// Compact automatically when the context overflows (default `true`).
    pub auto: bool,
    /// Prune old tool outputs after each loop (default `true`).
    pub prune: bool,
    /// Tokens kept free for the reply; unset means `min(20000, max_output)`.
    pub reserved: Option<u64>,
    /// Compact once this fraction of the usable context (0 < t ≤ 1) is used,
    /// even below overflow; unset means only on overflow. A model's own
    /// `compaction_threshold` overrides it.
    #[serde(deserialize_with = "check::fraction")]
    pub threshold: Option<f64>,
}

impl Default for CompactionConfig {
    fn default() -> Self {
        Self {
            auto: true,
            prune: true,
            reserved: None,
            threshold: None,
        }
    }
}

/// `[tool_output]`: limits beyond which tool output is truncated and saved.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ToolOutputConfig {
    /// Maximum lines passed to the model (default 2000).
    pub max_lines: usize,
    /// Maximum bytes passed to the model (default 51200, 50 KiB).
    pub max_bytes: usize,
}

impl Default for ToolOutputConfig {
    fn default() -> Self {
        Self {
            max_lines: 2000,
            max_bytes: 50 * 1024,
        }
    }
}
