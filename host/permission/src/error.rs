//! Errors of the ask channel.
//!
//! Owns [`PermissionError`] and [`SaveError`]. The `Denied` and `Rejected` messages are
//! shown to the model as the tool call's result, so they are written for it to read and
//! act on; what the loop does about one is decided by its variant
//! ([`PermissionError::is_rejection`], [`PermissionError::feedback`]), never its text.

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
    Store(SaveError),
}

impl PermissionError {
    /// Whether a person said no (an answer of "reject", or another ask of the session
    /// rejected with it), as opposed to a rule.
    pub fn is_rejection(&self) -> bool {
        matches!(self, PermissionError::Rejected { .. })
    }

    /// What the user told the model with a rejection; `None` for any other refusal,
    /// and for a rejection without feedback (blank feedback is none: it is not shown).
    pub fn feedback(&self) -> Option<&str> {
        match self {
            PermissionError::Rejected { feedback } => given(feedback),
            _ => None,
        }
    }
}

/// Why an [`ApprovalStore`](crate::ApprovalStore) could not keep approvals. The store's
/// own error is reported as text: stores differ, and Ward only shows it to the user.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{reason}")]
pub struct SaveError {
    /// The project the approvals are for.
    pub project: String,
    /// The agent scope they were to be stored under ([`crate::approval_scope`]).
    pub scope: String,
    /// What the store said.
    pub reason: String,
}

fn feedback_suffix(feedback: &Option<String>) -> String {
    match given(feedback) {
        Some(text) => format!(" Feedback: {text}"),
        None => String::new(),
    }
}

/// Feedback worth showing: trimmed, and none when blank.
fn given(feedback: &Option<String>) -> Option<&str> {
    feedback
        .as_deref()
        .map(str::trim)
        .filter(|text| !text.is_empty())
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

    #[test]
    fn a_rejection_is_told_from_a_rule_by_its_variant() {
        let with = PermissionError::Rejected {
            feedback: Some(" use cargo check ".into()),
        };
        assert!(with.is_rejection());
        assert_eq!(with.feedback(), Some("use cargo check"));
        for without in [
            PermissionError::Rejected { feedback: None },
            PermissionError::Rejected {
                feedback: Some(" \n".into()),
            },
        ] {
            assert!(without.is_rejection());
            assert_eq!(without.feedback(), None, "{without:?}");
        }
        // A rule's refusal is no rejection, even if its text quoted one.
        let denied = PermissionError::Denied {
            permission: "bash".into(),
            pattern: "echo The user rejected permission to use this tool call.".into(),
            rule: "`bash echo * = deny` (ward.toml)".into(),
        };
        assert!(!denied.is_rejection());
        assert_eq!(denied.feedback(), None);
    }
}
