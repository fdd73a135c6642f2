//! The `http-fetch` import: outgoing HTTP for plugins granted `net`.
//!
//! Each hop of a request (the first URL and every redirect) is checked on its own: the
//! scheme must be http(s), the host must be within the plugin's grant and ceiling, the
//! `webfetch` rules must allow the URL, and after DNS resolution no address may be
//! loopback, private, link-local (cloud metadata) or otherwise internal unless the grant
//! names that host explicitly. The connection then goes to exactly the addresses that
//! were checked, so a second DNS answer cannot swap in another (DNS rebinding).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use reqwest::redirect::Policy;
use url::Url;

use crate::bindings::host::{HttpRequest, HttpResponse};
use crate::state::CallEnv;

const MAX_REDIRECTS: usize = 10;
const DEFAULT_TIMEOUT_MS: u32 = 30_000;

pub(crate) async fn fetch(env: Arc<CallEnv>, req: HttpRequest) -> Result<HttpResponse, String> {
    if env.caps.net.is_empty() {
        let reason = format!(
            "plugin `{}` was not granted the `net` capability",
            env.plugin
        );
        env.audit.deny(&env.plugin, "net", &req.url, &reason);
        return Err(reason);
    }
    let remaining = env
        .deadline
        .saturating_duration_since(std::time::Instant::now());
    let timeout = Duration::from_millis(u64::from(req.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS)))
        .min(remaining);
    let cap = req
        .max_bytes
        .map_or(env.limits.output_bytes, |m| m as usize)
        .min(env.limits.output_bytes);
    let mut method = reqwest::Method::from_bytes(req.method.as_bytes())
        .map_err(|_| format!("invalid HTTP method `{}`", req.method))?;
    let mut body = req.body.clone();
    let mut url = Url::parse(&req.url).map_err(|e| format!("invalid URL `{}`: {e}", req.url))?;

    for _ in 0..=MAX_REDIRECTS {
        let (host, addrs) = check_hop(&env, &url).await?;
        let client = reqwest::Client::builder()
            .redirect(Policy::none())
            .timeout(timeout)
            .no_proxy()
            .resolve_to_addrs(&host, &addrs)
            .build()
            .map_err(|e| format!("HTTP client: {e}"))?;
        let mut request = client.request(method.clone(), url.clone());
        for (k, v) in &req.headers {
            request = request.header(k, v);
        }
        if let Some(b) = &body {
            request = request.body(b.clone());
        }
        let mut response = request
            .send()
            .await
            .map_err(|e| format!("fetching {url}: {e}"))?;
        let status = response.status();
        if status.is_redirection()
            && let Some(location) = response.headers().get(reqwest::header::LOCATION)
        {
            let location = location
                .to_str()
                .map_err(|_| format!("{url}: redirect with a non-text Location"))?;
            url = url
                .join(location)
                .map_err(|e| format!("{url}: bad redirect `{location}`: {e}"))?;
            if status == reqwest::StatusCode::SEE_OTHER
                || (method == reqwest::Method::POST && status.as_u16() <= 302)
            {
                method = reqwest::Method::GET;
                body = None;
            }
            continue;
        }
        let headers = response
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let mut out = Vec::new();
        let mut truncated = false;
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| format!("reading {url}: {e}"))?
        {
            let room = cap.saturating_sub(out.len());
            if chunk.len() > room {
                out.extend_from_slice(&chunk[..room]);
                truncated = true;
                break;
            }
            out.extend_from_slice(&chunk);
        }
        env.audit
            .allow(&env.plugin, "net", url.as_str(), "granted and permitted");
        return Ok(HttpResponse {
            status: status.as_u16(),
            url: url.to_string(),
            headers,
            body: out,
            truncated,
        });
    }
    Err(format!("{}: more than {MAX_REDIRECTS} redirects", req.url))
}

/// Checks one URL and returns its host and the addresses it may be reached at.
async fn check_hop(env: &CallEnv, url: &Url) -> Result<(String, Vec<SocketAddr>), String> {
    let deny = |reason: String| {
        env.audit.deny(&env.plugin, "net", url.as_str(), &reason);
        Err(reason)
    };
    let scheme = url.scheme();
    if scheme != "http" && scheme != "https" {
        return deny(format!("{url}: only http and https are allowed"));
    }
    let Some(host) = url
        .host_str()
        .map(|h| h.trim_matches(['[', ']']).to_string())
    else {
        return deny(format!("{url}: no host"));
    };
    let port = url.port_or_known_default().unwrap_or(80);
    if !env.caps.allows_net(scheme, &host, port) {
        return deny(format!(
            "{scheme}://{host}:{port} is not among the hosts granted to plugin `{}`",
            env.plugin
        ));
    }
    let checked = env
        .scope
        .check(
            "webfetch",
            vec![url.to_string()],
            vec![format!("{scheme}://{host}/*")],
            serde_json::json!({ "plugin": env.plugin }),
        )
        .await;
    if let Err(e) = checked {
        return deny(e.to_string());
    }
    let addrs: Vec<SocketAddr> = match host.parse::<IpAddr>() {
        Ok(ip) => vec![SocketAddr::new(ip, port)],
        Err(_) => match tokio::net::lookup_host((host.as_str(), port)).await {
            Ok(a) => a.collect(),
            Err(e) => return Err(format!("cannot resolve {host}: {e}")),
        },
    };
    if addrs.is_empty() {
        return Err(format!("cannot resolve {host}"));
    }
    if !env.caps.names_host_explicitly(&host)
        && let Some(bad) = addrs.iter().find(|a| is_internal(a.ip()))
    {
        return deny(format!(
            "{host} resolves to the internal address {}; grant `net:{host}` explicitly to allow it",
            bad.ip()
        ));
    }
    Ok((host, addrs))
}

/// Loopback, private, link-local (incl. cloud metadata), shared, unspecified and
/// multicast addresses: the ones a plugin must not reach by a public-looking name.
pub fn is_internal(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || (o[0] == 100 && (o[1] & 0xc0) == 64)
                || o[0] == 0
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_internal(IpAddr::V4(v4));
            }
            let s = v6.segments();
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_addresses() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(is_internal(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["93.184.216.34", "2606:4700::1111", "8.8.8.8"] {
            assert!(!is_internal(ip.parse().unwrap()), "{ip}");
        }
    }
}
