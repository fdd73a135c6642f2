//! `ward`: the command-line entry point.

mod builtins;
mod commands;
mod printer;
mod prompt;
mod question;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use ward_term::eoutln;

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
    /// Serve the project over HTTP: OpenCode's API, an event stream, a web page.
    Serve(commands::serve::ServeArgs),
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
    /// The Model Context Protocol: serve Ward's tools to MCP clients (`serve`); the MCP
    /// servers Ward uses, their status and tools (`list`, `add`, `remove`).
    Mcp {
        #[command(subcommand)]
        command: commands::mcp::McpCommand,
    },
    /// Inspect the merged configuration (`show`: each value with the file and line that set it).
    Config {
        #[command(subcommand)]
        command: commands::config::ConfigCommand,
    },
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
    /// Serve the Agent Client Protocol on stdin/stdout, for editors (Zed, JetBrains,
    /// Neovim).
    Acp(commands::acp::AcpArgs),
    /// Review what this project's own files ask for (MCP servers, plugins, sandbox
    /// changes, endpoints for your keys…) and trust it, or keep it restricted.
    Trust(commands::trust::TrustArgs),
}

fn main() -> ExitCode {
    // A sandbox server first: it must still be single-threaded to enter a new user
    // namespace, and it needs nothing else `ward` sets up.
    if let Some(status) = ward_sandbox::dispatch() {
        return ExitCode::from(u8::try_from(status).unwrap_or(u8::MAX));
    }
    // Log records carry plugin and server text: they are rendered inert on the way
    // out, so the logger's own colours are off (they would be escaped too).
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("WARD_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(|| ward_term::InertStderr)
        .with_ansi(false)
        .init();
    inert_panics();
    let cli = Cli::parse();
    let runtime = match runtime_for(&cli.command).enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eoutln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Some(Command::Run(args)) => commands::run::run(args).await,
            Some(Command::Serve(args)) => commands::serve::run(args).await,
            Some(Command::Session { command }) => commands::session::run(command).await,
            Some(Command::Tool { command }) => commands::tool::run(command).await,
            Some(Command::Plugin { command }) => commands::plugin::run(command).await,
            Some(Command::Permission { command }) => commands::permission::run(command).await,
            Some(Command::Config { command }) => commands::config::run(command),
            Some(Command::Mcp { command }) => commands::mcp::run(command).await,
            Some(Command::Models(args)) => commands::models::run(args),
            Some(Command::Skill { command }) => commands::skill::run(command).await,
            Some(Command::Agent { command }) => commands::agent::run(command).await,
            Some(Command::Slash { command }) => commands::command::run(command).await,
            Some(Command::Acp(args)) => commands::acp::run(args).await,
            Some(Command::Trust(args)) => commands::trust::run(args),
            None => commands::chat::run(cli.chat).await,
        }
    });
    match result {
        Ok(code) => code,
        Err(e) => {
            eoutln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The async runtime a command runs on. `ward mcp serve` over standard input and output
/// answers one client whose requests are mostly short: on one thread a request never
/// waits for a sleeping worker to be woken (the round trip of a no-op call was mostly
/// such wake-ups, `scripts/bench-mcp-serve.py`); blocking work still goes to the
/// blocking pool. `ward serve` runs its sessions' loops on workers below the API's
/// priority. Everything else may run calls in parallel, on every core.
fn runtime_for(command: &Option<Command>) -> tokio::runtime::Builder {
    match command {
        Some(Command::Mcp {
            command: commands::mcp::McpCommand::Serve(args),
        }) if args.over_stdio() => tokio::runtime::Builder::new_current_thread(),
        Some(Command::Serve(_)) => {
            // The loops run on these workers; the API on a thread of its own that
            // keeps the default priority (see ward_server::priority).
            let mut runtime = tokio::runtime::Builder::new_multi_thread();
            runtime.on_thread_start(ward_server::priority::lower_for_loops);
            runtime
        }
        _ => tokio::runtime::Builder::new_multi_thread(),
    }
}

/// A panic's message may quote untrusted text: it is printed inert, like the rest.
fn inert_panics() {
    std::panic::set_hook(Box::new(|info| {
        eoutln!("{info}");
        let trace = std::backtrace::Backtrace::capture();
        if trace.status() == std::backtrace::BacktraceStatus::Captured {
            eoutln!("{trace}");
        }
    }));
}
