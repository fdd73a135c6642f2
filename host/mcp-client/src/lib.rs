//! Ward as an MCP client: the servers configured in `[mcp.NAME]`, their tools offered
//! to the model as `NAME_tool` host tools (so they pass through the same permission
//! rules, hooks, truncation and doom-loop check as every other tool).
//!
//! - [`McpClients`] ([`manager`]): every configured server, started in the background
//!   and in parallel when the project opens; its tools are awaited (within each
//!   server's timeout) only when a tool list is needed. A [`ward_session::ToolSource`],
//!   so a server's `notifications/tools/list_changed` changes the tools on offer in a
//!   running session (a flood of them coalesced into one listing: `changes`). Two
//!   servers whose tools would be offered under the same name both lose that name,
//!   and both are reported.
//! - [`server`]: one server's life: connecting, listing tools (a tool whose schema is
//!   unusable is left out and reported), calls bounded by the timeout (cancelled with
//!   `notifications/cancelled` when it passes), its status and problems.
//! - [`confine`]: how a local server is confined by the process sandbox: what it may
//!   read and write, its network, its environment; [`installed`]: which files are
//!   its own installation (its package, never the prefix or project around it).
//! - [`stdio`]: JSON-RPC lines on a confined process's standard streams, where what is
//!   not JSON-RPC or too large is reported, not silently dropped.
//! - [`http`]: the streamable HTTP transport, over Ward's own `reqwest`;
//!   [`legacy_sse`]: the HTTP+SSE transport older servers speak, tried second.
//! - [`tool`]: an MCP tool as a [`ward_session::HostTool`].
//! - [`prompts`]: a server's prompts as slash commands (`/SERVER:PROMPT args`).
//! - [`names`]: tool names as OpenCode spells them.

mod call;
mod changes;
pub mod confine;
mod connect;
pub mod http;
pub mod installed;
pub mod legacy_sse;
pub mod manager;
pub mod names;
pub mod prompts;
pub mod server;
pub mod stdio;
pub mod tool;

pub use manager::{McpClients, McpContext};
pub use server::{ServerStatus, Status};

/// Why an MCP server could not be used.
#[derive(Debug, Clone, thiserror::Error)]
pub enum McpError {
    /// The server could not be started or connected to.
    #[error("MCP server `{server}` failed to start: {reason}")]
    Start {
        /// The server's name.
        server: String,
        /// What went wrong.
        reason: String,
    },
    /// The server did not answer in time.
    #[error("MCP server `{server}` did not answer {what} within {ms} ms")]
    Timeout {
        /// The server's name.
        server: String,
        /// What was asked.
        what: String,
        /// The timeout.
        ms: u64,
    },
    /// The connection ended (the process exited, was killed, or closed its output).
    #[error("MCP server `{server}` is not running: {reason}")]
    Closed {
        /// The server's name.
        server: String,
        /// What is known of why.
        reason: String,
    },
    /// The server answered with an error or something that is not an answer.
    #[error("MCP server `{server}`: {message}")]
    Protocol {
        /// The server's name.
        server: String,
        /// What it said or did.
        message: String,
    },
    /// The server is disabled in the configuration.
    #[error("MCP server `{server}` is disabled (`enabled = false`)")]
    Disabled {
        /// The server's name.
        server: String,
    },
}
