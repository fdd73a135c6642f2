//! `ward command list`: the commands `/name args` can run — built-in, from
//! `.ward/commands/` and MCP servers' prompts — with where each came from.

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;
use ward_command::CommandSource;
use ward_term::{inert_line, outln};

/// `ward command …`
#[derive(Subcommand)]
pub enum CommandCommand {
    /// List the commands.
    List,
}

/// Runs the subcommand.
pub async fn run(command: CommandCommand) -> Result<ExitCode> {
    let CommandCommand::List = command;
    let ws = super::open_workspace().await?;
    for c in ws.commands.list() {
        let source = match &c.source {
            CommandSource::Builtin => "built-in".to_string(),
            CommandSource::File { path } => inert_line(&path.display().to_string()).into_owned(),
            CommandSource::Config { at } => inert_line(&at.to_string()).into_owned(),
        };
        let agent = c
            .agent
            .as_deref()
            .map(|a| format!(" (agent {})", inert_line(a)))
            .unwrap_or_default();
        // Names and descriptions come from files: one line each, inert.
        outln!("/{}{agent}  [{source}]", inert_line(&c.name));
        if let Some(description) = &c.description {
            outln!("    {}", inert_line(description));
        }
    }
    // MCP servers' prompts, once the servers have started (a failure is `ward mcp
    // list`'s to explain).
    if !ws.mcp.is_empty() {
        ws.mcp.ready().await;
        for (name, description) in ws.mcp.prompts() {
            outln!("/{}  [mcp]", inert_line(&name));
            if !description.is_empty() {
                outln!("    {}", inert_line(&description));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
