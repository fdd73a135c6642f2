//! `[agent.NAME]`: agent definitions in configuration. Every field is an
//! `Option` because a config entry may override only part of a built-in agent.

use serde::{Deserialize, Serialize};

/// `[agent.NAME]`: a new agent or an override of a built-in one.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct AgentConfig {
    /// When to use the agent; shown to the model for subagents.
    pub description: Option<String>,
    /// Where the agent can be used.
    pub mode: Option<AgentMode>,
    /// Hide the agent from agent lists and `@` completion.
    pub hidden: Option<bool>,
    /// Model override, as `provider/model`.
    #[serde(deserialize_with = "super::check::model_ref")]
    pub model: Option<String>,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Nucleus sampling.
    pub top_p: Option<f64>,
    /// The model variant the agent runs with (e.g. `high`: one of the model's
    /// `variants`), unless `--variant` chooses another.
    pub variant: Option<String>,
    /// System prompt of the agent.
    pub prompt: Option<String>,
    /// Maximum loop steps before the agent must answer in text.
    pub steps: Option<u32>,
    /// Permission rules for this agent, in the same shape as `[permission]`.
    pub permission: Option<toml::Table>,
    /// Remove the agent (e.g. a built-in one) entirely.
    pub disable: Option<bool>,
    /// Colour shown in interfaces, e.g. `#ff8800` or a colour name.
    pub color: Option<String>,
}

/// Where an agent can be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentMode {
    /// Selectable as the session's agent.
    Primary,
    /// Only callable through the task tool.
    Subagent,
    /// Both.
    All,
}
