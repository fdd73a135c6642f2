//! A prompt body's `file` parts and `variant` through `ward serve`, sent by the
//! official OpenCode SDK (`tests/clients/opencode/files.mjs`): a `data:` URL and a
//! `file://` URL reach an image-capable model as images, stored once (one blob for
//! the same bytes), with the variant's fields in the request; text posing as an
//! image, an `http:` URL and an unknown variant are refused with a 400 naming what is
//! wrong, and nothing is stored for them.

use serde_json::{Value, json};
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn};

use super::Served;
use crate::media::{PNG, configure, png_data_url, write_bytes};

/// Files under `dir`, recursively.
fn count_files(dir: &std::path::Path) -> usize {
    let Ok(read) = std::fs::read_dir(dir) else {
        return 0;
    };
    read.flatten()
        .map(|e| match e.path().is_dir() {
            true => count_files(&e.path()),
            false => 1,
        })
        .sum()
}

/// The `error.data.message` (or message) of a refusal.
fn message(refusal: &Value) -> String {
    let e = &refusal["error"];
    e["data"]["message"]
        .as_str()
        .or(e["message"].as_str())
        .map_or_else(|| e.to_string(), str::to_string)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_opencode_sdk_attaches_images_and_picks_a_variant() {
    let p = Project::new("serve-files");
    write_bytes(&p, "pic.png", PNG);
    let llm = ScriptedLlm::start(vec![Turn::text("Two pixels."), Turn::text("unused")]).await;
    configure(
        &p,
        &llm,
        "openai-compatible",
        "attachment = true\nreasoning = true\n\
         [provider.scripted.models.test-model.variants]\n\
         high = { reasoning_effort = \"high\" }",
        "",
    );
    let served = Served::start(&p, &[], &[]).await;
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("clients/opencode");
    assert!(
        dir.join("node_modules/@opencode-ai/sdk").is_dir(),
        "the OpenCode SDK is not installed: run scripts/setup.sh"
    );
    let out = tokio::process::Command::new("node")
        .arg(dir.join("files.mjs"))
        .env("WARD_URL", &served.url)
        .env("WARD_TOKEN", &served.token)
        .env("WARD_PNG_URL", png_data_url())
        .env("WARD_PNG_PATH", p.path("pic.png"))
        .output()
        .await
        .expect("run node");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "files.mjs failed: {stderr}");
    let t: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("files.mjs printed no transcript ({e}): {stderr}"));

    // One model call: both images in the user's message, the variant's field set.
    let requests = llm.requests();
    assert_eq!(
        requests.len(),
        1,
        "only the accepted prompt reached the model"
    );
    let body = &requests[0].body;
    assert_eq!(body["reasoning_effort"], "high", "{body}");
    let user = body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .rfind(|m| m["role"] == "user")
        .expect("a user message");
    let image = json!({"type": "image_url", "image_url": {"url": png_data_url()}});
    let images = user["content"]
        .as_array()
        .expect("content parts")
        .iter()
        .filter(|c| **c == image)
        .count();
    assert_eq!(images, 2, "{user}");
    assert_eq!(t["answer"]["info"]["role"], "assistant", "{t}");

    // Stored as file parts referring to one blob (the same bytes twice).
    let parts = t["messages"][0]["parts"].as_array().expect("parts");
    let files: Vec<&Value> = parts.iter().filter(|p| p["type"] == "file").collect();
    assert_eq!(files.len(), 2, "{parts:?}");
    assert_eq!(files[0]["filename"], "inline.png", "{files:?}");
    assert!(files.iter().all(|f| f["mime"] == "image/png"), "{files:?}");
    assert_eq!(count_files(&p.data.join("blobs")), 1);

    // Refusals: a 400 naming what is wrong; nothing stored for them.
    assert_eq!(t["notImage"]["status"], 400, "{t}");
    assert!(
        message(&t["notImage"]).contains("fake.png is not an image or a PDF"),
        "{}",
        t["notImage"]
    );
    assert_eq!(t["http"]["status"], 400, "{t}");
    assert!(
        message(&t["http"]).contains("parts[1].url"),
        "{}",
        t["http"]
    );
    assert_eq!(t["badVariant"]["status"], 400, "{t}");
    assert!(
        message(&t["badVariant"]).contains("no variant `ultra`"),
        "{}",
        t["badVariant"]
    );
    assert_eq!(t["after"], 2, "the refused prompts left no message: {t}");
}
