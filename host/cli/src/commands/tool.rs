//! `ward tool call NAME JSON` runs one tool the way the agent loop would: argument
//! checks, the permission rules (asking on the terminal), the sandboxed call. `ward tool
//! list` shows every tool with its parameters.

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;
use ward_plugin::CallScope;
use ward_store::Store;
use ward_term::{eoutln, inert_line, outln};

use crate::prompt::spawn_answerer;
use ward_engine::Workspace;

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
    let ws = Workspace::open(&crate::builtins::engine_options(cwd.clone())).await?;
    super::warn(&ws.discovery_errors);
    match command {
        ToolCommand::List => {
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
        } => call(&ws, yes, json, &agent, &name, &args).await,
    }
}

async fn call(
    ws: &Workspace,
    yes: bool,
    json: bool,
    agent: &str,
    name: &str,
    args: &str,
) -> Result<ExitCode> {
    let rules = ws.rules_for(ws.agents.get(agent).unwrap_or(ws.agents.default_agent()));
    let store = super::run::open_store(false)?;
    let engine = ws.permission_engine(store.clone(), store.bus());
    let answerer = spawn_answerer(engine.clone(), store.bus().subscribe(), yes);
    let scope = CallScope {
        session_id: String::new(),
        message_id: String::new(),
        call_id: String::new(),
        agent: agent.to_string(),
        project: ws.config.project_root.clone(),
        rules: rules.clone(),
        permissions: engine,
        progress: None,
        approved: Default::default(),
    };
    // The same path the agent loop takes: name repair, argument checks, the permission
    // rules, then the sandboxed call.
    let (tools, failed) = ws.tool_box(&rules).await;
    super::warn(&failed);
    let outcome = tools.execute(name, args, scope, &[]).await;
    answerer.abort();

    match outcome {
        Ok(out) => {
            if json {
                let metadata = out.metadata;
                let result = serde_json::json!({ "title": out.title, "output": out.output, "metadata": metadata });
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
