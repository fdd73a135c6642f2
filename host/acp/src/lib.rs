//! `ward acp`: Ward as an agent of the [Agent Client Protocol](https://agentclientprotocol.com)
//! (v1, JSON-RPC over standard input and output), so an editor — Zed, a JetBrains IDE,
//! Neovim through a plugin — drives Ward's engine as it drives any ACP agent.
//!
//! The adapter only translates: every session runs in a [`ward_engine::Engine`],
//! exactly as `ward run` would run it.
//!
//! | ACP | Ward |
//! |---|---|
//! | `initialize` | protocol v1; `loadSession`, embedded context in prompts |
//! | `session/new` | [`ward_engine::Engine::create_session`] in the project of `cwd` |
//! | `session/load` | the stored session; its history replayed as updates |
//! | `session/prompt` | [`ward_engine::Engine::prompt`]; its events as `session/update` |
//! | `session/update` | text → `agent_message_chunk`, reasoning → `agent_thought_chunk`, tool calls → `tool_call` / `tool_call_update` with kind and status, the todo list → `plan` |
//! | `session/request_permission` | a `permission.asked`: allow once / always / reject; a `question.asked`: one request per question, an option per choice ([`question`]) |
//! | `session/cancel` | [`ward_engine::Engine::abort`]; the prompt stops with `cancelled` |
//! | modes, `session/set_mode` | the primary agents; the agent later prompts go to |
//!
//! The pieces: [`server`] (the connection and the sessions), the prompt task,
//! [`updates`] (events as updates), [`permission`] (asks as requests), [`tools`] (a
//! tool call's kind), [`error`] (what a refused request says).

pub mod error;
pub mod permission;
mod prompt;
pub mod question;
pub mod server;
pub mod tools;
pub mod updates;

pub use error::AcpError;
pub use server::{OptionsFor, serve};
