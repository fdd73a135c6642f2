//! Why `ward mcp serve` did not start or stopped.

/// A failure to serve.
#[derive(Debug, thiserror::Error)]
pub enum McpServeError {
    /// The project could not be opened.
    #[error(transparent)]
    Engine(#[from] ward_engine::EngineError),
    /// `--agent` names no agent.
    #[error("no agent `{0}` (see `ward agent list`)")]
    UnknownAgent(String),
    /// The MCP connection could not be set up or failed.
    #[error("mcp: {0}")]
    Start(String),
    /// The token rules or the address refused listening.
    #[error(transparent)]
    Listen(#[from] ward_http_guard::ListenError),
    /// The HTTP server failed while running.
    #[error("serving: {0}")]
    Serve(std::io::Error),
}
