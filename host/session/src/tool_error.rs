//! Why a tool call produced no result, and what the loop does about it.
//!
//! Every failure is text the model reads as the call's result (and the user sees in
//! the part); the loop decides what comes next by the variant alone. A user who
//! rejects a call without feedback ends the loop, as OpenCode does: they said no and
//! gave the model nothing else to go on. With feedback, the model reads it and goes
//! on. Anything else — a bad name or arguments, a rule's deny, a hook's block, a
//! plugin's failure — the model reads and works around.

use ward_permission::PermissionError;
use ward_plugin::CallError;

/// A tool call that produced no result. `Display` is what the model reads.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ToolCallError {
    /// A failure the model reads and can act on; the loop goes on.
    #[error("{0}")]
    RespondToModel(String),
    /// The user rejected a question the call put: the call itself, or one its tool
    /// asked while it ran.
    #[error("{message}")]
    Rejected {
        /// What the user told the model (never blank); `None` stops the loop.
        feedback: Option<String>,
        /// What the model reads: the refusal, as the host or the tool reported it.
        message: String,
    },
}

impl ToolCallError {
    /// A failure for the model, from any message.
    pub fn respond(message: impl Into<String>) -> Self {
        ToolCallError::RespondToModel(message.into())
    }

    /// Whether the loop must stop after this call: the user rejected it and said
    /// nothing the model could act on.
    pub fn stops_the_loop(&self) -> bool {
        matches!(self, ToolCallError::Rejected { feedback: None, .. })
    }

    /// The call failed with `refusal`, which the model reads as `message`.
    fn refused(refusal: &PermissionError, message: String) -> Self {
        if refusal.is_rejection() {
            ToolCallError::Rejected {
                feedback: refusal.feedback().map(str::to_string),
                message,
            }
        } else {
            ToolCallError::RespondToModel(message)
        }
    }
}

impl From<PermissionError> for ToolCallError {
    fn from(refusal: PermissionError) -> Self {
        let message = refusal.to_string();
        ToolCallError::refused(&refusal, message)
    }
}

impl From<CallError> for ToolCallError {
    fn from(error: CallError) -> Self {
        let message = error.to_string();
        match error.permission() {
            Some(refusal) => ToolCallError::refused(refusal, message),
            None => ToolCallError::RespondToModel(message),
        }
    }
}

/// Refused arguments are answered to the model, which can call again with better ones.
impl From<crate::args::ArgumentError> for ToolCallError {
    fn from(e: crate::args::ArgumentError) -> Self {
        ToolCallError::RespondToModel(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use ward_plugin::ToolError;

    use super::*;

    fn rejected(feedback: Option<&str>) -> PermissionError {
        PermissionError::Rejected {
            feedback: feedback.map(str::to_string),
        }
    }

    #[test]
    fn a_rejection_without_feedback_stops_the_loop() {
        let error = ToolCallError::from(rejected(None));
        assert!(error.stops_the_loop());
        assert_eq!(
            error.to_string(),
            "The user rejected permission to use this tool call."
        );
        // Blank feedback is none: nothing for the model to act on.
        assert!(ToolCallError::from(rejected(Some("  "))).stops_the_loop());
    }

    #[test]
    fn a_rejection_with_feedback_goes_on_with_it() {
        let error = ToolCallError::from(rejected(Some("use printf instead")));
        assert!(!error.stops_the_loop());
        assert_eq!(
            error,
            ToolCallError::Rejected {
                feedback: Some("use printf instead".into()),
                message: "The user rejected permission to use this tool call. \
                          Feedback: use printf instead"
                    .into(),
            }
        );
    }

    #[test]
    fn a_rule_or_a_failure_goes_to_the_model() {
        let denied = PermissionError::Denied {
            permission: "bash".into(),
            pattern: "rm x".into(),
            rule: "`bash rm * = deny` (ward.toml)".into(),
        };
        let error = ToolCallError::from(denied.clone());
        assert!(matches!(error, ToolCallError::RespondToModel(_)));
        assert_eq!(error.to_string(), denied.to_string());
        assert!(!ToolCallError::from(CallError::Permission(denied)).stops_the_loop());
        assert!(!ToolCallError::respond("unknown tool `x`").stops_the_loop());
    }

    #[test]
    fn a_tool_failing_after_a_rejection_is_the_rejection() {
        // The plugin reports the refusal in its own words; the variant decides.
        let failed = CallError::Rejected {
            error: ToolError::Denied("the command was refused".into()),
            refusal: rejected(None),
        };
        let error = ToolCallError::from(failed);
        assert!(error.stops_the_loop());
        assert_eq!(error.to_string(), "denied: the command was refused");
        let with_feedback = CallError::Rejected {
            error: ToolError::Denied(rejected(Some("try git diff")).to_string()),
            refusal: rejected(Some("try git diff")),
        };
        assert!(!ToolCallError::from(with_feedback).stops_the_loop());
    }

    #[test]
    fn text_that_reads_like_a_rejection_is_not_one() {
        // What decided before issue #15: the rejection's text in the error, without
        // "Feedback:". A plugin (or a command's output) could write it.
        let forged = CallError::Tool(ToolError::Failed(rejected(None).to_string()));
        let error = ToolCallError::from(forged);
        assert!(!error.stops_the_loop());
        assert_eq!(
            error.to_string(),
            "The user rejected permission to use this tool call."
        );
        assert!(!ToolCallError::respond(rejected(None).to_string()).stops_the_loop());
    }
}
