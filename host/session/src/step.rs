//! One model call: stream the reply into the assistant message's parts as it arrives
//! (text and reasoning as deltas, tool calls as pending parts), and hand back what the
//! step decided. Tool calls are *not* run here: the caller runs them only once the
//! stream has finished cleanly, so a retried step can never run a call twice.

use futures_util::StreamExt;
use serde_json::{Value, json};
use ward_provider::{
    ChatRequest, Client, Endpoint, Event, FinishReason, Protocol, ProviderError, Usage,
};
use ward_store::{Part, PartKind, Store, TextPart, TextTime, ToolPart, ToolState, now_ms};

/// A tool call the model made, with its stored part.
#[derive(Clone, Debug)]
pub struct Call {
    /// The model's call id.
    pub id: String,
    /// The tool name as the model wrote it.
    pub name: String,
    /// The JSON arguments text.
    pub arguments: String,
    /// The pending part that records it.
    pub part: Part,
}

/// What a finished step produced.
#[derive(Debug)]
pub struct StepOutput {
    /// Why the model stopped.
    pub finish: FinishReason,
    /// The tool calls it made, in order.
    pub calls: Vec<Call>,
    /// Token usage.
    pub usage: Usage,
    /// Whether the reply had visible text (more than blank space).
    pub text: bool,
    /// The parts written during the step (to remove if it is retried).
    pub parts: Vec<String>,
}

/// Where a step writes.
pub struct StepTarget<'a> {
    /// The store.
    pub store: &'a dyn Store,
    /// The session.
    pub session_id: &'a str,
    /// The assistant message being filled.
    pub message_id: &'a str,
    /// Told each tool's name as soon as the model starts calling it, before its
    /// arguments have streamed (the loop starts the step's snapshot then).
    pub on_call_start: Option<&'a (dyn Fn(&str) + Sync)>,
}

/// Streams one reply. On error, the parts written so far are listed in the error's
/// companion vector so the caller can remove them before retrying.
pub async fn run(
    client: &Client,
    protocol: Protocol,
    endpoint: &Endpoint,
    request: &ChatRequest,
    target: &StepTarget<'_>,
) -> Result<StepOutput, (ProviderError, Vec<String>)> {
    let mut written: Vec<String> = Vec::new();
    let mut text: Option<(Part, String)> = None;
    let mut reasoning: Option<(Part, String)> = None;
    let mut calls = Vec::new();
    let mut usage = Usage::default();
    let mut stream = std::pin::pin!(ward_provider::stream(client, protocol, endpoint, request));
    while let Some(event) = stream.next().await {
        match event {
            Event::TextDelta(d) => append(&mut text, target, &mut written, &d, || {
                PartKind::Text(TextPart {
                    time: Some(TextTime {
                        start: now_ms(),
                        end: None,
                    }),
                    ..TextPart::default()
                })
            }),
            Event::ReasoningDelta(d) => append(&mut reasoning, target, &mut written, &d, || {
                PartKind::Reasoning {
                    text: String::new(),
                    metadata: None,
                    time: Some(TextTime {
                        start: now_ms(),
                        end: None,
                    }),
                }
            }),
            // What closes a reasoning block: kept with its text, so the block can be
            // sent back as the provider requires.
            Event::ReasoningSignature(signature) => {
                let meta = json!({ "anthropic": { "signature": signature } });
                seal(&mut reasoning, target, &mut written, meta);
            }
            Event::ReasoningRedacted(data) => {
                seal_open(&mut reasoning, target);
                let meta = json!({ "anthropic": { "redactedData": data } });
                seal(&mut None, target, &mut written, meta);
            }
            Event::ReasoningItem(item) => {
                let meta = json!({ "openai": {
                    "itemId": item.id,
                    "reasoningEncryptedContent": item.encrypted_content,
                }});
                seal(&mut reasoning, target, &mut written, meta);
            }
            Event::ToolCallEnd {
                id,
                name,
                arguments,
                ..
            } => {
                let input: Value = serde_json::from_str(&arguments).unwrap_or(Value::Null);
                let part = Part::new(
                    target.session_id,
                    target.message_id,
                    PartKind::Tool(ToolPart {
                        call_id: id.clone(),
                        tool: name.clone(),
                        state: ToolState::Pending { input },
                    }),
                );
                let _ = target.store.put_part(&part);
                written.push(part.id.clone());
                calls.push(Call {
                    id,
                    name,
                    arguments,
                    part,
                });
            }
            Event::Usage(u) => usage = u,
            Event::Finish(finish) => {
                let has_text = text.as_ref().is_some_and(|(_, t)| !t.trim().is_empty());
                // Whole now: their `end` tells a client it may show them. The
                // reasoning first, as it came first.
                seal_open(&mut reasoning, target);
                close(&mut text, target, |t, was| {
                    let start = match was {
                        PartKind::Text(TextPart {
                            time: Some(time), ..
                        }) => time.start,
                        _ => now_ms(),
                    };
                    PartKind::Text(TextPart {
                        text: t,
                        time: Some(TextTime {
                            start,
                            end: Some(now_ms()),
                        }),
                        ..TextPart::default()
                    })
                });
                return Ok(StepOutput {
                    finish,
                    calls,
                    usage,
                    text: has_text,
                    parts: written,
                });
            }
            Event::Error(e) => return Err((e, written)),
            Event::ToolCallStart { name, .. } => {
                if let Some(notify) = target.on_call_start {
                    notify(&name);
                }
            }
            Event::ToolCallDelta { .. } => {}
        }
    }
    Err((
        ProviderError::Incomplete {
            message: "the stream ended without a finish event".to_string(),
        },
        written,
    ))
}

/// Appends a streamed delta to the text or reasoning part in `slot`, creating the part
/// on the first delta; the delta is published and buffered by the store.
fn append(
    slot: &mut Option<(Part, String)>,
    target: &StepTarget<'_>,
    written: &mut Vec<String>,
    delta: &str,
    kind: impl FnOnce() -> PartKind,
) {
    let (part, buf) = slot.get_or_insert_with(|| {
        let part = Part::new(target.session_id, target.message_id, kind());
        let _ = target.store.put_part(&part);
        written.push(part.id.clone());
        (part, String::new())
    });
    buf.push_str(delta);
    let _ = target.store.update_part_delta(
        target.session_id,
        target.message_id,
        &part.id,
        "text",
        delta,
    );
}

fn close(
    slot: &mut Option<(Part, String)>,
    target: &StepTarget<'_>,
    kind: impl FnOnce(String, &PartKind) -> PartKind,
) {
    if let Some((mut part, buf)) = slot.take() {
        part.kind = kind(buf, &part.kind);
        let _ = target.store.put_part(&part);
    }
}

/// Closes the open reasoning part (if any) without provider metadata.
fn seal_open(slot: &mut Option<(Part, String)>, target: &StepTarget<'_>) {
    close(slot, target, |text, was| PartKind::Reasoning {
        text,
        metadata: None,
        time: Some(ended(was)),
    });
}

/// A reasoning part's time once it is whole: its start, and now.
fn ended(was: &PartKind) -> TextTime {
    let start = match was {
        PartKind::Reasoning {
            time: Some(time), ..
        } => time.start,
        _ => now_ms(),
    };
    TextTime {
        start,
        end: Some(now_ms()),
    }
}

/// Closes the open reasoning part with the provider's `metadata` (a signature, an
/// encrypted item); with no part open (reasoning that showed no text), stores one
/// with empty text, since the metadata alone must still go back.
fn seal(
    slot: &mut Option<(Part, String)>,
    target: &StepTarget<'_>,
    written: &mut Vec<String>,
    metadata: Value,
) {
    let (mut part, text) = slot.take().unwrap_or_else(|| {
        let kind = PartKind::Reasoning {
            text: String::new(),
            metadata: None,
            time: None,
        };
        let part = Part::new(target.session_id, target.message_id, kind);
        written.push(part.id.clone());
        (part, String::new())
    });
    part.kind = PartKind::Reasoning {
        text,
        metadata: Some(metadata),
        time: Some(ended(&part.kind)),
    };
    let _ = target.store.put_part(&part);
}
