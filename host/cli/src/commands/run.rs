//! `ward run "prompt"`: one prompt through the agent loop, streaming the answer and the
//! tool calls to the terminal (or, with `--format json`, every event as a JSON line).

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use ward_session::{Runner, ToolBox};
use ward_store::{Event, PartKind, Session, SqliteStore, Store, ToolState};

use crate::prompt::spawn_answerer;
use crate::setup::{Workspace, permission_engine};

/// How `ward run` prints.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    /// The answer as text; tool calls as one line each on standard error.
    Text,
    /// Every event as one JSON object per line.
    Json,
}

/// `ward run` arguments.
#[derive(Args)]
pub struct RunArgs {
    /// The agent.
    #[arg(long, default_value = "build")]
    pub agent: String,
    /// `provider/model`; default: `model` from ward.toml.
    #[arg(long)]
    pub model: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Continue this session instead of starting a new one.
    #[arg(long)]
    pub session: Option<String>,
    /// Answer every permission question with "yes, once".
    #[arg(long)]
    pub yes: bool,
    /// At most this many model calls.
    #[arg(long)]
    pub steps: Option<u32>,
    /// Attempts per model call before a retryable error is given up on (default 8).
    #[arg(long)]
    pub max_retries: Option<u32>,
    /// The prompt.
    pub prompt: String,
}

/// Opens the store in the data directory. With `recover`, what a crash left behind is
/// repaired on open (only the agent loop does that: a reader or a single tool call must
/// not mark another process's running tools as interrupted).
pub fn open_store(recover: bool) -> Result<Arc<SqliteStore>> {
    let dir = crate::setup::data_dir()?;
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let options = ward_store::SqliteOptions {
        recover,
        ..ward_store::SqliteOptions::default()
    };
    Ok(Arc::new(SqliteStore::open_with(
        dir.join("ward.db"),
        options,
    )?))
}

/// Runs the command.
pub async fn run(args: RunArgs) -> Result<ExitCode> {
    let cwd = std::env::current_dir()?;
    let ws = Workspace::open(&cwd)?;
    ws.warn_discovery_errors();
    let model = crate::model_setup::resolve(&ws.config, args.model.as_deref())?;
    let store = open_store(true)?;
    let session = match &args.session {
        Some(id) => store
            .get_session(id)
            .with_context(|| format!("session {id}"))?,
        None => {
            let s = Session::new(ws.config.project_root.to_string_lossy(), &args.agent);
            store.create_session(&s)?;
            s
        }
    };
    let (engine, asks) = permission_engine(store.clone());
    let answerer = spawn_answerer(engine.clone(), asks, args.yes);
    let (tools, failed) = ToolBox::load(ws.host.clone(), &ws.rules).await;
    for (plugin, e) in failed {
        eprintln!("warning: {plugin}: {e}");
    }
    let printer = tokio::spawn(print_events(
        store.bus().subscribe(),
        session.id.clone(),
        args.format,
    ));
    let runner = Runner {
        store: store.clone(),
        tools,
        model,
        client: ward_provider::Client::new(),
        permissions: engine,
        rules: ws.rules.clone(),
        project: ws.config.project_root.clone(),
        agent: args.agent.clone(),
        system: crate::system_prompt::blocks(&ws.config.project_root),
        steps: args.steps,
        retry: ward_provider::RetryPolicy {
            max_attempts: args.max_retries.unwrap_or(8).max(1),
            ..ward_provider::RetryPolicy::default()
        },
    };
    let outcome = runner.prompt(&session, &args.prompt).await;
    // Let the printer drain what the loop published before the runtime goes away.
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    printer.abort();
    answerer.abort();
    match outcome {
        Ok(_) => {
            if args.format == Format::Text {
                println!();
                eprintln!("session {}", session.id);
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("error: {e}");
            eprintln!("session {}", session.id);
            Ok(ExitCode::FAILURE)
        }
    }
}

async fn print_events(
    mut events: tokio::sync::broadcast::Receiver<Event>,
    session: String,
    format: Format,
) {
    let mut text_parts = std::collections::HashSet::new();
    loop {
        let event = match events.recv().await {
            Ok(e) => e,
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
            Err(_) => return,
        };
        if format == Format::Json {
            if let Ok(line) = serde_json::to_string(&event) {
                println!("{line}");
            }
            continue;
        }
        match event {
            Event::PartUpdated { part } if part.session_id == session => match &part.kind {
                PartKind::Text(_) => {
                    text_parts.insert(part.id.clone());
                }
                PartKind::Tool(t) => match &t.state {
                    ToolState::Completed { title, .. } => eprintln!("\n[{}] {title}", t.tool),
                    ToolState::Error { error, .. } => {
                        eprintln!(
                            "\n[{}] error: {}",
                            t.tool,
                            error.lines().next().unwrap_or("")
                        )
                    }
                    _ => {}
                },
                _ => {}
            },
            Event::PartDelta { part_id, delta, .. } if text_parts.contains(&part_id) => {
                print!("{delta}");
                let _ = std::io::stdout().flush();
            }
            Event::SessionStatus {
                status:
                    ward_store::SessionStatus::Retry {
                        attempt, message, ..
                    },
                ..
            } => {
                eprintln!("\nretrying (attempt {attempt}): {message}");
            }
            _ => {}
        }
    }
}
