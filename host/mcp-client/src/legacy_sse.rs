//! The HTTP+SSE transport of protocol 2024-11-05, for servers older than streamable
//! HTTP: a `GET` opens an event stream whose first `endpoint` event names where to
//! `POST` messages; answers arrive as `message` events on the stream.
//!
//! Hand-written because rmcp no longer ships it. The endpoint must be on the same
//! origin as the configured URL (a server cannot send Ward's headers, tokens included,
//! elsewhere); events are bounded as in [`crate::http`], and one that is not JSON-RPC
//! is skipped and reported.

use std::collections::BTreeMap;
use std::sync::Weak;

use futures_util::stream::{BoxStream, StreamExt};
use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::streamable_http_client::SseError;
use sse_stream::Sse;

use crate::server::Shared;

/// A connection to a legacy SSE server.
pub struct LegacySse {
    events: BoxStream<'static, Result<Sse, SseError>>,
    endpoint: reqwest::Url,
    client: reqwest::Client,
    headers: reqwest::header::HeaderMap,
    shared: Weak<Shared>,
}

/// Why a legacy connection could not be made.
#[derive(Debug, thiserror::Error)]
pub enum LegacyError {
    /// The URL or a header is not valid.
    #[error("{0}")]
    Config(String),
    /// The `GET` failed.
    #[error("opening its event stream: {0}")]
    Http(#[from] reqwest::Error),
    /// It answered, but not with an event stream.
    #[error("opening its event stream: HTTP {status} with content type {content_type}")]
    NotSse {
        /// The status.
        status: u16,
        /// The content type (or `(none)`).
        content_type: String,
    },
    /// The stream ended before the `endpoint` event.
    #[error("its event stream ended before naming an endpoint")]
    NoEndpoint,
    /// The endpoint is on another origin.
    #[error("its endpoint `{0}` is not on the server's own origin")]
    OtherOrigin(String),
}

impl LegacySse {
    /// Opens the event stream at `url` and reads the endpoint.
    pub async fn connect(
        client: reqwest::Client,
        url: &str,
        headers: &BTreeMap<String, String>,
        shared: Weak<Shared>,
    ) -> Result<LegacySse, LegacyError> {
        let base = reqwest::Url::parse(url).map_err(|e| LegacyError::Config(e.to_string()))?;
        let mut map = reqwest::header::HeaderMap::new();
        for (k, v) in headers {
            let name = reqwest::header::HeaderName::try_from(k.as_str())
                .map_err(|e| LegacyError::Config(format!("header `{k}`: {e}")))?;
            let value = reqwest::header::HeaderValue::try_from(v.as_str())
                .map_err(|e| LegacyError::Config(format!("header `{k}`: {e}")))?;
            map.insert(name, value);
        }
        let response = client
            .get(base.clone())
            .headers(map.clone())
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .send()
            .await?;
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).to_string())
            .unwrap_or_else(|| "(none)".into());
        if !response.status().is_success() || !content_type.starts_with("text/event-stream") {
            return Err(LegacyError::NotSse {
                status: response.status().as_u16(),
                content_type,
            });
        }
        let mut events = crate::http::sse_events(response);
        while let Some(event) = events.next().await {
            let Ok(event) = event else { break };
            if event.event.as_deref() == Some("endpoint") {
                let data = event.data.unwrap_or_default();
                let endpoint = base
                    .join(data.trim())
                    .map_err(|e| LegacyError::Config(format!("its endpoint `{data}`: {e}")))?;
                if endpoint.origin() != base.origin() {
                    return Err(LegacyError::OtherOrigin(endpoint.to_string()));
                }
                return Ok(LegacySse {
                    events,
                    endpoint,
                    client,
                    headers: map,
                    shared,
                });
            }
        }
        Err(LegacyError::NoEndpoint)
    }

    fn note(&self, problem: String) {
        if let Some(shared) = self.shared.upgrade() {
            shared.problems.note(problem);
        }
    }
}

impl Transport<RoleClient> for LegacySse {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let request = self
            .client
            .post(self.endpoint.clone())
            .headers(self.headers.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json");
        async move {
            let body = serde_json::to_vec(&item)?;
            let response = request
                .body(body)
                .send()
                .await
                .map_err(std::io::Error::other)?;
            if response.status().is_success() {
                Ok(())
            } else {
                Err(std::io::Error::other(format!(
                    "posting a message: HTTP {}",
                    response.status()
                )))
            }
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        loop {
            let event = match self.events.next().await? {
                Ok(event) => event,
                Err(e) => {
                    self.note(format!("its event stream failed: {e}"));
                    return None;
                }
            };
            if !matches!(event.event.as_deref(), None | Some("message")) {
                continue;
            }
            let data = event.data.unwrap_or_default();
            match serde_json::from_str::<ServerJsonRpcMessage>(&data) {
                Ok(message) => return Some(message),
                Err(e) => {
                    let shown: String = data.chars().take(120).collect();
                    self.note(format!(
                        "sent something that is not a JSON-RPC message ({e}): {shown}"
                    ));
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}
