//! `ward mcp serve`: Ward's tools served to any client of the
//! [Model Context Protocol](https://modelcontextprotocol.io) (Claude Code, Codex,
//! Goose, OpenCode, an IDE, …), over standard input and output or streamable HTTP.
//!
//! The server only translates: each `tools/call` runs through the same path as a
//! call from Ward's own loop or `ward tool call` (name checks, argument checks
//! against the schema, the `tool.execute.before/after` hooks, the permission rules
//! of the directory served, the sandboxed call under the plugin's grants and limits,
//! truncation), in the project's [`ward_engine::Engine`].
//!
//! | MCP | Ward |
//! |---|---|
//! | `tools/list` | the installed plugins' tools (with `--standard-tools`, the standard ones too); schema, title, read-only hint from the manifest, output schema |
//! | `tools/call` | `ward_engine::DirectCalls::call` (the path a loop's call takes); output as text and as structured content (`title`, `output`, `metadata`) |
//! | an `ask` rule | an elicitation when the client declared it (a request on a handshake-era connection, an `input_required` result on a 2026-07-28 one), else the configured [`AskFallback`] |
//! | `notifications/tools/list_changed` | a plugin installed or removed (the plugin directories are watched) |
//!
//! The pieces: [`catalog`] (the tools as MCP sees them), [`project`] (the opened
//! project, reloaded when its plugins change), [`asks`] (permission questions during
//! a call), [`handler`] (the MCP requests), [`stdio`] and [`http`] (the transports),
//! [`error`].

pub mod asks;
pub mod catalog;
pub mod error;
pub mod handler;
pub mod http;
pub mod project;
pub mod stdio;

use std::sync::Arc;

pub use error::McpServeError;
pub use handler::WardMcp;
pub use http::{HttpOptions, Ready, serve_http};

/// What to do with a permission `ask` when the client cannot be asked (it did not
/// declare the elicitation capability).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AskFallback {
    /// Refuse the call (the default: nobody agreed to it).
    #[default]
    Deny,
    /// Allow it once. Never for what needs a person (a change to Ward's
    /// configuration, a command leaving the sandbox): those are refused.
    Allow,
}

/// How the tools are served, whatever the transport.
#[derive(Clone)]
pub struct ServeOptions {
    /// Opens the project (the frontend's engine options: its built-in plugins).
    pub engine: Arc<dyn Fn() -> ward_engine::EngineOptions + Send + Sync>,
    /// Offer the standard tools (`read`, `bash`, …) too, not only the installed
    /// plugins'.
    pub standard_tools: bool,
    /// The agent whose permission rules apply.
    pub agent: String,
    /// What an `ask` becomes for a client that cannot be asked.
    pub ask_fallback: AskFallback,
    /// How often the plugin directories are looked at for installs and removals.
    pub watch_every: std::time::Duration,
}

impl ServeOptions {
    /// Options serving the project `engine` opens, under the `build` agent's rules.
    pub fn new(engine: Arc<dyn Fn() -> ward_engine::EngineOptions + Send + Sync>) -> Self {
        ServeOptions {
            engine,
            standard_tools: false,
            agent: "build".to_string(),
            ask_fallback: AskFallback::Deny,
            watch_every: std::time::Duration::from_millis(500),
        }
    }
}

/// Serves MCP on standard input and output until the client closes its end.
pub async fn serve_stdio(options: ServeOptions) -> Result<(), McpServeError> {
    let server = handler::Server::start(options).await?;
    let result = stdio::serve_stdio(server.clone()).await;
    server.close().await;
    result
}
