//! Security tests: limits (being written).
