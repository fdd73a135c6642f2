//! A session's messages, and prompting it: synchronously (the answer is the reply)
//! or asynchronously (the events tell the rest).
//!
//! A prompt runs in a task of its own, not in the request's: a client that
//! disconnects mid-prompt drops only its wait, never the session's loop.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use serde::Deserialize;
use tokio::task::JoinHandle;
use utoipa::IntoParams;
use ward_engine::{EngineError, PromptRequest, Turn};

use super::sessions::unsupported;
use crate::App;
use crate::body::JsonBody;
use crate::error::ApiError;
use crate::wire::message::{ErrorInfo, MessageInfo, MessageWithParts, PartInfo};
use crate::wire::requests::{PartInput, Prompt};

/// `GET /session/{sessionID}/message`'s paging.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MessagesQuery {
    /// At most this many: the latest.
    limit: Option<usize>,
    /// Only messages before this one.
    before: Option<String>,
    /// Accepted for OpenCode's clients; the server serves one project.
    #[allow(dead_code)]
    directory: Option<String>,
}

/// A session's messages with their parts, oldest first.
#[utoipa::path(get, path = "/session/{sessionID}/message", tag = "session", params(
        ("sessionID" = String, Path, description = "The session"), MessagesQuery),
    responses((status = 200, body = Vec<MessageWithParts>), (status = 404, body = ErrorInfo)))]
pub async fn list(
    State(app): State<App>,
    Path(id): Path<String>,
    Query(query): Query<MessagesQuery>,
) -> Result<Json<Vec<MessageWithParts>>, ApiError> {
    let mut messages = app.engine.messages(&id)?;
    if let Some(before) = &query.before {
        let Some(at) = messages.iter().position(|m| m.info.id() == before) else {
            return Err(ApiError::not_found(format!("message {before} not found")));
        };
        messages.truncate(at);
    }
    if let Some(limit) = query.limit {
        let skip = messages.len().saturating_sub(limit);
        messages.drain(..skip);
    }
    Ok(Json(
        messages
            .iter()
            .map(|m| MessageWithParts::of(m, &app.root))
            .collect(),
    ))
}

/// One message with its parts.
#[utoipa::path(get, path = "/session/{sessionID}/message/{messageID}", tag = "session", params(
        ("sessionID" = String, Path, description = "The session"),
        ("messageID" = String, Path, description = "The message")),
    responses((status = 200, body = MessageWithParts), (status = 404, body = ErrorInfo)))]
pub async fn get(
    State(app): State<App>,
    Path((id, message_id)): Path<(String, String)>,
) -> Result<Json<MessageWithParts>, ApiError> {
    let message = app.engine.message(&id, &message_id)?;
    Ok(Json(MessageWithParts::of(&message, &app.root)))
}

/// An assistant message with its parts (the answer to a prompt).
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct Answer {
    /// The last assistant message of the loop (`role` is `assistant`).
    info: MessageInfo,
    /// Its parts.
    parts: Vec<PartInfo>,
}

/// Sends a prompt and answers when the session's loop is done. A `/command` and
/// `@mentions` in the text are expanded as in the terminal. If the session is
/// busy, the prompt joins its loop.
#[utoipa::path(post, path = "/session/{sessionID}/message", tag = "session", request_body = Prompt,
    params(("sessionID" = String, Path, description = "The session")),
    responses((status = 200, body = Answer), (status = 400, body = ErrorInfo), (status = 404, body = ErrorInfo)))]
pub async fn prompt(
    State(app): State<App>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<Prompt>,
) -> Result<Json<Answer>, ApiError> {
    let running = start(&app, id.clone(), body).await?;
    let outcome = running
        .await
        .map_err(|e| ApiError::internal(format!("the prompt's task failed: {e}")))?;
    let message_id = match outcome {
        Ok(turn) => turn.message.id,
        // An aborted loop stored its last message with the abort as its error: that
        // message is the answer, as OpenCode gives it.
        Err(e) if e.is_abort() => last_assistant(&app, &id)?.ok_or(ApiError::from(e))?,
        Err(e) => return Err(e.into()),
    };
    let message = app.engine.message(&id, &message_id)?;
    match MessageWithParts::of(&message, &app.root) {
        MessageWithParts {
            info: info @ MessageInfo::Assistant(_),
            parts,
        } => Ok(Json(Answer { info, parts })),
        _ => Err(ApiError::internal(
            "the loop's last message is not the assistant's",
        )),
    }
}

/// Sends a prompt and answers at once (204); the event stream tells the rest.
#[utoipa::path(post, path = "/session/{sessionID}/prompt_async", tag = "session", request_body = Prompt,
    params(("sessionID" = String, Path, description = "The session")),
    responses((status = 204), (status = 400, body = ErrorInfo), (status = 404, body = ErrorInfo)))]
pub async fn prompt_async(
    State(app): State<App>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<Prompt>,
) -> Result<StatusCode, ApiError> {
    let running = start(&app, id, body).await?;
    // Failures reach clients as the session's events (an assistant message with an
    // error); the log keeps them for whoever runs the server.
    app.loops.spawn(async move {
        if let Ok(Err(e)) = running.await
            && !e.is_abort()
        {
            tracing::warn!("prompt_async: {e}");
        }
    });
    Ok(StatusCode::NO_CONTENT)
}

/// Checks `body`, stores the prompt, and runs it in a task on the loops' runtime:
/// the prompt is in the session (and on the stream) before the request is answered,
/// and a client that goes away drops only its wait.
///
/// Checking and storing are blocking work (the store's writes, files a `file://` part
/// names), done on the prompt recorder's thread in arrival order: on the API's own
/// runtime a burst of prompts would be stored one after another before the event
/// stream's task ran again, so every prompt's first event waited for the last prompt
/// of the burst.
async fn start(
    app: &App,
    id: String,
    body: Prompt,
) -> Result<JoinHandle<Result<Turn, EngineError>>, ApiError> {
    let job = app.clone();
    app.prompts
        .run(move || record(&job, &id, body))
        .await
        .map_err(|e| ApiError::internal(format!("storing the prompt failed: {e}")))?
}

/// [`start`]'s blocking part.
fn record(
    app: &App,
    id: &str,
    body: Prompt,
) -> Result<JoinHandle<Result<Turn, EngineError>>, ApiError> {
    let request = request_of(body)?;
    let session = app.engine.session(id)?;
    let pending = app.engine.record(&session, request)?;
    let engine = app.engine.clone();
    let admitted = app.prompts.admitted();
    Ok(app.loops.spawn(async move {
        admitted.await;
        engine.run(&session, pending).await
    }))
}

/// What `body` asks, or a 400 naming what Ward does not take. The agent and model
/// are checked where the prompt is stored ([`ward_engine::Engine::record`]).
fn request_of(body: Prompt) -> Result<PromptRequest, ApiError> {
    if body.message_id.is_some() {
        return Err(unsupported("messageID"));
    }
    if body.no_reply.is_some() {
        return Err(unsupported("noReply"));
    }
    if body.tools.is_some() {
        return Err(unsupported("tools"));
    }
    if body.format.is_some() {
        return Err(unsupported("format"));
    }
    let mut texts = Vec::new();
    let mut files = super::prompt_files::PromptFiles::default();
    for (i, part) in body.parts.into_iter().enumerate() {
        match part {
            PartInput::Text { text, .. } => texts.push(text),
            PartInput::File {
                mime,
                url,
                filename,
                ..
            } => files.add(i, mime, url, filename)?,
            PartInput::Agent { name } => {
                return Err(ApiError::bad_request(format!(
                    "`parts[{i}]`: agent parts are not supported (write @{name} in the text)"
                )));
            }
            PartInput::Subtask { .. } => {
                return Err(ApiError::bad_request(format!(
                    "`parts[{i}]`: subtask parts are not supported (ask for the task tool \
                     in the text)"
                )));
            }
        }
    }
    let text = texts.join("\n\n");
    if text.trim().is_empty() {
        return Err(ApiError::bad_request("`parts`: the prompt has no text"));
    }
    let model = body
        .model
        .map(|m| format!("{}/{}", m.provider_id, m.model_id));
    Ok(PromptRequest {
        text,
        agent: body.agent,
        model,
        system: body.system,
        steps: None,
        variant: body.variant,
        files: Vec::new(),
        client_files: files.0,
    })
}

/// The id of session `id`'s latest assistant message.
fn last_assistant(app: &App, id: &str) -> Result<Option<String>, ApiError> {
    Ok(app
        .engine
        .messages(id)?
        .iter()
        .rev()
        .find(|m| matches!(m.info, ward_protocol::MessageInfo::Assistant(_)))
        .map(|m| m.info.id().to_string()))
}
