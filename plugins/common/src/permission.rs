//! Asking the session's `edit` permission before a tool changes files, with the diff as
//! the question's details so the user sees what would change (as OpenCode does).
//!
//! This calls a host import, so it only works inside the component; tools keep it out
//! of the plain functions their unit tests call.

use std::path::Path;

use serde_json::json;
use ward_sdk::{HostError, ToolError};

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
    .map_err(|e| host_error("asking for permission failed", e))
}

/// A host import's error as a [`ToolError`], by its case: a refusal by a capability, a
/// rule or the user ([`HostError::Denied`]) is [`ToolError::Denied`] with the host's
/// message as it is; anything else is [`ToolError::Failed`], the message prefixed with
/// `context` (what the tool was doing).
pub fn host_error(context: &str, error: HostError) -> ToolError {
    match error {
        HostError::Denied(message) => ToolError::Denied(message),
        HostError::Invalid(message) | HostError::Failed(message) | HostError::Timeout(message) => {
            ToolError::Failed(format!("{context}: {message}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_case_decides_not_the_words() {
        // A refusal whose text says nothing of refusing is still a denial…
        match host_error("exec", HostError::Denied("no".into())) {
            ToolError::Denied(m) => assert_eq!(m, "no"),
            other => panic!("unexpected {other:?}"),
        }
        // …and a failure that mentions "denied" is still a failure.
        match host_error("exec", HostError::Failed("sh: permission denied".into())) {
            ToolError::Failed(m) => assert_eq!(m, "exec: sh: permission denied"),
            other => panic!("unexpected {other:?}"),
        }
        for e in [
            HostError::Invalid("bad URL".into()),
            HostError::Timeout("timed out".into()),
        ] {
            assert!(matches!(host_error("fetch", e), ToolError::Failed(_)));
        }
    }
}
