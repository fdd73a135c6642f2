//! Questions the model asks (the `question` tool), as OpenCode serves them: the ones
//! waiting (`GET /question`), answering (`POST /question/{id}/reply` with one list of
//! labels per question) and dismissing (`POST /question/{id}/reject`). The wire
//! shapes live here too; `question.asked` carries a [`QuestionWire`].

use axum::Json;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use ward_engine::QuestionRequest;

use crate::App;
use crate::body::JsonBody;
use crate::error::ApiError;
use crate::wire::message::ErrorInfo;

/// One choice.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct QuestionOptionWire {
    /// Display text.
    pub label: String,
    /// What choosing it means.
    pub description: String,
}

/// One question.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct QuestionInfoWire {
    /// The question in full.
    pub question: String,
    /// A very short label.
    pub header: String,
    /// The choices.
    pub options: Vec<QuestionOptionWire>,
    /// Whether several may be chosen.
    pub multiple: bool,
}

/// The call that asked.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct QuestionToolWire {
    /// The assistant message.
    #[serde(rename = "messageID")]
    pub message_id: String,
    /// The call.
    #[serde(rename = "callID")]
    pub call_id: String,
}

/// Questions waiting for answers (OpenCode's `QuestionRequest`).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct QuestionWire {
    /// `que_…`.
    pub id: String,
    /// The session asking.
    #[serde(rename = "sessionID")]
    pub session_id: String,
    /// The questions.
    pub questions: Vec<QuestionInfoWire>,
    /// The call asking.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<QuestionToolWire>,
}

impl QuestionWire {
    /// The wire shape of `request`.
    pub fn of(request: &QuestionRequest) -> Self {
        QuestionWire {
            id: request.id.clone(),
            session_id: request.session_id.clone(),
            questions: request
                .questions
                .iter()
                .map(|q| QuestionInfoWire {
                    question: q.question.clone(),
                    header: q.header.clone(),
                    options: q
                        .options
                        .iter()
                        .map(|o| QuestionOptionWire {
                            label: o.label.clone(),
                            description: o.description.clone(),
                        })
                        .collect(),
                    multiple: q.multiple,
                })
                .collect(),
            tool: request.tool.as_ref().map(|t| QuestionToolWire {
                message_id: t.message_id.clone(),
                call_id: t.call_id.clone(),
            }),
        }
    }
}

/// `POST /question/{requestID}/reply`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct QuestionReply {
    /// One list of chosen labels (or typed text) per question, in order.
    pub answers: Vec<Vec<String>>,
}

/// The questions waiting for an answer, oldest first.
#[utoipa::path(get, path = "/question", tag = "question",
    responses((status = 200, body = Vec<QuestionWire>)))]
pub async fn list(State(app): State<App>) -> Json<Vec<QuestionWire>> {
    Json(
        app.engine
            .pending_questions()
            .iter()
            .map(QuestionWire::of)
            .collect(),
    )
}

/// Answers questions; the answers go to the model as text (they grant nothing).
#[utoipa::path(post, path = "/question/{requestID}/reply", tag = "question",
    request_body = QuestionReply,
    params(("requestID" = String, Path, description = "The request (`que_…`)")),
    responses((status = 200, body = bool), (status = 400, body = ErrorInfo), (status = 404, body = ErrorInfo)))]
pub async fn reply(
    State(app): State<App>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<QuestionReply>,
) -> Result<Json<bool>, ApiError> {
    app.engine.answer_question(&id, body.answers)?;
    Ok(Json(true))
}

/// Dismisses questions: the model is told the user did not answer.
#[utoipa::path(post, path = "/question/{requestID}/reject", tag = "question",
    params(("requestID" = String, Path, description = "The request (`que_…`)")),
    responses((status = 200, body = bool), (status = 404, body = ErrorInfo)))]
pub async fn reject(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<Json<bool>, ApiError> {
    app.engine.reject_question(&id)?;
    Ok(Json(true))
}
