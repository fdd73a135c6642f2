//! Token counting (in progress).
