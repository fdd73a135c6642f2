//! The security suite: for each boundary an independent red team broke, a hostile
//! component, package, command, URL or terminal string that attacks it, and the check
//! that the boundary holds and the host stays usable afterwards.

#[path = "security/config_guard.rs"]
mod config_guard;
#[path = "security/limits.rs"]
mod limits;
#[path = "security/names.rs"]
mod names;
#[path = "security/questions.rs"]
mod questions;
#[path = "security/sandbox.rs"]
mod sandbox;
#[path = "security/shell.rs"]
mod shell;
#[path = "security/terminal.rs"]
mod terminal;
#[path = "security/urls.rs"]
mod urls;
