//! LLM provider clients for Ward.
//!
//! One streaming call is [`stream`]: a [`ChatRequest`] goes out in the wire
//! format of a [`Protocol`] (OpenAI Chat Completions, OpenAI Responses or
//! Anthropic Messages) to an [`Endpoint`], and the reply comes back as
//! provider-neutral [`Event`]s ending in [`Event::Finish`] or
//! [`Event::Error`]. Failures are [`ProviderError`]s classified as retryable
//! or final; [`RetryPolicy`] says how long to wait before the caller tries
//! again. The [`sse`] module is the standalone server-sent-events reader the
//! clients are built on. [`ModelRegistry`] knows which protocol, endpoint,
//! limits and prices each model has (bundled catalogue plus config).
//!
//! Module map: `types` (request and event model), `sse` (wire framing),
//! `protocol` (request bodies and stream parsers, one submodule per
//! protocol), `tool_calls` (streamed tool-call assembly), `client` (the HTTP
//! attempt), `sniff` (what a reply body is, whatever its label says), `idle`
//! (silence timeout), `error` (classification), `retry`
//! (backoff and `retry-after`), `registry` (the model catalogue and config
//! overrides).

mod client;
mod error;
mod idle;
mod protocol;
mod registry;
mod retry;
mod sniff;
pub mod sse;
mod tool_calls;
mod types;

pub use client::{DEFAULT_IDLE_TIMEOUT, Endpoint, stream};
pub use error::ProviderError;
pub use protocol::{ANTHROPIC_DEFAULT_MAX_TOKENS, Protocol, request_body};
pub use registry::{
    Capabilities, Limits, ModelInfo, ModelRegistry, Origin, Prices, ProviderInfo, RegistryError,
};
pub use reqwest::Client;
pub use retry::{DEFAULT_CONNECT_BUDGET, Retries, RetryPolicy, retry_after};
pub use types::{
    AssistantPart, Attachment, ChatRequest, Event, FinishReason, Message, ReasoningItem,
    SystemBlock, ToolCall, ToolResult, ToolSpec, Usage, UserPart,
};
