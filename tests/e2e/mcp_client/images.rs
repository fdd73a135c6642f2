//! An MCP tool's `image` content reaching the model: `get-tiny-image` of
//! `@modelcontextprotocol/server-everything` returns a PNG beside its text; an
//! image-capable model gets it as an image in the next request (as a `read` of a PNG
//! would), a text-only model gets the note instead, and the image's bytes are stored
//! once as a blob.

use serde_json::{Value, json};
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn};

use super::*;
use crate::media::configure;

/// The tool's PNG as its data: URL, read from the installed server's source (the
/// server is the authority on what it sends).
fn tiny_image_url() -> String {
    let source = std::fs::read_to_string(
        repo_root()
            .join("tests/clients/mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/tools/get-tiny-image.js"),
    )
    .expect("server-everything is installed: run scripts/setup.sh");
    let start = source
        .find("MCP_TINY_IMAGE = \"")
        .expect("the image constant")
        + 18;
    let len = source[start..].find('"').expect("its end");
    format!("data:image/png;base64,{}", &source[start..start + len])
}

fn repo_root() -> std::path::PathBuf {
    ward_tests::polyglot::repo_root()
}

/// Runs a session whose model calls `everything_get-tiny-image` with `model` lines
/// in the model's table; the request after the call.
async fn tiny_image(name: &str, model: &str) -> (Value, Project) {
    let p = Project::new(name);
    let llm = ScriptedLlm::start(vec![
        Turn::tool("c_img", "everything_get-tiny-image", json!({})),
        Turn::text("A logo."),
    ])
    .await;
    configure(&p, &llm, "openai-compatible", model, "");
    let server = npm_server("server-everything");
    append_config(&p, &local("everything", &[&server, "stdio"], ""));
    let out = p
        .run_async(&["run", "--yes", "show me the image"], "")
        .await
        .expect_ok();
    assert!(out.contains("A logo."), "{out}");
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    (requests[1].body.clone(), p)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_tool_s_image_reaches_an_image_capable_model() {
    let (body, p) = tiny_image("mcp-image", "attachment = true").await;
    let image = json!({"type": "image_url", "image_url": {"url": tiny_image_url()}});
    let parts: Vec<&Value> = body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .collect();
    assert!(parts.contains(&&image), "{body}");
    let blobs: usize = std::fs::read_dir(p.data.join("blobs"))
        .expect("a blob directory")
        .flatten()
        .map(|fan| std::fs::read_dir(fan.path()).map_or(0, |d| d.count()))
        .sum();
    assert_eq!(blobs, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_only_model_gets_the_note_for_an_mcp_image() {
    let (body, _p) = tiny_image("mcp-image-text-only", "attachment = false").await;
    let text = body.to_string();
    assert!(!text.contains("iVBORw0K"), "no image bytes: {text}");
    assert!(
        text.contains("[image omitted: model scripted/test-model does not accept images]"),
        "{text}"
    );
    assert!(text.contains("Here's the image you requested"), "{text}");
}
