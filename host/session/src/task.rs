//! The `task` tool (SPEC §7): the model hands a piece of work to a subagent, which
//! runs its own loop in a child session (`parent_id` = the caller's session) under
//! its own prompt and rules, and answers with its final text and the child's id
//! (`task_id` resumes that child later).
//!
//! The child's tool calls show up, as they happen, in the metadata of the parent's
//! running `task` call. The child's loop runs as its own task, so that when the
//! parent's call is dropped (an abort) the child is aborted through its runner and
//! closes its messages properly rather than being cut off mid-write.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::{Value, json};
use ward_plugin::CallScope;
use ward_provider::ToolSpec;
use ward_store::{Event, PartKind, Session, Store, ToolState};

use crate::runner::Runner;
use crate::tool_error::ToolCallError;
use crate::tools::{HostTool, ToolSuccess};

/// Where subagents come from: the CLI (or a server) knows the agents, models and
/// plugins; the tool only asks for a runner.
pub trait Subagents: Send + Sync {
    /// The subagents the model may choose from: (name, description).
    fn list(&self) -> Vec<(String, String)>;
    /// A runner for `agent`, whose rules keep every deny of `parent_rules`.
    fn runner(
        &self,
        agent: &str,
        parent: &CallScope,
    ) -> BoxFuture<'_, Result<Arc<Runner>, SubagentError>>;
}

/// Why no runner could be made for a subagent; the model reads it as the `task`
/// call's result.
#[derive(Debug, thiserror::Error)]
pub enum SubagentError {
    /// No agent has that name.
    #[error("no such agent")]
    UnknownAgent {
        /// The name asked for.
        agent: String,
    },
    /// The agent's own model cannot be set up (unknown provider or model, no key…).
    #[error("agent `{agent}`: {reason}")]
    Model {
        /// The agent.
        agent: String,
        /// Why, as the model set-up reported it.
        reason: String,
    },
}

/// The child loops `task` calls started, so that after an abort the caller can wait
/// for them to close their messages before the process exits.
#[derive(Clone, Default)]
pub struct ChildLoops(Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>>);

impl ChildLoops {
    fn track(&self, handle: tokio::task::JoinHandle<()>) {
        if let Ok(mut handles) = self.0.lock() {
            handles.retain(|h| !h.is_finished());
            handles.push(handle);
        }
    }

    /// Waits, at most `limit` in all, for every child loop started so far to end.
    pub async fn settle(&self, limit: Duration) {
        let handles: Vec<_> = self
            .0
            .lock()
            .map(|mut h| h.drain(..).collect())
            .unwrap_or_default();
        let _ = tokio::time::timeout(limit, futures_util::future::join_all(handles)).await;
    }
}

/// The `task` tool.
pub struct TaskTool {
    subagents: Arc<dyn Subagents>,
    store: Arc<dyn Store>,
    children: ChildLoops,
}

impl TaskTool {
    /// The tool over `subagents`, keeping child sessions in `store` and their loops
    /// in `children`.
    pub fn new(subagents: Arc<dyn Subagents>, store: Arc<dyn Store>, children: ChildLoops) -> Self {
        Self {
            subagents,
            store,
            children,
        }
    }
}

/// The name of the host's own tool that runs a subagent in a child session.
pub const TASK: &str = "task";

impl HostTool for TaskTool {
    fn name(&self) -> &str {
        TASK
    }

    fn spec(&self) -> ToolSpec {
        let agents: String = self
            .subagents
            .list()
            .iter()
            .map(|(name, description)| format!("- {name}: {description}\n"))
            .collect();
        ToolSpec {
            name: self.name().to_string(),
            description: format!(
                "Launch a subagent to handle a complex, multi-step task on its own. It works \
                 in a separate session with its own context and returns one final message; \
                 you see nothing else of its work, so say exactly what to do and what to \
                 report back. Launch several at once (in one message) when the work can run \
                 in parallel. To continue a subagent's earlier work, pass its task_id.\n\n\
                 Available agent types:\n{agents}"
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "description": { "type": "string", "description": "A short (3-5 words) description of the task" },
                    "prompt": { "type": "string", "description": "The task for the agent to perform" },
                    "subagent_type": { "type": "string", "description": "The type of specialized agent to use for this task" },
                    "task_id": { "type": "string", "description": "Resume the subagent session with this id instead of starting a new one" }
                },
                "required": ["description", "prompt", "subagent_type"],
                "additionalProperties": false
            }),
        }
    }

    fn run<'a>(
        &'a self,
        args: Value,
        scope: &'a CallScope,
    ) -> BoxFuture<'a, Result<ToolSuccess, ToolCallError>> {
        Box::pin(async move {
            let text = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or_default();
            let (description, prompt, agent) =
                (text("description"), text("prompt"), text("subagent_type"));
            let names: Vec<String> = self.subagents.list().into_iter().map(|(n, _)| n).collect();
            if !names.iter().any(|n| n == agent) {
                return Err(ToolCallError::respond(format!(
                    "unknown subagent_type `{agent}`; available: {}",
                    names.join(", ")
                )));
            }
            let runner = self
                .subagents
                .runner(agent, scope)
                .await
                .map_err(|e| ToolCallError::respond(e.to_string()))?;
            let session = self.child_session(text("task_id"), agent, scope)?;
            let mut watcher = AbortTask(progress(self.store.clone(), &session, scope));
            let (done, outcome) = tokio::sync::oneshot::channel();
            let child = {
                let (runner, session, prompt) =
                    (runner.clone(), session.clone(), prompt.to_string());
                tokio::spawn(async move {
                    let _ = done.send(runner.prompt(&session, &prompt).await);
                })
            };
            self.children.track(child);
            // Dropped with the parent's call (an abort): the child is aborted too.
            let _abort_child = AbortOnDrop(runner.clone(), session.id.clone());
            let outcome = outcome
                .await
                .map_err(|_| ToolCallError::respond("the subagent stopped"));
            // Wait until the watcher has stopped: a progress write landing after the
            // call's result would put the part back to running.
            watcher.0.abort();
            let _ = (&mut watcher.0).await;
            let outcome = outcome?;
            let answer =
                outcome.map_err(|e| ToolCallError::respond(format!("the subagent failed: {e}")))?;
            let reply: String = self
                .store
                .get_message(&answer.id)
                .map_err(|e| ToolCallError::respond(e.to_string()))?
                .parts
                .iter()
                .filter_map(|p| match &p.kind {
                    PartKind::Text(t) if !t.synthetic => Some(t.text.as_str()),
                    _ => None,
                })
                .collect();
            Ok(ToolSuccess::text(
                description,
                format!(
                    "task_id: {} (to continue this task, pass it as task_id)\n\n<task_result>\n{reply}\n</task_result>",
                    session.id
                ),
                json!({ "sessionId": session.id, "agent": agent }),
            ))
        })
    }
}

impl TaskTool {
    /// The child session to run in: `task_id` if it is a child of this session, else
    /// a new one.
    fn child_session(
        &self,
        task_id: &str,
        agent: &str,
        scope: &CallScope,
    ) -> Result<Session, ToolCallError> {
        if !task_id.is_empty() {
            let existing = self
                .store
                .get_session(task_id)
                .map_err(|e| ToolCallError::respond(format!("task_id `{task_id}`: {e}")))?;
            if existing.parent_id.as_deref() != Some(scope.session_id.as_str()) {
                return Err(ToolCallError::respond(format!(
                    "task_id `{task_id}` is not a subagent session of this session"
                )));
            }
            return Ok(existing);
        }
        let parent = self
            .store
            .get_session(&scope.session_id)
            .map_err(|e| ToolCallError::respond(format!("the parent session: {e}")))?;
        let child = Session::child_of(&parent, agent);
        self.store
            .create_session(&child)
            .map_err(|e| ToolCallError::respond(e.to_string()))?;
        Ok(child)
    }
}

/// Stops the progress watcher when the call goes away.
struct AbortTask(tokio::task::JoinHandle<()>);

impl Drop for AbortTask {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Aborts the child's loop when the parent's call goes away first.
struct AbortOnDrop(Arc<Runner>, String);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort(&self.1);
    }
}

/// Reports the child's tool calls to the parent's running call as they change.
fn progress(
    store: Arc<dyn Store>,
    child: &Session,
    scope: &CallScope,
) -> tokio::task::JoinHandle<()> {
    let mut events = store.bus().subscribe();
    let (child_id, sink) = (child.id.clone(), scope.progress.clone());
    tokio::spawn(async move {
        let Some(sink) = sink else {
            return;
        };
        let mut calls: BTreeMap<String, Value> = BTreeMap::new();
        loop {
            let event = match events.recv().await {
                Ok(event) => event,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            };
            let Event::PartUpdated { part, .. } = event else {
                continue;
            };
            let PartKind::Tool(tool) = &part.kind else {
                continue;
            };
            if part.session_id != child_id {
                continue;
            }
            let (status, title) = match &tool.state {
                ToolState::Pending { .. } => ("pending", None),
                ToolState::Running { title, .. } => ("running", title.clone()),
                ToolState::Completed { title, .. } => ("completed", Some(title.clone())),
                ToolState::Error { .. } => ("error", None),
            };
            calls.insert(
                part.id.clone(),
                json!({ "tool": tool.tool, "status": status, "title": title }),
            );
            let summary: Vec<&Value> = calls.values().collect();
            sink(
                None,
                json!({ "sessionId": child_id, "summary": summary }).to_string(),
            );
        }
    })
}
