//! `[command.NAME]`: commands defined in configuration, as OpenCode's `command`
//! key defines them (a markdown file under `.ward/commands/` is the other way).

use serde::{Deserialize, Serialize};

/// `[command.NAME]`: one command run as `/NAME arguments`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CommandConfig {
    /// The prompt sent, with `$ARGUMENTS`, `$1..$N`, `` !`cmd` `` and `@file`
    /// expanded as in a command file's body.
    pub template: String,
    /// What the command does, shown in command lists.
    #[serde(default)]
    pub description: Option<String>,
    /// The agent that runs it.
    #[serde(default)]
    pub agent: Option<String>,
    /// Model override, as `provider/model`.
    #[serde(default, deserialize_with = "super::check::model_ref")]
    pub model: Option<String>,
    /// Run it as a subtask (a child session) rather than in the current one.
    #[serde(default)]
    pub subtask: Option<bool>,
}
