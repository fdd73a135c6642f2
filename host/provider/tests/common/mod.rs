//! Helpers shared by the provider's HTTP test binaries: the scripted server
//! and a one-call client run against it.

pub mod server;

use std::time::Duration;

use futures_util::StreamExt;
use ward_provider::{
    ChatRequest, Client, Endpoint, Event, Message, Protocol, ProviderError, SystemBlock, UserPart,
};

use server::{Reply, serve};

pub const ALL: [Protocol; 3] = [
    Protocol::OpenaiChat,
    Protocol::OpenaiResponses,
    Protocol::AnthropicMessages,
];

pub fn request() -> ChatRequest {
    ChatRequest {
        model: "m".into(),
        system: vec![SystemBlock {
            text: "static".into(),
            cache: true,
        }],
        messages: vec![Message::User {
            content: vec![UserPart::Text { text: "hi".into() }],
        }],
        ..ChatRequest::default()
    }
}

pub async fn run_with(protocol: Protocol, reply: Reply, idle: Duration) -> Vec<Event> {
    let server = serve(vec![reply]).await;
    let mut endpoint = Endpoint::new(&server.base_url);
    endpoint.idle_timeout = idle;
    ward_provider::stream(&Client::new(), protocol, &endpoint, &request())
        .collect()
        .await
}

pub async fn run(protocol: Protocol, reply: Reply) -> Vec<Event> {
    run_with(protocol, reply, Duration::from_secs(10)).await
}

/// The single error a failed attempt must end with.
pub fn error(events: &[Event]) -> ProviderError {
    assert_eq!(
        events.iter().filter(|e| e.is_terminal()).count(),
        1,
        "{events:?}"
    );
    match events.last() {
        Some(Event::Error(error)) => error.clone(),
        other => panic!("expected an error, got {other:?} in {events:?}"),
    }
}
