//! Renders a scripted reply as the SSE stream each provider really sends: the event
//! names, the JSON shapes, tool-call arguments split across events, usage at the end.

use serde_json::{Value, json};

use super::{Item, Usage, Wire};

/// The whole SSE body for `items`.
pub(super) fn render(wire: Wire, items: &[Item], usage: Usage) -> String {
    match wire {
        Wire::ChatCompletions => chat(items, usage),
        Wire::Responses => responses(items, usage),
        Wire::Anthropic => anthropic(items, usage),
    }
}

fn data(v: Value) -> String {
    format!("data: {v}\n\n")
}

fn event(name: &str, v: Value) -> String {
    format!("event: {name}\ndata: {v}\n\n")
}

/// The arguments JSON in two halves, as providers split it.
fn halves(args: &Value) -> (String, String) {
    let s = args.to_string();
    let mut mid = s.len() / 2;
    while !s.is_char_boundary(mid) {
        mid += 1;
    }
    (s[..mid].to_string(), s[mid..].to_string())
}

fn has_tools(items: &[Item]) -> bool {
    items.iter().any(|i| matches!(i, Item::ToolCall { .. }))
}

fn chat(items: &[Item], usage: Usage) -> String {
    let chunk = |delta: Value, finish: Value| {
        data(json!({
            "id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 1,
            "model": "scripted", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
        }))
    };
    let mut out = chunk(json!({"role": "assistant", "content": ""}), Value::Null);
    let mut index = 0;
    for item in items {
        match item {
            Item::Text(t) => out += &chunk(json!({"content": t}), Value::Null),
            Item::Reasoning(t) => out += &chunk(json!({"reasoning_content": t}), Value::Null),
            Item::OtherCall { .. } => {}
            Item::ToolCall { id, name, args } => {
                let (a, b) = halves(args);
                out += &chunk(
                    json!({"tool_calls": [{"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}),
                    Value::Null,
                );
                out += &chunk(
                    json!({"tool_calls": [{"index": index, "function": {"arguments": a}}]}),
                    Value::Null,
                );
                out += &chunk(
                    json!({"tool_calls": [{"index": index, "function": {"arguments": b}}]}),
                    Value::Null,
                );
                index += 1;
            }
        }
    }
    let finish = if has_tools(items) {
        "tool_calls"
    } else {
        "stop"
    };
    out += &chunk(json!({}), json!(finish));
    out += &data(json!({
        "id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 1, "model": "scripted",
        "choices": [],
        "usage": {
            "prompt_tokens": usage.input + usage.cache_read,
            "completion_tokens": usage.output,
            "total_tokens": usage.input + usage.cache_read + usage.output,
            "prompt_tokens_details": {"cached_tokens": usage.cache_read}
        }
    }));
    out + "data: [DONE]\n\n"
}

fn responses(items: &[Item], usage: Usage) -> String {
    let mut out = event(
        "response.created",
        json!({"type": "response.created", "response": {"id": "resp_scripted", "status": "in_progress"}}),
    );
    let mut output = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item {
            Item::Text(t) => {
                let done = json!({"type": "message", "id": format!("msg_{i}"), "role": "assistant", "content": [{"type": "output_text", "text": t}]});
                out += &event(
                    "response.output_item.added",
                    json!({"type": "response.output_item.added", "output_index": i, "item": {"type": "message", "id": format!("msg_{i}"), "role": "assistant", "content": []}}),
                );
                out += &event(
                    "response.output_text.delta",
                    json!({"type": "response.output_text.delta", "output_index": i, "item_id": format!("msg_{i}"), "content_index": 0, "delta": t}),
                );
                out += &event(
                    "response.output_item.done",
                    json!({"type": "response.output_item.done", "output_index": i, "item": done}),
                );
                output.push(done);
            }
            Item::Reasoning(t) => {
                let done = json!({"type": "reasoning", "id": format!("rs_{i}"), "summary": [{"type": "summary_text", "text": t}]});
                out += &event(
                    "response.output_item.added",
                    json!({"type": "response.output_item.added", "output_index": i, "item": {"type": "reasoning", "id": format!("rs_{i}"), "summary": []}}),
                );
                out += &event(
                    "response.reasoning_summary_text.delta",
                    json!({"type": "response.reasoning_summary_text.delta", "output_index": i, "item_id": format!("rs_{i}"), "summary_index": 0, "delta": t}),
                );
                out += &event(
                    "response.output_item.done",
                    json!({"type": "response.output_item.done", "output_index": i, "item": done}),
                );
                output.push(done);
            }
            Item::ToolCall { id, name, args } => {
                let (a, b) = halves(args);
                let item_id = format!("fc_{i}");
                out += &event(
                    "response.output_item.added",
                    json!({"type": "response.output_item.added", "output_index": i, "item": {"type": "function_call", "id": item_id, "call_id": id, "name": name, "arguments": ""}}),
                );
                for part in [a, b] {
                    out += &event(
                        "response.function_call_arguments.delta",
                        json!({"type": "response.function_call_arguments.delta", "output_index": i, "item_id": item_id, "delta": part}),
                    );
                }
                let done = json!({"type": "function_call", "id": item_id, "call_id": id, "name": name, "arguments": args.to_string(), "status": "completed"});
                out += &event(
                    "response.function_call_arguments.done",
                    json!({"type": "response.function_call_arguments.done", "output_index": i, "item_id": item_id, "arguments": args.to_string()}),
                );
                out += &event(
                    "response.output_item.done",
                    json!({"type": "response.output_item.done", "output_index": i, "item": done}),
                );
                output.push(done);
            }
            Item::OtherCall { id, item } => {
                let mut done = item.clone();
                done["call_id"] = json!(id);
                out += &event(
                    "response.output_item.added",
                    json!({"type": "response.output_item.added", "output_index": i, "item": done}),
                );
                out += &event(
                    "response.output_item.done",
                    json!({"type": "response.output_item.done", "output_index": i, "item": done}),
                );
                output.push(done);
            }
        }
    }
    out + &event(
        "response.completed",
        json!({"type": "response.completed", "response": {
            "id": "resp_scripted", "status": "completed", "output": output,
            "usage": {
                "input_tokens": usage.input + usage.cache_read,
                "input_tokens_details": {"cached_tokens": usage.cache_read},
                "output_tokens": usage.output,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": usage.input + usage.cache_read + usage.output
            }
        }}),
    )
}

fn anthropic(items: &[Item], usage: Usage) -> String {
    let mut out = event(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": "msg_scripted", "type": "message", "role": "assistant", "model": "scripted", "content": [],
            "stop_reason": null, "usage": {"input_tokens": usage.input, "cache_read_input_tokens": usage.cache_read, "cache_creation_input_tokens": 0, "output_tokens": 1}
        }}),
    );
    out += &event("ping", json!({"type": "ping"}));
    for (i, item) in items.iter().enumerate() {
        let (start, deltas): (Value, Vec<Value>) = match item {
            Item::OtherCall { .. } => continue,
            Item::Text(t) => (
                json!({"type": "text", "text": ""}),
                vec![json!({"type": "text_delta", "text": t})],
            ),
            Item::Reasoning(t) => (
                json!({"type": "thinking", "thinking": ""}),
                vec![
                    json!({"type": "thinking_delta", "thinking": t}),
                    json!({"type": "signature_delta", "signature": "c2lnbmF0dXJl"}),
                ],
            ),
            Item::ToolCall { id, name, args } => {
                let (a, b) = halves(args);
                (
                    json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
                    vec![
                        json!({"type": "input_json_delta", "partial_json": ""}),
                        json!({"type": "input_json_delta", "partial_json": a}),
                        json!({"type": "input_json_delta", "partial_json": b}),
                    ],
                )
            }
        };
        out += &event(
            "content_block_start",
            json!({"type": "content_block_start", "index": i, "content_block": start}),
        );
        for d in deltas {
            out += &event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": i, "delta": d}),
            );
        }
        out += &event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": i}),
        );
    }
    let stop = if has_tools(items) {
        "tool_use"
    } else {
        "end_turn"
    };
    out += &event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": usage.output}}),
    );
    out + &event("message_stop", json!({"type": "message_stop"}))
}
