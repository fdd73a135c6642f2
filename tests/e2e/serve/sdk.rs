//! The official OpenCode SDK (`@opencode-ai/sdk`, installed by `scripts/setup.sh` in
//! `tests/clients/opencode`) against `ward serve`, unchanged: the flows of an OpenCode
//! client, checked on what the SDK handed back.

use std::path::PathBuf;

use serde_json::{Value, json};
use ward_tests::llm::{Fault, Turn};

use super::{Served, project_asking_for_reads};

fn client_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("clients/opencode")
}

/// Runs `drive.mjs` against `served`; its JSON transcript.
pub async fn drive(served: &Served, script: &str) -> Value {
    let dir = client_dir();
    assert!(
        dir.join("node_modules/@opencode-ai/sdk").is_dir(),
        "the OpenCode SDK is not installed: run scripts/setup.sh"
    );
    let out = tokio::process::Command::new("node")
        .arg(dir.join(script))
        .env("WARD_URL", &served.url)
        .env("WARD_TOKEN", &served.token)
        .output()
        .await
        .expect("run node");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{script} failed: {stderr}");
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{script} printed no transcript ({e}): {stderr}"))
}

fn types(events: &Value) -> Vec<String> {
    events
        .as_array()
        .expect("events")
        .iter()
        .map(|e| e["type"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn tool_states(events: &Value, tool: &str) -> Vec<(usize, String)> {
    events
        .as_array()
        .expect("events")
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            e["type"] == "message.part.updated"
                && e["properties"]["part"]["type"] == "tool"
                && e["properties"]["part"]["tool"] == tool
        })
        .map(|(i, e)| {
            let status = e["properties"]["part"]["state"]["status"].as_str();
            (i, status.unwrap_or_default().to_string())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_opencode_sdk_drives_a_session_through_ward_serve() {
    let (p, llm) = project_asking_for_reads(
        "serve-sdk",
        vec![
            Turn::tool("r1", "read", json!({ "filePath": "a.txt" })),
            Turn::text("READ-DONE"),
            Turn::Fault(Fault::Hang),
        ],
    )
    .await;
    let served = Served::start(&p, &[], &[]).await;
    let t = drive(&served, "drive.mjs").await;

    assert_eq!(t["health"]["healthy"], true);
    let session = t["session"]["id"].as_str().expect("a session id");
    assert!(session.starts_with("ses_"));
    assert_eq!(t["session"]["title"], "from the sdk");
    assert_eq!(t["session"]["directory"], p.root.to_string_lossy().as_ref());

    // The synchronous prompt's answer is the assistant message with its final text.
    assert_eq!(t["answer"]["info"]["role"], "assistant", "{}", t["answer"]);
    assert_eq!(t["answer"]["info"]["sessionID"], session);
    let answer_text: Vec<&str> = t["answer"]["parts"]
        .as_array()
        .expect("parts")
        .iter()
        .filter(|p| p["type"] == "text")
        .filter_map(|p| p["text"].as_str())
        .collect();
    assert_eq!(answer_text, vec!["READ-DONE"]);

    // The ask came on the stream, was answered "always" through the SDK, and only
    // then did the tool run to completion.
    let events = &t["events"];
    let names = types(events);
    let asked = names
        .iter()
        .position(|n| n == "permission.asked")
        .expect("an ask");
    assert_eq!(events[asked]["properties"]["permission"], "read");
    assert_eq!(events[asked]["properties"]["sessionID"], session);
    assert_eq!(t["replies"], json!([true]));
    let replied = names
        .iter()
        .position(|n| n == "permission.replied")
        .expect("the reply is an event");
    assert_eq!(events[replied]["properties"]["reply"], "always");
    assert_eq!(
        events[replied]["properties"]["requestID"],
        events[asked]["properties"]["id"]
    );
    let states = tool_states(events, "read");
    let completed = states
        .iter()
        .find(|(_, s)| s == "completed")
        .map(|(i, _)| *i)
        .expect("the read completes");
    assert!(asked < replied && replied < completed, "{names:?}");
    assert!(
        names.contains(&"message.part.delta".to_string()),
        "text streams as deltas"
    );

    // The messages list holds the user's prompt, the tool call with the file's text
    // as its output, and the final text.
    let messages = t["messages"].as_array().expect("messages");
    assert_eq!(messages[0]["info"]["role"], "user");
    let tool = messages
        .iter()
        .flat_map(|m| m["parts"].as_array().cloned().unwrap_or_default())
        .find(|part| part["type"] == "tool")
        .expect("a tool part");
    assert_eq!(tool["tool"], "read");
    assert_eq!(tool["callID"], "r1");
    assert_eq!(tool["state"]["status"], "completed");
    assert!(
        tool["state"]["output"]
            .as_str()
            .unwrap_or_default()
            .contains("alpha")
    );

    // The second prompt was aborted mid-stream: the abort said so, the loop went
    // idle, and the last assistant message carries the abort.
    assert_eq!(t["aborted"], true);
    let last = t["after"]
        .as_array()
        .expect("messages")
        .iter()
        .rev()
        .find(|m| m["info"]["role"] == "assistant")
        .expect("an assistant message");
    assert_eq!(last["info"]["error"]["name"], "MessageAbortedError");
    assert_eq!(llm.requests().len(), 3, "the hung call was the third");
    assert!(
        t["listed"]
            .as_array()
            .expect("list")
            .contains(&json!(session))
    );
}
