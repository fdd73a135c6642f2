//! Friendly wrappers over the `ward:plugin/host` imports.
//!
//! `ask`, `exec` and `http_fetch` fail with a [`HostError`]: branch on its case
//! (`Denied`, `Invalid`, `Failed`, `Timeout`), never on its message, whose wording is
//! for people and may change.

use crate::bindings::ward::plugin::host;

pub use crate::bindings::ward::plugin::types::HostError;
pub use host::{ExecOutput, HttpResponse, LogLevel};

// `HostError` comes with the generated `Display` (its `Debug` form) and
// `std::error::Error`; `message` is the text to show a person or the model.
impl HostError {
    /// The human message, whatever the case.
    pub fn message(&self) -> &str {
        match self {
            HostError::Denied(m)
            | HostError::Invalid(m)
            | HostError::Failed(m)
            | HostError::Timeout(m) => m,
        }
    }

    /// The case's name as the WIT spells it: `denied`, `invalid`, `failed` or `timeout`.
    pub fn case(&self) -> &'static str {
        match self {
            HostError::Denied(_) => "denied",
            HostError::Invalid(_) => "invalid",
            HostError::Failed(_) => "failed",
            HostError::Timeout(_) => "timeout",
        }
    }

    /// Whether a capability, a permission rule or the user refused the request.
    pub fn is_denied(&self) -> bool {
        matches!(self, HostError::Denied(_))
    }
}

/// Writes a line to Ward's log.
pub fn log(level: LogLevel, message: &str) {
    host::log(level, message);
}

/// Updates the running tool call's title and metadata.
pub fn progress(title: Option<&str>, metadata: &serde_json::Value) {
    host::progress(title, &metadata.to_string());
}

/// Asks the permission engine; a refusal is [`HostError::Denied`], carrying the denying
/// rule or the user's feedback.
pub fn ask(
    permission: &str,
    patterns: &[String],
    metadata: &serde_json::Value,
) -> Result<(), HostError> {
    host::ask(permission, patterns, &metadata.to_string())
}

/// Runs a shell command on the host (requires the `exec` capability; without it, or
/// when a rule or the user refuses the command, [`HostError::Denied`]).
pub fn exec(
    command: &str,
    workdir: Option<&str>,
    timeout_ms: Option<u32>,
) -> Result<ExecOutput, HostError> {
    host::exec(&host::ExecRequest {
        command: command.to_string(),
        workdir: workdir.map(str::to_string),
        timeout_ms,
        stdin: None,
        env: Vec::new(),
    })
}

/// Fetches a URL with GET (requires the `net` capability for its host; without it,
/// [`HostError::Denied`]).
pub fn http_fetch(
    url: &str,
    headers: &[(String, String)],
    timeout_ms: Option<u32>,
) -> Result<HttpResponse, HostError> {
    host::http_fetch(&host::HttpRequest {
        method: "GET".to_string(),
        url: url.to_string(),
        headers: headers.to_vec(),
        body: None,
        timeout_ms,
        max_bytes: None,
    })
}
