//! Blob collection on `ward session delete`: a deleted session's attachment bytes
//! are removed when no other session refers to them — its subagent's (a `read` of a
//! PNG in a child session) and its own prompt's — while a blob a fork shares
//! survives and still reaches the model from the fork.

use serde_json::json;
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn};

use super::transfer::session_in;
use crate::media::{PNG, configure, png_data_url, write_bytes};

/// The blob files under the project's data directory.
fn blobs(p: &Project) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(fans) = std::fs::read_dir(p.data.join("blobs")) else {
        return out;
    };
    for fan in fans.flatten() {
        for file in std::fs::read_dir(fan.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            out.push(file.file_name().to_string_lossy().into_owned());
        }
    }
    out.sort();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_a_session_drops_the_blobs_only_it_refers_to() {
    let p = Project::new("sessions-blob-gc");
    write_bytes(&p, "shared.png", PNG);
    // Another PNG (different bytes, so another blob): trailing bytes after IEND.
    let mut own = PNG.to_vec();
    own.extend_from_slice(b"own");
    write_bytes(&p, "own.png", &own);
    let mut child = PNG.to_vec();
    child.extend_from_slice(b"child");
    write_bytes(&p, "child.png", &child);
    let llm = ScriptedLlm::start(vec![
        Turn::text("first"),
        Turn::tool(
            "c_task",
            "task",
            json!({ "description": "look", "prompt": "Look at child.png", "subagent_type": "explore" }),
        ),
        Turn::tool("c_read", "read", json!({ "filePath": "child.png" })),
        Turn::text("A pixel."),
        Turn::text("second"),
        Turn::text("from the fork"),
    ])
    .await;
    configure(&p, &llm, "openai-compatible", "attachment = true", "");

    // The source: the shared image attached to its first prompt.
    let out = p
        .run_async(&["run", "--format", "json", "-f", "shared.png", "one"], "")
        .await
        .expect_ok();
    let source = session_in(&out);
    let shared_blob = blobs(&p);
    assert_eq!(shared_blob.len(), 1);
    // The fork copies that prompt: the blob is now shared.
    let fork = p
        .run_async(&["session", "fork", &source], "")
        .await
        .expect_ok();
    let fork = fork.trim().to_string();
    // Only the source: a subagent reads a PNG in a child session, and a second
    // prompt attaches another.
    p.run_async(
        &["run", "--yes", "--session", &source, "-f", "own.png", "two"],
        "",
    )
    .await
    .expect_ok();
    assert_eq!(blobs(&p).len(), 3, "shared, own, child: {:?}", blobs(&p));

    p.run_async(&["session", "delete", &source], "")
        .await
        .expect_ok();
    assert_eq!(
        blobs(&p),
        shared_blob,
        "only the blob the fork shares is left"
    );

    // The fork still sends its image.
    p.run_async(&["run", "--session", &fork, "three"], "")
        .await
        .expect_ok();
    let last = llm.requests().last().expect("a request").body.clone();
    let image = json!({"type": "image_url", "image_url": {"url": png_data_url()}});
    assert!(
        last["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .filter_map(|m| m["content"].as_array())
            .flatten()
            .any(|c| *c == image),
        "{last}"
    );

    p.run_async(&["session", "delete", &fork], "")
        .await
        .expect_ok();
    assert!(blobs(&p).is_empty(), "{:?}", blobs(&p));
}
