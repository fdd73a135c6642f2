//! Making the connection: a local server launched confined and spoken to on its
//! standard streams, a remote one over streamable HTTP; the handler that answers
//! what a server sends on its own (its tool list changed).

use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use rmcp::model::{ClientCapabilities, Implementation, InitializeRequestParams};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;
use ward_config::{McpConfig, McpServer};

use crate::McpError;
use crate::changes::{Changes, Coalescing};
use crate::confine::{Scratch, Setting, confine};
use crate::http::WardHttp;
use crate::manager::McpContext;
use crate::server::Shared;
use crate::stdio::LineTransport;

/// Bytes of a local server's standard error kept for reports (the tail).
const STDERR_TAIL: usize = 4096;
/// How long a failed start waits for the process's exit status, to report it.
const EXIT_GRACE: Duration = Duration::from_millis(300);

/// Answers what a server sends unasked.
pub struct Handler {
    changes: Arc<Changes>,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> InitializeRequestParams {
        InitializeRequestParams::new(
            ClientCapabilities::default(),
            Implementation::new("ward", env!("CARGO_PKG_VERSION")),
        )
    }

    // Only a wake-up: the connection's one refresher asks for the list, however many
    // notifications arrive (see [`crate::changes`]).
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changes.tools.wake();
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changes.prompts.wake();
    }
}

/// What keeps a started server's process (or nothing, for a remote one) alive; the
/// process and everything it started is killed when this is dropped.
pub struct Connection {
    _monitor: Option<AbortOnDrop>,
    _scratch: Option<Scratch>,
    _refresher: Option<AbortOnDrop>,
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Connects to the server `config` describes.
pub async fn connect(
    shared: &Arc<Shared>,
    config: &McpConfig,
    ctx: &McpContext,
) -> Result<(RunningService<RoleClient, Handler>, Connection), McpError> {
    let changes = Arc::new(Changes::default());
    let handler = Handler {
        changes: changes.clone(),
    };
    let start_error = |reason: String| McpError::Start {
        server: shared.name.clone(),
        reason,
    };
    match &config.server {
        McpServer::Remote { url, headers } => {
            let mut transport = StreamableHttpClientTransportConfig::with_uri(url.as_str());
            for (k, v) in headers {
                let name = http::HeaderName::try_from(k.as_str())
                    .map_err(|e| start_error(format!("header `{k}`: {e}")))?;
                let value = http::HeaderValue::try_from(v.as_str())
                    .map_err(|e| start_error(format!("header `{k}`: {e}")))?;
                transport.custom_headers.insert(name, value);
            }
            let client = ctx
                .http
                .clone()
                .ok_or_else(|| start_error("no HTTP client could be built".into()))?;
            let streamable =
                StreamableHttpClientTransport::with_client(WardHttp(client.clone()), transport);
            let service = match handler
                .serve(Coalescing::new(streamable, changes.clone()))
                .await
            {
                Ok(service) => service,
                // An older server speaks HTTP+SSE (protocol 2024-11-05): tried second.
                Err(streamable_error) => {
                    let legacy = crate::legacy_sse::LegacySse::connect(
                        client,
                        url,
                        headers,
                        Arc::downgrade(shared),
                    )
                    .await;
                    let handler = Handler {
                        changes: changes.clone(),
                    };
                    match legacy {
                        Ok(transport) => handler
                            .serve(Coalescing::new(transport, changes.clone()))
                            .await
                            .map_err(|e| {
                                start_error(format!(
                                    "streamable HTTP: {streamable_error}; HTTP+SSE: {e}"
                                ))
                            })?,
                        Err(e) => {
                            return Err(start_error(format!(
                                "streamable HTTP: {streamable_error}; HTTP+SSE: {e}"
                            )));
                        }
                    }
                }
            };
            let refresher = refresher(shared, &service, changes);
            Ok((
                service,
                Connection {
                    _monitor: None,
                    _scratch: None,
                    _refresher: Some(refresher),
                },
            ))
        }
        McpServer::Local {
            command,
            environment,
            grant,
        } => {
            let launcher = ctx.launcher.clone().ok_or_else(|| {
                start_error(
                    "no sandbox helper is available: a local server is never run unconfined".into(),
                )
            })?;
            let env = |k: &str| std::env::var_os(k);
            let setting = Setting {
                project: &ctx.project,
                protected: &ctx.protected,
                env: &env,
            };
            let confined = confine(&shared.name, command, environment, grant, &setting)
                .map_err(|e| start_error(format!("cannot create its temporary directory: {e}")))?;
            let (policy, program) = (confined.policy.clone(), confined.program.clone());
            let launched = tokio::task::spawn_blocking(move || launcher.launch(&policy, &program))
                .await
                .map_err(|e| start_error(e.to_string()))?
                .map_err(|e| start_error(e.to_string()))?;
            let io = |e: std::io::Error| start_error(e.to_string());
            let stdin = launched
                .stdin
                .ok_or_else(|| start_error("no standard input".into()))?;
            let stdin = pipe::Sender::from_owned_fd(stdin.into()).map_err(io)?;
            let stdout = pipe::Receiver::from_owned_fd(launched.stdout.into()).map_err(io)?;
            let stderr = pipe::Receiver::from_owned_fd(launched.stderr.into()).map_err(io)?;
            let tail = Arc::new(Mutex::new(Vec::new()));
            tokio::spawn(keep_tail(stderr, tail.clone()));
            let monitor = AbortOnDrop(tokio::spawn(monitor(
                launched.control,
                Arc::downgrade(shared),
                tail.clone(),
            )));
            let transport = LineTransport::new(stdout, stdin, Arc::downgrade(shared))
                .coalescing(changes.clone());
            match handler
                .serve(Coalescing::new(transport, changes.clone()))
                .await
            {
                Ok(service) => {
                    let refresher = refresher(shared, &service, changes);
                    Ok((
                        service,
                        Connection {
                            _monitor: Some(monitor),
                            _scratch: Some(confined.scratch),
                            _refresher: Some(refresher),
                        },
                    ))
                }
                Err(e) => {
                    // Most often the process died: its exit status and stderr say why.
                    tokio::time::sleep(EXIT_GRACE).await;
                    let reason = shared
                        .closed_reason()
                        .unwrap_or_else(|| format!("{e}{}", stderr_note(&tail)));
                    Err(start_error(reason))
                }
            }
        }
    }
}

/// Starts the connection's one refresher (see [`crate::changes`]).
fn refresher(
    shared: &Arc<Shared>,
    service: &RunningService<RoleClient, Handler>,
    changes: Arc<Changes>,
) -> AbortOnDrop {
    AbortOnDrop(tokio::spawn(crate::changes::watch(
        Arc::downgrade(shared),
        service.peer().clone(),
        changes,
    )))
}

/// Keeps the last [`STDERR_TAIL`] bytes of a process's standard error.
async fn keep_tail(mut stderr: pipe::Receiver, tail: Arc<Mutex<Vec<u8>>>) {
    let mut buf = vec![0u8; 8192];
    while let Ok(n) = stderr.read(&mut buf).await {
        if n == 0 {
            break;
        }
        if let Ok(mut t) = tail.lock() {
            t.extend_from_slice(&buf[..n]);
            if t.len() > STDERR_TAIL {
                let cut = t.len() - STDERR_TAIL;
                t.drain(..cut);
            }
        }
    }
}

/// `; stderr: …` with the tail of a process's standard error, if it wrote any.
fn stderr_note(tail: &Arc<Mutex<Vec<u8>>>) -> String {
    let text = tail
        .lock()
        .map(|t| String::from_utf8_lossy(&t).trim().to_string())
        .unwrap_or_default();
    if text.is_empty() {
        String::new()
    } else {
        format!("; stderr: {text}")
    }
}

/// Waits for the process's exit status and records it as why the connection ended.
/// Aborting this task drops the control, which kills the process.
async fn monitor(control: ward_sandbox::Control, shared: Weak<Shared>, tail: Arc<Mutex<Vec<u8>>>) {
    let (stream, _keep) = control.into_parts();
    let status = async {
        stream.set_nonblocking(true).ok()?;
        let mut stream = tokio::net::UnixStream::from_std(stream).ok()?;
        let mut status = [0u8; ward_sandbox::STATUS_LEN];
        stream.read_exact(&mut status).await.ok()?;
        Some(ward_sandbox::exit_status(status))
    }
    .await;
    // Its stderr may still be arriving.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let Some(shared) = shared.upgrade() else {
        return;
    };
    let reason = match status {
        Some(ward_sandbox::CONFINE_FAILED) => {
            format!("it could not be confined{}", stderr_note(&tail))
        }
        Some(code) if code > 128 => format!(
            "the process was killed (signal {}){}",
            code - 128,
            stderr_note(&tail)
        ),
        Some(code) => format!(
            "the process exited with status {code}{}",
            stderr_note(&tail)
        ),
        None => format!("the process ended{}", stderr_note(&tail)),
    };
    shared.close(reason);
}
