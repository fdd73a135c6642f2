//! What kind of tool a call is, for the editor's icon and grouping
//! ([`ToolKind`]: read, edit, search, execute, fetch, think, other), and which of its
//! arguments names the file it acts on (shown as the call's location).
//!
//! The kind is decided from what the tool declares, not from its name, wherever it
//! declares something: a plugin tool's `[tools.NAME]` traits in its manifest (a
//! `path` it writes or a `patch` → edit; a path it reads with a `pattern` → search;
//! a path it reads → read), else the capabilities its manifest asks for (`exec` →
//! execute, `net` → fetch; a tool keeping the session's `todos`, `todowrite` →
//! think). Only the host's own tools, which no manifest declares, go by name: `skill`
//! → read and `task` (a subagent) → other. Any other tool is `other`.

use std::collections::HashMap;

use agent_client_protocol::v1::schema::ToolKind;
use ward_engine::Engine;
use ward_protocol::{Access, ToolSummary};

/// What is known about one tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolInfo {
    /// Its kind.
    pub kind: ToolKind,
    /// The argument naming the file or directory the call acts on, if it declares one.
    pub path_arg: Option<String>,
}

/// The tools of one opened project, by name.
#[derive(Clone, Debug, Default)]
pub struct ToolTable {
    tools: HashMap<String, ToolInfo>,
}

impl ToolTable {
    /// Every tool the project's plugins offer, with what their manifests declare.
    pub async fn of(engine: &Engine) -> ToolTable {
        let tools = engine
            .tools()
            .await
            .into_iter()
            .map(|tool| {
                let info = ToolInfo {
                    kind: kind_of(&tool),
                    path_arg: tool.path_arg.clone(),
                };
                (tool.name, info)
            })
            .collect();
        ToolTable { tools }
    }

    /// What is known about `tool` (a host tool, or one the table does not list, is
    /// judged by its name alone).
    pub fn get(&self, tool: &str) -> ToolInfo {
        self.tools.get(tool).cloned().unwrap_or_else(|| ToolInfo {
            kind: kind_of(&undeclared(tool)),
            path_arg: None,
        })
    }
}

/// A tool that declares nothing and whose plugin was granted nothing.
fn undeclared(name: &str) -> ToolSummary {
    ToolSummary {
        name: name.to_string(),
        plugin: None,
        standard: false,
        description: String::new(),
        parameters: serde_json::Value::Null,
        access: None,
        path_arg: None,
        pattern_arg: None,
        patch_arg: None,
        keeps_todos: false,
        runs_programs: false,
        uses_network: false,
    }
}

/// The kind of `tool`, from its declared traits and its plugin's grants, else (for
/// Ward's own tools that declare neither) its name.
pub fn kind_of(tool: &ToolSummary) -> ToolKind {
    if tool.patch_arg.is_some() || tool.access == Some(Access::Write) {
        return ToolKind::Edit;
    }
    if tool.access == Some(Access::Read) {
        return if tool.pattern_arg.is_some() {
            ToolKind::Search
        } else {
            ToolKind::Read
        };
    }
    if tool.runs_programs {
        return ToolKind::Execute;
    }
    if tool.uses_network {
        return ToolKind::Fetch;
    }
    // A tool keeping the session's plan (`todowrite`).
    if tool.keeps_todos {
        return ToolKind::Think;
    }
    // By name: the host's own `skill` tool, which no manifest declares.
    match tool.name.as_str() {
        "skill" => ToolKind::Read,
        _ => ToolKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, set: impl FnOnce(&mut ToolSummary)) -> ToolSummary {
        let mut tool = undeclared(name);
        set(&mut tool);
        tool
    }

    #[test]
    fn kinds_come_from_what_a_tool_declares() {
        let write = tool("anything", |t| {
            t.path_arg = Some("filePath".into());
            t.access = Some(Access::Write);
        });
        assert_eq!(kind_of(&write), ToolKind::Edit);
        let patch = tool("apply_patch", |t| t.patch_arg = Some("patchText".into()));
        assert_eq!(kind_of(&patch), ToolKind::Edit);
        let grep = tool("grep", |t| {
            t.path_arg = Some("path".into());
            t.access = Some(Access::Read);
            t.pattern_arg = Some("pattern".into());
        });
        assert_eq!(kind_of(&grep), ToolKind::Search);
        let read = tool("my-reader", |t| {
            t.path_arg = Some("filePath".into());
            t.access = Some(Access::Read);
        });
        assert_eq!(kind_of(&read), ToolKind::Read);
        assert_eq!(
            kind_of(&tool("shell", |t| t.runs_programs = true)),
            ToolKind::Execute
        );
        assert_eq!(
            kind_of(&tool("get", |t| t.uses_network = true)),
            ToolKind::Fetch
        );
    }

    #[test]
    fn only_tools_that_declare_nothing_go_by_name() {
        assert_eq!(kind_of(&undeclared("todowrite")), ToolKind::Other);
        let plan = tool("my-plan", |t| t.keeps_todos = true);
        assert_eq!(kind_of(&plan), ToolKind::Think);
        assert_eq!(kind_of(&undeclared("skill")), ToolKind::Read);
        assert_eq!(kind_of(&undeclared("task")), ToolKind::Other);
        // A plugin tool called `read` that declares nothing is not taken for one.
        assert_eq!(kind_of(&undeclared("read")), ToolKind::Other);
        assert_eq!(ToolTable::default().get("bash").kind, ToolKind::Other);
    }
}
