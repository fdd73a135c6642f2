//! System prompt assembly (in progress).
