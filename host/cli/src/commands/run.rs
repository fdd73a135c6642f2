//! `ward run "prompt"`: one prompt through the agent loop, streaming the answer and the
//! tool calls to the terminal (or, with `--format json`, every event as a JSON line).

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use tokio::sync::broadcast;
use ward_agent::{AgentInfo, AgentRegistry};
use ward_command::CommandInfo;
use ward_config::LoadedConfig;
use ward_permission::PermissionEvent;
use ward_prompt::EnvironmentAhead;
use ward_provider::RetryPolicy;
use ward_session::{Addressee, RecordedPrompt, Runner};
use ward_store::{Event, ModelRef, Session, SqliteStore, Store};
use ward_term::{eoutln, outln};

use crate::printer::{Format, Printer};
use crate::prompt::spawn_answerer;
use crate::setup::{Settings, Workspace, primary_agent};
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
    /// The bus from before the first prompt was stored, for the printer.
    pub events: broadcast::Receiver<Event>,
    /// The first prompt, stored, for [`crate::slash::prompt_recorded`].
    pub first: Option<RecordedPrompt>,
}

impl CliLoop {
    /// Loads the workspace, the model, the store (recovering it), the session and the
    /// tools. `first`, the prompt about to be sent, is stored with its session as soon
    /// as the configuration is read — before the plugins load, which can take seconds —
    /// so a process killed meanwhile leaves the prompt in the session (when its agent
    /// is one only a plugin declares, it is stored once the plugins have loaded). When
    /// `first` runs a command naming a primary agent or a model, those are used unless
    /// `args` chose otherwise.
    pub async fn open(args: &LoopArgs, first: Option<&str>) -> Result<CliLoop> {
        let cwd = std::env::current_dir()?;
        let settings = Settings::load(&cwd)?;
        // Git status and the file tree, for the first system prompt, are read while
        // the store opens and the plugins load.
        let environment = Arc::new(EnvironmentAhead::start(
            settings.config.project_root.clone(),
        ));
        let command = first
            .and_then(|p| settings.commands.resolve(p))
            .map(|(c, _)| c.clone());
        let store = open_store(true)?;
        // The plugins' `event` hooks see what is stored before they are loaded too.
        let hook_events = store.bus().subscribe();
        let early = early_addressee(&settings, args, command.as_ref());
        let early_session = match (&args.session, &early) {
            (Some(id), _) => Some(
                store
                    .get_session(id)
                    .with_context(|| format!("session {id}"))?,
            ),
            (None, Some(to)) => Some(new_session(&store, &settings.config, &to.agent)?),
            (None, None) => None,
        };
        // Subscribed once the session exists, as the printer always was.
        let early_events = early_session.as_ref().map(|_| store.bus().subscribe());
        let early_first = match (first, &early_session, early) {
            (Some(text), Some(session), Some(to)) => Some(RecordedPrompt::store(
                store.as_ref(),
                &session.id,
                to,
                text,
            )?),
            _ => None,
        };

        // The slow part: plugins discovered, compiled and asked what they declare.
        let mut ws = Workspace::load(settings).await?;
        ws.environment_ahead = Some(environment);
        ws.warn_discovery_errors();
        let agent = ws
            .primary_agent(wanted_agent(args, command.as_ref(), &ws.agents))?
            .clone();
        let choice = model_choice(args, command.as_ref(), &agent);
        let model = crate::model_setup::resolve(&ws.config, choice)?;
        // Detached on purpose: it ends with the process, after the loop's last event.
        let _ = ward_session::event_hooks::forward_events(
            hook_events,
            ws.host.clone(),
            &ws.config.project_root,
        );
        let session = match early_session {
            // Created before a plugin declared the agent that leads it.
            Some(s) if args.session.is_none() && s.agent != agent.name => {
                store.update_session(&Session {
                    agent: agent.name.clone(),
                    ..s
                })?
            }
            Some(s) => s,
            None => new_session(&store, &ws.config, &agent.name)?,
        };
        // The session's own rules (stored with it) are its top layer.
        let rules = ws.session_rules_for(&agent, &session.permission);
        let events = early_events.unwrap_or_else(|| store.bus().subscribe());
        let (engine, asks) = ws.permission_engine(store.clone());
        let retry = retry_policy(args, &ws.config.config.retry);
        let ws = Arc::new(ws);
        let subagents =
            CliSubagents::new(ws.clone(), store.clone(), engine.clone(), &model, &retry);
        let mut runner = subagents.runner_for(&agent, rules, model).await;
        runner.steps = args.steps.or(agent.steps);
        runner.user_system = args.system.clone();
        let first = match (early_first, first) {
            (Some(recorded), _) => Some(recorded),
            (None, Some(text)) => Some(runner.record(&session, text)?),
            (None, None) => None,
        };
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
            events,
            first,
        })
    }
}

/// A new session in the project, led by `agent`.
fn new_session(store: &SqliteStore, config: &LoadedConfig, agent: &str) -> Result<Session> {
    let session = Session::new(config.project_root.to_string_lossy(), agent);
    store.create_session(&session)?;
    Ok(session)
}

/// The agent asked for: `--agent`, else the agent of the command being run if it is
/// a primary one in `agents` (a subtask's agent runs the child session, not this one).
fn wanted_agent<'a>(
    args: &'a LoopArgs,
    command: Option<&'a CommandInfo>,
    agents: &AgentRegistry,
) -> Option<&'a str> {
    let command_agent = command
        .filter(|c| !c.subtask)
        .and_then(|c| c.agent.as_deref())
        .filter(|name| agents.get(name).is_some_and(|a| a.is_primary()));
    args.agent.as_deref().or(command_agent)
}

/// `--model`, else the command's model, else the agent's.
fn model_choice<'a>(
    args: &'a LoopArgs,
    command: Option<&'a CommandInfo>,
    agent: &'a AgentInfo,
) -> Option<&'a str> {
    args.model
        .as_deref()
        .or(command.and_then(|c| c.model.as_deref()))
        .or(agent.model.as_deref())
}

/// Who the first prompt is for, from the files alone; `None` when they cannot tell —
/// the agent asked for is unknown to them (a plugin may declare it), or its model
/// does not resolve (the full load reports why). A plugin that changes the agent
/// they name is rare: the runner readdresses the message then.
fn early_addressee(
    settings: &Settings,
    args: &LoopArgs,
    command: Option<&CommandInfo>,
) -> Option<Addressee> {
    let agents = settings.agents_without_components();
    let agent = primary_agent(&agents, wanted_agent(args, command, &agents)).ok()?;
    let choice = model_choice(args, command, agent);
    let model = crate::model_setup::resolve(&settings.config, choice).ok()?;
    Some(Addressee {
        agent: agent.name.clone(),
        model: ModelRef::new(&model.provider, &model.model),
        system: args.system.clone(),
    })
}

/// The retry policy: `--max-retries` attempts, `[retry] connect_seconds` for a server
/// that cannot be reached, the built-in policy for the rest.
fn retry_policy(args: &LoopArgs, config: &ward_config::RetryConfig) -> RetryPolicy {
    let default = RetryPolicy::default();
    RetryPolicy {
        max_attempts: args.max_retries.unwrap_or(default.max_attempts).max(1),
        connect_budget: config
            .connect_seconds
            .map_or(default.connect_budget, Duration::from_secs),
        ..default
    }
}

/// Exit status of a run ended by Ctrl-C, as shells report a SIGINT death.
const INTERRUPTED: u8 = 130;

/// Runs the command.
pub async fn run(args: RunArgs) -> Result<ExitCode> {
    let CliLoop {
        session,
        runner,
        asks,
        commands,
        children,
        events,
        first,
        ..
    } = CliLoop::open(&args.common, Some(&args.prompt)).await?;
    let answerer = spawn_answerer(runner.permissions.clone(), asks, args.common.yes);
    let printer = Printer::start(events, &session.id, args.format);
    let prompt = async {
        match first {
            Some(recorded) => {
                crate::slash::prompt_recorded(&runner, &commands, &session, recorded).await
            }
            None => crate::slash::prompt(&runner, &commands, &session, &args.prompt).await,
        }
    };
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
