//! What a request can get wrong, as HTTP: a status and OpenCode's error shape
//! `{"name": …, "data": {"message": …}}`, decided by the error's type, never by its
//! text.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use ward_engine::EngineError;

use crate::wire::message::ErrorInfo;

/// An error answer.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    body: ErrorInfo,
}

impl ApiError {
    /// 400: the request is wrong; `message` says where.
    pub fn bad_request(message: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            body: ErrorInfo::new("BadRequestError", message),
        }
    }

    /// 404: `what` does not exist.
    pub fn not_found(message: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::NOT_FOUND,
            body: ErrorInfo::new("NotFoundError", message),
        }
    }

    /// 401, 403, 415, …: refused before any handler ran.
    pub fn refused(status: StatusCode, name: &str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            body: ErrorInfo::new(name, message),
        }
    }

    /// 500: Ward failed.
    pub fn internal(message: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            body: ErrorInfo::new("UnknownError", message),
        }
    }

    /// The status.
    pub fn status(&self) -> StatusCode {
        self.status
    }
}

impl From<EngineError> for ApiError {
    fn from(e: EngineError) -> Self {
        if e.is_not_found() {
            ApiError::not_found(e.to_string())
        } else if e.is_bad_request() {
            ApiError::bad_request(e.to_string())
        } else {
            ApiError::internal(e.to_string())
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(self.body)).into_response()
    }
}
