//! One module per `ward` subcommand.

pub mod acp;
pub mod agent;
pub mod chat;
pub mod command;
pub mod config;
pub mod mcp;
pub mod mcp_serve;
pub mod models;
pub mod permission;
pub mod plugin;
pub mod revert;
pub mod run;
pub mod serve;
pub mod session;
pub mod skill;
pub mod tool;
pub mod trust;
pub mod tui;
pub mod undo;

use anyhow::Result;
use ward_engine::Workspace;
use ward_term::eoutln;

/// Prints problems found opening the project, each as a warning.
pub fn warn(warnings: &[String]) {
    for warning in warnings {
        eoutln!("warning: {warning}");
    }
}

/// The configuration of the current directory, for commands that show it; what it
/// warns about (an OpenCode key Ward does not act on, …) is printed first.
pub fn load_config_here() -> Result<ward_config::LoadedConfig> {
    let config = ward_config::load(&std::env::current_dir()?)?;
    let warnings: Vec<String> = config.warnings.iter().map(ToString::to_string).collect();
    warn(&warnings);
    Ok(config)
}

/// The project in the current directory, for commands that inspect it; what went
/// wrong opening it is printed as warnings.
pub async fn open_workspace() -> Result<Workspace> {
    let options = crate::builtins::engine_options(std::env::current_dir()?);
    let ws = Workspace::open(&options).await?;
    warn(&ws.discovery_errors);
    Ok(ws)
}
