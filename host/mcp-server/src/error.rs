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
    /// A non-loopback address without a token.
    #[error(
        "refusing to serve MCP on {hostname} without a token: anyone who can reach it could \
         run the tools here; set WARD_MCP_TOKEN (or bind 127.0.0.1)"
    )]
    TokenRequired {
        /// The address asked for.
        hostname: String,
    },
    /// The token given is too short to resist guessing.
    #[error("the MCP server token must be at least {min} characters")]
    WeakToken {
        /// The least length.
        min: usize,
    },
    /// The address could not be bound.
    #[error("cannot listen on {address}: {source}")]
    Bind {
        /// `host:port`.
        address: String,
        /// Why.
        source: std::io::Error,
    },
    /// The HTTP server failed while running.
    #[error("serving: {0}")]
    Serve(std::io::Error),
}
