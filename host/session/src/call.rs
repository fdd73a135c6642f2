//! Running one tool call of a step: the part goes to running, the call goes through
//! the tool box (repair, permission, sandbox), and the part records the outcome.

use serde_json::Value;
use std::sync::{Arc, Mutex};

use ward_plugin::{CallScope, ProgressSink};
use ward_store::{
    AssistantMessage, CompletedTime, ErrorTime, Part, PartKind, RunningTime, Session, ToolPart,
    ToolState,
};

use crate::runner::{LoopError, Runner, now};
use crate::step;

impl Runner {
    /// Runs `call`; `true` when the user rejected it without feedback (stop the loop,
    /// [`crate::ToolCallError::stops_the_loop`]).
    pub(crate) async fn run_call(
        &self,
        session: &Session,
        assistant: &AssistantMessage,
        call: &step::Call,
        previous: &[(String, Value)],
    ) -> Result<bool, LoopError> {
        let input: Value = serde_json::from_str(&call.arguments).unwrap_or(Value::Null);
        let start = now();
        let mut part = call.part.clone();
        // What the call's tool declares, looked up once for all the call needs of it.
        let traits = self.tools.traits(&call.name);
        let subject = crate::tools::subject(&traits, &input);
        part.kind = PartKind::Tool(ToolPart {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            state: ToolState::Running {
                input: input.clone(),
                title: subject.clone(),
                metadata: None,
                time: RunningTime { start },
            },
        });
        self.store.put_part(&part)?;
        // Progress may only write while the call is open: once it ends (or is dropped
        // by an abort) a late progress write must not turn the result back to running.
        let open = Arc::new(Mutex::new(true));
        let closing = CloseOnDrop(open.clone());
        let scope = CallScope {
            message_id: assistant.id.clone(),
            call_id: call.id.clone(),
            progress: Some(self.progress_sink(&part, &input, subject.clone(), start, &open)),
            ..self.session_scope(session)
        };
        let mut rejected = false;
        let state = match self
            .tools
            .execute(&call.name, &call.arguments, scope, previous)
            .await
        {
            Ok(ok) => {
                let output = self.with_nested_instructions(session, &traits, &input, ok.output);
                let (output, attachments) = self.keep_files(output, &ok.attachments);
                ToolState::Completed {
                    output,
                    input,
                    // A tool that gives no title is titled by what it acted on.
                    title: match ok.title.is_empty() {
                        true => subject.unwrap_or_default(),
                        false => ok.title,
                    },
                    metadata: ok.metadata,
                    time: CompletedTime {
                        start,
                        end: now(),
                        compacted: None,
                    },
                    attachments,
                }
            }
            Err(error) => {
                rejected = error.stops_the_loop();
                ToolState::Error {
                    input,
                    error: error.to_string(),
                    time: ErrorTime { start, end: now() },
                }
            }
        };
        part.kind = PartKind::Tool(ToolPart {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            state,
        });
        drop(closing);
        self.store.put_part(&part)?;
        self.keep_todos(session, &traits, &part);
        Ok(rejected)
    }

    /// Where a running tool's progress (a title, metadata) goes: into its part, so
    /// interfaces (and a parent watching a subagent) see it live.
    fn progress_sink(
        &self,
        part: &Part,
        input: &Value,
        subject: Option<String>,
        start: i64,
        open: &Arc<Mutex<bool>>,
    ) -> ProgressSink {
        let (store, part, input) = (self.store.clone(), part.clone(), input.clone());
        // What the call acts on stays its title until the tool gives its own.
        let open = open.clone();
        Arc::new(move |title, metadata| {
            // Held across the write, so closing waits for a write in flight.
            let Ok(open) = open.lock() else {
                return;
            };
            if !*open {
                return;
            }
            let mut update = part.clone();
            if let PartKind::Tool(tool) = &mut update.kind {
                tool.state = ToolState::Running {
                    input: input.clone(),
                    title: title.or_else(|| subject.clone()),
                    metadata: serde_json::from_str(&metadata).ok(),
                    time: RunningTime { start },
                };
            }
            let _ = store.put_part(&update);
        })
    }

    /// A read of a file (a tool declaring `access = "read"` of a file path) under a
    /// directory with an `AGENTS.md` the model has not seen yet gets that file
    /// appended, once per session (SPEC §5.1).
    fn with_nested_instructions(
        &self,
        session: &Session,
        declared: &ward_config::ToolTraits,
        input: &Value,
        output: String,
    ) -> String {
        let reads_a_file =
            declared.access == Some(ward_config::Access::Read) && !declared.directory;
        let path = declared
            .path
            .as_deref()
            .filter(|_| reads_a_file)
            .and_then(|key| input.get(key))
            .and_then(Value::as_str);
        let Some(path) = path else {
            return output;
        };
        let path = self.project.join(path);
        match self.nested.attach_for(&session.id, &self.system, &path) {
            Some(reminder) => format!("{output}\n\n{reminder}"),
            None => output,
        }
    }
}

impl Runner {
    /// Checks and stores the files a tool returned ([`crate::attach`]); one refused
    /// (too large, not an image or PDF, unreadable) is named in the output instead,
    /// so the model knows it did not get it.
    fn keep_files(
        &self,
        mut output: String,
        files: &[ward_provider::Attachment],
    ) -> (String, Vec<ward_store::FilePart>) {
        let mut kept = Vec::new();
        for file in files {
            let stored = match &self.blobs {
                Some(blobs) => {
                    crate::attach::store_tool_file(blobs, file).map_err(|e| e.to_string())
                }
                None => Err("no attachment store".to_string()),
            };
            match stored {
                Ok(part) => kept.push(part),
                Err(reason) => {
                    output.push_str(&format!("\n\n[attachment not sent: {reason}]"));
                }
            }
        }
        (output, kept)
    }

    /// Stores files a tool returned for a prompt (an `@image.png` mention read
    /// through `read`) as file parts of the user message `message_id`; a file
    /// refused is described in the returned text, for the model.
    pub fn attach_to_prompt(
        &self,
        session_id: &str,
        message_id: &str,
        files: &[ward_provider::Attachment],
    ) -> Result<String, LoopError> {
        let (notes, kept) = self.keep_files(String::new(), files);
        for file in kept {
            self.store
                .put_part(&Part::new(session_id, message_id, PartKind::File(file)))?;
        }
        Ok(notes.trim_start().to_string())
    }

    /// The list a finished call of a tool declaring `todos` (`todowrite`) leaves in
    /// its output's metadata becomes the session's task list (and `todo.updated` is
    /// published), so interfaces need not parse tool output.
    fn keep_todos(&self, session: &Session, declared: &ward_config::ToolTraits, part: &Part) {
        let PartKind::Tool(ToolPart {
            state: ToolState::Completed { metadata, .. },
            ..
        }) = &part.kind
        else {
            return;
        };
        let Some(key) = &declared.todos else {
            return;
        };
        let todos = metadata
            .get(key)
            .cloned()
            .and_then(|t| serde_json::from_value::<Vec<ward_store::Todo>>(t).ok());
        if let Some(todos) = todos
            && let Err(e) = self.store.set_todos(&session.id, &todos)
        {
            tracing::warn!("cannot store the task list of {}: {e}", session.id);
        }
    }
}

/// Marks a call closed to progress writes when it ends or is dropped.
struct CloseOnDrop(Arc<Mutex<bool>>);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        if let Ok(mut open) = self.0.lock() {
            *open = false;
        }
    }
}
