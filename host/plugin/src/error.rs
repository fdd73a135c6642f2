//! Why a plugin call did not produce a result, and how a trap becomes one of those
//! reasons.
//!
//! A caller decides on a failure by its variant: a permission refusal arrives as
//! [`CallError::Permission`] (the host refused) or [`CallError::Rejected`] (the plugin
//! failed after the user rejected one of its questions), never as text to search.

use ward_permission::PermissionError;
use wasmtime::Trap;

use crate::bindings::ToolError;
use crate::load_error::LoadError;

/// A failed plugin call. Every variant's message is written for the model and the user:
/// it names the plugin and what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// No plugin provides the tool.
    #[error("unknown tool `{tool}`; available tools: {}", known.join(", "))]
    UnknownTool {
        /// The name asked for.
        tool: String,
        /// The names that exist.
        known: Vec<String>,
    },
    /// The plugin was disabled.
    #[error("plugin `{plugin}` is disabled: {reason}")]
    Disabled {
        /// The plugin.
        plugin: String,
        /// Why.
        reason: String,
    },
    /// The plugin could not be loaded.
    #[error("plugin `{plugin}` cannot be loaded: {reason}")]
    Load {
        /// The plugin.
        plugin: String,
        /// Why: a variant to branch on (not a source, since the message already
        /// includes it).
        reason: LoadError,
    },
    /// The tool itself reported an error.
    #[error("{}", tool_error_text(.0))]
    Tool(ToolError),
    /// The tool reported an error after the user rejected a question it put during the
    /// call (through `ask`, `exec`, `http-fetch` or a file access). The model reads the
    /// tool's own error; the caller decides on `refusal`, whatever the plugin wrote.
    #[error("{}", tool_error_text(.error))]
    Rejected {
        /// What the tool reported.
        error: ToolError,
        /// The user's answer ([`PermissionError::Rejected`], with any feedback).
        refusal: PermissionError,
    },
    /// The arguments were not acceptable.
    #[error("invalid arguments for `{tool}`: {message}")]
    InvalidArguments {
        /// The tool.
        tool: String,
        /// What is wrong, naming the field.
        message: String,
    },
    /// A permission rule or the user refused the call before it ran.
    #[error("{0}")]
    Permission(PermissionError),
    /// The call ran past its time limit.
    #[error("plugin `{plugin}` exceeded its time limit of {ms} ms and was stopped")]
    Timeout {
        /// The plugin.
        plugin: String,
        /// The limit.
        ms: u64,
    },
    /// The plugin hit its memory limit.
    #[error("plugin `{plugin}` ran out of memory (limit {mib} MiB) and was stopped")]
    Memory {
        /// The plugin.
        plugin: String,
        /// The limit.
        mib: usize,
    },
    /// The plugin trapped.
    #[error("plugin `{plugin}` crashed: {message}")]
    Trap {
        /// The plugin.
        plugin: String,
        /// The trap.
        message: String,
    },
    /// The plugin returned more than its output limit.
    #[error("plugin `{plugin}` returned {size} bytes, more than its output limit of {limit} bytes")]
    OutputTooLarge {
        /// The plugin.
        plugin: String,
        /// What it returned.
        size: usize,
        /// Its limit.
        limit: usize,
    },
    /// The plugin answered with something the host cannot use, e.g. a hook rewrote a
    /// tool's arguments into text that is not a JSON object.
    #[error("plugin `{plugin}` returned an unusable result: {message}")]
    BadResult {
        /// The plugin.
        plugin: String,
        /// What is wrong with it.
        message: String,
    },
    /// The host itself failed (engine set-up).
    #[error("plugin host: {0}")]
    Host(String),
}

impl CallError {
    /// The permission refusal behind the failure, if it was one: a rule's or the
    /// user's answer to the host, or the user's rejection of a question the plugin put.
    pub fn permission(&self) -> Option<&PermissionError> {
        match self {
            CallError::Permission(refusal) | CallError::Rejected { refusal, .. } => Some(refusal),
            _ => None,
        }
    }

    /// Whether the failure is the plugin's fault (and counts as a strike).
    pub fn is_plugin_fault(&self) -> bool {
        matches!(
            self,
            CallError::Timeout { .. }
                | CallError::Memory { .. }
                | CallError::Trap { .. }
                | CallError::OutputTooLarge { .. }
                | CallError::BadResult { .. }
        )
    }
}

/// Turns a plugin's typed error into the text the model reads.
pub fn tool_error_text(e: &ToolError) -> String {
    match e {
        ToolError::InvalidArguments(m) => format!("invalid arguments: {m}"),
        ToolError::Denied(m) => format!("denied: {m}"),
        ToolError::Failed(m) => m.clone(),
    }
}

/// The failure of a tool that reported `error`, given the rejection, if any, the user
/// gave to a question of the call ([`crate::state::CallEnv::rejection`]).
pub(crate) fn tool_failure(error: ToolError, rejection: Option<PermissionError>) -> CallError {
    match rejection {
        Some(refusal) => CallError::Rejected { error, refusal },
        None => CallError::Tool(error),
    }
}

/// Turns the error of a call into `plugin` into the reason the model and user read:
/// an epoch interrupt is a timeout, a trap after a refused allocation is running out of
/// memory, anything else a crash.
pub(crate) fn classify(
    plugin: &str,
    limits: &crate::state::CallLimits,
    err: &wasmtime::Error,
    memory_refused: bool,
) -> CallError {
    let plugin = plugin.to_string();
    match err.downcast_ref::<Trap>() {
        Some(Trap::Interrupt) => CallError::Timeout {
            plugin,
            ms: u64::try_from(limits.time.as_millis()).unwrap_or(u64::MAX),
        },
        _ if memory_refused => CallError::Memory {
            plugin,
            mib: limits.memory_bytes >> 20,
        },
        Some(Trap::StackOverflow) => CallError::Trap {
            plugin,
            message: "stack overflow (unbounded recursion?)".to_string(),
        },
        _ => CallError::Trap {
            plugin,
            message: trap_message(err),
        },
    }
}

/// The first line of a wasmtime error: the trap's own text, or the error's top cause.
pub(crate) fn trap_message(err: &wasmtime::Error) -> String {
    match err.downcast_ref::<Trap>() {
        Some(t) => t.to_string(),
        None => format!("{err:#}")
            .lines()
            .next()
            .unwrap_or_default()
            .to_string(),
    }
}
