//! Security tests: shell (being written).
