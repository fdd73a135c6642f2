//! The MCP requests: `tools/list` from the served project's [`Catalog`], `tools/call`
//! through the project's tool box (the path every Ward call takes), permission
//! questions as elicitations ([`crate::asks`]), and `tools/list_changed` when the
//! plugin directories change — to every handshake-era connection, and on every
//! 2026-07-28 `subscriptions/listen` stream.
//!
//! A call runs as a task of its own, so the handler can watch its questions while
//! it runs. On a 2026-07-28 connection a question cannot be a request to the client
//! (the protocol forbids them): the call is parked, the client gets an
//! `input_required` result carrying the question, and its retry — with the answer and
//! the `requestState` handle — resumes the parked call where it waits.
//!
//! [`Catalog`]: crate::catalog::Catalog

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequest,
    ElicitResult, Implementation, InputRequest, InputRequiredResult, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, SubscriptionFilter,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler};
use serde_json::json;
use tokio::sync::broadcast;
use tokio::task::JoinHandle;
use ward_protocol::{Reply, ToolFailure, ToolOutput};

use crate::asks::{self, Ask, Registration};
use crate::project::{Fingerprint, Project};
use crate::{AskFallback, McpServeError, ServeOptions};

/// The key of the permission question in an `input_required` result.
pub const PERMISSION_INPUT: &str = "ward_permission";

/// How long a parked call waits for the client to come back with an answer.
pub const PARK_LIMIT: Duration = Duration::from_secs(300);

/// How long closing waits for the plugins' `event` hooks.
const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// What the connections share: the project (reopened when its plugins change), the
/// handshake-era peers to tell about it, the parked calls.
pub struct Server {
    options: ServeOptions,
    project: RwLock<Arc<Project>>,
    peers: Mutex<Vec<Peer<RoleServer>>>,
    changed: broadcast::Sender<()>,
    parked: Mutex<HashMap<String, Parked>>,
    watcher: Mutex<Option<JoinHandle<()>>>,
}

/// A call waiting for the client's answer to its question.
struct Parked {
    project: Arc<Project>,
    running: Running,
    ask: Ask,
}

/// A call in flight: its task and its questions. Dropping it stops the call.
struct Running {
    task: JoinHandle<Result<ToolOutput, ToolFailure>>,
    questions: Registration,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// How a question can reach this client.
#[derive(Clone, Copy, Debug)]
enum Asking {
    /// As an `elicitation/create` request (handshake-era protocol).
    Request,
    /// As an `input_required` result (2026-07-28 and later).
    InputRequired,
    /// Not at all: the fallback answers.
    Fallback(AskFallback),
}

impl Asking {
    fn of(context: &RequestContext<RoleServer>, fallback: AskFallback) -> Asking {
        let elicits = context
            .client_capabilities()
            .and_then(|c| c.elicitation)
            .is_some_and(|e| e.form.is_some() || e.url.is_none());
        let modern = context
            .protocol_version()
            .is_some_and(|v| !v.has_initialize());
        match (elicits, modern) {
            (false, _) => Asking::Fallback(fallback),
            (true, true) => Asking::InputRequired,
            (true, false) => Asking::Request,
        }
    }
}

impl Server {
    /// Opens the project and starts watching its plugin directories.
    pub async fn start(options: ServeOptions) -> Result<Arc<Server>, McpServeError> {
        let project = Project::open(&options, true).await?;
        let (changed, _) = broadcast::channel(16);
        let server = Arc::new(Server {
            options,
            project: RwLock::new(Arc::new(project)),
            peers: Mutex::new(Vec::new()),
            changed,
            parked: Mutex::new(HashMap::new()),
            watcher: Mutex::new(None),
        });
        let watcher = tokio::spawn(watch(Arc::downgrade(&server)));
        if let Ok(mut slot) = server.watcher.lock() {
            *slot = Some(watcher);
        }
        Ok(server)
    }

    /// The project as now opened.
    pub fn project(&self) -> Arc<Project> {
        match self.project.read() {
            Ok(p) => p.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// A handler for one connection.
    pub fn handler(self: &Arc<Self>) -> WardMcp {
        WardMcp(self.clone())
    }

    /// Reopens the project; tells the clients if what is served changed.
    async fn reload(&self) -> Result<(), McpServeError> {
        let fresh = Arc::new(Project::open(&self.options, false).await?);
        let before: Vec<_> = self.project().catalog.tools.clone();
        let changed = before != fresh.catalog.tools;
        match self.project.write() {
            Ok(mut p) => *p = fresh,
            Err(poisoned) => *poisoned.into_inner() = fresh,
        }
        if changed {
            tracing::info!("the served tools changed");
            let _ = self.changed.send(());
            let peers: Vec<_> = self.peers.lock().map(|p| p.clone()).unwrap_or_default();
            let mut alive = Vec::new();
            for peer in peers {
                if peer.notify_tool_list_changed().await.is_ok() {
                    alive.push(peer);
                }
            }
            if let Ok(mut p) = self.peers.lock() {
                *p = alive;
            }
        }
        Ok(())
    }

    /// Stops watching, drops parked calls, and lets the plugins' hooks finish.
    pub async fn close(&self) {
        if let Some(w) = self.watcher.lock().ok().and_then(|mut w| w.take()) {
            w.abort();
        }
        if let Ok(mut parked) = self.parked.lock() {
            parked.clear();
        }
        self.project().engine.close(CLOSE_GRACE).await;
    }

    /// Runs `running` to its end, answering its questions the way `asking` says.
    async fn drive(
        self: &Arc<Self>,
        project: Arc<Project>,
        mut running: Running,
        asking: Asking,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        loop {
            tokio::select! {
                done = &mut running.task => return Ok(outcome(done).into()),
                Some(ask) = running.questions.asks.recv() => match asking {
                    Asking::Fallback(fallback) => {
                        let _ = project.engine.reply(&ask.id, asks::fallback(fallback, &ask.request));
                    }
                    Asking::Request => {
                        let question = asks::elicitation(&ask.request);
                        let answer = tokio::select! {
                            answer = context.peer.create_elicitation(question) => answer.ok(),
                            () = context.ct.cancelled() => return Err(cancelled()),
                        };
                        let reply = answer.as_ref().map_or(
                            Reply::Reject { feedback: Some("the MCP client did not answer".into()) },
                            asks::reply,
                        );
                        let _ = project.engine.reply(&ask.id, reply);
                    }
                    Asking::InputRequired => return Ok(self.park(project, running, ask)),
                },
                () = context.ct.cancelled() => return Err(cancelled()),
            }
        }
    }

    /// Parks a call on its question; the result carries the question to the client.
    fn park(
        self: &Arc<Self>,
        project: Arc<Project>,
        running: Running,
        ask: Ask,
    ) -> CallToolResponse {
        let handle = ward_http_guard::random_token();
        let question =
            InputRequest::Elicitation(ElicitRequest::new(asks::elicitation(&ask.request)));
        if let Ok(mut parked) = self.parked.lock() {
            parked.insert(
                handle.clone(),
                Parked {
                    project,
                    running,
                    ask,
                },
            );
        }
        // A client that never comes back: the call is refused and dropped.
        let server = Arc::downgrade(self);
        let expired = handle.clone();
        tokio::spawn(async move {
            tokio::time::sleep(PARK_LIMIT).await;
            let parked = server
                .upgrade()
                .and_then(|s| s.parked.lock().ok().and_then(|mut p| p.remove(&expired)));
            if let Some(p) = parked {
                let _ = p
                    .project
                    .engine
                    .reply(&p.ask.id, Reply::Reject { feedback: None });
            }
        });
        let mut requests = rmcp::model::InputRequests::new();
        requests.insert(PERMISSION_INPUT.to_string(), question);
        InputRequiredResult::new(Some(requests), Some(handle)).into()
    }

    /// A retried call: the parked one, answered.
    async fn resume(
        self: &Arc<Self>,
        handle: &str,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let parked = self
            .parked
            .lock()
            .ok()
            .and_then(|mut p| p.remove(handle))
            .ok_or_else(|| {
                ErrorData::invalid_params(
                    "unknown or expired requestState: call the tool again",
                    None,
                )
            })?;
        let answer = request
            .input_responses
            .as_ref()
            .and_then(|r| r.get(PERMISSION_INPUT))
            .and_then(|v| serde_json::from_value::<ElicitResult>(v.clone()).ok());
        let reply = answer.as_ref().map_or(
            Reply::Reject {
                feedback: Some("the MCP client sent no answer".into()),
            },
            asks::reply,
        );
        let Parked {
            project,
            running,
            ask,
        } = parked;
        let _ = project.engine.reply(&ask.id, reply);
        let asking = Asking::of(context, self.options.ask_fallback);
        self.drive(project, running, asking, context).await
    }
}

/// The error for a call the client cancelled.
fn cancelled() -> ErrorData {
    ErrorData::internal_error("the call was cancelled", None)
}

/// A finished call as MCP's result: the output as text, and Ward's whole result
/// (title, output, metadata) as structured content; a refusal or failure as an
/// error result whose text says why.
fn outcome(
    done: Result<Result<ToolOutput, ToolFailure>, tokio::task::JoinError>,
) -> CallToolResult {
    match done {
        Ok(Ok(success)) => {
            let mut result =
                CallToolResult::success(vec![ContentBlock::text(success.output.clone())]);
            result.structured_content = Some(json!({
                "title": success.title,
                "output": success.output,
                "metadata": success.metadata,
            }));
            result
        }
        Ok(Err(e)) => CallToolResult::error(vec![ContentBlock::text(e.to_string())]),
        Err(e) => CallToolResult::error(vec![ContentBlock::text(format!("the call failed: {e}"))]),
    }
}

/// Reopens the project when the plugin directories change and have settled (the
/// same for two looks in a row, so a plugin still being copied is not loaded half).
async fn watch(server: std::sync::Weak<Server>) {
    let every = match server.upgrade() {
        Some(s) => s.options.watch_every,
        None => return,
    };
    let mut last_seen: Option<Fingerprint> = None;
    let mut failed: Option<Fingerprint> = None;
    loop {
        tokio::time::sleep(every).await;
        let Some(server) = server.upgrade() else {
            return;
        };
        let project = server.project();
        if !project.plugins_changed() {
            last_seen = None;
            continue;
        }
        let now = Fingerprint::of(&project.plugin_dirs());
        let settled = last_seen.as_ref() == Some(&now);
        last_seen = Some(now.clone());
        if !settled || failed.as_ref() == Some(&now) {
            continue;
        }
        if let Err(e) = server.reload().await {
            tracing::warn!("reloading the plugins: {e}");
            failed = Some(now);
        }
    }
}

/// One connection's handler; all share the [`Server`].
#[derive(Clone)]
pub struct WardMcp(Arc<Server>);

impl ServerHandler for WardMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new("ward", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "Ward's sandboxed tools: each call runs under its plugin's grants and limits and \
             the permission rules of the directory served.",
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.0.project().catalog.tools.clone(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(handle) = &request.request_state {
            return self.0.resume(handle, &request, &context).await;
        }
        let project = self.0.project();
        let name = request.name.to_string();
        if !project.catalog.served.contains(&name) {
            return Err(ErrorData::invalid_params(
                format!("unknown tool `{name}`"),
                None,
            ));
        }
        let args = serde_json::Value::Object(request.arguments.unwrap_or_default()).to_string();
        let ids = project.call_ids();
        let questions = project.asks.register(&ids.call);
        let task = {
            let project = project.clone();
            tokio::spawn(async move { project.tools.call(&name, &args, ids).await })
        };
        let running = Running { task, questions };
        let asking = Asking::of(&context, self.0.options.ask_fallback);
        self.0.drive(project, running, asking, &context).await
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if let Ok(mut peers) = self.0.peers.lock() {
            peers.push(context.peer);
        }
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(SubscriptionFilter::builder().tools_list_changed().build())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let mut changed = self.0.changed.subscribe();
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                event = changed.recv() => match event {
                    Ok(()) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        if context.sink().notify_tool_list_changed().await.is_err() {
                            return Ok(());
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return Ok(()),
                },
            }
        }
    }
}
