//! Security tests: terminal (being written).
