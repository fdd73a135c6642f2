//! Careless and malformed requests: each gets a 4xx naming what is wrong and
//! where, none stops the server or touches a session.

use serde_json::{Value, json};
use ward_tests::llm::Turn;

use super::{Served, project_asking_for_reads};

fn message(body: &str) -> String {
    let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
    v["data"]["message"]
        .as_str()
        .expect("an error message")
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_a_clear_error_and_the_server_goes_on() {
    let (p, llm) = project_asking_for_reads("serve-input", vec![Turn::text("FINE")]).await;
    let served = Served::start(&p, &[], &[]).await;
    let (status, body) = served.call("POST", "/session", Some("{}")).await;
    assert_eq!(status, 200, "{body}");
    let session: Value = serde_json::from_str(&body).expect("json");
    let id = session["id"].as_str().expect("id");
    let prompt = format!("/session/{id}/message");

    // JSON that does not fit names the field.
    for (body, field) in [
        (r#"{"parts":[{"type":"text"}]}"#, "parts[0]"),
        (r#"{"parts":[{"type":"video","url":"x"}]}"#, "parts[0]"),
        (r#"{"parts":5}"#, "parts"),
        (r#"{"parts":[],"bogus":1}"#, "bogus"),
        (r#"{}"#, "parts"),
        (
            r#"{"parts":[{"type":"text","text":"hi"}],"model":{"providerID":1}}"#,
            "model",
        ),
        (
            r#"{"parts":[{"type":"text","text":"hi"}],"noReply":true}"#,
            "noReply",
        ),
        (
            r#"{"parts":[{"type":"text","text":"hi"}],"agent":"nobody"}"#,
            "agent",
        ),
        (r#"{"parts":[{"type":"text","text":"   "}]}"#, "parts"),
        // File parts are taken; a broken one is refused naming it.
        (
            r#"{"parts":[{"type":"text","text":"hi"},{"type":"file","mime":"image/png","url":"data:x"}]}"#,
            "parts[1]",
        ),
        (
            r#"{"parts":[{"type":"text","text":"hi"},{"type":"file","mime":"image/png","url":"file://elsewhere/x.png"}]}"#,
            "parts[1].url",
        ),
    ] {
        let (status, answer) = served.call("POST", &prompt, Some(body)).await;
        assert_eq!(status, 400, "{body} → {answer}");
        let said = message(&answer);
        assert!(said.contains(field), "{body}: {said:?} should name {field}");
    }
    // Not JSON at all.
    let (status, answer) = served.call("POST", &prompt, Some("{parts: [")).await;
    assert_eq!(status, 400, "{answer}");
    assert!(message(&answer).contains("request body"));
    let (status, _) = served
        .call("PATCH", &format!("/session/{id}"), Some(r#"{"title": 7}"#))
        .await;
    assert_eq!(status, 400);
    let (status, answer) = served
        .call(
            "POST",
            "/permission/per_nope/reply",
            Some(r#"{"reply":"sometimes"}"#),
        )
        .await;
    assert_eq!(status, 400, "{answer}");
    assert!(message(&answer).contains("reply"));
    let (status, _) = served
        .raw(
            "GET",
            "/event",
            &[
                &format!("Authorization: Bearer {}", served.token),
                "Last-Event-ID: yesterday",
            ],
            None,
        )
        .await;
    assert_eq!(status, 400);

    // Unknown ids are 404s.
    for (method, path, body) in [
        ("GET", "/session/ses_nope".to_string(), None),
        ("DELETE", "/session/ses_nope".to_string(), None),
        ("GET", "/session/ses_nope/message".to_string(), None),
        ("GET", "/session/ses_nope/children".to_string(), None),
        ("GET", "/session/ses_nope/todo".to_string(), None),
        ("POST", "/session/ses_nope/abort".to_string(), None),
        ("GET", format!("/session/{id}/message/msg_nope"), None),
        (
            "POST",
            "/session/ses_nope/message".to_string(),
            Some(r#"{"parts":[{"type":"text","text":"hi"}]}"#),
        ),
        (
            "POST",
            "/permission/per_nope/reply".to_string(),
            Some(r#"{"reply":"once"}"#),
        ),
        (
            "POST",
            format!("/session/{id}/permissions/per_nope"),
            Some(r#"{"response":"once"}"#),
        ),
    ] {
        let (status, answer) = served.call(method, &path, body).await;
        assert_eq!(status, 404, "{method} {path}: {answer}");
        assert_eq!(
            serde_json::from_str::<Value>(&answer).expect("json")["name"],
            "NotFoundError"
        );
    }

    // None of it reached the model, and the session still works.
    assert!(llm.requests().is_empty());
    let (status, answer) = served
        .call(
            "POST",
            &prompt,
            Some(&json!({ "parts": [{ "type": "text", "text": "hi" }] }).to_string()),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains("FINE"));
    let (status, _) = served.call("GET", "/doc", None).await;
    assert_eq!(status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_configuration_goes_out_without_secrets_in_the_same_shape() {
    let (p, _llm) = project_asking_for_reads("serve-config", vec![Turn::text("x")]).await;
    let toml = p.read("ward.toml");
    let toml = toml.replace(
        "api_key = \"test-key\"",
        "api_key = \"sk-live-SECRET\"\nheaders = { Authorization = \"Bearer HDR-SECRET\" }",
    );
    p.write("ward.toml", &toml);
    // The user's own layer (trusted, so its `{env:…}` resolves); the servers are
    // disabled, so nothing starts.
    let user = "[mcp.d]\ntype = \"local\"\nenabled = false\n\
                command = [\"srv\", \"--token\", \"{env:WARD_TEST_TOKEN}\"]\n\
                environment = { LEVEL = \"ENV-SECRET\" }\n\
                [mcp.r]\ntype = \"remote\"\nenabled = false\n\
                url = \"https://me:URL-SECRET@mcp.example/mcp\"\n";
    let served = Served::start(
        &p,
        &[],
        &[
            ("WARD_CONFIG_CONTENT", user),
            ("WARD_TEST_TOKEN", "SUBST-SECRET"),
        ],
    )
    .await;
    let (status, body) = served.call("GET", "/config", None).await;
    assert_eq!(status, 200, "{body}");
    assert!(!body.contains("SECRET"), "a secret left the server: {body}");
    let config: Value = serde_json::from_str(&body).expect("json");
    let provider = &config["provider"]["scripted"];
    assert_eq!(provider["api_key"], "***");
    // Still a map of headers, as OpenCode's clients expect: only values change.
    assert_eq!(provider["headers"], json!({ "Authorization": "***" }));
    assert_eq!(
        config["mcp"]["d"]["command"],
        json!(["srv", "--token", "***"])
    );
    assert_eq!(config["mcp"]["d"]["environment"]["LEVEL"], "***");
    assert_eq!(config["mcp"]["r"]["url"], "https://***@mcp.example/mcp");
    assert_eq!(config["model"], "scripted/test-model");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_created_with_a_model_sends_its_prompts_there() {
    let (p, llm) = project_asking_for_reads("serve-session-model", vec![Turn::text("OK")]).await;
    let served = Served::start(&p, &[], &[]).await;
    // As OpenCode's terminal UI creates one: the model picked, by provider and id.
    let (status, body) = served
        .call(
            "POST",
            "/session",
            Some(
                &json!({ "model": { "providerID": "scripted", "id": "other-model" } }).to_string(),
            ),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let session: Value = serde_json::from_str(&body).expect("session");
    assert_eq!(session["model"]["id"], "other-model", "{body}");
    let id = session["id"].as_str().expect("id");
    let (status, body) = served.send_text(id, "message", "hi").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(llm.requests()[0].body["model"], "other-model");

    // A model nobody serves, or a field Ward does not take, is a 400 naming it, and
    // no session is left behind for it.
    let (_, before) = served.call("GET", "/session", None).await;
    for (model, named) in [
        (
            json!({ "providerID": "nope", "id": "x" }),
            "unknown provider `nope`",
        ),
        (
            json!({ "providerID": "scripted", "id": "x", "variant": "high" }),
            "model.variant",
        ),
    ] {
        let (status, body) = served
            .call(
                "POST",
                "/session",
                Some(&json!({ "model": model }).to_string()),
            )
            .await;
        assert_eq!(status, 400, "{body}");
        assert!(message(&body).contains(named), "{body}");
    }
    let (_, after) = served.call("GET", "/session", None).await;
    assert_eq!(before, after);
}
