//! `ward config show`: the merged configuration, each value with the file and
//! line that set it (a `ward.toml` or an OpenCode file) or marked a default.

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;
use ward_term::{inert_line, outln};

/// `ward config …`
#[derive(Subcommand)]
pub enum ConfigCommand {
    /// Print the merged configuration with the origin (file:line:column) of each value.
    Show,
}

/// Runs the subcommand.
pub fn run(command: ConfigCommand) -> Result<ExitCode> {
    match command {
        ConfigCommand::Show => {
            let config = super::load_config_here()?;
            for setting in ward_config::show::settings(&config) {
                let origin = setting
                    .origin
                    .map_or_else(|| "default".to_owned(), |at| at.to_string());
                // Keys and values come from files: one inert line each.
                outln!(
                    "{} = {}  # {}",
                    inert_line(&setting.key),
                    inert_line(&setting.value),
                    inert_line(&origin)
                );
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
