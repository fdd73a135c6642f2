//! The `http-fetch` import: outgoing HTTP for plugins granted `net`.
//!
//! Each hop of a request (the first URL and every redirect) is checked on its own: the
//! scheme must be http(s), the host must be within the plugin's grant and ceiling, the
//! `webfetch` rules must allow the URL, and after DNS resolution no address may be
//! loopback, private, link-local (cloud metadata) or otherwise internal unless the grant
//! names that host explicitly. The connection then goes to exactly the addresses that
//! were checked, so a second DNS answer cannot swap in another (DNS rebinding).
//!
//! A refusal by a grant or a rule is [`HostError::Denied`], a request that is not one
//! (a bad method or URL) [`HostError::Invalid`], a request that ran out of time
//! [`HostError::Timeout`] (as the HTTP client reports it), anything else on the way
//! [`HostError::Failed`].

mod internal;
mod target;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use reqwest::redirect::Policy;
use url::Url;

use crate::bindings::host::{HttpRequest, HttpResponse};
use crate::host_error::HostError;
use crate::state::CallEnv;

pub use internal::is_internal;
use target::Target;

const MAX_REDIRECTS: usize = 10;
const DEFAULT_TIMEOUT_MS: u32 = 30_000;

pub(crate) async fn fetch(env: Arc<CallEnv>, req: HttpRequest) -> Result<HttpResponse, HostError> {
    if env.caps.net.is_empty() {
        let reason = format!(
            "plugin `{}` was not granted the `net` capability",
            env.plugin
        );
        env.audit.deny(&env.plugin, "net", &req.url, &reason);
        return Err(HostError::Denied(reason));
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
        .map_err(|_| HostError::Invalid(format!("invalid HTTP method `{}`", req.method)))?;
    let mut body = req.body.clone();
    let mut url = Url::parse(&req.url)
        .map_err(|e| HostError::Invalid(format!("invalid URL `{}`: {e}", req.url)))?;

    for _ in 0..=MAX_REDIRECTS {
        let (send, host, addrs) = check_hop(&env, &url).await?;
        url = send;
        let client = reqwest::Client::builder()
            .redirect(Policy::none())
            .timeout(timeout)
            .no_proxy()
            .resolve_to_addrs(&host, &addrs)
            .build()
            .map_err(|e| HostError::Failed(format!("HTTP client: {e}")))?;
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
            .map_err(|e| transfer(e, format!("fetching {url}")))?;
        let status = response.status();
        if status.is_redirection()
            && let Some(location) = response.headers().get(reqwest::header::LOCATION)
        {
            let location = location.to_str().map_err(|_| {
                HostError::Failed(format!("{url}: redirect with a non-text Location"))
            })?;
            url = url
                .join(location)
                .map_err(|e| HostError::Failed(format!("{url}: bad redirect `{location}`: {e}")))?;
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
            .map_err(|e| transfer(e, format!("reading {url}")))?
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
    Err(HostError::Failed(format!(
        "{}: more than {MAX_REDIRECTS} redirects",
        req.url
    )))
}

/// An error of the HTTP client while `doing` something: a timeout when the client says
/// it timed out, else a failure.
fn transfer(e: reqwest::Error, doing: String) -> HostError {
    let message = format!("{doing}: {e}");
    if e.is_timeout() {
        HostError::Timeout(message)
    } else {
        HostError::Failed(message)
    }
}

/// Checks one URL, normalised ([`Target`]), and returns where the request goes: the
/// normalised URL with the original's user name and password (credentials for the
/// same host), its host and the addresses it may be reached at.
async fn check_hop(env: &CallEnv, url: &Url) -> Result<(Url, String, Vec<SocketAddr>), HostError> {
    let deny = |reason: String| {
        env.audit.deny(&env.plugin, "net", url.as_str(), &reason);
        Err(HostError::Denied(reason))
    };
    let scheme = url.scheme();
    if scheme != "http" && scheme != "https" {
        return deny(format!("{url}: only http and https are allowed"));
    }
    let target = match Target::of(url) {
        Ok(target) => target,
        Err(reason) => return deny(reason.to_string()),
    };
    let Target {
        url: norm,
        host,
        ip,
        port,
    } = target;
    if !env.caps.allows_net(scheme, &host, port) {
        return deny(format!(
            "{scheme}://{host}:{port} is not among the hosts granted to plugin `{}`",
            env.plugin
        ));
    }
    let checked = env
        .check(
            "webfetch",
            vec![norm.to_string()],
            vec![format!("{}/*", norm.origin().ascii_serialization())],
            serde_json::json!({ "plugin": env.plugin }),
        )
        .await;
    if let Err(e) = checked {
        env.audit
            .deny(&env.plugin, "net", url.as_str(), &e.to_string());
        return Err(e.into());
    }
    let addrs: Vec<SocketAddr> = match ip {
        Some(ip) => vec![SocketAddr::new(ip, port)],
        None => match tokio::net::lookup_host((host.as_str(), port)).await {
            Ok(a) => a.collect(),
            Err(e) => return Err(HostError::Failed(format!("cannot resolve {host}: {e}"))),
        },
    };
    if addrs.is_empty() {
        return Err(HostError::Failed(format!("cannot resolve {host}")));
    }
    if !env.caps.names_host_explicitly(&host)
        && let Some(bad) = addrs.iter().find(|a| is_internal(a.ip()))
    {
        return deny(format!(
            "{host} resolves to the internal address {}; grant `net:{host}` explicitly to allow it",
            bad.ip()
        ));
    }
    let mut send = norm;
    let _ = send.set_username(url.username());
    let _ = send.set_password(url.password());
    Ok((send, host, addrs))
}
