//! Who may talk to the server: checked on every request before any handler runs, by
//! the guard `ward mcp serve` shares ([`ward_http_guard`]).
//!
//! - **Host** must be a name the server is bound to (a loopback server answers to
//!   `127.0.0.1`, `localhost` and `[::1]` at its port), so a page on a domain that
//!   re-resolves to 127.0.0.1 (DNS rebinding) is refused.
//! - **Origin**, when a browser sends one, must be the server's own or one allowed
//!   with `--cors`; any other is refused, preflight included, so no other site's page
//!   can drive a session even with a token it should not have.
//! - **`Authorization: Bearer <token>`** (or HTTP Basic with the token as the password,
//!   as OpenCode's own clients send it) on every route but the health check and the
//!   web page's static files (which hold no data: the page takes the token from the
//!   address `ward serve` prints, after `#`, which a browser never sends). A token
//!   in a cookie would ride along on another site's request; there is none.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
pub use ward_http_guard::{Guard, Refusal, bracketed, is_loopback};

use crate::error::ApiError;

/// Paths served without a token: they hold no data.
const PUBLIC: &[&str] = &[
    "/global/health",
    "/",
    "/index.html",
    "/app.js",
    "/style.css",
];

/// The middleware: refuses what the guard does not allow, answers allowed CORS
/// preflights, and marks allowed cross-origin answers.
pub async fn check(State(guard): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    let preflight = req.method() == Method::OPTIONS;
    let public = preflight || (req.method() == Method::GET && PUBLIC.contains(&req.uri().path()));
    let cross = match guard.admit(req.headers(), public) {
        Ok(admitted) => admitted.origin,
        Err(refusal) => return refused(&refusal),
    };
    if preflight {
        let mut response = StatusCode::NO_CONTENT.into_response();
        if let Some(origin) = &cross {
            allow_origin(response.headers_mut(), origin, true);
        }
        return response;
    }
    let mut response = next.run(req).await;
    if let Some(origin) = &cross {
        allow_origin(response.headers_mut(), origin, false);
    }
    response
}

/// The API's answer to a refused request.
fn refused(refusal: &Refusal) -> Response {
    match refusal {
        Refusal::HostNotAllowed => ApiError::refused(
            StatusCode::MISDIRECTED_REQUEST,
            "HostNotAllowed",
            "this server does not answer to that Host (it answers to the names it is bound to)",
        )
        .into_response(),
        Refusal::OriginNotAllowed { origin } => ApiError::refused(
            StatusCode::FORBIDDEN,
            "OriginNotAllowed",
            format!("cross-origin requests from {origin} are not allowed (ward serve --cors)"),
        )
        .into_response(),
        Refusal::Unauthorized => {
            let mut response = ApiError::refused(
                StatusCode::UNAUTHORIZED,
                "Unauthorized",
                "missing or wrong token: send `Authorization: Bearer <token>`, or HTTP Basic \
                 credentials with the token as the password (ward serve prints it and writes it \
                 to <data dir>/server/<port>.token)",
            )
            .into_response();
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            response
        }
    }
}

fn allow_origin(headers: &mut HeaderMap, origin: &str, preflight: bool) {
    if let Ok(value) = HeaderValue::from_str(origin) {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, value);
        headers.insert(header::VARY, HeaderValue::from_static("Origin"));
    }
    if preflight {
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("GET, POST, PATCH, DELETE, OPTIONS"),
        );
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static("authorization, content-type, last-event-id"),
        );
        headers.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static("600"),
        );
    }
}
