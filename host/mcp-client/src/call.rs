//! Asking a connected server: its tools (each checked on its own, so one unusable
//! tool does not cost the others) and one tool call, bounded by the server's timeout
//! — when it passes, the request is dropped, which sends `notifications/cancelled`.

use std::sync::Arc;
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{
    CallToolRequestParams, ClientRequest, JsonObject, ListToolsRequest, PaginatedRequestParams,
    ServerResult, Tool,
};
use rmcp::service::{Peer, ServiceError};
use serde_json::Value;
use ward_provider::Attachment;

use crate::McpError;
use crate::server::{Shared, millis};
use crate::tool::McpTool;

/// Pages of `tools/list` read at most (a server that pages forever is cut off).
const MAX_PAGES: usize = 50;
/// Tools kept per server at most: every one is described to the model on every call,
/// so a server listing thousands would fill the context (the rest are reported).
const MAX_TOOLS: usize = 256;
/// How long a call that failed on a closed connection waits for the process's exit
/// status, so the error says why.
const CLOSE_GRACE: Duration = Duration::from_millis(300);

/// Lists the server's tools and makes them the ones on offer.
pub async fn refresh_tools(shared: &Arc<Shared>, peer: &Peer<RoleClient>) -> Result<(), McpError> {
    let mut tools: Vec<Arc<McpTool>> = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let mut params = PaginatedRequestParams::default();
        params.cursor = cursor.take();
        let request = ClientRequest::ListToolsRequest(ListToolsRequest {
            method: Default::default(),
            params: Some(params),
            extensions: Default::default(),
        });
        let answer = tokio::time::timeout(shared.list_timeout, peer.send_request(request))
            .await
            .map_err(|_| McpError::Timeout {
                server: shared.name.clone(),
                what: "`tools/list`".into(),
                ms: millis(shared.list_timeout),
            })?
            .map_err(|e| service_error(shared, "`tools/list`", e))?;
        // A list whose every tool is well formed arrives typed; otherwise as JSON, and
        // each tool is read on its own.
        let (listed, next) = match answer {
            ServerResult::ListToolsResult(r) => (
                r.tools.into_iter().map(Ok).collect::<Vec<_>>(),
                r.next_cursor,
            ),
            ServerResult::CustomResult(raw) => read_raw_list(&raw.0),
            _ => {
                return Err(McpError::Protocol {
                    server: shared.name.clone(),
                    message: "answered `tools/list` with something that is not a tool list".into(),
                });
            }
        };
        for tool in listed {
            if tools.len() == MAX_TOOLS {
                shared.problems.note(format!(
                    "it lists more than {MAX_TOOLS} tools; only the first {MAX_TOOLS} are offered"
                ));
                break;
            }
            match tool.and_then(checked) {
                Ok(tool) => {
                    let offered = McpTool::new(shared.clone(), tool);
                    if tools
                        .iter()
                        .any(|t| t.offered_name() == offered.offered_name())
                    {
                        shared.problems.note(format!(
                            "two tools are offered as `{}`; the second was left out",
                            offered.offered_name()
                        ));
                    } else {
                        tools.push(Arc::new(offered));
                    }
                }
                Err(problem) => shared.problems.note(problem.to_string()),
            }
        }
        if tools.len() == MAX_TOOLS {
            break;
        }
        match next {
            Some(c) if !c.is_empty() => cursor = Some(c),
            _ => break,
        }
    }
    if let Ok(mut current) = shared.tools.write() {
        *current = tools;
    }
    Ok(())
}

/// Why a listed tool is not offered (noted among the server's problems). A tool's
/// name is cut to 80 characters.
#[derive(Debug, thiserror::Error)]
enum LeftOut {
    /// The answer has no tool list at all.
    #[error("answered `tools/list` without a `tools` array")]
    NoToolsArray,
    /// The tool's `inputSchema` is missing or not an object.
    #[error("tool `{name}` was left out: its inputSchema is not a JSON object")]
    SchemaNotObject {
        /// The tool.
        name: String,
    },
    /// The tool does not read as an MCP tool.
    #[error("tool `{name}` was left out: {reason}")]
    Unreadable {
        /// The tool.
        name: String,
        /// Why.
        reason: serde_json::Error,
    },
    /// The tool's arguments are described as something other than an object.
    #[error("tool `{name}` was left out: its inputSchema describes `{found}`, not an object")]
    NotAnObject {
        /// The tool.
        name: String,
        /// The schema's `type`.
        found: Value,
    },
}

/// The tools of a `tools/list` answer that did not parse as a whole: each one that
/// does, and a problem for each that does not.
fn read_raw_list(raw: &Value) -> (Vec<Result<Tool, LeftOut>>, Option<String>) {
    let Some(list) = raw.get("tools").and_then(Value::as_array) else {
        return (vec![Err(LeftOut::NoToolsArray)], None);
    };
    let tools = list
        .iter()
        .map(|t| {
            let name = t.get("name").and_then(Value::as_str).unwrap_or("(unnamed)");
            let name: String = name.chars().take(80).collect();
            if !t.get("inputSchema").is_some_and(Value::is_object) {
                return Err(LeftOut::SchemaNotObject { name });
            }
            serde_json::from_value::<Tool>(t.clone())
                .map_err(|reason| LeftOut::Unreadable { name, reason })
        })
        .collect();
    let next = raw
        .get("nextCursor")
        .and_then(Value::as_str)
        .map(str::to_string);
    (tools, next)
}

/// `tool` if its input schema describes an object (what a tool's arguments are).
fn checked(tool: Tool) -> Result<Tool, LeftOut> {
    match tool.input_schema.get("type") {
        None => Ok(tool),
        Some(Value::String(t)) if t == "object" => Ok(tool),
        Some(other) => Err(LeftOut::NotAnObject {
            name: tool.name.chars().take(80).collect(),
            found: other.clone(),
        }),
    }
}

/// Calls `tool` with `args` within the call timeout: the text for the model, or
/// what went wrong.
pub async fn call(
    shared: &Arc<Shared>,
    tool: &str,
    args: Value,
) -> Result<(String, Value, Vec<Attachment>), McpError> {
    let arguments: JsonObject = match args {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    };
    let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
    // Dropping the request on timeout sends `notifications/cancelled` (rmcp's guard).
    let result = request(shared, &format!("`{tool}`"), |peer| async move {
        peer.call_tool(params).await
    })
    .await?;
    let value = serde_json::to_value(&result).unwrap_or(Value::Null);
    let text = render(&value);
    if result.is_error == Some(true) {
        return Err(McpError::Protocol {
            server: shared.name.clone(),
            message: format!("`{tool}` failed: {text}"),
        });
    }
    let metadata = serde_json::json!({
        "mcp": { "server": shared.name, "tool": tool },
        "structuredContent": value.get("structuredContent").cloned().unwrap_or(Value::Null),
    });
    Ok((text, metadata, images(&value)))
}

/// The result's `image` blocks as attachments (`data:` URLs of their base64 data):
/// the loop judges them by their bytes and stores them like a `read` of an image,
/// so an image-capable model sees them and a text-only one gets the note. A block
/// with no data, or data that is not plain base64 text, is left to the text's
/// `[image …]` mention.
fn images(result: &Value) -> Vec<Attachment> {
    result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("image"))
        .filter_map(|block| {
            let data = block.get("data").and_then(Value::as_str)?;
            let mime = block.get("mimeType").and_then(Value::as_str).unwrap_or("");
            // The declared type goes into the URL only if it is a plain media type: it
            // is the server's text, and the bytes decide the type anyway.
            let mime_ok = !mime.is_empty()
                && mime
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"/+.-".contains(&b));
            let mime = if mime_ok {
                mime
            } else {
                "application/octet-stream"
            };
            let base64 = data.bytes().all(|b| {
                b.is_ascii_alphanumeric() || b"+/=".contains(&b) || b.is_ascii_whitespace()
            });
            (base64 && !data.is_empty()).then(|| Attachment {
                mime: mime.to_string(),
                url: format!("data:{mime};base64,{data}"),
                filename: None,
            })
        })
        .collect()
}

/// A call result's content as text: text blocks as they are, other blocks described,
/// structured content when there is nothing else.
fn render(result: &Value) -> String {
    let mut parts: Vec<String> = Vec::new();
    for block in result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
        let mime = block.get("mimeType").and_then(Value::as_str).unwrap_or("?");
        match kind {
            "text" => parts.push(
                block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
            ),
            "image" | "audio" => parts.push(format!("[{kind} {mime}]")),
            "resource" => {
                let resource = block.get("resource").cloned().unwrap_or(Value::Null);
                match resource.get("text").and_then(Value::as_str) {
                    Some(text) => parts.push(text.to_string()),
                    None => parts.push(format!(
                        "[resource {}]",
                        resource.get("uri").and_then(Value::as_str).unwrap_or("?")
                    )),
                }
            }
            "resource_link" => parts.push(format!(
                "[resource link {}]",
                block.get("uri").and_then(Value::as_str).unwrap_or("?")
            )),
            other => parts.push(format!("[{other} content]")),
        }
    }
    if parts.is_empty()
        && let Some(structured) = result.get("structuredContent")
    {
        return structured.to_string();
    }
    parts.join("\n")
}

/// Sends one request (`what`, as the user would name it) to the server within the
/// call timeout: the same checks and the same failures for a tool call, a prompt and
/// a resource.
pub(crate) async fn request<T, Fut>(
    shared: &Arc<Shared>,
    what: &str,
    send: impl FnOnce(Peer<RoleClient>) -> Fut,
) -> Result<T, McpError>
where
    Fut: std::future::Future<Output = Result<T, ServiceError>>,
{
    if let Some(reason) = shared.closed_reason() {
        return Err(McpError::Closed {
            server: shared.name.clone(),
            reason,
        });
    }
    let peer = shared.peer.get().ok_or_else(|| McpError::Closed {
        server: shared.name.clone(),
        reason: "it has not started".into(),
    })?;
    let result = tokio::time::timeout(shared.call_timeout, send(peer.clone()))
        .await
        .map_err(|_| McpError::Timeout {
            server: shared.name.clone(),
            what: what.to_string(),
            ms: millis(shared.call_timeout),
        })?;
    match result {
        Ok(r) => Ok(r),
        Err(e) => {
            // The transport's end arrives before the reason it ended (the process's
            // exit, its last words): wait a moment for the reason to be known.
            if matches!(
                e,
                ServiceError::TransportClosed | ServiceError::TransportSend(_)
            ) {
                tokio::time::sleep(CLOSE_GRACE).await;
            }
            Err(service_error(shared, what, e))
        }
    }
}

/// What an rmcp failure of request `what` means for the user.
fn service_error(shared: &Arc<Shared>, what: &str, e: ServiceError) -> McpError {
    let server = shared.name.clone();
    match e {
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
            let reason = shared
                .closed_reason()
                .unwrap_or_else(|| "the connection closed".into());
            shared.close(reason.clone());
            McpError::Closed { server, reason }
        }
        ServiceError::McpError(data) => McpError::Protocol {
            server,
            message: format!("{what}: error {}: {}", data.code.0, data.message),
        },
        ServiceError::Timeout { timeout } => McpError::Timeout {
            server,
            what: "a request".into(),
            ms: millis(timeout),
        },
        other => McpError::Protocol {
            server,
            message: format!("{what}: {other}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_render_as_text() {
        let v = serde_json::json!({"content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "data": "xx", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "a://b", "text": "inside"}}
        ]});
        assert_eq!(render(&v), "hello\n[image image/png]\ninside");
        let s = serde_json::json!({"content": [], "structuredContent": {"a": 1}});
        assert_eq!(render(&s), "{\"a\":1}");
    }

    #[test]
    fn unusable_tools_are_left_out_one_by_one() {
        let raw = serde_json::json!({"tools": [
            {"name": "good", "inputSchema": {"type": "object"}},
            {"name": "bad", "inputSchema": "string"},
        ]});
        let (tools, next) = read_raw_list(&raw);
        assert!(next.is_none());
        assert!(tools[0].is_ok());
        let Err(problem) = &tools[1] else {
            panic!("`bad` was offered");
        };
        assert!(
            matches!(problem, LeftOut::SchemaNotObject { name } if name == "bad"),
            "{problem}"
        );
        assert_eq!(
            problem.to_string(),
            "tool `bad` was left out: its inputSchema is not a JSON object"
        );
        let (tools, _) = read_raw_list(&serde_json::json!({"tool": []}));
        assert!(matches!(tools[..], [Err(LeftOut::NoToolsArray)]));
        let tool: Tool = serde_json::from_value(serde_json::json!(
            {"name": "s", "inputSchema": {"type": "string"}}
        ))
        .expect("a tool");
        assert!(matches!(checked(tool), Err(LeftOut::NotAnObject { .. })));
    }

    #[test]
    fn image_blocks_become_data_url_attachments() {
        let v = serde_json::json!({"content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "data": "iVBORw0K", "mimeType": "image/png"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png;x=\"1\""},
            {"type": "image", "data": "not base64!", "mimeType": "image/png"},
            {"type": "image", "mimeType": "image/png"}
        ]});
        let urls: Vec<String> = images(&v).into_iter().map(|a| a.url).collect();
        assert_eq!(
            urls,
            [
                "data:image/png;base64,iVBORw0K",
                "data:application/octet-stream;base64,AAAA"
            ]
        );
    }
}
