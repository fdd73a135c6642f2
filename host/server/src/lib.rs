//! `ward serve`: the engine over HTTP, for OpenCode's clients and Ward's web page.
//!
//! The routes, field names and event shapes are OpenCode's server's for what Ward
//! shares with it (sessions, messages, prompts, aborts, permission replies, agents,
//! commands, providers, the event stream), so `@opencode-ai/sdk` works unchanged;
//! the OpenAPI document at `/doc` is generated from the handlers' types.
//!
//! The crate is split by job: [`guard`] (token, Host and Origin checks), [`stream`]
//! (the numbered event log and SSE), [`wire`] (the JSON shapes), [`routes`] (the
//! handlers), [`body`] (reading JSON bodies), [`web`] (the page) and [`token`]
//! (making and storing the token). Everything runs through one
//! [`ward_engine::Engine`]; nothing here runs a loop of its own.

pub mod body;
pub mod error;
pub mod guard;
mod openapi;
pub mod priority;
pub mod recorder;
pub mod routes;
pub mod stream;
pub mod token;
pub mod web;
pub mod wire;

use std::future::{Future, IntoFuture};
use std::net::SocketAddr;
use std::ops::Deref;
use std::path::PathBuf;
use std::sync::Arc;

use axum::serve::ListenerExt;
use ward_engine::Engine;

/// Ward's version, as `/global/health` and sessions report it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// How to serve.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The address to bind (default `127.0.0.1`).
    pub hostname: String,
    /// The port (0: any free one).
    pub port: u16,
    /// Origins allowed to call the API from a browser (`*`: any).
    pub cors: Vec<String>,
    /// The token clients must send; `None`: a random one per start. Required to
    /// bind anything but loopback.
    pub token: Option<String>,
    /// Events kept for reconnecting clients.
    pub replay_events: usize,
    /// Bytes of events kept for reconnecting clients.
    pub replay_bytes: usize,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            hostname: "127.0.0.1".to_string(),
            port: 4096,
            cors: Vec::new(),
            token: None,
            replay_events: stream::DEFAULT_REPLAY_EVENTS,
            replay_bytes: stream::DEFAULT_REPLAY_BYTES,
        }
    }
}

/// Why the server did not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The token rules or the address refused listening.
    #[error(transparent)]
    Listen(#[from] ward_http_guard::ListenError),
    /// The token file could not be written.
    #[error("{}: {source}", path.display())]
    TokenFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The server failed while running.
    #[error("serving: {0}")]
    Serve(std::io::Error),
}

/// Where the server listens, once it does.
#[derive(Clone, Debug)]
pub struct Ready {
    /// `http://host:port`.
    pub url: String,
    /// The address bound.
    pub address: SocketAddr,
    /// The token clients send.
    pub token: String,
    /// The file the token was written to (mode 0600).
    pub token_file: PathBuf,
}

impl Ready {
    /// The web page's address, with the token after `#` (never sent to the server,
    /// never in a cookie).
    pub fn page_url(&self) -> String {
        format!("{}/#token={}", self.url, self.token)
    }
}

/// What the handlers share.
#[derive(Clone)]
pub struct App(Arc<AppInner>);

/// The engine, the event log, the project root and where loops run.
pub struct AppInner {
    /// The engine every request goes through.
    pub engine: Engine,
    /// The numbered events.
    pub log: Arc<stream::EventLog>,
    /// The project's root directory.
    pub root: String,
    /// The runtime the loops run on (the server answers on its own).
    pub loops: tokio::runtime::Handle,
    /// Where prompts are checked and stored, in arrival order.
    pub prompts: recorder::PromptRecorder,
}

impl Deref for App {
    type Target = AppInner;
    fn deref(&self) -> &AppInner {
        &self.0
    }
}

/// Serves `engine` until `shutdown` completes; `ready` is called once the address
/// is bound and the token written.
pub async fn serve(
    engine: Engine,
    options: ServeOptions,
    ready: impl FnOnce(&Ready),
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    // Checked before a token is made: one of the user's own is required off loopback.
    let listener = ward_http_guard::listen(
        &options.hostname,
        options.port,
        options.token.as_deref(),
        "WARD_SERVER_TOKEN",
    )?;
    let token = options.token.unwrap_or_else(token::random);
    // Clients answer the model's questions (`/question/{id}/reply`) while it serves.
    let _answerer = engine.question_answerer();
    let bound = listener.local_addr().map_err(ServerError::Serve)?;
    // Held until the server stops, which removes it.
    let token_file = token::write(engine.data_dir(), bound.port(), &token)?;
    let root = engine.project_root().to_string_lossy().to_string();
    let log = Arc::new(stream::EventLog::new(
        options.replay_events,
        options.replay_bytes,
    ));
    let guard = Arc::new(guard::Guard::new(
        &options.hostname,
        bound.port(),
        Some(token.clone()),
        options.cors,
    ));
    let events = engine.subscribe();
    let app = App(Arc::new(AppInner {
        engine,
        log: log.clone(),
        root: root.clone(),
        loops: tokio::runtime::Handle::current(),
        prompts: recorder::PromptRecorder::start().map_err(ServerError::Serve)?,
    }));
    let router = openapi::router(app, guard);
    ready(&Ready {
        url: format!(
            "http://{}:{}",
            guard::bracketed(&options.hostname),
            bound.port()
        ),
        address: bound,
        token,
        token_file: token_file.path().to_path_buf(),
    });
    // The API and the event stream run on a thread and runtime of their own, the
    // loops on the caller's: with every worker busy running loops, a request still
    // gets the CPU as soon as the OS schedules its thread, instead of waiting its
    // turn behind the loops' tasks.
    let (done, finished) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("ward-serve".into())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build();
            let result = match runtime {
                Ok(runtime) => runtime.block_on(run(listener, router, events, log, root, shutdown)),
                Err(e) => Err(ServerError::Serve(e)),
            };
            let _ = done.send(result);
        })
        .map_err(ServerError::Serve)?;
    finished.await.unwrap_or_else(|_| {
        Err(ServerError::Serve(std::io::Error::other(
            "the server thread ended without a result",
        )))
    })
}

/// Serves `router` on `listener` and records `events` into `log` until `shutdown`.
async fn run(
    listener: std::net::TcpListener,
    router: axum::Router,
    events: ward_protocol::Subscription,
    log: Arc<stream::EventLog>,
    root: String,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    // Without TCP_NODELAY an event written while the client has not yet acknowledged
    // the one before waits for that acknowledgement, which a client delays by up to
    // 40 ms: measured as a 40 ms stall of the stream under load.
    let listener = tokio::net::TcpListener::from_std(listener)
        .map_err(ServerError::Serve)?
        .tap_io(|tcp| {
            if let Err(error) = tcp.set_nodelay(true) {
                tracing::debug!(%error, "TCP_NODELAY not set on a connection");
            }
        });
    let recorder = tokio::spawn(stream::record(events, log.clone(), root));
    // On shutdown the event streams end, then open requests get SHUTDOWN_GRACE to
    // finish (a synchronous prompt may wait on a long loop): the process exits
    // either way.
    let (stopping, mut stopped) = tokio::sync::watch::channel(false);
    let signal = async move {
        shutdown.await;
        log.close();
        let _ = stopping.send(true);
    };
    let grace = async move {
        let _ = stopped.wait_for(|stop| *stop).await;
        tokio::time::sleep(SHUTDOWN_GRACE).await;
    };
    let server = axum::serve(listener, router).with_graceful_shutdown(signal);
    let served = tokio::select! {
        served = server.into_future() => served.map_err(ServerError::Serve),
        () = grace => Ok(()),
    };
    recorder.abort();
    served
}

/// How long open requests may take to finish once the server is told to stop.
pub const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(3);
