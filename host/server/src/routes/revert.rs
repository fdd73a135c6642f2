//! Undo and redo over HTTP: `POST /session/{id}/revert` and `…/unrevert`, in
//! OpenCode's shape (both answer the session).

use axum::Json;
use axum::extract::{Path, State};

use crate::App;
use crate::body::JsonBody;
use crate::error::ApiError;
use crate::wire::revert::RevertRequest;
use crate::wire::session::SessionInfo;

/// Rolls a session's files back to before a message (or part) and hides that
/// message and the later ones; refused (400) while the session is busy.
#[utoipa::path(post, path = "/session/{sessionID}/revert", tag = "session",
    params(("sessionID" = String, Path, description = "The session")),
    request_body = RevertRequest,
    responses((status = 200, body = SessionInfo), (status = 400, body = crate::wire::message::ErrorInfo),
        (status = 404, body = crate::wire::message::ErrorInfo)))]
pub async fn revert(
    State(app): State<App>,
    Path(id): Path<String>,
    JsonBody(request): JsonBody<RevertRequest>,
) -> Result<Json<SessionInfo>, ApiError> {
    let session = app
        .engine
        .revert(&id, &request.message_id, request.part_id.as_deref())
        .await?;
    Ok(Json(SessionInfo::of(&session)))
}

/// Puts back the files and messages the last revert took away.
#[utoipa::path(post, path = "/session/{sessionID}/unrevert", tag = "session",
    params(("sessionID" = String, Path, description = "The session")),
    responses((status = 200, body = SessionInfo), (status = 400, body = crate::wire::message::ErrorInfo),
        (status = 404, body = crate::wire::message::ErrorInfo)))]
pub async fn unrevert(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<Json<SessionInfo>, ApiError> {
    Ok(Json(SessionInfo::of(&app.engine.unrevert(&id).await?)))
}
