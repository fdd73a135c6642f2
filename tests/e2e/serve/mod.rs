//! `ward serve` driven over real HTTP: by the official OpenCode SDK from npm
//! ([`sdk`]), by hostile and careless clients ([`guard`], [`input`]), and by an SSE
//! client that reconnects mid-run ([`stream`]), and through the web page in a real
//! headless Chromium ([`browser`]).

mod browser;
mod files;
mod guard;
mod input;
mod opencode_cli;
mod sdk;
mod stream;
mod webdriver;

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdout};
use ward_tests::Project;

/// A `ward serve` process on an ephemeral loopback port; killed on drop.
pub struct Served {
    /// Killed on drop.
    child: Child,
    /// Held so the server's later lines have somewhere to go.
    _stdout: BufReader<ChildStdout>,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    /// The port.
    pub port: u16,
    /// The token it printed.
    pub token: String,
    /// The token file it named.
    pub token_file: String,
    /// What it wrote to standard error so far (also passed on to the test's).
    stderr: Arc<Mutex<String>>,
}

impl Served {
    /// Starts `ward serve --port 0 ARGS` in `p` with `env`, and waits for it to say
    /// where it listens.
    pub async fn start(p: &Project, args: &[&str], env: &[(&str, &str)]) -> Served {
        let mut cmd = tokio::process::Command::from(p.ward());
        cmd.args(["serve", "--port", "0"])
            .args(args)
            .env_remove("WARD_SERVER_TOKEN")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn ward serve");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let kept = stderr.clone();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                eprintln!("{line}");
                if let Ok(mut kept) = kept.lock() {
                    kept.push_str(&line);
                    kept.push('\n');
                }
            }
        });
        let (mut url, mut token, mut token_file) = (None, None, None);
        let read = async {
            let mut line = String::new();
            while url.is_none() || token.is_none() {
                line.clear();
                if stdout.read_line(&mut line).await.expect("read stdout") == 0 {
                    panic!("ward serve exited before listening");
                }
                if let Some(u) = line.trim().strip_prefix("ward serve: listening on ") {
                    url = Some(u.to_string());
                }
                if let Some(rest) = line.trim().strip_prefix("token: ") {
                    let (t, file) = rest.split_once(" (in ").expect("token line names its file");
                    token = Some(t.to_string());
                    token_file = Some(file.trim_end_matches(')').to_string());
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(60), read)
            .await
            .expect("ward serve listens within 60 s");
        let url = url.expect("url");
        let port = url
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .expect("port");
        Served {
            child,
            _stdout: stdout,
            url,
            port,
            token: token.expect("token"),
            token_file: token_file.expect("token file"),
            stderr,
        }
    }

    /// Stops the server as Ctrl-C or a service manager does (SIGTERM) and waits for it
    /// to exit; returns whether it exited cleanly.
    pub async fn terminate(mut self) -> bool {
        let pid = self.child.id().expect("the server is running").to_string();
        let sent = std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("run kill");
        assert!(sent.success(), "SIGTERM sent to {pid}");
        let status = tokio::time::timeout(Duration::from_secs(30), self.child.wait())
            .await
            .expect("ward serve stops within 30 s of SIGTERM")
            .expect("wait for ward serve");
        status.success()
    }

    /// What the server wrote to standard error so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// A new session (`POST /session` with no fields): its JSON and its id.
    pub async fn new_session(&self) -> (serde_json::Value, String) {
        let (status, body) = self.call("POST", "/session", Some("{}")).await;
        assert_eq!(status, 200, "{body}");
        let session: serde_json::Value = serde_json::from_str(&body).expect("session");
        let id = session["id"].as_str().expect("id").to_string();
        (session, id)
    }

    /// `POST /session/{id}/{route}` (`message` or `prompt_async`) with one text part;
    /// returns the status and body.
    pub async fn send_text(&self, id: &str, route: &str, text: &str) -> (u16, String) {
        let parts = serde_json::json!({ "parts": [{ "type": "text", "text": text }] });
        self.call(
            "POST",
            &format!("/session/{id}/{route}"),
            Some(&parts.to_string()),
        )
        .await
    }

    /// `METHOD path` with the token and a JSON `body`; returns the status and body.
    pub async fn call(&self, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
        let mut headers = vec![format!("Authorization: Bearer {}", self.token)];
        if body.is_some() {
            headers.push("Content-Type: application/json".into());
        }
        let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
        self.raw(method, path, &headers, body).await
    }

    /// `METHOD path` with exactly `headers` (and `Host: 127.0.0.1:PORT` unless one is
    /// given), over a plain socket so nothing is added or fixed on the way.
    pub async fn raw(
        &self,
        method: &str,
        path: &str,
        headers: &[&str],
        body: Option<&str>,
    ) -> (u16, String) {
        let body = body.unwrap_or("");
        let (status, text) =
            ward_tests::http::raw_request(self.port, method, path, headers, body.as_bytes()).await;
        let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
        (status, dechunk(&text, body))
    }
}

/// The body of a response, chunked transfer-encoding undone.
fn dechunk(response: &str, body: &str) -> String {
    let head = response
        .split("\r\n\r\n")
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    if !head.contains("transfer-encoding: chunked") {
        return body.to_string();
    }
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || after.len() < n {
            break;
        }
        out.push_str(&after[..n]);
        rest = after[n..].trim_start_matches("\r\n");
    }
    out
}

/// A project whose `read` calls the rules ask about, with `a.txt`, and the scripted
/// model server configured.
pub async fn project_asking_for_reads(
    name: &str,
    turns: Vec<ward_tests::llm::Turn>,
) -> (Project, ward_tests::llm::ScriptedLlm) {
    let p = Project::new(name);
    p.write("a.txt", "alpha\n");
    let llm = ward_tests::llm::ScriptedLlm::start(turns).await;
    llm.configure(&p, "openai-compatible");
    let toml = p.read("ward.toml");
    p.write(
        "ward.toml",
        &format!("{toml}[permission]\nread = \"ask\"\n"),
    );
    (p, llm)
}
