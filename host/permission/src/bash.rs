//! Bash commands as permission patterns.
//!
//! A shell command is parsed with bash's grammar ([`analyze`]) into the simple
//! commands it runs and the files it redirects to; [`BashQuestion`] turns that into
//! `bash` patterns — one per simple command, or the whole command, always asked
//! about, when the parser is unsure. Answering "always" stores a command's prefix by
//! arity ([`always_pattern`]), e.g. `git checkout *` rather than the exact command.

mod analyze;
mod arity;
mod question;
mod redirect;
mod word;

pub use analyze::{CommandAnalysis, Redirect, SimpleCommand, Unsure, analyze};
pub use arity::always_pattern;
pub use question::{BashQuestion, UNSURE_MARK};
pub use word::quote;

#[cfg(test)]
mod tests;
