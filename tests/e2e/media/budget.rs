//! Images count toward the context window: a prompt attaching large images (by
//! their pixels, whatever their bytes) makes the next request too big for the
//! window, so the session is compacted before it is sent; the same prompt to a
//! text-only model (which gets a short note per image) is not.

use ward_session::compact::SUMMARY_REQUEST;
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn};

use super::{configure, write_bytes};

/// A PNG of `width` × `height` pixels as its header declares them (signature, IHDR,
/// IEND): what the budget reads, a few dozen bytes.
fn png_header(width: u32, height: u32) -> Vec<u8> {
    let mut png = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
    png.extend_from_slice(&13u32.to_be_bytes());
    png.extend_from_slice(b"IHDR");
    png.extend_from_slice(&width.to_be_bytes());
    png.extend_from_slice(&height.to_be_bytes());
    png.extend_from_slice(&[8, 6, 0, 0, 0]);
    png.extend_from_slice(&[0, 0, 0, 0]); // CRC: not checked by anyone here
    png.extend_from_slice(&[0, 0, 0, 0]);
    png.extend_from_slice(b"IEND");
    png.extend_from_slice(&[0xAE, 0x42, 0x60, 0x82]);
    png
}

/// Two prompts in one session, the second attaching fourteen 4000 × 3000 images
/// (≈ 1534 tokens each, about 21 500 together) to a model with a 20 000-token
/// window (1024 output: 18 976 usable); whether a summary was requested before the
/// second answer.
async fn compacted(name: &str, model: &str) -> bool {
    let p = Project::new(name);
    write_bytes(&p, "big.png", &png_header(4000, 3000));
    let llm = ScriptedLlm::start(vec![
        Turn::text("first"),
        Turn::text("## Goal\nLook at images."),
        Turn::text("second"),
        Turn::text("second"),
    ])
    .await;
    configure(&p, &llm, "openai-compatible", model, "");
    let mut config = p.read("ward.toml");
    // Into the model's table (the last one in the file).
    config.push_str("context = 20000\n");
    p.write("ward.toml", &config);
    let out = p
        .run_async(&["run", "--format", "json", "hello"], "")
        .await
        .expect_ok();
    let start = out.find("\"ses_").expect("a session id in the events") + 1;
    let len = out[start..].find('"').expect("closing quote");
    let session = out[start..start + len].to_string();
    let mut args = vec!["run", "--session", &session];
    for _ in 0..14 {
        args.extend(["-f", "big.png"]);
    }
    args.push("what are these?");
    p.run_async(&args, "").await.expect_ok();
    let requests = llm.requests();
    assert!(
        !requests[0]
            .body
            .to_string()
            .contains(&SUMMARY_REQUEST[..40]),
        "the first request is no summary request"
    );
    requests
        .iter()
        .any(|r| r.body.to_string().contains(&SUMMARY_REQUEST[..40]))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_images_fill_the_window_and_trigger_compaction() {
    assert!(
        compacted("media-budget-images", "attachment = true").await,
        "the images' tokens made the next request too large: compacted first"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_images_as_notes_for_a_text_only_model_do_not() {
    assert!(
        !compacted("media-budget-notes", "attachment = false").await,
        "fourteen short notes fit"
    );
}
