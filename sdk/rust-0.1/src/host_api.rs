//! Friendly wrappers over the `ward:plugin/host` imports.

use crate::bindings::ward::plugin::host;

pub use host::{ExecOutput, HttpResponse, LogLevel};

/// Writes a line to Ward's log.
pub fn log(level: LogLevel, message: &str) {
    host::log(level, message);
}

/// Updates the running tool call's title and metadata.
pub fn progress(title: Option<&str>, metadata: &serde_json::Value) {
    host::progress(title, &metadata.to_string());
}

/// Asks the permission engine; `Err` carries the denial reason or the user's feedback.
pub fn ask(
    permission: &str,
    patterns: &[String],
    metadata: &serde_json::Value,
) -> Result<(), String> {
    host::ask(permission, patterns, &metadata.to_string())
}

/// Runs a shell command on the host (requires the `exec` capability).
pub fn exec(
    command: &str,
    workdir: Option<&str>,
    timeout_ms: Option<u32>,
) -> Result<ExecOutput, String> {
    host::exec(&host::ExecRequest {
        command: command.to_string(),
        workdir: workdir.map(str::to_string),
        timeout_ms,
        stdin: None,
        env: Vec::new(),
    })
}

/// Fetches a URL with GET (requires the `net` capability for its host).
pub fn http_fetch(
    url: &str,
    headers: &[(String, String)],
    timeout_ms: Option<u32>,
) -> Result<HttpResponse, String> {
    host::http_fetch(&host::HttpRequest {
        method: "GET".to_string(),
        url: url.to_string(),
        headers: headers.to_vec(),
        body: None,
        timeout_ms,
        max_bytes: None,
    })
}
