//! A static file server on 127.0.0.1 for tests (package indexes and archives): `GET
//! /PATH` answers the file at `ROOT/PATH`, anything else 404. It runs on its own
//! thread, so blocking tests can use it, and stops when dropped.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// A running file server.
pub struct FileServer {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    hits: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    port: u16,
}

impl FileServer {
    /// Serves the files under `root` on an ephemeral loopback port.
    pub fn start(root: PathBuf) -> FileServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind file server");
        let port = listener.local_addr().expect("addr").port();
        let hits = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (counter, stopped) = (hits.clone(), stop.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                counter.fetch_add(1, Ordering::SeqCst);
                let root = root.clone();
                std::thread::spawn(move || serve(conn, &root));
            }
        });
        FileServer {
            base: format!("http://127.0.0.1:{port}"),
            hits,
            stop,
            port,
        }
    }

    /// Requests served so far.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

impl Drop for FileServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn serve(mut conn: TcpStream, root: &std::path::Path) {
    let mut reader = BufReader::new(match conn.try_clone() {
        Ok(c) => c,
        Err(_) => return,
    });
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    // Skip the headers.
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) if line == "\r\n" || line == "\n" => break,
            Ok(_) => {}
        }
    }
    let mut parts = request_line.split_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let rel = path.trim_start_matches('/');
    let safe = !rel.split('/').any(|s| s == ".." || s.is_empty());
    let body = if method == "GET" && safe {
        std::fs::read(root.join(rel)).ok()
    } else {
        None
    };
    let _ = match body {
        Some(body) => conn
            .write_all(
                format!(
                    "HTTP/1.1 200 OK\r\ncontent-length: {}\r\ncontent-type: application/octet-stream\r\nconnection: close\r\n\r\n",
                    body.len()
                )
                .as_bytes(),
            )
            .and_then(|()| conn.write_all(&body)),
        None => conn.write_all(
            b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        ),
    };
    let _ = conn.flush();
}
