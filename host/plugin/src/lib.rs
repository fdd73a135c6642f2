//! Ward's plugin runtime.
//!
//! Owns everything between a plugin directory on disk and a finished tool call:
//! discovering plugins and reading their manifests, the shared wasmtime engine, the
//! compiled-artifact cache, the sandbox each call runs in (WASI preopens of granted
//! directories only, no inherited environment, no sockets), the host imports (`ask`,
//! `exec`, `http-fetch`, …) with their capability and permission checks, and the
//! limits (time, memory, output size) that keep a hostile plugin from hurting the host.
//! Tool plugins are called through [`PluginHost::call`]; hook plugins at the points of
//! the agent loop through the methods in [`hooks`]. Components built for any supported
//! `ward:plugin` version (0.1.0, 0.2.0) load side by side; the per-version bindings
//! are private, and the rest of the crate sees one set of types.

mod asks;
mod bindings;
pub mod budget;
pub mod cache;
mod compat;
mod config_guard;
mod declare;
pub mod discovery;
pub mod embed;
pub mod engine;
pub mod error;
mod exec;
mod fsguard;
pub mod hooks;
mod host_error;
mod imports;
mod instance;
pub mod kinds;
mod limiter;
mod load;
pub mod load_error;
mod meta;
pub mod names;
mod net;
mod process;
pub mod runtime;
pub mod sandbox;
pub mod state;

pub use bindings::{CallContext, ToolError, ToolInfo, ToolOutput};
pub use compat::CompatError;
pub use error::CallError;
pub use hooks::{
    CompactingOutcome, HookBlock, HookPoint, HookRegistration, HookVerdict, PermissionRequest,
    SamplingParams,
};
pub use kinds::{DeclaredAgent, DeclaredSkill, SkillContent};
pub use load_error::{DeclarationRefused, LoadError};
pub use runtime::{HostOptions, MAX_STRIKES, Plugin, PluginHost};
pub use sandbox::SandboxSettings;
pub use state::{CallLimits, CallScope, ProgressSink};
pub mod schema_work;
pub mod tool_rules;
pub mod tool_schema;
