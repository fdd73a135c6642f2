//! Replays of single recordings with the expected events written out by
//! hand (values read from the recordings), for the quirks that matter most.

use ward_provider::{Event, FinishReason, Protocol, ProviderError, Usage};

use crate::{fixtures, replay};

/// Replays interaction `n` of the recording at `path`.
async fn events(protocol: Protocol, label: &str, path: &str, n: usize) -> Vec<Event> {
    let interactions = fixtures::load(&fixtures::root(), path, label);
    replay(protocol, &interactions[n]).await.0
}

fn usage(events: &[Event]) -> Option<Usage> {
    events.iter().find_map(|e| match e {
        Event::Usage(u) => Some(*u),
        _ => None,
    })
}

/// Completed calls: id, name and raw arguments.
pub(crate) fn calls(events: &[Event]) -> Vec<(String, String, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallEnd {
                id,
                name,
                arguments,
                ..
            } => Some((id.clone(), name.clone(), arguments.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn anthropic_tool_call_exact_events() {
    let path = "opencode/llm/anthropic-messages/streams-tool-call.json";
    let got = events(Protocol::AnthropicMessages, "anthropic-messages", path, 0).await;
    let id = "toolu_012rmAruviySvUXSjgCPWVRu".to_owned();
    let name = "get_weather".to_owned();
    assert_eq!(
        got,
        vec![
            Event::ToolCallStart {
                index: 0,
                id: id.clone(),
                name: name.clone()
            },
            Event::ToolCallDelta {
                index: 0,
                arguments_delta: "{\"city\":".into()
            },
            Event::ToolCallDelta {
                index: 0,
                arguments_delta: " \"Paris\"}".into()
            },
            Event::ToolCallEnd {
                index: 0,
                id,
                name,
                arguments: "{\"city\": \"Paris\"}".into()
            },
            Event::Usage(Usage {
                input: 677,
                output: 33,
                reasoning: 0,
                cache_read: 0,
                cache_write: 0
            }),
            Event::Finish(FinishReason::ToolCalls),
        ]
    );
}

#[tokio::test]
async fn anthropic_tool_without_arguments_gets_an_empty_object() {
    let path = "vercel-ai/anthropic/anthropic-tool-no-args.chunks.txt";
    let got = events(Protocol::AnthropicMessages, "anthropic-messages", path, 0).await;
    let [(_, _, arguments)] = &calls(&got)[..] else {
        panic!("one call expected: {got:?}")
    };
    assert_eq!(arguments, "{}");
}

#[tokio::test]
async fn anthropic_cache_write_then_read() {
    let path = "opencode/llm/anthropic-messages-cache/writes-then-reads-cache-control-on-identical-second-call.json";
    let first = events(Protocol::AnthropicMessages, "anthropic-messages", path, 0).await;
    let second = events(Protocol::AnthropicMessages, "anthropic-messages", path, 1).await;
    assert_eq!(
        usage(&first),
        Some(Usage {
            input: 9,
            output: 5,
            reasoning: 0,
            cache_read: 0,
            cache_write: 5752
        })
    );
    assert_eq!(
        usage(&second),
        Some(Usage {
            input: 9,
            output: 5,
            reasoning: 0,
            cache_read: 5752,
            cache_write: 0
        })
    );
}

#[tokio::test]
async fn anthropic_http_400_is_a_final_invalid_request() {
    let path =
        "opencode/llm/anthropic-messages/rejects-malformed-assistant-tool-order-without-patch.json";
    let got = events(Protocol::AnthropicMessages, "anthropic-messages", path, 0).await;
    let [Event::Error(error)] = &got[..] else {
        panic!("one error expected: {got:?}")
    };
    assert!(
        matches!(error, ProviderError::InvalidRequest { status: Some(400), message } if message.contains("tool_result"))
    );
    assert!(!error.retryable());
}

#[tokio::test]
async fn anthropic_programmatic_tool_calling_steps() {
    let path = "vercel-ai/anthropic/anthropic-programmatic-tool-calling.1.chunks.txt";
    let steps = fixtures::load(&fixtures::root(), path, "anthropic-messages");
    assert_eq!(steps.len(), 15);
    // Step 1 streams a server-side code_execution call (not Ward's to run)
    // and a client tool call issued from inside it; steps 2-14 arrive with
    // the client call pre-filled in message_start.
    let first = events(Protocol::AnthropicMessages, "anthropic-messages", path, 0).await;
    let names: Vec<String> = calls(&first).into_iter().map(|(_, name, _)| name).collect();
    assert_eq!(names, ["rollDie"]);
    let second = events(Protocol::AnthropicMessages, "anthropic-messages", path, 1).await;
    assert_eq!(
        calls(&second),
        [(
            "toolu_015dGLMbwBKv1ZRQr6KdJzeH".into(),
            "rollDie".into(),
            "{\"player\":\"player2\"}".into()
        )]
    );
    assert_eq!(second.last(), Some(&Event::Finish(FinishReason::ToolCalls)));
}

#[tokio::test]
async fn chat_parallel_kimi_calls_keep_their_ids() {
    let path = "fantasy/TestOpenAICompatibleCommon/groq-kimi-k2/multi_tool_streaming.yaml";
    let got = events(Protocol::OpenaiChat, "openai-chat", path, 0).await;
    let ids: Vec<(String, String)> = calls(&got)
        .into_iter()
        .map(|(id, name, _)| (id, name))
        .collect();
    assert_eq!(
        ids,
        [
            ("functions.add:0".into(), "add".into()),
            ("functions.multiply:1".into(), "multiply".into())
        ]
    );
    // Groq repeats usage in `x_groq`; it is reported once.
    assert_eq!(
        got.iter().filter(|e| matches!(e, Event::Usage(_))).count(),
        1
    );
    assert_eq!(
        usage(&got),
        Some(Usage {
            input: 201,
            output: 58,
            ..Usage::default()
        })
    );
}

#[tokio::test]
async fn chat_usage_only_final_chunk_with_reasoning_tokens() {
    let path = "fantasy/TestOpenAICommon/openai-gpt-5/simple_streaming.yaml";
    let got = events(Protocol::OpenaiChat, "openai-chat", path, 0).await;
    assert_eq!(
        usage(&got),
        Some(Usage {
            input: 19,
            output: 75,
            reasoning: 64,
            cache_read: 0,
            cache_write: 0
        })
    );
    assert_eq!(got.last(), Some(&Event::Finish(FinishReason::Stop)));
}

#[tokio::test]
async fn chat_in_band_error_after_finish_reason() {
    let path = "pydantic-ai/test_openrouter/test_openrouter_stream_error.yaml";
    let got = events(Protocol::OpenaiChat, "openai-chat", path, 0).await;
    assert!(got.iter().any(|e| matches!(e, Event::ReasoningDelta(_))));
    // OpenRouter claims 11 reasoning tokens of 10 output tokens; capped.
    assert_eq!(
        usage(&got),
        Some(Usage {
            input: 43,
            output: 10,
            reasoning: 10,
            ..Usage::default()
        })
    );
    let Some(Event::Error(error)) = got.last() else {
        panic!("error expected: {got:?}")
    };
    assert_eq!(
        error,
        &ProviderError::InvalidRequest {
            status: Some(400),
            message: "Token limit reached".into()
        }
    );
}

#[tokio::test]
async fn chat_mistral_typed_content_parts() {
    let path = "vercel-ai/mistral/mistral-reasoning.chunks.txt";
    let got = events(Protocol::OpenaiChat, "openai-chat", path, 0).await;
    let reasoning: String = got
        .iter()
        .filter_map(|e| match e {
            Event::ReasoningDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        reasoning,
        "The user is asking for 2+2. This is basic arithmetic. 2+2=4."
    );
    assert!(got.contains(&Event::TextDelta("2 + 2 = 4".into())));
}

#[tokio::test]
async fn responses_cached_tokens_are_not_input() {
    let path =
        "opencode/llm/openai-responses-cache/reports-cached-tokens-on-identical-second-call.json";
    let got = events(Protocol::OpenaiResponses, "openai-responses", path, 1).await;
    assert_eq!(
        usage(&got),
        Some(Usage {
            input: 157,
            output: 3,
            reasoning: 0,
            cache_read: 4608,
            cache_write: 0
        })
    );
}

#[tokio::test]
async fn responses_mid_stream_quota_error_is_final() {
    let path = "vercel-ai/openai/responses/openai-error.1.chunks.txt";
    let got = events(Protocol::OpenaiResponses, "openai-responses", path, 0).await;
    let [Event::Error(error)] = &got[..] else {
        panic!("one error expected: {got:?}")
    };
    assert!(
        matches!(error, ProviderError::QuotaExceeded { .. }),
        "{error:?}"
    );
    assert!(!error.retryable());
}

#[tokio::test]
async fn responses_concatenated_steps_each_complete() {
    let path = "vercel-ai/openai/responses/openai-reasoning-encrypted-content.1.chunks.txt";
    let steps = fixtures::load(&fixtures::root(), path, "openai-responses");
    assert_eq!(steps.len(), 4);
    let first = events(Protocol::OpenaiResponses, "openai-responses", path, 0).await;
    assert!(first.iter().any(|e| matches!(e, Event::ReasoningDelta(_))));
    let mut total = 0;
    for n in 0..steps.len() {
        total += calls(&events(Protocol::OpenaiResponses, "openai-responses", path, n).await).len();
    }
    assert_eq!(total, 3);
}
