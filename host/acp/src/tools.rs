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
use ward_config::{Access, Capabilities, ToolTraits};
use ward_engine::Engine;

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
        let (tools, _) = engine.workspace().host.all_tools().await;
        let tools = tools
            .into_iter()
            .map(|(plugin, tool)| {
                let traits = plugin.tool_traits(&tool.name);
                let caps = &plugin.source.manifest.capabilities;
                let info = ToolInfo {
                    kind: kind_of(&tool.name, &traits, caps),
                    path_arg: traits.path.clone(),
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
            kind: kind_of(tool, &ToolTraits::default(), &Capabilities::default()),
            path_arg: None,
        })
    }
}

/// The kind of tool `name`, from its declared traits and its plugin's capabilities,
/// else (for Ward's own tools that declare neither) its name.
pub fn kind_of(name: &str, traits: &ToolTraits, caps: &Capabilities) -> ToolKind {
    if traits.patch.is_some() || traits.access == Some(Access::Write) {
        return ToolKind::Edit;
    }
    if traits.access == Some(Access::Read) {
        return if traits.pattern.is_some() {
            ToolKind::Search
        } else {
            ToolKind::Read
        };
    }
    if !caps.exec.is_empty() {
        return ToolKind::Execute;
    }
    if !caps.net.is_empty() {
        return ToolKind::Fetch;
    }
    // A tool keeping the session's plan (`todowrite`).
    if traits.todos.is_some() {
        return ToolKind::Think;
    }
    // By name: the host's own `skill` tool, which no manifest declares.
    match name {
        "skill" => ToolKind::Read,
        _ => ToolKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn traits(toml: &str) -> ToolTraits {
        toml::from_str(toml).expect("traits")
    }

    #[test]
    fn kinds_come_from_what_a_tool_declares() {
        let none = Capabilities::default();
        let write = traits("path = \"filePath\"\naccess = \"write\"");
        assert_eq!(kind_of("anything", &write, &none), ToolKind::Edit);
        let patch = traits("patch = \"patchText\"");
        assert_eq!(kind_of("apply_patch", &patch, &none), ToolKind::Edit);
        let grep = traits("path = \"path\"\naccess = \"read\"\npattern = \"pattern\"");
        assert_eq!(kind_of("grep", &grep, &none), ToolKind::Search);
        let read = traits("path = \"filePath\"\naccess = \"read\"");
        assert_eq!(kind_of("my-reader", &read, &none), ToolKind::Read);
        let exec = Capabilities {
            exec: vec!["*".into()],
            ..Capabilities::default()
        };
        assert_eq!(
            kind_of("shell", &ToolTraits::default(), &exec),
            ToolKind::Execute
        );
        let net = Capabilities {
            net: vec!["*".into()],
            ..Capabilities::default()
        };
        assert_eq!(
            kind_of("get", &ToolTraits::default(), &net),
            ToolKind::Fetch
        );
    }

    #[test]
    fn only_tools_that_declare_nothing_go_by_name() {
        let none = Capabilities::default();
        let plain = ToolTraits::default();
        assert_eq!(kind_of("todowrite", &plain, &none), ToolKind::Other);
        let plan = traits("todos = \"todos\"");
        assert_eq!(kind_of("my-plan", &plan, &none), ToolKind::Think);
        assert_eq!(kind_of("skill", &plain, &none), ToolKind::Read);
        assert_eq!(kind_of("task", &plain, &none), ToolKind::Other);
        // A plugin tool called `read` that declares nothing is not taken for one.
        assert_eq!(kind_of("read", &plain, &none), ToolKind::Other);
        assert_eq!(ToolTable::default().get("bash").kind, ToolKind::Other);
    }
}
