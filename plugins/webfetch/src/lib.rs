//! The `webfetch` tool: fetches a URL through the host's `http-fetch` import (which checks
//! the `net` grant and the `webfetch` permission rules) and returns it as Markdown, plain
//! text or raw HTML; images come back as attachments.

pub mod html;

use serde_json::json;
use ward_sdk::{Attachment, Context, HttpResponse, Output, Tool, ToolError};
use ward_tool_common::permission::host_error;
use ward_tool_common::text::data_url;

/// Largest response accepted.
pub const MAX_RESPONSE_BYTES: usize = 5 * 1024 * 1024;
/// Timeout when none is given, in seconds.
pub const DEFAULT_TIMEOUT_S: u32 = 30;
/// Longest timeout allowed, in seconds.
pub const MAX_TIMEOUT_S: u32 = 120;

/// How to return the content.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// HTML converted to Markdown (other content as it is).
    #[default]
    Markdown,
    /// HTML reduced to plain text (other content as it is).
    Text,
    /// The raw response body.
    Html,
}

/// Arguments of `webfetch`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Args {
    /// The URL to fetch; must start with http:// or https://.
    pub url: String,
    /// The format to return the content in: markdown (default), text or html.
    #[serde(default)]
    pub format: Format,
    /// Optional timeout in seconds (default 30, at most 120).
    #[schemars(range(min = 1, max = 120))]
    pub timeout: Option<u32>,
}

/// The `webfetch` tool.
pub struct WebFetch;

impl Tool for WebFetch {
    type Args = Args;
    const NAME: &'static str = "webfetch";
    const DESCRIPTION: &'static str = "\
Fetches content from a URL and returns it as markdown (default), plain text or raw HTML.

Usage:
- url must be a fully-formed http:// or https:// URL.
- format: markdown turns HTML pages into Markdown (headings, links, lists, code), text \
strips all markup, html returns the body unchanged. Non-HTML content is returned as it is; \
images are returned as attachments.
- timeout is in seconds: default 30, at most 120. Responses over 5 MB are refused.
- Read-only: it does not change anything. Requests are subject to the network grant and the \
webfetch permission rules; private and local addresses are refused.
- Long pages are truncated; when you need one detail of a long page, say so and search the \
saved output rather than fetching again.";

    fn run(args: Args, _ctx: &Context) -> Result<Output, ToolError> {
        let timeout_ms = prepare(&args)?;
        let response =
            ward_sdk::http_fetch(&args.url, &request_headers(args.format), Some(timeout_ms))
                .map_err(|e| host_error("the request failed", e))?;
        render(&args, &response)
    }
}

// The component exports only exist in the wasm build: natively the linker rejects the
// WIT export names, and unit tests call the plain functions.
#[cfg(target_arch = "wasm32")]
ward_sdk::export_tools!(WebFetch);

/// Validates the arguments; returns the timeout in milliseconds.
pub fn prepare(args: &Args) -> Result<u32, ToolError> {
    if !(args.url.starts_with("http://") || args.url.starts_with("https://")) {
        return Err(ToolError::InvalidArguments(
            "URL must start with http:// or https://".into(),
        ));
    }
    if args.timeout == Some(0) {
        return Err(ToolError::InvalidArguments(
            "timeout must be a positive number of seconds".into(),
        ));
    }
    Ok(args.timeout.unwrap_or(DEFAULT_TIMEOUT_S).min(MAX_TIMEOUT_S) * 1000)
}

/// Request headers: a browser-like user agent and an `Accept` preferring `format`.
pub fn request_headers(format: Format) -> Vec<(String, String)> {
    let accept = match format {
        Format::Markdown => {
            "text/markdown;q=1.0, text/x-markdown;q=0.9, text/plain;q=0.8, text/html;q=0.7, */*;q=0.1"
        }
        Format::Text => "text/plain;q=1.0, text/markdown;q=0.9, text/html;q=0.8, */*;q=0.1",
        Format::Html => {
            "text/html;q=1.0, application/xhtml+xml;q=0.9, text/plain;q=0.8, text/markdown;q=0.7, */*;q=0.1"
        }
    };
    vec![
        (
            "User-Agent".into(),
            "Mozilla/5.0 (compatible; Ward-webfetch/0.1)".into(),
        ),
        ("Accept".into(), accept.into()),
        ("Accept-Language".into(), "en-US,en;q=0.9".into()),
    ]
}

/// Turns a response into the tool's output.
pub fn render(args: &Args, response: &HttpResponse) -> Result<Output, ToolError> {
    if !(200..300).contains(&response.status) {
        return Err(ToolError::Failed(format!(
            "Request failed with status code {} ({})",
            response.status, response.url
        )));
    }
    if response.truncated || response.body.len() > MAX_RESPONSE_BYTES {
        return Err(ToolError::Failed(
            "Response too large (exceeds 5 MB limit)".into(),
        ));
    }
    let content_type = response
        .headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("content-type"))
        .map(|(_, value)| value.clone())
        .unwrap_or_default();
    let mime = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let metadata = json!({
        "status": response.status,
        "url": response.url,
        "contentType": content_type,
        "bytes": response.body.len(),
    });
    let title = format!("{} ({mime})", args.url);
    if mime.starts_with("image/") && mime != "image/svg+xml" {
        let mut out = Output::text(title, "Image fetched successfully").with_metadata(metadata);
        out.attachments.push(Attachment {
            mime: mime.clone(),
            url: data_url(&mime, &response.body),
            filename: None,
        });
        return Ok(out);
    }
    let body = String::from_utf8_lossy(&response.body);
    let is_html = mime.contains("html") || (mime.is_empty() && looks_like_html(&body));
    let mut metadata = metadata;
    if is_html && let Some(page_title) = html::title(&body) {
        metadata["pageTitle"] = json!(page_title);
    }
    let text = match (args.format, is_html) {
        (Format::Markdown, true) => html::to_markdown(&body),
        (Format::Text, true) => html::to_text(&body),
        _ => body.into_owned(),
    };
    Ok(Output::text(title, text).with_metadata(metadata))
}

fn looks_like_html(body: &str) -> bool {
    let head: String = body
        .chars()
        .take(512)
        .collect::<String>()
        .to_ascii_lowercase();
    head.contains("<html") || head.contains("<!doctype html")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(url: &str, format: Format, timeout: Option<u32>) -> Args {
        Args {
            url: url.into(),
            format,
            timeout,
        }
    }

    fn response(status: u16, content_type: &str, body: &[u8]) -> HttpResponse {
        HttpResponse {
            status,
            url: "https://example.test/final".into(),
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.to_vec(),
            truncated: false,
        }
    }

    #[test]
    fn urls_and_timeouts_are_checked() {
        assert!(prepare(&args("ftp://x", Format::Markdown, None)).is_err());
        assert!(prepare(&args("https://x", Format::Markdown, Some(0))).is_err());
        assert_eq!(
            prepare(&args("https://x", Format::Markdown, None)).ok(),
            Some(30_000)
        );
        assert_eq!(
            prepare(&args("http://x", Format::Text, Some(500))).ok(),
            Some(120_000)
        );
    }

    #[test]
    fn format_defaults_to_markdown_and_rejects_unknown_fields() {
        let parsed: Result<Args, _> = serde_json::from_str(r#"{"url":"https://x"}"#);
        assert_eq!(parsed.map(|a| a.format).ok(), Some(Format::Markdown));
        let bad: Result<Args, _> = serde_json::from_str(r#"{"url":"https://x","format":"pdf"}"#);
        assert!(bad.is_err());
        let extra: Result<Args, _> = serde_json::from_str(r#"{"url":"https://x","x":1}"#);
        assert!(extra.is_err());
    }

    #[test]
    fn html_is_converted_by_format() {
        let page = b"<html><body><h2>Hi</h2><p>a <a href=\"/x\">b</a></p></body></html>";
        let r = response(200, "text/html; charset=utf-8", page);
        let md = render(&args("https://e.test", Format::Markdown, None), &r);
        assert_eq!(
            md.map(|o| o.output).ok().as_deref(),
            Some("## Hi\n\na [b](/x)")
        );
        let text = render(&args("https://e.test", Format::Text, None), &r);
        assert_eq!(text.map(|o| o.output).ok().as_deref(), Some("Hi\n\na b"));
        let raw = render(&args("https://e.test", Format::Html, None), &r);
        assert_eq!(
            raw.map(|o| o.output.into_bytes()).ok().as_deref(),
            Some(&page[..])
        );
    }

    #[test]
    fn non_html_is_returned_as_is_and_images_attached() {
        let r = response(200, "application/json", b"{\"a\":1}");
        let out = render(&args("https://e.test", Format::Markdown, None), &r);
        assert_eq!(out.map(|o| o.output).ok().as_deref(), Some("{\"a\":1}"));
        let img = response(200, "image/png", b"\x89PNG");
        let out = render(&args("https://e.test/i.png", Format::Markdown, None), &img);
        let attachments = out.map(|o| o.attachments).unwrap_or_default();
        assert_eq!(attachments.len(), 1);
        assert!(attachments[0].url.starts_with("data:image/png;base64,"));
    }

    #[test]
    fn errors_for_status_and_size() {
        let r = response(404, "text/html", b"nope");
        match render(&args("https://e.test", Format::Markdown, None), &r) {
            Err(ToolError::Failed(m)) => {
                assert!(m.starts_with("Request failed with status code 404"))
            }
            other => panic!("unexpected {other:?}"),
        }
        let mut big = response(200, "text/plain", b"x");
        big.truncated = true;
        assert!(render(&args("https://e.test", Format::Text, None), &big).is_err());
    }
}
