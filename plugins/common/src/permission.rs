//! Asking the session's `edit` permission before a tool changes files, with the diff as
//! the question's details so the user sees what would change (as OpenCode does).
//!
//! This calls a host import, so it only works inside the component; tools keep it out
//! of the plain functions their unit tests call.

use std::path::Path;

use serde_json::json;
use ward_sdk::ToolError;

use crate::path::display_path;

/// Asks `edit` permission for `paths` (shown relative to the project directory), with
/// `diff` as details. A refusal becomes [`ToolError::Denied`] carrying the reason.
pub fn ask_edit(directory: &str, paths: &[&Path], diff: &str) -> Result<(), ToolError> {
    let patterns: Vec<String> = paths.iter().map(|p| display_path(directory, p)).collect();
    let filepath = paths
        .first()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    ward_sdk::ask(
        "edit",
        &patterns,
        &json!({ "filepath": filepath, "files": patterns, "diff": diff }),
    )
    .map_err(ToolError::Denied)
}

/// A host import's error string as a [`ToolError`]: [`ToolError::Denied`] when it reads as
/// a refusal by a capability, a rule or the user (the WIT returns a plain string), else
/// [`ToolError::Failed`].
pub fn host_error(context: &str, message: String) -> ToolError {
    let lower = message.to_lowercase();
    let refused = ["denied", "reject", "not granted", "not allowed", "refused"]
        .iter()
        .any(|word| lower.contains(word));
    if refused {
        ToolError::Denied(message)
    } else {
        ToolError::Failed(format!("{context}: {message}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_denials() {
        assert!(matches!(
            host_error("exec", "permission denied by rule bash git push *".into()),
            ToolError::Denied(_)
        ));
        match host_error("exec", "spawn failed: no such file".into()) {
            ToolError::Failed(m) => assert_eq!(m, "exec: spawn failed: no such file"),
            other => panic!("unexpected {other:?}"),
        }
    }
}
