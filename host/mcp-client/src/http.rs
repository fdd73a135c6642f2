//! The streamable HTTP transport for `type = "remote"` servers: rmcp's client
//! transport (sessions, SSE streams, reconnection) driving Ward's own `reqwest` 0.12
//! through rmcp's [`StreamableHttpClient`] trait.
//!
//! Hand-written because rmcp implements the trait only for reqwest 0.13, and a second
//! reqwest in the binary costs size and start-up memory. Bodies are bounded: a JSON
//! answer by [`MAX_BODY`], an SSE event by the same (a hostile server cannot make Ward
//! buffer without end). A server that does not speak it is tried with the legacy
//! HTTP+SSE transport ([`crate::legacy_sse`]).

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;
use futures_util::stream::{BoxStream, StreamExt};
use http::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::common::http_header::{
    EVENT_STREAM_MIME_TYPE, HEADER_LAST_EVENT_ID, HEADER_SESSION_ID, JSON_MIME_TYPE,
};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};
use sse_stream::{Sse, SseStream};

/// The largest JSON answer or SSE event read from a server: 8 MiB.
pub const MAX_BODY: usize = crate::stdio::MAX_MESSAGE;

/// Ward's HTTP client as an MCP streamable HTTP client.
#[derive(Clone)]
pub struct WardHttp(pub reqwest::Client);

type HttpError = StreamableHttpError<reqwest::Error>;

fn client_error(e: reqwest::Error) -> HttpError {
    StreamableHttpError::Client(e)
}

fn with_headers(
    mut request: reqwest::RequestBuilder,
    session: Option<&str>,
    auth: Option<String>,
    custom: HashMap<HeaderName, HeaderValue>,
) -> reqwest::RequestBuilder {
    if let Some(session) = session {
        request = request.header(HEADER_SESSION_ID, session);
    }
    if let Some(auth) = auth {
        request = request.bearer_auth(auth);
    }
    for (name, value) in custom {
        request = request.header(name.as_str(), value.as_bytes());
    }
    request
}

fn content_type(response: &reqwest::Response) -> Option<String> {
    response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).to_ascii_lowercase())
}

/// The response's body, refused beyond [`MAX_BODY`].
async fn bounded_body(response: reqwest::Response) -> Result<Vec<u8>, HttpError> {
    if response
        .content_length()
        .is_some_and(|n| n > MAX_BODY as u64)
    {
        return Err(StreamableHttpError::ResponseBodyTooLarge { max_size: MAX_BODY });
    }
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(client_error)?;
        if body.len() + chunk.len() > MAX_BODY {
            return Err(StreamableHttpError::ResponseBodyTooLarge { max_size: MAX_BODY });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// An SSE body as events, failing once more than [`MAX_BODY`] bytes arrive without an
/// event ending.
pub(crate) fn sse_events(response: reqwest::Response) -> BoxStream<'static, Result<Sse, SseError>> {
    let bytes = response.bytes_stream().scan(0usize, |pending, chunk| {
        let item = match chunk {
            Ok(chunk) => {
                *pending = match last_event_end(&chunk) {
                    Some(end) => chunk.len() - end,
                    None => *pending + chunk.len(),
                };
                if *pending > MAX_BODY {
                    Err(std::io::Error::other(format!(
                        "an SSE event of more than {MAX_BODY} bytes"
                    )))
                } else {
                    Ok(chunk)
                }
            }
            Err(e) => Err(std::io::Error::other(e)),
        };
        std::future::ready(Some(item))
    });
    SseStream::from_bytes_stream(bytes).boxed()
}

/// Where the last blank line (the end of an event) in `chunk` ends.
fn last_event_end(chunk: &Bytes) -> Option<usize> {
    chunk.windows(2).rposition(|w| w == b"\n\n").map(|i| i + 2)
}

fn is(content_type: Option<&str>, mime: &str) -> bool {
    content_type.is_some_and(|ct| ct.split(';').next().is_some_and(|t| t.trim() == mime))
}

impl StreamableHttpClient for WardHttp {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let request = self
            .0
            .post(uri.as_ref())
            .header(
                reqwest::header::ACCEPT,
                format!("{EVENT_STREAM_MIME_TYPE}, {JSON_MIME_TYPE}"),
            )
            .header(reqwest::header::CONTENT_TYPE, JSON_MIME_TYPE)
            .body(serde_json::to_vec(&message).map_err(StreamableHttpError::Deserialize)?);
        let had_session = session_id.is_some();
        let request = with_headers(request, session_id.as_deref(), auth_header, custom_headers);
        let response = request.send().await.map_err(client_error)?;
        let status = response.status();
        if status == reqwest::StatusCode::ACCEPTED || status == reqwest::StatusCode::NO_CONTENT {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status == reqwest::StatusCode::NOT_FOUND && had_session {
            return Err(StreamableHttpError::SessionExpired);
        }
        let session = response
            .headers()
            .get(HEADER_SESSION_ID)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let ct = content_type(&response);
        if is(ct.as_deref(), EVENT_STREAM_MIME_TYPE) && status.is_success() {
            return Ok(StreamableHttpPostResponse::Sse(
                sse_events(response),
                session,
            ));
        }
        if is(ct.as_deref(), JSON_MIME_TYPE) {
            let body = bounded_body(response).await?;
            if body.is_empty() && status.is_success() {
                return Ok(StreamableHttpPostResponse::Accepted);
            }
            return match serde_json::from_slice::<ServerJsonRpcMessage>(&body) {
                Ok(message) => Ok(StreamableHttpPostResponse::Json(message, session)),
                Err(e) => Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
                    format!("HTTP {status}: the body is not a JSON-RPC message ({e})"),
                ))),
            };
        }
        if status.is_success() && response.content_length() == Some(0) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
            format!(
                "HTTP {status} with content type {}",
                ct.as_deref().unwrap_or("(none)")
            ),
        )))
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        let request = with_headers(
            self.0.delete(uri.as_ref()),
            Some(&session_id),
            auth_header,
            custom_headers,
        );
        let response = request.send().await.map_err(client_error)?;
        if response.status() == reqwest::StatusCode::METHOD_NOT_ALLOWED {
            return Ok(());
        }
        response.error_for_status().map_err(client_error)?;
        Ok(())
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        let mut request = self
            .0
            .get(uri.as_ref())
            .header(reqwest::header::ACCEPT, EVENT_STREAM_MIME_TYPE);
        if let Some(id) = last_event_id {
            request = request.header(HEADER_LAST_EVENT_ID, id);
        }
        let request = with_headers(request, session_id.as_deref(), auth_header, custom_headers);
        let response = request.send().await.map_err(client_error)?;
        if response.status() == reqwest::StatusCode::METHOD_NOT_ALLOWED {
            return Err(StreamableHttpError::ServerDoesNotSupportSse);
        }
        let response = response.error_for_status().map_err(client_error)?;
        if !is(content_type(&response).as_deref(), EVENT_STREAM_MIME_TYPE) {
            return Err(StreamableHttpError::UnexpectedContentType(content_type(
                &response,
            )));
        }
        Ok(sse_events(response))
    }
}
