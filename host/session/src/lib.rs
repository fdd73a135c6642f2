//! Ward's agent loop: one [`runner::Runner`] drives a session from a prompt to the
//! model's final answer — history in, streamed reply out, tool calls through the plugin
//! runtime (with the hook plugins around them), retries, the step limit — and records
//! every part in the store as it goes. A session has at most one loop running
//! ([`active`]): a prompt to a busy session joins it, and an abort cancels it.

pub mod active;
mod args;
pub mod ask_hook;
pub mod attach;
mod call;
pub mod compact;
pub mod doom;
pub mod event_hooks;
pub mod history;
pub mod question;
pub mod record;
pub mod reminders;
pub mod repair;
pub mod runner;
pub mod runner_builder;
pub mod skill_tool;
pub mod snapshots;
pub mod step;
mod steps;
pub mod task;
pub mod title;
pub mod tool_error;
pub mod tools;
pub mod variant;
mod window;

pub use active::ActiveLoops;
pub use ask_hook::PluginAskHook;
pub use record::{Addressee, RecordedPrompt};
pub use runner::{CompactionAgent, LoopError, ModelSetup, Runner, TOOL_ABORTED};
pub use runner_builder::RunnerBuilder;
pub use snapshots::StepSnapshots;
pub use tool_error::ToolCallError;
pub use tools::{HostTool, ToolBox, ToolSource, ToolSuccess};
pub use ward_context::ContextPolicy;
