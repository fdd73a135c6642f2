//! Bash commands as permission patterns.
//!
//! A shell command is checked as one `bash` pattern per simple command
//! ([`split_commands`]); answering "always" stores the command's prefix by arity
//! ([`always_pattern`]), e.g. `git checkout *` rather than the exact command.

mod arity;
mod split;

pub use arity::always_pattern;
pub use split::split_commands;
