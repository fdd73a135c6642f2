//! Permission questions during a served call. The rules of the served directory
//! decide as in Ward; what they leave to a person (`ask`) is put to the MCP client
//! as an elicitation when it declared that capability — a yes/no form with an
//! "always" box — and otherwise answered by the configured [`AskFallback`].
//!
//! The questions come from the permission engine on the engine's bus; [`Router`]
//! hands each to the call it belongs to (by call id), and refuses any that belongs
//! to no call: nobody could answer it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema};
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinHandle;
use ward_engine::Engine;
use ward_protocol::{AskRequest, Event, Reply};
use ward_term::inert_line;

use crate::AskFallback;

/// One question: its id (to reply to) and what it asks.
#[derive(Clone, Debug)]
pub struct Ask {
    /// The ask's id in the permission engine.
    pub id: String,
    /// What is asked.
    pub request: AskRequest,
}

/// Hands questions to the calls they belong to.
pub struct Router {
    calls: Mutex<HashMap<String, mpsc::UnboundedSender<Ask>>>,
    task: Mutex<Option<JoinHandle<()>>>,
}

impl Router {
    /// Routes the asks among `events`; those of no registered call are refused.
    pub fn start(engine: Engine) -> Arc<Router> {
        let mut events = engine.subscribe();
        let router = Arc::new(Router {
            calls: Mutex::new(HashMap::new()),
            task: Mutex::new(None),
        });
        let weak = Arc::downgrade(&router);
        let task = tokio::spawn(async move {
            loop {
                let event = match events.recv().await {
                    Ok(event) => event,
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                let Event::PermissionAsked { id, request } = event else {
                    continue;
                };
                let Some(router) = weak.upgrade() else {
                    return;
                };
                let to = request
                    .call_id
                    .as_ref()
                    .and_then(|call| router.calls.lock().ok()?.get(call).cloned());
                let ask = Ask { id, request };
                let undelivered = match to {
                    Some(to) => to.send(ask).err().map(|e| e.0),
                    None => Some(ask),
                };
                if let Some(ask) = undelivered {
                    let _ = engine.reply(&ask.id, Reply::Reject { feedback: None });
                }
            }
        });
        if let Ok(mut slot) = router.task.lock() {
            *slot = Some(task);
        }
        router
    }

    /// Registers call `call_id`: its questions arrive on the returned receiver until
    /// the [`Registration`] is dropped.
    pub fn register(self: &Arc<Self>, call_id: &str) -> Registration {
        let (tx, rx) = mpsc::unbounded_channel();
        if let Ok(mut calls) = self.calls.lock() {
            calls.insert(call_id.to_string(), tx);
        }
        Registration {
            router: self.clone(),
            call_id: call_id.to_string(),
            asks: rx,
        }
    }

    /// Stops routing.
    pub fn stop(&self) {
        if let Some(task) = self.task.lock().ok().and_then(|mut t| t.take()) {
            task.abort();
        }
    }
}

/// A call's questions, while it runs.
pub struct Registration {
    router: Arc<Router>,
    call_id: String,
    /// Its questions.
    pub asks: mpsc::UnboundedReceiver<Ask>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Ok(mut calls) = self.router.calls.lock() {
            calls.remove(&self.call_id);
        }
    }
}

/// The answer for a client that cannot be asked.
pub fn fallback(fallback: AskFallback, request: &AskRequest) -> Reply {
    match fallback {
        AskFallback::Allow if !Engine::needs_a_person(request) => Reply::Once,
        AskFallback::Allow => Reply::Reject {
            feedback: Some(
                "this needs a person's answer, and the MCP client cannot ask one".into(),
            ),
        },
        AskFallback::Deny => Reply::Reject {
            feedback: Some(
                "the rules ask a person about this, and the MCP client cannot ask one \
                 (no elicitation capability); refused"
                    .into(),
            ),
        },
    }
}

/// The field of the form that answers "always".
pub const ALWAYS: &str = "always";

/// The elicitation for `request`: its question, and a form with one box — allow it
/// from now on too. Accepting allows, declining or cancelling refuses.
pub fn elicitation(request: &AskRequest) -> ElicitRequestParams {
    let patterns: Vec<String> = request
        .patterns
        .iter()
        .map(|p| inert_line(p).into_owned())
        .collect();
    // Who asks: a plugin's own question says so, so its words cannot pass for Ward's.
    let asker = match &request.plugin {
        Some(plugin) => format!("Plugin `{}` asks: ", inert_line(plugin)),
        None => "Ward asks: ".to_string(),
    };
    let message = format!(
        "{asker}allow {} for {}? Accept to allow, decline to refuse.",
        inert_line(&request.permission),
        if patterns.is_empty() {
            "this call".to_string()
        } else {
            patterns.join(", ")
        }
    );
    let schema = ElicitationSchema::builder()
        .optional_bool(ALWAYS, false)
        .build()
        .unwrap_or_else(|_| ElicitationSchema::new(Default::default()));
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema: schema,
    }
}

/// Ward's reply for the client's answer.
pub fn reply(answer: &ElicitResult) -> Reply {
    match answer.action {
        ElicitationAction::Accept => {
            let always = answer
                .content
                .as_ref()
                .and_then(|c| c.get(ALWAYS))
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false);
            if always { Reply::Always } else { Reply::Once }
        }
        // Decline, cancel, and whatever a later protocol adds: no yes is a no.
        _ => Reply::Reject {
            feedback: Some("refused by the MCP client's user".into()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(permission: &str) -> AskRequest {
        AskRequest {
            session_id: "s".into(),
            project: "/p".into(),
            agent: "build".into(),
            permission: permission.into(),
            patterns: vec!["a\x1b[2Jb".into()],
            always: vec!["*".into()],
            metadata: serde_json::Value::Null,
            call_id: Some("c".into()),
            message_id: None,
            plugin: None,
        }
    }

    #[test]
    fn accepting_allows_and_the_box_makes_it_always() {
        let answer = |action, content: Option<serde_json::Value>| match content {
            Some(content) => ElicitResult::new(action).with_content(content),
            None => ElicitResult::new(action),
        };
        assert_eq!(reply(&answer(ElicitationAction::Accept, None)), Reply::Once);
        assert_eq!(
            reply(&answer(
                ElicitationAction::Accept,
                Some(serde_json::json!({"always": true}))
            )),
            Reply::Always
        );
        for no in [ElicitationAction::Decline, ElicitationAction::Cancel] {
            assert!(matches!(reply(&answer(no, None)), Reply::Reject { .. }));
        }
    }

    #[test]
    fn the_question_is_inert_text() {
        let ElicitRequestParams::FormElicitationParams { message, .. } = elicitation(&ask("noop"))
        else {
            panic!("a form")
        };
        assert!(!message.contains('\x1b'), "{message}");
        assert!(message.contains("noop"), "{message}");
    }

    #[test]
    fn the_fallback_denies_by_default_and_never_allows_what_needs_a_person() {
        assert!(matches!(
            fallback(AskFallback::Deny, &ask("noop")),
            Reply::Reject { .. }
        ));
        assert_eq!(fallback(AskFallback::Allow, &ask("noop")), Reply::Once);
        let escape = ask(ward_protocol::ESCAPE_PERMISSION);
        assert!(matches!(
            fallback(AskFallback::Allow, &escape),
            Reply::Reject { .. }
        ));
    }
}
