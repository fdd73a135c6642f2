//! A scripted HTTP/1.1 server on 127.0.0.1 for provider tests.
//!
//! Each accepted connection reads one request, records it, and answers with
//! the next scripted [`Reply`]: the status line and headers are written by
//! hand, the body in small writes of varying size so the client sees events,
//! lines and UTF-8 characters split across reads.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// How the body is delimited on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `transfer-encoding: chunked`; closing early is a broken body.
    Chunked,
    /// No length at all: the body ends when the connection closes, so a cut
    /// looks like a normal end to the HTTP client.
    UntilClose,
}

/// What happens after the scripted body bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum After {
    /// Finish the body properly and close.
    End,
    /// Close the connection without finishing the body.
    Cut,
    /// Keep the connection open and send nothing more.
    Hang,
}

/// One scripted answer.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub framing: Framing,
    pub after: After,
}

impl Reply {
    /// A complete `text/event-stream` reply.
    pub fn sse(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Self::with_type(status, "text/event-stream", body)
    }

    /// A complete reply with the given content type.
    pub fn with_type(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            body: body.into(),
            framing: Framing::Chunked,
            after: After::End,
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    pub fn framing(mut self, framing: Framing) -> Self {
        self.framing = framing;
        self
    }

    pub fn after(mut self, after: After) -> Self {
        self.after = after;
        self
    }
}

/// A request as the server received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub path: String,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A running server; its base URL is `http://{addr}/v1`.
pub struct Server {
    pub base_url: String,
    pub requests: Arc<Mutex<Vec<Recorded>>>,
}

impl Server {
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

/// Starts a server answering connection N with `replies[N]`.
pub async fn serve(replies: Vec<Reply>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1");
    let addr = listener.local_addr().expect("local addr");
    let requests = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&requests);
    tokio::spawn(async move {
        for reply in replies {
            let Ok((socket, _)) = listener.accept().await else {
                return;
            };
            let log = Arc::clone(&log);
            // Each connection gets its own task so a hanging reply does not
            // block the next one.
            tokio::spawn(async move { answer(socket, reply, log).await });
        }
    });
    Server {
        base_url: format!("http://{addr}/v1"),
        requests,
    }
}

async fn answer(mut socket: TcpStream, reply: Reply, log: Arc<Mutex<Vec<Recorded>>>) {
    socket.set_nodelay(true).ok();
    let Some(request) = read_request(&mut socket).await else {
        return;
    };
    if let Ok(mut log) = log.lock() {
        log.push(request);
    }
    let mut head = format!("HTTP/1.1 {} {}\r\n", reply.status, reason(reply.status));
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    match reply.framing {
        Framing::Chunked => head.push_str("transfer-encoding: chunked\r\n"),
        Framing::UntilClose => head.push_str("connection: close\r\n"),
    }
    head.push_str("\r\n");
    if socket.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    // Write sizes cycle through 1..=29 bytes: small, uneven, deterministic.
    let mut rest = reply.body.as_slice();
    let mut size = 1;
    while !rest.is_empty() {
        let (piece, tail) = rest.split_at(size.min(rest.len()));
        rest = tail;
        size = size % 29 + 1;
        let framed = match reply.framing {
            Framing::Chunked => {
                [format!("{:x}\r\n", piece.len()).as_bytes(), piece, b"\r\n"].concat()
            }
            Framing::UntilClose => piece.to_vec(),
        };
        if socket.write_all(&framed).await.is_err() {
            return;
        }
    }
    match reply.after {
        After::End if reply.framing == Framing::Chunked => {
            socket.write_all(b"0\r\n\r\n").await.ok();
        }
        After::End | After::Cut => {}
        After::Hang => tokio::time::sleep(Duration::from_secs(3600)).await,
    }
    socket.shutdown().await.ok();
}

async fn read_request(socket: &mut TcpStream) -> Option<Recorded> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = socket.read(&mut chunk).await.ok().filter(|n| *n > 0)?;
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let path = lines.next()?.split(' ').nth(1)?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = socket.read(&mut chunk).await.ok().filter(|n| *n > 0)?;
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = String::from_utf8_lossy(&buf[head_end..head_end + length]).into_owned();
    Some(Recorded {
        path,
        headers,
        body,
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        529 => "Overloaded",
        _ => "Status",
    }
}
