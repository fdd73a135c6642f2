//! The wire protocols Ward speaks and what they have in common.
//!
//! Each submodule owns one protocol both ways: the request body built from a
//! [`ChatRequest`] and a [`Parser`] that turns the protocol's SSE events into
//! [`Event`]s. This module owns the choice between them (the [`Protocol`]
//! enum) and the few rules every parser follows.

mod anthropic;
mod openai_chat;
mod openai_responses;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::ProviderError;
use crate::sse::SseEvent;
use crate::types::{ChatRequest, Event, FinishReason, Usage};

/// A provider wire protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    /// OpenAI Chat Completions (`POST {base}/chat/completions`), also spoken
    /// by OpenRouter, Groq, DeepSeek, vLLM, llama.cpp, Ollama and others.
    OpenaiChat,
    /// OpenAI Responses (`POST {base}/responses`).
    OpenaiResponses,
    /// Anthropic Messages (`POST {base}/messages`).
    AnthropicMessages,
}

impl Protocol {
    /// Path appended to the endpoint's base URL.
    pub(crate) fn path(self) -> &'static str {
        match self {
            Self::OpenaiChat => "/chat/completions",
            Self::OpenaiResponses => "/responses",
            Self::AnthropicMessages => "/messages",
        }
    }

    /// A fresh parser for one response.
    pub(crate) fn parser(self) -> Box<dyn Parser> {
        match self {
            Self::OpenaiChat => Box::new(openai_chat::ChatParser::default()),
            Self::OpenaiResponses => Box::new(openai_responses::ResponsesParser::default()),
            Self::AnthropicMessages => Box::new(anthropic::AnthropicParser::default()),
        }
    }
}

/// Anthropic API version sent unless the endpoint's headers override it.
pub(crate) const ANTHROPIC_VERSION: &str = "2023-06-01";

/// `max_tokens` sent to Anthropic when the request has none (the API
/// requires it). Every Claude model accepts this value; callers should send
/// the model's real output limit from the model registry.
pub const ANTHROPIC_DEFAULT_MAX_TOKENS: u32 = 4096;

/// The JSON body `protocol` sends for `request`, streaming enabled and
/// [`ChatRequest::options`] merged in.
pub fn request_body(protocol: Protocol, request: &ChatRequest) -> Value {
    let mut body = match protocol {
        Protocol::OpenaiChat => openai_chat::body(request),
        Protocol::OpenaiResponses => openai_responses::body(request),
        Protocol::AnthropicMessages => anthropic::body(request),
    };
    if let (Value::Object(body), Value::Object(options)) = (&mut body, &request.options) {
        for (key, value) in options {
            match value {
                Value::Null => body.remove(key),
                value => body.insert(key.clone(), value.clone()),
            };
        }
    }
    if protocol == Protocol::AnthropicMessages {
        anthropic::fit_thinking(&mut body);
    }
    body
}

/// Turns one protocol's SSE events into [`Event`]s.
///
/// Parsers push zero or more events per SSE event. They end the response by
/// pushing a terminal event (see [`Event`]); the driver stops reading there.
pub(crate) trait Parser: Send {
    /// Handles one SSE event. An `Err` means the event was not valid protocol
    /// data (bad JSON); the driver decides whether that was a cut stream.
    fn event(&mut self, event: &SseEvent, out: &mut Vec<Event>) -> Result<(), ProviderError>;

    /// The byte stream ended without a terminal event: completes the response
    /// if the protocol allows ending here, else reports it incomplete.
    fn end_of_stream(&mut self, out: &mut Vec<Event>);
}

/// Parses an SSE data payload as JSON. JSON that stops short is a cut
/// stream (the SSE reader hands over an unterminated last event), which is
/// worth retrying; any other syntax error is garbage, which is not.
/// The system blocks as one text, for protocols with a single system message (some
/// local chat templates reject several); `None` when there is nothing to say.
fn joined_system(request: &ChatRequest) -> Option<String> {
    let parts: Vec<&str> = request
        .system
        .iter()
        .map(|b| b.text.as_str())
        .filter(|t| !t.is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// Sets the sampling parameters every protocol spells the same way.
fn set_sampling(body: &mut Value, request: &ChatRequest) {
    if let Some(t) = request.temperature {
        body["temperature"] = serde_json::json!(t);
    }
    if let Some(p) = request.top_p {
        body["top_p"] = serde_json::json!(p);
    }
}

/// The JSON payload of an event of a protocol that names its events (Anthropic,
/// Responses); `None` for an event without data.
fn typed_payload(event: &SseEvent) -> Result<Option<Value>, ProviderError> {
    if event.data.trim().is_empty() {
        return Ok(None);
    }
    json(&event.data).map(Some)
}

/// The event's type: the payload's `type`, else the SSE `event:` name.
fn event_type<'a>(payload: &'a Value, event: &'a SseEvent) -> &'a str {
    payload
        .get("type")
        .and_then(Value::as_str)
        .or(event.event.as_deref())
        .unwrap_or("")
}

fn json(data: &str) -> Result<Value, ProviderError> {
    serde_json::from_str(data).map_err(|e| match e.is_eof() {
        true => ProviderError::cut_event(data),
        false => ProviderError::malformed(&format!("invalid JSON ({e})"), data),
    })
}

/// Ends a response successfully: usage (if any), then the finish reason.
/// A response that completed tool calls but says "stop" is reported as
/// [`FinishReason::ToolCalls`], because some OpenAI-compatible servers say
/// "stop" and the agent loop must still send the results back.
fn finish(out: &mut Vec<Event>, usage: Option<Usage>, reason: FinishReason, had_tool_calls: bool) {
    out.extend(usage.map(Event::Usage));
    let reason = match reason {
        FinishReason::Stop if had_tool_calls => FinishReason::ToolCalls,
        reason => reason,
    };
    out.push(Event::Finish(reason));
}

/// Ends a response with an error, keeping the usage the provider reported
/// (those tokens were billed).
fn fail(out: &mut Vec<Event>, usage: Option<Usage>, error: ProviderError) {
    out.extend(usage.map(Event::Usage));
    out.push(Event::Error(error));
}

/// Pushes a text-carrying event unless the text is empty (providers send
/// many empty deltas; they carry nothing).
fn push(out: &mut Vec<Event>, make: fn(String) -> Event, text: &str) {
    if !text.is_empty() {
        out.push(make(text.to_owned()));
    }
}

/// A `u64` field of a JSON object, 0 when absent.
fn count(value: &Value, pointer: &str) -> u64 {
    value.pointer(pointer).and_then(Value::as_u64).unwrap_or(0)
}

/// Splits a `data:` URL into its media type and base64 payload.
fn data_url(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("data:")?;
    let (meta, data) = rest.split_once(',')?;
    let mime = meta.strip_suffix(";base64")?;
    Some((mime, data))
}

#[cfg(test)]
mod stream_tests;
#[cfg(test)]
mod tests;
