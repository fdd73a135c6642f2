//! One configured server: started once (in the background, bounded by its timeout),
//! its tools kept current, its status and problems for `ward mcp list`.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::service::{Peer, RunningService};
use tokio::sync::OnceCell;
use ward_config::McpConfig;

use crate::McpError;
use crate::connect::{Connection, Handler};
use crate::manager::McpContext;
use crate::tool::McpTool;

/// How long a server may take to start and list its tools when `timeout` is unset
/// (OpenCode's default).
pub const DEFAULT_START_TIMEOUT: Duration = Duration::from_millis(5_000);
/// How long a tool call may take when `timeout` is unset.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(120);
/// Problems kept per server (the newest).
const KEPT_PROBLEMS: usize = 8;

/// What a server did wrong that did not stop it: lines that are not JSON-RPC, tools
/// left out, … Bounded: the newest are kept.
#[derive(Default)]
pub struct Problems(Mutex<VecDeque<String>>);

impl Problems {
    /// Records `problem`.
    pub fn note(&self, problem: String) {
        // Not a warning on the terminal: the text is the server's (`ward mcp list`
        // shows it, rendered inert).
        tracing::debug!("MCP server problem: {problem}");
        if let Ok(mut list) = self.0.lock() {
            if list.len() == KEPT_PROBLEMS {
                list.pop_front();
            }
            list.push_back(problem);
        }
    }

    /// What was recorded, oldest first.
    pub fn all(&self) -> Vec<String> {
        self.0
            .lock()
            .map(|l| l.iter().cloned().collect())
            .unwrap_or_default()
    }
}

/// Where a server is in its life.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// `enabled = false`.
    Disabled,
    /// Starting (or not asked for yet).
    Starting,
    /// Connected, its tools listed.
    Connected,
    /// It could not start, or stopped: why, in a sentence that names the server.
    Failed(String),
}

/// A server's status as `ward mcp list` shows it.
#[derive(Clone, Debug)]
pub struct ServerStatus {
    /// The server's name (`[mcp.NAME]`).
    pub name: String,
    /// Its state.
    pub status: Status,
    /// Its tools as offered (`NAME_tool`), with their descriptions.
    pub tools: Vec<(String, String)>,
    /// What it did wrong without stopping.
    pub problems: Vec<String>,
}

/// What the tools of a server share: the connection's peer, the bounds, the problems.
pub struct Shared {
    /// The server's name.
    pub name: String,
    /// How long a call may take.
    pub call_timeout: Duration,
    /// How long listing may take.
    pub list_timeout: Duration,
    /// What it did wrong.
    pub problems: Arc<Problems>,
    /// Its tools now.
    pub tools: RwLock<Vec<Arc<McpTool>>>,
    /// Why the connection ended, once it has.
    pub closed: Mutex<Option<String>>,
    /// The connection, once made.
    pub peer: std::sync::OnceLock<Peer<RoleClient>>,
    /// Its prompts now.
    pub prompts: RwLock<Vec<crate::prompts::McpPrompt>>,
}

impl Shared {
    /// Records that the connection ended and why (the first reason stays).
    pub fn close(&self, reason: String) {
        if let Ok(mut closed) = self.closed.lock()
            && closed.is_none()
        {
            *closed = Some(reason);
        }
    }

    /// Why the connection ended, if it has.
    pub fn closed_reason(&self) -> Option<String> {
        self.closed.lock().ok().and_then(|c| c.clone())
    }
}

/// One configured server.
pub struct Server {
    config: McpConfig,
    shared: Arc<Shared>,
    started: OnceCell<Result<Running, McpError>>,
}

/// A started server: what must live as long as it runs.
struct Running {
    _service: RunningService<RoleClient, Handler>,
    _connection: Connection,
}

impl Server {
    /// Server `name` as `config` describes it (nothing is started yet).
    pub fn new(name: String, config: McpConfig) -> Server {
        let set = config.timeout.map(Duration::from_millis);
        Server {
            shared: Arc::new(Shared {
                name,
                call_timeout: set.unwrap_or(DEFAULT_CALL_TIMEOUT),
                list_timeout: set.unwrap_or(DEFAULT_START_TIMEOUT),
                problems: Arc::new(Problems::default()),
                tools: RwLock::new(Vec::new()),
                closed: Mutex::new(None),
                peer: std::sync::OnceLock::new(),
                prompts: RwLock::new(Vec::new()),
            }),
            config,
            started: OnceCell::new(),
        }
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// Whether it is enabled.
    pub fn enabled(&self) -> bool {
        self.config.enabled
    }

    /// Starts the server once (every caller awaits the same start), within its
    /// timeout; then lists its tools.
    pub async fn ready(&self, ctx: &McpContext) -> Result<(), McpError> {
        if !self.config.enabled {
            return Err(McpError::Disabled {
                server: self.name().to_string(),
            });
        }
        let result = self
            .started
            .get_or_init(|| async {
                let limit = self.shared.list_timeout;
                let start = async {
                    let (service, connection) =
                        crate::connect::connect(&self.shared, &self.config, ctx).await?;
                    let _ = self.shared.peer.set(service.peer().clone());
                    crate::call::refresh_tools(&self.shared, service.peer()).await?;
                    crate::prompts::refresh(&self.shared, service.peer()).await;
                    Ok::<Running, McpError>(Running {
                        _service: service,
                        _connection: connection,
                    })
                };
                match tokio::time::timeout(limit, start).await {
                    Ok(Ok(running)) => Ok(running),
                    Ok(Err(e)) => {
                        self.shared.close(e.to_string());
                        Err(e)
                    }
                    Err(_) => {
                        let e = McpError::Timeout {
                            server: self.name().to_string(),
                            what: "`initialize` and `tools/list`".into(),
                            ms: millis(limit),
                        };
                        self.shared.close(e.to_string());
                        Err(e)
                    }
                }
            })
            .await;
        result.as_ref().map(|_| ()).map_err(Clone::clone)
    }

    /// Its tools now (none until it has started).
    pub fn tools(&self) -> Vec<Arc<McpTool>> {
        self.shared
            .tools
            .read()
            .map(|t| t.clone())
            .unwrap_or_default()
    }

    /// Its prompts now.
    pub fn prompts(&self) -> Vec<crate::prompts::McpPrompt> {
        self.shared
            .prompts
            .read()
            .map(|p| p.clone())
            .unwrap_or_default()
    }

    /// The text of `prompt` with the typed `arguments`.
    pub async fn get_prompt(
        &self,
        prompt: &crate::prompts::McpPrompt,
        arguments: &str,
    ) -> Result<String, McpError> {
        crate::prompts::get(&self.shared, prompt, arguments).await
    }

    /// The text of its resource `uri`.
    pub async fn read_resource(&self, uri: &str) -> Result<String, McpError> {
        crate::prompts::read_resource(&self.shared, uri).await
    }

    /// Its status now.
    pub fn status(&self) -> ServerStatus {
        let status = if !self.config.enabled {
            Status::Disabled
        } else {
            // A failed start is its own reason (the connection's closing only echoes it).
            match (self.started.get(), self.shared.closed_reason()) {
                (Some(Err(e)), _) => Status::Failed(e.to_string()),
                (_, Some(reason)) => Status::Failed(
                    McpError::Closed {
                        server: self.name().to_string(),
                        reason,
                    }
                    .to_string(),
                ),
                (None, None) => Status::Starting,
                (Some(Ok(_)), None) => Status::Connected,
            }
        };
        ServerStatus {
            name: self.name().to_string(),
            status,
            tools: self
                .tools()
                .iter()
                .map(|t| (t.offered_name().to_string(), t.description().to_string()))
                .collect(),
            problems: self.shared.problems.all(),
        }
    }
}

/// `d` in whole milliseconds.
pub(crate) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
