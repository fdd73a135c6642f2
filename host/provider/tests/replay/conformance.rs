//! Replays pinned to two classes of real provider behaviour: a stream whose
//! `content-type` is missing or wrong (the body, not the label, says what it
//! is), and Responses tool calls of kinds Ward never offers (they must reach
//! the agent loop as tool calls with their ids, not vanish).

use futures_util::StreamExt;
use serde_json::Value;
use ward_provider::{Client, Endpoint, Event, FinishReason, Protocol, ProviderError};

use crate::common::server::{Reply, serve};
use crate::{Label, fixtures, replay_as, request};

const RESPONSES: &str = "openai-responses";

/// Replays interaction `n` of the Responses recording at `path` under `label`.
async fn events(path: &str, n: usize, label: Label) -> Vec<Event> {
    let interactions = fixtures::load(&fixtures::root(), path, RESPONSES);
    replay_as(Protocol::OpenaiResponses, &interactions[n], label)
        .await
        .0
}

/// Completed calls: id, name and parsed arguments.
fn calls(events: &[Event]) -> Vec<(String, String, Value)> {
    crate::pinned::calls(events)
        .into_iter()
        .map(|(id, name, arguments)| {
            let parsed = serde_json::from_str(&arguments).unwrap_or(Value::Null);
            (id, name, parsed)
        })
        .collect()
}

fn text(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Event::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// Serves `body` with status 200 under `content_type` and returns the events.
async fn served(protocol: Protocol, content_type: Option<&str>, body: &[u8]) -> Vec<Event> {
    let mut reply = Reply::with_type(200, "", body.to_vec());
    reply.headers = content_type
        .map(|t| vec![("content-type".to_owned(), t.to_owned())])
        .unwrap_or_default();
    let server = serve(vec![reply]).await;
    let endpoint = Endpoint::new(&server.base_url);
    ward_provider::stream(&Client::new(), protocol, &endpoint, &request())
        .collect()
        .await
}

const OAUTH_LOOP: &str = "opencode/opencode-session/native-openai-oauth-tool-loop.json";

#[tokio::test]
async fn responses_stream_recorded_without_content_type_is_read_by_its_body() {
    let interactions = fixtures::load(&fixtures::root(), OAUTH_LOOP, RESPONSES);
    assert!(
        interactions.iter().all(|i| i.content_type.is_none()),
        "the recording has no content-type"
    );
    // As recorded (no label), and mislabelled as JSON: the same stream.
    for label in [Label::Recorded, Label::Json] {
        let first = events(OAUTH_LOOP, 0, label).await;
        assert_eq!(
            calls(&first),
            [(
                "call_Ix5Urx04RtKsUJ75K0vTTgFF".to_owned(),
                "get_weather".to_owned(),
                serde_json::json!({"city": "Paris"})
            )],
            "{label:?}: {first:?}"
        );
        assert_eq!(first.last(), Some(&Event::Finish(FinishReason::ToolCalls)));
        let second = events(OAUTH_LOOP, 1, label).await;
        assert_eq!(text(&second), "Paris is sunny.", "{label:?}: {second:?}");
        assert_eq!(second.last(), Some(&Event::Finish(FinishReason::Stop)));
    }
}

#[tokio::test]
async fn json_error_labelled_as_a_stream_is_classified() {
    // A real error body (Anthropic's 400), served with status 200 under an
    // event-stream label, as some gateways do.
    let path =
        "opencode/llm/anthropic-messages/rejects-malformed-assistant-tool-order-without-patch.json";
    let recorded = fixtures::load(&fixtures::root(), path, "anthropic-messages");
    for protocol in [Protocol::AnthropicMessages, Protocol::OpenaiResponses] {
        let got = served(protocol, Some("text/event-stream"), &recorded[0].body).await;
        let [Event::Error(error)] = &got[..] else {
            panic!("one error expected: {got:?}")
        };
        assert!(
            matches!(error, ProviderError::InvalidRequest { message, .. } if message.contains("tool_result")),
            "{error:?}"
        );
    }
}

#[tokio::test]
async fn a_successful_reply_that_is_neither_stream_nor_json_says_what_it_was() {
    let page = b"<!DOCTYPE html>\n<html><title>Sign in</title></html>";
    for protocol in [
        Protocol::OpenaiResponses,
        Protocol::OpenaiChat,
        Protocol::AnthropicMessages,
    ] {
        for label in [Some("text/event-stream"), Some("text/html"), None] {
            let got = served(protocol, label, page).await;
            let [Event::Error(error)] = &got[..] else {
                panic!("one error expected: {got:?}")
            };
            let ProviderError::NotAnEventStream {
                status,
                content_type,
                received,
            } = error
            else {
                panic!("{protocol:?} {label:?}: {error:?}")
            };
            assert_eq!(*status, 200);
            assert_eq!(content_type.as_deref(), label);
            assert!(received.starts_with("an HTML page"), "{received}");
            assert!(!error.retryable());
            assert!(error.to_string().contains("Sign in"), "{error}");
        }
    }
}

#[tokio::test]
async fn responses_apply_patch_call_is_a_tool_call_with_its_id() {
    let path = "vercel-ai/openai/responses/openai-apply-patch-tool.1.chunks.txt";
    let got = events(path, 0, Label::Recorded).await;
    let [(id, name, arguments)] = &calls(&got)[..] else {
        panic!("one call expected: {got:?}")
    };
    assert_eq!(id, "call_kA46f91ZwocQyMCKyyZqRyC5");
    assert_eq!(name, "apply_patch_call");
    assert_eq!(arguments["operation"]["type"], "create_file");
    assert_eq!(arguments["operation"]["path"], "shopping-checklist.md");
    // The diff arrived in `*_diff.delta` events; the done item has it whole.
    let diff = arguments["operation"]["diff"].as_str().unwrap_or_default();
    assert!(diff.starts_with("+## Shopping Checklist\n"), "{diff}");
    assert_eq!(got.last(), Some(&Event::Finish(FinishReason::ToolCalls)));
}

#[tokio::test]
async fn responses_local_shell_call_is_a_tool_call_with_its_id() {
    let path = "vercel-ai/openai/responses/openai-local-shell-tool.1.chunks.txt";
    let got = events(path, 0, Label::Recorded).await;
    assert_eq!(
        calls(&got),
        [(
            "call_h3nm8hUG0KO9tVNuRACkL1ri".to_owned(),
            "local_shell_call".to_owned(),
            serde_json::json!({"action": {"type": "exec", "command": ["ls", "-a", "~"], "env": {}}})
        )]
    );
    assert_eq!(got.last(), Some(&Event::Finish(FinishReason::ToolCalls)));
}

#[tokio::test]
async fn responses_web_search_the_provider_ran_is_not_a_tool_call() {
    let path = "vercel-ai/xai/responses/xai-web-search-tool.1.chunks.txt";
    let got = events(path, 0, Label::Recorded).await;
    assert!(calls(&got).is_empty(), "{got:?}");
    assert!(!text(&got).is_empty());
    assert_eq!(got.last(), Some(&Event::Finish(FinishReason::Stop)));
}
