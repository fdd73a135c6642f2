//! OpenAI Responses API: request body and stream parser.
//!
//! The history goes out as `input` items (messages, `function_call`,
//! `function_call_output`). The stream is typed events; tool calls are
//! `function_call` output items addressed by `output_index`, complete at
//! `response.output_item.done`.
//!
//! Ward offers only function tools, yet a model may still emit a call of
//! another kind (`custom_tool_call`, `local_shell_call`, `apply_patch_call`,
//! …) that the client is expected to run. Ignoring it would end the turn with
//! nothing, so such a call is reported as a tool call named after its item
//! type (which no Ward tool is, even when a custom tool shares a Ward tool's
//! name, as GPT's free-form `apply_patch` does), its arguments the item's own
//! fields: the agent loop answers it as an unknown tool and the
//! model carries on. A `custom_tool_call` goes back in the history as the item
//! it was — its own name, its raw `input`, its `call_id` — answered by a
//! `custom_tool_call_output` carrying Ward's answer.
//! Another kind goes back as a `function_call` answered by a
//! `function_call_output` with the same `call_id`: Ward sends the whole
//! history (`store` is off), so that pair is self-consistent, whereas each of
//! those kinds' own `*_output` items has fields of its own Ward cannot fill.
//! Calls the provider runs itself ([`HOSTED_CALLS`], e.g. web search) are
//! results, not requests, and are skipped.
//!
//! The response ends with `response.completed`, `response.incomplete`,
//! `response.failed` or an `error` event; gateways may add events after the
//! end (OpenCode Zen's `ping`), which the driver never reads.

use serde_json::{Value, json};

use super::{Parser, count, data_url, event_type, fail, finish, push, typed_payload};
use crate::error::ProviderError;
use crate::sse::SseEvent;
use crate::tool_calls::ToolCalls;
use crate::types::{
    AssistantPart, ChatRequest, Event, FinishReason, Message, ReasoningItem, Usage, UserPart,
};

/// The request body. `store` is off: Ward keeps its own history and sends it
/// whole, so nothing needs to live on OpenAI's side (override via options).
/// Reasoning from earlier turns goes back as `reasoning` items when its
/// encrypted content was kept (the request must ask for it with
/// `include: ["reasoning.encrypted_content"]`); without it, it cannot.
pub(super) fn body(request: &ChatRequest) -> Value {
    let mut input = Vec::new();
    // The custom tools' calls, whose results go back as their own kind of output.
    let mut custom_calls = std::collections::HashSet::new();
    if let Some(system) = super::joined_system(request) {
        input.push(json!({ "role": "system", "content": system }));
    }
    for message in &request.messages {
        match message {
            Message::User { content } => {
                input.push(json!({ "role": "user", "content": content.iter().map(user_part).collect::<Vec<_>>() }));
            }
            Message::Assistant { content } => {
                assistant_items(content, &mut input, &mut custom_calls)
            }
            Message::Tool(result) => {
                let output = match result.attachments.is_empty() {
                    true => json!(result.output),
                    // The output may be a list of input content items.
                    false => {
                        std::iter::once(json!({ "type": "input_text", "text": result.output }))
                            .chain(result.attachments.iter().map(|file| {
                                user_part(&UserPart::File {
                                    mime: file.mime.clone(),
                                    url: file.url.clone(),
                                    filename: file.filename.clone(),
                                })
                            }))
                            .collect()
                    }
                };
                let kind = match custom_calls.contains(result.call_id.as_str()) {
                    true => "custom_tool_call_output",
                    false => "function_call_output",
                };
                input.push(json!({
                    "type": kind,
                    "call_id": result.call_id,
                    "output": output,
                }));
            }
        }
    }
    let mut body =
        json!({ "model": request.model, "input": input, "stream": true, "store": false });
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| json!({ "type": "function", "name": t.name, "description": t.description, "parameters": t.parameters }))
            .collect();
    }
    super::set_sampling(&mut body, request);
    if let Some(max) = request.max_tokens {
        body["max_output_tokens"] = json!(max);
    }
    body
}

fn user_part(part: &UserPart) -> Value {
    match part {
        UserPart::Text { text } => json!({ "type": "input_text", "text": text }),
        UserPart::File { mime, url, .. } if mime.starts_with("image/") => {
            json!({ "type": "input_image", "image_url": url })
        }
        UserPart::File { url, filename, .. } => match data_url(url) {
            Some(_) => json!({ "type": "input_file", "file_data": url, "filename": filename }),
            None => json!({ "type": "input_file", "file_url": url }),
        },
    }
}

/// An assistant turn becomes message items and call items in the order they were
/// produced; the ids of the custom tools' calls among them go into `custom_calls`.
fn assistant_items<'a>(
    parts: &'a [AssistantPart],
    input: &mut Vec<Value>,
    custom_calls: &mut std::collections::HashSet<&'a str>,
) {
    let mut text = String::new();
    let flush = |text: &mut String, input: &mut Vec<Value>| {
        if !text.is_empty() {
            let content = json!([{ "type": "output_text", "text": std::mem::take(text) }]);
            input.push(json!({ "role": "assistant", "content": content }));
        }
    };
    for part in parts {
        match part {
            AssistantPart::Text { text: t } => text.push_str(t),
            // Only an item with its encrypted content can go back (`store` is off).
            AssistantPart::Reasoning {
                text: summary,
                item: Some(item),
                ..
            } if item.encrypted_content.is_some() => {
                flush(&mut text, input);
                let summary: Vec<Value> = match summary.is_empty() {
                    true => Vec::new(),
                    false => vec![json!({ "type": "summary_text", "text": summary })],
                };
                input.push(json!({
                    "type": "reasoning",
                    "id": item.id,
                    "encrypted_content": item.encrypted_content,
                    "summary": summary,
                }));
            }
            AssistantPart::Reasoning { .. } => {}
            AssistantPart::ToolCall(call) => {
                flush(&mut text, input);
                if let Some((name, raw)) = custom_call(&call.name, &call.arguments) {
                    custom_calls.insert(call.id.as_str());
                    input.push(json!({
                        "type": CUSTOM_CALL,
                        "call_id": call.id,
                        "name": name,
                        "input": raw,
                    }));
                    continue;
                }
                input.push(json!({
                    "type": "function_call",
                    "call_id": call.id,
                    "name": call.name,
                    "arguments": call.arguments,
                }));
            }
        }
    }
    flush(&mut text, input);
}

/// Stream state of one Responses API response.
#[derive(Debug, Default)]
pub(super) struct ResponsesParser {
    calls: ToolCalls,
}

impl Parser for ResponsesParser {
    fn event(&mut self, event: &SseEvent, out: &mut Vec<Event>) -> Result<(), ProviderError> {
        let Some(payload) = typed_payload(event)? else {
            return Ok(());
        };
        let kind = event_type(&payload, event);
        let text = |key: &str| payload.get(key).and_then(Value::as_str).unwrap_or("");
        let key = payload
            .get("output_index")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        match kind {
            "response.output_text.delta" | "response.refusal.delta" => {
                push(out, Event::TextDelta, text("delta"))
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                push(out, Event::ReasoningDelta, text("delta"));
            }
            // Summary parts are separate paragraphs; keep them apart.
            "response.reasoning_summary_part.added" if count(&payload, "/summary_index") > 0 => {
                push(out, Event::ReasoningDelta, "\n\n");
            }
            "response.output_item.added" => {
                let item = &payload["item"];
                let field = |k: &str| item.get(k).and_then(Value::as_str);
                match call_kind(item) {
                    Some(CallKind::Function) => {
                        self.calls.begin(key, field("call_id"), field("name"), out);
                        self.calls
                            .append(key, field("arguments").unwrap_or(""), out);
                    }
                    // Its fields are only final at `output_item.done`.
                    Some(CallKind::Unoffered(kind)) => {
                        let id = field("call_id").or(field("id"));
                        self.calls.begin(key, id, Some(kind), out);
                    }
                    None => {}
                }
            }
            "response.function_call_arguments.delta" => self.calls.append(key, text("delta"), out),
            "response.output_item.done" => {
                let item = &payload["item"];
                if item.get("type").and_then(Value::as_str) == Some("reasoning") {
                    let field = |k: &str| item.get(k).and_then(Value::as_str).map(str::to_owned);
                    if let Some(id) = field("id") {
                        out.push(Event::ReasoningItem(ReasoningItem {
                            id,
                            encrypted_content: field("encrypted_content"),
                        }));
                    }
                }
                match call_kind(item) {
                    Some(CallKind::Function) => {
                        let arguments = item.get("arguments").and_then(Value::as_str);
                        self.calls.end(key, arguments.map(str::to_owned), out);
                    }
                    Some(CallKind::Unoffered(_)) => {
                        self.calls.end(key, Some(unoffered_arguments(item)), out);
                    }
                    None => {}
                }
            }
            "response.completed" | "response.incomplete" => {
                self.calls.end_all(out);
                let response = &payload["response"];
                let reason = match response
                    .pointer("/incomplete_details/reason")
                    .and_then(Value::as_str)
                {
                    None => FinishReason::Stop,
                    Some("max_output_tokens") => FinishReason::Length,
                    Some("content_filter") => FinishReason::ContentFilter,
                    Some(_) => FinishReason::Unknown,
                };
                finish(out, usage_of(response), reason, self.calls.any_completed());
            }
            "response.failed" => fail(
                out,
                usage_of(&payload["response"]),
                ProviderError::from_payload(&payload),
            ),
            "error" => fail(out, None, ProviderError::from_payload(&payload)),
            _ => {}
        }
        Ok(())
    }

    fn end_of_stream(&mut self, out: &mut Vec<Event>) {
        let message = "no response.completed before the connection closed".into();
        fail(out, None, ProviderError::Incomplete { message });
    }
}

/// Output item types of tools the provider runs itself: the item reports a
/// call already made (its results follow in the same response), so there is
/// nothing for Ward to answer.
const HOSTED_CALLS: [&str; 5] = [
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
    "mcp_call",
];

/// The item type of a custom tool's call (a grammar or free-form tool's).
const CUSTOM_CALL: &str = "custom_tool_call";

/// The custom tool's name and raw input, if call `name` with `arguments` is what
/// the parser reported for a custom tool's call (named `custom_tool_call`, its
/// arguments the item's `{"name": …, "input": …}`).
fn custom_call(name: &str, arguments: &str) -> Option<(String, String)> {
    if name != CUSTOM_CALL {
        return None;
    }
    let fields: Value = serde_json::from_str(arguments).ok()?;
    let text = |key: &str| fields.get(key).and_then(Value::as_str).map(str::to_owned);
    Some((text("name")?, text("input")?))
}

/// What kind of tool call an output item is, if any.
enum CallKind<'a> {
    /// A call of a function tool, the only kind Ward offers.
    Function,
    /// A call the client is expected to run, of a kind Ward never offers;
    /// carries the item type.
    Unoffered(&'a str),
}

fn call_kind(item: &Value) -> Option<CallKind<'_>> {
    match item.get("type").and_then(Value::as_str)? {
        "function_call" => Some(CallKind::Function),
        kind if kind.ends_with("_call") && !HOSTED_CALLS.contains(&kind) => {
            Some(CallKind::Unoffered(kind))
        }
        _ => None,
    }
}

/// The arguments reported for an unoffered call: the item's own fields
/// (`input`, `action`, `operation`, a custom tool's `name`…) without the
/// bookkeeping ones, so the model sees what it asked for and the history can
/// give a custom tool's call back as it was.
fn unoffered_arguments(item: &Value) -> String {
    let mut fields = item.as_object().cloned().unwrap_or_default();
    for bookkeeping in ["type", "id", "call_id", "status"] {
        fields.remove(bookkeeping);
    }
    Value::Object(fields).to_string()
}

/// `input_tokens` includes cached tokens; see [`Usage`].
fn usage_of(response: &Value) -> Option<Usage> {
    let u = response.get("usage").filter(|u| u.is_object())?;
    let cache_read = count(u, "/input_tokens_details/cached_tokens");
    let output = count(u, "/output_tokens");
    Some(Usage {
        input: count(u, "/input_tokens").saturating_sub(cache_read),
        output,
        reasoning: count(u, "/output_tokens_details/reasoning_tokens").min(output),
        cache_read,
        cache_write: 0,
    })
}
