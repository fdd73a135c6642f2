//! `GET /session/{sessionID}/diff`: what a session changed in the project's files, file
//! by file, from its snapshots (OpenCode's `SnapshotFileDiff` list, which its terminal
//! UI shows beside a session).

use axum::Json;
use axum::extract::{Path, Query, State};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::App;
use crate::error::ApiError;

/// One file a session changed.
#[derive(Serialize, ToSchema)]
pub struct FileDiffInfo {
    /// Its path in the project.
    file: String,
    /// Lines added.
    additions: u64,
    /// Lines removed.
    deletions: u64,
}

/// `GET /session/{sessionID}/diff`'s query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DiffQuery {
    /// Not supported by Ward (the diff is the whole session's): refused.
    #[serde(rename = "messageID")]
    message_id: Option<String>,
    /// The project directory (this server serves one).
    #[allow(dead_code)]
    directory: Option<String>,
}

/// The files the session changed, with the lines added and removed in each.
#[utoipa::path(get, path = "/session/{sessionID}/diff", tag = "session",
    params(("sessionID" = String, Path, description = "The session"), DiffQuery),
    responses((status = 200, body = Vec<FileDiffInfo>),
        (status = 400, body = crate::wire::message::ErrorInfo),
        (status = 404, body = crate::wire::message::ErrorInfo)))]
pub async fn diff(
    State(app): State<App>,
    Path(id): Path<String>,
    Query(query): Query<DiffQuery>,
) -> Result<Json<Vec<FileDiffInfo>>, ApiError> {
    if query.message_id.is_some() {
        return Err(ApiError::bad_request(
            "query `messageID` is not supported by Ward: the diff is the whole session's",
        ));
    }
    let session = app.engine.session(&id)?;
    let files = session
        .summary
        .map(|summary| summary.diffs)
        .unwrap_or_default()
        .into_iter()
        .map(|d| FileDiffInfo {
            file: d.file,
            additions: d.additions,
            deletions: d.deletions,
        })
        .collect();
    Ok(Json(files))
}
