//! Ward's events as ACP `session/update`s, for one session: the model's text as
//! `agent_message_chunk`, its reasoning as `agent_thought_chunk`, each tool call as a
//! `tool_call` then `tool_call_update`s (pending → in_progress → completed | failed,
//! with its kind, input, output and location), the todo list as a `plan`. The same
//! translation replays a stored history for `session/load`, the user's messages as
//! `user_message_chunk`.
//!
//! Text is streamed from `message.part.delta` events; a part's stored text
//! (`message.part.updated`) only adds what no delta carried, so nothing is sent twice.
//! Only assistant messages of the session are rendered live: the user's prompt is the
//! client's own, and a subagent's work shows as its `task` call.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use agent_client_protocol::v1::schema::{
    Content, ContentBlock, ContentChunk, Plan, PlanEntry, PlanEntryPriority, PlanEntryStatus,
    SessionUpdate, TextContent, ToolCall, ToolCallContent, ToolCallLocation, ToolCallStatus,
    ToolCallUpdate, ToolCallUpdateFields,
};
use serde_json::Value;
use ward_engine::Event;
use ward_protocol::{
    Message, MessageInfo, Part, PartKind, Todo, TodoPriority, TodoStatus, ToolPart, ToolState,
};

use crate::tools::ToolTable;

/// What a streamed part is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Streamed {
    Text,
    Reasoning,
}

/// The translation state of one session.
pub struct Translator {
    session: String,
    project: String,
    tools: Arc<ToolTable>,
    /// The session's assistant messages seen so far.
    assistant: HashSet<String>,
    /// Per text or reasoning part: what it is and how many bytes were sent.
    parts: HashMap<String, (Streamed, usize)>,
    /// The tool calls announced so far.
    calls: HashSet<String>,
}

impl Translator {
    /// A translator for `session` in the project at `project`.
    pub fn new(session: &str, project: &str, tools: Arc<ToolTable>) -> Self {
        Translator {
            session: session.to_string(),
            project: project.to_string(),
            tools,
            assistant: HashSet::new(),
            parts: HashMap::new(),
            calls: HashSet::new(),
        }
    }

    /// The updates `event` makes, if it is about this session.
    pub fn event(&mut self, event: &Event) -> Vec<SessionUpdate> {
        match event {
            Event::MessageUpdated {
                info: MessageInfo::Assistant(message),
            } if message.session_id == self.session => {
                self.assistant.insert(message.id.clone());
                Vec::new()
            }
            Event::PartUpdated { part }
                if part.session_id == self.session && self.assistant.contains(&part.message_id) =>
            {
                self.part(part).into_iter().collect()
            }
            Event::PartDelta {
                session_id,
                message_id,
                part_id,
                field,
                delta,
            } if *session_id == self.session
                && field == "text"
                && self.assistant.contains(message_id) =>
            {
                let (kind, sent) = self
                    .parts
                    .entry(part_id.clone())
                    .or_insert((Streamed::Text, 0));
                *sent += delta.len();
                vec![chunk(*kind, delta)]
            }
            Event::TodoUpdated { session_id, todos } if *session_id == self.session => {
                vec![plan(todos)]
            }
            _ => Vec::new(),
        }
    }

    /// The updates that replay `messages` (a stored history), then the `todos`.
    pub fn replay(&mut self, messages: &[Message], todos: &[Todo]) -> Vec<SessionUpdate> {
        let mut updates = Vec::new();
        for message in messages {
            match &message.info {
                MessageInfo::User(_) => {
                    updates.extend(message.parts.iter().filter_map(|part| match &part.kind {
                        PartKind::Text(t) if !t.synthetic && !t.ignored && !t.text.is_empty() => {
                            Some(SessionUpdate::UserMessageChunk(ContentChunk::new(text(
                                &t.text,
                            ))))
                        }
                        _ => None,
                    }));
                }
                MessageInfo::Assistant(a) => {
                    self.assistant.insert(a.id.clone());
                    updates.extend(message.parts.iter().filter_map(|p| self.part(p)));
                }
            }
        }
        if !todos.is_empty() {
            updates.push(plan(todos));
        }
        updates
    }

    /// The update a stored part makes: the text no delta sent yet, or the tool call.
    fn part(&mut self, part: &Part) -> Option<SessionUpdate> {
        let (kind, full) = match &part.kind {
            PartKind::Text(t) if !t.synthetic && !t.ignored => (Streamed::Text, &t.text),
            PartKind::Reasoning { text, .. } => (Streamed::Reasoning, text),
            PartKind::Tool(tool) => return Some(self.tool(tool)),
            _ => return None,
        };
        let (_, sent) = self.parts.entry(part.id.clone()).or_insert((kind, 0));
        let rest = full.get(*sent..).filter(|r| !r.is_empty())?;
        *sent = full.len();
        Some(chunk(kind, rest))
    }

    /// A tool call's first sight as a `tool_call`, later ones as `tool_call_update`s.
    fn tool(&mut self, tool: &ToolPart) -> SessionUpdate {
        let info = self.tools.get(&tool.tool);
        let (input, status, title, content, output) = match &tool.state {
            ToolState::Pending { input } => (input, ToolCallStatus::Pending, None, None, None),
            ToolState::Running { input, title, .. } => {
                (input, ToolCallStatus::InProgress, title.clone(), None, None)
            }
            ToolState::Completed {
                input,
                output,
                title,
                metadata,
                ..
            } => (
                input,
                ToolCallStatus::Completed,
                Some(title.clone()).filter(|t| !t.is_empty()),
                Some(output.clone()),
                Some(serde_json::json!({ "output": output, "metadata": metadata })),
            ),
            ToolState::Error { input, error, .. } => (
                input,
                ToolCallStatus::Failed,
                None,
                Some(error.clone()),
                Some(serde_json::json!({ "error": error })),
            ),
        };
        let location = info
            .path_arg
            .as_deref()
            .and_then(|arg| input.get(arg))
            .and_then(Value::as_str)
            .map(|path| ToolCallLocation::new(Path::new(&self.project).join(path)));
        let content = content.map(|c| vec![ToolCallContent::Content(Content::new(text(&c)))]);
        if self.calls.insert(tool.call_id.clone()) {
            let mut call = ToolCall::new(
                tool.call_id.clone(),
                title.unwrap_or_else(|| tool.tool.clone()),
            )
            .name(tool.tool.clone())
            .kind(info.kind)
            .status(status)
            .raw_input(input.clone())
            .raw_output(output)
            .locations(location.into_iter().collect());
            if let Some(content) = content {
                call = call.content(content);
            }
            SessionUpdate::ToolCall(call)
        } else {
            let fields = ToolCallUpdateFields::new()
                .status(status)
                .title(title)
                .raw_input(input.clone())
                .raw_output(output)
                .content(content)
                .locations(location.map(|l| vec![l]));
            SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(tool.call_id.clone(), fields))
        }
    }
}

/// Text as a content block.
pub fn text(text: &str) -> ContentBlock {
    ContentBlock::Text(TextContent::new(text))
}

/// A streamed piece of text or reasoning.
fn chunk(kind: Streamed, delta: &str) -> SessionUpdate {
    let chunk = ContentChunk::new(text(delta));
    match kind {
        Streamed::Text => SessionUpdate::AgentMessageChunk(chunk),
        Streamed::Reasoning => SessionUpdate::AgentThoughtChunk(chunk),
    }
}

/// The todo list as a plan: ACP has no "cancelled" entry, so a cancelled task is left
/// out (the plan is what is still meant to be done, and what was).
pub fn plan(todos: &[Todo]) -> SessionUpdate {
    let entries = todos
        .iter()
        .filter_map(|todo| {
            let status = match todo.status {
                TodoStatus::Pending => PlanEntryStatus::Pending,
                TodoStatus::InProgress => PlanEntryStatus::InProgress,
                TodoStatus::Completed => PlanEntryStatus::Completed,
                TodoStatus::Cancelled => return None,
            };
            let priority = match todo.priority {
                TodoPriority::High => PlanEntryPriority::High,
                TodoPriority::Medium => PlanEntryPriority::Medium,
                TodoPriority::Low => PlanEntryPriority::Low,
            };
            Some(PlanEntry::new(todo.content.clone(), priority, status))
        })
        .collect();
    SessionUpdate::Plan(Plan::new(entries))
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use ward_protocol::{AssistantMessage, CompletedTime, ModelRef, TextPart, UserMessage};

    use super::*;

    const SESSION: &str = "ses_1";

    fn messages() -> (UserMessage, AssistantMessage) {
        let user = UserMessage::new(SESSION, "build", ModelRef::new("p", "m"));
        let assistant = AssistantMessage::new(&user);
        (user, assistant)
    }

    fn text_part(message: &str, text: &str) -> Part {
        Part::new(
            SESSION,
            message,
            PartKind::Text(TextPart {
                text: text.into(),
                ..TextPart::default()
            }),
        )
    }

    fn tool_part(message: &str, state: ToolState) -> Part {
        Part::new(
            SESSION,
            message,
            PartKind::Tool(ToolPart {
                call_id: "call_1".into(),
                tool: "read".into(),
                state,
            }),
        )
    }

    fn kinds(updates: &[SessionUpdate]) -> Vec<String> {
        updates
            .iter()
            .map(|u| {
                serde_json::to_value(u).expect("json")["sessionUpdate"]
                    .as_str()
                    .unwrap_or("")
                    .to_string()
            })
            .collect()
    }

    #[test]
    fn streamed_text_is_sent_once_and_the_user_s_own_not_at_all() {
        let (user, assistant) = messages();
        let mut t = Translator::new(SESSION, "/p", Arc::new(ToolTable::default()));
        let mut out = Vec::new();
        out.extend(t.event(&Event::PartUpdated {
            part: text_part(&user.id, "hello"),
        }));
        out.extend(t.event(&Event::MessageUpdated {
            info: assistant.clone().into(),
        }));
        let part = text_part(&assistant.id, "");
        out.extend(t.event(&Event::PartUpdated { part: part.clone() }));
        for delta in ["Hi ", "there"] {
            out.extend(t.event(&Event::PartDelta {
                session_id: SESSION.into(),
                message_id: assistant.id.clone(),
                part_id: part.id.clone(),
                field: "text".into(),
                delta: delta.into(),
            }));
        }
        let mut done = text_part(&assistant.id, "Hi there!");
        done.id = part.id.clone();
        out.extend(t.event(&Event::PartUpdated { part: done }));
        let texts: Vec<String> = out
            .iter()
            .map(|u| serde_json::to_value(u).expect("json")["content"]["text"].to_string())
            .collect();
        assert_eq!(texts, ["\"Hi \"", "\"there\"", "\"!\""]);
        assert_eq!(kinds(&out), ["agent_message_chunk"; 3]);
    }

    #[test]
    fn a_tool_call_is_announced_then_updated_with_its_output_and_location() {
        let (_, assistant) = messages();
        let mut t = Translator::new(SESSION, "/p", Arc::new(ToolTable::default()));
        t.event(&Event::MessageUpdated {
            info: assistant.clone().into(),
        });
        let input = json!({ "filePath": "a.txt" });
        let pending = tool_part(
            &assistant.id,
            ToolState::Pending {
                input: input.clone(),
            },
        );
        let completed = tool_part(
            &assistant.id,
            ToolState::Completed {
                input,
                output: "alpha".into(),
                title: "a.txt".into(),
                metadata: json!({}),
                time: CompletedTime {
                    start: 1,
                    end: 2,
                    compacted: None,
                },
                attachments: Vec::new(),
            },
        );
        let mut out = t.event(&Event::PartUpdated { part: pending });
        out.extend(t.event(&Event::PartUpdated { part: completed }));
        assert_eq!(kinds(&out), ["tool_call", "tool_call_update"]);
        let SessionUpdate::ToolCall(first) = &out[0] else {
            panic!("{out:?}")
        };
        // `pending` is the default: the wire leaves it out.
        assert_eq!(first.status, ToolCallStatus::Pending);
        assert_eq!(&*first.tool_call_id.0, "call_1");
        assert_eq!(
            first.kind,
            agent_client_protocol::v1::schema::ToolKind::Other
        );
        let last = serde_json::to_value(&out[1]).expect("json");
        assert_eq!(last["status"], "completed");
        assert_eq!(last["title"], "a.txt");
        assert_eq!(last["content"][0]["content"]["text"], "alpha");
    }

    #[test]
    fn a_replay_renders_both_sides_and_the_plan() {
        let (user, assistant) = messages();
        let history = vec![
            Message {
                info: user.clone().into(),
                parts: vec![text_part(&user.id, "read a.txt")],
            },
            Message {
                info: assistant.clone().into(),
                parts: vec![text_part(&assistant.id, "done")],
            },
        ];
        let todos = vec![
            Todo {
                id: "1".into(),
                content: "first".into(),
                status: TodoStatus::Completed,
                priority: TodoPriority::High,
            },
            Todo {
                id: "2".into(),
                content: "dropped".into(),
                status: TodoStatus::Cancelled,
                priority: TodoPriority::Low,
            },
        ];
        let mut t = Translator::new(SESSION, "/p", Arc::new(ToolTable::default()));
        let out = t.replay(&history, &todos);
        assert_eq!(
            kinds(&out),
            ["user_message_chunk", "agent_message_chunk", "plan"]
        );
        let plan = serde_json::to_value(&out[2]).expect("json");
        assert_eq!(plan["entries"].as_array().map(Vec::len), Some(1), "{plan}");
        assert_eq!(plan["entries"][0]["status"], "completed");
    }
}
