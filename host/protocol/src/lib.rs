//! What crosses Ward's front door: the records and events every frontend reads and the
//! answers it sends back, with no behaviour behind them.
//!
//! The engine (`ward-engine`) is the one door through which a frontend (the command
//! line, the terminal UI, the HTTP server, the editor bridge, the MCP server) reaches a
//! project; this crate is the vocabulary of that door, as codex's protocol crate is
//! codex's. It depends on nothing of Ward's, so a frontend that depends on it and on
//! the engine sees nothing below them.
//!
//! - [`id`]: type-prefixed ids (`ses_…`, `msg_…`, `prt_…`) whose string order is
//!   creation order.
//! - [`model`]: sessions, messages, parts, questions, todos and compaction points, as
//!   stored and as events carry them.
//! - [`bus`]: the [`Event`]s published on every change, and the channel carrying them.
//! - [`permission`]: a permission question ([`AskRequest`]), its answer ([`Reply`]),
//!   and the rules a person writes ([`Rule`]).
//! - [`project`]: what an opened project offers to list and pick: agents, commands,
//!   providers and models, tools.
//! - [`call`]: one tool called by name, its output or failure.

pub mod bus;
pub mod call;
mod clock;
pub mod id;
pub mod model;
pub mod permission;
pub mod project;

pub use bus::{Bus, Event, SessionStatus, Subscription};
pub use call::{ToolFailure, ToolOutput};
pub use clock::now_ms;
pub use id::{IdKind, new_id};
pub use model::compaction::CompactionPoint;
pub use model::message::{
    ABORTED_ERROR, AssistantMessage, AssistantTime, FinishReason, Message, MessageError,
    MessageInfo, MessageSummary, UserMessage, UserTime,
};
pub use model::part::{
    CompletedTime, ErrorTime, FilePart, INTERRUPTED, Part, PartKind, RetryTime, RunningTime,
    TextPart, TextTime, ToolPart, ToolState,
};
pub use model::question::{QuestionCall, QuestionInfo, QuestionOption, QuestionRequest};
pub use model::session::{
    CacheTokens, FileDiff, ModelRef, Session, SessionRevert, SessionSummary, SessionTime, Tokens,
};
pub use model::todo::{Todo, TodoPriority, TodoStatus};
pub use permission::{Action, AskRequest, ESCAPE_PERMISSION, ParseActionError, Reply, Rule};
pub use project::{
    Access, AgentMode, AgentSummary, CommandSummary, McpServerSummary, McpState, ModelChoice,
    ModelSummary, ProviderSummary, ToolSummary,
};
