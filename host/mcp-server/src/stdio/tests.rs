//! The stdio transport against rmcp's own decoding, and its answers to bad input.

use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, WriteHalf};

use super::{Lines, MAX_LINE, Unread, decode, decode_frequent};

/// Messages of both protocol eras: per-request metadata, progress tokens, string and
/// number ids, arguments, a cursor, a retried call's state.
fn frequent() -> Vec<Value> {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "progressToken": 7
    });
    vec![
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "noop"}}),
        json!({"jsonrpc": "2.0", "id": "a-1", "method": "tools/call",
               "params": {"name": "echo", "arguments": {"text": "h\u{e9}\"\n", "n": [1, 2.5]},
                          "_meta": meta}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
               "params": {"name": "x", "requestState": "s",
                          "inputResponses": {"ward_permission": {"action": "accept"}}}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"cursor": "c"}}),
        json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list", "params": {"_meta": meta}}),
    ]
}

/// What rmcp's decoding makes of `line`, in JSON (its serialisation puts the
/// metadata kept in the request's extensions back under `_meta`).
fn as_rmcp_decodes(line: &[u8]) -> Value {
    let message: ClientJsonRpcMessage = serde_json::from_slice(line).expect("rmcp decodes it");
    serde_json::to_value(message).expect("encode")
}

#[test]
fn a_frequent_request_decodes_as_rmcp_decodes_it() {
    for message in frequent() {
        let line = serde_json::to_vec(&message).expect("encode");
        let fast = decode_frequent(&line).expect("taken by the fast path");
        let fast = serde_json::to_value(fast).expect("encode");
        assert_eq!(fast, as_rmcp_decodes(&line), "{message}");
        // And nothing was lost on the way.
        assert_eq!(
            fast["params"]["name"], message["params"]["name"],
            "{message}"
        );
        assert_eq!(
            fast["params"]["_meta"], message["params"]["_meta"],
            "{message}"
        );
    }
}

#[test]
fn other_messages_and_misfits_go_through_rmcp() {
    let others = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
        json!({"jsonrpc": "2.0", "id": 3, "result": {}}),
        // A notification named like a request is not a request.
        json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "noop"}}),
    ];
    for message in others {
        let line = serde_json::to_vec(&message).expect("encode");
        assert!(decode_frequent(&line).is_none(), "{message}");
        match decode(&line) {
            Ok(m) => assert_eq!(
                serde_json::to_value(m).expect("encode"),
                as_rmcp_decodes(&line),
                "{message}"
            ),
            other => panic!("{message}: {other:?}"),
        }
    }
    // A call without its tool's name does not fit its type: it is left to rmcp's
    // decoding, which takes it for a request of a method it does not know (answered
    // "method not found" by the service), as it would without the fast path.
    let nameless = br#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{}}"#;
    assert!(decode_frequent(nameless).is_none());
    match decode(nameless) {
        Ok(m) => assert_eq!(
            serde_json::to_value(m).expect("encode"),
            as_rmcp_decodes(nameless)
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn bad_lines_are_ignored_or_refused_as_rmcp_does() {
    for ignored in [
        &b"not json"[..],
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"",
        b"\xff\xfe",
        b"",
        // Not quite JSON-RPC (no version): an editor's notification, and one under
        // `notifications/` that MCP lacks.
        br#"{"method":"textDocument/didOpen","params":{}}"#,
        br#"{"method":"notifications/unheard_of"}"#,
    ] {
        assert!(
            decode(ignored).err() == Some(Unread::Ignored),
            "{}",
            String::from_utf8_lossy(ignored)
        );
    }
    for invalid in [
        &br#"{"jsonrpc":"2.0","id":1,"method":7}"#[..],
        br#"[1,2,3]"#,
        br#"{"id":1}"#,
        // The same, for a notification MCP has.
        br#"{"method":"notifications/initialized"}"#,
    ] {
        assert!(
            decode(invalid).err() == Some(Unread::Invalid),
            "{}",
            String::from_utf8_lossy(invalid)
        );
    }
    // A byte order mark before a message is allowed.
    let marked = [
        b"\xEF\xBB\xBF".as_slice(),
        br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
    ]
    .concat();
    assert!(decode(&marked).is_ok());
}

type Half = tokio::io::ReadHalf<DuplexStream>;

/// The transport on one end of an in-memory pipe of `capacity` bytes each way, and
/// the client's end (its reading and writing halves).
fn connected(
    capacity: usize,
) -> (
    Lines<Half, WriteHalf<DuplexStream>>,
    Half,
    WriteHalf<DuplexStream>,
) {
    let (client, server) = tokio::io::duplex(capacity);
    let (server_read, server_write) = tokio::io::split(server);
    let (client_read, client_write) = tokio::io::split(client);
    (
        Lines::new(server_read, server_write),
        client_read,
        client_write,
    )
}

#[tokio::test]
async fn the_transport_drops_an_oversized_line_answers_junk_and_reads_on() {
    let (mut lines, client_read, mut client_write) = connected(1 << 16);
    let writer = tokio::spawn(async move {
        let huge = vec![b'x'; MAX_LINE + 10];
        client_write.write_all(b"{\"a\":").await?;
        client_write.write_all(&huge).await?;
        client_write.write_all(b"\n").await?;
        client_write
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1}\r\n")
            .await?;
        client_write
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"noop\"}}\n")
            .await?;
        client_write.shutdown().await
    });
    let message = Transport::<rmcp::RoleServer>::receive(&mut lines)
        .await
        .expect("the call after the oversized and the junk lines");
    let message = serde_json::to_value(message).expect("encode");
    assert_eq!(message["id"], 2);
    assert_eq!(message["params"]["name"], "noop");
    assert!(
        Transport::<rmcp::RoleServer>::receive(&mut lines)
            .await
            .is_none()
    );
    writer.await.expect("writer").expect("written");
    // The junk line (JSON, not a message) was answered with an error.
    let mut answers = BufReader::new(client_read).lines();
    let answer = answers.next_line().await.expect("read").expect("an answer");
    let answer: ServerJsonRpcMessage = serde_json::from_str(&answer).expect("a message");
    let answer = serde_json::to_value(answer).expect("encode");
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
}

#[tokio::test]
async fn a_client_sending_junk_without_reading_the_answers_is_held_up() {
    let (mut lines, client_read, mut client_write) = connected(4 << 10);
    let writer = tokio::spawn(async move {
        for _ in 0..2_000 {
            client_write.write_all(b"{\"id\":1}\n").await?;
        }
        client_write
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n")
            .await?;
        client_write.shutdown().await
    });
    // The answers fill the pipe and nobody reads them: no queue grows, the reading
    // stops.
    let (ping, reader) = {
        let receive = Transport::<rmcp::RoleServer>::receive(&mut lines);
        tokio::pin!(receive);
        let held = tokio::time::timeout(std::time::Duration::from_millis(300), &mut receive).await;
        assert!(held.is_err(), "read on past answers nobody took");
        // Once the client reads its answers, the ping comes through.
        let reader = tokio::spawn(async move {
            let mut answers = BufReader::new(client_read).lines();
            let mut n = 0;
            while let Ok(Some(_)) = answers.next_line().await {
                n += 1;
            }
            n
        });
        (receive.await.expect("the ping"), reader)
    };
    assert_eq!(serde_json::to_value(ping).expect("encode")["id"], 2);
    drop(lines);
    writer.await.expect("writer").expect("written");
    assert_eq!(
        reader.await.expect("reader"),
        2_000,
        "one answer per junk line"
    );
}
