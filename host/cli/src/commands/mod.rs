//! One module per `ward` subcommand.

pub mod permission;
pub mod plugin;
pub mod tool;
