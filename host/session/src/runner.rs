//! The loop for one session: a prompt persists the user's message (or takes one
//! already stored, see [`crate::record`]), then either starts the session's loop or
//! joins the one already running (one loop per session, SPEC §4). The loop steps
//! until the model finishes for a reason other than tool calls, the step limit is
//! reached, an error ends it, or [`Runner::abort`] cancels it — which drops the model
//! stream and any running tool (killing its processes) and closes the assistant
//! message as aborted.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ward_permission::{PermissionEngine, Ruleset};
use ward_plugin::CallScope;
use ward_prompt::{NestedInstructions, SystemPrompt};
use ward_provider::{Client, Endpoint, FinishReason, Protocol, RetryPolicy};
use ward_store::{
    ABORTED_ERROR, AssistantMessage, MessageError, MessageInfo, ModelRef, Part, PartKind, Session,
    SessionStatus, Store, TextPart, UserMessage,
};

use crate::active::{ActiveLoops, Entry, Lease, SharedOutcome};
use crate::history::History;
use crate::record::{Addressee, RecordedPrompt};
use crate::tools::ToolBox;
use ward_context::budget::{ContextPolicy, Tally};

/// The error of a tool call that was running when its loop was aborted.
pub const TOOL_ABORTED: &str = "Tool execution was aborted";

/// The model a runner talks to.
#[derive(Clone, Debug)]
pub struct ModelSetup {
    /// The provider's name in config (`local`, `anthropic`, …).
    pub provider: String,
    /// The model id sent on the wire.
    pub model: String,
    /// The wire protocol.
    pub protocol: Protocol,
    /// Where and how to reach it.
    pub endpoint: Endpoint,
    /// USD per million tokens: input, output, cache read, cache write.
    pub prices: [f64; 4],
    /// Maximum output tokens to ask for.
    pub max_tokens: Option<u32>,
    /// The model's token limits (from the model registry), for overflow detection.
    pub limits: ward_provider::Limits,
    /// Counts tokens the way the model's family does (or estimates them).
    pub counter: ward_tokens::TokenCounter,
    /// The model's own compaction threshold, over `[compaction] threshold`.
    pub compaction_threshold: Option<f64>,
    /// Whether the API accepts a sampling temperature (OpenAI's reasoning models
    /// refuse one): an agent's `temperature` is not sent when it does not.
    pub temperature: bool,
    /// Whether the model takes images and files (the registry's `attachment`);
    /// otherwise a note stands in for each file.
    pub attachment: bool,
    /// Whether the model reasons (the registry's `reasoning`): a Responses request
    /// then asks for the encrypted reasoning, to send it back.
    pub reasoning: bool,
    /// The chosen variant (`--variant`, an agent's `variant`): its name and the body
    /// fields it sets (e.g. `{"reasoning": {"effort": "high"}}`), merged into every
    /// request before the `chat.params` hooks' options.
    pub variant: Option<(String, serde_json::Value)>,
}

/// Everything the loop needs; made by [`RunnerBuilder`] (`Runner::builder`).
pub struct Runner {
    /// The store.
    pub(crate) store: Arc<dyn Store>,
    /// The tools on offer.
    pub(crate) tools: ToolBox,
    /// The model.
    pub(crate) model: ModelSetup,
    /// The HTTP client.
    pub(crate) client: Client,
    /// Where asks go.
    pub(crate) permissions: PermissionEngine,
    /// Permission layers.
    pub(crate) rules: Arc<Vec<Ruleset>>,
    /// The project root.
    pub(crate) project: PathBuf,
    /// The agent.
    pub(crate) agent: String,
    /// The system prompt, rebuilt for every model call.
    pub(crate) system: Arc<SystemPrompt>,
    /// At most this many steps (`None`: unlimited).
    pub(crate) steps: Option<u32>,
    /// The agent's sampling temperature, if it sets one.
    pub(crate) temperature: Option<f64>,
    /// The agent's nucleus sampling, if it sets one.
    pub(crate) top_p: Option<f64>,
    /// Retry policy for provider errors.
    pub(crate) retry: RetryPolicy,
    /// The sessions with a loop running; `ActiveLoops::default()` for a new runner.
    pub(crate) loops: ActiveLoops,
    /// When to prune and compact.
    pub(crate) context: ContextPolicy,
    /// Per session, the nested `AGENTS.md` files already attached to a read.
    pub(crate) nested: NestedState,
    /// System text every prompt carries as its own (the last layer of the system
    /// prompt), e.g. from `ward run --system`.
    pub(crate) user_system: Option<String>,
    /// How untitled sessions get a title; `None`: from the first prompt's first line.
    pub(crate) titles: Option<crate::title::Titles>,
    /// What `[agent.compaction]` sets for the summariser.
    pub(crate) compaction: CompactionAgent,
    /// Where attachment bytes are kept; `None`: tools' files are not kept (a note
    /// says so).
    pub(crate) blobs: Option<ward_store::Blobs>,
    /// Where the files are snapshotted around steps that run tools (`None`: not).
    pub(crate) snapshots: Option<Arc<dyn crate::snapshots::StepSnapshots>>,
}

/// The compaction agent's settings (`[agent.compaction]`); each unset one falls back
/// to Ward's summariser prompt, or the session's model and sampling.
#[derive(Clone, Debug, Default)]
pub struct CompactionAgent {
    /// Its system prompt.
    pub prompt: Option<String>,
    /// Its model.
    pub model: Option<ModelSetup>,
    /// Its sampling temperature.
    pub temperature: Option<f64>,
    /// Its nucleus sampling.
    pub top_p: Option<f64>,
}

impl Runner {
    /// A builder for a runner of `model` in `project`, storing in `store`, offering
    /// `tools` and asking `permissions`; every other setting has its default.
    pub fn builder(
        store: Arc<dyn Store>,
        tools: ToolBox,
        model: ModelSetup,
        permissions: PermissionEngine,
        project: PathBuf,
    ) -> crate::runner_builder::RunnerBuilder {
        crate::runner_builder::RunnerBuilder::new(store, tools, model, permissions, project)
    }

    /// The store the loop records in.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// Where this runner's asks go.
    pub fn permissions(&self) -> &PermissionEngine {
        &self.permissions
    }

    /// The project root.
    pub fn project(&self) -> &Path {
        &self.project
    }

    /// The agent this runner runs.
    pub fn agent(&self) -> &str {
        &self.agent
    }

    /// The model this runner calls.
    pub fn model(&self) -> &ModelSetup {
        &self.model
    }

    /// The permission layers this runner works under.
    pub fn rules(&self) -> &Arc<Vec<Ruleset>> {
        &self.rules
    }

    /// The sessions with a loop running (shared by every runner built with the same
    /// [`ActiveLoops`]).
    pub fn loops(&self) -> &ActiveLoops {
        &self.loops
    }

    /// The tools on offer.
    pub fn tools(&self) -> &ToolBox {
        &self.tools
    }
}

/// The nested instructions attached so far, per session (SPEC §5.1).
#[derive(Default)]
pub struct NestedState(Mutex<HashMap<String, NestedInstructions>>);

impl NestedState {
    /// The reminder to attach to a tool's read of `path` in `session_id`, if the file
    /// lies under a directory whose own `AGENTS.md` the model has not seen yet.
    pub fn attach_for(
        &self,
        session_id: &str,
        system: &SystemPrompt,
        path: &Path,
    ) -> Option<String> {
        let mut map = self.0.lock().ok()?;
        map.entry(session_id.to_string())
            .or_insert_with(|| {
                NestedInstructions::new(system.project(), system.loaded_instructions())
            })
            .attach_for(path)
    }
}

/// Why a prompt ended badly.
#[derive(Debug, thiserror::Error)]
pub enum LoopError {
    /// Storage failed.
    #[error("storage: {0}")]
    Store(#[from] ward_store::StoreError),
    /// The provider failed and retrying did not help (or could not).
    #[error("{0}")]
    Provider(#[from] ward_provider::ProviderError),
    /// [`Runner::abort`] cancelled the loop.
    #[error("aborted")]
    Aborted,
    /// The prompt joined a running loop, which failed.
    #[error("{0}")]
    Joined(Arc<LoopError>),
    /// The prompt joined a running loop whose task ended without an outcome.
    #[error("the session's loop ended without an answer")]
    Vanished,
    /// The session's loop is running, and what was asked needs it idle.
    #[error("the session is busy: its loop is running")]
    Busy,
    /// A compaction failed (as seen by a prompt that joined it).
    #[error("compaction failed: {0}")]
    Compaction(String),
    /// The model ended its turn with no text and no tool call, without an error:
    /// nothing to show and nothing to run, which must never pass for an answer.
    #[error(
        "the model ended its turn with no text and no tool call (finish reason: {})",
        crate::steps::reason_text(*finish)
    )]
    EmptyTurn {
        /// Why the model said it stopped.
        finish: FinishReason,
    },
}

/// What one loop carries from step to step, and across a hand-over to a prompt that
/// joined as it was about to stop.
pub(crate) struct LoopState {
    pub(crate) lease: Lease,
    pub(crate) history: History,
    /// Steps taken so far (the step limit counts them).
    pub(crate) steps: u32,
    /// The assistant message being filled, to close if the loop is aborted.
    pub(crate) current: Option<AssistantMessage>,
    /// Token counts of the history's parts.
    pub(crate) tally: Tally,
    /// The last tool step's "after" snapshot, still being taken.
    pub(crate) pending_patch: Option<crate::snapshots::PendingPatch>,
}

impl Runner {
    /// Sends `text` to `session` and returns the last assistant message once the
    /// session's loop is done. If the session is busy the message joins the running loop
    /// (which sees it on its next step) and this waits for that loop's outcome.
    pub async fn prompt(
        &self,
        session: &Session,
        text: &str,
    ) -> Result<AssistantMessage, LoopError> {
        self.prompt_with(session, text, Vec::new()).await
    }

    /// [`Runner::prompt`] with `context` added to the message as synthetic parts after
    /// what the user typed (the files a command template references, say).
    pub async fn prompt_with(
        &self,
        session: &Session,
        text: &str,
        context: Vec<String>,
    ) -> Result<AssistantMessage, LoopError> {
        let recorded = self.record(session, text)?;
        self.run_recorded(session, recorded, context).await
    }

    /// Who this runner's prompts are for: its agent, its model, its system text.
    pub fn addressee(&self) -> Addressee {
        Addressee {
            agent: self.agent.clone(),
            model: ModelRef::new(&self.model.provider, &self.model.model),
            system: self.user_system.clone(),
        }
    }

    /// Stores `text` as a prompt to this runner in `session`, without running it.
    pub fn record(&self, session: &Session, text: &str) -> Result<RecordedPrompt, LoopError> {
        Ok(RecordedPrompt::store(
            self.store.as_ref(),
            &session.id,
            self.addressee(),
            text,
        )?)
    }

    /// [`Runner::prompt_with`] for a prompt already stored (by [`Runner::record`], or
    /// by a front end before this runner was ready): the message is addressed to this
    /// runner if it was stored for another agent or model, then the loop runs on it.
    pub async fn run_recorded(
        &self,
        session: &Session,
        mut recorded: RecordedPrompt,
        context: Vec<String>,
    ) -> Result<AssistantMessage, LoopError> {
        recorded.address(self.store.as_ref(), self.addressee())?;
        let (user, typed) = (recorded.message(), recorded.typed());
        // `chat.message` hooks may add context to what the user typed, as parts of
        // its own marked synthetic (never rewriting the user's words).
        let message = serde_json::json!({ "info": user, "parts": [typed] }).to_string();
        let scope = self.session_scope(session);
        let hooked = self.tools.host().chat_message(&message, &scope).await;
        for extra in context.into_iter().chain(hooked) {
            let synthetic = PartKind::Text(TextPart {
                text: extra,
                synthetic: true,
                ..TextPart::default()
            });
            self.store
                .put_part(&Part::new(&session.id, &user.id, synthetic))?;
        }
        match self.loops.start_or_join(&session.id) {
            Entry::Joined(mut done) => loop {
                if let Some(outcome) = done.borrow_and_update().clone() {
                    return outcome.map_err(LoopError::Joined);
                }
                if done.changed().await.is_err() {
                    return Err(LoopError::Vanished);
                }
            },
            Entry::Started(lease) => {
                let state = LoopState {
                    lease,
                    history: History::default(),
                    steps: 0,
                    current: None,
                    tally: Tally::new(self.model.counter).with_images(self.image_blobs()),
                    pending_patch: None,
                };
                self.drive(session, user, state).await
            }
        }
    }

    /// Runs one tool in `session` outside a model step, exactly as the loop would
    /// (rules, hooks, truncation): a command template's `` !`cmd` `` and `@file`.
    pub async fn run_tool(
        &self,
        session: &Session,
        tool: &str,
        args: &serde_json::Value,
    ) -> Result<crate::ToolSuccess, crate::ToolCallError> {
        let scope = CallScope {
            call_id: format!("cmd_{}", now()),
            ..self.session_scope(session)
        };
        self.tools
            .execute(tool, &args.to_string(), scope, &[])
            .await
    }

    /// Runs the shell command `command` in `session` through the tool that runs the
    /// model's commands ([`ToolBox::command_runner`]), so the rules and hooks apply as
    /// to the model's own calls.
    pub async fn run_command(
        &self,
        session: &Session,
        command: &str,
    ) -> Result<crate::ToolSuccess, crate::ToolCallError> {
        let Some((tool, arg)) = self.tools.command_runner() else {
            return Err(crate::ToolCallError::respond(
                "no tool that runs commands is on offer in this session",
            ));
        };
        let args = serde_json::json!({ arg: command });
        self.run_tool(session, &tool, &args).await
    }

    /// Reads the file `path` in `session` through the tool that reads files
    /// ([`ToolBox::file_reader`]); with the result comes how it was read (`the read
    /// tool with {"filePath":"a.rs"}`), which the model is told.
    pub async fn read_file(
        &self,
        session: &Session,
        path: &str,
    ) -> Result<(crate::ToolSuccess, String), crate::ToolCallError> {
        let Some((tool, arg)) = self.tools.file_reader() else {
            return Err(crate::ToolCallError::respond(
                "no tool that reads files is on offer in this session",
            ));
        };
        let args = serde_json::json!({ arg: path });
        let out = self.run_tool(session, &tool, &args).await?;
        Ok((out, format!("the {tool} tool with {args}")))
    }

    /// The arguments slash command `command` should expand with in `session`: what
    /// the `command.before` hooks make of `arguments`.
    pub async fn command_arguments(
        &self,
        session: &Session,
        command: &str,
        arguments: &str,
    ) -> String {
        let scope = self.session_scope(session);
        self.tools
            .host()
            .command_before(command, arguments, &scope)
            .await
    }

    /// Cancels `session_id`'s running loop; `false` if it was idle.
    pub fn abort(&self, session_id: &str) -> bool {
        self.loops.abort(session_id)
    }

    async fn drive(
        &self,
        session: &Session,
        user: &UserMessage,
        mut state: LoopState,
    ) -> Result<AssistantMessage, LoopError> {
        self.status(session, SessionStatus::Busy);
        let outcome = loop {
            let cancel = state.lease.cancelled().clone();
            let stepped = tokio::select! {
                r = self.steps_until_done(session, user, &mut state) => Some(r),
                () = cancel.cancelled() => None,
            };
            crate::snapshots::settle_patch(&mut state).await;
            let outcome: SharedOutcome = match stepped {
                Some(r) => r.map_err(Arc::new),
                None => {
                    self.close_aborted(state.current.take());
                    Err(Arc::new(LoopError::Aborted))
                }
            };
            match state.lease.finish(outcome) {
                Ok(outcome) => break outcome,
                Err(lease) => state.lease = lease,
            }
        };
        self.prune_after_loop(session, &mut state.history, &mut state.tally);
        if outcome.is_ok() {
            self.title_if_untitled(session).await;
        }
        self.status(session, SessionStatus::Idle);
        let _ = self.store.flush();
        // This task holds the only other reference once joiners have their clones.
        outcome.map_err(|e| Arc::try_unwrap(e).unwrap_or_else(LoopError::Joined))
    }

    /// Closes the message an aborted step was filling: unfinished tool calls get the
    /// aborted error (so the model sees a result for each), the message the aborted one.
    fn close_aborted(&self, assistant: Option<AssistantMessage>) {
        let Some(mut assistant) = assistant else {
            return;
        };
        let end = now();
        let parts = self
            .store
            .messages(&assistant.session_id, Some(&assistant.id))
            .ok()
            .and_then(|ms| ms.into_iter().find(|m| m.info.id() == assistant.id))
            .map(|m| m.parts)
            .unwrap_or_default();
        for mut part in parts {
            if let PartKind::Tool(tool) = &mut part.kind
                && let Some(state) = tool.state.cut_short(TOOL_ABORTED, end)
            {
                tool.state = state;
                let _ = self.store.put_part(&part);
            }
        }
        assistant.error = Some(MessageError::new(
            ABORTED_ERROR,
            "The operation was aborted.",
        ));
        assistant.time.completed = Some(end);
        let _ = self.store.put_message(&MessageInfo::Assistant(assistant));
    }

    /// The session's scope outside any tool call: what hook plugins are called in, and
    /// what a tool call's scope starts from.
    pub(crate) fn session_scope(&self, session: &Session) -> CallScope {
        CallScope {
            session_id: session.id.clone(),
            message_id: String::new(),
            call_id: String::new(),
            agent: self.agent.clone(),
            project: self.project.clone(),
            rules: self.rules.clone(),
            permissions: self.permissions.clone(),
            progress: None,
            approved: Arc::new(Mutex::new(Vec::new())),
        }
    }

    pub(crate) fn cost(&self, u: &ward_provider::Usage) -> f64 {
        let [input, output, read, write] = self.model.prices;
        (u.input as f64 * input
            + u.output as f64 * output
            + u.cache_read as f64 * read
            + u.cache_write as f64 * write)
            / 1_000_000.0
    }

    pub(crate) fn status(&self, session: &Session, status: SessionStatus) {
        self.store.bus().publish(ward_store::Event::SessionStatus {
            session_id: session.id.clone(),
            status,
        });
    }
}

pub(crate) use ward_store::now_ms as now;
