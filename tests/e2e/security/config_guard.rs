//! Security tests: config_guard (being written).
