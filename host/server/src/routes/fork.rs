//! `POST /session/{sessionID}/fork`: OpenCode's fork — a copy of a session up to a
//! message, under new ids (see `ward_engine::manage::fork`).

use axum::Json;
use axum::extract::{Path, State};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::App;
use crate::body::OptionalJsonBody;
use crate::error::ApiError;
use crate::wire::session::SessionInfo;

/// `POST /session/{sessionID}/fork`'s body.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ForkSession {
    /// The fork point: the messages before it are copied (default: every message).
    #[serde(rename = "messageID")]
    pub message_id: Option<String>,
}

/// Copies a session — its messages before `messageID`, as OpenCode's fork does — as a new
/// session titled "TITLE (fork #n)".
#[utoipa::path(post, path = "/session/{sessionID}/fork", tag = "session", request_body = ForkSession,
    params(("sessionID" = String, Path, description = "The session")),
    responses((status = 200, body = SessionInfo), (status = 400, body = crate::wire::message::ErrorInfo),
        (status = 404, body = crate::wire::message::ErrorInfo)))]
pub async fn fork(
    State(app): State<App>,
    Path(id): Path<String>,
    OptionalJsonBody(body): OptionalJsonBody<ForkSession>,
) -> Result<Json<SessionInfo>, ApiError> {
    let session = app.engine.fork_session(&id, body.message_id.as_deref())?;
    Ok(Json(SessionInfo::of(&session)))
}
