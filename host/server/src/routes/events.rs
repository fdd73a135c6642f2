//! `GET /event` and `GET /global/event`: the event stream, plain and in OpenCode's
//! global envelope.

use std::convert::Infallible;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event as SseEvent, Sse};
use futures_util::Stream;

use crate::App;
use crate::error::ApiError;
use crate::stream::Framing;

/// Every event, in order, as server-sent events, each with an `id`: reconnect with
/// `Last-Event-ID` to get what followed it (a `server.lagged` event first says when
/// some of that has left the replay buffer). The first event is `server.connected`.
#[utoipa::path(get, path = "/event", tag = "event",
    params(("Last-Event-ID" = Option<String>, Header, description = "The id of the last event seen")),
    responses((status = 200, description = "Server-sent events", content_type = "text/event-stream",
        body = crate::wire::event::EventInfo),
        (status = 400, body = crate::wire::message::ErrorInfo)))]
pub async fn subscribe(
    State(app): State<App>,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    Ok(crate::stream::sse(
        app.log.clone(),
        last_event_id(&headers)?,
        Framing::Plain,
    ))
}

/// The same events in OpenCode's global envelope, `{"directory": …, "payload":
/// event}`, which OpenCode's own terminal UI listens on: the directory is the
/// project this server serves.
#[utoipa::path(get, path = "/global/event", tag = "global",
    params(("Last-Event-ID" = Option<String>, Header, description = "The id of the last event seen")),
    responses((status = 200, description = "Server-sent events, each `{directory, payload}`",
        content_type = "text/event-stream"),
        (status = 400, body = crate::wire::message::ErrorInfo)))]
pub async fn subscribe_global(
    State(app): State<App>,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    let framing = Framing::global(&app.root);
    Ok(crate::stream::sse(
        app.log.clone(),
        last_event_id(&headers)?,
        framing,
    ))
}

/// The `Last-Event-ID` a reconnecting client sent.
fn last_event_id(headers: &HeaderMap) -> Result<Option<u64>, ApiError> {
    let last = match headers.get("last-event-id") {
        None => None,
        Some(value) => Some(
            value
                .to_str()
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .ok_or_else(|| {
                    ApiError::bad_request("header `Last-Event-ID`: expected an event id (a number)")
                })?,
        ),
    };
    Ok(last)
}
