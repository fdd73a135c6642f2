//! A tiny HTTP/1.1 server on 127.0.0.1 for tests: `/hello` answers 200 "hello",
//! `/redirect?to=URL` answers 302 to URL, anything else 404. It counts requests so a
//! test can prove a refused request never reached it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A running server; it stops when the runtime that started it does.
pub struct TestServer {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// The port.
    pub port: u16,
    hits: Arc<AtomicUsize>,
}

impl TestServer {
    /// Starts a server on an ephemeral loopback port.
    pub async fn start() -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let hits = Arc::new(AtomicUsize::new(0));
        let counter = hits.clone();
        tokio::spawn(async move {
            while let Ok((mut sock, _)) = listener.accept().await {
                let counter = counter.clone();
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 8192];
                    let n = sock.read(&mut buf).await.unwrap_or(0);
                    counter.fetch_add(1, Ordering::SeqCst);
                    let req = String::from_utf8_lossy(&buf[..n]);
                    let path = req.split_whitespace().nth(1).unwrap_or("/");
                    let response = if path == "/hello" {
                        "HTTP/1.1 200 OK\r\ncontent-length: 5\r\nconnection: close\r\n\r\nhello"
                            .to_string()
                    } else if let Some(to) = path.strip_prefix("/redirect?to=") {
                        format!(
                            "HTTP/1.1 302 Found\r\nlocation: {to}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                        )
                    } else {
                        "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                            .to_string()
                    };
                    let _ = sock.write_all(response.as_bytes()).await;
                    let _ = sock.shutdown().await;
                });
            }
        });
        TestServer {
            base: format!("http://127.0.0.1:{port}"),
            port,
            hits,
        }
    }

    /// Requests served so far.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}
