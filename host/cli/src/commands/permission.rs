//! `ward permission explain TOOL PATTERN`: which rule decides, and which deny rules are
//! shadowed by later rules.

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;
use ward_engine::Workspace;
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
pub async fn run(command: PermissionCommand) -> Result<ExitCode> {
    match command {
        PermissionCommand::Explain { tool, pattern } => {
            let cwd = std::env::current_dir()?;
            let ws = Workspace::open(&crate::builtins::engine_options(cwd)).await?;
            // Each configured rule is named by the file and line it was written at.
            let layers = ward_engine::located_rules(&ws.config)?;
            // A tool is ruled under the permission it declares (`write` as `edit`).
            let key = ws.ruled_as(&tool);
            out!("{}", ward_permission::explain(&key, &pattern, &layers));
            Ok(ExitCode::SUCCESS)
        }
    }
}
