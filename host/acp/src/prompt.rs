//! `session/prompt`: the prompt runs in the engine as a task of its own while the
//! session's events stream to the client as `session/update`s and its permission
//! asks go out as `session/request_permission`; the response, sent after the last
//! update, carries the stop reason.
//!
//! A session runs one prompt at a time: a prompt to a busy session is refused (the
//! engine would fold it into the running loop, which an ACP client does not expect).
//! The model's questions go out the same way, as permission requests (see
//! [`crate::question`]). `session/cancel` aborts the loop — retried until the loop has started, so a cancel
//! that arrives first is not lost — and the prompt ends with `cancelled`.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, EmbeddedResourceResource, PromptRequest, PromptResponse,
    SessionNotification, SessionUpdate, StopReason,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error as RpcError, ErrorCode};
use tokio::sync::{Notify, broadcast};
use tokio::task::JoinSet;
use ward_engine::{Event, PromptRequest as WardPrompt, Session};
use ward_protocol::{ABORTED_ERROR, FinishReason};

use crate::error::AcpError;
use crate::server::{Project, Server};
use crate::updates::{Translator, text};

/// How often an abort is retried while the cancelled loop has not started yet.
const ABORT_RETRY: Duration = Duration::from_millis(25);

/// A prompt about to run: what it needs, taken while the session was marked busy.
struct Run {
    server: Arc<Server>,
    project: Project,
    session: Session,
    mode: String,
    text: String,
    cancel: Arc<Notify>,
    cx: ConnectionTo<Client>,
}

/// Starts `request`, or answers it with why it cannot run.
pub(crate) fn start(
    server: &Arc<Server>,
    request: PromptRequest,
    responder: Responder<PromptResponse>,
    cx: ConnectionTo<Client>,
) {
    match begin(server, &request, cx) {
        Ok(run) => {
            tokio::spawn(async move {
                let id = run.session.id.clone();
                let server = run.server.clone();
                let outcome = run.run().await;
                server.finish(&id);
                let _ = match outcome {
                    Ok(stop) => responder.respond(PromptResponse::new(stop)),
                    Err(e) => responder.respond_with_error(e),
                };
            });
        }
        Err(e) => {
            let _ = responder.respond_with_error(e.into());
        }
    }
}

/// Marks the session busy and gathers what the prompt needs.
fn begin(
    server: &Arc<Server>,
    request: &PromptRequest,
    cx: ConnectionTo<Client>,
) -> Result<Run, AcpError> {
    let id = request.session_id.0.to_string();
    let text = prompt_text(&request.prompt).ok_or(AcpError::EmptyPrompt)?;
    let mut sessions = server
        .sessions
        .lock()
        .map_err(|_| AcpError::UnknownSession(id.clone()))?;
    let attached = sessions
        .get_mut(&id)
        .ok_or_else(|| AcpError::UnknownSession(id.clone()))?;
    if attached.cancel.is_some() || attached.project.engine.is_busy(&id) {
        return Err(AcpError::Busy(id));
    }
    let session = attached.project.engine.session(&id)?;
    let cancel = Arc::new(Notify::new());
    attached.cancel = Some(cancel.clone());
    Ok(Run {
        server: server.clone(),
        project: attached.project.clone(),
        session,
        mode: attached.mode.clone(),
        text,
        cancel,
        cx,
    })
}

impl Server {
    /// Marks session `id` idle again.
    fn finish(&self, id: &str) {
        if let Ok(mut sessions) = self.sessions.lock()
            && let Some(attached) = sessions.get_mut(id)
        {
            attached.cancel = None;
        }
    }
}

impl Run {
    /// Runs the prompt, forwarding its events; the stop reason, or why it failed.
    async fn run(self) -> Result<StopReason, RpcError> {
        let engine = self.project.engine.clone();
        let id = self.session.id.clone();
        let mut events = engine.subscribe();
        let mut forward = Forward {
            translator: Translator::new(&id, &self.session.directory, self.project.tools.clone()),
            family: HashSet::from([id.clone()]),
            asks: JoinSet::new(),
            run: &self,
        };
        let request = WardPrompt {
            text: self.text.clone(),
            agent: Some(self.mode.clone()),
            ..WardPrompt::default()
        };
        // The client answers the model's questions (as permission requests) while
        // the prompt runs; once it ends, one still waiting is dismissed.
        let answerer = engine.question_answerer();
        self.say_notices();
        let prompt = engine.prompt(&self.session, request);
        tokio::pin!(prompt);
        let mut cancelled = false;
        let mut retry = tokio::time::interval(ABORT_RETRY);
        let outcome = loop {
            tokio::select! {
                outcome = &mut prompt => break outcome,
                event = events.recv() => match event {
                    Ok(event) => forward.event(&event),
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        tracing::warn!("session {id}: {n} events missed by the editor");
                    }
                    Err(broadcast::error::RecvError::Closed) => {}
                },
                () = self.cancel.notified(), if !cancelled => {
                    cancelled = true;
                    engine.abort(&id);
                }
                _ = retry.tick(), if cancelled => {
                    engine.abort(&id);
                }
            }
        };
        // What the loop published before it returned is still in the channel.
        while let Ok(event) = events.try_recv() {
            forward.event(&event);
        }
        // Asks still open are settled by the loop's end: their requests are withdrawn.
        forward.asks.abort_all();
        drop(answerer);
        if cancelled {
            return Ok(StopReason::Cancelled);
        }
        match outcome {
            Ok(turn) => match (turn.message.error, turn.message.finish) {
                (Some(e), _) if e.name == ABORTED_ERROR => Ok(StopReason::Cancelled),
                (Some(e), _) => Err(RpcError::new(
                    ErrorCode::INTERNAL_ERROR,
                    format!("{}: {}", e.name, e.message),
                )),
                (None, Some(FinishReason::Length)) => Ok(StopReason::MaxTokens),
                (None, Some(FinishReason::ContentFilter)) => Ok(StopReason::Refusal),
                (None, _) => Ok(StopReason::EndTurn),
            },
            Err(e) if e.is_abort() => Ok(StopReason::Cancelled),
            Err(e) => Err(AcpError::from(e).into()),
        }
    }
}

impl Run {
    /// Says what opening the project warned of, once per connection, as the first
    /// text of this prompt's answer: an editor shows no standard error, and a user
    /// whose project runs restricted must be told why and how to trust it.
    fn say_notices(&self) {
        let notices = match self.project.notices.lock() {
            Ok(mut notices) => std::mem::take(&mut *notices),
            Err(_) => return,
        };
        if notices.is_empty() {
            return;
        }
        let said: String = notices.iter().map(|n| format!("ward: {n}\n")).collect();
        let update = SessionUpdate::AgentMessageChunk(ContentChunk::new(text(&(said + "\n"))));
        let notification = SessionNotification::new(self.session.id.clone(), update);
        if let Err(e) = self.cx.send_notification(notification) {
            tracing::warn!("session {}: notice not sent: {e}", self.session.id);
        }
    }
}

/// Sends a prompt's events on as updates and permission requests.
struct Forward<'a> {
    translator: Translator,
    /// The session and the subagent sessions it started: their asks are put to the
    /// client in this session.
    family: HashSet<String>,
    /// The permission requests waiting for the client's answer.
    asks: JoinSet<()>,
    run: &'a Run,
}

impl Forward<'_> {
    fn event(&mut self, event: &Event) {
        let id = &self.run.session.id;
        match event {
            Event::SessionCreated { info } => {
                if info
                    .parent_id
                    .as_ref()
                    .is_some_and(|p| self.family.contains(p))
                {
                    self.family.insert(info.id.clone());
                }
            }
            Event::PermissionAsked {
                id: ask_id,
                request,
            } if self.family.contains(&request.session_id) => {
                let question =
                    crate::permission::request(id, ask_id, request, &self.run.project.tools);
                let (cx, engine, ask_id) = (
                    self.run.cx.clone(),
                    self.run.project.engine.clone(),
                    ask_id.clone(),
                );
                self.asks.spawn(async move {
                    let answer = cx.send_request(question).block_task().await;
                    // Settled meanwhile (a cascade, an abort): nothing left to answer.
                    let _ = engine.reply(&ask_id, crate::permission::reply(answer));
                });
            }
            Event::QuestionAsked { request } if self.family.contains(&request.session_id) => {
                let (cx, engine) = (self.run.cx.clone(), self.run.project.engine.clone());
                self.asks.spawn(crate::question::ask(
                    cx,
                    engine,
                    id.clone(),
                    request.clone(),
                ));
            }
            _ => {
                for update in self.translator.event(event) {
                    let notification = SessionNotification::new(id.clone(), update);
                    if let Err(e) = self.run.cx.send_notification(notification) {
                        tracing::debug!("session {id}: update not sent: {e}");
                    }
                }
            }
        }
    }
}

/// The prompt as Ward's text: text blocks as they are, a linked file as an `@path`
/// mention (Ward attaches it), an embedded text resource in a fenced block under its
/// URI. Images, audio and binary resources are left out; `None` if nothing is left.
fn prompt_text(blocks: &[ContentBlock]) -> Option<String> {
    let parts: Vec<String> = blocks
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(t) => Some(t.text.clone()),
            ContentBlock::ResourceLink(link) => Some(match link.uri.strip_prefix("file://") {
                Some(path) => format!("@{path}"),
                None => link.uri.clone(),
            }),
            ContentBlock::Resource(resource) => match &resource.resource {
                EmbeddedResourceResource::TextResourceContents(r) => {
                    Some(format!("{}:\n```\n{}\n```", r.uri, r.text))
                }
                _ => None,
            },
            _ => None,
        })
        .collect();
    let text = parts.join("\n");
    (!text.trim().is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use agent_client_protocol::v1::schema::{ImageContent, ResourceLink};

    use super::*;
    use crate::updates::text;

    #[test]
    fn a_prompt_is_its_text_with_linked_files_as_mentions() {
        let blocks = vec![
            text("look at"),
            ContentBlock::ResourceLink(ResourceLink::new("a.txt", "file:///p/a.txt")),
        ];
        assert_eq!(prompt_text(&blocks).as_deref(), Some("look at\n@/p/a.txt"));
        let image = ContentBlock::Image(ImageContent::new("AAAA", "image/png"));
        assert_eq!(prompt_text(&[image]), None);
        assert_eq!(prompt_text(&[text("  ")]), None);
    }
}
