//! Loads the shared LLM recordings (`shared/fixtures/llm-recordings`) into
//! HTTP replies: status and exact response body bytes per interaction.
//!
//! The protocol of each file comes from the collection's README, so a newly
//! added recording is replayed without touching this code. Containers:
//! OpenCode cassette JSON, go-vcr v2 YAML, VCR.py YAML (bodies possibly
//! `!!binary` gzip), Vercel `.chunks.txt` payload lines (SSE framing
//! stripped by the recorder, so re-framed here), and raw SSE text.

use std::io::Read;
use std::path::{Path, PathBuf};

use base64::Engine;
use serde_json::Value;
use serde_yaml::Value as Yaml;

/// The label given to bodies whose container recorded no headers.
const EVENT_STREAM: &str = "text/event-stream";

/// One recorded response.
#[derive(Debug, Clone)]
pub struct Interaction {
    /// Recorded status; 200 when the container does not record one.
    pub status: u16,
    /// The recorded `content-type` header, `None` when the recorder kept the
    /// headers but not that one (OpenCode's OAuth cassette). Containers that
    /// keep no headers at all (payload lines, raw SSE) get
    /// `text/event-stream`, the framing they are replayed in.
    pub content_type: Option<String>,
    /// The body as sent on the wire.
    pub body: Vec<u8>,
}

/// The collection root: `shared/` sits beside the repository checkout.
pub fn root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        manifest.join("../../../shared/fixtures/llm-recordings"),
        manifest.join("../../shared/fixtures/llm-recordings"),
    ];
    candidates
        .into_iter()
        .find(|p| p.join("README.md").exists())
        .expect("shared/fixtures/llm-recordings not found next to the repository")
}

/// Every file listed in the README with its protocol.
pub fn index(root: &Path) -> Vec<(String, String)> {
    let readme = std::fs::read_to_string(root.join("README.md")).expect("read README.md");
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for line in readme.lines() {
        if let Some(path) = line.strip_prefix("### `").and_then(|l| l.strip_suffix('`')) {
            current = Some(path.to_owned());
        } else if let Some(rest) = line.strip_prefix("- protocol: **")
            && let (Some(path), Some((protocol, _))) = (current.take(), rest.split_once("**"))
        {
            out.push((path, protocol.to_owned()));
        }
    }
    out
}

/// Loads the responses of one file.
pub fn load(root: &Path, path: &str, protocol: &str) -> Vec<Interaction> {
    let full = root.join(path);
    let bytes = std::fs::read(&full).unwrap_or_else(|e| panic!("read {path}: {e}"));
    if path.ends_with(".json") {
        cassette_json(&bytes)
    } else if path.ends_with(".yaml") {
        vcr_yaml(&bytes)
    } else if path.ends_with(".chunks.txt") {
        payload_lines(&bytes, protocol)
    } else {
        vec![Interaction {
            status: 200,
            content_type: Some(EVENT_STREAM.to_owned()),
            body: bytes,
        }]
    }
}

fn cassette_json(bytes: &[u8]) -> Vec<Interaction> {
    let doc: Value = serde_json::from_slice(bytes).expect("cassette JSON");
    doc["interactions"]
        .as_array()
        .expect("interactions")
        .iter()
        .map(|i| {
            let response = &i["response"];
            let body = response["body"].as_str().unwrap_or_default();
            let body = match response["bodyEncoding"].as_str() {
                Some("base64") => base64::engine::general_purpose::STANDARD
                    .decode(body)
                    .expect("base64 body"),
                _ => body.as_bytes().to_vec(),
            };
            let content_type = response["headers"]
                .as_object()
                .into_iter()
                .flatten()
                .find(|(name, _)| name.eq_ignore_ascii_case("content-type"))
                .and_then(|(_, value)| value.as_str())
                .map(str::to_owned);
            Interaction {
                status: status(response["status"].as_u64()),
                content_type,
                body,
            }
        })
        .collect()
}

fn vcr_yaml(bytes: &[u8]) -> Vec<Interaction> {
    let doc: Yaml = serde_yaml::from_slice(bytes).expect("cassette YAML");
    doc["interactions"]
        .as_sequence()
        .expect("interactions")
        .iter()
        .map(|i| {
            let response = &i["response"];
            // go-vcr: `code` + `body`; VCR.py: `status.code` + `body.string`.
            let (code, body) = match response.get("code") {
                Some(code) => (code.as_u64(), &response["body"]),
                None => (
                    response["status"]["code"].as_u64(),
                    &response["body"]["string"],
                ),
            };
            let body = body.as_str().expect("body text");
            let body = if gzipped(&response["headers"]) {
                gunzip_base64(body)
            } else {
                body.as_bytes().to_vec()
            };
            Interaction {
                status: status(code),
                content_type: header(&response["headers"], "content-type"),
                body,
            }
        })
        .collect()
}

/// Whether the recorded headers say `Content-Encoding: gzip`. serde_yaml
/// drops the `!!binary` tag of such bodies, so the header is what tells a
/// base64 gzip body from text.
fn gzipped(headers: &Yaml) -> bool {
    header(headers, "content-encoding").is_some_and(|v| v.contains("gzip"))
}

/// The first value of a recorded header (both recorders store a list).
fn header(headers: &Yaml, wanted: &str) -> Option<String> {
    let (_, value) = headers.as_mapping()?.iter().find(|(name, _)| {
        name.as_str()
            .is_some_and(|n| n.eq_ignore_ascii_case(wanted))
    })?;
    let first = value.as_sequence().and_then(|s| s.first()).unwrap_or(value);
    first.as_str().map(str::to_owned)
}

fn gunzip_base64(text: &str) -> Vec<u8> {
    let text: String = text.split_whitespace().collect();
    let raw = base64::engine::general_purpose::STANDARD
        .decode(text)
        .expect("!!binary base64");
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(raw.as_slice())
        .read_to_end(&mut out)
        .expect("gunzip body");
    out
}

/// Re-frames payload lines as SSE, one event per line, with the `event:`
/// line the typed protocols send. Files that concatenate several responses
/// (multi-step runs) are split into one interaction per response.
fn payload_lines(bytes: &[u8], protocol: &str) -> Vec<Interaction> {
    let text = String::from_utf8(bytes.to_vec()).expect("UTF-8 payload lines");
    let mut interactions = Vec::new();
    let mut body = String::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let payload: Value = serde_json::from_str(line).expect("payload line is JSON");
        let kind = payload["type"].as_str().unwrap_or_default();
        if protocol != "openai-chat" {
            body.push_str(&format!("event: {kind}\n"));
        }
        body.push_str(&format!("data: {line}\n\n"));
        let ends_response = matches!(
            kind,
            "message_stop" | "response.completed" | "response.failed" | "response.incomplete"
        );
        if ends_response {
            interactions.push(Interaction {
                status: 200,
                content_type: Some(EVENT_STREAM.to_owned()),
                body: std::mem::take(&mut body).into_bytes(),
            });
        }
    }
    if !body.is_empty() {
        interactions.push(Interaction {
            status: 200,
            content_type: Some(EVENT_STREAM.to_owned()),
            body: body.into_bytes(),
        });
    }
    interactions
}

fn status(code: Option<u64>) -> u16 {
    code.and_then(|c| u16::try_from(c).ok()).unwrap_or(200)
}
