//! The one form of a URL that grants and `webfetch` rules are matched against.
//!
//! A URL can name the same place in many spellings; a rule matched against the URL as
//! written is a rule a spelling slips past. The `url` crate already lower-cases the
//! host, converts international names to punycode (IDNA), decodes percent-escapes in
//! the host, reads every IPv4 spelling (`0x7f.1`, `2130706433`) as dotted decimal,
//! removes dot segments and elides the scheme's default port. On top of that, the
//! matched form has no user name or password (`https://trusted@evil.com`), no
//! fragment (never sent), no trailing dot on the host (`evil.com.`), and percent-escapes
//! of unreserved characters in the path and query decoded (`/%61dmin` is `/admin`),
//! the rest upper-cased.

use std::net::IpAddr;

use url::{Host, Url};

/// Why a URL names no place a grant or rule can be checked against.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum TargetError {
    /// It has no host (`file:///…`, `data:…`, or a host of dots).
    #[error("{url}: no host")]
    NoHost {
        /// The URL as given.
        url: Url,
    },
    /// Its host, without the trailing dot, is not a valid host.
    #[error("{url}: bad host `{host}`: {reason}")]
    BadHost {
        /// The URL as given.
        url: Url,
        /// The host as it would be matched.
        host: String,
        /// Why it is not valid.
        reason: url::ParseError,
    },
    /// Its scheme has no default port and it gives none.
    #[error("{url}: no port")]
    NoPort {
        /// The URL as given.
        url: Url,
    },
}

/// Where one request goes, normalised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Target {
    /// The URL as rules see it.
    pub(crate) url: Url,
    /// The host: a lower-case name without trailing dot, or an IP address as text
    /// (IPv6 without brackets).
    pub(crate) host: String,
    /// The host when it is an IP address.
    pub(crate) ip: Option<IpAddr>,
    /// The port, explicit or the scheme's default.
    pub(crate) port: u16,
}

impl Target {
    /// Normalises `url`; `Err` says why it names no host to check.
    pub(crate) fn of(url: &Url) -> Result<Target, TargetError> {
        let no_host = || TargetError::NoHost { url: url.clone() };
        let mut norm = url.clone();
        // Neither is part of where the request goes; both only hide it from rules.
        let _ = norm.set_username("");
        let _ = norm.set_password(None);
        norm.set_fragment(None);
        let (host, ip) = match norm.host() {
            Some(Host::Domain(name)) => {
                let name = name.trim_end_matches('.').to_ascii_lowercase();
                if name.is_empty() {
                    return Err(no_host());
                }
                (name, None)
            }
            Some(Host::Ipv4(v4)) => (v4.to_string(), Some(IpAddr::V4(v4))),
            Some(Host::Ipv6(v6)) => (v6.to_string(), Some(IpAddr::V6(v6))),
            None => return Err(no_host()),
        };
        if ip.is_none()
            && norm.host_str() != Some(host.as_str())
            && let Err(reason) = norm.set_host(Some(&host))
        {
            return Err(TargetError::BadHost {
                url: url.clone(),
                host,
                reason,
            });
        }
        let path = unescape_unreserved(norm.path());
        norm.set_path(&path);
        if let Some(query) = norm.query().map(unescape_unreserved) {
            norm.set_query(Some(&query));
        }
        let port = norm
            .port_or_known_default()
            .ok_or_else(|| TargetError::NoPort { url: url.clone() })?;
        Ok(Target {
            url: norm,
            host,
            ip,
            port,
        })
    }
}

/// `text` with percent-escapes of unreserved characters (`A-Z a-z 0-9 - . _ ~`)
/// decoded and every other escape's hex digits upper-cased (RFC 3986 §6.2.2).
fn unescape_unreserved(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok().map(|b| (hex, b)));
        match escaped {
            Some((_, b)) if b.is_ascii_alphanumeric() || b"-._~".contains(&b) => {
                out.push(char::from(b));
                i += 3;
            }
            Some((hex, _)) => {
                out.push('%');
                out.push_str(&hex.to_ascii_uppercase());
                i += 3;
            }
            None => {
                // Only ASCII is escaped here; the rest is copied as it is.
                let len = text[i..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&text[i..i + len]);
                i += len;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(raw: &str) -> Target {
        Target::of(&Url::parse(raw).expect("parses")).expect("has a host")
    }

    #[test]
    fn spellings_of_one_place_are_one_url() {
        for raw in [
            "https://evil.com/x",
            "https://EVIL.com/x",
            "https://evil.com./x",
            "https://trusted.example@evil.com/x",
            "https://user:pw@evil.com:443/x",
            "https://evil.com/x#frag",
            "https://%65vil.com/x",
            "https://evil.com/%78",
        ] {
            let t = target(raw);
            assert_eq!(t.url.as_str(), "https://evil.com/x", "{raw}");
            assert_eq!((t.host.as_str(), t.port), ("evil.com", 443), "{raw}");
        }
        assert_eq!(
            target("http://a.b/%2f%2F?q=%7e").url.as_str(),
            "http://a.b/%2F%2F?q=~"
        );
        assert_eq!(
            target("https://bücher.example/").host,
            "xn--bcher-kva.example"
        );
    }

    #[test]
    fn a_url_without_a_host_is_refused_as_such() {
        for raw in ["file:///etc/passwd", "http://./x", "http://../"] {
            let url = Url::parse(raw).expect("parses");
            assert_eq!(
                Target::of(&url),
                Err(TargetError::NoHost { url: url.clone() }),
                "{raw}"
            );
        }
    }

    #[test]
    fn addresses_in_any_spelling() {
        for raw in [
            "http://0x7f.1/",
            "http://2130706433/",
            "http://127.1/",
            "http://127.0.0.1./",
        ] {
            let t = target(raw);
            assert_eq!(t.ip, Some("127.0.0.1".parse().expect("ip")), "{raw}");
        }
        let t = target("http://[::FFFF:7f00:1]:8080/");
        assert_eq!(t.ip, Some("::ffff:127.0.0.1".parse().expect("ip")));
        assert_eq!((t.host.as_str(), t.port), ("::ffff:127.0.0.1", 8080));
    }
}
