//! [`ProviderError`]: every way a model call fails, classified once.
//!
//! HTTP error replies, in-band error events and transport failures all end up
//! here, so the retry decision ([`ProviderError::retryable`]) and the
//! compaction trigger ([`ProviderError::ContextOverflow`]) do not depend on
//! which provider or which path reported the failure.

use std::time::Duration;

use serde_json::Value;

/// Why a model call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    /// The prompt does not fit the model's context window. Not retryable:
    /// the conversation must be compacted first.
    #[error("context window exceeded: {message}")]
    ContextOverflow {
        /// The provider's explanation.
        message: String,
    },
    /// The API key was rejected or lacks permission (HTTP 401/403).
    #[error("authentication failed: {message}")]
    Auth {
        /// HTTP status, when the failure came with one.
        status: Option<u16>,
        /// The provider's explanation.
        message: String,
    },
    /// The account's quota or credit is used up. Not retryable even though
    /// OpenAI sends it as HTTP 429: waiting does not refill a quota.
    #[error("quota exceeded: {message}")]
    QuotaExceeded {
        /// The provider's explanation.
        message: String,
    },
    /// Too many requests (HTTP 429 or a rate-limit error body).
    #[error("rate limited: {message}")]
    RateLimited {
        /// The provider's explanation.
        message: String,
        /// How long the provider asked us to wait, if it said.
        retry_after: Option<Duration>,
    },
    /// The provider is overloaded (HTTP 529, Anthropic `overloaded_error`).
    #[error("provider overloaded: {message}")]
    Overloaded {
        /// The provider's explanation.
        message: String,
        /// How long the provider asked us to wait, if it said.
        retry_after: Option<Duration>,
    },
    /// The provider failed on its side (HTTP 5xx, 408, `api_error`).
    #[error("provider server error{}: {message}", status_suffix(*status))]
    Server {
        /// HTTP status, when the failure came with one.
        status: Option<u16>,
        /// The provider's explanation.
        message: String,
        /// How long the provider asked us to wait, if it said.
        retry_after: Option<Duration>,
    },
    /// The provider rejected the request as malformed (HTTP 400 and other
    /// 4xx). Sending it again would fail the same way.
    #[error("invalid request{}: {message}", status_suffix(*status))]
    InvalidRequest {
        /// HTTP status, when the failure came with one.
        status: Option<u16>,
        /// The provider's explanation.
        message: String,
    },
    /// An in-band error the classification does not recognise. Not retried,
    /// so an unknown failure cannot loop.
    #[error("provider error{}: {message}", code_suffix(code.as_deref()))]
    Api {
        /// The provider's error type or code, if any.
        code: Option<String>,
        /// The provider's explanation.
        message: String,
    },
    /// No connection could be made — refused, unreachable, DNS, TLS handshake — so
    /// nothing of the request was sent. Retrying is safe, but a server that is not
    /// there rarely comes back within the minutes the usual backoff would wait:
    /// [`crate::RetryPolicy::connect_budget`] bounds these retries by time.
    #[error("could not connect: {message}")]
    Connect {
        /// What failed and where, e.g. `connection refused by 127.0.0.1:8080`.
        message: String,
    },
    /// The connection failed after it was made: reset, or a body read error.
    #[error("transport error: {message}")]
    Transport {
        /// What failed, with its cause chain.
        message: String,
    },
    /// No bytes arrived for the configured idle time.
    #[error("no data from the provider for {after:?}")]
    IdleTimeout {
        /// The idle limit that was exceeded.
        after: Duration,
    },
    /// The stream ended before the provider's completion event.
    #[error("stream ended before the response completed: {message}")]
    Incomplete {
        /// Where the stream stopped.
        message: String,
    },
    /// The provider sent something that is not the protocol: bad JSON, or a
    /// JSON body that is not an error where an event stream was expected.
    #[error("malformed provider stream: {message}")]
    Malformed {
        /// What could not be understood, with a snippet of it.
        message: String,
    },
    /// A successful reply whose body is neither an event stream nor a JSON
    /// error: an HTML page from a proxy or a wrong base URL, plain text.
    /// Decided from the body, not the `content-type` label, which servers get
    /// wrong both ways. Not retryable: the endpoint would answer the same way.
    #[error(
        "expected an event stream, got {received} (HTTP {status}, content-type: {})",
        content_type.as_deref().unwrap_or("none")
    )]
    NotAnEventStream {
        /// The HTTP status (a success).
        status: u16,
        /// The `content-type` header as sent, if any.
        content_type: Option<String>,
        /// What the body looked like, with its start.
        received: String,
    },
}

fn status_suffix(status: Option<u16>) -> String {
    status.map(|s| format!(" (HTTP {s})")).unwrap_or_default()
}

fn code_suffix(code: Option<&str>) -> String {
    code.map(|c| format!(" ({c})")).unwrap_or_default()
}

impl ProviderError {
    /// Whether a fresh attempt of the same request may succeed: rate limits,
    /// overload, server errors, failures to connect, transport failures, idle
    /// timeouts and streams cut short. Context overflow, auth, quota, invalid
    /// requests, unknown in-band errors and malformed streams are final.
    pub fn retryable(&self) -> bool {
        matches!(
            self,
            Self::RateLimited { .. }
                | Self::Overloaded { .. }
                | Self::Server { .. }
                | Self::Connect { .. }
                | Self::Transport { .. }
                | Self::IdleTimeout { .. }
                | Self::Incomplete { .. }
        )
    }

    /// The wait the provider asked for (`retry-after-ms` / `retry-after`).
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::RateLimited { retry_after, .. }
            | Self::Overloaded { retry_after, .. }
            | Self::Server { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// Classifies an HTTP error reply from its status, body and the wait the
    /// headers asked for.
    pub(crate) fn from_http(status: u16, body: &str, retry_after: Option<Duration>) -> Self {
        let parsed = serde_json::from_str::<Value>(body).ok();
        let (kind, message) = match &parsed {
            Some(value) => describe(value),
            None => (None, None),
        };
        let message = message.unwrap_or_else(|| match body.trim() {
            "" => format!("HTTP {status} with an empty body"),
            text => snippet(text),
        });
        classify(Some(status), kind.as_deref(), message, retry_after)
    }

    /// Classifies an error object that arrived inside a stream (OpenAI
    /// `{"error": …}` chunks, Anthropic and Responses `error` events,
    /// `response.failed`).
    pub(crate) fn from_payload(value: &Value) -> Self {
        let (kind, message) = describe(value);
        let status = numeric_code(value);
        let message = message.unwrap_or_else(|| snippet(&value.to_string()));
        classify(status, kind.as_deref(), message, None)
    }

    /// Whether no connection could be made ([`ProviderError::Connect`]).
    pub fn is_connect(&self) -> bool {
        matches!(self, Self::Connect { .. })
    }

    /// A connection or body-read failure, with its cause chain (reqwest's
    /// own message alone rarely says what went wrong). A reqwest error of the
    /// connect phase becomes [`ProviderError::Connect`]: reqwest knows the
    /// phase, so no message text is matched.
    pub(crate) fn transport(error: &(dyn std::error::Error + 'static)) -> Self {
        let mut message = error.to_string();
        let mut source = error.source();
        while let Some(cause) = source {
            message.push_str(": ");
            message.push_str(&cause.to_string());
            source = cause.source();
        }
        match error.downcast_ref::<reqwest::Error>() {
            Some(e) if e.is_connect() => Self::Connect {
                message: connect_message(e, message),
            },
            _ => Self::Transport { message },
        }
    }

    /// An event whose JSON stops short: the stream was cut inside it.
    pub(crate) fn cut_event(data: &str) -> Self {
        Self::Incomplete {
            message: format!("event data ends mid-JSON: {}", snippet(data)),
        }
    }

    /// Bytes that are not the protocol; `what` says what was expected.
    pub(crate) fn malformed(what: &str, data: &str) -> Self {
        Self::Malformed {
            message: format!("{what}: {}", snippet(data)),
        }
    }
}

/// What a person needs from a failure to connect: where, and — when the cause
/// is an I/O error of a known kind — what happened, in a few words rather than
/// reqwest's cause chain (`chain`, kept for every other case).
fn connect_message(error: &reqwest::Error, chain: String) -> String {
    let Some(place) = error.url().map(|url| {
        let host = url.host_str().unwrap_or("");
        match url.port_or_known_default() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_string(),
        }
    }) else {
        return chain;
    };
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind::*;
            let what = match io.kind() {
                ConnectionRefused => Some("connection refused by"),
                ConnectionReset => Some("connection reset by"),
                TimedOut => Some("timed out connecting to"),
                HostUnreachable => Some("no route to"),
                NetworkUnreachable => Some("network unreachable for"),
                _ => None,
            };
            if let Some(what) = what {
                return format!("{what} {place}");
            }
        }
        source = cause.source();
    }
    format!("{place}: {chain}")
}

/// Phrases providers use for "the prompt is larger than the context window".
/// Matched case-insensitively against the message and the error code.
const OVERFLOW_PHRASES: &[&str] = &[
    "context_length_exceeded",
    "context length exceeded",
    "prompt is too long",
    "maximum context length",
    "exceeds the context window",
    "context window exceeds limit",
    "input is too long",
    "reduce the length of the messages",
    "exceeds the available context size",
    "greater than the context length",
    "exceeded model token limit",
    "maximum prompt length",
];

fn classify(
    status: Option<u16>,
    kind: Option<&str>,
    message: String,
    retry_after: Option<Duration>,
) -> ProviderError {
    let kind = kind.unwrap_or("").to_ascii_lowercase();
    let text = message.to_ascii_lowercase();
    let says = |phrase: &str| kind.contains(phrase) || text.contains(phrase);
    if status == Some(413) || OVERFLOW_PHRASES.iter().any(|p| says(p)) {
        return ProviderError::ContextOverflow { message };
    }
    if says("insufficient_quota") || text.contains("exceeded your current quota") {
        return ProviderError::QuotaExceeded { message };
    }
    if matches!(status, Some(401 | 403))
        || [
            "authentication_error",
            "permission_error",
            "invalid_api_key",
        ]
        .contains(&kind.as_str())
    {
        return ProviderError::Auth { status, message };
    }
    if status == Some(429) || says("rate_limit") || says("rate limit") || says("too many requests")
    {
        return ProviderError::RateLimited {
            message,
            retry_after,
        };
    }
    if status == Some(529) || says("overloaded") {
        return ProviderError::Overloaded {
            message,
            retry_after,
        };
    }
    let server_kind = [
        "api_error",
        "server_error",
        "internal_error",
        "internal_server_error",
    ];
    if matches!(status, Some(408 | 500..=599)) || server_kind.contains(&kind.as_str()) {
        return ProviderError::Server {
            status,
            message,
            retry_after,
        };
    }
    if matches!(status, Some(400..=499)) || kind == "invalid_request_error" {
        return ProviderError::InvalidRequest { status, message };
    }
    ProviderError::Api {
        code: (!kind.is_empty()).then_some(kind),
        message,
    }
}

/// Finds the error type/code and message in the shapes providers use:
/// `{"error": {"type"|"code", "message"}}`, `{"type": "error", "code",
/// "message"}`, `{"response": {"error": …}}` and `{"error": "text"}`.
fn describe(value: &Value) -> (Option<String>, Option<String>) {
    let inner = match value
        .get("error")
        .or_else(|| value.pointer("/response/error"))
    {
        Some(Value::String(text)) => return (None, Some(text.clone())),
        Some(object @ Value::Object(_)) => object,
        _ => value,
    };
    let text = |key: &str| inner.get(key).and_then(Value::as_str).map(str::to_owned);
    let kind = text("code")
        .filter(|code| !code.is_empty())
        .or_else(|| text("type").filter(|kind| kind != "error"))
        .or_else(|| text("status"));
    let message = text("message")
        .or_else(|| text("detail"))
        .filter(|m| !m.is_empty());
    (kind, message)
}

/// A numeric `code` that looks like an HTTP status (OpenRouter puts the
/// upstream status there).
fn numeric_code(value: &Value) -> Option<u16> {
    let inner = value.get("error").unwrap_or(value);
    let code = inner.get("code").and_then(Value::as_u64)?;
    u16::try_from(code).ok().filter(|c| (100..600).contains(c))
}

/// At most 500 characters of `text`, so errors stay loggable.
fn snippet(text: &str) -> String {
    const MAX: usize = 500;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests;
