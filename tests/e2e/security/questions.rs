//! Security tests: questions (being written).
