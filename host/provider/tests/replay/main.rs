//! Replays every recorded stream of the protocols Ward speaks through the
//! real client: a local HTTP server sends the recorded status and body bytes
//! in small pieces, and the parsed events are checked against what the
//! recording contains ([`oracle`]). Gemini and AWS event-stream recordings
//! are skipped: Ward has no client for those protocols. Each successful
//! stream is also replayed with no `content-type` and with a wrong one
//! (`application/json`), because servers send both and the client must read
//! the body, not the label.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is how a test fails"
)]

#[path = "../common/mod.rs"]
#[allow(
    dead_code,
    reason = "shared by several test binaries, each using a part"
)]
mod common;
mod conformance;
mod fixtures;
mod oracle;
mod pinned;

use std::collections::BTreeMap;

use futures_util::StreamExt;
use serde_json::Value;
use ward_provider::{ChatRequest, Client, Endpoint, Event, Message, Protocol, UserPart};

use common::server::{self, Reply, serve};
use fixtures::Interaction;

fn protocol(label: &str) -> Option<Protocol> {
    match label {
        "openai-chat" => Some(Protocol::OpenaiChat),
        "openai-responses" => Some(Protocol::OpenaiResponses),
        "anthropic-messages" => Some(Protocol::AnthropicMessages),
        _ => None,
    }
}

fn request() -> ChatRequest {
    ChatRequest {
        model: "recorded-model".into(),
        messages: vec![Message::User {
            content: vec![UserPart::Text {
                text: "hello".into(),
            }],
        }],
        ..ChatRequest::default()
    }
}

/// The `content-type` a replay sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Label {
    /// The recorded one (none if none was recorded).
    Recorded,
    /// No `content-type` header at all.
    Missing,
    /// `application/json`, the wrong label for a stream.
    Json,
}

/// Serves one interaction with its recorded headers and collects the
/// client's events.
async fn replay(
    protocol: Protocol,
    interaction: &Interaction,
) -> (Vec<Event>, Vec<server::Recorded>) {
    replay_as(protocol, interaction, Label::Recorded).await
}

/// Serves one interaction under `label` and collects the client's events.
async fn replay_as(
    protocol: Protocol,
    interaction: &Interaction,
    label: Label,
) -> (Vec<Event>, Vec<server::Recorded>) {
    let content_type = match label {
        Label::Recorded => interaction.content_type.as_deref(),
        Label::Missing => None,
        Label::Json => Some("application/json"),
    };
    let mut reply = Reply::with_type(interaction.status, "", interaction.body.clone());
    reply.headers = content_type
        .map(|t| vec![("content-type".to_owned(), t.to_owned())])
        .unwrap_or_default();
    let server = serve(vec![reply]).await;
    let mut endpoint = Endpoint::new(&server.base_url);
    endpoint.api_key = Some("test-key".into());
    let events = ward_provider::stream(&Client::new(), protocol, &endpoint, &request())
        .collect()
        .await;
    (events, server.requests())
}

fn text_of(events: &[Event], pick: fn(&Event) -> Option<&str>) -> String {
    events.iter().filter_map(pick).collect()
}

/// How much of each kind of content the replays covered.
#[derive(Debug, Default)]
struct Tally {
    files: usize,
    interactions: usize,
    tool_calls: usize,
    with_text: usize,
    with_reasoning: usize,
    with_usage: usize,
    errors: usize,
}

/// Checks one replayed interaction against the recording; returns what
/// disagreed.
fn check(expected: &oracle::Expected, events: &[Event]) -> Vec<String> {
    let mut problems = Vec::new();
    let terminals = events.iter().filter(|e| e.is_terminal()).count();
    if terminals != 1 || !events.last().is_some_and(Event::is_terminal) {
        problems.push(format!(
            "{terminals} terminal events, last {:?}",
            events.last()
        ));
    }
    match (expected.error, events.last()) {
        (true, Some(Event::Error(_))) => {}
        (false, Some(Event::Finish(reason))) if Some(*reason) == expected.finish => {}
        (_, last) => problems.push(format!(
            "ended with {last:?}, expected error={} finish={:?}",
            expected.error, expected.finish
        )),
    }
    // Tool calls: well-formed start/delta/end, complete JSON equal to the
    // recording's.
    let mut calls = Vec::new();
    for event in events {
        if let Event::ToolCallEnd {
            index,
            id,
            name,
            arguments,
        } = event
        {
            let started = events.contains(&Event::ToolCallStart {
                index: *index,
                id: id.clone(),
                name: name.clone(),
            });
            let deltas: String = events
                .iter()
                .filter_map(|e| match e {
                    Event::ToolCallDelta {
                        index: i,
                        arguments_delta,
                    } if i == index => Some(arguments_delta.as_str()),
                    _ => None,
                })
                .collect();
            if !started || (deltas != *arguments && !(deltas.is_empty() && arguments == "{}")) {
                problems.push(format!(
                    "call {index}: started={started}, deltas {deltas:?} vs end {arguments:?}"
                ));
            }
            match serde_json::from_str::<Value>(arguments) {
                Ok(value) => calls.push((name.clone(), value)),
                Err(e) => problems.push(format!(
                    "call {index} arguments are not JSON ({e}): {arguments}"
                )),
            }
        }
    }
    if calls != expected.tool_calls {
        problems.push(format!(
            "tool calls {calls:?}, recorded {:?}",
            expected.tool_calls
        ));
    }
    let text = text_of(events, |e| match e {
        Event::TextDelta(t) => Some(t.as_str()),
        _ => None,
    });
    if text != expected.text {
        problems.push(format!("text {text:?}, recorded {:?}", expected.text));
    }
    let reasoning = text_of(events, |e| match e {
        Event::ReasoningDelta(t) => Some(t.as_str()),
        _ => None,
    });
    if reasoning.is_empty() == expected.reasoning {
        problems.push(format!(
            "reasoning {reasoning:?}, recorded reasoning: {}",
            expected.reasoning
        ));
    }
    let usage = events.iter().find_map(|e| match e {
        Event::Usage(u) => Some(*u),
        _ => None,
    });
    match (expected.usage, usage) {
        (None, None) => {}
        (Some((prompt, output)), Some(u))
            if u.input + u.cache_read + u.cache_write == prompt && u.output >= output => {}
        (want, got) => problems.push(format!("usage {got:?}, recorded (prompt, output) {want:?}")),
    }
    if !expected.error && events.iter().any(|e| matches!(e, Event::Error(_))) {
        problems.push("error event in a successful recording".into());
    }
    problems
}

fn check_request(protocol: Protocol, requests: &[server::Recorded]) -> Vec<String> {
    let [request] = requests else {
        return vec![format!("{} requests", requests.len())];
    };
    let mut problems = Vec::new();
    let (path, auth) = match protocol {
        Protocol::OpenaiChat => ("/v1/chat/completions", ("authorization", "Bearer test-key")),
        Protocol::OpenaiResponses => ("/v1/responses", ("authorization", "Bearer test-key")),
        Protocol::AnthropicMessages => ("/v1/messages", ("x-api-key", "test-key")),
    };
    if request.path != path || request.header(auth.0) != Some(auth.1) {
        problems.push(format!(
            "request to {} with {:?}",
            request.path, request.headers
        ));
    }
    let body: Value = serde_json::from_str(&request.body).unwrap_or_default();
    if body["stream"] != Value::Bool(true) || body["model"] != "recorded-model" {
        problems.push(format!("request body {}", request.body));
    }
    problems
}

/// Replays every interaction of the three protocols under `label` (only
/// successful ones unless the label is the recorded one); returns the tally,
/// the skipped files and what disagreed.
async fn replay_all(label: Label) -> (BTreeMap<String, Tally>, Vec<String>, Vec<String>) {
    let root = fixtures::root();
    let mut tally: BTreeMap<String, Tally> = BTreeMap::new();
    let mut skipped = Vec::new();
    let mut failures = Vec::new();
    for (path, name) in fixtures::index(&root) {
        let Some(protocol) = protocol(&name) else {
            skipped.push(format!("{path} ({name})"));
            continue;
        };
        let interactions = fixtures::load(&root, &path, &name);
        let counts = tally.entry(name.clone()).or_default();
        counts.files += 1;
        for (n, interaction) in interactions.iter().enumerate() {
            if label != Label::Recorded && !(200..300).contains(&interaction.status) {
                continue;
            }
            let expected = oracle::expect(&name, interaction.status, &interaction.body);
            counts.interactions += 1;
            counts.tool_calls += expected.tool_calls.len();
            counts.with_text += usize::from(!expected.text.is_empty());
            counts.with_reasoning += usize::from(expected.reasoning);
            counts.with_usage += usize::from(expected.usage.is_some());
            counts.errors += usize::from(expected.error);
            let (events, requests) = replay_as(protocol, interaction, label).await;
            let mut problems = check(&expected, &events);
            problems.extend(check_request(protocol, &requests));
            if !problems.is_empty() {
                failures.push(format!(
                    "{path} #{n} ({label:?} content-type):\n  {}",
                    problems.join("\n  ")
                ));
            }
        }
    }
    (tally, skipped, failures)
}

#[tokio::test]
async fn every_recording_of_the_three_protocols_replays() {
    let (tally, skipped, failures) = replay_all(Label::Recorded).await;
    eprintln!(
        "replayed: {tally:#?}\nskipped {} files: {skipped:#?}",
        skipped.len()
    );
    assert!(
        failures.is_empty(),
        "{} interactions disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let files = |label: &str| tally.get(label).map_or(0, |t| t.files);
    assert_eq!(files("anthropic-messages"), 22);
    assert_eq!(files("openai-chat"), 37);
    assert_eq!(files("openai-responses"), 22);
}

#[tokio::test]
async fn every_stream_replays_whatever_its_content_type_says() {
    for label in [Label::Missing, Label::Json] {
        let (tally, _, failures) = replay_all(label).await;
        assert!(
            failures.is_empty(),
            "{} interactions disagree:\n{}",
            failures.len(),
            failures.join("\n")
        );
        let streams: usize = tally.values().map(|t| t.interactions).sum();
        assert!(streams > 100, "{label:?}: only {streams} streams replayed");
    }
}
