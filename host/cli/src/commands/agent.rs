//! `ward agent list`: every agent — built-in, configured, from markdown files — with
//! its mode, where it came from and what it is for.

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;
use ward_agent::{AgentMode, AgentSource};

use crate::setup::Workspace;

/// `ward agent …`
#[derive(Subcommand)]
pub enum AgentCommand {
    /// List the agents (hidden ones with `--all`).
    List {
        /// Include hidden agents (compaction, title, summary).
        #[arg(long)]
        all: bool,
    },
}

/// Runs the subcommand.
pub async fn run(command: AgentCommand) -> Result<ExitCode> {
    let AgentCommand::List { all } = command;
    let ws = Workspace::open(&std::env::current_dir()?).await?;
    ws.warn_discovery_errors();
    let default = ws.agents.default_agent().name.clone();
    for agent in ws.agents.list().filter(|a| all || !a.hidden) {
        let mode = match agent.mode {
            AgentMode::Primary => "primary",
            AgentMode::Subagent => "subagent",
            AgentMode::All => "primary+subagent",
        };
        let source = match &agent.source {
            AgentSource::Builtin => "built-in".to_string(),
            AgentSource::Config => "ward.toml".to_string(),
            AgentSource::Markdown { path } => path.display().to_string(),
            AgentSource::Component { plugin } => format!("plugin {plugin}"),
        };
        let mut notes = Vec::new();
        if agent.name == default {
            notes.push("default".to_string());
        }
        if agent.hidden {
            notes.push("hidden".to_string());
        }
        if let Some(model) = &agent.model {
            notes.push(format!("model {model}"));
        }
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!(" ({})", notes.join(", "))
        };
        println!("{}  {mode}{notes}  [{source}]", agent.name);
        if let Some(description) = &agent.description {
            println!("    {description}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
