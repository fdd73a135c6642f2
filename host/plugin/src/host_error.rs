//! Why a host import (`ask`, `exec`, `http-fetch`) did not do what a plugin asked: the
//! host's own, version-independent error, decided where the refusal or failure happens
//! (a missing grant, a rule, a bad request, a process that could not start), never
//! read back from a message.
//!
//! Each `ward:plugin` version turns it into what its contract says: 0.2.0 into the
//! `host-error` variant, case for case; 0.1.0 into the bare message it always got.

use ward_permission::PermissionError;

/// A host import's error. The payload is the message for people and the model; the
/// case is what a plugin branches on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum HostError {
    /// A capability grant, a permission rule or the user refused it.
    #[error("{0}")]
    Denied(String),
    /// The request itself is wrong (an empty command, a bad URL, a missing directory).
    #[error("{0}")]
    Invalid(String),
    /// It was allowed and tried, and did not work.
    #[error("{0}")]
    Failed(String),
    /// It was allowed and tried, and ran out of time.
    #[error("{0}")]
    Timeout(String),
}

impl From<PermissionError> for HostError {
    /// A rule's deny and a person's rejection are refusals; a reply to no pending
    /// question or an approval that could not be saved is the host failing.
    fn from(e: PermissionError) -> Self {
        match e {
            PermissionError::Denied { .. } | PermissionError::Rejected { .. } => {
                HostError::Denied(e.to_string())
            }
            PermissionError::UnknownRequest { .. } | PermissionError::Store(_) => {
                HostError::Failed(e.to_string())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permission_refusals_are_denials() {
        let denied = PermissionError::Denied {
            permission: "bash".into(),
            pattern: "rm *".into(),
            rule: "`bash rm * = deny`".into(),
        };
        let text = denied.to_string();
        assert_eq!(HostError::from(denied), HostError::Denied(text));
        let rejected = PermissionError::Rejected { feedback: None };
        assert!(matches!(HostError::from(rejected), HostError::Denied(_)));
        let unknown = PermissionError::UnknownRequest { id: "x".into() };
        assert!(matches!(HostError::from(unknown), HostError::Failed(_)));
    }
}
