//! Security tests: names (being written).
