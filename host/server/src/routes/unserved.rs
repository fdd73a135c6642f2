//! OpenCode's routes Ward does not serve yet answer 501 naming the route, never a
//! bare 404: a client of OpenCode's (its terminal UI, its SDK) then knows the server
//! lacks a feature rather than that a session or file is missing. A route neither
//! serves answers 404, naming it too.
//!
//! The table is OpenCode 1.18.33's published API (`shared/reference/`, its OpenAPI
//! document): a test checks it against that document whenever it is beside the
//! repository.

use axum::http::{Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

/// Every method and path template of OpenCode 1.18.33's API.
const OPENCODE_ROUTES: &[(&str, &str)] = &[
    ("GET", "/agent"),
    ("GET", "/api/agent"),
    ("GET", "/api/command"),
    ("DELETE", "/api/credential/{credentialID}"),
    ("PATCH", "/api/credential/{credentialID}"),
    ("GET", "/api/event"),
    ("GET", "/api/fs/find"),
    ("GET", "/api/fs/list"),
    ("GET", "/api/fs/read/*"),
    ("GET", "/api/health"),
    ("GET", "/api/integration"),
    ("DELETE", "/api/integration/attempt/{attemptID}"),
    ("GET", "/api/integration/attempt/{attemptID}"),
    ("POST", "/api/integration/attempt/{attemptID}/complete"),
    ("GET", "/api/integration/{integrationID}"),
    ("POST", "/api/integration/{integrationID}/connect/key"),
    ("POST", "/api/integration/{integrationID}/connect/oauth"),
    ("GET", "/api/location"),
    ("GET", "/api/model"),
    ("GET", "/api/permission/request"),
    ("GET", "/api/permission/saved"),
    ("DELETE", "/api/permission/saved/{id}"),
    ("GET", "/api/provider"),
    ("GET", "/api/provider/{providerID}"),
    ("GET", "/api/pty"),
    ("POST", "/api/pty"),
    ("DELETE", "/api/pty/{ptyID}"),
    ("GET", "/api/pty/{ptyID}"),
    ("PUT", "/api/pty/{ptyID}"),
    ("GET", "/api/pty/{ptyID}/connect"),
    ("POST", "/api/pty/{ptyID}/connect-token"),
    ("GET", "/api/question/request"),
    ("GET", "/api/reference"),
    ("GET", "/api/session"),
    ("POST", "/api/session"),
    ("GET", "/api/session/active"),
    ("GET", "/api/session/{sessionID}"),
    ("POST", "/api/session/{sessionID}/agent"),
    ("POST", "/api/session/{sessionID}/compact"),
    ("GET", "/api/session/{sessionID}/context"),
    ("GET", "/api/session/{sessionID}/event"),
    ("GET", "/api/session/{sessionID}/history"),
    ("POST", "/api/session/{sessionID}/interrupt"),
    ("GET", "/api/session/{sessionID}/message"),
    ("GET", "/api/session/{sessionID}/message/{messageID}"),
    ("POST", "/api/session/{sessionID}/model"),
    ("GET", "/api/session/{sessionID}/permission"),
    ("POST", "/api/session/{sessionID}/permission"),
    ("GET", "/api/session/{sessionID}/permission/{requestID}"),
    (
        "POST",
        "/api/session/{sessionID}/permission/{requestID}/reply",
    ),
    ("POST", "/api/session/{sessionID}/prompt"),
    ("GET", "/api/session/{sessionID}/question"),
    (
        "POST",
        "/api/session/{sessionID}/question/{requestID}/reject",
    ),
    (
        "POST",
        "/api/session/{sessionID}/question/{requestID}/reply",
    ),
    ("POST", "/api/session/{sessionID}/revert/clear"),
    ("POST", "/api/session/{sessionID}/revert/commit"),
    ("POST", "/api/session/{sessionID}/revert/stage"),
    ("POST", "/api/session/{sessionID}/wait"),
    ("GET", "/api/skill"),
    ("DELETE", "/auth/{providerID}"),
    ("PUT", "/auth/{providerID}"),
    ("GET", "/command"),
    ("GET", "/config"),
    ("PATCH", "/config"),
    ("GET", "/config/providers"),
    ("GET", "/event"),
    ("GET", "/experimental/capabilities"),
    ("GET", "/experimental/console"),
    ("GET", "/experimental/console/orgs"),
    ("POST", "/experimental/console/switch"),
    ("POST", "/experimental/control-plane/move-session"),
    ("DELETE", "/experimental/project/{projectID}/copy"),
    ("POST", "/experimental/project/{projectID}/copy"),
    (
        "POST",
        "/experimental/project/{projectID}/copy/generate-name",
    ),
    ("POST", "/experimental/project/{projectID}/copy/refresh"),
    ("GET", "/experimental/resource"),
    ("GET", "/experimental/session"),
    ("POST", "/experimental/session/{sessionID}/background"),
    ("GET", "/experimental/tool"),
    ("GET", "/experimental/tool/ids"),
    ("GET", "/experimental/workspace"),
    ("POST", "/experimental/workspace"),
    ("GET", "/experimental/workspace/adapter"),
    ("GET", "/experimental/workspace/status"),
    ("POST", "/experimental/workspace/sync-list"),
    ("POST", "/experimental/workspace/warp"),
    ("DELETE", "/experimental/workspace/{id}"),
    ("DELETE", "/experimental/worktree"),
    ("GET", "/experimental/worktree"),
    ("POST", "/experimental/worktree"),
    ("POST", "/experimental/worktree/reset"),
    ("GET", "/file"),
    ("GET", "/file/content"),
    ("GET", "/file/status"),
    ("GET", "/find"),
    ("GET", "/find/file"),
    ("GET", "/find/symbol"),
    ("GET", "/formatter"),
    ("GET", "/global/config"),
    ("PATCH", "/global/config"),
    ("POST", "/global/dispose"),
    ("GET", "/global/event"),
    ("GET", "/global/health"),
    ("POST", "/global/upgrade"),
    ("POST", "/instance/dispose"),
    ("POST", "/log"),
    ("GET", "/lsp"),
    ("GET", "/mcp"),
    ("POST", "/mcp"),
    ("DELETE", "/mcp/{name}/auth"),
    ("POST", "/mcp/{name}/auth"),
    ("POST", "/mcp/{name}/auth/authenticate"),
    ("POST", "/mcp/{name}/auth/callback"),
    ("POST", "/mcp/{name}/connect"),
    ("POST", "/mcp/{name}/disconnect"),
    ("GET", "/path"),
    ("GET", "/permission"),
    ("POST", "/permission/{requestID}/reply"),
    ("GET", "/project"),
    ("GET", "/project/current"),
    ("POST", "/project/git/init"),
    ("PATCH", "/project/{projectID}"),
    ("GET", "/project/{projectID}/directories"),
    ("GET", "/provider"),
    ("GET", "/provider/auth"),
    ("POST", "/provider/{providerID}/oauth/authorize"),
    ("POST", "/provider/{providerID}/oauth/callback"),
    ("GET", "/pty"),
    ("POST", "/pty"),
    ("GET", "/pty/shells"),
    ("DELETE", "/pty/{ptyID}"),
    ("GET", "/pty/{ptyID}"),
    ("PUT", "/pty/{ptyID}"),
    ("GET", "/pty/{ptyID}/connect"),
    ("POST", "/pty/{ptyID}/connect-token"),
    ("GET", "/question"),
    ("POST", "/question/{requestID}/reject"),
    ("POST", "/question/{requestID}/reply"),
    ("GET", "/session"),
    ("POST", "/session"),
    ("GET", "/session/status"),
    ("DELETE", "/session/{sessionID}"),
    ("GET", "/session/{sessionID}"),
    ("PATCH", "/session/{sessionID}"),
    ("POST", "/session/{sessionID}/abort"),
    ("GET", "/session/{sessionID}/children"),
    ("POST", "/session/{sessionID}/command"),
    ("GET", "/session/{sessionID}/diff"),
    ("POST", "/session/{sessionID}/fork"),
    ("POST", "/session/{sessionID}/init"),
    ("GET", "/session/{sessionID}/message"),
    ("POST", "/session/{sessionID}/message"),
    ("DELETE", "/session/{sessionID}/message/{messageID}"),
    ("GET", "/session/{sessionID}/message/{messageID}"),
    (
        "DELETE",
        "/session/{sessionID}/message/{messageID}/part/{partID}",
    ),
    (
        "PATCH",
        "/session/{sessionID}/message/{messageID}/part/{partID}",
    ),
    ("POST", "/session/{sessionID}/permissions/{permissionID}"),
    ("POST", "/session/{sessionID}/prompt_async"),
    ("POST", "/session/{sessionID}/revert"),
    ("DELETE", "/session/{sessionID}/share"),
    ("POST", "/session/{sessionID}/share"),
    ("POST", "/session/{sessionID}/shell"),
    ("POST", "/session/{sessionID}/summarize"),
    ("GET", "/session/{sessionID}/todo"),
    ("POST", "/session/{sessionID}/unrevert"),
    ("GET", "/skill"),
    ("POST", "/sync/history"),
    ("POST", "/sync/replay"),
    ("POST", "/sync/start"),
    ("POST", "/sync/steal"),
    ("POST", "/tui/append-prompt"),
    ("POST", "/tui/clear-prompt"),
    ("GET", "/tui/control/next"),
    ("POST", "/tui/control/response"),
    ("POST", "/tui/execute-command"),
    ("POST", "/tui/open-help"),
    ("POST", "/tui/open-models"),
    ("POST", "/tui/open-sessions"),
    ("POST", "/tui/open-themes"),
    ("POST", "/tui/publish"),
    ("POST", "/tui/select-session"),
    ("POST", "/tui/show-toast"),
    ("POST", "/tui/submit-prompt"),
    ("GET", "/vcs"),
    ("POST", "/vcs/apply"),
    ("GET", "/vcs/diff"),
    ("GET", "/vcs/diff/raw"),
    ("GET", "/vcs/status"),
];

/// The answer to a request no handler took: 501 for one of OpenCode's routes, 404
/// for any other; both name the route.
pub async fn fallback(method: Method, uri: Uri) -> Response {
    let path = uri.path();
    let route = format!("{method} {path}");
    match opencode_route(method.as_str(), path) {
        Some(template) => ApiError::refused(
            StatusCode::NOT_IMPLEMENTED,
            "NotImplementedError",
            format!(
                "`{route}` is OpenCode's `{method} {template}`, which Ward does not serve yet \
                 (GET /doc lists what it serves)"
            ),
        )
        .into_response(),
        None => ApiError::not_found(format!(
            "no route `{route}` (GET /doc lists what this server serves)"
        ))
        .into_response(),
    }
}

/// The answer to a method no handler of a served path takes: 501 when OpenCode has
/// that route, else 405; both name the route.
pub async fn method_fallback(method: Method, uri: Uri) -> Response {
    if opencode_route(method.as_str(), uri.path()).is_some() {
        return fallback(method, uri).await;
    }
    ApiError::refused(
        StatusCode::METHOD_NOT_ALLOWED,
        "MethodNotAllowedError",
        format!(
            "`{method} {}`: this path is served, but not for {method} (GET /doc lists its methods)",
            uri.path()
        ),
    )
    .into_response()
}

/// The template of OpenCode's route that `method` `path` is a request for.
fn opencode_route(method: &str, path: &str) -> Option<&'static str> {
    OPENCODE_ROUTES
        .iter()
        .find(|(m, template)| *m == method && matches(template, path))
        .map(|(_, template)| *template)
}

/// Whether `path` fits `template`: `{name}` is one segment, a final `*` the rest.
fn matches(template: &str, path: &str) -> bool {
    let mut given = path.trim_end_matches('/').split('/');
    for part in template.split('/') {
        if part == "*" {
            return given.next().is_some_and(|s| !s.is_empty());
        }
        match given.next() {
            Some(segment) if part.starts_with('{') && part.ends_with('}') => {
                if segment.is_empty() {
                    return false;
                }
            }
            Some(segment) if segment == part => {}
            _ => return false,
        }
    }
    given.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_one_segment_per_parameter() {
        assert!(matches("/session/{sessionID}/diff", "/session/ses_1/diff"));
        assert!(matches("/vcs", "/vcs/"));
        assert!(!matches("/session/{sessionID}/diff", "/session//diff"));
        assert!(!matches("/session/{sessionID}/diff", "/session/a/b/diff"));
        assert!(!matches("/vcs", "/vcs/status"));
        assert!(matches("/api/fs/read/*", "/api/fs/read/src/main.rs"));
        assert!(!matches("/api/fs/read/*", "/api/fs/read/"));
        assert_eq!(
            opencode_route("GET", "/session/x/diff"),
            Some("/session/{sessionID}/diff")
        );
        assert_eq!(opencode_route("DELETE", "/session/x/diff"), None);
        assert_eq!(opencode_route("GET", "/no/such/route"), None);
    }

    /// The table is OpenCode 1.18.33's document, route for route, when the reference
    /// is beside the repository (as in CI).
    #[test]
    fn the_table_is_opencodes_published_api() {
        let reference = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/reference/opencode-1.18.33-openapi.json");
        let Ok(text) = std::fs::read_to_string(&reference) else {
            eprintln!(
                "{} is not here; the table is not checked",
                reference.display()
            );
            return;
        };
        let doc: serde_json::Value = serde_json::from_str(&text).expect("the reference is JSON");
        let mut published = Vec::new();
        for (path, item) in doc["paths"].as_object().expect("paths") {
            for method in ["get", "post", "put", "patch", "delete"] {
                if item.get(method).is_some() {
                    published.push((method.to_uppercase(), path.clone()));
                }
            }
        }
        published.sort_by(|a, b| (&a.1, &a.0).cmp(&(&b.1, &b.0)));
        let table: Vec<(String, String)> = OPENCODE_ROUTES
            .iter()
            .map(|(m, p)| (m.to_string(), p.to_string()))
            .collect();
        assert_eq!(table, published);
    }
}
