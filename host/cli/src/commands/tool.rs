//! `ward tool call NAME JSON` runs one tool the way the agent loop would: argument
//! checks, the permission rules (asking on the terminal), the sandboxed call. `ward tool
//! list` shows every tool with its parameters.

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;
use ward_engine::{CallIds, Engine, Workspace};
use ward_term::{eoutln, inert_line, outln};

use crate::prompt::spawn_answerer;

/// `ward tool …`
#[derive(Subcommand)]
pub enum ToolCommand {
    /// Run one tool in the current project.
    Call {
        /// Answer every permission question with "yes, once".
        #[arg(long)]
        yes: bool,
        /// Print the whole result (title, output, metadata) as JSON.
        #[arg(long)]
        json: bool,
        /// The agent whose rules apply.
        #[arg(long, default_value = "build")]
        agent: String,
        /// The tool's name.
        name: String,
        /// Its arguments, a JSON object.
        args: String,
    },
    /// List the available tools.
    List,
}

/// Runs the subcommand.
pub async fn run(command: ToolCommand) -> Result<ExitCode> {
    let cwd = std::env::current_dir()?;
    match command {
        ToolCommand::List => {
            let ws = Workspace::open(&crate::builtins::engine_options(cwd)).await?;
            super::warn(&ws.discovery_errors);
            let (tools, failed) = ws.host.all_tools().await;
            for (plugin, tool) in tools {
                // The name, description and schema are the plugin's words.
                outln!(
                    "{}  (plugin {})\n  {}\n  parameters: {}\n",
                    inert_line(&tool.name),
                    inert_line(plugin.name()),
                    inert_line(first_line(&tool.description)),
                    inert_line(&tool.parameters),
                );
            }
            for (plugin, e) in failed {
                eoutln!("warning: {}: {e}", inert_line(&plugin));
            }
            // MCP servers' tools, once each server has started (or failed, said here).
            for e in ws.mcp.ready().await {
                eoutln!("warning: {}", inert_line(&e));
            }
            for server in ws.mcp.statuses() {
                for (name, description) in &server.tools {
                    let schema = ward_session::ToolSource::tools(ws.mcp.as_ref())
                        .into_iter()
                        .find(|t| t.name() == name)
                        .map(|t| t.spec().parameters.to_string())
                        .unwrap_or_default();
                    outln!(
                        "{}  (mcp {})\n  {}\n  parameters: {}\n",
                        inert_line(name),
                        inert_line(&server.name),
                        inert_line(first_line(description)),
                        inert_line(&schema),
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        ToolCommand::Call {
            yes,
            json,
            agent,
            name,
            args,
        } => call(cwd, yes, json, &agent, &name, &args).await,
    }
}

async fn call(
    cwd: std::path::PathBuf,
    yes: bool,
    json: bool,
    agent: &str,
    name: &str,
    args: &str,
) -> Result<ExitCode> {
    // The engine's own tool box and permission engine: the same path the agent loop
    // takes (name repair, argument checks, the permission rules, the sandboxed call).
    // Another process may be running this project's sessions: nothing is recovered.
    let engine = Engine::open(crate::builtins::engine_options(cwd).recover(false)).await?;
    super::warn(&engine.take_warnings());
    let (tools, failed) = engine.direct_calls(agent).await?;
    super::warn(&failed);
    let answerer = spawn_answerer(engine.clone(), yes);
    let outcome = tools.call(name, args, CallIds::default()).await;
    answerer.abort();

    match outcome {
        Ok(out) => {
            if json {
                let result = serde_json::json!({ "title": out.title, "output": out.output, "metadata": out.metadata });
                // Exact data for a pipe; terminal hazards spelt as JSON escapes.
                outln!("{}", ward_term::json_line(&result)?);
            } else {
                outln!("{}", out.output);
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eoutln!("error: {e}");
            Ok(ExitCode::FAILURE)
        }
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}
