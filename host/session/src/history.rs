//! Stored messages → what the model is sent.
//!
//! The conversion is where history is made safe to send: every tool call gets a result
//! (one left pending or running by a crash or an abort becomes an "interrupted" error),
//! assistant messages that failed with nothing to show are skipped, and messages that
//! hold nothing but bookkeeping parts are dropped.

use serde_json::Value;
use ward_provider::{AssistantPart, Message as Wire, ToolCall, ToolResult, UserPart};
use ward_store::{Message, MessageInfo, PartKind, ToolState};

/// The text sent for a tool call that never finished.
pub const INTERRUPTED: &str = "[Tool execution was interrupted]";

/// Converts stored messages (oldest first) into provider messages.
pub fn to_wire(messages: &[Message]) -> Vec<Wire> {
    let mut out = Vec::new();
    for m in messages {
        match &m.info {
            MessageInfo::User(_) => {
                let content: Vec<UserPart> = m
                    .parts
                    .iter()
                    .filter_map(|p| match &p.kind {
                        PartKind::Text(t) if !t.ignored => Some(UserPart::Text {
                            text: t.text.clone(),
                        }),
                        PartKind::File(f) => Some(UserPart::File {
                            mime: f.mime.clone(),
                            url: f.url.clone(),
                            filename: f.filename.clone(),
                        }),
                        PartKind::Compaction { .. } => Some(UserPart::Text {
                            text: "What did we do so far?".to_string(),
                        }),
                        _ => None,
                    })
                    .collect();
                if !content.is_empty() {
                    out.push(Wire::User { content });
                }
            }
            MessageInfo::Assistant(a) => {
                let mut content = Vec::new();
                let mut results = Vec::new();
                for p in &m.parts {
                    match &p.kind {
                        PartKind::Text(t) if !t.text.is_empty() => {
                            content.push(AssistantPart::Text {
                                text: t.text.clone(),
                            })
                        }
                        PartKind::Reasoning { text } if !text.is_empty() => {
                            content.push(AssistantPart::Reasoning {
                                text: text.clone(),
                                signature: None,
                            })
                        }
                        PartKind::Tool(tool) => {
                            let (input, output, is_error) = match &tool.state {
                                ToolState::Completed { input, output, .. } => {
                                    (input, output.clone(), false)
                                }
                                ToolState::Error { input, error, .. } => {
                                    (input, error.clone(), true)
                                }
                                ToolState::Pending { input } | ToolState::Running { input, .. } => {
                                    (input, INTERRUPTED.to_string(), true)
                                }
                            };
                            content.push(AssistantPart::ToolCall(ToolCall {
                                id: tool.call_id.clone(),
                                name: tool.tool.clone(),
                                arguments: arguments(input),
                            }));
                            results.push(ToolResult {
                                call_id: tool.call_id.clone(),
                                output,
                                is_error,
                            });
                        }
                        _ => {}
                    }
                }
                // A failed turn with nothing in it tells the model nothing.
                if content.is_empty() && a.error.is_some() {
                    continue;
                }
                if content.is_empty() {
                    continue;
                }
                out.push(Wire::Assistant { content });
                out.extend(results.into_iter().map(Wire::Tool));
            }
        }
    }
    out
}

fn arguments(input: &Value) -> String {
    if input.is_null() {
        "{}".to_string()
    } else {
        input.to_string()
    }
}
