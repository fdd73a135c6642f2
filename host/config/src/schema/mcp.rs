//! `[mcp.NAME]`: the MCP servers whose tools Ward offers, in OpenCode's shape.
//!
//! ```toml
//! [mcp.files]
//! type = "local"
//! command = ["node", "/opt/mcp/server-filesystem/dist/index.js", "."]
//! environment = { LOG_LEVEL = "warn" }
//! grant = ["net:api.example.com"]      # widens the default confinement
//! timeout = 5000                      # milliseconds
//! [mcp.search]
//! type = "remote"
//! url = "https://mcp.example.com/mcp"
//! headers = { Authorization = "Bearer {env:SEARCH_TOKEN}" }
//! enabled = false
//! ```
//!
//! A table is read as a whole and checked for consistency (a local server needs a
//! `command`, a remote one a `url`, `grant` applies to local servers only), so a
//! mistake is reported at the server's table with what is wrong.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::grant::Grant;

/// One `[mcp.NAME]` entry.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(try_from = "RawMcp", into = "RawMcp")]
pub struct McpConfig {
    /// Whether Ward starts (or connects to) the server at all (default `true`).
    pub enabled: bool,
    /// Milliseconds the server may take to start and list its tools, and each
    /// request to it (unset: Ward's defaults).
    pub timeout: Option<u64>,
    /// How the server is reached.
    pub server: McpServer,
}

/// How an MCP server is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpServer {
    /// A process Ward starts (confined), speaking JSON-RPC on its standard streams.
    Local {
        /// Program and arguments.
        command: Vec<String>,
        /// Variables set for it (the only ones beyond the minimal set Ward gives it).
        environment: BTreeMap<String, String>,
        /// Capabilities beyond the default confinement, in the plugin grant
        /// vocabulary (`fs-read:PATH`, `fs-write:PATH`, `net`, `env:VAR`).
        grant: Vec<Grant>,
    },
    /// A server reached over streamable HTTP.
    Remote {
        /// Its endpoint, `http://` or `https://`.
        url: String,
        /// Headers sent with every request.
        headers: BTreeMap<String, String>,
    },
}

/// The `type` of an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
enum McpType {
    Local,
    Remote,
}

/// An entry as written, before its fields are checked against each other.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RawMcp {
    #[serde(rename = "type")]
    kind: McpType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    command: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    environment: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    headers: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    timeout: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    grant: Option<Vec<Grant>>,
}

/// What is inconsistent in one `[mcp.NAME]` table (reported at the table, with the
/// file, line and column, by the config loader).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpEntryError {
    /// `timeout = 0`.
    #[error("`timeout` is in milliseconds and must be at least 1")]
    ZeroTimeout,
    /// A local server with a remote server's fields.
    #[error(
        "`url` and `headers` are for `type = \"remote\"` servers; a local server is started from `command`"
    )]
    RemoteFieldsOnLocal,
    /// A local server without `command`.
    #[error(
        "a `type = \"local\"` server needs `command` (program and arguments, e.g. [\"node\", \"server.js\"])"
    )]
    MissingCommand,
    /// A `command` whose first element is empty.
    #[error("`command` must name a program as its first element")]
    MissingProgram,
    /// A remote server with a local server's fields.
    #[error(
        "`command` and `environment` are for `type = \"local\"` servers; a remote server is reached at `url`"
    )]
    LocalFieldsOnRemote,
    /// `grant` on a remote server.
    #[error("`grant` widens the confinement of a local server; a remote server runs elsewhere")]
    GrantOnRemote,
    /// A remote server without `url`.
    #[error("a `type = \"remote\"` server needs `url`")]
    MissingUrl,
    /// A `url` that is not http(s).
    #[error("`url` must be an http:// or https:// address, found `{0}`")]
    NotHttp(String),
}

impl TryFrom<RawMcp> for McpConfig {
    type Error = McpEntryError;

    fn try_from(raw: RawMcp) -> Result<Self, McpEntryError> {
        if raw.timeout == Some(0) {
            return Err(McpEntryError::ZeroTimeout);
        }
        let server = match raw.kind {
            McpType::Local => {
                if raw.url.is_some() || raw.headers.is_some() {
                    return Err(McpEntryError::RemoteFieldsOnLocal);
                }
                let command = raw.command.ok_or(McpEntryError::MissingCommand)?;
                if command.first().is_none_or(|p| p.trim().is_empty()) {
                    return Err(McpEntryError::MissingProgram);
                }
                McpServer::Local {
                    command,
                    environment: raw.environment.unwrap_or_default(),
                    grant: raw.grant.unwrap_or_default(),
                }
            }
            McpType::Remote => {
                if raw.command.is_some() || raw.environment.is_some() {
                    return Err(McpEntryError::LocalFieldsOnRemote);
                }
                if raw.grant.is_some() {
                    return Err(McpEntryError::GrantOnRemote);
                }
                let url = raw.url.ok_or(McpEntryError::MissingUrl)?;
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(McpEntryError::NotHttp(url));
                }
                McpServer::Remote {
                    url,
                    headers: raw.headers.unwrap_or_default(),
                }
            }
        };
        Ok(McpConfig {
            enabled: raw.enabled.unwrap_or(true),
            timeout: raw.timeout,
            server,
        })
    }
}

impl From<McpConfig> for RawMcp {
    fn from(config: McpConfig) -> Self {
        let mut raw = RawMcp {
            kind: McpType::Local,
            command: None,
            environment: None,
            url: None,
            headers: None,
            enabled: (!config.enabled).then_some(false),
            timeout: config.timeout,
            grant: None,
        };
        match config.server {
            McpServer::Local {
                command,
                environment,
                grant,
            } => {
                raw.command = Some(command);
                raw.environment = (!environment.is_empty()).then_some(environment);
                raw.grant = (!grant.is_empty()).then_some(grant);
            }
            McpServer::Remote { url, headers } => {
                raw.kind = McpType::Remote;
                raw.url = Some(url);
                raw.headers = (!headers.is_empty()).then_some(headers);
            }
        }
        raw
    }
}
