//! The provider-neutral model: what Ward asks ([`ChatRequest`]) and what a
//! provider streams back ([`Event`]).
//!
//! Every protocol module translates to and from these types, so the agent
//! loop never sees a wire format. Token accounting follows one convention
//! across providers, documented on [`Usage`].

use serde::{Deserialize, Serialize};

use crate::error::ProviderError;

/// One model call: everything a protocol needs to build its request body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// Provider model id, e.g. `claude-sonnet-4-5` or `gpt-5`.
    pub model: String,
    /// System prompt in layers; see [`SystemBlock`].
    pub system: Vec<SystemBlock>,
    /// The conversation, oldest first.
    pub messages: Vec<Message>,
    /// Tools the model may call. Empty means no tools are offered.
    pub tools: Vec<ToolSpec>,
    /// Sampling temperature; omitted from the request when `None`.
    pub temperature: Option<f64>,
    /// Nucleus sampling; omitted from the request when `None`.
    pub top_p: Option<f64>,
    /// Output token limit. Anthropic requires one, so a default is sent there
    /// when this is `None`; the other protocols omit it.
    pub max_tokens: Option<u32>,
    /// Provider-specific body fields merged last into the top level of the
    /// request body (e.g. `{"reasoning_effort": "high"}`); a `null` value
    /// removes a field the builder set. Ignored unless it is a JSON object.
    pub options: serde_json::Value,
}

/// One layer of the system prompt.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SystemBlock {
    /// The text of the layer.
    pub text: String,
    /// Ask the provider to cache the prompt up to and including this block
    /// (Anthropic `cache_control`; other protocols cache prefixes on their
    /// own and ignore it). Mark the static layers, not the per-call ones.
    pub cache: bool,
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Name the model calls the tool by.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: serde_json::Value,
}

/// One message of the conversation history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// What the user said.
    User {
        /// Text and attachments, in order.
        content: Vec<UserPart>,
    },
    /// An earlier model turn.
    Assistant {
        /// Text, reasoning and tool calls, in the order they were produced.
        content: Vec<AssistantPart>,
    },
    /// The result of one tool call of the preceding assistant turn.
    Tool(ToolResult),
}

/// A piece of a user message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum UserPart {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An attachment: an image or a document.
    File {
        /// Media type, e.g. `image/png` or `application/pdf`.
        mime: String,
        /// A `data:` URL with the content inline, or an `https:` URL.
        url: String,
        /// Original file name, when known.
        filename: Option<String>,
    },
}

/// A piece of an earlier assistant turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AssistantPart {
    /// Visible text.
    Text {
        /// The text.
        text: String,
    },
    /// Reasoning the model showed, with what its provider needs to take it back.
    Reasoning {
        /// The reasoning text.
        text: String,
        /// Provider token proving the reasoning is unaltered
        /// ([`Event::ReasoningSignature`]). Anthropic only accepts thinking
        /// back with it, so unsigned reasoning is not sent there.
        signature: Option<String>,
        /// An Anthropic `redacted_thinking` block's opaque data
        /// ([`Event::ReasoningRedacted`]), sent back as it came.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        redacted: Option<String>,
        /// A Responses reasoning item ([`Event::ReasoningItem`]), sent back as a
        /// `reasoning` input item so the model keeps its chain of thought.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        item: Option<ReasoningItem>,
    },
    /// A tool call the model made.
    ToolCall(ToolCall),
}

/// An OpenAI Responses reasoning output item, as needed to send it back with
/// `store: false`: its id and its encrypted content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReasoningItem {
    /// The item id (`rs_…`).
    pub id: String,
    /// `encrypted_content`, present when the request asked for
    /// `include: ["reasoning.encrypted_content"]`.
    pub encrypted_content: Option<String>,
}

/// A file sent with a tool result: an image or a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attachment {
    /// Media type, e.g. `image/png` or `application/pdf`.
    pub mime: String,
    /// A `data:` URL with the content inline, or an `https:` URL.
    pub url: String,
    /// Original file name, when known.
    pub filename: Option<String>,
}

/// A complete tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Provider call id; the matching [`ToolResult::call_id`].
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Arguments as the JSON text the model produced.
    pub arguments: String,
}

/// The outcome of a tool call, sent back to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResult {
    /// Id of the call this answers.
    pub call_id: String,
    /// Output text shown to the model.
    pub output: String,
    /// The tool failed; `output` describes the failure.
    pub is_error: bool,
    /// Files the tool returned (an image `read` loaded). Each protocol sends
    /// them the way it can: inside the result (Anthropic, Responses) or in a
    /// user message right after the results (Chat Completions).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<Attachment>,
}

/// Token counts of one model call, normalised across providers.
///
/// Convention: `input` is the *uncached* input only. Cached tokens are never
/// double-counted: OpenAI and the Responses API include cached tokens in
/// their prompt count, so they are subtracted there; Anthropic reports them
/// apart already. The billed prompt is `input + cache_read + cache_write`.
/// `output` is every generated token, reasoning included; `reasoning` is the
/// part of `output` spent reasoning, for display only (never add it to
/// `output`; it is capped at `output`, which providers do not always
/// respect). Counts a provider does not report are 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Uncached input tokens.
    pub input: u64,
    /// Generated tokens, reasoning included.
    pub output: u64,
    /// Of `output`, the tokens spent on reasoning.
    pub reasoning: u64,
    /// Input tokens served from the prompt cache.
    pub cache_read: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write: u64,
}

pub use ward_protocol::FinishReason;

/// One item of a provider stream.
///
/// A stream yields content events, then exactly one terminal event:
/// [`Event::Finish`] on success or [`Event::Error`] on failure, and nothing
/// after it. [`Event::Usage`], when the provider reported usage, comes once,
/// right before the terminal event.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A piece of visible text.
    TextDelta(String),
    /// A piece of reasoning (thinking) text.
    ReasoningDelta(String),
    /// The signature closing the current reasoning block; keep it with the
    /// reasoning text and send both back in [`AssistantPart::Reasoning`].
    ReasoningSignature(String),
    /// A reasoning block the provider redacted (Anthropic `redacted_thinking`):
    /// opaque data to send back unchanged, never shown.
    ReasoningRedacted(String),
    /// A reasoning output item ended (Responses): what it takes to send the
    /// reasoning back ([`AssistantPart::Reasoning::item`]).
    ReasoningItem(ReasoningItem),
    /// A tool call began; `index` numbers the calls of this response from 0.
    ToolCallStart {
        /// Position of the call in this response.
        index: usize,
        /// Provider call id (synthesised when the provider sends none).
        id: String,
        /// Tool name.
        name: String,
    },
    /// More argument text for the call at `index`.
    ToolCallDelta {
        /// Position of the call in this response.
        index: usize,
        /// The next piece of the arguments JSON text.
        arguments_delta: String,
    },
    /// The call at `index` is complete. Only calls the provider finished get
    /// one: a call cut off by a broken stream never does.
    ToolCallEnd {
        /// Position of the call in this response.
        index: usize,
        /// Provider call id.
        id: String,
        /// Tool name.
        name: String,
        /// The whole arguments JSON text (`{}` when the model sent none).
        arguments: String,
    },
    /// Token usage of the call.
    Usage(Usage),
    /// The response completed.
    Finish(FinishReason),
    /// The response failed; see [`ProviderError::retryable`].
    Error(ProviderError),
}

impl Event {
    /// Whether this event ends the stream.
    pub fn is_terminal(&self) -> bool {
        matches!(self, Event::Finish(_) | Event::Error(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_round_trips_through_json() {
        let messages = vec![
            Message::User {
                content: vec![UserPart::File {
                    mime: "image/png".into(),
                    url: "data:image/png;base64,AA==".into(),
                    filename: None,
                }],
            },
            Message::Assistant {
                content: vec![AssistantPart::ToolCall(ToolCall {
                    id: "c".into(),
                    name: "read".into(),
                    arguments: "{}".into(),
                })],
            },
            Message::Tool(ToolResult {
                call_id: "c".into(),
                output: "ok".into(),
                is_error: false,
                attachments: Vec::new(),
            }),
        ];
        let json = serde_json::to_value(&messages).unwrap_or_default();
        assert_eq!(json[2]["role"], "tool");
        assert_eq!(json[1]["content"][0]["type"], "tool_call");
        let back: Vec<Message> = serde_json::from_value(json).unwrap_or_default();
        assert_eq!(back, messages);
    }
}
