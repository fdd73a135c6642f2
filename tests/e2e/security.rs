//! The security suite: for each boundary an independent red team broke, a hostile
//! component, package, command, URL or terminal string that attacks it, and the check
//! that the boundary holds and the host stays usable afterwards.

mod config_guard;
mod limits;
mod names;
mod planted;
mod questions;
mod sandbox;
mod shell;
mod terminal;
mod trust;
mod urls;
