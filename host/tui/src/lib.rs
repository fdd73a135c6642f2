//! Ward's full-screen terminal UI, a frontend over [`ward_engine::Engine`] like the
//! server and the ACP bridge: the binary opens the engine and a session and hands
//! them to [`run`], which owns the terminal until the user leaves.
//!
//! The crate is split by job: [`safe`](crate::safe) makes untrusted text cell
//! content, `conversation` folds the engine's events into what is shown, `wrap` and
//! `view` lay it out (`markdown` and `highlight` style the model's answers), `input`
//! is the prompt being typed (`mention` completes its `@` names), `dialog` the
//! permission asks and the model's questions, `terminal` the raw-mode/alternate-screen
//! guard, and `app` the event loop tying them together; `builtins`, `picker` and
//! `undo` run the UI's own slash commands.

mod app;
mod builtins;
mod conversation;
mod dialog;
mod error;
mod highlight;
mod input;
mod markdown;
mod mention;
mod picker;
pub mod safe;
mod slash;
mod terminal;
mod undo;
mod view;
#[cfg(test)]
mod view_tests;
mod wrap;

pub use app::{Options, run};
pub use error::TuiError;
