//! Who may talk to one of Ward's HTTP servers (`ward serve`, `ward mcp serve`): the
//! checks every request passes before any handler runs, shared so both servers
//! refuse the same requests for the same reasons. Each server turns a [`Refusal`]
//! into its own response shape.
//!
//! - **Host** must be a name the server is bound to (a loopback server answers to
//!   `127.0.0.1`, `localhost` and `[::1]` at its port), so a page on a domain that
//!   re-resolves to 127.0.0.1 (DNS rebinding) is refused.
//! - **Origin**, when a browser sends one, must be the server's own or one allowed
//!   explicitly; any other is refused, so no other site's page can drive the server.
//! - **Authorization: Bearer <token>**, or HTTP Basic with the token as the password
//!   and any user name (what OpenCode's own clients send from `-p` or
//!   `OPENCODE_SERVER_PASSWORD`), compared in constant time. A token in a cookie
//!   would ride along on another site's request; there is none.

use http::{HeaderMap, header};

mod listen;
pub use listen::{ListenError, listen};

/// The shortest token a server accepts from its user.
pub const MIN_TOKEN_LEN: usize = 16;

/// What the guard checks requests against.
#[derive(Debug)]
pub struct Guard {
    token: Option<String>,
    /// `host:port` values accepted in `Host` (empty: any, for a non-loopback bind).
    hosts: Vec<String>,
    /// The server's own origins (`http://host:port`).
    own_origins: Vec<String>,
    /// Other origins allowed (`*`: any).
    cors: Vec<String>,
}

/// Why a request is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// `Host` is not a name the server answers to (a DNS-rebinding attempt).
    HostNotAllowed,
    /// A browser sent the request from another site's page.
    OriginNotAllowed {
        /// The `Origin` it came with.
        origin: String,
    },
    /// No token, or the wrong one.
    Unauthorized,
}

/// A request the guard lets through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Admitted {
    /// The allowed cross-site `Origin` it came with, which the answer should name in
    /// `Access-Control-Allow-Origin`.
    pub origin: Option<String>,
}

impl Guard {
    /// A guard for a server bound to `hostname:port` that wants `token` (`None`: no
    /// token is asked for) and also allows the `cors` origins. A loopback `hostname`
    /// also accepts the other loopback names; a non-loopback one (the server answers
    /// on a network) accepts any `Host`.
    pub fn new(hostname: &str, port: u16, token: Option<String>, cors: Vec<String>) -> Self {
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

    /// Checks `headers` in order — Host, Origin, then (unless `public`) the token.
    pub fn admit(&self, headers: &HeaderMap, public: bool) -> Result<Admitted, Refusal> {
        if !self.host_allowed(headers) {
            return Err(Refusal::HostNotAllowed);
        }
        let origin = match self.origin(headers) {
            Some((origin, false)) => return Err(Refusal::OriginNotAllowed { origin }),
            Some((origin, true)) => Some(origin),
            None => None,
        };
        if !public && !self.token_ok(headers) {
            return Err(Refusal::Unauthorized);
        }
        Ok(Admitted { origin })
    }

    /// Whether `Host` names the server.
    pub fn host_allowed(&self, headers: &HeaderMap) -> bool {
        if self.hosts.is_empty() {
            return true;
        }
        headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .is_some_and(|h| self.hosts.iter().any(|ok| ok.eq_ignore_ascii_case(h)))
    }

    /// `None`: no `Origin` (not a browser's cross-site request); `Some((origin,
    /// allowed))` otherwise.
    pub fn origin(&self, headers: &HeaderMap) -> Option<(String, bool)> {
        let origin = headers.get(header::ORIGIN)?.to_str().ok()?.to_string();
        let allowed = self
            .own_origins
            .iter()
            .any(|o| o.eq_ignore_ascii_case(&origin))
            || (self.own_origins.is_empty() && same_host(&origin, headers))
            || self.cors.iter().any(|o| o == "*" || o == &origin);
        Some((origin, allowed))
    }

    /// Whether the request carries the token (always, when none is asked for): as a
    /// bearer token, or as the password of HTTP Basic credentials.
    pub fn token_ok(&self, headers: &HeaderMap) -> bool {
        let Some(token) = &self.token else {
            return true;
        };
        let Some(value) = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
        else {
            return false;
        };
        let given = match value.split_once(' ') {
            Some((scheme, rest)) if scheme.eq_ignore_ascii_case("bearer") => {
                rest.trim().as_bytes().to_vec()
            }
            Some((scheme, rest)) if scheme.eq_ignore_ascii_case("basic") => {
                match basic_password(rest.trim()) {
                    Some(password) => password,
                    None => return false,
                }
            }
            _ => return false,
        };
        constant_time_eq(&given, token.as_bytes())
    }
}

/// The password of HTTP Basic credentials (`base64(user:password)`); the user name
/// is not checked, since the token alone is the secret.
fn basic_password(encoded: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .ok()?;
    let colon = decoded.iter().position(|b| *b == b':')?;
    Some(decoded[colon + 1..].to_vec())
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
pub fn bracketed(hostname: &str) -> String {
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

/// A fresh token: 32 random bytes as 64 hex digits.
pub fn random_token() -> String {
    let mut bytes = [0u8; 32];
    // The OS's generator; if it fails there is no safe token to make, and an
    // all-zero one must never be used: fall back to a hash of what differs per start.
    if getrandom::fill(&mut bytes).is_err() {
        use sha2::{Digest, Sha256};
        let seed = format!(
            "{:?}{}{:?}",
            std::time::SystemTime::now(),
            std::process::id(),
            std::thread::current().id()
        );
        bytes.copy_from_slice(&Sha256::digest(seed.as_bytes()));
    }
    hex::encode(bytes)
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

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
        let g = Guard::new("127.0.0.1", 4096, Some("t".into()), vec![]);
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
            Some("t".into()),
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
        let g = Guard::new("127.0.0.1", 1, Some("secret".into()), vec![]);
        let t = |v: &str| g.token_ok(&headers(&[(header::AUTHORIZATION, v)]));
        assert!(t("Bearer secret"));
        assert!(!t("Bearer secre"));
        assert!(!t("Bearer secrets"));
        assert!(!t("Basic secret"));
        assert!(!g.token_ok(&HeaderMap::new()));
        // HTTP Basic: any user name, the token as the password.
        use base64::Engine as _;
        let basic = |creds: &str| {
            let encoded = base64::engine::general_purpose::STANDARD.encode(creds);
            t(&format!("Basic {encoded}"))
        };
        assert!(basic("opencode:secret"));
        assert!(basic(":secret"));
        assert!(!basic("opencode:secre"));
        assert!(!basic("secret:"));
        assert!(!basic("secret"));
        assert!(!t("Basic not-base64!"));
        assert!(!t("Digest secret"));
    }

    #[test]
    fn checks_come_in_order_host_origin_token() {
        let g = Guard::new("127.0.0.1", 7, Some("secret".into()), vec![]);
        let host = (header::HOST, "127.0.0.1:7");
        assert_eq!(
            g.admit(&headers(&[(header::HOST, "evil:7")]), true),
            Err(Refusal::HostNotAllowed)
        );
        assert_eq!(
            g.admit(
                &headers(&[host.clone(), (header::ORIGIN, "http://evil")]),
                true
            ),
            Err(Refusal::OriginNotAllowed {
                origin: "http://evil".into()
            })
        );
        assert_eq!(
            g.admit(&headers(std::slice::from_ref(&host)), false),
            Err(Refusal::Unauthorized)
        );
        assert_eq!(
            g.admit(&headers(std::slice::from_ref(&host)), true),
            Ok(Admitted { origin: None })
        );
        let open = Guard::new("127.0.0.1", 7, None, vec![]);
        assert!(open.admit(&headers(&[host]), false).is_ok());
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

    #[test]
    fn tokens_are_long_and_differ() {
        let (a, b) = (random_token(), random_token());
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
    }
}
