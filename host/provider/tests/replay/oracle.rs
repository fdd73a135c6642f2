//! What a recording contains, read the simple way: the whole body at once,
//! each `data:` line one JSON payload, no streaming state machine. The replay
//! test compares the client's streamed events against this.

use serde_json::Value;
use ward_provider::FinishReason;

/// Facts about one recorded response, up to its terminal event.
#[derive(Debug, Default)]
pub struct Expected {
    /// Client tool calls in order: name and parsed arguments.
    pub tool_calls: Vec<(String, Value)>,
    /// All visible text, concatenated.
    pub text: String,
    /// Whether any reasoning text was streamed.
    pub reasoning: bool,
    /// Recorded usage: total prompt tokens (cached included) and output.
    pub usage: Option<(u64, u64)>,
    /// The finish reason the client should report, when no error.
    pub finish: Option<FinishReason>,
    /// The response carries an error (HTTP status or in-band).
    pub error: bool,
}

/// Reads a recorded body of `protocol` with HTTP `status`.
pub fn expect(protocol: &str, status: u16, body: &[u8]) -> Expected {
    if !(200..300).contains(&status) {
        return Expected {
            error: true,
            ..Expected::default()
        };
    }
    let text = String::from_utf8_lossy(body);
    let payloads: Vec<&str> = text
        .split(['\n', '\r'])
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .collect();
    let mut expected = Expected::default();
    let mut calls: Vec<(u64, String, String)> = Vec::new();
    for payload in payloads {
        if payload == "[DONE]" {
            break;
        }
        let json: Value = serde_json::from_str(payload)
            .unwrap_or_else(|e| panic!("recorded payload: {e}: {payload}"));
        let done = match protocol {
            "openai-chat" => chat(&json, &mut expected, &mut calls),
            "anthropic-messages" => anthropic(&json, &mut expected, &mut calls),
            _ => responses(&json, &mut expected, &mut calls),
        };
        if done {
            break;
        }
    }
    expected.tool_calls = calls
        .into_iter()
        .map(|(_, name, args)| {
            let args = if args.trim().is_empty() {
                "{}".to_owned()
            } else {
                args
            };
            let value = serde_json::from_str(&args)
                .unwrap_or_else(|e| panic!("recorded arguments {args}: {e}"));
            (name, value)
        })
        .collect();
    if expected.finish == Some(FinishReason::Stop) && !expected.tool_calls.is_empty() {
        expected.finish = Some(FinishReason::ToolCalls);
    }
    if expected.error {
        expected.finish = None;
    }
    expected
}

fn str_at<'a>(value: &'a Value, pointer: &str) -> &'a str {
    value.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

fn num(value: &Value, pointer: &str) -> u64 {
    value.pointer(pointer).and_then(Value::as_u64).unwrap_or(0)
}

fn chat(json: &Value, e: &mut Expected, calls: &mut Vec<(u64, String, String)>) -> bool {
    if let Some(u) = json
        .get("usage")
        .filter(|u| u.is_object())
        .or(json.pointer("/x_groq/usage"))
    {
        e.usage = Some((num(u, "/prompt_tokens"), num(u, "/completion_tokens")));
    }
    if json.get("error").is_some_and(|e| !e.is_null()) {
        e.error = true;
        return true;
    }
    let Some(choice) = json.pointer("/choices/0") else {
        return false;
    };
    let delta = &choice["delta"];
    match &delta["content"] {
        Value::String(t) => e.text.push_str(t),
        Value::Array(parts) => {
            for part in parts {
                match part["type"].as_str() {
                    Some("text") => e.text.push_str(str_at(part, "/text")),
                    Some("thinking") => e.reasoning = true,
                    _ => {}
                }
            }
        }
        _ => {}
    }
    let details_text = delta["reasoning_details"]
        .as_array()
        .is_some_and(|d| d.iter().any(|x| !str_at(x, "/text").is_empty()));
    if !str_at(delta, "/reasoning_content").is_empty()
        || !str_at(delta, "/reasoning").is_empty()
        || details_text
    {
        e.reasoning = true;
    }
    for (i, call) in delta["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let index = call["index"].as_u64().unwrap_or(i as u64);
        if !calls.iter().any(|(k, ..)| *k == index) {
            calls.push((index, String::new(), String::new()));
        }
        let entry = calls
            .iter_mut()
            .rev()
            .find(|(k, ..)| *k == index)
            .expect("entry");
        if entry.1.is_empty() {
            entry.1 = str_at(call, "/function/name").to_owned();
        }
        entry.2.push_str(str_at(call, "/function/arguments"));
    }
    if let Some(reason) = choice["finish_reason"].as_str() {
        e.finish = Some(match reason {
            "stop" => FinishReason::Stop,
            "tool_calls" => FinishReason::ToolCalls,
            "length" => FinishReason::Length,
            "content_filter" => FinishReason::ContentFilter,
            _ => FinishReason::Unknown,
        });
    }
    false
}

/// `message_delta` usage may carry only `output_tokens`; the prompt counts
/// then stay those of `message_start`.
fn anthropic_usage(e: &mut Expected, u: &Value) {
    if !u.is_object() {
        return;
    }
    let (mut prompt, mut output) = e.usage.unwrap_or_default();
    if u.get("input_tokens").is_some() {
        prompt = num(u, "/input_tokens")
            + num(u, "/cache_read_input_tokens")
            + num(u, "/cache_creation_input_tokens");
    }
    if u.get("output_tokens").is_some() {
        output = num(u, "/output_tokens");
    }
    e.usage = Some((prompt, output));
}

fn anthropic_block(
    index: u64,
    b: &Value,
    e: &mut Expected,
    calls: &mut Vec<(u64, String, String)>,
) {
    match b["type"].as_str() {
        Some("tool_use") => {
            let input = b["input"]
                .as_object()
                .filter(|o| !o.is_empty())
                .map(|o| Value::Object(o.clone()).to_string());
            calls.push((
                index,
                str_at(b, "/name").to_owned(),
                input.unwrap_or_default(),
            ));
        }
        Some("text") => e.text.push_str(str_at(b, "/text")),
        _ => {}
    }
}

fn anthropic(json: &Value, e: &mut Expected, calls: &mut Vec<(u64, String, String)>) -> bool {
    match json["type"].as_str().unwrap_or_default() {
        "message_start" => {
            anthropic_usage(e, &json["message"]["usage"]);
            if let Some(reason) = json["message"]["stop_reason"].as_str() {
                e.finish = Some(anthropic_reason(reason));
            }
            for (i, b) in json["message"]["content"]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
            {
                anthropic_block(i as u64, b, e, calls);
            }
        }
        "content_block_start" => {
            anthropic_block(num(json, "/index"), &json["content_block"], e, calls)
        }
        "content_block_delta" => match str_at(json, "/delta/type") {
            "text_delta" => e.text.push_str(str_at(json, "/delta/text")),
            "thinking_delta" => e.reasoning |= !str_at(json, "/delta/thinking").is_empty(),
            "input_json_delta" => {
                let index = num(json, "/index");
                if let Some(call) = calls.iter_mut().rev().find(|(k, ..)| *k == index) {
                    call.2.push_str(str_at(json, "/delta/partial_json"));
                }
            }
            _ => {}
        },
        "message_delta" => {
            anthropic_usage(e, &json["usage"]);
            if let Some(reason) = json["delta"]["stop_reason"].as_str() {
                e.finish = Some(anthropic_reason(reason));
            }
        }
        "message_stop" => return true,
        "error" => {
            e.error = true;
            return true;
        }
        _ => {}
    }
    false
}

fn anthropic_reason(reason: &str) -> FinishReason {
    match reason {
        "end_turn" | "stop_sequence" => FinishReason::Stop,
        "tool_use" => FinishReason::ToolCalls,
        "max_tokens" => FinishReason::Length,
        _ => FinishReason::Unknown,
    }
}

/// Responses output items of tools the provider runs itself.
const HOSTED: [&str; 5] = [
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
    "mcp_call",
];

fn responses(json: &Value, e: &mut Expected, calls: &mut Vec<(u64, String, String)>) -> bool {
    match json["type"].as_str().unwrap_or_default() {
        "response.output_text.delta" => e.text.push_str(str_at(json, "/delta")),
        "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
            e.reasoning |= !str_at(json, "/delta").is_empty();
        }
        "response.output_item.done" if str_at(json, "/item/type") == "function_call" => {
            let item = &json["item"];
            calls.push((
                num(json, "/output_index"),
                str_at(item, "/name").to_owned(),
                str_at(item, "/arguments").to_owned(),
            ));
        }
        // A call of a kind Ward never offers (custom, local shell, apply_patch…)
        // that the client would have to run: reported under its item type with
        // the item's own fields, so the loop can answer it as an unknown tool.
        // Calls the provider ran itself are results, not requests.
        "response.output_item.done"
            if str_at(json, "/item/type").ends_with("_call")
                && !HOSTED.contains(&str_at(json, "/item/type")) =>
        {
            let mut fields = json["item"].as_object().cloned().unwrap_or_default();
            for key in ["type", "id", "call_id", "status"] {
                fields.remove(key);
            }
            calls.push((
                num(json, "/output_index"),
                str_at(json, "/item/type").to_owned(),
                Value::Object(fields).to_string(),
            ));
        }
        "response.completed" => {
            let u = &json["response"]["usage"];
            if u.is_object() {
                e.usage = Some((num(u, "/input_tokens"), num(u, "/output_tokens")));
            }
            e.finish = Some(FinishReason::Stop);
            return true;
        }
        "response.failed" | "error" => {
            e.error = true;
            return true;
        }
        _ => {}
    }
    false
}
