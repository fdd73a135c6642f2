use serde_json::json;

use super::*;
use crate::types::{AssistantPart, Message, SystemBlock, ToolCall, ToolResult, ToolSpec, UserPart};

fn request() -> ChatRequest {
    ChatRequest {
        model: "m".into(),
        system: vec![
            SystemBlock {
                text: "static".into(),
                cache: true,
            },
            SystemBlock {
                text: "dynamic".into(),
                cache: false,
            },
        ],
        messages: vec![
            Message::User {
                content: vec![UserPart::Text { text: "hi".into() }],
            },
            Message::Assistant {
                content: vec![
                    AssistantPart::Reasoning {
                        text: "think".into(),
                        signature: Some("sig".into()),
                        redacted: None,
                        item: None,
                    },
                    AssistantPart::Reasoning {
                        text: "unsigned".into(),
                        signature: None,
                        redacted: None,
                        item: None,
                    },
                    AssistantPart::Text {
                        text: "calling".into(),
                    },
                    AssistantPart::ToolCall(ToolCall {
                        id: "c1".into(),
                        name: "read".into(),
                        arguments: "{\"p\":1}".into(),
                    }),
                ],
            },
            Message::Tool(ToolResult {
                call_id: "c1".into(),
                output: "boom".into(),
                is_error: true,
                attachments: Vec::new(),
            }),
            Message::User {
                content: vec![UserPart::Text {
                    text: "next".into(),
                }],
            },
        ],
        tools: vec![ToolSpec {
            name: "read".into(),
            description: "reads".into(),
            parameters: json!({"type": "object"}),
        }],
        temperature: Some(0.5),
        top_p: None,
        max_tokens: Some(100),
        options: json!({ "max_tokens": null, "max_completion_tokens": 100, "seed": 7 }),
    }
}

#[test]
fn chat_body() {
    let body = request_body(Protocol::OpenaiChat, &request());
    assert_eq!(body["stream"], json!(true));
    assert_eq!(body["stream_options"], json!({ "include_usage": true }));
    assert_eq!(
        body["messages"][0],
        json!({ "role": "system", "content": "static\n\ndynamic" })
    );
    assert_eq!(
        body["messages"][1],
        json!({ "role": "user", "content": "hi" })
    );
    assert_eq!(body["messages"][2]["content"], json!("calling"));
    assert_eq!(
        body["messages"][2]["tool_calls"][0]["function"],
        json!({ "name": "read", "arguments": "{\"p\":1}" })
    );
    assert_eq!(
        body["messages"][3],
        json!({ "role": "tool", "tool_call_id": "c1", "content": "boom" })
    );
    assert_eq!(body["tools"][0]["function"]["name"], json!("read"));
    assert_eq!(body["temperature"], json!(0.5));
    assert!(body.get("top_p").is_none());
    // Options override and delete builder fields.
    assert!(body.get("max_tokens").is_none());
    assert_eq!(body["max_completion_tokens"], json!(100));
    assert_eq!(body["seed"], json!(7));
}

#[test]
fn responses_body() {
    let body = request_body(Protocol::OpenaiResponses, &request());
    let input = body["input"].as_array().cloned().unwrap_or_default();
    let kinds: Vec<String> = input
        .iter()
        .map(|item| {
            item.get("type")
                .or(item.get("role"))
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_owned()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "system",
            "user",
            "assistant",
            "function_call",
            "function_call_output",
            "user"
        ]
    );
    assert_eq!(
        input[1]["content"][0],
        json!({ "type": "input_text", "text": "hi" })
    );
    assert_eq!(
        input[2]["content"][0],
        json!({ "type": "output_text", "text": "calling" })
    );
    assert_eq!(input[3]["call_id"], json!("c1"));
    assert_eq!(body["max_output_tokens"], json!(100));
    assert_eq!(body["store"], json!(false));
    assert_eq!(body["tools"][0]["parameters"], json!({ "type": "object" }));
}

#[test]
fn anthropic_body() {
    let mut req = request();
    req.max_tokens = None;
    req.options = Value::Null;
    req.messages.push(Message::User {
        content: vec![UserPart::File {
            mime: "image/png".into(),
            url: "data:image/png;base64,AAAA".into(),
            filename: None,
        }],
    });
    let body = request_body(Protocol::AnthropicMessages, &req);
    assert_eq!(body["max_tokens"], json!(ANTHROPIC_DEFAULT_MAX_TOKENS));
    assert_eq!(
        body["system"],
        json!([
            { "type": "text", "text": "static", "cache_control": { "type": "ephemeral" } },
            { "type": "text", "text": "dynamic" },
        ])
    );
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    assert_eq!(
        messages.len(),
        3,
        "tool result and following user text share one user turn"
    );
    let assistant = &messages[1]["content"];
    assert_eq!(
        assistant[0],
        json!({ "type": "thinking", "thinking": "think", "signature": "sig" })
    );
    assert_eq!(assistant[1], json!({ "type": "text", "text": "calling" }));
    assert_eq!(assistant[2]["input"], json!({ "p": 1 }));
    let user = &messages[2]["content"];
    assert_eq!(
        user[0],
        json!({ "type": "tool_result", "tool_use_id": "c1", "content": "boom", "is_error": true })
    );
    assert_eq!(user[1], json!({ "type": "text", "text": "next" }));
    assert_eq!(
        user[2]["source"],
        json!({ "type": "base64", "media_type": "image/png", "data": "AAAA" })
    );
    assert_eq!(
        body["tools"][0]["input_schema"],
        json!({ "type": "object" })
    );
}
