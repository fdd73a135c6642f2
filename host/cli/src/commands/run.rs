//! `ward run "prompt"`: one prompt through the agent loop, streaming the answer and the
//! tool calls to the terminal (or, with `--format json`, every event as a JSON line).

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Args;
use tokio::sync::broadcast;
use ward_permission::PermissionEvent;
use ward_session::Runner;
use ward_store::{Session, SqliteStore, Store};
use ward_term::{eoutln, outln};

use crate::printer::{Format, Printer};
use crate::prompt::spawn_answerer;
use crate::setup::Workspace;
use crate::slash::Commands;
use crate::subagents::CliSubagents;
use ward_session::task::ChildLoops;

/// What every command that runs the loop takes.
#[derive(Args, Clone)]
pub struct LoopArgs {
    /// The agent (a primary one); default: `default_agent` from ward.toml, else `build`.
    #[arg(long)]
    pub agent: Option<String>,
    /// `provider/model`; default: `model` from ward.toml.
    #[arg(long)]
    pub model: Option<String>,
    /// Continue this session instead of starting a new one.
    #[arg(long)]
    pub session: Option<String>,
    /// Answer every permission question with "yes, once".
    #[arg(long)]
    pub yes: bool,
    /// At most this many model calls per prompt.
    #[arg(long)]
    pub steps: Option<u32>,
    /// Attempts per model call before a retryable error is given up on (default 8).
    #[arg(long)]
    pub max_retries: Option<u32>,
    /// Extra system text for every prompt, sent after the rest of the system prompt.
    #[arg(long)]
    pub system: Option<String>,
}

/// `ward run` arguments.
#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub common: LoopArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
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

/// A loop ready to take prompts in one session, for `ward run` and the interactive mode.
pub struct CliLoop {
    /// The store.
    pub store: Arc<SqliteStore>,
    /// The session prompts go to.
    pub session: Session,
    /// The runner.
    pub runner: Arc<Runner>,
    /// Where permission asks are published.
    pub asks: broadcast::Receiver<PermissionEvent>,
    /// The commands `/name args` prompts run.
    pub commands: Arc<Commands>,
    /// The subagent loops the `task` tool started.
    pub children: ChildLoops,
}

impl CliLoop {
    /// Loads the workspace, the model, the store (recovering it), the session and the
    /// tools. When `first` (the prompt about to be sent) runs a command naming a
    /// primary agent or a model, those are used unless `args` chose otherwise.
    pub async fn open(args: &LoopArgs, first: Option<&str>) -> Result<CliLoop> {
        let cwd = std::env::current_dir()?;
        let ws = Workspace::open(&cwd).await?;
        ws.warn_discovery_errors();
        let command = first
            .and_then(|p| ws.commands.resolve(p))
            .map(|(c, _)| c.clone());
        // A subtask command's agent runs the child session, not this one.
        let command_agent = command
            .as_ref()
            .filter(|c| !c.subtask)
            .and_then(|c| c.agent.as_deref())
            .filter(|name| ws.agents.get(name).is_some_and(|a| a.is_primary()));
        let wanted = args.agent.as_deref().or(command_agent);
        let agent = ws.primary_agent(wanted)?.clone();
        let rules = ws.rules_for(&agent);
        let choice = args
            .model
            .as_deref()
            .or(command.as_ref().and_then(|c| c.model.as_deref()))
            .or(agent.model.as_deref());
        let model = crate::model_setup::resolve(&ws.config, choice)?;
        let store = open_store(true)?;
        // Detached on purpose: it ends with the process, after the loop's last event.
        let _ = ward_session::event_hooks::forward_events(
            store.bus().subscribe(),
            ws.host.clone(),
            &ws.config.project_root,
        );
        let session = match &args.session {
            Some(id) => store
                .get_session(id)
                .with_context(|| format!("session {id}"))?,
            None => {
                let s = Session::new(ws.config.project_root.to_string_lossy(), &agent.name);
                store.create_session(&s)?;
                s
            }
        };
        let (engine, asks) = ws.permission_engine(store.clone());
        let retry = ward_provider::RetryPolicy {
            max_attempts: args.max_retries.unwrap_or(8).max(1),
            ..ward_provider::RetryPolicy::default()
        };
        let ws = Arc::new(ws);
        let subagents =
            CliSubagents::new(ws.clone(), store.clone(), engine.clone(), &model, &retry);
        let mut runner = subagents.runner_for(&agent, rules, model).await;
        runner.steps = args.steps.or(agent.steps);
        runner.user_system = args.system.clone();
        let commands = Commands {
            agents: ws.agents.list().map(|a| a.name.clone()).collect(),
            subagents: ws.agents.subagents().map(|a| a.name.clone()).collect(),
            registry: ws.commands.clone(),
        };
        Ok(CliLoop {
            store,
            session,
            runner: Arc::new(runner),
            asks,
            commands: Arc::new(commands),
            children: subagents.children.clone(),
        })
    }
}

/// Exit status of a run ended by Ctrl-C, as shells report a SIGINT death.
const INTERRUPTED: u8 = 130;

/// Runs the command.
pub async fn run(args: RunArgs) -> Result<ExitCode> {
    let CliLoop {
        store,
        session,
        runner,
        asks,
        commands,
        children,
    } = CliLoop::open(&args.common, Some(&args.prompt)).await?;
    let answerer = spawn_answerer(runner.permissions.clone(), asks, args.common.yes);
    let printer = Printer::start(store.bus().subscribe(), &session.id, args.format);
    let prompt = crate::slash::prompt(&runner, &commands, &session, &args.prompt);
    tokio::pin!(prompt);
    let outcome = tokio::select! {
        outcome = &mut prompt => outcome,
        _ = tokio::signal::ctrl_c() => {
            // The loop closes what was running as aborted; its outcome says so.
            runner.abort(&session.id);
            let outcome = prompt.await;
            // Subagents close their own messages as aborted: let them finish.
            children.settle(std::time::Duration::from_secs(5)).await;
            outcome
        }
    };
    printer.finish().await;
    answerer.abort();
    match outcome {
        Ok(last) => {
            if args.format == Format::Text {
                outln!();
                let t = &last.tokens;
                let used = t.input + t.cache.read + t.cache.write + t.output;
                match runner.usable() {
                    Some(usable) => eoutln!(
                        "context {used} of {usable} tokens ({}%)",
                        used * 100 / usable.max(1)
                    ),
                    None => eoutln!("context {used} tokens"),
                }
                eoutln!("session {}", session.id);
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(ward_session::LoopError::Aborted) => {
            eoutln!("\naborted");
            eoutln!("session {}", session.id);
            Ok(ExitCode::from(INTERRUPTED))
        }
        Err(e) => {
            eoutln!("error: {e}");
            eoutln!("session {}", session.id);
            Ok(ExitCode::FAILURE)
        }
    }
}
