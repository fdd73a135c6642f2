//! What runs beside the project's sessions, as OpenCode's terminal UI asks for it when
//! it opens: the MCP servers (`GET /mcp`), the language servers (`GET /lsp`), the
//! formatters (`GET /formatter`) and the providers' sign-in methods
//! (`GET /provider/auth`).
//!
//! Ward runs no language servers or formatters, and signs in to no provider (keys come
//! from the configuration and the environment): those lists are empty because there is
//! nothing in them, which is what they say.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;
use ward_protocol::McpState;

use crate::App;

/// One MCP server's status (OpenCode's `MCPStatus`).
#[derive(Serialize, ToSchema)]
pub struct McpStatusOut {
    /// `connected`, `disabled` or `failed` (a server still starting after its
    /// timeout is reported as failed, with why).
    status: &'static str,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// The project's MCP servers (`[mcp.NAME]`), by name, once each has started or failed.
#[utoipa::path(get, path = "/mcp", tag = "mcp",
    responses((status = 200, body = BTreeMap<String, McpStatusOut>)))]
pub async fn mcp(State(app): State<App>) -> Json<BTreeMap<String, McpStatusOut>> {
    let servers = app.engine.mcp_servers().await;
    Json(
        servers
            .into_iter()
            .map(|server| {
                let (status, error) = match server.state {
                    McpState::Connected => ("connected", None),
                    McpState::Disabled => ("disabled", None),
                    McpState::Failed(why) => ("failed", Some(why)),
                    McpState::Starting => ("failed", Some("it has not started".to_string())),
                };
                (server.name, McpStatusOut { status, error })
            })
            .collect(),
    )
}

/// A language server's status (OpenCode's `LSPStatus`).
#[derive(Serialize, ToSchema)]
pub struct LspStatusOut {
    /// Its id.
    id: String,
    /// Its name.
    name: String,
    /// The root it serves.
    root: String,
    /// `connected` or `error`.
    status: String,
}

/// The language servers running: none (Ward starts none).
#[utoipa::path(get, path = "/lsp", tag = "lsp",
    responses((status = 200, body = Vec<LspStatusOut>)))]
pub async fn lsp() -> Json<Vec<LspStatusOut>> {
    Json(Vec::new())
}

/// A formatter's status (OpenCode's `FormatterStatus`).
#[derive(Serialize, ToSchema)]
pub struct FormatterStatusOut {
    /// Its name.
    name: String,
    /// The file extensions it formats.
    extensions: Vec<String>,
    /// Whether it runs.
    enabled: bool,
}

/// The formatters run after edits: none (Ward runs none).
#[utoipa::path(get, path = "/formatter", tag = "formatter",
    responses((status = 200, body = Vec<FormatterStatusOut>)))]
pub async fn formatter() -> Json<Vec<FormatterStatusOut>> {
    Json(Vec::new())
}

/// A way to sign in to a provider (OpenCode's `ProviderAuthMethod`).
#[derive(Serialize, ToSchema)]
pub struct AuthMethodOut {
    /// `oauth` or `api`.
    #[serde(rename = "type")]
    kind: String,
    /// What it is called.
    label: String,
}

/// The providers' sign-in methods, by provider: none (Ward takes keys from its
/// configuration and the environment, never through the API).
#[utoipa::path(get, path = "/provider/auth", tag = "provider",
    responses((status = 200, body = BTreeMap<String, Vec<AuthMethodOut>>)))]
pub async fn provider_auth() -> Json<BTreeMap<String, Vec<AuthMethodOut>>> {
    Json(BTreeMap::new())
}
