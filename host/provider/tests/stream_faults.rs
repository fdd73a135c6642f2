//! Broken streams against a local server: connections cut in the middle of
//! a tool call, servers that go silent, garbage on the wire.

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
use ward_provider::{Client, Endpoint, Event, FinishReason, Protocol, ProviderError};

use common::server::{After, Framing, Reply};
use common::{ALL, error, request, run, run_with};

/// A tool call streamed up to the point where its arguments are half done,
/// in each protocol's real event shapes.
fn cut_tool_call(protocol: Protocol) -> String {
    match protocol {
        Protocol::OpenaiChat => concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"city\\\":\"}}]},\"finish_reason\":null}]}\n\n",
        ),
        Protocol::OpenaiResponses => concat!(
            "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"id\":\"fc_1\",\"type\":\"function_call\",\"arguments\":\"\",\"call_id\":\"call_1\",\"name\":\"get_weather\"}}\n\n",
            "event: response.function_call_arguments.delta\ndata: {\"type\":\"response.function_call_arguments.delta\",\"output_index\":0,\"delta\":\"{\\\"city\\\":\"}\n\n",
        ),
        Protocol::AnthropicMessages => concat!(
            "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"content\":[],\"usage\":{\"input_tokens\":677,\"output_tokens\":16}}}\n\n",
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_weather\",\"input\":{}}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\":\"}}\n\n",
        ),
    }
    .to_owned()
}

fn assert_cut(events: &[Event]) -> ProviderError {
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::ToolCallEnd { .. })),
        "{events:?}"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::ToolCallStart { .. })),
        "{events:?}"
    );
    let error = error(events);
    assert!(error.retryable(), "{error:?}");
    error
}

#[tokio::test]
async fn cut_mid_tool_call_is_retryable_and_never_completes_the_call() {
    for protocol in ALL {
        // The connection drops inside a chunked body: a transport error.
        let chunked = Reply::sse(200, cut_tool_call(protocol)).after(After::Cut);
        let error = assert_cut(&run(protocol, chunked).await);
        assert!(
            matches!(error, ProviderError::Transport { .. }),
            "{protocol:?}: {error:?}"
        );
        // The body is delimited by the close, so HTTP sees a clean end and
        // only the protocol can tell the response is unfinished.
        let until_close = Reply::sse(200, cut_tool_call(protocol)).framing(Framing::UntilClose);
        let error = assert_cut(&run(protocol, until_close).await);
        assert!(
            matches!(error, ProviderError::Incomplete { .. }),
            "{protocol:?}: {error:?}"
        );
        // Cut in the middle of an event's JSON.
        let mut body = cut_tool_call(protocol);
        body.push_str(&cut_tool_call(protocol)[..40]);
        let mid_event = Reply::sse(200, body).framing(Framing::UntilClose);
        let error = assert_cut(&run(protocol, mid_event).await);
        assert!(
            matches!(error, ProviderError::Incomplete { .. }),
            "{protocol:?}: {error:?}"
        );
    }
}

#[tokio::test]
async fn a_hanging_stream_times_out_as_retryable() {
    let idle = Duration::from_secs(1);
    let started = std::time::Instant::now();
    // The three run side by side so the test waits one idle period, not three.
    let runs = ALL.map(|protocol| {
        let reply = Reply::sse(200, cut_tool_call(protocol)).after(After::Hang);
        run_with(protocol, reply, idle)
    });
    for events in futures_util::future::join_all(runs).await {
        let error = assert_cut(&events);
        assert_eq!(error, ProviderError::IdleTimeout { after: idle });
    }
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_server_that_never_answers_times_out() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let holder = tokio::spawn(async move {
        let accepted = listener.accept().await;
        tokio::time::sleep(Duration::from_secs(3600)).await;
        drop(accepted);
    });
    let mut endpoint = Endpoint::new(format!("http://{addr}/v1"));
    endpoint.idle_timeout = Duration::from_millis(200);
    let events: Vec<Event> =
        ward_provider::stream(&Client::new(), Protocol::OpenaiChat, &endpoint, &request())
            .collect()
            .await;
    assert_eq!(
        events,
        [Event::Error(ProviderError::IdleTimeout {
            after: Duration::from_millis(200)
        })]
    );
    holder.abort();
}

#[tokio::test]
async fn malformed_json_is_a_clear_final_error() {
    for protocol in ALL {
        let body = "data: {\"choices\": [oops\n\ndata: {\"type\":\"ping\"}\n\n";
        let error = error(&run(protocol, Reply::sse(200, body)).await);
        let ProviderError::Malformed { message } = &error else {
            panic!("{protocol:?}: {error:?}")
        };
        assert!(message.contains("{\"choices\": [oops"), "{message}");
        assert!(!error.retryable());
    }
}

#[tokio::test]
async fn garbage_bytes_do_not_panic() {
    let mut body = b"data: \xff\xfe\x00garbage\r\n\r\n: comment\n\n".to_vec();
    body.extend_from_slice(&[0u8, 159, 146, 150, b'\n', b'\n']);
    for protocol in ALL {
        let error = error(&run(protocol, Reply::sse(200, body.clone())).await);
        assert!(
            matches!(error, ProviderError::Malformed { .. }),
            "{protocol:?}: {error:?}"
        );
    }
}

#[tokio::test]
async fn an_empty_stream_is_incomplete() {
    for protocol in ALL {
        let error = error(&run(protocol, Reply::sse(200, ": keep-alive\n\n")).await);
        assert!(
            matches!(error, ProviderError::Incomplete { .. }),
            "{protocol:?}: {error:?}"
        );
    }
}

#[tokio::test]
async fn crlf_stream_without_done_completes() {
    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"h\u{e9}llo\"}}]}\r\n\r\n\
                data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\r\n\r\n";
    let events = run(Protocol::OpenaiChat, Reply::sse(200, body)).await;
    assert_eq!(
        events,
        [
            Event::TextDelta("h\u{e9}llo".into()),
            Event::Finish(FinishReason::Stop)
        ]
    );
}
