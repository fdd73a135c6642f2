//! Sessions: list, create, read, change, delete, their children, todos and status,
//! and stopping their loop.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::{Path, Query, State};
use serde::Deserialize;
use utoipa::IntoParams;
use ward_permission::Rule;

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
    /// Accepted for OpenCode's clients; the server serves one project.
    #[allow(dead_code)]
    directory: Option<String>,
}

/// The sessions, most recently changed first.
#[utoipa::path(get, path = "/session", tag = "session", params(ListQuery),
    responses((status = 200, body = Vec<SessionInfo>), (status = 400, body = crate::wire::message::ErrorInfo)))]
pub async fn list(
    State(app): State<App>,
    Query(query): Query<ListQuery>,
) -> Result<Json<Vec<SessionInfo>>, ApiError> {
    let roots = match query.roots.as_deref() {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "query `roots`: expected true or false, found {other:?}"
            )));
        }
    };
    let search = query.search.map(|s| s.to_lowercase());
    let mut sessions: Vec<_> = app
        .engine
        .sessions()?
        .into_iter()
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
        ("model", body.model.is_some()),
        ("metadata", body.metadata.is_some()),
        ("workspaceID", body.workspace_id.is_some()),
    ] {
        if given {
            return Err(unsupported(field));
        }
    }
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
    if body.title.is_some() || body.permission.is_some() {
        session.title = body.title.unwrap_or_default();
        session.permission = rules(body.permission.as_deref());
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
