//! `ward mcp serve` driven by MCP clients nobody here wrote: the official MCP Python
//! SDK (`mcp` on PyPI, in tests/clients/mcp-python, installed by scripts/setup.sh)
//! over stdio and streamable HTTP, with and without elicitation, on the 2026-07-28
//! protocol and on the handshake-era one ([`python`]); the MCP inspector's CLI from
//! npm ([`inspector`]); hostile plugins served over MCP ([`hostile`]); and careless or
//! hostile HTTP clients against the guard ([`guard`]).

mod guard;
mod hostile;
mod inspector;
mod python;

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdout};
use ward_tests::polyglot::repo_root;
use ward_tests::{Project, ward_binary};

/// The Python of the client's virtual environment.
fn python() -> PathBuf {
    let python = repo_root().join("tests/clients/mcp-python/.venv/bin/python");
    assert!(
        python.is_file(),
        "the MCP Python SDK is missing: run scripts/setup.sh"
    );
    python
}

/// The environment `ward` runs with in `p` (isolated home, data and cache).
fn ward_env(p: &Project) -> serde_json::Map<String, Value> {
    let ward = p.ward();
    let mut env = serde_json::Map::new();
    for (key, value) in ward.get_envs() {
        if let Some(value) = value {
            env.insert(
                key.to_string_lossy().into_owned(),
                Value::String(value.to_string_lossy().into_owned()),
            );
        }
    }
    env
}

/// How the Python client starts `ward mcp serve ARGS` in `p` over stdio.
fn stdio(p: &Project, args: &[&str]) -> Value {
    p.trust();
    let mut all = vec!["mcp", "serve"];
    all.extend_from_slice(args);
    json!({
        "command": ward_binary(),
        "args": all,
        "env": ward_env(p),
        "cwd": p.root,
    })
}

/// Runs the Python client with `plan` (see tests/clients/mcp-python/drive.py) and
/// returns its record.
async fn drive(plan: Value) -> Value {
    let script = repo_root().join("tests/clients/mcp-python/drive.py");
    let mut cmd = tokio::process::Command::new(python());
    cmd.arg(script)
        .arg(plan.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let out = tokio::time::timeout(Duration::from_secs(180), cmd.output())
        .await
        .expect("the Python client finished within 180 s")
        .expect("run python");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "client failed:\n{stderr}\n{stdout}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"))
}

/// The tool names of a `list` step's result.
fn names(result: &Value) -> Vec<String> {
    result["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_string())
        .collect()
}

/// The text of a call's result.
fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .map(|c| {
            c.iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// A `ward mcp serve --transport http --port 0` process; killed on drop.
pub struct Served {
    child: Child,
    _stdout: BufReader<ChildStdout>,
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// The port.
    pub port: u16,
}

impl Served {
    /// Starts the server in `p` with `args` and `env`, and waits for its address.
    pub async fn start(p: &Project, args: &[&str], env: &[(&str, &str)]) -> Served {
        let mut cmd = tokio::process::Command::from(p.ward());
        cmd.args(["mcp", "serve", "--transport", "http", "--port", "0"])
            .args(args)
            .env_remove("WARD_MCP_TOKEN")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn ward mcp serve");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let read = async {
            let mut line = String::new();
            loop {
                line.clear();
                if stdout.read_line(&mut line).await.expect("read stdout") == 0 {
                    panic!("ward mcp serve exited before listening");
                }
                if let Some(u) = line.trim().strip_prefix("ward mcp serve: listening on ") {
                    return u.to_string();
                }
            }
        };
        let url = tokio::time::timeout(Duration::from_secs(60), read)
            .await
            .expect("ward mcp serve listens within 60 s");
        let port = url
            .trim_end_matches("/mcp")
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .expect("port");
        Served {
            child,
            _stdout: stdout,
            url,
            port,
        }
    }

    /// Whether the process still runs.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// `POST /mcp` with exactly `headers` (and `Host: 127.0.0.1:PORT` unless one is
    /// given) and `body`, over a plain socket so nothing is added or fixed on the
    /// way; returns the status and the raw answer.
    pub async fn post(&self, headers: &[&str], body: &[u8]) -> (u16, String) {
        ward_tests::http::raw_request(self.port, "POST", "/mcp", headers, body).await
    }
}
