//! `@modelcontextprotocol/server-everything` over stdio and over streamable HTTP: its
//! tools listed and called from the CLI and by the model; a tool list that changes
//! while a session runs.

use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn, tool_names};

use super::*;

#[test]
fn stdio_tools_are_listed_and_called() {
    let p = Project::new("mcp-everything");
    let server = npm_server("server-everything");
    append_config(&p, &local("everything", &[&server, "stdio"], ""));

    let list = p.run(&["tool", "list"], "").expect_ok();
    for tool in [
        "everything_echo",
        "everything_get-sum",
        "everything_get-env",
    ] {
        assert!(list.contains(tool), "{tool} is listed: {list}");
    }
    assert!(list.contains("(mcp everything)"), "{list}");

    let (ok, out) = tool_call(&p, "everything_echo", json!({"message": "hello mcp"}));
    assert!(ok, "{out}");
    assert!(out.contains("Echo: hello mcp"), "{out}");
    let (ok, out) = tool_call(&p, "everything_get-sum", json!({"a": 2, "b": 40}));
    assert!(ok && out.contains("42"), "{out}");

    let status = p.run(&["mcp", "list"], "").expect_ok();
    assert!(status.contains("everything  connected"), "{status}");
    assert!(status.contains("everything_echo"), "{status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_calls_an_mcp_tool_through_the_loop() {
    let p = Project::new("mcp-everything-loop");
    let llm = ScriptedLlm::start(vec![
        Turn::tool("c1", "everything_get-sum", json!({"a": 19, "b": 23})),
        Turn::text("The sum is in."),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    let server = npm_server("server-everything");
    append_config(&p, &local("everything", &[&server, "stdio"], ""));
    let out = p.run_async(&["run", "--yes", "add"], "").await.expect_ok();
    assert!(out.contains("The sum is in."), "{out}");
    let requests = llm.requests();
    let offered = tool_names(&requests[0].body);
    assert!(
        offered.iter().any(|t| t == "everything_echo") && offered.iter().any(|t| t == "read"),
        "MCP tools are offered beside Ward's own: {offered:?}"
    );
    assert!(tool_result(&requests, "c1").contains("42"));
}

/// server-everything's streamable HTTP mode on a free port of 127.0.0.1.
struct HttpServer {
    child: Child,
    port: u16,
}

impl HttpServer {
    fn start() -> HttpServer {
        Self::start_mode("streamableHttp")
    }

    /// The server in `mode` (`streamableHttp`, or `sse`: protocol 2024-11-05).
    fn start_mode(mode: &str) -> HttpServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("node")
            .arg("-r")
            .arg(fixture("bind_loopback.cjs"))
            .arg(npm_server("server-everything"))
            .arg(mode)
            .env("PORT", port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start server-everything over HTTP");
        let until = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < until, "server-everything did not listen");
            std::thread::sleep(Duration::from_millis(100));
        }
        HttpServer { child, port }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn streamable_http_tools_are_listed_and_called() {
    let server = HttpServer::start();
    let p = Project::new("mcp-everything-http");
    append_config(
        &p,
        &format!(
            "[mcp.remote]\ntype = \"remote\"\nurl = \"http://127.0.0.1:{}/mcp\"\nheaders = {{ X-Test = \"1\" }}\ntimeout = 30000\n",
            server.port
        ),
    );
    let list = p.run(&["tool", "list"], "").expect_ok();
    assert!(list.contains("remote_echo"), "{list}");
    let (ok, out) = tool_call(&p, "remote_echo", json!({"message": "over http"}));
    assert!(ok && out.contains("Echo: over http"), "{out}");
    let status = p.run(&["mcp", "list"], "").expect_ok();
    assert!(status.contains("remote  connected"), "{status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_tool_list_reaches_the_running_session() {
    let p = Project::new("mcp-list-changed");
    let llm = ScriptedLlm::start(vec![
        Turn::tool("c1", "probe_add_tool", json!({})),
        Turn::tool("c2", "probe_late", json!({})),
        Turn::text("done"),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    append_config(&p, &local("probe", &[&fixture("probe_server.mjs")], ""));
    let out = p.run_async(&["run", "--yes", "go"], "").await.expect_ok();
    assert!(out.contains("done"), "{out}");
    let requests = llm.requests();
    assert!(!tool_names(&requests[0].body).contains(&"probe_late".to_string()));
    // The list is read again when the server says it changed, within the same run.
    assert!(
        tool_names(&requests[2].body).contains(&"probe_late".to_string()),
        "{:?}",
        tool_names(&requests[2].body)
    );
    assert_eq!(tool_result(&requests, "c2"), "late tool answered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_is_a_slash_command() {
    let p = Project::new("mcp-prompt");
    let llm = ScriptedLlm::start(vec![Turn::text("sunny")]).await;
    llm.configure(&p, "openai-compatible");
    let server = npm_server("server-everything");
    append_config(&p, &local("everything", &[&server, "stdio"], ""));
    let commands = p.run(&["command", "list"], "").expect_ok();
    assert!(
        commands.contains("/everything:args-prompt  [mcp]"),
        "{commands}"
    );
    let out = p
        .run_async(
            &[
                "run",
                "--yes",
                "/everything:args-prompt Springfield Illinois",
            ],
            "",
        )
        .await
        .expect_ok();
    assert!(out.contains("sunny"), "{out}");
    let requests = llm.requests();
    let sent = requests[0].body["messages"].to_string();
    assert!(
        sent.contains("What's weather in Springfield, Illinois?"),
        "the prompt's text went to the model: {sent}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resource_is_attached_with_an_at_mention() {
    let p = Project::new("mcp-resource");
    let llm = ScriptedLlm::start(vec![Turn::text("read it")]).await;
    llm.configure(&p, "openai-compatible");
    let server = npm_server("server-everything");
    append_config(&p, &local("everything", &[&server, "stdio"], ""));
    // The document's first line, as the server's docs/architecture.md has it.
    let docs = std::path::Path::new(&server).parent().unwrap().join("docs");
    let expected = std::fs::read_to_string(docs.join("architecture.md")).unwrap();
    let first_line = expected.lines().next().unwrap().to_string();
    let out = p
        .run_async(
            &[
                "run",
                "--yes",
                "summarize @everything:demo://resource/static/document/architecture.md please",
            ],
            "",
        )
        .await
        .expect_ok();
    assert!(out.contains("read it"), "{out}");
    let sent = llm.requests()[0].body["messages"].to_string();
    assert!(
        sent.contains("Attached the MCP resource") && sent.contains(&first_line),
        "the resource's text went to the model: {sent}"
    );
}

#[test]
fn an_older_server_is_reached_over_http_and_sse() {
    let server = HttpServer::start_mode("sse");
    let p = Project::new("mcp-everything-sse");
    append_config(
        &p,
        &format!(
            "[mcp.old]\ntype = \"remote\"\nurl = \"http://127.0.0.1:{}/sse\"\ntimeout = 30000\n",
            server.port
        ),
    );
    let (ok, out) = tool_call(&p, "old_echo", json!({"message": "legacy"}));
    assert!(ok && out.contains("Echo: legacy"), "{out}");
    let status = p.run(&["mcp", "list"], "").expect_ok();
    assert!(status.contains("old  connected"), "{status}");
}
