use serde_json::{Value, json};

use super::*;

fn run(protocol: Protocol, events: &[(&str, Value)]) -> Vec<Event> {
    let mut parser = protocol.parser();
    let mut out = Vec::new();
    for (name, data) in events {
        let event = SseEvent {
            event: Some((*name).to_owned()),
            data: data.to_string(),
            id: None,
        };
        if let Err(error) = parser.event(&event, &mut out) {
            out.push(Event::Error(error));
        }
        if out.iter().any(Event::is_terminal) {
            return out;
        }
    }
    parser.end_of_stream(&mut out);
    out
}

fn ends(events: &[Event]) -> Vec<(usize, String, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallEnd {
                index,
                name,
                arguments,
                ..
            } => Some((*index, name.clone(), arguments.clone())),
            _ => None,
        })
        .collect()
}

fn chat(delta: Value, finish: Option<&str>) -> (&'static str, Value) {
    (
        "",
        json!({ "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }] }),
    )
}

#[test]
fn chat_parallel_calls_interleaved_by_index() {
    let events = run(
        Protocol::OpenaiChat,
        &[
            chat(
                json!({ "tool_calls": [{ "index": 0, "id": "a", "function": { "name": "f", "arguments": "{\"x\"" } }] }),
                None,
            ),
            chat(
                json!({ "tool_calls": [{ "index": 1, "id": "b", "function": { "name": "g", "arguments": "" } }] }),
                None,
            ),
            chat(
                json!({ "tool_calls": [{ "index": 1, "function": { "arguments": "{}" } }] }),
                None,
            ),
            chat(
                json!({ "tool_calls": [{ "index": 0, "function": { "name": "", "arguments": ":1}" } }] }),
                None,
            ),
            chat(json!({}), Some("stop")),
            (
                "",
                json!({ "choices": [], "usage": { "prompt_tokens": 10, "completion_tokens": 5,
                "prompt_tokens_details": { "cached_tokens": 4 } } }),
            ),
        ],
    );
    assert_eq!(
        ends(&events),
        [
            (0, "f".into(), "{\"x\":1}".into()),
            (1, "g".into(), "{}".into())
        ]
    );
    let usage = Usage {
        input: 6,
        output: 5,
        reasoning: 0,
        cache_read: 4,
        cache_write: 0,
    };
    // No `[DONE]`: the finish reason already completed the response. "stop"
    // with tool calls is reported as tool calls.
    assert_eq!(
        events[events.len() - 2..],
        [Event::Usage(usage), Event::Finish(FinishReason::ToolCalls)]
    );
}

#[test]
fn chat_new_id_under_same_index_is_a_new_call() {
    let events = run(
        Protocol::OpenaiChat,
        &[
            chat(
                json!({ "tool_calls": [{ "index": 0, "id": "a", "function": { "name": "f", "arguments": "{}" } }] }),
                None,
            ),
            chat(
                json!({ "tool_calls": [{ "index": 0, "id": "b", "function": { "name": "g", "arguments": "{}" } }] }),
                None,
            ),
            chat(json!({}), Some("tool_calls")),
        ],
    );
    assert_eq!(
        ends(&events),
        [(0, "f".into(), "{}".into()), (1, "g".into(), "{}".into())]
    );
}

#[test]
fn chat_cut_before_finish_is_incomplete_without_tool_end() {
    let events = run(
        Protocol::OpenaiChat,
        &[chat(
            json!({ "tool_calls": [{ "index": 0, "id": "a", "function": { "name": "f", "arguments": "{\"x\"" } }] }),
            None,
        )],
    );
    assert!(ends(&events).is_empty());
    assert!(matches!(
        events.last(),
        Some(Event::Error(ProviderError::Incomplete { .. }))
    ));
}

#[test]
fn chat_reasoning_fields_are_not_double_counted() {
    let events = run(
        Protocol::OpenaiChat,
        &[
            chat(
                json!({ "reasoning": "a", "reasoning_details": [{ "type": "reasoning.text", "text": "a" }] }),
                None,
            ),
            chat(
                json!({ "reasoning_details": [{ "type": "reasoning.text", "text": "b" }] }),
                None,
            ),
            chat(json!({ "reasoning_content": "c" }), Some("stop")),
        ],
    );
    let reasoning: String = events
        .iter()
        .filter_map(|e| match e {
            Event::ReasoningDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(reasoning, "abc");
}

#[test]
fn chat_usage_with_reasoning_outside_completion_tokens() {
    let usage = json!({ "prompt_tokens": 466, "completion_tokens": 68, "total_tokens": 800,
        "prompt_tokens_details": { "cached_tokens": 192 }, "completion_tokens_details": { "reasoning_tokens": 266 } });
    let events = run(
        Protocol::OpenaiChat,
        &[
            chat(json!({}), Some("stop")),
            ("", json!({ "choices": [], "usage": usage })),
        ],
    );
    let want = Usage {
        input: 274,
        output: 334,
        reasoning: 266,
        cache_read: 192,
        cache_write: 0,
    };
    assert!(events.contains(&Event::Usage(want)), "{events:?}");
}

#[test]
fn anthropic_usage_is_replaced_not_added() {
    let start = json!({ "type": "message_start", "message": { "id": "m", "usage": {
        "input_tokens": 10, "cache_read_input_tokens": 3, "cache_creation_input_tokens": 2, "output_tokens": 1 } } });
    let delta = json!({ "type": "message_delta", "delta": { "stop_reason": "max_tokens" }, "usage": {
        "input_tokens": 10, "cache_read_input_tokens": 3, "cache_creation_input_tokens": 2, "output_tokens": 40 } });
    let events = run(
        Protocol::AnthropicMessages,
        &[
            ("message_start", start.clone()),
            ("message_start", start),
            ("message_delta", delta),
            ("message_stop", json!({ "type": "message_stop" })),
        ],
    );
    let usage = Usage {
        input: 10,
        output: 40,
        reasoning: 0,
        cache_read: 3,
        cache_write: 2,
    };
    assert_eq!(
        events,
        [Event::Usage(usage), Event::Finish(FinishReason::Length)]
    );
}

#[test]
fn anthropic_thinking_signature_and_empty_first_fragment() {
    let block = |i: u64, b: Value| {
        (
            "content_block_start",
            json!({ "type": "content_block_start", "index": i, "content_block": b }),
        )
    };
    let delta = |i: u64, d: Value| {
        (
            "content_block_delta",
            json!({ "type": "content_block_delta", "index": i, "delta": d }),
        )
    };
    let events = run(
        Protocol::AnthropicMessages,
        &[
            block(0, json!({ "type": "thinking", "thinking": "" })),
            delta(0, json!({ "type": "thinking_delta", "thinking": "hmm" })),
            delta(0, json!({ "type": "signature_delta", "signature": "SIG" })),
            block(
                1,
                json!({ "type": "tool_use", "id": "t", "name": "f", "input": {} }),
            ),
            delta(1, json!({ "type": "input_json_delta", "partial_json": "" })),
            delta(
                1,
                json!({ "type": "input_json_delta", "partial_json": "{\"a\": 1}" }),
            ),
            (
                "content_block_stop",
                json!({ "type": "content_block_stop", "index": 1 }),
            ),
            ("message_stop", json!({ "type": "message_stop" })),
        ],
    );
    assert_eq!(events[0], Event::ReasoningDelta("hmm".into()));
    assert_eq!(events[1], Event::ReasoningSignature("SIG".into()));
    assert_eq!(ends(&events), [(0, "f".into(), "{\"a\": 1}".into())]);
    assert_eq!(events.last(), Some(&Event::Finish(FinishReason::ToolCalls)));
}

#[test]
fn anthropic_error_event() {
    let error = json!({ "type": "error", "error": { "type": "overloaded_error", "message": "Overloaded" } });
    let events = run(Protocol::AnthropicMessages, &[("error", error)]);
    assert!(matches!(&events[..], [Event::Error(e)] if e.retryable()));
}

#[test]
fn responses_summary_parts_and_incomplete() {
    let events = run(
        Protocol::OpenaiResponses,
        &[
            (
                "",
                json!({ "type": "response.reasoning_summary_text.delta", "delta": "one" }),
            ),
            (
                "",
                json!({ "type": "response.reasoning_summary_part.added", "summary_index": 1 }),
            ),
            (
                "",
                json!({ "type": "response.reasoning_summary_text.delta", "delta": "two" }),
            ),
            (
                "",
                json!({ "type": "response.incomplete", "response": {
                "incomplete_details": { "reason": "max_output_tokens" },
                "usage": { "input_tokens": 9, "input_tokens_details": { "cached_tokens": 4 }, "output_tokens": 3,
                    "output_tokens_details": { "reasoning_tokens": 2 } } } }),
            ),
        ],
    );
    let usage = Usage {
        input: 5,
        output: 3,
        reasoning: 2,
        cache_read: 4,
        cache_write: 0,
    };
    assert_eq!(
        events,
        [
            Event::ReasoningDelta("one".into()),
            Event::ReasoningDelta("\n\n".into()),
            Event::ReasoningDelta("two".into()),
            Event::Usage(usage),
            Event::Finish(FinishReason::Length),
        ]
    );
}

fn responses_item(item: &Value) -> Vec<Event> {
    run(
        Protocol::OpenaiResponses,
        &[
            (
                "",
                json!({ "type": "response.output_item.added", "output_index": 0, "item": item }),
            ),
            (
                "",
                json!({ "type": "response.output_item.done", "output_index": 0, "item": item }),
            ),
            ("", json!({ "type": "response.completed", "response": {} })),
        ],
    )
}

#[test]
fn responses_calls_the_provider_ran_are_not_tool_calls() {
    let item = json!({ "type": "web_search_call", "id": "ws_1", "status": "completed",
        "action": { "type": "search", "query": "q" } });
    assert_eq!(responses_item(&item), [Event::Finish(FinishReason::Stop)]);
}

#[test]
fn responses_unoffered_call_kinds_are_tool_calls_keeping_their_ids() {
    // Client-run kinds Ward never offers, and one no API has yet.
    let items = [
        json!({ "type": "local_shell_call", "id": "lsh_1", "call_id": "call_a", "status": "completed",
            "action": { "type": "exec", "command": ["ls"] } }),
        json!({ "type": "custom_tool_call", "id": "ctc_1", "call_id": "call_b", "name": "grammar",
            "input": "free text" }),
        json!({ "type": "teleport_call", "id": "tp_1" }),
    ];
    let expected = [
        (
            "call_a",
            "local_shell_call",
            json!({ "action": { "type": "exec", "command": ["ls"] } }),
        ),
        (
            "call_b",
            "custom_tool_call",
            json!({ "name": "grammar", "input": "free text" }),
        ),
        ("tp_1", "teleport_call", json!({})),
    ];
    for (item, (id, name, arguments)) in items.iter().zip(expected) {
        let events = responses_item(item);
        let Some(Event::ToolCallEnd {
            id: got_id,
            name: got_name,
            arguments: got_arguments,
            ..
        }) = events
            .iter()
            .find(|e| matches!(e, Event::ToolCallEnd { .. }))
        else {
            panic!("no call for {item}: {events:?}")
        };
        assert_eq!((got_id.as_str(), got_name.as_str()), (id, name));
        let got: Value = serde_json::from_str(got_arguments).unwrap_or_default();
        assert_eq!(got, arguments);
        // The loop must answer it, so the response asks for tool results.
        assert_eq!(events.last(), Some(&Event::Finish(FinishReason::ToolCalls)));
    }
}

#[test]
fn responses_a_custom_tool_call_goes_back_as_the_item_it_was() {
    use crate::types::{AssistantPart, ChatRequest, Message, ToolCall, ToolResult};
    let item = json!({ "type": "custom_tool_call", "id": "ctc_1", "call_id": "call_b",
        "name": "grammar", "input": "SELECT 1 {not json}" });
    let events = responses_item(&item);
    let Some(Event::ToolCallEnd {
        id,
        name,
        arguments,
        ..
    }) = events
        .iter()
        .find(|e| matches!(e, Event::ToolCallEnd { .. }))
        .cloned()
    else {
        panic!("no call: {events:?}")
    };
    // The next request, as the loop builds it: the call, and Ward's answer to it.
    let request = ChatRequest {
        model: "m".into(),
        system: Vec::new(),
        messages: vec![
            Message::Assistant {
                content: vec![AssistantPart::ToolCall(ToolCall {
                    id,
                    name,
                    arguments,
                })],
            },
            Message::Tool(ToolResult {
                call_id: "call_b".into(),
                output: "unknown tool `grammar`".into(),
                is_error: true,
                attachments: Vec::new(),
            }),
        ],
        tools: Vec::new(),
        temperature: None,
        top_p: None,
        max_tokens: None,
        options: Value::Null,
    };
    let body = request_body(Protocol::OpenaiResponses, &request);
    assert_eq!(
        body["input"],
        json!([
            { "type": "custom_tool_call", "call_id": "call_b", "name": "grammar",
              "input": "SELECT 1 {not json}" },
            { "type": "custom_tool_call_output", "call_id": "call_b",
              "output": "unknown tool `grammar`" },
        ])
    );
}

#[test]
fn malformed_json_is_an_error_not_a_panic() {
    for protocol in [
        Protocol::OpenaiChat,
        Protocol::OpenaiResponses,
        Protocol::AnthropicMessages,
    ] {
        let mut parser = protocol.parser();
        let event = SseEvent {
            event: None,
            data: "{not json".into(),
            id: None,
        };
        let result = parser.event(&event, &mut Vec::new());
        assert!(
            matches!(result, Err(ProviderError::Malformed { .. })),
            "{protocol:?}"
        );
        let cut = SseEvent {
            event: None,
            data: "{\"type\":\"content_block_del".into(),
            id: None,
        };
        let result = parser.event(&cut, &mut Vec::new());
        assert!(
            matches!(result, Err(ProviderError::Incomplete { .. })),
            "{protocol:?}"
        );
    }
}
