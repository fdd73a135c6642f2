//! `ward mcp serve`: the project's plugin tools to any MCP client, over standard input
//! and output (the default: a client starts `ward mcp serve` as its server command)
//! or streamable HTTP. Everything is in `ward-mcp-server`; this parses the flags and
//! hands it the engine options with the plugins built into this binary.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Result;
use clap::{Args, ValueEnum};
use ward_mcp_server::{AskFallback, HttpOptions, ServeOptions};
use ward_term::{eoutln, outln};

/// The transport.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Transport {
    /// JSON-RPC on standard input and output.
    Stdio,
    /// Streamable HTTP at `http://HOSTNAME:PORT/mcp`.
    Http,
}

/// What an `ask` rule becomes for a client that cannot be asked.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Fallback {
    /// Refuse the call.
    Deny,
    /// Allow it once (never what needs a person: config changes, sandbox escapes).
    Allow,
}

/// `ward mcp serve` arguments.
#[derive(Args)]
pub struct ServeArgs {
    /// How clients connect.
    #[arg(long, value_enum, default_value = "stdio")]
    transport: Transport,
    /// The HTTP port (0: any free one; the address is printed).
    #[arg(long, default_value_t = 4097)]
    port: u16,
    /// The HTTP address. Anything but loopback needs WARD_MCP_TOKEN.
    #[arg(long, default_value = "127.0.0.1")]
    hostname: String,
    /// Serve the standard tools (read, grep, bash, …) too, not only the installed
    /// plugins' tools.
    #[arg(long)]
    standard_tools: bool,
    /// The agent whose permission rules apply.
    #[arg(long, default_value = "build")]
    agent: String,
    /// What a rule that asks becomes when the client cannot show a question (no
    /// elicitation capability).
    #[arg(long, value_enum, default_value = "deny")]
    ask: Fallback,
}

impl ServeArgs {
    /// Whether the client is on standard input and output.
    pub fn over_stdio(&self) -> bool {
        matches!(self.transport, Transport::Stdio)
    }
}

/// Serves until the client disconnects (stdio) or Ctrl-C / SIGTERM (HTTP).
pub async fn run(args: ServeArgs) -> Result<ExitCode> {
    let cwd = std::env::current_dir()?;
    let mut options = ServeOptions::new(Arc::new(move || {
        crate::builtins::engine_options(cwd.clone())
    }));
    options.standard_tools = args.standard_tools;
    options.agent = args.agent;
    options.ask_fallback = match args.ask {
        Fallback::Deny => AskFallback::Deny,
        Fallback::Allow => AskFallback::Allow,
    };
    match args.transport {
        Transport::Stdio => ward_mcp_server::serve_stdio(options).await?,
        Transport::Http => {
            let token = std::env::var("WARD_MCP_TOKEN")
                .ok()
                .filter(|t| !t.is_empty());
            let http = HttpOptions {
                hostname: args.hostname,
                port: args.port,
                token,
                ..HttpOptions::default()
            };
            ward_mcp_server::serve_http(
                options,
                http,
                |ready| outln!("ward mcp serve: listening on {}", ready.url),
                super::serve::shutdown(),
            )
            .await?;
            eoutln!("ward mcp serve: stopping");
        }
    }
    Ok(ExitCode::SUCCESS)
}
