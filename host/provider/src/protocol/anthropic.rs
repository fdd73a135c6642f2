//! Anthropic Messages: request body and stream parser.
//!
//! Requests carry the system prompt as blocks, with `cache_control` on the
//! blocks marked for caching, and tool results as `tool_result` blocks of a
//! user turn. The stream is `message_start`, content blocks (`text`,
//! `thinking`, `tool_use`, and server-side blocks Ward ignores: its own tools
//! are only `tool_use`), `message_delta` with the stop reason and cumulative
//! usage, and `message_stop`. A `tool_use` block may arrive already complete,
//! in `content_block_start` or even inside `message_start` (programmatic tool
//! calling); otherwise its input streams as `input_json_delta` fragments, the
//! first one often empty.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::{
    ANTHROPIC_DEFAULT_MAX_TOKENS, Parser, count, data_url, event_type, fail, finish, push,
    typed_payload,
};
use crate::error::ProviderError;
use crate::sse::SseEvent;
use crate::tool_calls::ToolCalls;
use crate::types::{
    AssistantPart, Attachment, ChatRequest, Event, FinishReason, Message, Usage, UserPart,
};

/// The request body. Consecutive turns of the same role are merged because
/// tool results travel as user content and must share one user turn.
pub(super) fn body(request: &ChatRequest) -> Value {
    let system: Vec<Value> = request
        .system
        .iter()
        .filter(|b| !b.text.is_empty())
        .map(|b| match b.cache {
            true => {
                json!({ "type": "text", "text": b.text, "cache_control": { "type": "ephemeral" } })
            }
            false => json!({ "type": "text", "text": b.text }),
        })
        .collect();
    let mut turns: Vec<(&str, Vec<Value>)> = Vec::new();
    for message in &request.messages {
        let (role, blocks) = match message {
            Message::User { content } => ("user", content.iter().filter_map(user_block).collect()),
            Message::Assistant { content } => (
                "assistant",
                content.iter().filter_map(assistant_block).collect(),
            ),
            Message::Tool(result) => {
                let content = match result.attachments.is_empty() {
                    true => json!(result.output),
                    // Tool results may hold image and document blocks.
                    false => std::iter::once(json!({ "type": "text", "text": result.output }))
                        .chain(result.attachments.iter().map(file_block))
                        .collect(),
                };
                let mut block = json!({ "type": "tool_result", "tool_use_id": result.call_id, "content": content });
                if result.is_error {
                    block["is_error"] = json!(true);
                }
                ("user", vec![block])
            }
        };
        match turns.last_mut() {
            _ if blocks.is_empty() => {}
            Some((last, content)) if *last == role => content.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    let messages: Vec<Value> = turns
        .into_iter()
        .map(|(role, content)| json!({ "role": role, "content": content }))
        .collect();
    let mut body = json!({
        "model": request.model,
        "max_tokens": request.max_tokens.unwrap_or(ANTHROPIC_DEFAULT_MAX_TOKENS),
        "messages": messages,
        "stream": true,
    });
    if !system.is_empty() {
        body["system"] = json!(system);
    }
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| json!({ "name": t.name, "description": t.description, "input_schema": t.parameters }))
            .collect();
    }
    super::set_sampling(&mut body, request);
    body
}

/// Extended thinking (a variant's `thinking = { type = "enabled", budget_tokens = N }`)
/// has two rules of its own, applied once options are merged: `max_tokens` must
/// exceed the budget (raised to budget + [`ANTHROPIC_DEFAULT_MAX_TOKENS`] when it
/// does not), and the sampling parameters must be left alone (temperature and
/// top_p are removed rather than have the request refused).
pub(super) fn fit_thinking(body: &mut Value) {
    let Some(budget) = body
        .pointer("/thinking/budget_tokens")
        .and_then(Value::as_u64)
        .filter(|_| body.pointer("/thinking/type").and_then(Value::as_str) == Some("enabled"))
    else {
        return;
    };
    let max = body.get("max_tokens").and_then(Value::as_u64).unwrap_or(0);
    if max <= budget {
        body["max_tokens"] = json!(budget + u64::from(ANTHROPIC_DEFAULT_MAX_TOKENS));
    }
    if let Value::Object(map) = body {
        map.remove("temperature");
        map.remove("top_p");
    }
}

/// Anthropic rejects empty text blocks, so those are dropped.
fn user_block(part: &UserPart) -> Option<Value> {
    match part {
        UserPart::Text { text } if text.is_empty() => None,
        UserPart::Text { text } => Some(json!({ "type": "text", "text": text })),
        UserPart::File {
            mime,
            url,
            filename,
        } => Some(file_block(&Attachment {
            mime: mime.clone(),
            url: url.clone(),
            filename: filename.clone(),
        })),
    }
}

/// An `image` block for images, a `document` block (PDF) otherwise.
fn file_block(file: &Attachment) -> Value {
    let kind = if file.mime.starts_with("image/") {
        "image"
    } else {
        "document"
    };
    let source = match data_url(&file.url) {
        Some((media_type, data)) => {
            json!({ "type": "base64", "media_type": media_type, "data": data })
        }
        None => json!({ "type": "url", "url": file.url }),
    };
    json!({ "type": kind, "source": source })
}

/// Unsigned reasoning is dropped: Anthropic only accepts thinking blocks
/// back with the signature it issued (and redacted ones with their data).
fn assistant_block(part: &AssistantPart) -> Option<Value> {
    match part {
        AssistantPart::Text { text } if text.is_empty() => None,
        AssistantPart::Text { text } => Some(json!({ "type": "text", "text": text })),
        AssistantPart::Reasoning {
            redacted: Some(data),
            ..
        } => Some(json!({ "type": "redacted_thinking", "data": data })),
        AssistantPart::Reasoning {
            text,
            signature: Some(signature),
            ..
        } => Some(json!({ "type": "thinking", "thinking": text, "signature": signature })),
        AssistantPart::Reasoning { .. } => None,
        AssistantPart::ToolCall(call) => {
            // `input` must be an object; arguments the model garbled are sent
            // as an empty one, and the tool result already told it why.
            let input =
                serde_json::from_str::<Map<String, Value>>(&call.arguments).unwrap_or_default();
            Some(json!({ "type": "tool_use", "id": call.id, "name": call.name, "input": input }))
        }
    }
}

/// Stream state of one Messages response.
#[derive(Debug, Default)]
pub(super) struct AnthropicParser {
    calls: ToolCalls,
    usage: Option<Usage>,
    stop: Option<FinishReason>,
    /// Ids of `message_start`s seen; some proxies repeat the event.
    messages: HashSet<String>,
}

impl Parser for AnthropicParser {
    fn event(&mut self, event: &SseEvent, out: &mut Vec<Event>) -> Result<(), ProviderError> {
        let Some(payload) = typed_payload(event)? else {
            return Ok(());
        };
        let kind = event_type(&payload, event);
        let index = payload.get("index").and_then(Value::as_u64).unwrap_or(0);
        match kind {
            "message_start" => self.message_start(&payload["message"], out),
            "content_block_start" => self.block_start(index, &payload["content_block"], out),
            "content_block_delta" => {
                let delta = &payload["delta"];
                let text = |key: &str| delta.get(key).and_then(Value::as_str).unwrap_or("");
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => push(out, Event::TextDelta, text("text")),
                    Some("thinking_delta") => push(out, Event::ReasoningDelta, text("thinking")),
                    Some("signature_delta") => {
                        push(out, Event::ReasoningSignature, text("signature"))
                    }
                    Some("input_json_delta") => self.calls.append(index, text("partial_json"), out),
                    _ => {}
                }
            }
            "content_block_stop" => self.calls.end(index, None, out),
            "message_delta" => {
                if let Some(reason) = payload
                    .pointer("/delta/stop_reason")
                    .and_then(Value::as_str)
                {
                    self.stop = Some(stop_reason(reason));
                }
                self.add_usage(payload.get("usage"));
            }
            "message_stop" => {
                self.calls.end_all(out);
                let reason = self.stop.unwrap_or(FinishReason::Stop);
                finish(out, self.usage, reason, self.calls.any_completed());
            }
            "error" => fail(out, self.usage, ProviderError::from_payload(&payload)),
            _ => {}
        }
        Ok(())
    }

    fn end_of_stream(&mut self, out: &mut Vec<Event>) {
        let message = "no message_stop before the connection closed".into();
        fail(out, self.usage, ProviderError::Incomplete { message });
    }
}

impl AnthropicParser {
    fn message_start(&mut self, message: &Value, out: &mut Vec<Event>) {
        let id = message
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        if !self.messages.insert(id) {
            return;
        }
        self.add_usage(message.get("usage"));
        if let Some(reason) = message.get("stop_reason").and_then(Value::as_str) {
            self.stop = Some(stop_reason(reason));
        }
        // Programmatic tool calling resumes with blocks already filled in.
        for (i, block) in message
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            self.block_start(i as u64, block, out);
        }
    }

    fn block_start(&mut self, index: u64, block: &Value, out: &mut Vec<Event>) {
        let field = |key: &str| block.get(key).and_then(Value::as_str);
        match field("type") {
            Some("text") => push(out, Event::TextDelta, field("text").unwrap_or("")),
            Some("thinking") => {
                push(out, Event::ReasoningDelta, field("thinking").unwrap_or(""));
                // Complete blocks (in `message_start`) carry their signature.
                push(
                    out,
                    Event::ReasoningSignature,
                    field("signature").unwrap_or(""),
                );
            }
            Some("redacted_thinking") => {
                push(out, Event::ReasoningRedacted, field("data").unwrap_or(""))
            }
            Some("tool_use") => {
                self.calls.begin(index, field("id"), field("name"), out);
                // A non-empty `input` here is the whole input: no deltas follow.
                if let Some(input) = block
                    .get("input")
                    .filter(|i| i.as_object().is_some_and(|o| !o.is_empty()))
                {
                    self.calls.append(index, &input.to_string(), out);
                    self.calls.end(index, None, out);
                }
            }
            _ => {}
        }
    }

    /// `message_delta` usage is cumulative and may repeat the input counts,
    /// so present fields replace earlier values rather than add to them.
    fn add_usage(&mut self, usage: Option<&Value>) {
        let Some(u) = usage.filter(|u| u.is_object()) else {
            return;
        };
        let current = self.usage.get_or_insert_with(Usage::default);
        let set = |field: &mut u64, pointer: &str| {
            if u.pointer(pointer).is_some_and(Value::is_u64) {
                *field = count(u, pointer);
            }
        };
        set(&mut current.input, "/input_tokens");
        set(&mut current.output, "/output_tokens");
        set(&mut current.cache_read, "/cache_read_input_tokens");
        set(&mut current.cache_write, "/cache_creation_input_tokens");
    }
}

fn stop_reason(reason: &str) -> FinishReason {
    match reason {
        "end_turn" | "stop_sequence" => FinishReason::Stop,
        "tool_use" => FinishReason::ToolCalls,
        "max_tokens" | "model_context_window_exceeded" => FinishReason::Length,
        "refusal" => FinishReason::ContentFilter,
        other => {
            tracing::debug!(reason = other, "unrecognised anthropic stop_reason");
            FinishReason::Unknown
        }
    }
}
