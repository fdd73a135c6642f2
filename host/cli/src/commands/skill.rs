//! `ward skill list`: the skills found for this project, where each came from, and
//! whether the permission rules let the agent see it.

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;
use ward_term::{inert_line, outln};

/// `ward skill …`
#[derive(Subcommand)]
pub enum SkillCommand {
    /// List the skills found in the user's and the project's skill directories and
    /// those plugin components provide.
    List,
}

/// Runs the subcommand.
pub async fn run(command: SkillCommand) -> Result<ExitCode> {
    let SkillCommand::List = command;
    let ws = super::open_workspace().await?;
    let visible: Vec<&str> = ws
        .skills
        .visible(&ws.rules)
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    if ws.skills.is_empty() {
        outln!("no skills found");
    }
    for skill in ws.skills.list() {
        let state = if visible.contains(&skill.name.as_str()) {
            ""
        } else {
            "  (denied by the permission rules)"
        };
        // Names and descriptions come from files and plugins: one line each, inert.
        outln!(
            "{}  {}{state}",
            inert_line(&skill.name),
            inert_line(&skill.description)
        );
        match &skill.plugin {
            Some(plugin) => outln!("    plugin {}", inert_line(plugin)),
            None => outln!(
                "    {} ({})",
                inert_line(&skill.file.display().to_string()),
                skill.source.scope.as_str()
            ),
        }
    }
    Ok(ExitCode::SUCCESS)
}
