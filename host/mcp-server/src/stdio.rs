//! The stdio transport: newline-delimited JSON-RPC on standard input and output, as
//! an MCP client that starts `ward mcp serve` speaks it.
//!
//! It is rmcp's line transport with one change, the decoding of the two requests a
//! client sends over and over. rmcp decodes every message as its untagged
//! `JsonRpcMessage` of an untagged `ClientRequest`: serde buffers the message and
//! tries the request types one after another until one fits, a dozen for a
//! `tools/call` — an eighth of a no-op call's CPU in `ward mcp serve`'s profile. Here
//! the method is read first, and a `tools/call` or `tools/list` is decoded straight
//! into its own type: the same value rmcp's decoding gives (the untagged enums take
//! the first variant that fits, and only these types accept these methods). Any
//! other message, or one of these that does not fit its type, is decoded by rmcp's
//! types as before, with rmcp's answers to bad input: a line that is not JSON is
//! ignored; JSON that is not a message is answered with "Invalid request", except a
//! notification outside the protocol (an editor's LSP chatter), which is ignored; a
//! line over [`MAX_LINE`] is dropped whole.

use std::borrow::Cow;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequest, ClientJsonRpcMessage, ClientRequest, ErrorData, JsonRpcMessage,
    JsonRpcRequest, ListToolsRequest, ServerJsonRpcMessage,
};
use rmcp::transport::Transport;
use rmcp::{RoleServer, ServiceExt};
use serde::Deserialize;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

use crate::McpServeError;
use crate::handler::Server;

/// The longest line (one message) read; longer ones are dropped. rmcp's limit, so
/// what its HTTP transport accepts is accepted here too.
pub const MAX_LINE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// A UTF-8 byte order mark, which JSON parsers may ignore (RFC 8259 §8.1).
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Newline-delimited JSON-RPC over a reader and a writer.
pub struct Lines<R, W> {
    read: BufReader<R>,
    /// The line being read; a read cancelled mid-line resumes it.
    line: Vec<u8>,
    /// The rest of an oversized line is being skipped.
    discarding: bool,
    /// `None` once closed.
    write: Arc<tokio::sync::Mutex<Option<W>>>,
    /// The answer to a line that was not a message, being written. Finished before
    /// the next line is read: a client sending junk faster than it reads the answers
    /// is slowed down rather than answered from an ever longer queue.
    answering: Option<Pin<Box<dyn Future<Output = std::io::Result<()>> + Send>>>,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Lines<R, W> {
    /// The transport over `read` and `write`.
    pub fn new(read: R, write: W) -> Self {
        Lines {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            write: Arc::new(tokio::sync::Mutex::new(Some(write))),
            answering: None,
        }
    }

    /// Reads up to the end of the next line into `self.line`; `false` at the end of
    /// the input or on a read error. Cancel-safe: what was read stays in `self.line`
    /// or in the buffer.
    async fn read_line(&mut self) -> bool {
        loop {
            let available = match self.read.fill_buf().await {
                Ok([]) => return false,
                Ok(available) => available,
                Err(e) => {
                    tracing::error!("reading standard input: {e}");
                    return false;
                }
            };
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            let oversized = self.line.len().saturating_add(take) > MAX_LINE;
            if !self.discarding && !oversized {
                self.line.extend_from_slice(&available[..take]);
            }
            self.read.consume(take);
            if oversized && !self.discarding {
                tracing::error!("a message over {MAX_LINE} bytes was dropped");
                self.line.clear();
                self.discarding = true;
            }
            if newline.is_some() {
                if !self.discarding {
                    return true;
                }
                self.discarding = false;
            }
        }
    }
}

impl<R, W> Transport<RoleServer> for Lines<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = self.write.clone();
        async move {
            let mut bytes = serde_json::to_vec(&item)?;
            bytes.push(b'\n');
            let mut write = write.lock().await;
            let Some(write) = write.as_mut() else {
                return Err(std::io::ErrorKind::NotConnected.into());
            };
            write.write_all(&bytes).await?;
            write.flush().await
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            // Kept in `self` until written whole: `receive` may be cancelled at any
            // await, and half an answer would corrupt the stream.
            if let Some(answer) = &mut self.answering {
                let sent = answer.as_mut().await;
                self.answering = None;
                if sent.is_err() {
                    return None;
                }
            }
            if !self.read_line().await {
                return None;
            }
            let line = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let decoded = decode(line);
            self.line.clear();
            match decoded {
                Ok(message) => return Some(message),
                Err(Unread::Ignored) => {}
                Err(Unread::Invalid) => {
                    let answer = ServerJsonRpcMessage::error(
                        ErrorData::invalid_request("Invalid request", None),
                        None,
                    );
                    self.answering = Some(Box::pin(self.send(answer)));
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        drop(self.write.lock().await.take());
        Ok(())
    }
}

/// Why a line held no message.
#[derive(Debug, PartialEq, Eq)]
enum Unread {
    /// Nothing to act on or answer.
    Ignored,
    /// JSON, but not a message: answered with "Invalid request".
    Invalid,
}

/// The message on `line` (without its line end).
fn decode(line: &[u8]) -> Result<ClientJsonRpcMessage, Unread> {
    let line = line.strip_prefix(BOM).unwrap_or(line);
    if line.is_empty() {
        return Err(Unread::Ignored);
    }
    if let Some(message) = decode_frequent(line) {
        return Ok(message);
    }
    match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        Ok(message) => Ok(message),
        Err(e) if matches!(e.classify(), serde_json::error::Category::Data) => {
            if foreign_notification(line) {
                Err(Unread::Ignored)
            } else {
                tracing::debug!("not an MCP message: {e}");
                Err(Unread::Invalid)
            }
        }
        Err(e) => {
            // Not JSON: there is no id to answer, and answering garbage can start an
            // echo storm with a peer that does the same (rmcp and the other SDKs
            // ignore it too).
            tracing::debug!("ignoring a line that is not JSON: {e}");
            Err(Unread::Ignored)
        }
    }
}

/// The method and id of a message, read without decoding the rest.
#[derive(Deserialize)]
struct Head<'a> {
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default)]
    id: Option<serde::de::IgnoredAny>,
}

/// A `tools/call` or `tools/list` request decoded straight into its type; `None` for
/// anything else, or one that does not fit (rmcp's decoding then says why).
fn decode_frequent(line: &[u8]) -> Option<ClientJsonRpcMessage> {
    let head: Head = serde_json::from_slice(line).ok()?;
    head.id?;
    let request = match head.method.as_deref()? {
        "tools/call" => {
            let r: JsonRpcRequest<CallToolRequest> = serde_json::from_slice(line).ok()?;
            JsonRpcRequest::new(r.id, ClientRequest::CallToolRequest(r.request))
        }
        "tools/list" => {
            let r: JsonRpcRequest<ListToolsRequest> = serde_json::from_slice(line).ok()?;
            JsonRpcRequest::new(r.id, ClientRequest::ListToolsRequest(r.request))
        }
        _ => return None,
    };
    Some(JsonRpcMessage::Request(request))
}

/// A notification whose method MCP does not define: ignored, as rmcp ignores it.
fn foreign_notification(line: &[u8]) -> bool {
    let Ok(head) = serde_json::from_slice::<Head>(line) else {
        return false;
    };
    let Some(method) = head.method.as_deref() else {
        return false;
    };
    let known_notification = MCP_NOTIFICATIONS.contains(&method);
    let known = known_notification || MCP_REQUESTS.contains(&method);
    (head.id.is_none() && !known) || (method.starts_with("notifications/") && !known_notification)
}

/// The request methods of MCP (2026-07-28 and the handshake-era versions).
const MCP_REQUESTS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "resources/templates/list",
    "subscriptions/listen",
    "tools/call",
    "tools/list",
    "completion/complete",
    "elicitation/create",
    "logging/setLevel",
    "roots/list",
    "sampling/createMessage",
];

/// The notification methods of MCP.
const MCP_NOTIFICATIONS: &[&str] = &[
    "notifications/cancelled",
    "notifications/initialized",
    "notifications/message",
    "notifications/progress",
    "notifications/prompts/list_changed",
    "notifications/resources/list_changed",
    "notifications/resources/updated",
    "notifications/roots/list_changed",
    "notifications/subscriptions/acknowledged",
    "notifications/tools/list_changed",
];

/// Serves one connection of `server` on standard input and output until it closes.
pub async fn serve_stdio(server: Arc<Server>) -> Result<(), McpServeError> {
    let handler = server.handler();
    let running = match pipes() {
        Some((input, output)) => handler.serve(Lines::new(input, output)).await,
        None => {
            let (input, output) = (tokio::io::stdin(), tokio::io::stdout());
            handler.serve(Lines::new(input, output)).await
        }
    }
    .map_err(|e| McpServeError::Start(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| McpServeError::Start(e.to_string()))?;
    Ok(())
}

/// Standard input and output as non-blocking pipes on the runtime's reactor, when both
/// are pipes (as an MCP client starts its servers). Tokio's `stdin()`/`stdout()` hand
/// every read and write to a blocking thread: two thread hand-offs per message, which
/// dominated a no-op call's round trip (`scripts/bench-mcp-serve.py`). Anything else
/// (a file, a terminal) is served through them.
#[cfg(unix)]
fn pipes() -> Option<(
    tokio::net::unix::pipe::Receiver,
    tokio::net::unix::pipe::Sender,
)> {
    use std::os::fd::AsFd;
    let input = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let output = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
    let input = tokio::net::unix::pipe::Receiver::from_owned_fd(input).ok()?;
    let output = tokio::net::unix::pipe::Sender::from_owned_fd(output).ok()?;
    Some((input, output))
}

#[cfg(not(unix))]
fn pipes() -> Option<(tokio::io::Stdin, tokio::io::Stdout)> {
    None
}

#[cfg(test)]
mod tests;
