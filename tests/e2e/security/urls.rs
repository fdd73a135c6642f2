//! Security tests: urls (being written).
