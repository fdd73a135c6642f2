//! Permission asks: the ones waiting, and answering them.

use axum::Json;
use axum::extract::{Path, State};
use ward_engine::Reply;

use crate::App;
use crate::body::JsonBody;
use crate::error::ApiError;
use crate::wire::event::PermissionInfo;
use crate::wire::message::ErrorInfo;
use crate::wire::requests::{PermissionReply, PermissionRespond, ReplyName};

/// The asks waiting for an answer, oldest first.
#[utoipa::path(get, path = "/permission", tag = "permission",
    responses((status = 200, body = Vec<PermissionInfo>)))]
pub async fn list(State(app): State<App>) -> Json<Vec<PermissionInfo>> {
    Json(
        app.engine
            .pending_asks()
            .iter()
            .map(|(id, request)| PermissionInfo::of(id, request))
            .collect(),
    )
}

fn reply_of(name: ReplyName, message: Option<String>) -> Reply {
    match name {
        ReplyName::Once => Reply::Once,
        ReplyName::Always => Reply::Always,
        ReplyName::Reject => Reply::Reject {
            feedback: message.filter(|m| !m.trim().is_empty()),
        },
    }
}

/// Answers an ask: `once`, `always` (also allows what its `always` patterns cover,
/// from now on) or `reject` (with a message for the model).
#[utoipa::path(post, path = "/permission/{requestID}/reply", tag = "permission",
    request_body = PermissionReply,
    params(("requestID" = String, Path, description = "The ask (`per_…`)")),
    responses((status = 200, body = bool), (status = 400, body = ErrorInfo), (status = 404, body = ErrorInfo)))]
pub async fn reply(
    State(app): State<App>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<PermissionReply>,
) -> Result<Json<bool>, ApiError> {
    app.engine.reply(&id, reply_of(body.reply, body.message))?;
    Ok(Json(true))
}

/// OpenCode's older route for [`reply`]: the ask must be the session's.
#[utoipa::path(post, path = "/session/{sessionID}/permissions/{permissionID}", tag = "permission",
    request_body = PermissionRespond,
    params(("sessionID" = String, Path, description = "The session"),
        ("permissionID" = String, Path, description = "The ask (`per_…`)")),
    responses((status = 200, body = bool), (status = 400, body = ErrorInfo), (status = 404, body = ErrorInfo)))]
pub async fn respond(
    State(app): State<App>,
    Path((session, id)): Path<(String, String)>,
    JsonBody(body): JsonBody<PermissionRespond>,
) -> Result<Json<bool>, ApiError> {
    let theirs = app
        .engine
        .pending_asks()
        .iter()
        .any(|(ask, request)| *ask == id && request.session_id == session);
    if !theirs {
        return Err(ApiError::not_found(format!(
            "session {session} has no pending ask {id}"
        )));
    }
    app.engine.reply(&id, reply_of(body.response, None))?;
    Ok(Json(true))
}
