//! The HTTP transport's guard, attacked with a plain socket: a page of another site
//! (foreign `Origin`) and a rebinding domain (wrong `Host`) are refused before MCP
//! sees them; malformed JSON-RPC and an oversized body are answered with errors, and
//! the server goes on answering; a non-loopback bind needs a token.

use ward_tests::Project;

use super::Served;

/// A valid `tools/list` on the handshake-free protocol.
const LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#;

const JSON: [&str; 4] = [
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
    "MCP-Protocol-Version: 2026-07-28",
    "Mcp-Method: tools/list",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreign_origins_and_hosts_are_refused_and_bad_input_is_answered() {
    let p = Project::new("mcp-guard");
    p.install_test_plugin("noop");
    let mut served = Served::start(&p, &[], &[]).await;
    let with = |extra: &[&'static str]| {
        let mut h: Vec<&str> = JSON.to_vec();
        h.extend_from_slice(extra);
        h
    };
    // The baseline: a plain client gets the tools.
    let (status, body) = served.post(&with(&[]), LIST.as_bytes()).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"noop\""), "{body}");
    // Its own origin is fine too (a page the server itself would serve).
    let own = format!("Origin: http://127.0.0.1:{}", served.port);
    let own: &'static str = Box::leak(own.into_boxed_str());
    let (status, _) = served.post(&with(&[own]), LIST.as_bytes()).await;
    assert_eq!(status, 200);

    let (status, body) = served
        .post(&with(&["Origin: http://evil.example"]), LIST.as_bytes())
        .await;
    assert_eq!(status, 403, "{body}");
    assert!(!body.contains("noop"), "{body}");
    let (status, body) = served.post(&with(&["Origin: null"]), LIST.as_bytes()).await;
    assert_eq!(status, 403, "{body}");

    let rebinding = format!("Host: evil.example:{}", served.port);
    let rebinding: &'static str = Box::leak(rebinding.into_boxed_str());
    for host in [rebinding, "Host: 127.0.0.1:1", "Host: localhost"] {
        let (status, body) = served.post(&with(&[host]), LIST.as_bytes()).await;
        assert_eq!(status, 421, "{host}: {body}");
        assert!(!body.contains("noop"), "{body}");
    }

    // Malformed JSON-RPC: each an error answer, never a crash.
    for bad in [
        &b"{not json"[..],
        br#"{"jsonrpc":"2.0","id":2}"#,
        br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":7}}"#,
        br#"[1,2,3]"#,
        b"\xff\xfe\x00",
        b"",
    ] {
        let (status, body) = served.post(&with(&[]), bad).await;
        assert!(
            (400..500).contains(&status) || body.contains("\"error\""),
            "{:?}: {status} {body}",
            String::from_utf8_lossy(bad)
        );
        assert!(served.alive(), "died on {:?}", String::from_utf8_lossy(bad));
    }
    // An oversized body is refused while it is read, not buffered whole.
    let huge = vec![b' '; 5 * 1024 * 1024];
    let (status, _) = served.post(&with(&[]), &huge).await;
    assert_eq!(status, 413);

    // And the server still answers.
    let (status, body) = served.post(&with(&[]), LIST.as_bytes()).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"noop\""), "{body}");
    assert!(served.alive());
}

#[tokio::test]
async fn a_network_bind_needs_a_token() {
    let p = Project::new("mcp-token");
    let run = p
        .run_async(
            &[
                "mcp",
                "serve",
                "--transport",
                "http",
                "--port",
                "0",
                "--hostname",
                "0.0.0.0",
            ],
            "",
        )
        .await;
    let err = run.expect_err();
    assert!(err.contains("without a token"), "{err}");
    assert!(err.contains("WARD_MCP_TOKEN"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_token_only_requests_that_carry_it_are_served() {
    let p = Project::new("mcp-bearer");
    p.install_test_plugin("noop");
    let token = "0123456789abcdef0123";
    let served = Served::start(&p, &[], &[("WARD_MCP_TOKEN", token)]).await;
    let mut h: Vec<&str> = JSON.to_vec();
    let (status, body) = served.post(&h, LIST.as_bytes()).await;
    assert_eq!(status, 401, "{body}");
    assert!(
        body.contains("WWW-Authenticate: Bearer") || body.contains("www-authenticate: Bearer"),
        "{body}"
    );
    h.push("Authorization: Bearer wrong-token-wrong-token");
    let (status, _) = served.post(&h, LIST.as_bytes()).await;
    assert_eq!(status, 401);
    h.pop();
    h.push("Authorization: Bearer 0123456789abcdef0123");
    let (status, body) = served.post(&h, LIST.as_bytes()).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"noop\""), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_on_stdio_is_contained_and_the_server_answers_on() {
    use std::process::Stdio;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let p = Project::new("mcp-stdio-bad");
    p.install_test_plugin("noop");
    let mut cmd = tokio::process::Command::from(p.ward());
    cmd.args(["mcp", "serve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = cmd.spawn().expect("spawn ward mcp serve");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = async |line: &[u8]| {
        stdin.write_all(line).await.unwrap();
        stdin.write_all(b"\n").await.unwrap();
    };
    send(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#).await;
    send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    send(b"{not json at all").await;
    send(b"\xff\xfe garbage").await;
    send(br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":7}}"#).await;
    send(br#"{"jsonrpc":"2.0","id":3,"method":"no/such/method"}"#).await;
    // Over the 16 MiB line limit: dropped as it is read, never buffered whole.
    let mut huge = br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"noop","arguments":{"x":""#.to_vec();
    huge.extend(std::iter::repeat_n(b'a', 17 * 1024 * 1024));
    huge.extend(br#""}}}"#);
    send(&huge).await;
    send(br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"noop","arguments":{}}}"#).await;
    let mut answers = std::collections::BTreeMap::new();
    let read = async {
        while let Some(line) = stdout.next_line().await.unwrap() {
            let v: serde_json::Value = serde_json::from_str(&line).expect("every line is JSON");
            if let Some(id) = v["id"].as_i64() {
                answers.insert(id, v);
                if id == 5 {
                    break;
                }
            }
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(60), read)
        .await
        .expect("the call after the bad input is answered");
    assert!(answers[&2]["error"].is_object(), "{answers:?}");
    assert!(answers[&3]["error"].is_object(), "{answers:?}");
    assert!(!answers.contains_key(&4), "{answers:?}");
    assert_eq!(
        answers[&5]["result"]["content"][0]["text"], "ok",
        "{answers:?}"
    );
    drop(stdin);
    let out = child.wait_with_output().await.unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}
