//! Stored messages → what the model is sent.
//!
//! The conversion is where history is made safe to send: every tool call gets a result
//! (one left pending or running by a crash or an abort becomes an "interrupted" error),
//! assistant messages that failed with nothing to show are skipped, and messages that
//! hold nothing but bookkeeping parts are dropped. User text that arrived while the
//! loop was running is wrapped as a `<system-reminder>` interjection.
//!
//! [`History`] keeps the loaded messages between steps: each step re-reads only the
//! last message it had and what came after, so a long session does not pay for its
//! whole history on every step.

use serde_json::Value;
use ward_provider::{
    AssistantPart, Attachment, Message as Wire, ReasoningItem, ToolCall, ToolResult, UserPart,
};
use ward_store::{CompactionPoint, FilePart, Message, MessageInfo, PartKind, Store, ToolState};

use ward_context::budget::{COMPACTION_QUESTION, PRUNED};

use crate::reminders::mid_run_message;

/// The history a loop sends, from the last compaction point on, cached between steps.
///
/// Only the loop that owns the cache changes messages other than the newest (and it
/// does so through [`History::messages_mut`]), so everything before the last cached
/// message stays valid; a new compaction point (or [`History::invalidate`]) reloads
/// it all.
#[derive(Debug, Default)]
pub struct History {
    point: Option<CompactionPoint>,
    /// In id (creation) order.
    messages: Vec<Message>,
}

impl History {
    /// Loads what is new since the last call; [`History::ordered`] then gives the
    /// messages to send.
    pub fn load(&mut self, store: &dyn Store, session_id: &str) -> ward_store::Result<()> {
        let point = store.compaction(session_id)?;
        if point != self.point {
            self.point = point;
            self.messages.clear();
        }
        let since = match self.messages.pop() {
            Some(last) => Some(last.info.id().to_string()),
            None => self.point.as_ref().map(|p| p.from_message_id.clone()),
        };
        self.messages
            .extend(store.messages(session_id, since.as_deref())?);
        Ok(())
    }

    /// The cached messages in the order they are sent: after a compaction, the
    /// compaction question and its summary first, then the turns kept verbatim and
    /// everything newer (SPEC §5.4).
    pub fn ordered(&self) -> Vec<&Message> {
        let summary = self.point.as_ref().and_then(|p| {
            let at = self
                .messages
                .iter()
                .position(|m| m.info.id() == p.summary_message_id)?;
            let MessageInfo::Assistant(a) = &self.messages[at].info else {
                return None;
            };
            let question = self
                .messages
                .iter()
                .position(|m| m.info.id() == a.parent_id);
            Some((question, at))
        });
        let Some((question, summary)) = summary else {
            return self.messages.iter().collect();
        };
        let mut out = Vec::with_capacity(self.messages.len());
        out.extend(question.map(|q| &self.messages[q]));
        out.push(&self.messages[summary]);
        // Turns kept verbatim twice load an older compaction's question and summary
        // with them: that summary is superseded by the current one.
        out.extend(
            self.messages
                .iter()
                .enumerate()
                .filter(|(i, m)| Some(*i) != question && *i != summary && !is_compaction(m))
                .map(|(_, m)| m),
        );
        out
    }

    /// The cached messages in id order, to change in place (prune marks outputs
    /// here as well as in the store, so the cache stays true without a reload).
    pub fn messages_mut(&mut self) -> &mut [Message] {
        &mut self.messages
    }

    /// The compaction point the cache starts from.
    pub fn point(&self) -> Option<&CompactionPoint> {
        self.point.as_ref()
    }

    /// Forgets the cache; the next load reads everything again.
    pub fn invalidate(&mut self) {
        self.messages.clear();
        self.point = None;
    }
}

/// Whether `message` is a compaction request or a summary.
fn is_compaction(message: &Message) -> bool {
    match &message.info {
        MessageInfo::Assistant(a) => a.summary,
        MessageInfo::User(_) => message
            .parts
            .iter()
            .any(|p| matches!(p.kind, PartKind::Compaction { .. })),
    }
}

/// The text sent for a tool call that never finished.
pub const INTERRUPTED: &str = "[Tool execution was interrupted]";

/// Converts stored messages (oldest first) into provider messages. With `mid_run`
/// (from the loop's second step on), user text newer than the last finished assistant
/// message arrived while the loop was working and is wrapped as an interjection.
pub fn to_wire(messages: &[&Message], mid_run: bool) -> Vec<Wire> {
    let late_from = if mid_run {
        messages
            .iter()
            .rposition(
                |m| matches!(&m.info, MessageInfo::Assistant(a) if a.time.completed.is_some()),
            )
            .map_or(usize::MAX, |i| i + 1)
    } else {
        usize::MAX
    };
    let mut out = Vec::new();
    for (index, m) in messages.iter().enumerate() {
        match &m.info {
            MessageInfo::User(_) => {
                let late = index >= late_from;
                let content: Vec<UserPart> = m
                    .parts
                    .iter()
                    .filter_map(|p| match &p.kind {
                        PartKind::Text(t) if !t.ignored => Some(UserPart::Text {
                            text: if late && !t.synthetic {
                                mid_run_message(&t.text)
                            } else {
                                t.text.clone()
                            },
                        }),
                        PartKind::File(f) => Some(UserPart::File {
                            mime: f.mime.clone(),
                            url: f.url.clone(),
                            filename: f.filename.clone(),
                        }),
                        PartKind::Compaction { .. } => Some(UserPart::Text {
                            text: COMPACTION_QUESTION.to_string(),
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
                        PartKind::Reasoning { text, metadata, .. }
                            if !text.is_empty() || metadata.is_some() =>
                        {
                            content.push(reasoning(text, metadata.as_ref()))
                        }
                        PartKind::Tool(tool) => {
                            let mut files = Vec::new();
                            let (input, output, is_error) = match &tool.state {
                                ToolState::Completed {
                                    input,
                                    output,
                                    time,
                                    attachments,
                                    ..
                                } => {
                                    let output = match time.compacted {
                                        Some(_) => PRUNED.to_string(),
                                        None => {
                                            files = attachments.iter().map(attachment).collect();
                                            output.clone()
                                        }
                                    };
                                    (input, output, false)
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
                                attachments: files,
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

/// A stored file part as a tool result's attachment (its URL still a blob
/// reference: [`crate::attach::prepare`] inlines it).
fn attachment(file: &FilePart) -> Attachment {
    Attachment {
        mime: file.mime.clone(),
        url: file.url.clone(),
        filename: file.filename.clone(),
    }
}

/// A stored reasoning part with what its provider needs to take it back
/// (the metadata [`crate::step`] kept: a signature, redacted data, an
/// encrypted Responses item).
fn reasoning(text: &str, metadata: Option<&Value>) -> AssistantPart {
    let field = |pointer: &str| {
        metadata
            .and_then(|m| m.pointer(pointer))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    AssistantPart::Reasoning {
        text: text.to_string(),
        signature: field("/anthropic/signature"),
        redacted: field("/anthropic/redactedData"),
        item: field("/openai/itemId").map(|id| ReasoningItem {
            id,
            encrypted_content: field("/openai/reasoningEncryptedContent"),
        }),
    }
}
