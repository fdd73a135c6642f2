//! [`Engine`]: a project opened once — configuration, plugins, agents, skills,
//! commands, the store and the models — and the sessions run in it. Every frontend
//! (`ward run`, the interactive mode, a server, an editor bridge) is an adapter over
//! this: it opens an engine, sends prompts, renders the events of
//! [`Engine::subscribe`] and answers permission asks with [`Engine::reply`].
//!
//! The engine owns its background work (the event hooks' feed, the sweep of saved
//! tool outputs): it stops when the last clone of the engine is dropped.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::task::JoinHandle;
use ward_context::truncate::{KEEP_SAVED, SWEEP_EVERY, sweep};
use ward_permission::{AskRequest, PermissionEngine, Reply};
use ward_prompt::EnvironmentAhead;
use ward_provider::{Client, RetryPolicy};
use ward_session::task::ChildLoops;
use ward_session::title::Titles;
use ward_session::{ActiveLoops, CompactionAgent, ModelSetup, RecordedPrompt, Runner};
use ward_store::{AssistantMessage, Blobs, ModelRef, Session, SqliteStore, Store, Subscription};

use crate::error::{EngineError, ModelError};
use crate::options::EngineOptions;
use crate::runners::{RunnerKey, model_for, wanted_agent};
use crate::slash::Commands;
use crate::workspace::{Settings, Workspace, primary_agent};

/// A prompt: what was typed, and what it is addressed to where it says.
#[derive(Clone, Debug, Default)]
pub struct PromptRequest {
    /// What the user typed (a `/command`, `@mentions` and all).
    pub text: String,
    /// A primary agent (default: the command's, else `default_agent`, else `build`).
    pub agent: Option<String>,
    /// `provider/model` (default: the command's, else the agent's, else `model`).
    pub model: Option<String>,
    /// System text sent after the rest of the system prompt.
    pub system: Option<String>,
    /// At most this many model calls (default: the agent's limit).
    pub steps: Option<u32>,
    /// The model variant (default: the agent's `variant`, else none): one of the
    /// model's `variants`, e.g. a reasoning effort.
    pub variant: Option<String>,
    /// Files attached to the prompt (images, PDFs), relative to the project's
    /// directory; one that cannot be attached fails the prompt before it is stored.
    pub files: Vec<std::path::PathBuf>,
    /// Files an API client attached (`data:` URLs or paths), in its order, after
    /// `files`; checked and stored like them.
    pub client_files: Vec<crate::attachments::ClientFile>,
}

impl PromptRequest {
    /// `text` to the default agent and model.
    pub fn text(text: impl Into<String>) -> Self {
        PromptRequest {
            text: text.into(),
            ..PromptRequest::default()
        }
    }
}

/// A prompt's outcome.
#[derive(Clone, Debug)]
pub struct Turn {
    /// The last assistant message of the loop.
    pub message: AssistantMessage,
    /// The usable context window of the model that answered, if its limits are known.
    pub usable: Option<u64>,
}

/// A project opened with its first prompt already stored (see
/// [`Engine::open_with_prompt`]).
pub struct Opened {
    /// The engine.
    pub engine: Engine,
    /// The session the prompt is in.
    pub session: Session,
    /// The bus from before the prompt was stored: a frontend that renders from it
    /// misses nothing of the prompt.
    pub events: Subscription,
    /// The prompt, to hand to [`Engine::run`].
    pub prompt: PendingPrompt,
}

/// A prompt stored (or about to be) but not yet run.
pub struct PendingPrompt {
    request: PromptRequest,
    recorded: Option<RecordedPrompt>,
}

/// An opened project. Cheap to clone: clones share everything.
#[derive(Clone)]
pub struct Engine {
    pub(crate) shared: Arc<Shared>,
}

/// What the engine's clones, runners and subagents share.
pub(crate) struct Shared {
    pub(crate) ws: Arc<Workspace>,
    pub(crate) store: Arc<SqliteStore>,
    pub(crate) permissions: PermissionEngine,
    pub(crate) retry: RetryPolicy,
    pub(crate) client: Client,
    pub(crate) loops: ActiveLoops,
    pub(crate) children: ChildLoops,
    pub(crate) titles: Option<Titles>,
    /// The `summary` agent on the small model, describing each prompt's changes.
    pub(crate) summaries: Option<Titles>,
    pub(crate) compaction: CompactionAgent,
    pub(crate) commands: Arc<Commands>,
    /// Questions the model asked, waiting for a frontend's answer.
    pub(crate) questions: Arc<ward_session::question::Questions>,
    pub(crate) runners: Mutex<HashMap<RunnerKey, Arc<Runner>>>,
    /// The project's file snapshots (made on first use).
    pub(crate) snapshots: Arc<crate::snapshot::ProjectSnapshots>,
    /// The model each session's latest prompt went to (a subagent without a model of
    /// its own uses its caller's).
    models: Mutex<HashMap<String, ModelSetup>>,
    pub(crate) warnings: Mutex<Vec<String>>,
    pub(crate) tasks: Mutex<Vec<JoinHandle<()>>>,
    /// What feeds the plugins' `event` hooks from the bus (if any plugin takes
    /// events), and how to tell it the engine is closing.
    hook_feed: Mutex<Option<HookFeed>>,
    /// The engine itself, for what must not keep it alive (the `task` tool).
    pub(crate) me: Weak<Shared>,
}

/// The `event` hooks' feed: its stop signal and its task.
type HookFeed = (tokio::sync::oneshot::Sender<()>, Option<JoinHandle<()>>);

impl Drop for Shared {
    fn drop(&mut self) {
        if let Ok(tasks) = self.tasks.get_mut() {
            for task in tasks.drain(..) {
                task.abort();
            }
        }
        if let Ok(Some((_, Some(feed)))) = self.hook_feed.get_mut().map(Option::take) {
            feed.abort();
        }
    }
}

/// What is read before the plugins load: enough to store a prompt.
struct Start {
    settings: Settings,
    store: Arc<SqliteStore>,
    environment: Arc<EnvironmentAhead>,
    /// Subscribed first, so the plugins' `event` hooks see what is stored before
    /// they are loaded too.
    hook_events: Subscription,
}

impl Engine {
    /// Opens the project `options` name: configuration, store (repaired after a
    /// crash unless told otherwise), plugins, agents, skills and commands.
    pub async fn open(options: EngineOptions) -> Result<Engine, EngineError> {
        let start = Start::begin(&options)?;
        start.finish(&options).await
    }

    /// [`Engine::open`] that stores `request` first — in `session`, else in a new
    /// session — as soon as the configuration is read and before the plugins load
    /// (which can take seconds), so a process killed meanwhile leaves the prompt
    /// stored. When the files alone cannot tell who the prompt is for (its agent is
    /// one a plugin declares, or its model does not resolve), it is stored once the
    /// plugins have loaded.
    pub async fn open_with_prompt(
        options: EngineOptions,
        session: Option<&str>,
        request: PromptRequest,
    ) -> Result<Opened, EngineError> {
        let start = Start::begin(&options)?;
        let files = crate::attachments::load(&options.directory, &request)?;
        let mut files = Some(files);
        let given = match session {
            Some(id) => {
                Some(
                    start
                        .store
                        .get_session(id)
                        .map_err(|source| EngineError::Session {
                            id: id.to_string(),
                            source,
                        })?,
                )
            }
            None => None,
        };
        let request = match &given {
            Some(s) => with_session_model(request, s),
            None => request,
        };
        let early = start.early_addressee(&request)?;
        let early_session = match (given, &early) {
            (Some(s), _) => Some(s),
            (None, Some(to)) => Some(new_session(
                &start.store,
                &start.settings.config.project_root,
                &to.agent,
            )?),
            (None, None) => None,
        };
        let early_events = early_session
            .as_ref()
            .map(|_| start.store.bus().subscribe());
        if let Some(id) = session {
            crate::revert::discard_reverted(&start.store, id)?;
        }
        let recorded = match (&early_session, early) {
            (Some(s), Some(to)) => {
                let recorded =
                    RecordedPrompt::store(start.store.as_ref(), &s.id, to, &request.text)?;
                let blobs = Blobs::new(start.settings.data_dir.join("blobs"));
                let message = &recorded.message().id;
                let files = files.take().unwrap_or_default();
                crate::attachments::attach(start.store.as_ref(), &blobs, &s.id, message, files)?;
                Some(recorded)
            }
            _ => None,
        };
        let store = start.store.clone();
        let engine = start.finish(&options).await?;
        let ws = &engine.shared.ws;
        let command = ws.commands.resolve(&request.text).map(|(c, _)| c.clone());
        let agent = ws.primary_agent(wanted_agent(
            request.agent.as_deref(),
            command.as_ref(),
            &ws.agents,
        ))?;
        let session = match early_session {
            // Created before a plugin declared the agent that leads it.
            Some(s) if session.is_none() && s.agent != agent.name => {
                store.update_session(&Session {
                    agent: agent.name.clone(),
                    ..s
                })?
            }
            Some(s) => s,
            None => {
                // A prompt no model can take stores nothing: the run fails here, with
                // no session left behind for it.
                model_for(&ws.models, &ws.config, &request, command.as_ref(), agent)?;
                new_session(&store, &ws.config.project_root, &agent.name)?
            }
        };
        let events = early_events.unwrap_or_else(|| store.bus().subscribe());
        Ok(Opened {
            engine,
            session,
            events,
            prompt: PendingPrompt { request, recorded },
        })
    }

    /// The project: configuration, plugins, agents, skills, commands.
    pub fn workspace(&self) -> &Workspace {
        &self.shared.ws
    }

    /// The store sessions are kept in.
    pub fn store(&self) -> &Arc<SqliteStore> {
        &self.shared.store
    }

    /// Every event from now on: sessions, messages, parts and their deltas, status
    /// and retries, todos, permission asks and replies, plugin events.
    pub fn subscribe(&self) -> Subscription {
        self.shared.store.bus().subscribe()
    }

    /// What went wrong opening the project without stopping it (a plugin that did
    /// not load, a broken agent file, …), each once: the list is emptied.
    pub fn take_warnings(&self) -> Vec<String> {
        self.shared
            .warnings
            .lock()
            .map(|mut w| std::mem::take(&mut *w))
            .unwrap_or_default()
    }

    /// A new session in the project, led by `agent` (a primary one; default: the
    /// default agent).
    pub fn create_session(&self, agent: Option<&str>) -> Result<Session, EngineError> {
        let agent = primary_agent(&self.shared.ws.agents, agent)?;
        new_session(
            &self.shared.store,
            &self.shared.ws.config.project_root,
            &agent.name,
        )
    }

    /// The model `reference` (`provider/model`) names among the configured providers,
    /// as a session's chosen model (`Session::model`) records it: its prompts go there
    /// when they name no model of their own.
    pub fn model_ref(&self, reference: &str) -> Result<ModelRef, EngineError> {
        let ws = &self.shared.ws;
        let model = ws
            .models
            .resolve_variant(&ws.config, Some(reference), None)?;
        Ok(ModelRef::new(&model.provider, &model.model))
    }

    /// Deletes session `id` if nothing was ever sent in it (no message, no subagent's
    /// session): a session opened and left without a prompt is not kept as junk.
    /// Returns whether it was deleted.
    pub fn discard_if_empty(&self, id: &str) -> Result<bool, EngineError> {
        // Deleted already (from a session picker): nothing left to discard.
        match self.session(id) {
            Err(e) if e.is_not_found() => return Ok(false),
            other => other?,
        };
        let store = &self.shared.store;
        let session_error = |source| EngineError::Session {
            id: id.to_string(),
            source,
        };
        let empty = store.messages(id, None).map_err(session_error)?.is_empty()
            && store.list_children(id).map_err(session_error)?.is_empty();
        if empty {
            store.delete_session(id).map_err(session_error)?;
        }
        Ok(empty)
    }

    /// The stored session `id`.
    pub fn session(&self, id: &str) -> Result<Session, EngineError> {
        self.shared
            .store
            .get_session(id)
            .map_err(|source| EngineError::Session {
                id: id.to_string(),
                source,
            })
    }

    /// Every stored session.
    pub fn sessions(&self) -> Result<Vec<Session>, EngineError> {
        Ok(self.shared.store.list_sessions()?)
    }

    /// Sends `request` to `session` and returns once the session's loop is done. A
    /// `/command` is expanded (its template's commands run through the `bash` tool,
    /// its files read through `read`); `@file` mentions attach the file. If the
    /// session is busy the prompt joins its loop, which sees it on its next step.
    pub async fn prompt(
        &self,
        session: &Session,
        request: PromptRequest,
    ) -> Result<Turn, EngineError> {
        self.run(
            session,
            PendingPrompt {
                request,
                recorded: None,
            },
        )
        .await
    }

    /// Stores `request` in `session` now, addressed to the agent and model it goes
    /// to, without running it: hand the result to [`Engine::run`]. A frontend that
    /// answers before the loop ends (`prompt_async`) stores first, so the prompt is
    /// in the session — and its `message.updated` on the stream — before it answers,
    /// however busy the loops are.
    pub fn record(
        &self,
        session: &Session,
        request: PromptRequest,
    ) -> Result<PendingPrompt, EngineError> {
        let request = with_session_model(request, session);
        let ws = &self.shared.ws;
        let command = ws.commands.resolve(&request.text).map(|(c, _)| c);
        let agent =
            ws.primary_agent(wanted_agent(request.agent.as_deref(), command, &ws.agents))?;
        let model = model_for(&ws.models, &ws.config, &request, command, agent)?;
        let files = crate::attachments::load(&ws.config.project_root, &request)?;
        let to = ward_session::Addressee {
            agent: agent.name.clone(),
            model: ModelRef::new(&model.provider, &model.model),
            system: request.system.clone(),
        };
        crate::revert::discard_reverted(&self.shared.store, &session.id)?;
        let recorded =
            RecordedPrompt::store(self.shared.store.as_ref(), &session.id, to, &request.text)?;
        let message = &recorded.message().id;
        let store = self.shared.store.as_ref();
        crate::attachments::attach(store, &self.blobs(), &session.id, message, files)?;
        Ok(PendingPrompt {
            request,
            recorded: Some(recorded),
        })
    }

    /// Runs a prompt [`Engine::open_with_prompt`] or [`Engine::record`] stored (or
    /// stores it now).
    pub async fn run(&self, session: &Session, prompt: PendingPrompt) -> Result<Turn, EngineError> {
        let prompt = PendingPrompt {
            request: with_session_model(prompt.request, session),
            ..prompt
        };
        self.shared.snapshots.watch_ahead();
        let runner = self.shared.runner_for(session, &prompt.request).await?;
        let commands = &self.shared.commands;
        let recorded = match prompt.recorded {
            Some(recorded) => recorded,
            None => {
                let ws = &self.shared.ws;
                let files = crate::attachments::load(&ws.config.project_root, &prompt.request)?;
                crate::revert::discard_reverted(&self.shared.store, &session.id)?;
                let recorded = runner.record(session, &prompt.request.text)?;
                let message = &recorded.message().id;
                let store = self.shared.store.as_ref();
                crate::attachments::attach(store, &self.blobs(), &session.id, message, files)?;
                recorded
            }
        };
        let message = crate::slash::prompt_recorded(&runner, commands, session, recorded).await;
        self.shared.summarize_in_background(&session.id);
        let message = message?;
        Ok(Turn {
            message,
            usable: runner.usable(),
        })
    }

    /// Where attachment bytes are kept.
    pub(crate) fn blobs(&self) -> Blobs {
        Blobs::new(self.shared.ws.data_dir.join("blobs"))
    }

    /// Compacts `session`'s history now, with `model` (default: the configured
    /// one); returns the summary message.
    pub async fn compact(
        &self,
        session: &Session,
        model: Option<&str>,
    ) -> Result<AssistantMessage, EngineError> {
        let request = PromptRequest {
            model: model.map(str::to_string),
            ..PromptRequest::default()
        };
        let runner = self.shared.runner_for(session, &request).await?;
        Ok(runner.compact_session(session).await?)
    }

    /// Cancels `session_id`'s running loop (its model call, its running tool and
    /// that tool's processes); `false` if it was idle.
    pub fn abort(&self, session_id: &str) -> bool {
        self.shared.loops.abort(session_id)
    }

    /// Whether `session_id`'s loop is running.
    pub fn is_busy(&self, session_id: &str) -> bool {
        self.shared.loops.is_busy(session_id)
    }

    /// Answers the permission ask `id` (from a `permission.asked` event).
    pub fn reply(&self, id: &str, reply: Reply) -> Result<(), EngineError> {
        Ok(self.shared.permissions.reply(id, reply)?)
    }

    /// The asks waiting for an answer, oldest first.
    pub fn pending_asks(&self) -> Vec<(String, AskRequest)> {
        self.shared.permissions.pending()
    }

    /// Before the process exits: hands the plugins' `event` hooks what the bus still
    /// holds and waits, at most `limit` in all, for them to take it — so a hook
    /// sees a run's last events (`session.status` idle, the final parts).
    pub async fn close(&self, limit: Duration) {
        let started = tokio::time::Instant::now();
        let feed = self.shared.hook_feed.lock().ok().and_then(|mut f| f.take());
        if let Some((stop, task)) = feed {
            let _ = stop.send(());
            if let Some(task) = task {
                let _ = tokio::time::timeout(limit, task).await;
            }
        }
        let left = limit.saturating_sub(started.elapsed());
        self.shared.ws.host.finish_events(left).await;
    }

    /// Waits, at most `limit`, for the subagent loops started so far to end (after
    /// an abort, they close their own messages).
    pub async fn settle(&self, limit: Duration) {
        self.shared.children.settle(limit).await;
    }
}

impl Start {
    fn begin(options: &EngineOptions) -> Result<Start, EngineError> {
        let settings = Settings::load(options)?;
        // Git status and the file tree, for the first system prompt, are read while
        // the store opens and the plugins load.
        let environment = Arc::new(EnvironmentAhead::start(
            settings.config.project_root.clone(),
        ));
        let store = open_store(&settings.data_dir, options.recover)?;
        let hook_events = store.bus().subscribe();
        Ok(Start {
            settings,
            store,
            environment,
            hook_events,
        })
    }

    /// Who `request` is for, from the files alone; `None` when they cannot tell. A
    /// variant the model lacks is an error now, before anything is stored for it.
    fn early_addressee(
        &self,
        request: &PromptRequest,
    ) -> Result<Option<ward_session::Addressee>, EngineError> {
        let settings = &self.settings;
        let command = settings.commands.resolve(&request.text).map(|(c, _)| c);
        let agents = settings.agents_without_components();
        let wanted = wanted_agent(request.agent.as_deref(), command, &agents);
        let Ok(agent) = primary_agent(&agents, wanted) else {
            return Ok(None);
        };
        let model = match model_for(&settings.models, &settings.config, request, command, agent) {
            Ok(model) => model,
            Err(e @ ModelError::Registry(ward_provider::RegistryError::UnknownVariant { .. })) => {
                return Err(e.into());
            }
            Err(_) => return Ok(None),
        };
        Ok(Some(ward_session::Addressee {
            agent: agent.name.clone(),
            model: ModelRef::new(&model.provider, &model.model),
            system: request.system.clone(),
        }))
    }

    /// Loads the plugins and what they provide, and starts the engine's work.
    async fn finish(self, options: &EngineOptions) -> Result<Engine, EngineError> {
        let Start {
            settings,
            store,
            environment,
            hook_events,
        } = self;
        let bus = store.bus().clone();
        let data_dir = settings.data_dir.clone();
        let mut ws = Workspace::load(settings, Some(crate::events::plugin_sink(&bus))).await?;
        ws.environment_ahead = Some(environment);
        // MCP servers start in the background: the first tool list waits for them.
        ws.mcp.start();
        let mut warnings = ws.discovery_errors.clone();
        let (_, failed) = ws.host.all_tools().await;
        warnings.extend(
            failed
                .into_iter()
                .map(|(plugin, e)| format!("{plugin}: {e}")),
        );
        let permissions = ws.permission_engine(store.clone(), &bus);
        let retry = retry_policy(options.max_retries, &ws.config.config.retry);
        let titles = titles(&ws, &mut warnings);
        let summaries = crate::summary::summary_agent(&ws);
        let compaction = compaction_agent(&ws, &mut warnings);
        let commands = Arc::new(Commands {
            agents: ws.agents.list().map(|a| a.name.clone()).collect(),
            subagents: ws.agents.subagents().map(|a| a.name.clone()).collect(),
            registry: ws.commands.clone(),
            mcp: Some(ws.mcp.clone()),
        });
        let tasks = vec![sweep_saved_outputs(ws.tool_output_dir.clone())];
        let (stop_hooks, stop) = tokio::sync::oneshot::channel();
        let hook_feed = ward_session::event_hooks::forward_events(
            hook_events,
            ws.host.clone(),
            &ws.config.project_root,
            ws.rules.clone(),
            stop,
        );
        let snapshots = Arc::new(crate::snapshot::ProjectSnapshots::new(
            &data_dir,
            &ws.config.project_root,
            ws.config.config.snapshot != Some(false),
        ));
        let ws = Arc::new(ws);
        let shared = Arc::new_cyclic(|me| Shared {
            ws,
            store,
            permissions,
            retry,
            client: Client::new(),
            loops: ActiveLoops::default(),
            children: ChildLoops::default(),
            titles,
            summaries,
            compaction,
            commands,
            questions: ward_session::question::Questions::new(bus.clone()),
            runners: Mutex::new(HashMap::new()),
            snapshots,
            models: Mutex::new(HashMap::new()),
            warnings: Mutex::new(warnings),
            tasks: Mutex::new(tasks),
            hook_feed: Mutex::new(Some((stop_hooks, hook_feed))),
            me: me.clone(),
        });
        Ok(Engine { shared })
    }
}

impl Shared {
    /// Notes that `session`'s prompts go to `model`.
    pub(crate) fn remember_model(&self, session: &str, model: &ModelSetup) {
        if let Ok(mut models) = self.models.lock() {
            models.insert(session.to_string(), model.clone());
        }
    }

    /// The model `session`'s latest prompt went to, else the configured one.
    pub(crate) fn model_of_session(&self, session: &str) -> Result<ModelSetup, EngineError> {
        let known = self
            .models
            .lock()
            .ok()
            .and_then(|models| models.get(session).cloned());
        match known {
            Some(model) => Ok(model),
            None => Ok(self
                .ws
                .models
                .resolve_variant(&self.ws.config, None, None)?),
        }
    }
}

/// `request` with the model chosen for `session` (OpenCode's session `model`) when it
/// names none itself: the session's choice counts as the prompt's own, before a
/// command's or the agent's.
fn with_session_model(mut request: PromptRequest, session: &Session) -> PromptRequest {
    if request.model.is_none()
        && let Some(model) = &session.model
    {
        request.model = Some(format!("{}/{}", model.provider, model.model));
    }
    request
}

/// A new session in `project`, led by `agent`.
fn new_session(store: &SqliteStore, project: &Path, agent: &str) -> Result<Session, EngineError> {
    let session = Session::new(project.to_string_lossy(), agent);
    store.create_session(&session)?;
    Ok(session)
}

/// Opens the store in `data_dir`. With `recover`, what a crash left behind is
/// repaired on open.
pub fn open_store(data_dir: &Path, recover: bool) -> Result<Arc<SqliteStore>, EngineError> {
    std::fs::create_dir_all(data_dir).map_err(|source| EngineError::Io {
        path: data_dir.to_path_buf(),
        source,
    })?;
    let options = ward_store::SqliteOptions {
        recover,
        ..ward_store::SqliteOptions::default()
    };
    Ok(Arc::new(SqliteStore::open_with(
        data_dir.join("ward.db"),
        options,
    )?))
}

/// The retry policy: `max_retries` attempts, `[retry] connect_seconds` for a server
/// that cannot be reached, the built-in policy for the rest.
fn retry_policy(max_retries: Option<u32>, config: &ward_config::RetryConfig) -> RetryPolicy {
    let default = RetryPolicy::default();
    RetryPolicy {
        max_attempts: max_retries.unwrap_or(default.max_attempts).max(1),
        connect_budget: config
            .connect_seconds
            .map_or(default.connect_budget, Duration::from_secs),
        ..default
    }
}

/// Titles written by `small_model` with the `title` agent's prompt, when configured.
fn titles(ws: &Workspace, warnings: &mut Vec<String>) -> Option<Titles> {
    let small = ws.config.config.small_model.as_deref()?;
    let prompt = ws.agents.get("title")?.prompt.clone()?;
    match ws.models.resolve_variant(&ws.config, Some(small), None) {
        Ok(model) => Some(Titles { model, prompt }),
        Err(e) => {
            warnings.push(format!(
                "small_model `{small}`: {e}; titles come from the first prompt"
            ));
            None
        }
    }
}

/// What `[agent.compaction]` sets for the summariser: its prompt, model and sampling.
/// A model that does not resolve is a warning; the session's model summarises then.
fn compaction_agent(ws: &Workspace, warnings: &mut Vec<String>) -> CompactionAgent {
    let Some(agent) = ws.agents.get("compaction") else {
        return CompactionAgent::default();
    };
    let model = agent.model.as_deref().and_then(|reference| {
        ws.models
            .resolve_variant(&ws.config, Some(reference), None)
            .map_err(|e| {
                warnings.push(format!(
                    "agent `compaction`: model `{reference}`: {e}; the session's model \
                     summarises instead"
                ))
            })
            .ok()
    });
    CompactionAgent {
        prompt: agent.prompt.clone(),
        model,
        temperature: agent.temperature,
        top_p: agent.top_p,
    }
}

/// Sweeps saved tool outputs older than a week: now, then hourly.
fn sweep_saved_outputs(dir: std::path::PathBuf) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(SWEEP_EVERY);
        loop {
            every.tick().await;
            let dir = dir.clone();
            let _ = tokio::task::spawn_blocking(move || sweep(&dir, KEEP_SAVED)).await;
        }
    })
}
