//! `ward mcp …`: the Model Context Protocol. `ward mcp serve` serves Ward's tools to
//! MCP clients ([`super::mcp_serve`]).

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;

/// `ward mcp …`
#[derive(Subcommand)]
pub enum McpCommand {
    /// Serve the installed plugins' tools to MCP clients (stdio or streamable HTTP).
    Serve(super::mcp_serve::ServeArgs),
}

/// Runs the subcommand.
pub async fn run(command: McpCommand) -> Result<ExitCode> {
    match command {
        McpCommand::Serve(args) => super::mcp_serve::run(args).await,
    }
}
