//! `ward acp` driven by the official ACP client library (`@agentclientprotocol/sdk`,
//! installed in tests/clients/acp by scripts/setup.sh) as an editor would drive it:
//! initialize, a new session, a prompt whose tool call asks permission (answered
//! through the client) and whose `todowrite` call becomes the plan, modes, a prompt
//! to a busy session, a cancel, an unknown session, and a second connection loading
//! the session back. Then the same binary fed bad JSON-RPC by hand: each bad line
//! gets an error response and the server goes on. `WARD_ACP_TRANSCRIPT=1` prints the
//! client's transcript.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use ward_tests::llm::{Fault, ScriptedLlm, Turn};
use ward_tests::polyglot::repo_root;
use ward_tests::{Project, ward_binary};

/// Runs the client script in `p` (the scripted model behind it) and returns its
/// transcript.
async fn drive(p: &Project) -> Value {
    p.trust();
    let client = repo_root().join("tests/clients/acp");
    assert!(
        client
            .join("node_modules/@agentclientprotocol/sdk")
            .is_dir(),
        "the ACP client library is missing: run scripts/setup.sh"
    );
    let mut node = tokio::process::Command::new("node");
    node.arg(client.join("drive.mjs"))
        .current_dir(&p.root)
        .env("WARD_BIN", ward_binary())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // `ward acp` runs with the project's isolated home and data directories.
    let ward = p.ward();
    for (key, value) in ward.get_envs() {
        match value {
            Some(value) => node.env(key, value),
            None => node.env_remove(key),
        };
    }
    let out = tokio::time::timeout(Duration::from_secs(120), node.output())
        .await
        .expect("the ACP client finished within 120 s")
        .expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "client failed:\n{stderr}\n{stdout}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"))
}

/// The updates of `phase`, as `(sessionUpdate, update)`.
fn updates<'a>(record: &'a Value, phase: &str) -> Vec<(&'a str, &'a Value)> {
    record["updates"]
        .as_array()
        .expect("updates")
        .iter()
        .filter(|u| u["phase"] == phase)
        .map(|u| {
            (
                u["update"]["sessionUpdate"].as_str().unwrap_or(""),
                &u["update"],
            )
        })
        .collect()
}

/// The text of the `kind` chunks among `updates`, joined.
fn chunks(updates: &[(&str, &Value)], kind: &str) -> String {
    updates
        .iter()
        .filter(|(k, _)| *k == kind)
        .filter_map(|(_, u)| u["content"]["text"].as_str())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_editor_drives_ward_over_acp() {
    let p = Project::new("acp");
    p.write("a.txt", "alpha\n");
    let llm = ScriptedLlm::start(vec![
        Turn::tool("call_read", "read", json!({ "filePath": "a.txt" })),
        Turn::tool(
            "call_todo",
            "todowrite",
            json!({ "todos": [
                { "content": "Read the file", "status": "completed", "priority": "high" },
                { "content": "Report", "status": "in_progress" }
            ] }),
        ),
        Turn::text("The file says alpha."),
        Turn::Fault(Fault::Hang),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    let toml = p.read("ward.toml");
    p.write(
        "ward.toml",
        &format!("{toml}[permission]\nread = \"ask\"\n"),
    );

    let t = drive(&p).await;
    if std::env::var_os("WARD_ACP_TRANSCRIPT").is_some() {
        eprintln!("{t:#}");
    }
    let first = &t["first"];

    // initialize: protocol v1, sessions can be loaded.
    assert_eq!(t["initialize"]["protocolVersion"], 1, "{t}");
    assert_eq!(t["initialize"]["agentCapabilities"]["loadSession"], true);
    assert_eq!(t["initialize"]["agentInfo"]["name"], "ward");

    // session/new: the modes are the primary agents, `build` current.
    let modes = &t["newSession"]["modes"];
    assert_eq!(modes["currentModeId"], "build", "{modes}");
    let ids: Vec<&str> = modes["availableModes"]
        .as_array()
        .expect("modes")
        .iter()
        .filter_map(|m| m["id"].as_str())
        .collect();
    assert!(ids.contains(&"build") && ids.contains(&"plan"), "{ids:?}");
    assert!(!ids.contains(&"explore"), "a subagent is no mode: {ids:?}");

    // The prompt: the tool call is announced, asks permission with Ward's three
    // answers, and goes on to completed; then the answer streams; end_turn.
    let tool = updates(first, "tool");
    let calls: Vec<&Value> = tool
        .iter()
        .filter(|(k, _)| *k == "tool_call" || *k == "tool_call_update")
        .map(|(_, u)| *u)
        .filter(|u| u["toolCallId"] == "call_read")
        .collect();
    assert!(!calls.is_empty(), "{tool:?}");
    assert_eq!(calls[0]["sessionUpdate"], "tool_call", "{calls:?}");
    assert_eq!(calls[0]["kind"], "read", "{calls:?}");
    // `pending` is the default status, which the wire leaves out.
    assert!(
        calls[0].get("status").is_none() || calls[0]["status"] == "pending",
        "{calls:?}"
    );
    let last = calls.last().expect("a last update");
    assert_eq!(last["status"], "completed", "{calls:?}");
    assert!(
        last["content"][0]["content"]["text"]
            .as_str()
            .is_some_and(|s| s.contains("alpha")),
        "{last}"
    );
    let asked = first["permissions"].as_array().expect("permissions");
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0]["toolCall"]["toolCallId"], "call_read");
    let options: Vec<(&str, &str)> = asked[0]["options"]
        .as_array()
        .expect("options")
        .iter()
        .map(|o| {
            (
                o["optionId"].as_str().unwrap_or(""),
                o["kind"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        options,
        [
            ("allow_once", "allow_once"),
            ("allow_always", "allow_always"),
            ("reject_once", "reject_once")
        ]
    );
    // The todo list is the plan; `todowrite` itself is a "think" call.
    let plan = tool
        .iter()
        .find(|(k, _)| *k == "plan")
        .map(|(_, u)| u["entries"].clone())
        .unwrap_or_else(|| panic!("no plan in {tool:?}"));
    assert_eq!(
        plan,
        json!([
            { "content": "Read the file", "priority": "high", "status": "completed" },
            { "content": "Report", "priority": "medium", "status": "in_progress" }
        ])
    );
    assert!(
        tool.iter().any(|(k, u)| *k == "tool_call"
            && u["toolCallId"] == "call_todo"
            && u["kind"] == "think"),
        "{tool:?}"
    );
    assert_eq!(chunks(&tool, "agent_message_chunk"), "The file says alpha.");
    assert_eq!(t["toolPrompt"]["stopReason"], "end_turn", "{t}");

    // Modes: a primary agent is taken, anything else refused with the list.
    assert!(t["setMode"]["ok"].is_object(), "{}", t["setMode"]);
    assert_eq!(t["badMode"]["code"], -32602, "{}", t["badMode"]);
    assert!(
        t["badMode"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("no-such-agent") && m.contains("build")),
        "{}",
        t["badMode"]
    );

    // A second prompt to the busy session is refused; the cancel stops the first.
    assert_eq!(t["busy"]["code"], -32600, "{}", t["busy"]);
    assert!(
        t["busy"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("already running")),
        "{}",
        t["busy"]
    );
    assert_eq!(t["cancelled"]["ok"]["stopReason"], "cancelled", "{t}");

    // An unknown session: a clear error naming it.
    assert_eq!(t["unknown"]["code"], -32002, "{}", t["unknown"]);
    assert!(
        t["unknown"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("ses_no_such_session")),
        "{}",
        t["unknown"]
    );
    assert_eq!(
        first["exitCode"], 0,
        "`ward acp` exits cleanly at end of input"
    );

    // session/load on a new connection: the history comes back as updates — the
    // prompt, the tool call as it ended, the answer — before the response.
    let second = &t["second"];
    assert!(t["load"]["ok"].is_object(), "{}", t["load"]);
    let load = updates(second, "load");
    assert!(
        chunks(&load, "user_message_chunk").contains("read a.txt"),
        "{load:?}"
    );
    assert!(
        load.iter().any(|(k, u)| *k == "tool_call"
            && u["toolCallId"] == "call_read"
            && u["status"] == "completed"),
        "{load:?}"
    );
    assert!(
        chunks(&load, "agent_message_chunk").contains("The file says alpha."),
        "{load:?}"
    );
    assert!(load.iter().any(|(k, _)| *k == "plan"), "{load:?}");
    assert_eq!(second["exitCode"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_json_rpc_gets_errors_never_a_panic() {
    let p = Project::new("acp-bad-input");
    let mut child = p
        .ward()
        .arg("acp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ward acp");
    let lines: [&'static str; 8] = [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#,
        "this is not JSON",
        r#"{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"ses_nope","prompt":[{"type":"text","text":"hi"}]}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"bogus":true}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"no/such/method","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"session/set_mode","params":{"sessionId":"ses_nope","modeId":"plan"}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}"#,
        r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"ses_nope"}}"#,
    ];
    let mut input = child.stdin.take().expect("stdin");
    let mut output = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let (init, rest) = lines.split_first().expect("lines");
    let init = init.to_string();
    // Like any client, wait for `initialize` to be answered before going on: the
    // library refuses other requests until then.
    let (input, output, reply) = tokio::task::spawn_blocking(move || {
        use std::io::{BufRead, Write};
        writeln!(input, "{init}").expect("write initialize");
        let mut reply = String::new();
        output.read_line(&mut reply).expect("initialize answered");
        (input, output, reply)
    })
    .await
    .expect("initialize");
    assert!(reply.contains("\"protocolVersion\":1"), "{reply}");
    let rest: Vec<String> = rest.iter().map(|l| l.to_string()).collect();
    let out = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let (mut input, mut output) = (input, output);
        for line in rest {
            writeln!(input, "{line}").expect("write a line");
        }
        // The responses come before the server sees the end of input.
        std::thread::sleep(Duration::from_secs(3));
        drop(input);
        let mut stdout = String::new();
        output.read_to_string(&mut stdout).expect("read responses");
        let done = child.wait_with_output().expect("ward acp exits");
        (stdout, done)
    });
    let (stdout, out) = tokio::time::timeout(Duration::from_secs(60), out)
        .await
        .expect("ward acp exits within 60 s of the end of its input")
        .expect("join");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let responses: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let error_of = |id: Value| {
        responses
            .iter()
            .find(|r| r["id"] == id && r.get("error").is_some())
            .map(|r| r["error"].clone())
            .unwrap_or_else(|| panic!("no error response for id {id}: {stdout}"))
    };
    assert_eq!(error_of(Value::Null)["code"], -32700, "{stdout}");
    let unknown = error_of(json!(1));
    assert_eq!(unknown["code"], -32002, "{unknown}");
    assert!(
        unknown["message"]
            .as_str()
            .is_some_and(|m| m.contains("ses_nope"))
    );
    assert_eq!(error_of(json!(2))["code"], -32602, "{stdout}");
    assert_eq!(error_of(json!(3))["code"], -32601, "{stdout}");
    assert_eq!(error_of(json!(4))["code"], -32002, "{stdout}");
    let cwd = error_of(json!(5));
    assert_eq!(cwd["code"], -32602, "{cwd}");
    assert!(
        cwd["message"]
            .as_str()
            .is_some_and(|m| m.contains("relative/dir"))
    );
}
