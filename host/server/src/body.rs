//! Reading a JSON request body: a 415 for a body that is not JSON, a 400 naming the
//! field for JSON that does not fit (`parts[0].type: unknown variant …`).

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::{StatusCode, header};
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// A JSON body of type `T`.
pub struct JsonBody<T>(pub T);

/// A JSON body of type `T`, or `T::default()` when there is no body at all.
pub struct OptionalJsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let bytes = json_bytes(req, state).await?;
        parse(&bytes).map(JsonBody)
    }
}

impl<S: Send + Sync, T: DeserializeOwned + Default> FromRequest<S> for OptionalJsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let empty = req
            .headers()
            .get(header::CONTENT_LENGTH)
            .is_some_and(|len| len == "0")
            || (!req.headers().contains_key(header::CONTENT_TYPE)
                && !req.headers().contains_key(header::TRANSFER_ENCODING));
        if empty {
            return Ok(OptionalJsonBody(T::default()));
        }
        let bytes = json_bytes(req, state).await?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(OptionalJsonBody(T::default()));
        }
        parse(&bytes).map(OptionalJsonBody)
    }
}

/// The body's bytes, if it says it is JSON. Requiring the JSON content type also
/// means a browser cannot send the body cross-origin without a preflight.
async fn json_bytes<S: Send + Sync>(req: Request, state: &S) -> Result<Bytes, ApiError> {
    let is_json = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"));
    if !is_json {
        return Err(ApiError::refused(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "UnsupportedMediaType",
            "the request body must be JSON (Content-Type: application/json)",
        ));
    }
    Bytes::from_request(req, state)
        .await
        .map_err(|e| ApiError::bad_request(format!("request body: {e}")))
}

fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." || path.is_empty() {
            ApiError::bad_request(format!("request body: {inner}"))
        } else {
            ApiError::bad_request(format!("request body: `{path}`: {inner}"))
        }
    })
}
