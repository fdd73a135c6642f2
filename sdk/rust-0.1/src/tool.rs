//! The [`Tool`] trait and the glue that turns JSON arguments into typed ones.

use crate::{Attachment, Context, ToolError, ToolInfo, ToolOutput};
use serde::de::DeserializeOwned;

/// One tool: a name, a description, a typed arguments struct and a function.
pub trait Tool {
    /// The arguments. Its JSON Schema (from `schemars`) is what the model sees.
    type Args: DeserializeOwned + schemars::JsonSchema;
    /// The tool's name, `[a-z0-9_-]+`.
    const NAME: &'static str;
    /// What the tool does and when to use it.
    const DESCRIPTION: &'static str;
    /// Runs the tool.
    fn run(args: Self::Args, context: &Context) -> Result<Output, ToolError>;
}

/// What a tool returns: the text the model reads, a title, metadata for user interfaces.
#[derive(Debug, Default)]
pub struct Output {
    /// Short human title.
    pub title: String,
    /// The text the model reads.
    pub output: String,
    /// Structured details for user interfaces; not sent to the model.
    pub metadata: serde_json::Value,
    /// Files to attach.
    pub attachments: Vec<Attachment>,
}

impl Output {
    /// A plain text result.
    pub fn text(title: impl Into<String>, output: impl Into<String>) -> Self {
        Output {
            title: title.into(),
            output: output.into(),
            metadata: serde_json::Value::Object(Default::default()),
            attachments: Vec::new(),
        }
    }

    /// Adds metadata (for user interfaces; the model sees only the output).
    ///
    /// Output longer than 2000 lines or 50 KB is cut by the host, which saves the full
    /// text and tells the model where it is. A tool that pages its own output instead
    /// (as `read` and `grep` do) sets a `truncated` key in its metadata, `true` or
    /// `false`, and the host leaves its output alone.
    pub fn with_metadata(mut self, metadata: serde_json::Value) -> Self {
        self.metadata = metadata;
        self
    }
}

/// The [`ToolInfo`] of a tool, with its derived JSON Schema.
pub fn info<T: Tool>() -> ToolInfo {
    let schema = schemars::schema_for!(T::Args);
    ToolInfo {
        name: T::NAME.to_string(),
        description: T::DESCRIPTION.to_string(),
        parameters: serde_json::to_string(&schema).unwrap_or_else(|_| "{}".to_string()),
    }
}

/// Parses `args` into the tool's arguments and runs it. A parse failure becomes
/// [`ToolError::InvalidArguments`] naming the failing field, so the model can fix its call.
pub fn dispatch<T: Tool>(args: &str, context: &Context) -> Result<ToolOutput, ToolError> {
    let args: T::Args =
        serde_json::from_str(args).map_err(|e| ToolError::InvalidArguments(e.to_string()))?;
    let out = T::run(args, context)?;
    Ok(ToolOutput {
        title: out.title,
        output: out.output,
        metadata: out.metadata.to_string(),
        attachments: out.attachments,
    })
}
