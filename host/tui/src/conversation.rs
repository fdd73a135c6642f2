//! The conversation as shown: the engine's events for one session folded into
//! entries (the user's prompts, the answer's text and reasoning, tool calls with
//! their state and output — a subagent's, its child's tool calls — notices), plus
//! what the status line reports (agent, model, tokens of the last request, cost so
//! far, whether the loop runs).
//!
//! Text is kept as the engine sent it; it is made inert when laid out (`view`).

use std::collections::{HashMap, HashSet};

use serde_json::Value;
use ward_protocol::{Event, MessageInfo, Part, PartKind, SessionStatus, ToolState};

/// Where a tool call is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolStatus {
    /// Its arguments stream, or it waits for permission.
    Pending,
    /// It runs.
    Running,
    /// It finished.
    Completed,
    /// It failed, was denied or was interrupted.
    Error,
}

/// One tool call.
#[derive(Clone, Debug)]
pub struct ToolBlock {
    /// The tool's name.
    pub tool: String,
    /// Its state.
    pub status: ToolStatus,
    /// Its title (the tool's, else the description the model gave).
    pub title: String,
    /// Its output, progress or error.
    pub output: String,
    /// The change it made, as a unified diff (edits and writes report one).
    pub diff: Option<String>,
    /// Whether all its output is shown rather than the first lines.
    pub expanded: bool,
}

/// One thing in the conversation.
#[derive(Clone, Debug)]
pub enum Entry {
    /// A prompt the user sent.
    User(String),
    /// The answer's text.
    Text(String),
    /// The model's reasoning (shown dimmed).
    Reasoning(String),
    /// A tool call.
    Tool(ToolBlock),
    /// Something the UI itself says (an error, a note).
    Notice(String),
}

/// One session's conversation and status.
#[derive(Default)]
pub struct Conversation {
    session: String,
    /// What is shown, oldest first.
    pub entries: Vec<Entry>,
    /// Where each part's entry is.
    parts: HashMap<String, usize>,
    /// The user's messages (their text parts are prompts, not answers).
    users: HashSet<String>,
    /// Whether the session's loop runs.
    pub busy: bool,
    /// A retry being waited for, as one line.
    pub retry: Option<String>,
    /// The model that answered last (`provider/model`).
    pub model: Option<String>,
    /// Tokens the last request used (its prompt and its answer).
    pub tokens: u64,
    /// Each answer's cost, by message.
    costs: HashMap<String, f64>,
    /// The answers whose error is shown (once each).
    errors: HashSet<String>,
}

impl Conversation {
    /// An empty conversation of `session`.
    pub fn new(session: &str) -> Self {
        Conversation {
            session: session.to_string(),
            ..Conversation::default()
        }
    }

    /// The cost of the session's answers so far, in US dollars.
    pub fn cost(&self) -> f64 {
        self.costs.values().sum()
    }

    /// Adds a note of the UI's own.
    pub fn notice(&mut self, text: impl Into<String>) {
        self.entries.push(Entry::Notice(text.into()));
    }

    /// The newest tool block, if any.
    pub fn last_tool_mut(&mut self) -> Option<&mut ToolBlock> {
        self.entries.iter_mut().rev().find_map(|e| match e {
            Entry::Tool(t) => Some(t),
            _ => None,
        })
    }

    /// Folds `event` in; whether what is shown changed.
    pub fn apply(&mut self, event: &Event) -> bool {
        match event {
            Event::MessageUpdated { info } if info.session_id() == self.session => {
                match info {
                    MessageInfo::User(user) => {
                        self.users.insert(user.id.clone());
                    }
                    MessageInfo::Assistant(a) => {
                        self.model = Some(format!("{}/{}", a.model.provider, a.model.model));
                        let t = &a.tokens;
                        let used = [t.input, t.output, t.reasoning, t.cache.read, t.cache.write]
                            .into_iter()
                            .fold(0u64, u64::saturating_add);
                        if used > 0 {
                            self.tokens = used;
                        }
                        self.costs.insert(a.id.clone(), a.cost);
                        if let Some(error) = &a.error
                            && self.errors.insert(a.id.clone())
                        {
                            self.notice(format!("error: {}", error.message));
                        }
                    }
                }
                true
            }
            Event::PartUpdated { part } if part.session_id == self.session => self.part(part),
            Event::PartDelta {
                session_id,
                part_id,
                delta,
                ..
            } if *session_id == self.session => {
                let Some(&at) = self.parts.get(part_id) else {
                    return false;
                };
                match self.entries.get_mut(at) {
                    Some(Entry::Text(text) | Entry::Reasoning(text)) => {
                        text.push_str(delta);
                        true
                    }
                    _ => false,
                }
            }
            Event::PartRemoved {
                session_id,
                part_id,
                ..
            } if *session_id == self.session => {
                // Kept in place (indices stay valid), emptied.
                match self
                    .parts
                    .get(part_id)
                    .and_then(|&at| self.entries.get_mut(at))
                {
                    Some(Entry::Text(text) | Entry::Reasoning(text)) => text.clear(),
                    _ => return false,
                }
                true
            }
            Event::SessionStatus { session_id, status } if *session_id == self.session => {
                self.busy = !matches!(status, SessionStatus::Idle);
                self.retry = match status {
                    SessionStatus::Retry {
                        attempt,
                        max,
                        message,
                        ..
                    } => Some(format!(
                        "retrying (attempt {attempt} of {max}): {}",
                        message.lines().next().unwrap_or("")
                    )),
                    _ => None,
                };
                true
            }
            _ => false,
        }
    }

    /// A part created or replaced.
    fn part(&mut self, part: &Part) -> bool {
        let entry = match &part.kind {
            PartKind::Text(t) if t.synthetic || t.ignored => return false,
            PartKind::Text(t) if self.users.contains(&part.message_id) => {
                Entry::User(t.text.clone())
            }
            PartKind::Text(t) => Entry::Text(t.text.clone()),
            PartKind::Reasoning { text, .. } => Entry::Reasoning(text.clone()),
            PartKind::Tool(t) => {
                let expanded = match self
                    .parts
                    .get(&part.id)
                    .and_then(|&at| self.entries.get(at))
                {
                    Some(Entry::Tool(old)) => old.expanded,
                    _ => false,
                };
                let (status, title, output) = tool_view(&t.state);
                let diff = match &t.state {
                    ToolState::Completed { metadata, .. } => metadata
                        .get("diff")
                        .and_then(Value::as_str)
                        .filter(|d| !d.is_empty())
                        .map(str::to_string),
                    _ => None,
                };
                Entry::Tool(ToolBlock {
                    tool: t.tool.clone(),
                    status,
                    title,
                    output,
                    diff,
                    expanded,
                })
            }
            _ => return false,
        };
        match self.parts.get(&part.id) {
            Some(&at) if at < self.entries.len() => self.entries[at] = entry,
            _ => {
                self.parts.insert(part.id.clone(), self.entries.len());
                self.entries.push(entry);
            }
        }
        true
    }
}

/// A tool state's status, title and text to show.
fn tool_view(state: &ToolState) -> (ToolStatus, String, String) {
    match state {
        ToolState::Pending { input } => (ToolStatus::Pending, described(input), String::new()),
        ToolState::Running {
            input,
            title,
            metadata,
            ..
        } => {
            let progress = metadata.as_ref().map(progress).unwrap_or_default();
            let title = title.clone().unwrap_or_else(|| described(input));
            (ToolStatus::Running, title, progress)
        }
        ToolState::Completed { title, output, .. } => {
            (ToolStatus::Completed, title.clone(), output.clone())
        }
        ToolState::Error { input, error, .. } => {
            (ToolStatus::Error, described(input), error.clone())
        }
    }
}

/// A running tool's progress as text: its output so far, or — for a `task` call —
/// the subagent's tool calls (its child session's), one row each with its state.
fn progress(metadata: &Value) -> String {
    if let Some(output) = metadata.get("output").and_then(Value::as_str) {
        return output.to_string();
    }
    let Some(calls) = metadata.get("summary").and_then(Value::as_array) else {
        return String::new();
    };
    let mut rows: Vec<String> = Vec::new();
    for call in calls {
        let text = |key: &str| call.get(key).and_then(Value::as_str).unwrap_or_default();
        let mark = match text("status") {
            "completed" => "✓",
            "error" => "✗",
            "running" => "…",
            _ => "○",
        };
        // One row each: a title is the child model's words.
        let title = text("title").replace(['\n', '\r'], " ");
        rows.push(
            format!("{mark} {} {title}", text("tool"))
                .trim_end()
                .to_string(),
        );
    }
    rows.join("\n")
}

/// What a call's arguments say it does before the engine titles it (with what the
/// tool declares it acts on): the `description` a tool may be given, else its first
/// text argument. No tool's argument names are known here.
fn described(input: &Value) -> String {
    let first_text = || {
        input
            .as_object()?
            .values()
            .find_map(Value::as_str)
            .map(str::to_string)
    };
    input
        .get("description")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(first_text)
        .unwrap_or_default()
}
