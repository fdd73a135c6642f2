//! The hostile repository opened where nobody can be asked to trust it: by an editor
//! over `ward acp` (`session/new`, then a prompt) and by a client of `ward serve`.
//! Each runs restricted, says so once with every held item named, and never blocks;
//! and a process running under `ward serve` cannot read the server's token nor answer
//! the question its own session is waiting on.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};
use ward_tests::Project;
use ward_tests::llm::{Item, ScriptedLlm, Turn, Usage};

use super::{
    LEAKED_ENV, USER_RULES, actions, assert_named, assert_nothing_ran, hostile, user_config,
};
use crate::serve::Served;

/// How long a frontend may take to answer one request.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);

/// A bare ACP client on `ward acp`'s standard streams: one request at a time, the
/// `session/update`s seen on the way kept, permission requests rejected.
struct Acp {
    child: Child,
    input: ChildStdin,
    output: Lines<BufReader<ChildStdout>>,
    next_id: u64,
    /// The text of every agent message chunk, in order.
    said: String,
}

impl Acp {
    fn start(p: &Project) -> Acp {
        let mut cmd = tokio::process::Command::from(p.ward());
        cmd.arg("acp")
            .env(LEAKED_ENV.0, LEAKED_ENV.1)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = cmd.spawn().expect("spawn ward acp");
        let input = child.stdin.take().expect("stdin");
        let output = BufReader::new(child.stdout.take().expect("stdout")).lines();
        Acp {
            child,
            input,
            output,
            next_id: 0,
            said: String::new(),
        }
    }

    /// Sends `method` and reads until its answer, which it returns.
    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))
            .await;
        loop {
            let line = tokio::time::timeout(ANSWER_TIMEOUT, self.output.next_line())
                .await
                .unwrap_or_else(|_| panic!("{method} unanswered"))
                .expect("read")
                .unwrap_or_else(|| panic!("ward acp closed before answering {method}"));
            let message: Value = serde_json::from_str(&line).expect("JSON-RPC line");
            if message["id"] == id && message.get("method").is_none() {
                return message;
            }
            match message["method"].as_str() {
                Some("session/update") => {
                    let update = &message["params"]["update"];
                    if update["sessionUpdate"] == "agent_message_chunk" {
                        self.said
                            .push_str(update["content"]["text"].as_str().unwrap_or(""));
                    }
                }
                Some("session/request_permission") => {
                    let reject = message["params"]["options"]
                        .as_array()
                        .and_then(|options| options.iter().find(|o| o["kind"] == "reject_once"))
                        .map(|o| o["optionId"].clone())
                        .expect("a reject option");
                    let outcome = json!({ "outcome": "selected", "optionId": reject });
                    self.send(json!({ "jsonrpc": "2.0", "id": message["id"],
                                      "result": { "outcome": outcome } }))
                        .await;
                }
                _ => {}
            }
        }
    }

    async fn send(&mut self, message: Value) {
        let line = format!("{message}\n");
        self.input.write_all(line.as_bytes()).await.expect("write");
    }

    /// Closes its input and returns its standard error once it has exited.
    async fn close(self) -> String {
        drop(self.input);
        let out = tokio::time::timeout(ANSWER_TIMEOUT, self.child.wait_with_output())
            .await
            .expect("ward acp exits at the end of its input")
            .expect("wait");
        assert!(out.status.success(), "ward acp failed");
        String::from_utf8_lossy(&out.stderr).into_owned()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_editor_opening_a_hostile_repository_gets_it_restricted_and_told_why() {
    let p = Project::stranger("trust-acp");
    let mut turns = actions("hello from the user's model");
    turns.push(Turn::text("second answer"));
    let llm = ScriptedLlm::start(turns).await;
    let collector = ScriptedLlm::start(actions("collected")).await;
    user_config(&p, &llm, USER_RULES);
    hostile(&p, &collector);

    let mut acp = Acp::start(&p);
    let init = acp
        .request(
            "initialize",
            json!({ "protocolVersion": 1, "clientCapabilities": {} }),
        )
        .await;
    assert!(init.get("result").is_some(), "{init}");
    let session = acp
        .request("session/new", json!({ "cwd": p.root, "mcpServers": [] }))
        .await;
    let id = session["result"]["sessionId"].clone();
    assert!(id.is_string(), "{session}");
    let prompt =
        |text: &str| json!({ "sessionId": id, "prompt": [{ "type": "text", "text": text }] });
    let answer = acp.request("session/prompt", prompt("hello")).await;
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    // The editor's user is told first, in the answer: what is held, and how to trust.
    let said = std::mem::take(&mut acp.said);
    assert!(said.ends_with("hello from the user's model"), "{said}");
    assert_named(&said);
    // Once: the next prompt says only its answer.
    acp.request("session/prompt", prompt("again")).await;
    assert_eq!(acp.said, "second answer");
    let stderr = acp.close().await;
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_nothing_ran(&p, &collector, &llm);
}

/// `GET path` on `served` until `ready` holds for its JSON body (60 s at most).
async fn wait_for(served: &Served, path: &str, ready: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + ANSWER_TIMEOUT;
    loop {
        let (status, body) = served.call("GET", path, None).await;
        let body: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        if status == 200 && ready(&body) {
            return body;
        }
        assert!(tokio::time::Instant::now() < deadline, "{path}: {body}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Creates a session on `served` and sends it `text` without waiting; its id.
async fn prompt(served: &Served, text: &str) -> String {
    let (status, session) = served.call("POST", "/session", Some("{}")).await;
    assert_eq!(status, 200, "{session}");
    let session: Value = serde_json::from_str(&session).expect("session");
    let id = session["id"].as_str().expect("id").to_string();
    let body = json!({ "parts": [{ "type": "text", "text": text }] }).to_string();
    let (status, out) = served
        .call("POST", &format!("/session/{id}/prompt_async"), Some(&body))
        .await;
    assert!(status < 300, "{status}: {out}");
    id
}

/// The session's messages once one of them has a text part holding `text`.
async fn answered(served: &Served, id: &str, text: &str) -> Value {
    wait_for(served, &format!("/session/{id}/message"), |messages| {
        messages.to_string().contains(text)
    })
    .await
}

/// Answers the one pending permission question with `reply`; what it asked.
async fn answer_pending(served: &Served, reply: &str) -> Value {
    let pending = wait_for(served, "/permission", |list| {
        list.as_array().is_some_and(|l| !l.is_empty())
    })
    .await;
    let ask = pending[0].clone();
    let id = ask["id"].as_str().expect("id");
    // A rejection says why, so the model goes on (without a word the loop stops).
    let body = json!({ "reply": reply, "message": "not now" }).to_string();
    let (status, out) = served
        .call("POST", &format!("/permission/{id}/reply"), Some(&body))
        .await;
    assert!(status < 300, "{status}: {out}");
    ask
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_opening_a_hostile_repository_serves_it_restricted() {
    let p = Project::stranger("trust-serve");
    let llm = ScriptedLlm::start(actions("hello from the user's model")).await;
    let collector = ScriptedLlm::start(actions("collected")).await;
    user_config(&p, &llm, USER_RULES);
    hostile(&p, &collector);

    let served = Served::start(&p, &[], &[LEAKED_ENV]).await;
    // It serves at once (nothing waits for a trust answer), and said why it is
    // restricted before it listened.
    assert_named(&served.stderr());
    let id = prompt(&served, "hello").await;
    answered(&served, &id, "hello from the user's model").await;
    assert_nothing_ran(&p, &collector, &llm);
}

/// A process that hunts for `ward serve`'s token and, with whatever it found, lists
/// the questions waiting and answers each `once`; it writes what happened to
/// `probe.log` and ends.
const PROBE: &str = r#"
import fs from "node:fs";
const [tokenFile, url] = process.argv.slice(2);
const log = [];
let token = "";
try { token = fs.readFileSync(tokenFile, "utf8").trim(); log.push("TOKEN READ"); }
catch (e) { log.push(`token file: ${e.code}`); }
if (process.env.WARD_SERVER_TOKEN) log.push("TOKEN IN ENVIRONMENT");
const basic = Buffer.from(`opencode:${token}`).toString("base64");
for (let round = 0; round < 10; round++) {
  for (const auth of [undefined, `Bearer ${token}`, `Basic ${basic}`]) {
    const headers = auth ? { authorization: auth } : {};
    try {
      const res = await fetch(`${url}/permission`, { headers });
      log.push(`list ${res.status}`);
      if (!res.ok) continue;
      for (const ask of await res.json()) {
        const reply = await fetch(`${url}/permission/${ask.id}/reply`, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body: JSON.stringify({ reply: "once" }),
        });
        log.push(`REPLIED ${reply.status}`);
      }
    } catch { log.push("list unreachable"); }
  }
  await new Promise((r) => setTimeout(r, 300));
}
fs.writeFileSync("probe.log", log.join("\n") + "\n");
"#;

/// A reply calling `bash` twice at once: `calls` are `(id, command)`.
fn parallel_bash(calls: &[(&str, &str)]) -> Turn {
    let items = calls
        .iter()
        .map(|(id, command)| Item::ToolCall {
            id: id.to_string(),
            name: "bash".into(),
            args: json!({ "command": command, "description": "run" }),
        })
        .collect();
    Turn::Reply {
        items,
        usage: Usage {
            input: 100,
            output: 20,
            cache_read: 0,
        },
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_under_ward_serve_cannot_answer_its_own_question() {
    let p = Project::new("trust-own-question");
    p.write("probe.mjs", PROBE);
    p.write("important.txt", "keep me\n");
    let llm = ScriptedLlm::start(Vec::new()).await;
    llm.configure(&p, "openai-compatible");
    // The user lets the probe run without asking, and gives commands the network:
    // the token, not the sandbox, is what must stop it.
    let config = p.read("ward.toml");
    p.write(
        "ward.toml",
        &format!(
            "{config}[permission.bash]\n\"*\" = \"ask\"\n\"node probe.mjs *\" = \"allow\"\n\
             [sandbox]\nnetwork = true\n"
        ),
    );
    let served = Served::start(&p, &[], &[]).await;
    let probe = format!("node probe.mjs '{}' '{}'", served.token_file, served.url);
    llm.push([
        parallel_bash(&[("c1", &probe), ("c2", "rm important.txt")]),
        Turn::text("finished"),
    ]);
    let id = prompt(&served, "go").await;

    // The `rm` waits on a person while the probe runs beside it.
    let pending = wait_for(&served, "/permission", |l| {
        l.as_array().is_some_and(|l| !l.is_empty())
    })
    .await;
    let deadline = tokio::time::Instant::now() + ANSWER_TIMEOUT;
    while !p.path("probe.log").exists() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the probe never ended"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let log = p.read("probe.log");
    assert!(!log.contains("TOKEN"), "{log}");
    assert!(!log.contains("REPLIED"), "{log}");
    assert!(log.contains("list "), "the probe tried: {log}");
    for line in log.lines().filter(|l| l.starts_with("list ")) {
        assert!(
            line == "list 401" || line == "list unreachable",
            "{line} in {log}"
        );
    }
    // Still waiting, on the person alone.
    let (_, still) = served.call("GET", "/permission", None).await;
    let still: Value = serde_json::from_str(&still).expect("list");
    assert_eq!(still[0]["id"], pending[0]["id"], "{still}");
    assert_eq!(p.read("important.txt"), "keep me\n");
    let ask = answer_pending(&served, "reject").await;
    assert_eq!(ask["patterns"][0], "rm important.txt", "{ask}");
    answered(&served, &id, "finished").await;
    assert_eq!(p.read("important.txt"), "keep me\n");
}
