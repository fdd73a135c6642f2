//! `ward tool call NAME JSON` runs one tool the way the agent loop would: argument
//! checks, the permission rules (asking on the terminal), the sandboxed call. `ward tool
//! list` shows every tool with its parameters.

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Subcommand;
use ward_permission::AskRequest;
use ward_plugin::tool_rules;
use ward_plugin::{CallError, CallScope};

use crate::prompt::spawn_answerer;
use crate::setup::{Workspace, permission_engine};

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
    let ws = Workspace::open(&cwd)?;
    ws.warn_discovery_errors();
    match command {
        ToolCommand::List => {
            let (tools, failed) = ws.host.all_tools().await;
            for (plugin, tool) in tools {
                println!(
                    "{}  (plugin {})\n  {}\n  parameters: {}\n",
                    tool.name,
                    plugin.name(),
                    first_line(&tool.description),
                    tool.parameters
                );
            }
            for (plugin, e) in failed {
                eprintln!("warning: {plugin}: {e}");
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
    let value: serde_json::Value = match serde_json::from_str(args) {
        Ok(v @ serde_json::Value::Object(_)) => v,
        Ok(_) => bail!("invalid arguments for `{name}`: expected a JSON object"),
        Err(e) => bail!("invalid arguments for `{name}`: not valid JSON: {e}"),
    };
    let (engine, events) = permission_engine(super::run::open_store()?);
    let answerer = spawn_answerer(engine.clone(), events, yes);
    let project = ws.config.project_root.clone();
    let scope = CallScope {
        session_id: String::new(),
        message_id: String::new(),
        call_id: String::new(),
        agent: agent.to_string(),
        project: project.clone(),
        rules: ws.rules.clone(),
        permissions: engine.clone(),
        progress: None,
        approved: Default::default(),
    };

    let outcome = async {
        let (plugin, _info) = ws.host.find_tool(name).await?;
        for need in tool_rules::needs(name, &value, &project) {
            // Once approved here, the plugin's own file accesses for the same need are
            // not asked about again.
            let approved: Vec<(String, String)> = need
                .patterns
                .iter()
                .map(|p| (need.permission.clone(), p.clone()))
                .collect();
            let request = AskRequest {
                session_id: String::new(),
                project: project.to_string_lossy().into_owned(),
                agent: agent.to_string(),
                permission: need.permission,
                patterns: need.patterns,
                always: need.always,
                metadata: value.clone(),
                call_id: None,
            };
            engine
                .check(request, &ws.rules)
                .await
                .map_err(|e| CallError::Permission(e.to_string()))?;
            if let Ok(mut list) = scope.approved.lock() {
                list.extend(approved);
            }
        }
        ws.host.call(&plugin, name, args, scope).await
    }
    .await;
    answerer.abort();

    match outcome {
        Ok(out) => {
            if json {
                let metadata: serde_json::Value =
                    serde_json::from_str(&out.metadata).unwrap_or(serde_json::Value::Null);
                println!(
                    "{}",
                    serde_json::json!({ "title": out.title, "output": out.output, "metadata": metadata })
                );
            } else {
                println!("{}", out.output);
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("error: {e}");
            Ok(ExitCode::FAILURE)
        }
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}
