//! JSON-RPC messages as lines on a local server's standard streams.
//!
//! Hand-written rather than rmcp's own async-rw transport because that one drops an
//! unparsable or oversized line with only a log record; here each is reported in the
//! server's problems (`ward mcp list` shows them, a failing call names them). A line
//! that is not JSON-RPC (a server logging to stdout) is skipped; a line longer than
//! [`MAX_MESSAGE`] ends the connection, since nothing after it can be trusted to be in
//! step and reading on would buffer without bound.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use std::sync::Weak;

use crate::changes::Changes;
use crate::server::Shared;

/// The largest message a server may send: 8 MiB (tool output beyond 50 KB is cut
/// before the model sees it anyway).
pub const MAX_MESSAGE: usize = 8 * 1024 * 1024;

/// The line buffer kept between lines at most (a longer line's is dropped after it).
const KEPT_LINE_BUFFER: usize = 64 * 1024;

/// How much of an unparsable line a problem report quotes.
const QUOTE: usize = 120;

/// The transport over a process's output (`R`) and input (`W`).
pub struct LineTransport<R, W> {
    reader: BufReader<R>,
    writer: Arc<Mutex<Option<W>>>,
    line: Vec<u8>,
    shared: Weak<Shared>,
    max: usize,
    changes: Option<Arc<Changes>>,
}

/// The longest line looked at as a possible change notification before it is
/// decoded (one has no parameters: a few dozen bytes).
const PEEKED_LINE: usize = 1024;

/// What a line is, read without decoding (or allocating) the rest of it.
#[derive(serde::Deserialize)]
struct Peek<'a> {
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
    id: Option<serde::de::IgnoredAny>,
}

/// Whether `line` is a notification announcing a change `changes` has pending.
fn already_announced(changes: &Changes, line: &[u8]) -> bool {
    line.len() <= PEEKED_LINE
        && serde_json::from_slice::<Peek<'_>>(line).is_ok_and(|peek| {
            peek.id.is_none() && peek.method.is_some_and(|m| changes.announced(&m))
        })
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> LineTransport<R, W> {
    /// A transport reading `reader`, writing `writer`, reporting problems to the
    /// server `shared` describes.
    pub fn new(reader: R, writer: W, shared: Weak<Shared>) -> Self {
        LineTransport {
            reader: BufReader::new(reader),
            writer: Arc::new(Mutex::new(Some(writer))),
            line: Vec::new(),
            shared,
            max: MAX_MESSAGE,
            changes: None,
        }
    }

    /// The same, dropping the change notifications `changes` has pending as soon as
    /// they are read (the [`crate::changes::Coalescing`] around it decides the rest).
    pub(crate) fn coalescing(mut self, changes: Arc<Changes>) -> Self {
        self.changes = Some(changes);
        self
    }

    /// Empties the line buffer, dropping it when a long line made it large.
    fn reuse_line(&mut self) {
        if self.line.capacity() > KEPT_LINE_BUFFER {
            self.line = Vec::new();
        } else {
            self.line.clear();
        }
    }

    /// Reads up to the end of one line into `self.line`: `Ok(false)` at the end of the
    /// output, `Err(len)` when it outgrew the limit (at `len` bytes). Cancel-safe: rmcp
    /// polls `receive` inside a `select!`, and a read cancelled mid-line leaves what it
    /// read in `self.line` for the next one (the caller takes the line once whole).
    async fn read_line(&mut self) -> Result<bool, usize> {
        loop {
            let available = match self.reader.fill_buf().await {
                Ok(a) => a,
                Err(_) => return Ok(false),
            };
            if available.is_empty() {
                return Ok(!self.line.is_empty());
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            if self.line.len() + take > self.max {
                return Err(self.line.len() + take);
            }
            self.line.extend_from_slice(&available[..take]);
            self.reader.consume(take);
            if newline.is_some() {
                return Ok(true);
            }
        }
    }
}

impl<R, W> Transport<RoleClient> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let writer = self.writer.clone();
        async move {
            let mut bytes = serde_json::to_vec(&item)?;
            bytes.push(b'\n');
            let mut writer = writer.lock().await;
            let w = writer
                .as_mut()
                .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotConnected))?;
            w.write_all(&bytes).await?;
            w.flush().await
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        loop {
            match self.read_line().await {
                Ok(true) => {}
                Ok(false) => return None,
                Err(len) => {
                    let why = format!(
                        "it sent a message of more than {} MiB (at least {len} bytes); the connection was closed",
                        self.max / (1024 * 1024)
                    );
                    if let Some(shared) = self.shared.upgrade() {
                        shared.problems.note(why.clone());
                        // The reason the connection ended, before the process dies
                        // of the closed pipe and its exit status could claim it.
                        shared.close(why);
                    }
                    return None;
                }
            }
            // The line's buffer is kept for the next one (a server may send millions of
            // lines), unless an unusually long line made it large.
            let text = self.line.trim_ascii();
            let skipped = text.is_empty()
                || self
                    .changes
                    .as_ref()
                    .is_some_and(|c| already_announced(c, text));
            let parsed = (!skipped).then(|| serde_json::from_slice::<ServerJsonRpcMessage>(text));
            let problem = match parsed {
                None => None,
                Some(Ok(message)) => {
                    self.reuse_line();
                    return Some(message);
                }
                Some(Err(e)) => {
                    let shown: String = String::from_utf8_lossy(text).chars().take(QUOTE).collect();
                    Some(format!(
                        "sent something that is not a JSON-RPC message ({e}): {shown}"
                    ))
                }
            };
            self.reuse_line();
            if let Some(problem) = problem
                && let Some(shared) = self.shared.upgrade()
            {
                shared.problems.note(problem);
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Closing its input is how a stdio server is told to stop.
        drop(self.writer.lock().await.take());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use rmcp::RoleClient;
    use rmcp::transport::Transport;
    use tokio::io::AsyncWriteExt;

    use super::LineTransport;

    #[tokio::test]
    async fn a_receive_cancelled_mid_line_loses_nothing() {
        let (server, client) = tokio::io::duplex(1 << 12);
        let (client_read, client_write) = tokio::io::split(client);
        let (_server_read, mut server_write) = tokio::io::split(server);
        let mut lines = LineTransport::new(client_read, client_write, std::sync::Weak::new());
        server_write
            .write_all(br#"{"jsonrpc":"2.0","id":1,"#)
            .await
            .expect("write");
        // The service drops a pending `receive` whenever another branch of its
        // `select!` is ready: here, a timeout.
        let cancelled = tokio::time::timeout(
            Duration::from_millis(50),
            Transport::<RoleClient>::receive(&mut lines),
        )
        .await;
        assert!(cancelled.is_err(), "half a line is no message");
        server_write
            .write_all(b"\"result\":{}}\n")
            .await
            .expect("write");
        let message = tokio::time::timeout(
            Duration::from_secs(5),
            Transport::<RoleClient>::receive(&mut lines),
        )
        .await
        .expect("the whole line arrives")
        .expect("a message");
        let message = serde_json::to_value(message).expect("encode");
        assert_eq!(message["id"], 1, "{message}");
    }
}
