//! HTTP-level failures against a local server: error statuses and their
//! classification, retry hints, in-band errors, unreachable servers, and the
//! shape of the requests the client sends.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is how a test fails"
)]

#[allow(
    dead_code,
    reason = "shared by several test binaries, each using a part"
)]
mod common;

use std::time::Duration;

use futures_util::StreamExt;
use ward_provider::{Client, Endpoint, Event, FinishReason, Protocol, ProviderError, RetryPolicy};

use common::server::{Reply, serve};
use common::{error, request, run};

#[tokio::test]
async fn http_429_with_retry_after_is_retried_after_that_delay() {
    let body = r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#;
    let reply = Reply::with_type(429, "application/json", body).header("retry-after", "1");
    let error = error(&run(Protocol::OpenaiChat, reply).await);
    assert!(
        matches!(error, ProviderError::RateLimited { retry_after: Some(d), .. } if d == Duration::from_secs(1))
    );
    assert!(error.retryable());
    assert_eq!(
        RetryPolicy::default().delay(1, &error),
        Some(Duration::from_secs(1))
    );
}

#[tokio::test]
async fn retry_after_ms_wins() {
    let reply = Reply::with_type(429, "application/json", "{}")
        .header("retry-after-ms", "1500")
        .header("retry-after", "9");
    let error = error(&run(Protocol::AnthropicMessages, reply).await);
    assert_eq!(error.retry_after(), Some(Duration::from_millis(1500)));
}

#[tokio::test]
async fn http_500_is_retryable_with_backoff() {
    let error = error(
        &run(
            Protocol::OpenaiResponses,
            Reply::with_type(500, "text/plain", "upstream failed"),
        )
        .await,
    );
    assert!(
        matches!(&error, ProviderError::Server { status: Some(500), message, .. } if message == "upstream failed")
    );
    assert_eq!(
        RetryPolicy::default().delay(1, &error),
        Some(Duration::from_secs(2))
    );
    assert_eq!(
        RetryPolicy::default().delay(3, &error),
        Some(Duration::from_secs(8))
    );
}

#[tokio::test]
async fn http_529_overloaded_is_retryable() {
    let body = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let error = error(
        &run(
            Protocol::AnthropicMessages,
            Reply::with_type(529, "application/json", body),
        )
        .await,
    );
    assert!(matches!(error, ProviderError::Overloaded { .. }) && error.retryable());
}

#[tokio::test]
async fn http_400_is_final() {
    let body = r#"{"error":{"message":"Unknown parameter: 'foo'.","type":"invalid_request_error","code":"unknown_parameter"}}"#;
    let error = error(
        &run(
            Protocol::OpenaiChat,
            Reply::with_type(400, "application/json", body),
        )
        .await,
    );
    assert!(
        matches!(
            error,
            ProviderError::InvalidRequest {
                status: Some(400),
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(RetryPolicy::default().delay(1, &error), None);
}

#[tokio::test]
async fn http_401_is_auth() {
    let body =
        r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#;
    let error = error(
        &run(
            Protocol::AnthropicMessages,
            Reply::with_type(401, "application/json", body),
        )
        .await,
    );
    assert!(
        matches!(
            error,
            ProviderError::Auth {
                status: Some(401),
                ..
            }
        ) && !error.retryable()
    );
}

#[tokio::test]
async fn context_overflow_is_its_own_final_error() {
    let openai = r#"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#;
    let anthropic = r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}"#;
    for (protocol, body) in [
        (Protocol::OpenaiChat, openai),
        (Protocol::AnthropicMessages, anthropic),
    ] {
        let error = error(&run(protocol, Reply::with_type(400, "application/json", body)).await);
        assert!(
            matches!(error, ProviderError::ContextOverflow { .. }),
            "{error:?}"
        );
        assert!(!error.retryable());
    }
}

#[tokio::test]
async fn in_band_overloaded_event_is_retryable() {
    let body = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":5}}}\n\n\
                event: error\ndata: {\"type\":\"error\",\"error\":{\"details\":null,\"type\":\"overloaded_error\",\"message\":\"Overloaded\"},\"request_id\":\"req_1\"}\n\n";
    let error = error(&run(Protocol::AnthropicMessages, Reply::sse(200, body)).await);
    assert!(matches!(error, ProviderError::Overloaded { .. }) && error.retryable());
}

#[tokio::test]
async fn json_error_with_status_200_is_classified() {
    let body = r#"{"error":{"message":"Rate limit exceeded: free-models-per-min","code":429}}"#;
    let error = error(
        &run(
            Protocol::OpenaiChat,
            Reply::with_type(200, "application/json", body),
        )
        .await,
    );
    assert!(
        matches!(error, ProviderError::RateLimited { .. }),
        "{error:?}"
    );
}

#[tokio::test]
async fn connection_refused_is_a_retryable_connect_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    drop(listener);
    let endpoint = Endpoint::new(format!("http://{addr}/v1"));
    let events: Vec<Event> = ward_provider::stream(
        &Client::new(),
        Protocol::AnthropicMessages,
        &endpoint,
        &request(),
    )
    .collect()
    .await;
    let error = error(&events);
    assert!(error.is_connect() && error.retryable(), "{error:?}");
    assert_eq!(
        error.to_string(),
        format!("could not connect: connection refused by {addr}")
    );
}

#[tokio::test]
async fn requests_carry_auth_version_and_extra_headers() {
    let server = serve(vec![
        Reply::sse(
            200,
            "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        ),
        Reply::sse(200, "data: [DONE]\n\n"),
    ])
    .await;
    let mut endpoint = Endpoint::new(format!("{}/", server.base_url));
    endpoint.api_key = Some("sk-test".into());
    endpoint.headers = vec![
        ("anthropic-version".into(), "2099-01-01".into()),
        ("x-extra".into(), "1".into()),
    ];
    let client = Client::new();
    let anthropic: Vec<Event> =
        ward_provider::stream(&client, Protocol::AnthropicMessages, &endpoint, &request())
            .collect()
            .await;
    assert_eq!(anthropic, [Event::Finish(FinishReason::Stop)]);
    endpoint.headers.clear();
    let chat: Vec<Event> =
        ward_provider::stream(&client, Protocol::OpenaiChat, &endpoint, &request())
            .collect()
            .await;
    assert_eq!(chat, [Event::Finish(FinishReason::Stop)]);

    let requests = server.requests();
    let (anthropic, chat) = (&requests[0], &requests[1]);
    assert_eq!(anthropic.path, "/v1/messages");
    assert_eq!(anthropic.header("x-api-key"), Some("sk-test"));
    assert_eq!(anthropic.header("anthropic-version"), Some("2099-01-01"));
    assert_eq!(anthropic.header("x-extra"), Some("1"));
    assert_eq!(anthropic.header("authorization"), None);
    let body: serde_json::Value = serde_json::from_str(&anthropic.body).expect("JSON body");
    assert_eq!(
        body["system"][0]["cache_control"],
        serde_json::json!({ "type": "ephemeral" })
    );
    assert_eq!(
        body["max_tokens"],
        serde_json::json!(ward_provider::ANTHROPIC_DEFAULT_MAX_TOKENS)
    );
    assert_eq!(chat.path, "/v1/chat/completions");
    assert_eq!(chat.header("authorization"), Some("Bearer sk-test"));
    assert_eq!(chat.header("accept"), Some("text/event-stream"));
}

#[tokio::test]
async fn invalid_extra_header_fails_before_sending() {
    let mut endpoint = Endpoint::new("http://127.0.0.1:9/v1");
    endpoint.headers = vec![("bad header".into(), "x".into())];
    let events: Vec<Event> =
        ward_provider::stream(&Client::new(), Protocol::OpenaiChat, &endpoint, &request())
            .collect()
            .await;
    assert!(
        matches!(
            &events[..],
            [Event::Error(ProviderError::InvalidRequest {
                status: None,
                ..
            })]
        ),
        "{events:?}"
    );
}
