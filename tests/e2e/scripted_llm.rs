//! The scripted LLM server itself: each wire format streams well-formed SSE whose data
//! lines are JSON, requests are recorded, and faults look like the real thing.

use std::io::{Read, Write};
use std::net::TcpStream;

use serde_json::{Value, json};
use ward_tests::llm::{Fault, Item, ScriptedLlm, Turn, Usage, Wire};

fn post(base: &str, path: &str, body: &Value) -> String {
    let addr = base.trim_start_matches("http://");
    let mut sock = TcpStream::connect(addr).unwrap();
    let body = body.to_string();
    write!(sock, "POST {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}", body.len()).unwrap();
    let mut out = String::new();
    sock.read_to_string(&mut out).unwrap();
    out
}

fn data_lines(response: &str) -> Vec<Value> {
    let body = response.split_once("\r\n\r\n").unwrap().1;
    body.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter(|d| *d != "[DONE]")
        .map(|d| serde_json::from_str(d).unwrap_or_else(|e| panic!("bad JSON in `{d}`: {e}")))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_wire_streams_json_events_and_records_requests() {
    let reply = Turn::Reply {
        items: vec![
            Item::Reasoning("thinking".into()),
            Item::Text("hi".into()),
            Item::ToolCall {
                id: "call_1".into(),
                name: "read".into(),
                args: json!({"filePath": "a.txt"}),
            },
        ],
        usage: Usage {
            input: 10,
            output: 5,
            cache_read: 2,
        },
    };
    let llm = ScriptedLlm::start(vec![reply.clone(), reply.clone(), reply]).await;
    let base = llm.base_url.clone();
    let outs = tokio::task::spawn_blocking(move || {
        ["/v1/chat/completions", "/v1/responses", "/v1/messages"]
            .map(|p| post(&base, p, &json!({"model": "m", "stream": true})))
    })
    .await
    .unwrap();
    for (out, wire) in outs
        .iter()
        .zip([Wire::ChatCompletions, Wire::Responses, Wire::Anthropic])
    {
        assert!(out.starts_with("HTTP/1.1 200"), "{out}");
        let events = data_lines(out);
        let text = events.iter().map(|e| e.to_string()).collect::<String>();
        assert!(
            text.contains("filePath") && text.contains("hi"),
            "{wire:?}: {text}"
        );
        // The arguments arrive split: no single event carries the whole JSON.
        assert!(
            !text.contains(r#"{\"filePath\":\"a.txt\"}"#) || wire == Wire::Responses,
            "{wire:?}"
        );
    }
    let requests = llm.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[1].wire, Some(Wire::Responses));
    assert_eq!(requests[2].body["model"], "m");
    assert_eq!(llm.remaining(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_look_like_real_failures() {
    let llm = ScriptedLlm::start(vec![
        Turn::Fault(Fault::RateLimited {
            retry_after: Some("1".into()),
        }),
        Turn::Fault(Fault::CutMidToolCall(vec![Item::ToolCall {
            id: "c".into(),
            name: "bash".into(),
            args: json!({"command": "echo one two three"}),
        }])),
        Turn::Fault(Fault::MalformedSse),
    ])
    .await;
    let base = llm.base_url.clone();
    let (limited, cut, malformed) = tokio::task::spawn_blocking(move || {
        let body = json!({});
        (
            post(&base, "/v1/chat/completions", &body),
            post(&base, "/v1/chat/completions", &body),
            post(&base, "/v1/chat/completions", &body),
        )
    })
    .await
    .unwrap();
    assert!(
        limited.starts_with("HTTP/1.1 429") && limited.contains("retry-after: 1"),
        "{limited}"
    );
    let events = data_lines(&cut);
    let args: String = events
        .iter()
        .filter_map(|e| e["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"].as_str())
        .collect();
    assert!(
        !args.is_empty() && serde_json::from_str::<Value>(&args).is_err(),
        "cut inside the arguments: {args}"
    );
    assert!(!cut.contains("[DONE]") && !cut.contains("finish_reason\":\"tool_calls"));
    assert!(malformed.contains("this is not json"));
}
