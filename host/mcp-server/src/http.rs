//! The streamable HTTP transport, at `/mcp`. Bound to 127.0.0.1 unless told
//! otherwise; every request passes Ward's HTTP guard first ([`ward_http_guard`], the
//! one `ward serve` uses): a `Host` that is not the bound loopback name and port is
//! refused with 421 (DNS rebinding), a foreign `Origin` with 403, and — on a
//! non-loopback bind, where a token is required, or whenever `WARD_MCP_TOKEN` is set —
//! a request without `Authorization: Bearer <token>` with 401. Bodies are bounded
//! ([`HttpOptions::max_body`], 413 past it).

use std::future::{Future, IntoFuture};
use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::serve::ListenerExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use ward_http_guard::{Guard, Refusal, bracketed, is_loopback};

use crate::handler::Server;
use crate::{McpServeError, ServeOptions};

/// Where and how to listen.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// The address to bind (default `127.0.0.1`).
    pub hostname: String,
    /// The port (0: any free one).
    pub port: u16,
    /// The bearer token clients must send; required for a non-loopback address.
    pub token: Option<String>,
    /// The largest request body, bytes.
    pub max_body: usize,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            hostname: "127.0.0.1".into(),
            port: 0,
            token: None,
            max_body: 4 * 1024 * 1024,
        }
    }
}

/// Where the server listens, once it does.
#[derive(Clone, Debug)]
pub struct Ready {
    /// The MCP endpoint, `http://host:port/mcp`.
    pub url: String,
    /// The address bound.
    pub address: SocketAddr,
}

/// Serves MCP over streamable HTTP until `shutdown` completes; `ready` is called
/// once the address is bound.
pub async fn serve_http(
    options: ServeOptions,
    http: HttpOptions,
    ready: impl FnOnce(&Ready),
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), McpServeError> {
    let loopback = is_loopback(&http.hostname);
    let listener = ward_http_guard::listen(
        &http.hostname,
        http.port,
        http.token.as_deref(),
        "WARD_MCP_TOKEN",
    )?;
    let listener = tokio::net::TcpListener::from_std(listener).map_err(McpServeError::Serve)?;
    let bound = listener.local_addr().map_err(McpServeError::Serve)?;
    // A streamed answer's small writes must not wait for the client's delayed
    // acknowledgement of the one before (Nagle's algorithm: up to 40 ms each).
    let listener = listener.tap_io(|tcp| {
        if let Err(error) = tcp.set_nodelay(true) {
            tracing::debug!(%error, "TCP_NODELAY not set on a connection");
        }
    });
    let server = Server::start(options).await?;
    let guard = Arc::new(Guard::new(
        &http.hostname,
        bound.port(),
        http.token.clone(),
        Vec::new(),
    ));
    // rmcp's own Host check too (defence in depth), at the same names; Origin is
    // left to the guard, which knows the server's own origin and port.
    let hosts: Vec<String> = if loopback {
        ["127.0.0.1", "localhost", "[::1]"]
            .iter()
            .map(|h| format!("{h}:{}", bound.port()))
            .collect()
    } else {
        Vec::new()
    };
    let mut config = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(http.max_body)
        .disable_allowed_origins();
    let stop = config.cancellation_token.clone();
    config = if hosts.is_empty() {
        config.disable_allowed_hosts()
    } else {
        config.with_allowed_hosts(hosts)
    };
    let factory = {
        let server = server.clone();
        move || Ok(server.handler())
    };
    let service =
        StreamableHttpService::new(factory, Arc::new(LocalSessionManager::default()), config);
    let router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn_with_state(guard, check));
    ready(&Ready {
        url: format!("http://{}:{}/mcp", bracketed(&http.hostname), bound.port()),
        address: bound,
    });
    let signal = async move {
        shutdown.await;
        stop.cancel();
    };
    let served = axum::serve(listener, router)
        .with_graceful_shutdown(signal)
        .into_future()
        .await
        .map_err(McpServeError::Serve);
    server.close().await;
    served
}

/// The guard as middleware: a refused request never reaches MCP.
async fn check(State(guard): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    match guard.admit(req.headers(), false) {
        Ok(_) => next.run(req).await,
        Err(refusal) => refused(&refusal),
    }
}

/// The answer to a refused request: a JSON-RPC error object, no id (there is no
/// request to answer yet), with the HTTP status the refusal calls for.
fn refused(refusal: &Refusal) -> Response {
    let (status, message) = match refusal {
        Refusal::HostNotAllowed => (
            StatusCode::MISDIRECTED_REQUEST,
            "this server does not answer to that Host (it answers to the loopback names at its port)"
                .to_string(),
        ),
        Refusal::OriginNotAllowed { origin } => (
            StatusCode::FORBIDDEN,
            format!("requests from pages of {origin} are not allowed"),
        ),
        Refusal::Unauthorized => (
            StatusCode::UNAUTHORIZED,
            "missing or wrong token: send `Authorization: Bearer <WARD_MCP_TOKEN>`".to_string(),
        ),
    };
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": -32600, "message": message},
    });
    let mut response = (status, axum::Json(body)).into_response();
    if *refusal == Refusal::Unauthorized {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    response
}
