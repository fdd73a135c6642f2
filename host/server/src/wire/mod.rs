//! What goes over the wire: OpenCode's JSON shapes for sessions, messages, parts,
//! permission asks and events, converted from the engine's types. Every type here
//! derives its schema for the OpenAPI document.

pub mod event;
pub mod message;
pub mod requests;
pub mod revert;
pub mod session;
