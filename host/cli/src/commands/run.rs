//! `ward run "prompt"`: one prompt through the engine, streaming the answer and the
//! tool calls to the terminal (or, with `--format json`, every event as a JSON line).

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Result;
use clap::Args;
use ward_engine::{Engine, EngineOptions, Opened, PromptRequest};
use ward_store::SqliteStore;
use ward_term::{eoutln, outln};

use crate::printer::{Format, Printer};
use crate::prompt::spawn_answerer;

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
    /// Continue the session of this directory changed most recently.
    #[arg(long = "continue", short = 'c', conflicts_with = "session")]
    pub continue_last: bool,
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
    /// The model variant, e.g. a reasoning effort (`ward models` lists each model's);
    /// default: the agent's `variant`, else none.
    #[arg(long)]
    pub variant: Option<String>,
}

/// `ward run` arguments.
#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub common: LoopArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Attach a file (an image or a PDF) to the prompt; repeatable.
    #[arg(short = 'f', long = "file")]
    pub files: Vec<std::path::PathBuf>,
    /// The prompt.
    pub prompt: String,
}

impl LoopArgs {
    /// The engine's options for the current directory, with `--max-retries`.
    pub fn engine_options(&self) -> Result<EngineOptions> {
        Ok(crate::builtins::engine_options(std::env::current_dir()?).max_retries(self.max_retries))
    }

    /// The session to prompt: `--session ID`, else with `--continue` the last one of
    /// this directory (an error if there is none), else a new one (`None`).
    pub fn session_id(&self) -> Result<Option<String>> {
        if !self.continue_last {
            return Ok(self.session.clone());
        }
        let store = open_store(false)?;
        let project = Engine::project_root_of(&std::env::current_dir()?);
        Ok(Some(
            ward_engine::manage::last_session(&store, &project)?.id,
        ))
    }

    /// `text` as a prompt addressed the way these arguments say.
    pub fn request(&self, text: &str) -> PromptRequest {
        PromptRequest {
            text: text.to_string(),
            agent: self.agent.clone(),
            model: self.model.clone(),
            system: self.system.clone(),
            steps: self.steps,
            variant: self.variant.clone(),
            files: Vec::new(),
            client_files: Vec::new(),
        }
    }
}

/// Opens the store in the data directory. With `recover`, what a crash left behind is
/// repaired on open (only the agent loop does that: a reader or a single tool call must
/// not mark another process's running tools as interrupted).
pub fn open_store(recover: bool) -> Result<Arc<SqliteStore>> {
    Ok(ward_engine::open_store(
        &ward_engine::paths::data_dir()?,
        recover,
    )?)
}

/// Prints what went wrong opening the project without stopping it.
pub fn print_warnings(engine: &Engine) {
    for warning in engine.take_warnings() {
        eoutln!("warning: {warning}");
    }
}

/// How long a finished run waits, at most, for the plugins' `event` hooks to take its
/// last events before the process exits.
pub const HOOK_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Exit status of a run ended by Ctrl-C, as shells report a SIGINT death.
const INTERRUPTED: u8 = 130;

/// Runs the command.
pub async fn run(args: RunArgs) -> Result<ExitCode> {
    let cwd = std::env::current_dir()?;
    let request = PromptRequest {
        files: args.files.iter().map(|f| cwd.join(f)).collect(),
        ..args.common.request(&args.prompt)
    };
    let Opened {
        engine,
        session,
        events,
        prompt,
    } = Engine::open_with_prompt(
        args.common.engine_options()?,
        args.common.session_id()?.as_deref(),
        request,
    )
    .await?;
    print_warnings(&engine);
    // The model's questions wait for an answer only where someone can type one;
    // without a terminal the `question` tool fails at once and the model decides.
    let _questions = std::io::stdin()
        .is_terminal()
        .then(|| engine.question_answerer());
    let answerer = spawn_answerer(engine.clone(), args.common.yes);
    let printer = Printer::start(events, &session.id, args.format);
    let prompt = engine.run(&session, prompt);
    tokio::pin!(prompt);
    let outcome = tokio::select! {
        outcome = &mut prompt => outcome,
        _ = tokio::signal::ctrl_c() => {
            // The loop closes what was running as aborted; its outcome says so.
            engine.abort(&session.id);
            let outcome = prompt.await;
            // Subagents close their own messages as aborted: let them finish.
            engine.settle(std::time::Duration::from_secs(5)).await;
            outcome
        }
    };
    printer.finish().await;
    // What went wrong starting what the run needed (an MCP server) after it opened.
    print_warnings(&engine);
    answerer.abort();
    engine.close(HOOK_GRACE).await;
    match outcome {
        Ok(turn) => {
            if args.format == Format::Text {
                outln!();
                let t = &turn.message.tokens;
                let used = t.input + t.cache.read + t.cache.write + t.output;
                match turn.usable {
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
        Err(e) if e.is_abort() => {
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
