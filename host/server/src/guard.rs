//! Who may talk to the server: checked on every request before any handler runs.
//!
//! - **Host** must be a name the server is bound to (a loopback server answers to
//!   `127.0.0.1`, `localhost` and `[::1]` at its port), so a page on a domain that
//!   re-resolves to 127.0.0.1 (DNS rebinding) is refused.
//! - **Origin**, when a browser sends one, must be the server's own or one allowed
//!   with `--cors`; any other is refused, preflight included, so no other site's page
//!   can drive a session even with a token it should not have.
//! - **Authorization: Bearer <token>** on every route but the health check and the
//!   web page's static files (which hold no data: the page takes the token from the
//!   address `ward serve` prints, after `#`, which a browser never sends). A token
//!   in a cookie would ride along on another site's request; there is none.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

/// What the guard checks requests against.
#[derive(Debug)]
pub struct Guard {
    token: String,
    /// `host:port` values accepted in `Host` (empty: any, for a non-loopback bind).
    hosts: Vec<String>,
    /// The server's own origins (`http://host:port`).
    own_origins: Vec<String>,
    /// Origins allowed with `--cors`.
    cors: Vec<String>,
}

/// Paths served without a token: they hold no data.
const PUBLIC: &[&str] = &[
    "/global/health",
    "/",
    "/index.html",
    "/app.js",
    "/style.css",
];

impl Guard {
    /// A guard for a server bound to `hostname:port`, with `token`, allowing the
    /// `cors` origins. A loopback `hostname` also accepts the other loopback names;
    /// a non-loopback one (the server answers on a network) accepts any `Host`.
    pub fn new(hostname: &str, port: u16, token: String, cors: Vec<String>) -> Self {
        let names: Vec<String> = if is_loopback(hostname) {
            vec![
                "127.0.0.1".into(),
                "localhost".into(),
                "[::1]".into(),
                bracketed(hostname),
            ]
        } else {
            Vec::new()
        };
        let hosts: Vec<String> = names.iter().map(|n| format!("{n}:{port}")).collect();
        let own_origins = hosts.iter().map(|h| format!("http://{h}")).collect();
        Guard {
            token,
            hosts,
            own_origins,
            cors: cors
                .into_iter()
                .map(|o| o.trim_end_matches('/').to_string())
                .collect(),
        }
    }

    fn host_allowed(&self, headers: &HeaderMap) -> bool {
        if self.hosts.is_empty() {
            return true;
        }
        headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .is_some_and(|h| self.hosts.iter().any(|ok| ok.eq_ignore_ascii_case(h)))
    }

    /// `None`: no `Origin` (not a browser's cross-site request); `Some(allowed)`.
    fn origin(&self, headers: &HeaderMap) -> Option<(String, bool)> {
        let origin = headers.get(header::ORIGIN)?.to_str().ok()?.to_string();
        let allowed = self
            .own_origins
            .iter()
            .any(|o| o.eq_ignore_ascii_case(&origin))
            || (self.own_origins.is_empty() && same_host(&origin, headers))
            || self.cors.iter().any(|o| o == "*" || o == &origin);
        Some((origin, allowed))
    }

    fn token_ok(&self, headers: &HeaderMap) -> bool {
        let Some(given) = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
        else {
            return false;
        };
        constant_time_eq(given.trim().as_bytes(), self.token.as_bytes())
    }
}

/// The middleware: refuses what the guard does not allow, answers allowed CORS
/// preflights, and marks allowed cross-origin answers.
pub async fn check(State(guard): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    if !guard.host_allowed(headers) {
        return ApiError::refused(
            StatusCode::MISDIRECTED_REQUEST,
            "HostNotAllowed",
            "this server does not answer to that Host (it answers to the names it is bound to)",
        )
        .into_response();
    }
    let origin = guard.origin(headers);
    if let Some((origin, false)) = &origin {
        return ApiError::refused(
            StatusCode::FORBIDDEN,
            "OriginNotAllowed",
            format!("cross-origin requests from {origin} are not allowed (ward serve --cors)"),
        )
        .into_response();
    }
    let cross = origin.map(|(o, _)| o);
    if req.method() == Method::OPTIONS {
        let mut response = StatusCode::NO_CONTENT.into_response();
        if let Some(origin) = &cross {
            allow_origin(response.headers_mut(), origin, true);
        }
        return response;
    }
    let public = req.method() == Method::GET && PUBLIC.contains(&req.uri().path());
    if !public && !guard.token_ok(req.headers()) {
        let mut response = ApiError::refused(
            StatusCode::UNAUTHORIZED,
            "Unauthorized",
            "missing or wrong token: send `Authorization: Bearer <token>` (ward serve prints \
             it and writes it to <data dir>/server/token)",
        )
        .into_response();
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return response;
    }
    let mut response = next.run(req).await;
    if let Some(origin) = &cross {
        allow_origin(response.headers_mut(), origin, false);
    }
    response
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

/// Whether `origin` names the host the request was sent to (a non-loopback server's
/// own page).
fn same_host(origin: &str, headers: &HeaderMap) -> bool {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    host.is_some_and(|h| origin.eq_ignore_ascii_case(&format!("http://{h}")))
}

/// Whether `hostname` names this machine's loopback interface.
pub fn is_loopback(hostname: &str) -> bool {
    let bare = hostname.trim_start_matches('[').trim_end_matches(']');
    bare.eq_ignore_ascii_case("localhost")
        || bare
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// `hostname` as it goes before `:port` in an address or a `Host` header: an IPv6
/// address in brackets.
pub(crate) fn bracketed(hostname: &str) -> String {
    if hostname.contains(':') && !hostname.starts_with('[') {
        format!("[{hostname}]")
    } else {
        hostname.to_string()
    }
}

/// Compares without stopping at the first difference, so response times do not
/// tell how much of a guessed token was right.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(k.clone(), HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn a_loopback_server_answers_to_loopback_names_at_its_port_only() {
        let g = Guard::new("127.0.0.1", 4096, "t".into(), vec![]);
        for ok in ["127.0.0.1:4096", "localhost:4096", "[::1]:4096"] {
            assert!(g.host_allowed(&headers(&[(header::HOST, ok)])), "{ok}");
        }
        for bad in ["evil.example:4096", "127.0.0.1:80", "localhost"] {
            assert!(!g.host_allowed(&headers(&[(header::HOST, bad)])), "{bad}");
        }
        assert!(!g.host_allowed(&HeaderMap::new()));
    }

    #[test]
    fn only_its_own_and_the_allowed_origins_pass() {
        let g = Guard::new(
            "127.0.0.1",
            4096,
            "t".into(),
            vec!["https://app.example".into()],
        );
        let o = |v: &str| g.origin(&headers(&[(header::ORIGIN, v)])).map(|(_, ok)| ok);
        assert_eq!(o("http://127.0.0.1:4096"), Some(true));
        assert_eq!(o("https://app.example"), Some(true));
        assert_eq!(o("http://evil.example"), Some(false));
        assert_eq!(o("null"), Some(false));
        assert_eq!(g.origin(&HeaderMap::new()), None);
    }

    #[test]
    fn the_token_must_match_exactly() {
        let g = Guard::new("127.0.0.1", 1, "secret".into(), vec![]);
        let t = |v: &str| g.token_ok(&headers(&[(header::AUTHORIZATION, v)]));
        assert!(t("Bearer secret"));
        assert!(!t("Bearer secre"));
        assert!(!t("Bearer secrets"));
        assert!(!t("Basic secret"));
        assert!(!g.token_ok(&HeaderMap::new()));
    }

    #[test]
    fn loopback_names() {
        assert!(is_loopback("127.0.0.1"));
        assert!(is_loopback("localhost"));
        assert!(is_loopback("::1"));
        assert!(is_loopback("[::1]"));
        assert!(!is_loopback("0.0.0.0"));
        assert!(!is_loopback("192.168.1.2"));
    }
}
