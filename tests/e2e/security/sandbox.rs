//! Security tests: sandbox (being written).
