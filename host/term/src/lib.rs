//! Ward's terminal boundary. Text from a model, a tool, a plugin, a package index or a
//! server is untrusted: before a terminal shows it, every escape sequence, control
//! character, bidi override and invisible format character in it is rendered as a
//! visible escape ([`inert`], [`inert_line`]). The `ward` binary prints only through
//! this crate's macros ([`outln!`], [`eoutln!`], …), which render every line inert,
//! and writes JSON with [`json_line`], which escapes the same characters the JSON way.

mod inert;
mod json;
mod output;

pub use inert::{inert, inert_line};
pub use json::json_line;
pub use output::{InertStderr, Stream, is_terminal, rewrite_line, write};
