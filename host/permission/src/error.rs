//! Errors of the ask channel.
//!
//! Owns [`PermissionError`]. The `Denied` and `Rejected` messages are shown to the
//! model as the tool call's result, so they are written for it to read and act on.

use thiserror::Error;

/// Why a permission check did not let a tool call through, or a reply failed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PermissionError {
    /// A deny rule matched.
    #[error(
        "Permission denied by rule {rule}: {permission} `{pattern}` is not allowed. \
         Do not retry this call; if it is needed, ask the user to change the permission rules."
    )]
    Denied {
        /// The permission checked (`bash`, `read`, …).
        permission: String,
        /// The pattern that was denied.
        pattern: String,
        /// The deciding rule, as `` `bash rm * = deny` (ward.toml) ``.
        rule: String,
    },
    /// The user answered "reject", or rejected another pending ask of the session.
    #[error("The user rejected permission to use this tool call.{}", feedback_suffix(.feedback))]
    Rejected {
        /// What the user said about it, if anything.
        feedback: Option<String>,
    },
    /// A reply named an ask that is not (or no longer) pending.
    #[error("no pending permission request with id {id}")]
    UnknownRequest {
        /// The id from the reply.
        id: String,
    },
    /// An "always" approval let the call through but could not be persisted.
    #[error("the approval was applied once but could not be saved: {0}")]
    Store(String),
}

fn feedback_suffix(feedback: &Option<String>) -> String {
    match feedback.as_deref().map(str::trim) {
        Some(text) if !text.is_empty() => format!(" Feedback: {text}"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_for_the_model() {
        let denied = PermissionError::Denied {
            permission: "bash".into(),
            pattern: "rm -rf x".into(),
            rule: "`bash rm * = deny` (ward.toml)".into(),
        };
        assert!(
            denied
                .to_string()
                .starts_with("Permission denied by rule `bash rm * = deny` (ward.toml): bash `rm -rf x` is not allowed.")
        );
        let rejected = PermissionError::Rejected {
            feedback: Some("use cargo check instead".into()),
        };
        assert_eq!(
            rejected.to_string(),
            "The user rejected permission to use this tool call. Feedback: use cargo check instead"
        );
        let bare = PermissionError::Rejected { feedback: None };
        assert_eq!(
            bare.to_string(),
            "The user rejected permission to use this tool call."
        );
        let blank = PermissionError::Rejected {
            feedback: Some("  ".into()),
        };
        assert_eq!(blank.to_string(), bare.to_string());
    }
}
