//! Images a tool returns and files a user attaches: in each provider's format for a
//! model that takes them, a note for one that does not, and hostile files refused
//! with the reason.

use serde_json::{Value, json};
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn, Wire};

use super::{PNG, configure, png_data_url, ward_run, write_bytes};

/// Every JSON object anywhere in `value`.
fn objects(value: &Value) -> Vec<&Value> {
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                out.push(v);
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    out
}

/// `read` of a PNG; returns the request that followed the tool call.
async fn read_png(kind: &str, model: &str) -> (Value, Project) {
    let p = Project::new(&format!("media-read-{kind}-{}", model.len()));
    write_bytes(&p, "pic.png", PNG);
    let llm = ScriptedLlm::start(vec![
        Turn::tool("call_1", "read", json!({"filePath": "pic.png"})),
        Turn::text("A single pixel."),
    ])
    .await;
    configure(&p, &llm, kind, model, "");
    let out = ward_run(&p, &["--yes", "what is in pic.png?"])
        .await
        .expect_ok();
    assert!(out.contains("A single pixel."), "{out}");
    let requests = llm.requests();
    assert_eq!(requests.len(), 2, "{kind}");
    (requests[1].body.clone(), p)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_image_reaches_an_anthropic_model_inside_the_tool_result() {
    let (body, p) = read_png("anthropic", "attachment = true").await;
    let result = objects(&body)
        .into_iter()
        .find(|o| o["type"] == "tool_result")
        .cloned()
        .unwrap_or_else(|| panic!("no tool_result: {body}"));
    assert_eq!(result["tool_use_id"], "call_1");
    let data = png_data_url()
        .trim_start_matches("data:image/png;base64,")
        .to_string();
    assert_eq!(
        result["content"][1],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}),
        "{result}"
    );
    // Stored once, referred to by the part.
    let blobs: usize = walk(&p.data.join("blobs"));
    assert_eq!(blobs, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_image_reaches_a_responses_model_as_input_image() {
    let (body, _p) = read_png("openai-responses", "attachment = true").await;
    let output = objects(&body)
        .into_iter()
        .find(|o| o["type"] == "function_call_output")
        .cloned()
        .unwrap_or_else(|| panic!("no function_call_output: {body}"));
    assert_eq!(output["call_id"], "call_1");
    assert_eq!(
        output["output"][1],
        json!({"type": "input_image", "image_url": png_data_url()}),
        "{output}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_image_reaches_a_chat_model_in_a_user_message_after_the_results() {
    let (body, _p) = read_png("openai-compatible", "attachment = true").await;
    let messages = body["messages"].as_array().unwrap();
    let tool = messages
        .iter()
        .position(|m| m["role"] == "tool")
        .unwrap_or_else(|| panic!("{body}"));
    assert_eq!(messages[tool]["tool_call_id"], "call_1");
    assert!(
        messages[tool]["content"].is_string(),
        "tool messages hold text only"
    );
    let next = &messages[tool + 1];
    assert_eq!(next["role"], "user", "{body}");
    assert_eq!(
        next["content"][1],
        json!({"type": "image_url", "image_url": {"url": png_data_url()}}),
        "{next}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_only_model_gets_a_note_instead_of_the_image() {
    for kind in ["openai-compatible", "anthropic", "openai-responses"] {
        let (body, _p) = read_png(kind, "attachment = false").await;
        let text = body.to_string();
        assert!(
            !text.contains("data:image") && !text.contains("iVBORw0K"),
            "{kind}: {text}"
        );
        assert!(
            text.contains("[image omitted: model scripted/test-model does not accept images]"),
            "{kind}: {text}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ward_run_f_and_an_at_mention_attach_an_image_to_the_prompt() {
    for (kind, wire) in [
        ("anthropic", Wire::Anthropic),
        ("openai-compatible", Wire::ChatCompletions),
        ("openai-responses", Wire::Responses),
    ] {
        let p = Project::new(&format!("media-attach-{kind}"));
        write_bytes(&p, "pic.png", PNG);
        let llm = ScriptedLlm::start(vec![Turn::text("seen"), Turn::text("seen again")]).await;
        configure(&p, &llm, kind, "attachment = true", "");
        ward_run(&p, &["-f", "pic.png", "describe it"])
            .await
            .expect_ok();
        ward_run(&p, &["--yes", "and @pic.png?"]).await.expect_ok();
        let requests = llm.requests();
        assert_eq!(requests.len(), 2);
        for request in &requests {
            assert_eq!(request.wire, Some(wire));
            let image = match wire {
                Wire::Anthropic => {
                    let data = png_data_url()
                        .trim_start_matches("data:image/png;base64,")
                        .to_string();
                    json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}})
                }
                Wire::ChatCompletions => {
                    json!({"type": "image_url", "image_url": {"url": png_data_url()}})
                }
                Wire::Responses => json!({"type": "input_image", "image_url": png_data_url()}),
            };
            assert!(
                objects(&request.body).contains(&&image),
                "{kind}: {}",
                request.body
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_files_are_refused_with_the_reason() {
    let p = Project::new("media-hostile");
    // Six MiB that start like a PNG; text named like one; nothing at all named like a PDF.
    let mut huge = PNG.to_vec();
    huge.resize(6 * 1024 * 1024, 0);
    write_bytes(&p, "huge.png", &huge);
    p.write("fake.png", "this is text, not an image\n");
    let llm = ScriptedLlm::start(vec![
        Turn::tool("c1", "read", json!({"filePath": "fake.png"})),
        Turn::tool("c2", "read", json!({"filePath": "huge.png"})),
        Turn::text("ok"),
    ])
    .await;
    configure(&p, &llm, "anthropic", "attachment = true", "");
    let err = ward_run(&p, &["-f", "huge.png", "look"]).await.expect_err();
    assert!(
        err.contains(
            "huge.png is too large to attach (6291456 bytes; the limit is 5242880 bytes, 5 MiB)"
        ),
        "{err}"
    );
    let err = ward_run(&p, &["-f", "fake.png", "look"]).await.expect_err();
    assert!(
        err.contains("fake.png is not an image or a PDF: its content is text"),
        "{err}"
    );
    let err = ward_run(&p, &["-f", "missing.png", "look"])
        .await
        .expect_err();
    assert!(err.contains("missing.png"), "{err}");
    assert!(
        llm.requests().is_empty(),
        "nothing was sent for a refused file"
    );

    // Read by the model: each refusal is the tool's answer, and nothing is attached.
    ward_run(&p, &["--yes", "look at both"]).await.expect_ok();
    let requests = llm.requests();
    let second = requests[1].body.to_string();
    assert!(
        second.contains(
            "fake.png is named like image/png but its content is not (text); nothing was attached"
        ),
        "{second}"
    );
    let third = requests[2].body.to_string();
    assert!(third.contains("too large to attach"), "{third}");
    assert!(!third.contains("\"type\":\"image\""), "{third}");
}

/// Files under `dir`, recursively (0 when it does not exist).
fn walk(dir: &std::path::Path) -> usize {
    let Ok(read) = std::fs::read_dir(dir) else {
        return 0;
    };
    read.flatten()
        .map(|e| match e.path().is_dir() {
            true => walk(&e.path()),
            false => 1,
        })
        .sum()
}
