//! Ward's configuration: `ward.toml` layering and validation, and plugin
//! manifests (`plugin.toml`).
//!
//! Every problem is reported as one line with `file:line:column`, so a typo in
//! any layer points straight at itself.
//!
//! - [`schema`]: the documented shape of `ward.toml` ([`Config`]).
//! - [`load`](mod@load): finding and layering the files ([`load()`], [`LoadedConfig`]).
//! - [`substitute`](mod@substitute): `{env:VAR}` and `{file:path}` substitution.
//! - [`manifest`]: plugin manifests ([`parse_manifest`], [`Manifest`]).
//! - [`frontmatter`]: markdown files with YAML front matter (agents, skills, commands).
//! - [`grant`]: capability names and user grants.
//! - [`error`]: [`ConfigError`] and its [`Located`] position.
//! - [`origin`]: [`Origins`], where each key of the merged configuration was set.
//! - [`opencode`]: where an OpenCode project keeps its agents and commands.
//! - [`opencode_json`]: OpenCode's `opencode.json(c)` read as a configuration layer.
//! - [`show`]: the merged configuration with each value's origin (`ward config show`).
//! - [`warning`]: [`Warning`], a located problem that skips one definition.
//! - [`trust`]: what a project's own files may do before a person trusts them
//!   ([`ProjectTrust`], on every [`LoadedConfig`]).

mod diagnose;
pub mod error;
pub mod frontmatter;
pub mod grant;
pub mod load;
mod locate;
pub mod manifest;
mod merge;
pub mod opencode;
pub mod opencode_json;
pub mod origin;
pub mod schema;
pub mod show;
pub mod substitute;
pub mod trust;
pub mod warning;

#[cfg(test)]
mod testutil;

pub use error::{ConfigError, Located};
pub use grant::{Capability, Grant, GrantError};
pub use load::{
    INLINE_SOURCE, LoadedConfig, global_config_dir, load, load_from_str, load_with_data_dir,
    load_with_env, project_root,
};
pub use manifest::{
    Access, Capabilities, HookCaps, HookMode, Kind, Limits, Manifest, ToolTraits, is_plugin_name,
    parse_manifest,
};
pub use origin::Origins;
pub use schema::{
    AgentConfig, AgentMode, CommandConfig, CompactionConfig, Config, Cost, MarketplaceConfig,
    McpConfig, McpEntryError, McpServer, ModelConfig, PluginConfig, ProviderConfig, ProviderKind,
    RetryConfig, SandboxConfig, SandboxMode, SourceConfig, Tokenizer, ToolOutputConfig,
    deserialize_model_ref,
};
pub use trust::{ProjectTrust, TrustItem, TrustState};
pub use warning::Warning;
