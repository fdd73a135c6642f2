//! Ward's engine: the one entry point every frontend shares.
//!
//! [`Engine::open`] reads a project once — configuration, plugins (compiled and
//! sandboxed), agents, skills, commands, the SQLite store and the model registry —
//! and then runs its sessions: [`Engine::prompt`] sends a prompt (expanding
//! `/commands` and `@mentions`), [`Engine::subscribe`] streams every event as it
//! happens (the store's bus, permission asks and replies, plugin events),
//! [`Engine::reply`] answers an ask, [`Engine::abort`] stops a loop. Subagents,
//! titles and compaction run inside. `ward run`, the interactive mode and every
//! later frontend only parse their input and render these events.
//!
//! The crate is split by job: [`workspace`] (what a directory's files and plugins
//! make of it), [`model`] (a model reference to something callable), [`slash`]
//! (what a typed prompt becomes), the runners built per agent and model, the
//! subagents, and the event bridge. What crosses the door is `ward-protocol`'s:
//! frontends read the project through [`Engine`]'s methods (`offers`: agents,
//! commands, models, tools), call one tool through [`DirectCalls`], and depend on
//! this crate and the protocol crate alone.

mod attachments;
mod direct;
mod engine;
pub mod error;
mod events;
pub mod manage;
pub mod model;
mod offers;
mod options;
mod origins;
pub mod paths;
mod plugins;
mod provenance;
mod questions;
mod revert;
mod runners;
pub mod sandbox;
mod sessions;
pub mod slash;
mod snapshot;
mod subagents;
mod summary;
mod transfer;
pub mod workspace;

pub use attachments::{ClientFile, ClientFileSource};
pub use direct::{CallIds, DirectCalls};
pub use engine::{Engine, Opened, PendingPrompt, PromptRequest, Turn, open_store};
pub use error::{AgentError, EngineError, ModelError};
pub use options::EngineOptions;
pub use origins::located_rules;
pub use provenance::ForeignSnapshot;
pub use revert::Undone;
pub use workspace::{Settings, Workspace, primary_agent, rules};

// What frontends name in what they render and answer, so they need not depend on
// the crates below the engine for it.
pub use ward_permission::{AskRequest, Reply};
pub use ward_session::question::{Answerer, QuestionError};
pub use ward_store::{Event, QuestionRequest, Session, Subscription};
