//! The `todowrite` tool: replaces the session's task list. The tool is stateless: the
//! list travels in the output metadata (`todos`), where the host keeps it for the session
//! and user interfaces show it.

use serde_json::json;
use ward_sdk::{Context, Output, Tool, ToolError};

/// A task's state.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Not started.
    Pending,
    /// Being worked on (keep only one at a time).
    InProgress,
    /// Done.
    Completed,
    /// No longer needed.
    Cancelled,
}

/// A task's priority.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    /// Do first.
    High,
    /// The default.
    #[default]
    Medium,
    /// Do last.
    Low,
}

/// One task.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Todo {
    /// Brief description of the task.
    pub content: String,
    /// Current status: pending, in_progress, completed or cancelled.
    pub status: Status,
    /// Priority: high, medium (default) or low.
    #[serde(default)]
    pub priority: Priority,
    /// Unique identifier of the task; assigned from its position when omitted.
    #[serde(default)]
    pub id: Option<String>,
}

/// Arguments of `todowrite`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Args {
    /// The complete, updated task list (it replaces the previous one).
    pub todos: Vec<Todo>,
}

/// The `todowrite` tool.
pub struct TodoWrite;

impl Tool for TodoWrite {
    type Args = Args;
    const NAME: &'static str = "todowrite";
    const DESCRIPTION: &'static str = "\
Creates and updates a structured task list for the current session, to track progress \
on multi-step work and show the user what you are doing.

When to use it:
- Complex tasks needing 3 or more distinct steps, or several things the user asked for.
- Right after receiving new instructions: capture the requirements as tasks.
- When starting a task, mark it in_progress (ideally only one at a time); when it is \
done, mark it completed at once, and add follow-up tasks you discover.

When not to use it: a single, trivial or purely conversational request.

Each call sends the complete list (it replaces the previous one). Each task has content, \
status (pending | in_progress | completed | cancelled), priority (high | medium | low) and \
an id. Only mark a task completed when it is fully done: not if tests fail, the work is \
partial or you hit an unresolved error — then keep it in_progress and add a task for the \
blocker.";

    fn run(args: Args, _ctx: &Context) -> Result<Output, ToolError> {
        write_todos(args)
    }
}

// The component exports only exist in the wasm build: natively the linker rejects the
// WIT export names, and unit tests call the plain functions.
#[cfg(target_arch = "wasm32")]
ward_sdk::export_tools!(TodoWrite);

/// Validates the list, fills in missing ids and returns it as output and metadata.
pub fn write_todos(args: Args) -> Result<Output, ToolError> {
    let mut todos = args.todos;
    for (i, todo) in todos.iter_mut().enumerate() {
        if todo.content.trim().is_empty() {
            return Err(ToolError::InvalidArguments(format!(
                "todos[{i}].content must not be empty"
            )));
        }
        if todo.id.as_deref().is_none_or(|id| id.trim().is_empty()) {
            todo.id = Some((i + 1).to_string());
        }
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(dup) = todos
        .iter()
        .filter_map(|t| t.id.as_deref())
        .find(|id| !seen.insert(*id))
    {
        return Err(ToolError::InvalidArguments(format!(
            "duplicate todo id `{dup}`: ids must be unique"
        )));
    }
    let remaining = todos
        .iter()
        .filter(|t| matches!(t.status, Status::Pending | Status::InProgress))
        .count();
    let list = serde_json::to_value(&todos)
        .map_err(|e| ToolError::Failed(format!("could not encode the todo list: {e}")))?;
    let output = serde_json::to_string_pretty(&list)
        .map_err(|e| ToolError::Failed(format!("could not encode the todo list: {e}")))?;
    Ok(Output::text(format!("{remaining} todos"), output).with_metadata(json!({ "todos": list })))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<Args, serde_json::Error> {
        serde_json::from_str(json)
    }

    #[test]
    fn echoes_the_list_and_counts_remaining() -> Result<(), serde_json::Error> {
        let args = parse(
            r#"{"todos":[
                {"content":"a","status":"completed","priority":"high","id":"x"},
                {"content":"b","status":"in_progress","priority":"low"},
                {"content":"c","status":"pending"},
                {"content":"d","status":"cancelled","priority":"medium","id":"z"}]}"#,
        )?;
        let out = write_todos(args)
            .map_err(|e| serde_json::Error::io(std::io::Error::other(format!("{e:?}"))))?;
        assert_eq!(out.title, "2 todos");
        let todos = &out.metadata["todos"];
        assert_eq!(todos[1]["id"], "2");
        assert_eq!(todos[1]["status"], "in_progress");
        assert_eq!(todos[2]["priority"], "medium");
        let echoed: serde_json::Value = serde_json::from_str(&out.output)?;
        assert_eq!(&echoed, todos);
        Ok(())
    }

    #[test]
    fn rejects_bad_input() -> Result<(), serde_json::Error> {
        assert!(parse(r#"{"todos":[{"content":"a","status":"doing"}]}"#).is_err());
        assert!(parse(r#"{"todos":[{"content":"a","status":"pending","extra":1}]}"#).is_err());
        let empty = parse(r#"{"todos":[{"content":" ","status":"pending"}]}"#)?;
        assert!(matches!(
            write_todos(empty),
            Err(ToolError::InvalidArguments(_))
        ));
        let dup = parse(
            r#"{"todos":[{"content":"a","status":"pending","id":"1"},{"content":"b","status":"pending","id":"1"}]}"#,
        )?;
        assert!(matches!(
            write_todos(dup),
            Err(ToolError::InvalidArguments(_))
        ));
        Ok(())
    }

    #[test]
    fn an_empty_list_clears_the_todos() {
        let out = write_todos(Args { todos: Vec::new() });
        assert_eq!(
            out.map(|o| (o.title, o.output)).ok(),
            Some(("0 todos".into(), "[]".into()))
        );
    }
}
