//! `ward permission explain TOOL PATTERN`: which rule decides, and which deny rules are
//! shadowed by later rules.

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;
use ward_term::out;

/// `ward permission …`
#[derive(Subcommand)]
pub enum PermissionCommand {
    /// Show the rule that decides TOOL for PATTERN, and warn about shadowed deny rules.
    Explain {
        /// A tool or permission key (`read`, `edit`, `bash`, `write`, a plugin tool, …).
        tool: String,
        /// What is asked for: a path relative to the project, a command, a URL.
        pattern: String,
    },
}

/// Runs the subcommand.
pub fn run(command: PermissionCommand) -> Result<ExitCode> {
    match command {
        PermissionCommand::Explain { tool, pattern } => {
            let config = super::load_config_here()?;
            // Each configured rule is named by the file and line it was written at.
            let layers = ward_engine::located_rules(&config)?;
            let key = ward_permission::permission_key(&tool);
            out!("{}", ward_permission::explain(key, &pattern, &layers));
            Ok(ExitCode::SUCCESS)
        }
    }
}
