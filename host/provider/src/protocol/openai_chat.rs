//! OpenAI Chat Completions: request body and stream parser.
//!
//! The dialect every OpenAI-compatible server speaks, each with its own
//! extras, so the parser reads defensively: reasoning arrives as
//! `reasoning_content` (DeepSeek, xAI, llama.cpp, Z.ai), `reasoning`
//! (OpenRouter) or only `reasoning_details` (OpenRouter); `content` may be an
//! array of typed parts (Mistral); usage may come on a usage-only final chunk
//! (`choices: []`), on the finish chunk, on every chunk, or inside `x_groq`;
//! errors may arrive as an `error` object inside a chunk; `[DONE]` may or may
//! not end the stream. Tool calls are keyed by their `index` and closed when
//! a finish reason arrives, because the protocol has no per-call end marker.

use serde_json::{Value, json};

use super::{Parser, count, data_url, fail, finish, json, push};
use crate::error::ProviderError;
use crate::sse::SseEvent;
use crate::tool_calls::ToolCalls;
use crate::types::{AssistantPart, ChatRequest, Event, FinishReason, Message, Usage, UserPart};

/// The request body: system layers joined into one system message (some
/// local chat templates reject several), tools as functions, usage requested
/// on the stream. Reasoning from earlier turns is not sent back: the protocol
/// has no field for it.
pub(super) fn body(request: &ChatRequest) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = super::joined_system(request) {
        messages.push(json!({ "role": "system", "content": system }));
    }
    // Tool messages hold text only: files a tool returned follow the turn's
    // results in one user message (as OpenCode and the AI SDK do).
    let mut pending: Vec<UserPart> = Vec::new();
    for message in &request.messages {
        if !matches!(message, Message::Tool(_)) && !pending.is_empty() {
            let content = user_content(&std::mem::take(&mut pending));
            messages.push(json!({ "role": "user", "content": content }));
        }
        match message {
            Message::User { content } => {
                messages.push(json!({ "role": "user", "content": user_content(content) }))
            }
            Message::Assistant { content } => messages.extend(assistant_message(content)),
            Message::Tool(result) => {
                messages.push(json!({
                    "role": "tool",
                    "tool_call_id": result.call_id,
                    "content": result.output,
                }));
                if !result.attachments.is_empty() {
                    pending.push(UserPart::Text {
                        text: format!("Files returned by tool call {}:", result.call_id),
                    });
                    pending.extend(result.attachments.iter().map(|file| UserPart::File {
                        mime: file.mime.clone(),
                        url: file.url.clone(),
                        filename: file.filename.clone(),
                    }));
                }
            }
        }
    }
    if !pending.is_empty() {
        messages.push(json!({ "role": "user", "content": user_content(&pending) }));
    }
    let mut body = json!({
        "model": request.model,
        "messages": messages,
        "stream": true,
        "stream_options": { "include_usage": true },
    });
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| {
                json!({ "type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.parameters,
                }})
            })
            .collect();
    }
    super::set_sampling(&mut body, request);
    if let Some(max) = request.max_tokens {
        body["max_tokens"] = json!(max);
    }
    body
}

/// Plain text stays a string (understood by every server); attachments make
/// it an array of parts.
fn user_content(parts: &[UserPart]) -> Value {
    if let [UserPart::Text { text }] = parts {
        return json!(text);
    }
    let parts: Vec<Value> = parts
        .iter()
        .map(|part| match part {
            UserPart::Text { text } => json!({ "type": "text", "text": text }),
            UserPart::File { mime, url, .. } if mime.starts_with("image/") => {
                json!({ "type": "image_url", "image_url": { "url": url } })
            }
            UserPart::File { url, filename, .. } => match data_url(url) {
                Some(_) => {
                    json!({ "type": "file", "file": { "file_data": url, "filename": filename } })
                }
                None => json!({ "type": "text", "text": url }),
            },
        })
        .collect();
    json!(parts)
}

fn assistant_message(parts: &[AssistantPart]) -> Option<Value> {
    let mut text = String::new();
    let mut calls = Vec::new();
    for part in parts {
        match part {
            AssistantPart::Text { text: t } => text.push_str(t),
            AssistantPart::Reasoning { .. } => {}
            AssistantPart::ToolCall(call) => calls.push(json!({
                "id": call.id,
                "type": "function",
                "function": { "name": call.name, "arguments": call.arguments },
            })),
        }
    }
    if text.is_empty() && calls.is_empty() {
        return None;
    }
    let mut message = json!({ "role": "assistant", "content": if text.is_empty() { Value::Null } else { json!(text) } });
    if !calls.is_empty() {
        message["tool_calls"] = json!(calls);
    }
    Some(message)
}

/// Stream state of one Chat Completions response.
#[derive(Debug, Default)]
pub(super) struct ChatParser {
    calls: ToolCalls,
    finish: Option<FinishReason>,
    usage: Option<Usage>,
}

impl Parser for ChatParser {
    fn event(&mut self, event: &SseEvent, out: &mut Vec<Event>) -> Result<(), ProviderError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            // `[DONE]` is the server saying the response is complete, even if
            // it never sent a finish reason.
            self.calls.end_all(out);
            let reason = self.finish.unwrap_or(FinishReason::Stop);
            finish(out, self.usage, reason, self.calls.any_completed());
            return Ok(());
        }
        if data.is_empty() {
            return Ok(());
        }
        let chunk = json(data)?;
        if let Some(usage) = chunk
            .get("usage")
            .filter(|u| u.is_object())
            .or_else(|| chunk.pointer("/x_groq/usage"))
        {
            self.usage = Some(usage_of(usage));
        }
        if chunk.get("error").is_some_and(|e| !e.is_null()) {
            fail(out, self.usage, ProviderError::from_payload(&chunk));
            return Ok(());
        }
        let choices = chunk
            .get("choices")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        // Ward never asks for n > 1, so only the first choice is read.
        if let Some(choice) = choices
            .iter()
            .find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)
        {
            self.choice(choice, out);
        }
        Ok(())
    }

    fn end_of_stream(&mut self, out: &mut Vec<Event>) {
        match self.finish {
            // Many servers close the connection without `[DONE]`; a finish
            // reason already marked the response complete.
            Some(reason) => {
                self.calls.end_all(out);
                finish(out, self.usage, reason, self.calls.any_completed());
            }
            None => fail(
                out,
                self.usage,
                ProviderError::Incomplete {
                    message: "no finish_reason before the connection closed".into(),
                },
            ),
        }
    }
}

impl ChatParser {
    fn choice(&mut self, choice: &Value, out: &mut Vec<Event>) {
        let delta = choice.get("delta").unwrap_or(&Value::Null);
        match delta.get("content").or_else(|| choice.get("text")) {
            Some(Value::String(text)) => push(out, Event::TextDelta, text),
            Some(Value::Array(parts)) => content_parts(parts, out),
            _ => {}
        }
        if let Some(Value::String(refusal)) = delta.get("refusal") {
            push(out, Event::TextDelta, refusal);
        }
        reasoning(delta, out);
        for (position, call) in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            self.tool_call(position, call, out);
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish = Some(finish_reason(reason));
            self.calls.end_all(out);
        }
    }

    fn tool_call(&mut self, position: usize, call: &Value, out: &mut Vec<Event>) {
        let key = call
            .get("index")
            .and_then(Value::as_u64)
            .unwrap_or(position as u64);
        let id = call
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty());
        let name = call.pointer("/function/name").and_then(Value::as_str);
        // Some servers reuse index 0 for every call and tell them apart only
        // by id: a new id under an open index starts a new call.
        if let (Some(id), Some(open)) = (id, self.calls.open_id(key))
            && id != open
        {
            self.calls.end(key, None, out);
        }
        if self.calls.is_open(key) {
            self.calls.name(key, name, out);
        } else {
            self.calls.begin(key, id, name, out);
        }
        match call.pointer("/function/arguments") {
            Some(Value::String(fragment)) => self.calls.append(key, fragment, out),
            // A few servers send the arguments as an object, whole.
            Some(object @ Value::Object(_)) => self.calls.append(key, &object.to_string(), out),
            _ => {}
        }
    }
}

/// Mistral's typed content: `{"type":"text"}` parts and `{"type":"thinking",
/// "thinking":[{"type":"text","text":…}]}` parts.
fn content_parts(parts: &[Value], out: &mut Vec<Event>) {
    for part in parts {
        match part.get("type").and_then(Value::as_str) {
            Some("text") => push(
                out,
                Event::TextDelta,
                part.get("text").and_then(Value::as_str).unwrap_or(""),
            ),
            Some("thinking") => {
                for inner in part
                    .get("thinking")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    push(
                        out,
                        Event::ReasoningDelta,
                        inner.get("text").and_then(Value::as_str).unwrap_or(""),
                    );
                }
            }
            _ => {}
        }
    }
}

/// Reasoning text from whichever field the server uses. OpenRouter sends the
/// same text in `reasoning` and `reasoning_details`, so the details are read
/// only when neither string field is present.
fn reasoning(delta: &Value, out: &mut Vec<Event>) {
    for field in ["reasoning_content", "reasoning"] {
        if let Some(Value::String(text)) = delta.get(field) {
            push(out, Event::ReasoningDelta, text);
            return;
        }
    }
    for detail in delta
        .get("reasoning_details")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let text = match detail.get("type").and_then(Value::as_str) {
            Some("reasoning.text") => detail.get("text"),
            Some("reasoning.summary") => detail.get("summary"),
            _ => None,
        };
        push(
            out,
            Event::ReasoningDelta,
            text.and_then(Value::as_str).unwrap_or(""),
        );
    }
}

fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "stop" | "end_turn" | "eos" => FinishReason::Stop,
        "tool_calls" | "function_call" => FinishReason::ToolCalls,
        "length" | "max_tokens" => FinishReason::Length,
        "content_filter" => FinishReason::ContentFilter,
        other => {
            tracing::debug!(reason = other, "unrecognised chat finish_reason");
            FinishReason::Unknown
        }
    }
}

/// `prompt_tokens` includes cached tokens here; see [`Usage`] for why they
/// are subtracted. xAI leaves reasoning out of `completion_tokens` (its
/// `total_tokens` adds it back), so it is added to `output` in that case.
fn usage_of(u: &Value) -> Usage {
    let prompt = count(u, "/prompt_tokens");
    let completion = count(u, "/completion_tokens");
    let reasoning = count(u, "/completion_tokens_details/reasoning_tokens");
    let cache_read = [
        "/prompt_tokens_details/cached_tokens",
        "/cached_tokens",
        "/prompt_cache_hit_tokens",
    ]
    .iter()
    .map(|p| count(u, p))
    .find(|n| *n > 0)
    .unwrap_or(0);
    let cache_write = count(u, "/prompt_tokens_details/cache_write_tokens");
    let total = count(u, "/total_tokens");
    let reasoning_outside =
        reasoning > 0 && total != prompt + completion && total == prompt + completion + reasoning;
    let output = if reasoning_outside {
        completion + reasoning
    } else {
        completion
    };
    Usage {
        input: prompt.saturating_sub(cache_read + cache_write),
        output,
        // OpenRouter has reported more reasoning than output tokens.
        reasoning: reasoning.min(output),
        cache_read,
        cache_write,
    }
}
