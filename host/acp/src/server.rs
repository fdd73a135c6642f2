//! The connection: ACP's requests answered from the engines this process opened.
//!
//! Sessions live in engines, one per project: a `session/new` or `session/load`
//! opens (once) the engine of the project its `cwd` is in — the same project lookup
//! `ward` does from a directory — so one editor connection can work in several
//! projects. The first engine opened repairs what a crash left in the store (as
//! `ward run` does); later ones do not, because the store is shared and their
//! sessions may be running. A loaded session runs in the engine of the directory it
//! was created in.
//!
//! Handlers that take time (opening a project, running a prompt) run as tasks of
//! their own, so the connection keeps reading: a `session/cancel` reaches a running
//! prompt, and a second prompt to a busy session is refused at once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, CancelNotification, Implementation, InitializeRequest, InitializeResponse,
    LoadSessionRequest, LoadSessionResponse, NewSessionRequest, NewSessionResponse,
    PromptCapabilities, PromptRequest, SessionMode, SessionModeState, SessionNotification,
    SetSessionModeRequest, SetSessionModeResponse,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, Stdio};
use tokio::sync::Notify;
use ward_engine::{Engine, EngineOptions, Session};

use crate::error::AcpError;
use crate::tools::ToolTable;
use crate::updates::Translator;

/// How long, at most, closing waits for the plugins' `event` hooks.
const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// The engine options for a directory (the frontend's: its built-in plugins).
pub type OptionsFor = Arc<dyn Fn(PathBuf) -> EngineOptions + Send + Sync>;

/// An opened project: its engine and what its tools are.
#[derive(Clone)]
pub(crate) struct Project {
    pub(crate) engine: Engine,
    pub(crate) tools: Arc<ToolTable>,
    /// What opening the project warned of (a project that is not trusted, a bad
    /// plugin), said once: before the first prompt's output on this connection.
    pub(crate) notices: Arc<Mutex<Vec<String>>>,
}

/// A session open on the connection.
pub(crate) struct Attached {
    pub(crate) project: Project,
    /// The mode: the primary agent its prompts go to.
    pub(crate) mode: String,
    /// Set while a prompt runs: notified to cancel it.
    pub(crate) cancel: Option<Arc<Notify>>,
}

/// What the connection's handlers share.
pub(crate) struct Server {
    options: OptionsFor,
    projects: tokio::sync::Mutex<HashMap<PathBuf, Project>>,
    pub(crate) sessions: Mutex<HashMap<String, Attached>>,
    recovered: AtomicBool,
}

/// Serves ACP on standard input and output until the client closes its end, then
/// stops what still runs and closes the engines.
pub async fn serve(options: OptionsFor) -> Result<(), agent_client_protocol::Error> {
    let server = Arc::new(Server {
        options,
        projects: tokio::sync::Mutex::new(HashMap::new()),
        sessions: Mutex::new(HashMap::new()),
        recovered: AtomicBool::new(false),
    });
    let outcome = connection(server.clone()).connect_to(Stdio::new()).await;
    server.close().await;
    outcome
}

/// The handlers, as a builder to connect to a transport.
fn connection(
    server: Arc<Server>,
) -> agent_client_protocol::v1::Builder<Agent, impl agent_client_protocol::HandleDispatchFrom<Client>>
{
    let (new, load, prompt, mode, cancel) = (
        server.clone(),
        server.clone(),
        server.clone(),
        server.clone(),
        server,
    );
    Agent
        .v1()
        .name("ward")
        .on_receive_request(
            async |_: InitializeRequest, responder: Responder<InitializeResponse>, _cx| {
                responder.respond(initialize())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: NewSessionRequest,
                        responder: Responder<NewSessionResponse>,
                        _cx: ConnectionTo<Client>| {
                let server = new.clone();
                tokio::spawn(async move {
                    let _ = match server.new_session(&request.cwd).await {
                        Ok(response) => responder.respond(response),
                        Err(e) => responder.respond_with_error(e.into()),
                    };
                });
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: LoadSessionRequest,
                        responder: Responder<LoadSessionResponse>,
                        cx: ConnectionTo<Client>| {
                let server = load.clone();
                tokio::spawn(async move {
                    let _ = match server.load_session(&request, &cx).await {
                        Ok(response) => responder.respond(response),
                        Err(e) => responder.respond_with_error(e.into()),
                    };
                });
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: PromptRequest, responder, cx: ConnectionTo<Client>| {
                crate::prompt::start(&prompt, request, responder, cx);
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: SetSessionModeRequest,
                        responder: Responder<SetSessionModeResponse>,
                        _cx: ConnectionTo<Client>| {
                match mode.set_mode(&request.session_id.0, &request.mode_id.0) {
                    Ok(()) => responder.respond(SetSessionModeResponse::new()),
                    Err(e) => responder.respond_with_error(e.into()),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |notification: CancelNotification, _cx: ConnectionTo<Client>| {
                cancel.cancel(&notification.session_id.0);
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
}

/// What Ward tells the client it can do.
fn initialize() -> InitializeResponse {
    InitializeResponse::new(ProtocolVersion::V1)
        .agent_capabilities(
            AgentCapabilities::new()
                .load_session(true)
                .prompt_capabilities(PromptCapabilities::new().embedded_context(true)),
        )
        .agent_info(Implementation::new("ward", env!("CARGO_PKG_VERSION")))
}

impl Server {
    /// The project `dir` is in, opened once.
    async fn project(&self, dir: &Path) -> Result<Project, AcpError> {
        let bad = || AcpError::BadCwd(dir.display().to_string());
        if !dir.is_absolute() {
            return Err(bad());
        }
        let dir = dir.canonicalize().map_err(|_| bad())?;
        if !dir.is_dir() {
            return Err(bad());
        }
        let root = Engine::project_root_of(&dir);
        let mut projects = self.projects.lock().await;
        if let Some(project) = projects.get(&root) {
            return Ok(project.clone());
        }
        let recover = !self.recovered.swap(true, Ordering::SeqCst);
        let engine = Engine::open((self.options)(dir).recover(recover)).await?;
        let warnings = engine.take_warnings();
        for warning in &warnings {
            tracing::warn!("{}: {warning}", root.display());
        }
        let tools = Arc::new(ToolTable::of(&engine).await);
        let project = Project {
            engine,
            tools,
            notices: Arc::new(Mutex::new(warnings)),
        };
        projects.insert(root, project.clone());
        Ok(project)
    }

    /// `session/new`: a session led by the default agent, in the project of `cwd`.
    async fn new_session(&self, cwd: &Path) -> Result<NewSessionResponse, AcpError> {
        let project = self.project(cwd).await?;
        let session = project.engine.create_session(None)?;
        let modes = modes(&project.engine, &session.agent);
        self.attach(&session, project);
        Ok(NewSessionResponse::new(session.id).modes(modes))
    }

    /// `session/load`: the stored session, its history replayed as updates before the
    /// response.
    async fn load_session(
        &self,
        request: &LoadSessionRequest,
        cx: &ConnectionTo<Client>,
    ) -> Result<LoadSessionResponse, AcpError> {
        let id = request.session_id.0.to_string();
        let mut project = self.project(&request.cwd).await?;
        let session = project
            .engine
            .session(&id)
            .map_err(|_| AcpError::UnknownSession(id.clone()))?;
        let home = Path::new(&session.directory);
        if home != project.engine.project_root() && home.is_dir() {
            project = self.project(home).await?;
        }
        if self.busy(&id) {
            return Err(AcpError::Busy(id));
        }
        let messages = project.engine.messages(&id)?;
        let todos = project.engine.todos(&id)?;
        let mut translator = Translator::new(&id, &session.directory, project.tools.clone());
        for update in translator.replay(&messages, &todos) {
            if cx
                .send_notification(SessionNotification::new(id.clone(), update))
                .is_err()
            {
                break;
            }
        }
        let modes = modes(&project.engine, &session.agent);
        self.attach(&session, project);
        Ok(LoadSessionResponse::new().modes(modes))
    }

    /// Keeps `session` open on the connection, in its stored mode.
    fn attach(&self, session: &Session, project: Project) {
        if let Ok(mut sessions) = self.sessions.lock() {
            sessions.insert(
                session.id.clone(),
                Attached {
                    project,
                    mode: session.agent.clone(),
                    cancel: None,
                },
            );
        }
    }

    /// Whether a prompt runs in session `id`.
    fn busy(&self, id: &str) -> bool {
        self.sessions
            .lock()
            .map(|s| s.get(id).is_some_and(|a| a.cancel.is_some()))
            .unwrap_or(false)
    }

    /// Whether a prompt runs in any session.
    fn any_busy(&self) -> bool {
        self.sessions
            .lock()
            .map(|s| s.values().any(|a| a.cancel.is_some()))
            .unwrap_or(false)
    }

    /// `session/set_mode`: later prompts go to the primary agent `mode`, and the
    /// session is stored as led by it.
    fn set_mode(&self, id: &str, mode: &str) -> Result<(), AcpError> {
        let mut sessions = self
            .sessions
            .lock()
            .map_err(|_| AcpError::UnknownSession(id.to_string()))?;
        let attached = sessions
            .get_mut(id)
            .ok_or_else(|| AcpError::UnknownSession(id.to_string()))?;
        let engine = &attached.project.engine;
        let available = primary_agents(engine);
        if !available.iter().any(|(name, _)| name == mode) {
            let modes = available.into_iter().map(|(n, _)| n).collect::<Vec<_>>();
            return Err(AcpError::UnknownMode {
                mode: mode.to_string(),
                modes: modes.join(", "),
            });
        }
        engine.set_session_agent(id, mode)?;
        attached.mode = mode.to_string();
        Ok(())
    }

    /// `session/cancel`: stops the prompt running in session `id`, if any.
    fn cancel(&self, id: &str) {
        let running = self
            .sessions
            .lock()
            .ok()
            .and_then(|s| s.get(id).and_then(|a| a.cancel.clone()));
        match running {
            Some(cancel) => cancel.notify_one(),
            None => tracing::debug!("session/cancel for `{id}`: no prompt runs there"),
        }
    }

    /// When the client is gone: stops every running prompt, then closes the engines.
    async fn close(&self) {
        let running: Vec<Arc<Notify>> = self
            .sessions
            .lock()
            .map(|s| s.values().filter_map(|a| a.cancel.clone()).collect())
            .unwrap_or_default();
        for cancel in running {
            cancel.notify_one();
        }
        // The prompts end as cancelled once their loops have stopped.
        let deadline = tokio::time::Instant::now() + CLOSE_GRACE;
        while self.any_busy() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let projects: Vec<Project> = self.projects.lock().await.values().cloned().collect();
        for project in projects {
            project.engine.settle(CLOSE_GRACE).await;
            project.engine.close(CLOSE_GRACE).await;
        }
    }
}

/// The primary agents a session may be led by, with their descriptions.
fn primary_agents(engine: &Engine) -> Vec<(String, Option<String>)> {
    engine
        .agents()
        .into_iter()
        .filter(|a| a.is_primary() && !a.hidden)
        .map(|a| (a.name, a.description))
        .collect()
}

/// The modes: Ward's primary agents, `current` selected.
fn modes(engine: &Engine, current: &str) -> SessionModeState {
    let available = primary_agents(engine)
        .into_iter()
        .map(|(name, description)| SessionMode::new(name.clone(), name).description(description))
        .collect();
    SessionModeState::new(current.to_string(), available)
}
