//! A scripted LLM server for end-to-end tests: a real HTTP server on 127.0.0.1 that
//! speaks OpenAI Chat Completions, OpenAI Responses and Anthropic Messages over real
//! SSE, answers each request with the next scripted [`Turn`], records every request
//! body for assertions, and injects faults (429 with `retry-after`, 500, a stream cut in
//! the middle of a tool call, a stream that hangs, malformed SSE, a 400).

mod http;
mod render;

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::net::TcpListener;

/// The wire protocol a scripted turn is rendered in (chosen by the request path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// `POST …/chat/completions`.
    ChatCompletions,
    /// `POST …/responses`.
    Responses,
    /// `POST …/messages`.
    Anthropic,
}

/// One piece of a scripted model reply.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// Visible text.
    Text(String),
    /// Reasoning ("thinking") text.
    Reasoning(String),
    /// A tool call; its JSON arguments are streamed in two halves.
    ToolCall {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Arguments, a JSON object.
        args: Value,
    },
    /// A Responses output item calling a tool of a kind Ward never offers
    /// (`local_shell_call`, `custom_tool_call`, …), sent whole with `call_id` set to
    /// `id`. Only the Responses wire has such items; the other wires leave it out.
    OtherCall {
        /// Call id.
        id: String,
        /// The output item, with its `type`.
        item: Value,
    },
}

/// Token usage reported at the end of a reply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Uncached input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read: u64,
}

/// An injected failure.
#[derive(Clone, Debug, PartialEq)]
pub enum Fault {
    /// `429 Too Many Requests` with this `retry-after` header value (if any).
    RateLimited {
        /// The header value, e.g. `"1"`.
        retry_after: Option<String>,
    },
    /// An HTTP error status with a JSON body.
    Status {
        /// The status code.
        code: u16,
        /// The body.
        body: String,
    },
    /// Stream the reply, but close the connection halfway through its first tool call's
    /// arguments.
    CutMidToolCall(Vec<Item>),
    /// Send the response headers, then nothing, ever.
    Hang,
    /// A `data:` line that is not JSON.
    MalformedSse,
}

/// What the server does with one request.
#[derive(Clone, Debug, PartialEq)]
pub enum Turn {
    /// A complete streamed reply.
    Reply {
        /// Its content, in order.
        items: Vec<Item>,
        /// Its usage.
        usage: Usage,
    },
    /// A failure.
    Fault(Fault),
    /// A response body streamed as given, whatever the wire: a recorded provider
    /// stream ([`recorded_stream`]).
    Raw(String),
    /// A complete streamed reply sent in small pieces with `pause` between them: a
    /// model streaming slowly (the terminal UI's tests resize it mid-stream, its
    /// benchmark measures keystrokes while text streams).
    Paced {
        /// Its content, in order.
        items: Vec<Item>,
        /// The wait between pieces.
        pause: std::time::Duration,
    },
}

impl Turn {
    /// A reply of plain text.
    pub fn text(text: &str) -> Turn {
        Turn::Reply {
            items: vec![Item::Text(text.to_string())],
            usage: Usage {
                input: 100,
                output: 10,
                cache_read: 0,
            },
        }
    }

    /// A reply that calls one tool.
    pub fn tool(id: &str, name: &str, args: Value) -> Turn {
        Turn::Reply {
            items: vec![Item::ToolCall {
                id: id.into(),
                name: name.into(),
                args,
            }],
            usage: Usage {
                input: 100,
                output: 20,
                cache_read: 0,
            },
        }
    }
}

/// A request the server received.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// The wire protocol (from the path).
    pub wire: Option<Wire>,
    /// Request path.
    pub path: String,
    /// Headers, lower-cased names.
    pub headers: Vec<(String, String)>,
    /// The JSON body (or `Value::Null` if it was not JSON).
    pub body: Value,
    /// The body as received.
    pub raw: Vec<u8>,
}

/// Computes a reply from the request, for scripts too long or too adaptive to write
/// out turn by turn (a 300-step session, a summary whenever compaction is asked for).
pub type Responder = Box<dyn FnMut(&Recorded) -> Turn + Send>;

/// What answers requests: the queued turns first, then the responder (if any).
pub(crate) struct Script {
    queue: VecDeque<Turn>,
    responder: Option<Responder>,
}

impl Script {
    pub(crate) fn next(&mut self, request: &Recorded) -> Option<Turn> {
        if let Some(turn) = self.queue.pop_front() {
            return Some(turn);
        }
        let respond = self.responder.as_mut()?;
        Some(respond(request))
    }
}

/// A running scripted server. It stops when the Tokio runtime that started it stops.
pub struct ScriptedLlm {
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    script: Arc<Mutex<Script>>,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl ScriptedLlm {
    /// Writes `p`'s `ward.toml` so its model is `scripted/test-model` on this server,
    /// spoken with provider `kind` (`openai-compatible`, `openai`, `anthropic`).
    pub fn configure(&self, p: &crate::Project, kind: &str) {
        p.write(
            "ward.toml",
            &format!(
                "model = \"scripted/test-model\"\n[provider.scripted]\nkind = \"{kind}\"\nbase_url = \"{}/v1\"\napi_key = \"test-key\"\n[provider.scripted.models.test-model]\noutput = 1024\n",
                self.base_url
            ),
        );
    }

    /// Starts a server that answers requests with `turns`, in order. Requests beyond the
    /// script get a 500 saying so.
    pub async fn start(turns: Vec<Turn>) -> ScriptedLlm {
        Self::serve(turns, None).await
    }

    /// Starts a server whose every reply `responder` computes from the request.
    pub async fn start_with(responder: Responder) -> ScriptedLlm {
        Self::serve(Vec::new(), Some(responder)).await
    }

    async fn serve(turns: Vec<Turn>, responder: Option<Responder>) -> ScriptedLlm {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind scripted LLM");
        let port = listener.local_addr().expect("local addr").port();
        let script = Arc::new(Mutex::new(Script {
            queue: VecDeque::from(turns),
            responder,
        }));
        let requests = Arc::new(Mutex::new(Vec::new()));
        tokio::spawn(http::serve(listener, script.clone(), requests.clone()));
        ScriptedLlm {
            base_url: format!("http://127.0.0.1:{port}"),
            script,
            requests,
        }
    }

    /// Appends turns to the script.
    pub fn push(&self, turns: impl IntoIterator<Item = Turn>) {
        if let Ok(mut s) = self.script.lock() {
            s.queue.extend(turns);
        }
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<Recorded> {
        let mut all = self.requests.lock().map(|r| r.clone()).unwrap_or_default();
        for r in &mut all {
            r.body = serde_json::from_slice(&r.raw).unwrap_or(Value::Null);
        }
        all
    }

    /// Turns not yet served.
    pub fn remaining(&self) -> usize {
        self.script.lock().map(|s| s.queue.len()).unwrap_or(0)
    }
}

/// The names of the tools offered in a Chat Completions request `body`.
pub fn tool_names(body: &serde_json::Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
        .collect()
}

/// The texts of the `role` messages of a Chat Completions request `body`, in order,
/// each message's text parts joined (a string content is one part).
pub fn message_texts(body: &Value, role: &str) -> Vec<String> {
    role_messages(body, role)
        .map(|m| message_text_parts(m).concat())
        .collect()
}

/// Every text part of the `role` messages of a Chat Completions request `body`, in
/// order (a string content is one part).
pub fn text_parts(body: &Value, role: &str) -> Vec<String> {
    role_messages(body, role)
        .flat_map(message_text_parts)
        .collect()
}

fn role_messages<'a>(body: &'a Value, role: &'a str) -> impl Iterator<Item = &'a Value> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(move |m| m["role"] == role)
}

fn message_text_parts(message: &Value) -> Vec<String> {
    match &message["content"] {
        Value::String(s) => vec![s.clone()],
        parts => parts
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p["text"].as_str().map(str::to_string))
            .collect(),
    }
}

/// The shared recordings of real provider streams (`shared/fixtures/llm-recordings`,
/// beside the repository checkout).
pub fn recordings() -> std::path::PathBuf {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    [
        manifest.join("../../shared/fixtures/llm-recordings"),
        manifest.join("../shared/fixtures/llm-recordings"),
    ]
    .into_iter()
    .find(|p| p.join("README.md").exists())
    .expect("shared/fixtures/llm-recordings not found next to the repository")
}

/// The first response of a recorded payload-lines file (`*.chunks.txt`: one JSON
/// event per line, SSE framing stripped) as the SSE body it was: `event:` and
/// `data:` lines, up to and including the first event that ends a response.
pub fn recorded_stream(relative: &str) -> String {
    let text = std::fs::read_to_string(recordings().join(relative)).expect("recording");
    let mut out = String::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let event: Value = serde_json::from_str(line).expect("a JSON event per line");
        let kind = event["type"].as_str().unwrap_or("message").to_string();
        out += &format!("event: {kind}\ndata: {line}\n\n");
        if matches!(
            kind.as_str(),
            "message_stop" | "response.completed" | "response.incomplete" | "response.failed"
        ) {
            break;
        }
    }
    out
}
