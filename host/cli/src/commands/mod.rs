//! One module per `ward` subcommand.

pub mod agent;
pub mod chat;
pub mod command;
pub mod models;
pub mod permission;
pub mod plugin;
pub mod run;
pub mod session;
pub mod skill;
pub mod tool;
