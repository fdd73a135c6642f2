//! The handlers, one module per resource; each declares its route and its schemas
//! with `#[utoipa::path]`, from which the OpenAPI document is made.

pub mod app;
pub mod diff;
pub mod events;
pub mod fork;
pub mod messages;
pub mod permissions;
pub mod project;
pub mod prompt_files;
pub mod question;
pub mod revert;
pub mod services;
pub mod sessions;
pub mod unserved;
