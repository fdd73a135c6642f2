//! The tools as MCP clients see them: which of the project's tools are served, and
//! each one's MCP description — its JSON Schema (always an object schema), a title,
//! what its manifest says of it as annotations, and the schema of the structured
//! output every call returns.

use std::collections::HashSet;
use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};
use ward_protocol::{Access, ToolSummary};

/// The served tools of one opened project.
pub struct Catalog {
    /// What `tools/list` answers, in the tool box's order.
    pub tools: Vec<Tool>,
    /// Their names: a call of any other name is refused, even one the tool box
    /// would repair into a tool that is not served.
    pub served: HashSet<String>,
}

impl Catalog {
    /// The tools of `tools` that are served: every installed plugin's, and with
    /// `standard` Ward's own (the standard tools and the host's `skill`) too.
    pub fn new(tools: &[ToolSummary], standard: bool) -> Catalog {
        let mut served_tools = Vec::new();
        let mut served = HashSet::new();
        for tool in tools {
            if tool.standard && !standard {
                continue;
            }
            served.insert(tool.name.clone());
            served_tools.push(describe(
                &tool.name,
                &tool.description,
                &tool.parameters,
                tool.plugin.as_deref(),
                tool.access,
            ));
        }
        Catalog {
            tools: served_tools,
            served,
        }
    }
}

/// One tool as MCP describes it.
pub fn describe(
    name: &str,
    description: &str,
    parameters: &Value,
    plugin: Option<&str>,
    access: Option<Access>,
) -> Tool {
    let title = match plugin {
        Some(plugin) if plugin != name => format!("{name} ({plugin})"),
        _ => name.to_string(),
    };
    let mut annotations = ToolAnnotations::with_title(title.clone());
    match access {
        Some(Access::Read) => annotations = annotations.read_only(true),
        Some(_) => annotations = annotations.read_only(false),
        None => {}
    }
    Tool::new(
        name.to_string(),
        description.to_string(),
        Arc::new(input_schema(parameters)),
    )
    .with_title(title)
    .with_annotations(annotations)
    .with_raw_output_schema(Arc::new(output_schema()))
}

/// `parameters` as an MCP input schema: MCP requires an object schema, so anything
/// else a plugin declared (Ward refuses such schemas at load, but a host tool's is
/// not checked there) becomes an object schema that takes any arguments.
pub fn input_schema(parameters: &Value) -> JsonObject {
    match parameters {
        Value::Object(map) if map.get("type").and_then(Value::as_str) == Some("object") => {
            map.clone()
        }
        Value::Object(map) if !map.contains_key("type") => {
            let mut map = map.clone();
            map.insert("type".into(), Value::String("object".into()));
            map
        }
        _ => {
            let mut map = JsonObject::new();
            map.insert("type".into(), Value::String("object".into()));
            map
        }
    }
}

/// What every call's structured content holds: Ward's tool result.
pub fn output_schema() -> JsonObject {
    let schema = json!({
        "type": "object",
        "properties": {
            "title": {"type": "string", "description": "A short title for the call"},
            "output": {"type": "string", "description": "What the tool returned, as the model would read it"},
            "metadata": {"description": "The tool's details for user interfaces (any JSON)"}
        },
        "required": ["title", "output"]
    });
    match schema {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schema_that_is_not_an_object_schema_becomes_one() {
        let object = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert_eq!(Value::Object(input_schema(&object)), object);
        assert_eq!(
            Value::Object(input_schema(&json!({"properties": {}}))),
            json!({"properties": {}, "type": "object"})
        );
        for odd in [json!("string"), json!(null), json!({"type": "array"})] {
            assert_eq!(
                Value::Object(input_schema(&odd)),
                json!({"type": "object"}),
                "{odd}"
            );
        }
    }

    #[test]
    fn a_reading_tool_is_marked_read_only_and_titled_by_its_plugin() {
        let tool = describe(
            "lookup",
            "Looks up",
            &json!({"type": "object"}),
            Some("dict"),
            Some(Access::Read),
        );
        assert_eq!(tool.title.as_deref(), Some("lookup (dict)"));
        let annotations = tool.annotations.unwrap();
        assert_eq!(annotations.read_only_hint, Some(true));
        assert!(tool.output_schema.is_some());
        let plain = describe("noop", "", &json!({}), Some("noop"), None);
        assert_eq!(plain.title.as_deref(), Some("noop"));
        assert_eq!(plain.annotations.unwrap().read_only_hint, None);
    }
}
