//! Reasoning variants and reasoning sent back: a variant's fields in the request of
//! each protocol (`--variant`, an agent's `variant`, the bundled catalogue's), an
//! unknown variant named with the valid ones, and a recorded provider's signed
//! thinking block and encrypted reasoning item going back on the next request.

use serde_json::{Value, json};
use ward_store::{SqliteStore, Store};
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn, recorded_stream};

use super::{configure, ward_run};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_variant_sets_its_fields_on_each_protocol() {
    let cases = [
        (
            "openai-responses",
            "high = { reasoning = { effort = \"high\" } }",
            "/reasoning/effort",
            json!("high"),
        ),
        (
            "openai-compatible",
            "high = { reasoning_effort = \"high\" }",
            "/reasoning_effort",
            json!("high"),
        ),
        (
            "anthropic",
            "high = { thinking = { type = \"enabled\", budget_tokens = 2048 } }",
            "/thinking/budget_tokens",
            json!(2048),
        ),
    ];
    for (kind, variant, pointer, expected) in cases {
        let p = Project::new(&format!("media-variant-{kind}"));
        let llm = ScriptedLlm::start(vec![Turn::text("a"), Turn::text("b"), Turn::text("c")]).await;
        let model =
            format!("reasoning = true\n[provider.scripted.models.test-model.variants]\n{variant}");
        configure(&p, &llm, kind, &model, "[agent.plan]\nvariant = \"high\"\n");
        ward_run(&p, &["--variant", "high", "think hard"])
            .await
            .expect_ok();
        ward_run(&p, &["think less"]).await.expect_ok();
        ward_run(&p, &["--agent", "plan", "plan it"])
            .await
            .expect_ok();
        let requests = llm.requests();
        assert_eq!(
            requests[0].body.pointer(pointer),
            Some(&expected),
            "{kind}: {}",
            requests[0].body
        );
        assert_eq!(
            requests[1].body.pointer(pointer),
            None,
            "{kind}: no variant, no field"
        );
        assert_eq!(
            requests[2].body.pointer(pointer),
            Some(&expected),
            "{kind}: the agent's variant"
        );
        if kind == "anthropic" {
            // Thinking needs room above its budget, and no sampling changes.
            assert_eq!(requests[0].body["max_tokens"], 2048 + 4096);
            assert!(requests[0].body.get("temperature").is_none());
        }
        if kind == "openai-responses" {
            assert_eq!(
                requests[0].body["include"],
                json!(["reasoning.encrypted_content"])
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_catalogues_variants_apply_and_an_unknown_one_names_the_valid_ones() {
    let p = Project::new("media-variant-catalogue");
    let llm = ScriptedLlm::start(vec![Turn::text("deep")]).await;
    p.write(
        "ward.toml",
        &format!(
            "model = \"anthropic/claude-sonnet-4-5\"\n[provider.anthropic]\nbase_url = \"{}/v1\"\napi_key = \"k\"\n",
            llm.base_url
        ),
    );
    ward_run(&p, &["--variant", "max", "go"]).await.expect_ok();
    let body = &llm.requests()[0].body;
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 31999})
    );
    assert_eq!(body["max_tokens"], 32000);

    let err = ward_run(&p, &["--variant", "ultra", "go"])
        .await
        .expect_err();
    assert!(
        err.contains("model `anthropic/claude-sonnet-4-5` has no variant `ultra`; its variants are: high, max"),
        "{err}"
    );
    assert_eq!(
        llm.requests().len(),
        1,
        "nothing sent for an unknown variant"
    );
    let store = SqliteStore::open(p.data.join("ward.db")).unwrap();
    assert_eq!(
        store.list_sessions().unwrap().len(),
        1,
        "nothing stored for an unknown variant either"
    );

    let models = p.ward().arg("models").arg("anthropic").output().unwrap();
    let out = String::from_utf8_lossy(&models.stdout);
    assert!(out.contains("    variants: high, max"), "{out}");
}

/// The one session's id.
fn session_id(p: &Project) -> String {
    let store = SqliteStore::open(p.data.join("ward.db")).unwrap();
    store.list_sessions().unwrap()[0].id.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorded_signed_thinking_block_goes_back_verbatim() {
    let p = Project::new("media-thinking-back");
    let recorded = recorded_stream("vercel-ai/anthropic/anthropic-clear-thinking.1.chunks.txt");
    let llm = ScriptedLlm::start(vec![Turn::Raw(recorded), Turn::text("ok")]).await;
    configure(&p, &llm, "anthropic", "reasoning = true", "");
    let out = ward_run(&p, &["what is 925 / 5?"]).await.expect_ok();
    assert!(out.contains("925 ÷ 5 = 185"), "{out}");
    let id = session_id(&p);
    ward_run(&p, &["--session", &id, "thanks"])
        .await
        .expect_ok();
    let body = &llm.requests()[1].body;
    let assistant = &body["messages"][1];
    assert_eq!(assistant["role"], "assistant", "{body}");
    assert_eq!(
        assistant["content"][0],
        json!({
            "type": "thinking",
            "thinking": "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185",
            "signature": "EvQBCkYICxgCKkAxhD4NUKFzudtZ6NzbZdEiBACIScTzqjPViM596iWLZIk4EFKYYBj3B6Ptl3b0dcQv/VeJBNbejNWIWRBn+KPNEgz6HWtKx7p+QRgKsEoaDGjsiqfht7gTRFYHiyIwD1VSmNqHxv3wy8KEMP+LYb/TC4UH3H97tuoaADARFFcA0phdfxnzKQxFnc9lwY+dKlzUsaKSUAFeu1bDL5ikZJ1vL0Fkz6JjoFke0L/wOJRIUDUlDUOFJ1tZ3ea7g6LGE/5hwuvWgLwewdcm64d+43l7F57XrOmqNd6flI2K/oPr/4yzNgvi/EhT6Ca17BgB",
        }),
        "{assistant}"
    );
    assert_eq!(
        assistant["content"][1],
        json!({"type": "text", "text": "925 ÷ 5 = 185"})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redacted_thinking_block_goes_back_as_it_came() {
    let p = Project::new("media-redacted-back");
    let events = [
        json!({"type": "message_start", "message": {"id": "msg_1", "usage": {"input_tokens": 5, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": "done"}}),
        json!({"type": "content_block_stop", "index": 1}),
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}}),
        json!({"type": "message_stop"}),
    ];
    let raw: String = events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
        .collect();
    let llm = ScriptedLlm::start(vec![Turn::Raw(raw), Turn::text("ok")]).await;
    configure(&p, &llm, "anthropic", "reasoning = true", "");
    ward_run(&p, &["hi"]).await.expect_ok();
    let id = session_id(&p);
    ward_run(&p, &["--session", &id, "again"]).await.expect_ok();
    let assistant = &llm.requests()[1].body["messages"][1];
    assert_eq!(
        assistant["content"][0],
        json!({"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT"}),
        "{assistant}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorded_encrypted_reasoning_item_goes_back_on_the_next_request() {
    let p = Project::new("media-encrypted-back");
    let recorded = recorded_stream(
        "vercel-ai/openai/responses/openai-reasoning-encrypted-content.1.chunks.txt",
    );
    // The recorded item: what must go back, byte for byte.
    let item: Value = recorded
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["type"] == "response.output_item.done" && e["item"]["type"] == "reasoning")
        .map(|e| e["item"].clone())
        .expect("a reasoning item in the recording");
    let llm = ScriptedLlm::start(vec![
        Turn::Raw(recorded),
        Turn::text("ok"),
        Turn::text("ok"),
    ])
    .await;
    configure(&p, &llm, "openai-responses", "reasoning = true", "");
    ward_run(&p, &["--yes", "compute"]).await.expect_ok();
    let requests = llm.requests();
    assert_eq!(
        requests[0].body["include"],
        json!(["reasoning.encrypted_content"])
    );
    let last = &requests.last().unwrap().body;
    let sent = last["input"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "reasoning")
        .unwrap_or_else(|| panic!("no reasoning item: {last}"));
    assert_eq!(sent["id"], item["id"]);
    assert_eq!(sent["encrypted_content"], item["encrypted_content"]);
    assert!(
        item["encrypted_content"]
            .as_str()
            .is_some_and(|c| c.len() > 100),
        "{item}"
    );
}
