//! `ward agent list`: every agent — built-in, configured, from markdown files — with
//! its mode, where it came from and what it is for.

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;
use ward_agent::{AgentMode, AgentSource};
use ward_term::{inert_line, outln};

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
    let ws = super::open_workspace().await?;
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
            AgentSource::Markdown { path } => inert_line(&path.display().to_string()).into_owned(),
            AgentSource::Component { plugin } => format!("plugin {}", inert_line(plugin)),
        };
        let mut notes = Vec::new();
        if agent.name == default {
            notes.push("default".to_string());
        }
        if agent.hidden {
            notes.push("hidden".to_string());
        }
        if let Some(model) = &agent.model {
            notes.push(format!("model {}", inert_line(model)));
        }
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!(" ({})", notes.join(", "))
        };
        // Names and descriptions come from files and plugins: one line each, inert.
        outln!("{}  {mode}{notes}  [{source}]", inert_line(&agent.name));
        if let Some(description) = &agent.description {
            outln!("    {}", inert_line(description));
        }
    }
    Ok(ExitCode::SUCCESS)
}
