//! The scripted server's HTTP/1.1 side: read one request (headers, `content-length`
//! body), record it, and answer with the next turn rendered as SSE. Hand-written so a
//! test controls every byte, including a connection dropped mid-stream.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::render::render;
use super::{Fault, Recorded, Script, Turn, Wire};

pub(super) async fn serve(
    listener: TcpListener,
    script: Arc<Mutex<Script>>,
    requests: Arc<Mutex<Vec<Recorded>>>,
) {
    while let Ok((sock, _)) = listener.accept().await {
        // The reply is written in small pieces on purpose; without NODELAY, Nagle's
        // algorithm and the client's delayed ACK add ~40 ms to every response.
        let _ = sock.set_nodelay(true);
        let (script, requests) = (script.clone(), requests.clone());
        tokio::spawn(async move {
            let _ = handle(sock, script, requests).await;
        });
    }
}

async fn handle(
    mut sock: TcpStream,
    script: Arc<Mutex<Script>>,
    requests: Arc<Mutex<Vec<Recorded>>>,
) -> std::io::Result<()> {
    let Some(recorded) = read_request(&mut sock).await? else {
        return Ok(());
    };
    let wire = recorded.wire;
    let turn = script.lock().ok().and_then(|mut s| s.next(&recorded));
    if let Ok(mut r) = requests.lock() {
        r.push(recorded);
    }
    let Some(wire) = wire else {
        return respond_status(&mut sock, 404, "{\"error\":\"unknown path\"}", None).await;
    };
    match turn {
        None => {
            respond_status(
                &mut sock,
                500,
                "{\"error\":{\"message\":\"the script has no more turns\"}}",
                None,
            )
            .await
        }
        Some(Turn::Reply { items, usage }) => {
            start_stream(&mut sock).await?;
            write_slowly(&mut sock, render(wire, &items, usage).as_bytes()).await
        }
        Some(Turn::Paced { items, pause }) => {
            start_stream(&mut sock).await?;
            let body = render(wire, &items, Default::default());
            // One server-sent event at a time: each text item is one delta.
            for piece in body.split_inclusive("\n\n") {
                sock.write_all(piece.as_bytes()).await?;
                sock.flush().await?;
                tokio::time::sleep(pause).await;
            }
            sock.shutdown().await
        }
        Some(Turn::Raw(body)) => {
            start_stream(&mut sock).await?;
            write_slowly(&mut sock, body.as_bytes()).await
        }
        Some(Turn::Fault(fault)) => match fault {
            Fault::RateLimited { retry_after } => {
                let body = "{\"error\":{\"type\":\"rate_limit_error\",\"message\":\"Rate limit reached\"}}";
                respond_status(&mut sock, 429, body, retry_after.as_deref()).await
            }
            Fault::Status { code, body } => respond_status(&mut sock, code, &body, None).await,
            Fault::CutMidToolCall(items) => {
                start_stream(&mut sock).await?;
                let full = render(wire, &items, Default::default());
                // Cut inside the first tool call's argument stream: after the first half
                // of the arguments has been sent, before the second.
                let cut = cut_point(wire, &full).unwrap_or(full.len() / 2);
                write_slowly(&mut sock, &full.as_bytes()[..cut]).await?;
                sock.shutdown().await
            }
            Fault::Hang => {
                start_stream(&mut sock).await?;
                tokio::time::sleep(Duration::from_secs(3600)).await;
                Ok(())
            }
            Fault::MalformedSse => {
                start_stream(&mut sock).await?;
                write_slowly(&mut sock, b"data: {\"choices\": [this is not json\n\n").await?;
                sock.shutdown().await
            }
        },
    }
}

/// Where to cut a rendered stream so it ends inside a tool call's arguments.
fn cut_point(wire: Wire, full: &str) -> Option<usize> {
    let marker = match wire {
        Wire::ChatCompletions => "\"arguments\":\"",
        Wire::Responses => "response.function_call_arguments.delta",
        Wire::Anthropic => "input_json_delta",
    };
    let first = full.find(marker)?;
    // The end of the event carrying the first half of the arguments.
    let from = match wire {
        // The first `arguments` is the empty opening delta; skip to the next one.
        Wire::ChatCompletions => {
            first + marker.len() + full[first + marker.len()..].find(marker)?
        }
        _ => first,
    };
    full[from..].find("\n\n").map(|e| from + e + 2)
}

async fn read_request(sock: &mut TcpStream) -> std::io::Result<Option<Recorded>> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let header_end = loop {
        let n = sock.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..header_end]).into_owned();
    let mut lines = head.split("\r\n");
    let path = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap_or("/")
        .to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < header_end + length {
        let n = sock.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    // Parsed when a test asks for it (`ScriptedLlm::requests`), so serving a request
    // costs the benchmarks nothing that the real provider's work would not.
    let raw = buf[header_end..].to_vec();
    let wire = if path.ends_with("/chat/completions") {
        Some(Wire::ChatCompletions)
    } else if path.ends_with("/responses") {
        Some(Wire::Responses)
    } else if path.ends_with("/messages") {
        Some(Wire::Anthropic)
    } else {
        None
    };
    Ok(Some(Recorded {
        wire,
        path,
        headers,
        body: serde_json::Value::Null,
        raw,
    }))
}

async fn start_stream(sock: &mut TcpStream) -> std::io::Result<()> {
    // No content-length: the body ends when the connection closes.
    sock.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n")
        .await
}

/// Writes in small pieces so clients see events split across reads.
async fn write_slowly(sock: &mut TcpStream, bytes: &[u8]) -> std::io::Result<()> {
    for piece in bytes.chunks(97) {
        sock.write_all(piece).await?;
        sock.flush().await?;
    }
    sock.shutdown().await
}

async fn respond_status(
    sock: &mut TcpStream,
    code: u16,
    body: &str,
    retry_after: Option<&str>,
) -> std::io::Result<()> {
    let reason = match code {
        400 => "Bad Request",
        401 => "Unauthorized",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Error",
    };
    let extra = retry_after
        .map(|r| format!("retry-after: {r}\r\n"))
        .unwrap_or_default();
    let head = format!(
        "HTTP/1.1 {code} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{extra}connection: close\r\n\r\n",
        body.len()
    );
    sock.write_all(head.as_bytes()).await?;
    sock.write_all(body.as_bytes()).await?;
    sock.shutdown().await
}
