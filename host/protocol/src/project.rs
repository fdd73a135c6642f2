//! What an opened project offers a frontend to show and pick from: its agents, its
//! `/commands`, its providers and models, and its tools with what they declare.
//!
//! These are summaries made by the engine for display, never the definitions the
//! engine runs from: a frontend can list and choose, not change how a choice behaves.

use serde::{Deserialize, Serialize};

/// Where an agent can be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentMode {
    /// As a session's agent only.
    Primary,
    /// Through the `task` tool only.
    Subagent,
    /// Both.
    All,
}

impl AgentMode {
    /// OpenCode's name for it: `primary`, `subagent` or `all`.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentMode::Primary => "primary",
            AgentMode::Subagent => "subagent",
            AgentMode::All => "all",
        }
    }
}

/// One agent, as a picker shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentSummary {
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: Option<String>,
    /// Where it can be used.
    pub mode: AgentMode,
    /// Left out of pickers (Ward's own `title`, `compaction`, …, or `hidden = true`).
    pub hidden: bool,
    /// Whether Ward defines it (possibly overridden by the configuration).
    pub built_in: bool,
    /// Its model, `provider/model`, when it has one of its own.
    pub model: Option<String>,
    /// Its colour in a user interface.
    pub color: Option<String>,
}

impl AgentSummary {
    /// Whether it can lead a session (mode `primary` or `all`).
    pub fn is_primary(&self) -> bool {
        matches!(self.mode, AgentMode::Primary | AgentMode::All)
    }

    /// Whether the `task` tool can start it (mode `subagent` or `all`).
    pub fn is_subagent(&self) -> bool {
        matches!(self.mode, AgentMode::Subagent | AgentMode::All)
    }
}

/// One `/command` a prompt can start with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandSummary {
    /// The name typed after `/`.
    pub name: String,
    /// One line for menus.
    pub description: Option<String>,
    /// The agent it runs with, if it names one.
    pub agent: Option<String>,
    /// The model it runs with, if it names one.
    pub model: Option<String>,
    /// Its prompt template.
    pub template: String,
    /// Whether it runs as a subagent's task.
    pub subtask: bool,
}

/// A provider and its models, as the configuration and Ward's catalogue know them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProviderSummary {
    /// Its id (`openai`, `anthropic`, a `[provider.X]` name).
    pub id: String,
    /// The environment variables its key is read from.
    pub env: Vec<String>,
    /// Whether it can be called now: its key is set, or it needs none.
    pub callable: bool,
    /// Its models.
    pub models: Vec<ModelSummary>,
}

/// One model of a provider.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelSummary {
    /// Its id at the provider.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// Its context window in tokens, when known.
    pub context: Option<u64>,
    /// The most output tokens, when known.
    pub output: Option<u64>,
    /// Dollars per million input tokens.
    pub input_price: f64,
    /// Dollars per million output tokens.
    pub output_price: f64,
}

/// The model a choice (`provider/model`, or none for the default) resolves to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelChoice {
    /// The provider's id.
    pub provider: String,
    /// The model's id.
    pub model: String,
    /// Its context window in tokens, when known.
    pub context: Option<u64>,
}

/// What a tool touches, as it declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// It reads the file or directory its path argument names.
    Read,
    /// It writes it.
    Write,
}

/// One tool, with what its declaration and its plugin's manifest say of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolSummary {
    /// Its name, as the model calls it.
    pub name: String,
    /// The plugin it comes from; `None` for a tool of the host's own (`skill`, `task`).
    pub plugin: Option<String>,
    /// Whether it is one of Ward's own: a standard plugin's or the host's.
    pub standard: bool,
    /// What it tells the model it does.
    pub description: String,
    /// The JSON Schema of its arguments.
    pub parameters: serde_json::Value,
    /// Whether it reads or writes the path it is given, if it declares one.
    pub access: Option<Access>,
    /// The argument holding that path.
    pub path_arg: Option<String>,
    /// The argument holding a search pattern.
    pub pattern_arg: Option<String>,
    /// The argument holding a patch of several files.
    pub patch_arg: Option<String>,
    /// Whether its output carries the session's todo list.
    pub keeps_todos: bool,
    /// Whether its plugin was granted to run programs.
    pub runs_programs: bool,
    /// Whether its plugin was granted the network.
    pub uses_network: bool,
}

/// Where one of the project's MCP servers (`[mcp.NAME]`) stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", content = "error", rename_all = "lowercase")]
pub enum McpState {
    /// Switched off in the configuration (`enabled = false`), or not started because
    /// the project is not trusted.
    Disabled,
    /// Still starting.
    Starting,
    /// Connected, its tools listed.
    Connected,
    /// It could not start, or stopped: why.
    Failed(String),
}

/// One of the project's MCP servers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpServerSummary {
    /// Its name (`[mcp.NAME]`).
    pub name: String,
    /// Where it stands.
    pub state: McpState,
    /// The tools it offers, as the model calls them.
    pub tools: Vec<String>,
}
