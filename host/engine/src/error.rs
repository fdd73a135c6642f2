//! What can go wrong opening a project or running a prompt, as types a frontend can
//! branch on (an abort, an unknown session, a model without a key) — never by
//! reading a message.

use std::path::PathBuf;

use ward_session::LoopError;

/// Why the engine could not open a project or do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The configuration could not be read.
    #[error(transparent)]
    Config(#[from] ward_config::ConfigError),
    /// A rule in `[permission]` is malformed.
    #[error("in the [permission] table: {0}")]
    Rules(#[from] ward_permission::RuleError),
    /// No data directory can be named.
    #[error("neither WARD_DATA_DIR nor HOME is set: no data directory")]
    NoDataDir,
    /// A directory Ward needs could not be made or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] ward_store::StoreError),
    /// A file the user attached cannot be sent (too large, not an image or PDF).
    #[error("cannot attach: {0}")]
    Attachment(String),
    /// The session asked for is not stored.
    #[error("session {id}: {source}")]
    Session {
        /// The id asked for.
        id: String,
        /// What the store said.
        source: ward_store::StoreError,
    },
    /// The plugin host could not start.
    #[error("plugins: {0}")]
    Plugins(#[from] ward_plugin::CallError),
    /// The model chosen cannot be used.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The agent chosen cannot lead a session.
    #[error(transparent)]
    Agent(#[from] AgentError),
    /// The binary that confines commands cannot be found.
    #[error("cannot find the sandbox helper: {0}")]
    Helper(std::io::Error),
    /// A permission reply could not be taken.
    #[error(transparent)]
    Permission(#[from] ward_permission::PermissionError),
    /// A question reply could not be taken.
    #[error(transparent)]
    Question(#[from] ward_session::question::QuestionError),
    /// A session could not be forked, renamed, imported or continued.
    #[error(transparent)]
    Manage(crate::manage::ManageError),
    /// The loop failed, or was aborted ([`LoopError::Aborted`]).
    #[error(transparent)]
    Loop(#[from] LoopError),
    /// Undo or redo was asked while the session's loop runs.
    #[error("session {id} is busy: wait for it to finish (or abort it) before reverting")]
    Busy {
        /// The session.
        id: String,
    },
    /// A revert or unrevert could not read or write the files' snapshots.
    #[error("snapshots: {0}")]
    Snapshot(#[from] ward_snapshot::SnapshotError),
    /// Snapshots are off (`snapshot = false`, or no `git`), so files cannot be
    /// reverted.
    #[error(
        "snapshots are off (`snapshot = false` in the configuration, or `git` was not found \
         on PATH): nothing to revert files from"
    )]
    SnapshotsOff,
    /// Undo or redo would restore files from a snapshot this data directory did not
    /// take (an imported session's): refused, nothing changed.
    #[error(transparent)]
    ForeignSnapshot(#[from] crate::provenance::ForeignSnapshot),
    /// The configuration could not be written as JSON.
    #[error("the configuration as JSON: {0}")]
    ConfigJson(serde_json::Error),
    /// A tool could not be called directly ([`crate::DirectCalls`]).
    #[error(transparent)]
    Tool(#[from] ward_protocol::ToolFailure),
}

impl EngineError {
    /// Whether this is the outcome of an abort (Ctrl-C, `abort`), not a failure.
    pub fn is_abort(&self) -> bool {
        matches!(self, EngineError::Loop(LoopError::Aborted))
    }

    /// Whether what was asked for does not exist: an unknown session, message or
    /// permission ask.
    pub fn is_not_found(&self) -> bool {
        matches!(
            self,
            EngineError::Session {
                source: ward_store::StoreError::NotFound { .. },
                ..
            } | EngineError::Store(ward_store::StoreError::NotFound { .. })
                | EngineError::Permission(ward_permission::PermissionError::UnknownRequest { .. })
                | EngineError::Question(
                    ward_session::question::QuestionError::UnknownRequest { .. }
                )
        )
    }

    /// Whether the request itself is wrong (an unknown or sub- agent, a model that
    /// does not resolve or has no key), as opposed to a failure while running it.
    pub fn is_bad_request(&self) -> bool {
        matches!(
            self,
            EngineError::Agent(_)
                | EngineError::Model(_)
                | EngineError::Attachment(_)
                | EngineError::Manage(_)
                | EngineError::Busy { .. }
                | EngineError::ForeignSnapshot(_)
                | EngineError::Question(ward_session::question::QuestionError::WrongCount { .. })
        )
    }
}

/// Why a model reference cannot be called.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// Neither the request, the agent nor the configuration names a model.
    #[error("no model chosen: set `model = \"provider/model\"` in ward.toml or pass --model")]
    NotChosen,
    /// The registry does not know it, or its configuration is wrong.
    #[error(transparent)]
    Registry(#[from] ward_provider::RegistryError),
    /// The provider of a resolved model is not in the registry.
    #[error("model `{reference}`: provider `{provider}` vanished")]
    ProviderVanished {
        /// The model asked for.
        reference: String,
        /// Its provider.
        provider: String,
    },
    /// The provider needs a key and none is set.
    #[error(
        "model `{reference}`: no API key for provider `{provider}`: set {vars} or `api_key` in \
         [provider.{provider}]"
    )]
    NoKey {
        /// The model asked for.
        reference: String,
        /// Its provider.
        provider: String,
        /// The environment variables that would hold a key, `A or B`.
        vars: String,
    },
}

/// Why an agent cannot lead a session.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// It is a subagent: it runs through the `task` tool.
    #[error(
        "agent `{name}` is a subagent: it runs through the task tool; primary agents: {primary}"
    )]
    Subagent {
        /// The agent asked for.
        name: String,
        /// The primary agents, comma-separated.
        primary: String,
    },
    /// No agent has that name.
    #[error("no agent named `{name}`; primary agents: {primary}")]
    Unknown {
        /// The agent asked for.
        name: String,
        /// The primary agents, comma-separated.
        primary: String,
    },
}
