//! Sessions: list, create, read, change, delete, their children, todos and status,
//! and stopping their loop.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::{Path, Query, State};
use serde::Deserialize;
use utoipa::IntoParams;
use ward_protocol::Rule;

use crate::App;
use crate::body::OptionalJsonBody;
use crate::error::ApiError;
use crate::wire::event::StatusInfo;
use crate::wire::requests::{CreateSession, UpdateSession};
use crate::wire::session::{SessionInfo, TodoInfo};

/// `GET /session`'s filters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Only sessions no other session started (`true`/`false`).
    roots: Option<String>,
    /// Only sessions changed at or after this time (Unix milliseconds).
    start: Option<i64>,
    /// Only sessions whose title contains this (any case).
    search: Option<String>,
    /// At most this many (the most recently changed).
    limit: Option<usize>,
    /// Only the sessions of the project this directory is in (default: the
    /// server's project; OpenCode's clients may send it as `x-opencode-directory`).
    directory: Option<String>,
    /// Every project's sessions in the data directory (`true`/`false`; Ward's own).
    all: Option<String>,
}

/// A `true`/`false` query parameter.
fn flag(name: &str, value: Option<&str>) -> Result<bool, ApiError> {
    match value {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(other) => Err(ApiError::bad_request(format!(
            "query `{name}`: expected true or false, found {other:?}"
        ))),
    }
}

/// Whether a session working in `session_dir` belongs to the project `directory` is
/// in (the project's root, or a directory inside it).
fn in_project(session_dir: &str, directory: &std::path::Path) -> bool {
    !session_dir.is_empty() && directory.starts_with(session_dir)
}

/// The sessions of one project (the server's, unless `directory` names another, or
/// all with `all=true`), most recently changed first.
#[utoipa::path(get, path = "/session", tag = "session", params(ListQuery),
    responses((status = 200, body = Vec<SessionInfo>), (status = 400, body = crate::wire::message::ErrorInfo)))]
pub async fn list(
    State(app): State<App>,
    headers: axum::http::HeaderMap,
    Query(query): Query<ListQuery>,
) -> Result<Json<Vec<SessionInfo>>, ApiError> {
    let roots = flag("roots", query.roots.as_deref())?;
    let all = flag("all", query.all.as_deref())?;
    // OpenCode's clients percent-encode the directory in this header.
    let header = headers
        .get("x-opencode-directory")
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            percent_encoding::percent_decode_str(v)
                .decode_utf8_lossy()
                .into_owned()
        });
    let directory =
        std::path::PathBuf::from(query.directory.or(header).unwrap_or(app.root.clone()));
    let search = query.search.map(|s| s.to_lowercase());
    let mut sessions: Vec<_> = app
        .engine
        .sessions()?
        .into_iter()
        .filter(|s| all || in_project(&s.directory, &directory))
        .filter(|s| !roots || s.parent_id.is_none())
        .filter(|s| query.start.is_none_or(|t| s.time.updated >= t))
        .filter(|s| {
            search
                .as_deref()
                .is_none_or(|q| s.title.to_lowercase().contains(q))
        })
        .collect();
    sessions.sort_by_key(|s| std::cmp::Reverse(s.time.updated));
    if let Some(limit) = query.limit {
        sessions.truncate(limit);
    }
    Ok(Json(sessions.iter().map(SessionInfo::of).collect()))
}

/// Creates a session.
#[utoipa::path(post, path = "/session", tag = "session", request_body = CreateSession,
    responses((status = 200, body = SessionInfo), (status = 400, body = crate::wire::message::ErrorInfo)))]
pub async fn create(
    State(app): State<App>,
    OptionalJsonBody(body): OptionalJsonBody<CreateSession>,
) -> Result<Json<SessionInfo>, ApiError> {
    for (field, given) in [
        (
            "model.variant",
            body.model.as_ref().is_some_and(|m| m.variant.is_some()),
        ),
        ("metadata", body.metadata.is_some()),
        ("workspaceID", body.workspace_id.is_some()),
    ] {
        if given {
            return Err(unsupported(field));
        }
    }
    // Checked before anything is stored: a model nobody serves leaves no session.
    let model = match &body.model {
        Some(m) => Some(
            app.engine
                .model_ref(&format!("{}/{}", m.provider_id, m.id))
                .map_err(|e| ApiError::bad_request(format!("`model`: {e}")))?,
        ),
        None => None,
    };
    let mut session = match &body.parent_id {
        Some(parent) => app
            .engine
            .create_child_session(parent, body.agent.as_deref())
            .map_err(|e| {
                if e.is_not_found() {
                    ApiError::bad_request(format!("`parentID`: no session {parent}"))
                } else {
                    e.into()
                }
            })?,
        None => app.engine.create_session(body.agent.as_deref())?,
    };
    if body.title.is_some() || body.permission.is_some() || model.is_some() {
        session.title = body.title.unwrap_or_default();
        session.permission = rules(body.permission.as_deref());
        session.model = model;
        session = app.engine.update_session(&session)?;
    }
    Ok(Json(SessionInfo::of(&session)))
}

fn rules(given: Option<&[crate::wire::session::RuleInfo]>) -> Vec<Rule> {
    given.unwrap_or_default().iter().map(Rule::from).collect()
}

/// A 400 for a field OpenCode takes and Ward does not honour.
pub fn unsupported(field: &str) -> ApiError {
    ApiError::bad_request(format!("request body: `{field}` is not supported by Ward"))
}

/// Every session's status that is not idle, by session id.
#[utoipa::path(get, path = "/session/status", tag = "session",
    responses((status = 200, body = BTreeMap<String, StatusInfo>)))]
pub async fn status(
    State(app): State<App>,
) -> Result<Json<BTreeMap<String, StatusInfo>>, ApiError> {
    let busy = app
        .engine
        .sessions()?
        .into_iter()
        .filter(|s| app.engine.is_busy(&s.id))
        .map(|s| (s.id, StatusInfo::Busy))
        .collect();
    Ok(Json(busy))
}

/// A session.
#[utoipa::path(get, path = "/session/{sessionID}", tag = "session",
    params(("sessionID" = String, Path, description = "The session")),
    responses((status = 200, body = SessionInfo), (status = 404, body = crate::wire::message::ErrorInfo)))]
pub async fn get(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<Json<SessionInfo>, ApiError> {
    Ok(Json(SessionInfo::of(&app.engine.session(&id)?)))
}

/// Changes a session's title or its own permission rules.
#[utoipa::path(patch, path = "/session/{sessionID}", tag = "session", request_body = UpdateSession,
    params(("sessionID" = String, Path, description = "The session")),
    responses((status = 200, body = SessionInfo), (status = 400, body = crate::wire::message::ErrorInfo),
        (status = 404, body = crate::wire::message::ErrorInfo)))]
pub async fn update(
    State(app): State<App>,
    Path(id): Path<String>,
    OptionalJsonBody(body): OptionalJsonBody<UpdateSession>,
) -> Result<Json<SessionInfo>, ApiError> {
    if body.metadata.is_some() {
        return Err(unsupported("metadata"));
    }
    if body.time.is_some() {
        return Err(unsupported("time"));
    }
    let mut session = app.engine.session(&id)?;
    if let Some(title) = body.title {
        session.title = title;
    }
    if let Some(permission) = body.permission {
        session.permission = rules(Some(&permission));
    }
    Ok(Json(SessionInfo::of(&app.engine.update_session(&session)?)))
}

/// Deletes a session with its messages and subagent sessions, stopping them first.
#[utoipa::path(delete, path = "/session/{sessionID}", tag = "session",
    params(("sessionID" = String, Path, description = "The session")),
    responses((status = 200, body = bool), (status = 404, body = crate::wire::message::ErrorInfo)))]
pub async fn delete(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<Json<bool>, ApiError> {
    app.engine.delete_session(&id)?;
    Ok(Json(true))
}

/// The sessions a session started (its subagents').
#[utoipa::path(get, path = "/session/{sessionID}/children", tag = "session",
    params(("sessionID" = String, Path, description = "The session")),
    responses((status = 200, body = Vec<SessionInfo>), (status = 404, body = crate::wire::message::ErrorInfo)))]
pub async fn children(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<Json<Vec<SessionInfo>>, ApiError> {
    Ok(Json(
        app.engine
            .children(&id)?
            .iter()
            .map(SessionInfo::of)
            .collect(),
    ))
}

/// A session's task list.
#[utoipa::path(get, path = "/session/{sessionID}/todo", tag = "session",
    params(("sessionID" = String, Path, description = "The session")),
    responses((status = 200, body = Vec<TodoInfo>), (status = 404, body = crate::wire::message::ErrorInfo)))]
pub async fn todo(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<Json<Vec<TodoInfo>>, ApiError> {
    Ok(Json(
        app.engine.todos(&id)?.iter().map(TodoInfo::from).collect(),
    ))
}

/// Stops a session's loop (its model call, its running tool and that tool's
/// processes); `false` if it was idle.
#[utoipa::path(post, path = "/session/{sessionID}/abort", tag = "session",
    params(("sessionID" = String, Path, description = "The session")),
    responses((status = 200, body = bool), (status = 404, body = crate::wire::message::ErrorInfo)))]
pub async fn abort(State(app): State<App>, Path(id): Path<String>) -> Result<Json<bool>, ApiError> {
    app.engine.session(&id)?;
    Ok(Json(app.engine.abort(&id)))
}
