//! Messages built by hand for unit tests of history, prune and budget.

use serde_json::{Value, json};
use ward_store::{
    AssistantMessage, CompletedTime, Message, MessageInfo, ModelRef, Part, PartKind, TextPart,
    ToolPart, ToolState, UserMessage,
};

/// A user message with `text`.
pub fn user(text: &str) -> Message {
    let info = UserMessage::new("ses_t", "build", ModelRef::new("p", "m"));
    let part = Part::new(
        "ses_t",
        &info.id,
        PartKind::Text(TextPart {
            text: text.into(),
            ..TextPart::default()
        }),
    );
    Message {
        info: MessageInfo::User(info),
        parts: vec![part],
    }
}

/// A finished assistant message answering `parent` with one completed tool call per
/// `(tool, input, output)`.
pub fn assistant(parent: &Message, calls: &[(&str, Value, &str)]) -> Message {
    let MessageInfo::User(u) = &parent.info else {
        panic!("parent must be a user message");
    };
    let mut info = AssistantMessage::new(u);
    info.time.completed = Some(1);
    let parts = calls
        .iter()
        .enumerate()
        .map(|(i, (tool, input, output))| {
            Part::new(
                "ses_t",
                &info.id,
                PartKind::Tool(ToolPart {
                    call_id: format!("call_{i}"),
                    tool: tool.to_string(),
                    state: ToolState::Completed {
                        input: input.clone(),
                        output: output.to_string(),
                        title: String::new(),
                        metadata: json!({}),
                        time: CompletedTime {
                            start: 0,
                            end: 1,
                            compacted: None,
                        },
                        attachments: Vec::new(),
                    },
                }),
            )
        })
        .collect();
    Message {
        info: MessageInfo::Assistant(info),
        parts,
    }
}

/// Whether the tool output at (message, part) is marked pruned.
pub fn pruned(messages: &[Message], at: (usize, usize)) -> bool {
    matches!(
        &messages[at.0].parts[at.1].kind,
        PartKind::Tool(ToolPart { state: ToolState::Completed { time, .. }, .. }) if time.compacted.is_some()
    )
}
