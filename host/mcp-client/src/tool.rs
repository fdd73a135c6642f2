//! An MCP tool as a host tool: named `SERVER_TOOL`, described and typed as the server
//! says, called through the server's connection. A failure (the server stopped, the
//! call timed out, the tool reported an error) is an answer for the model; the loop
//! goes on.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use rmcp::model::Tool;
use serde_json::Value;
use ward_plugin::CallScope;
use ward_provider::ToolSpec;
use ward_session::tools::HostTool;
use ward_session::{ToolCallError, ToolSuccess};

use crate::server::Shared;

/// One tool of one server.
pub struct McpTool {
    shared: Arc<Shared>,
    remote: String,
    offered: String,
    description: String,
    schema: Value,
}

impl McpTool {
    /// `tool` of the server `shared` belongs to.
    pub fn new(shared: Arc<Shared>, tool: Tool) -> McpTool {
        let offered = crate::names::tool_name(&shared.name, &tool.name);
        let description = tool
            .description
            .as_deref()
            .or(tool.title.as_deref())
            .unwrap_or("")
            .to_string();
        McpTool {
            remote: tool.name.to_string(),
            offered,
            description,
            schema: Value::Object((*tool.input_schema).clone()),
            shared,
        }
    }

    /// The name the model sees.
    pub fn offered_name(&self) -> &str {
        &self.offered
    }

    /// The server's description of it.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// Its input schema.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// Its name on its server.
    pub fn remote_name(&self) -> &str {
        &self.remote
    }

    /// The server it belongs to.
    pub fn server(&self) -> &str {
        &self.shared.name
    }
}

impl HostTool for McpTool {
    fn name(&self) -> &str {
        &self.offered
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.offered.clone(),
            description: self.description.clone(),
            parameters: self.schema.clone(),
        }
    }

    fn run<'a>(
        &'a self,
        args: Value,
        _scope: &'a CallScope,
    ) -> BoxFuture<'a, Result<ToolSuccess, ToolCallError>> {
        Box::pin(async move {
            match crate::call::call(&self.shared, &self.remote, args).await {
                Ok((output, metadata, attachments)) => Ok(ToolSuccess {
                    attachments,
                    ..ToolSuccess::text(&self.offered, output, metadata)
                }),
                Err(e) => Err(ToolCallError::respond(e.to_string())),
            }
        })
    }
}
