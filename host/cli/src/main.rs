//! `ward`: the command-line entry point.

mod builtins;
mod commands;
mod model_setup;
mod printer;
mod prompt;
mod setup;
mod slash;
mod subagents;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Ward: an AI agent platform whose tools, hooks, agents and skills are sandboxed
/// WebAssembly components.
#[derive(Parser)]
#[command(name = "ward", version, about)]
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Without a command: the interactive mode, one session across prompts.
    #[command(flatten)]
    chat: commands::chat::ChatArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Run one prompt through the agent loop.
    Run(commands::run::RunArgs),
    /// Inspect stored sessions.
    Session {
        #[command(subcommand)]
        command: commands::session::SessionCommand,
    },
    /// Run a single tool, as the agent loop would (for tool authors).
    Tool {
        #[command(subcommand)]
        command: commands::tool::ToolCommand,
    },
    /// Inspect plugins.
    Plugin {
        #[command(subcommand)]
        command: commands::plugin::PluginCommand,
    },
    /// List known models with their limits and prices (bundled catalogue and config).
    Models(commands::models::ModelsArgs),
    /// Inspect permission rules.
    Permission {
        #[command(subcommand)]
        command: commands::permission::PermissionCommand,
    },
    /// Inspect commands (`/name args` prompts).
    #[command(name = "command")]
    Slash {
        #[command(subcommand)]
        command: commands::command::CommandCommand,
    },
    /// Inspect agents.
    Agent {
        #[command(subcommand)]
        command: commands::agent::AgentCommand,
    },
    /// Inspect skills.
    Skill {
        #[command(subcommand)]
        command: commands::skill::SkillCommand,
    },
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("WARD_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Some(Command::Run(args)) => commands::run::run(args).await,
            Some(Command::Session { command }) => commands::session::run(command).await,
            Some(Command::Tool { command }) => commands::tool::run(command).await,
            Some(Command::Plugin { command }) => commands::plugin::run(command).await,
            Some(Command::Permission { command }) => commands::permission::run(command),
            Some(Command::Models(args)) => commands::models::run(args),
            Some(Command::Skill { command }) => commands::skill::run(command).await,
            Some(Command::Agent { command }) => commands::agent::run(command).await,
            Some(Command::Slash { command }) => commands::command::run(command).await,
            None => commands::chat::run(cli.chat).await,
        }
    });
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
