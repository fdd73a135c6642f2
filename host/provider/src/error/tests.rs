use super::*;

fn http(status: u16, body: &str) -> ProviderError {
    ProviderError::from_http(status, body, None)
}

#[test]
fn http_statuses() {
    assert!(matches!(http(429, "{}"), ProviderError::RateLimited { .. }));
    assert!(matches!(
        http(500, ""),
        ProviderError::Server {
            status: Some(500),
            ..
        }
    ));
    assert!(matches!(http(503, "oops"), ProviderError::Server { .. }));
    assert!(matches!(http(529, "{}"), ProviderError::Overloaded { .. }));
    assert!(matches!(
        http(401, "{}"),
        ProviderError::Auth {
            status: Some(401),
            ..
        }
    ));
    assert!(matches!(http(403, "{}"), ProviderError::Auth { .. }));
    assert!(matches!(
        http(400, "{}"),
        ProviderError::InvalidRequest {
            status: Some(400),
            ..
        }
    ));
    assert!(matches!(
        http(404, "{}"),
        ProviderError::InvalidRequest { .. }
    ));
    assert!(matches!(
        http(413, "{}"),
        ProviderError::ContextOverflow { .. }
    ));
    assert!(http(429, "").retryable() && http(502, "").retryable() && http(529, "").retryable());
    assert!(!http(400, "").retryable() && !http(401, "").retryable() && !http(413, "").retryable());
}

#[test]
fn context_overflow_messages() {
    let openai = r#"{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#;
    let anthropic = r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#;
    for body in [openai, anthropic] {
        let error = http(400, body);
        assert!(
            matches!(error, ProviderError::ContextOverflow { .. }),
            "{error:?}"
        );
        assert!(!error.retryable());
    }
}

#[test]
fn bodies_decide_over_ambiguous_statuses() {
    let overloaded =
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    assert!(matches!(
        http(500, overloaded),
        ProviderError::Overloaded { .. }
    ));
    let rate = r#"{"error":{"message":"Rate limit reached for gpt-4o","type":"requests","code":"rate_limit_exceeded"}}"#;
    assert!(matches!(http(400, rate), ProviderError::RateLimited { .. }));
    let quota = r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#;
    assert!(matches!(
        http(429, quota),
        ProviderError::QuotaExceeded { .. }
    ));
}

#[test]
fn in_band_payloads() {
    let payload: Value = serde_json::from_str(
        r#"{"type":"error","error":{"details":null,"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}"#,
    )
    .unwrap_or_default();
    let error = ProviderError::from_payload(&payload);
    assert_eq!(
        error,
        ProviderError::Overloaded {
            message: "Overloaded".into(),
            retry_after: None
        }
    );
    let openrouter: Value =
        serde_json::from_str(r#"{"error":{"code":400,"message":"Token limit reached"}}"#)
            .unwrap_or_default();
    assert!(matches!(
        ProviderError::from_payload(&openrouter),
        ProviderError::InvalidRequest {
            status: Some(400),
            ..
        }
    ));
    let api: Value = serde_json::from_str(
        r#"{"type":"error","error":{"type":"api_error","message":"Internal"}}"#,
    )
    .unwrap_or_default();
    assert!(ProviderError::from_payload(&api).retryable());
    let unknown: Value = serde_json::from_str(r#"{"type":"error","code":"weird","message":"?"}"#)
        .unwrap_or_default();
    assert!(matches!(
        ProviderError::from_payload(&unknown),
        ProviderError::Api { .. }
    ));
}

#[test]
fn non_json_bodies_keep_a_snippet() {
    let long = "x".repeat(2000);
    let ProviderError::Server { message, .. } = http(502, &long) else {
        panic!("502 must be a server error");
    };
    assert!(message.chars().count() <= 501);
    assert!(http(500, "").to_string().contains("empty body"));
}
