//! One streaming model call over HTTP: [`stream`].
//!
//! Owns the attempt from request to terminal event: building the HTTP
//! request for an [`Endpoint`], turning an error status into a classified
//! [`ProviderError`], and feeding the body through the idle timeout, the SSE
//! reader and the protocol parser. It never retries; see [`crate::retry`].

use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{Stream, StreamExt, stream};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Client, RequestBuilder, Response};

use crate::error::ProviderError;
use crate::idle::with_idle_timeout;
use crate::protocol::{ANTHROPIC_VERSION, Parser, Protocol, request_body};
use crate::retry::retry_after;
use crate::sniff::{BodyKind, Sniffer};
use crate::sse::{SseEvent, sse_events};
use crate::types::{ChatRequest, Event};

/// Default limit of silence on a response ([`Endpoint::idle_timeout`]).
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// Where and how to reach a provider.
#[derive(Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// API root the protocol path is appended to, e.g.
    /// `https://api.openai.com/v1` or `https://api.anthropic.com/v1`.
    pub base_url: String,
    /// Sent as `Authorization: Bearer` (OpenAI protocols) or `x-api-key`
    /// (Anthropic). `None` for servers without auth, such as local ones.
    pub api_key: Option<String>,
    /// Extra headers; they replace the defaults of the same name (e.g.
    /// `anthropic-version`, `anthropic-beta`, OpenRouter's `HTTP-Referer`).
    pub headers: Vec<(String, String)>,
    /// How long the connection may stay silent (waiting for the reply
    /// headers, or between body chunks) before the attempt fails with a
    /// retryable [`ProviderError::IdleTimeout`].
    pub idle_timeout: Duration,
}

// By hand so the API key, and credentials in the base URL, never reach a log line.
impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field(
                "base_url",
                &ward_config::show::redact::mask_url_credentials(&self.base_url),
            )
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field(
                "headers",
                &self
                    .headers
                    .iter()
                    .map(|(name, _)| name)
                    .collect::<Vec<_>>(),
            )
            .field("idle_timeout", &self.idle_timeout)
            .finish()
    }
}

impl Endpoint {
    /// An endpoint with no key, no extra headers and the default idle timeout.
    pub fn new(base_url: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            api_key: None,
            headers: Vec::new(),
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
        }
    }
}

/// Makes one attempt of a streaming model call.
///
/// The stream yields content events and ends with exactly one terminal event,
/// [`Event::Finish`] or [`Event::Error`]; nothing is retried here. Retrying is
/// the caller's decision ([`crate::RetryPolicy`]) because a step must never
/// execute a tool call twice: only the caller knows which calls of a failed
/// attempt already ran. A call cut off mid-stream never yields
/// [`Event::ToolCallEnd`]. Dropping the stream aborts the request.
pub fn stream(
    client: &Client,
    protocol: Protocol,
    endpoint: &Endpoint,
    request: &ChatRequest,
) -> impl Stream<Item = Event> + Send + 'static {
    let start = match http_request(client, protocol, endpoint, request) {
        Ok(builder) => State::Connect(Box::new(builder)),
        Err(error) => State::Failed(error),
    };
    let idle = endpoint.idle_timeout;
    stream::unfold(start, move |state| step(state, protocol, idle)).flat_map(stream::iter)
}

type SseStream = Pin<Box<dyn Stream<Item = Result<SseEvent, ProviderError>> + Send>>;

enum State {
    // Boxed: a request builder is several times larger than the other states.
    Connect(Box<RequestBuilder>),
    Read {
        events: SseStream,
        parser: Box<dyn Parser>,
    },
    Failed(ProviderError),
    Done,
}

/// Advances the attempt by one unit of work and returns the events it made.
async fn step(state: State, protocol: Protocol, idle: Duration) -> Option<(Vec<Event>, State)> {
    match state {
        State::Done => None,
        State::Failed(error) => Some((vec![Event::Error(error)], State::Done)),
        State::Connect(builder) => Some(match connect(*builder, idle).await {
            Ok(events) => (
                Vec::new(),
                State::Read {
                    events,
                    parser: protocol.parser(),
                },
            ),
            Err(error) => (vec![Event::Error(error)], State::Done),
        }),
        State::Read {
            mut events,
            mut parser,
        } => {
            let mut out = Vec::new();
            match events.next().await {
                Some(Ok(event)) => {
                    if let Err(error) = parser.event(&event, &mut out) {
                        out.push(Event::Error(error));
                    }
                }
                Some(Err(error)) => out.push(Event::Error(error)),
                None => parser.end_of_stream(&mut out),
            }
            // Nothing after the terminal event: trailing gateway events and
            // concatenated responses are not part of this response.
            match out.iter().position(Event::is_terminal) {
                Some(end) => {
                    out.truncate(end + 1);
                    Some((out, State::Done))
                }
                None => Some((out, State::Read { events, parser })),
            }
        }
    }
}

/// Sends the request and checks the reply; on success returns its events.
async fn connect(builder: RequestBuilder, idle: Duration) -> Result<SseStream, ProviderError> {
    let response = match tokio::time::timeout(idle, builder.send()).await {
        Err(_) => return Err(ProviderError::IdleTimeout { after: idle }),
        Ok(Err(error)) => return Err(ProviderError::transport(&error)),
        Ok(Ok(response)) => response,
    };
    let status = response.status();
    if !status.is_success() {
        let wait = retry_after(response.headers());
        let body = read_body(response, idle).await?;
        return Err(ProviderError::from_http(status.as_u16(), &body, wait));
    }
    // The label is kept for the error message only: the body says what it is
    // (see `crate::sniff`), because servers send event streams unlabelled or
    // mislabelled and gateways send JSON errors with status 200.
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    // Fused: when the body ends while it is being sniffed, the readers below
    // poll it once more and must see the end again.
    let mut body: BodyStream = Box::pin(with_idle_timeout(response.bytes_stream(), idle).fuse());
    let mut head = Vec::new();
    let mut sniffer = Sniffer::default();
    let kind = loop {
        match body.next().await {
            Some(Ok(chunk)) => {
                let kind = sniffer.feed(&chunk);
                head.push(chunk);
                if let Some(kind) = kind {
                    break kind;
                }
            }
            Some(Err(error)) => return Err(error),
            None => break sniffer.finish(),
        }
    };
    match kind {
        BodyKind::EventStream => {
            // The bytes read to decide go first, then the rest as it comes.
            let replay = stream::iter(head.into_iter().map(Ok));
            Ok(Box::pin(sse_events(replay.chain(body))))
        }
        BodyKind::Json => {
            let body = read_rest(head, body, usize::MAX).await?;
            Err(match serde_json::from_str::<serde_json::Value>(&body) {
                Ok(value) if value.get("error").is_some() => ProviderError::from_payload(&value),
                _ => ProviderError::malformed("expected an event stream, got JSON", &body),
            })
        }
        BodyKind::Other => {
            // Enough of it to show what it is; the rest is not worth waiting for.
            let body = read_rest(head, body, 4096).await?;
            Err(ProviderError::NotAnEventStream {
                status: status.as_u16(),
                content_type,
                received: crate::sniff::describe(&body),
            })
        }
    }
}

type BodyStream = Pin<Box<dyn Stream<Item = Result<Bytes, ProviderError>> + Send>>;

/// `head` and then the rest of `body`, as text, stopping once `limit` bytes
/// are in hand.
async fn read_rest(
    head: Vec<Bytes>,
    mut body: BodyStream,
    limit: usize,
) -> Result<String, ProviderError> {
    let mut bytes: Vec<u8> = head.concat();
    while bytes.len() < limit {
        match body.next().await {
            Some(chunk) => bytes.extend_from_slice(&chunk?),
            None => break,
        }
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

async fn read_body(response: Response, idle: Duration) -> Result<String, ProviderError> {
    match tokio::time::timeout(idle, response.text()).await {
        Err(_) => Err(ProviderError::IdleTimeout { after: idle }),
        Ok(Err(error)) => Err(ProviderError::transport(&error)),
        Ok(Ok(body)) => Ok(body),
    }
}

fn http_request(
    client: &Client,
    protocol: Protocol,
    endpoint: &Endpoint,
    request: &ChatRequest,
) -> Result<RequestBuilder, ProviderError> {
    let url = format!(
        "{}{}",
        endpoint.base_url.trim_end_matches('/'),
        protocol.path()
    );
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
    if protocol == Protocol::AnthropicMessages {
        headers.insert(
            "anthropic-version",
            HeaderValue::from_static(ANTHROPIC_VERSION),
        );
    }
    if let Some(key) = &endpoint.api_key {
        let (name, value) = match protocol {
            Protocol::AnthropicMessages => ("x-api-key", key.clone()),
            Protocol::OpenaiChat | Protocol::OpenaiResponses => {
                ("authorization", format!("Bearer {key}"))
            }
        };
        let mut value = header_value(name, &value)?;
        // Keeps the key out of debug output of the request.
        value.set_sensitive(true);
        headers.insert(name, value);
    }
    for (name, value) in &endpoint.headers {
        let header =
            HeaderName::from_bytes(name.as_bytes()).map_err(|_| ProviderError::InvalidRequest {
                status: None,
                message: format!("invalid header name {name:?}"),
            })?;
        let mut value = header_value(name, value)?;
        // Configured headers commonly carry tokens: keep them out of debug output too.
        value.set_sensitive(true);
        headers.insert(header, value);
    }
    // A base URL may carry credentials (`https://user:token@proxy/v1`).
    let shown = ward_config::show::redact::mask_url_credentials(&url);
    tracing::debug!(url = %shown, ?protocol, model = %request.model, "provider request");
    Ok(client
        .post(url)
        .headers(headers)
        .body(request_body(protocol, request).to_string()))
}

fn header_value(name: &str, value: &str) -> Result<HeaderValue, ProviderError> {
    HeaderValue::from_str(value).map_err(|_| ProviderError::InvalidRequest {
        status: None,
        message: format!("invalid value for header {name}"),
    })
}
