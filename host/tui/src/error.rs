//! What can stop the terminal UI.

/// Why the UI stopped before the user left it.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// The terminal could not be set up, drawn on or read.
    #[error("terminal: {0}")]
    Terminal(#[from] std::io::Error),
    /// The session's history could not be read.
    #[error("reading the session's history: {0}")]
    History(#[from] ward_store::StoreError),
}
