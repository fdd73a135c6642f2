//! What can stop the terminal UI.

/// Why the UI stopped before the user left it.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// The terminal could not be set up, drawn on or read.
    #[error("terminal: {0}")]
    Terminal(#[from] std::io::Error),
    /// The session's history could not be read.
    #[error("reading the session's history: {0}")]
    History(Box<ward_engine::EngineError>),
}

impl From<ward_engine::EngineError> for TuiError {
    fn from(error: ward_engine::EngineError) -> Self {
        TuiError::History(Box::new(error))
    }
}
