//! What goes wrong serving ACP, and the JSON-RPC error each becomes: every request
//! that cannot be served gets an error response saying why, never a panic and never
//! a dropped connection.

use agent_client_protocol::{Error as RpcError, ErrorCode};
use ward_engine::EngineError;

/// Why a request could not be served.
#[derive(Debug, thiserror::Error)]
pub enum AcpError {
    /// No session with this id is open on the connection (nor stored, for a load).
    #[error("unknown session `{0}`: create it with session/new or open it with session/load")]
    UnknownSession(String),
    /// A prompt was sent to a session whose previous prompt is still running.
    #[error(
        "session `{0}` is already running a prompt: wait for its response or send session/cancel"
    )]
    Busy(String),
    /// `session/set_mode` named something that is not one of Ward's primary agents.
    #[error("unknown mode `{mode}`: the modes are {modes}")]
    UnknownMode {
        /// What was asked for.
        mode: String,
        /// The primary agents, comma-separated.
        modes: String,
    },
    /// A `cwd` that is not an absolute, existing directory.
    #[error("cwd `{0}` is not an absolute path to a directory")]
    BadCwd(String),
    /// The prompt had nothing Ward can send (only images or audio, say).
    #[error("the prompt has no text Ward can send (images and audio are not supported)")]
    EmptyPrompt,
    /// The engine failed: opening the project, storing, the model (boxed: it is
    /// large, and every handler returns this).
    #[error(transparent)]
    Engine(Box<EngineError>),
}

impl From<EngineError> for AcpError {
    fn from(error: EngineError) -> Self {
        AcpError::Engine(Box::new(error))
    }
}

impl From<AcpError> for RpcError {
    fn from(error: AcpError) -> Self {
        let code = match &error {
            AcpError::UnknownSession(_) => ErrorCode::RESOURCE_NOT_FOUND,
            AcpError::Busy(_) => ErrorCode::INVALID_REQUEST,
            AcpError::UnknownMode { .. } | AcpError::BadCwd(_) | AcpError::EmptyPrompt => {
                ErrorCode::INVALID_PARAMS
            }
            AcpError::Engine(_) => ErrorCode::INTERNAL_ERROR,
        };
        let rpc = RpcError::new(code, error.to_string());
        match &error {
            AcpError::UnknownSession(id) | AcpError::Busy(id) => {
                rpc.data(serde_json::json!({ "sessionId": id }))
            }
            _ => rpc,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_keep_their_code_and_say_why() {
        let busy: RpcError = AcpError::Busy("ses_1".into()).into();
        assert_eq!(busy.code, ErrorCode::INVALID_REQUEST);
        assert!(busy.message.contains("already running"), "{}", busy.message);
        let unknown: RpcError = AcpError::UnknownSession("nope".into()).into();
        assert_eq!(unknown.code, ErrorCode::RESOURCE_NOT_FOUND);
        assert_eq!(
            unknown.data,
            Some(serde_json::json!({ "sessionId": "nope" }))
        );
    }
}
