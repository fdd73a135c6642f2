//! The ask channel: checking tool calls and waiting for the user's answer.
//!
//! Owns the pending asks, the replies to them (once / always / reject, with their
//! cascades to the session's other asks) and the approvals layer, loaded from an
//! [`ApprovalStore`] per (project, agent) — and per plugin for the questions a plugin
//! asks — and consulted after the caller's layers. An approval only ever turns an *ask*
//! into an *allow*: a deny rule wins over anything the user approved.

mod request;
mod store;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use tokio::sync::{broadcast, oneshot};

pub use request::{AskRequest, PermissionEvent, Reply};
pub use store::{ApprovalStore, MemoryApprovals, approval_scope};

use crate::error::PermissionError;
use crate::evaluate::evaluate_approved;
use crate::rule::{Action, Rule, Ruleset};

/// Name of the approvals layer in decisions and explanations.
const APPROVALS_SOURCE: &str = "approvals";

/// Checks permission requests and routes asks to the user. Cheap to clone; all
/// clones share the same pending asks.
#[derive(Clone)]
pub struct PermissionEngine {
    inner: Arc<Inner>,
}

/// What a `permission.ask` hook may answer for a question before the user sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HookAnswer {
    /// Let the call through.
    Allow,
    /// Refuse it; `by` names who decided (shown to the model).
    Deny {
        /// The deciding hook.
        by: String,
    },
    /// Leave it to the user.
    Ask,
}

/// Consulted for every question the rules leave to the user, before it is asked (the
/// `permission.ask` hooks of plugins).
pub trait AskHook: Send + Sync {
    /// Decides `request`, or leaves it to the user.
    fn decide<'a>(
        &'a self,
        request: &'a AskRequest,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = HookAnswer> + Send + 'a>>;
}

/// Where a permission engine's events also go, as they happen (an engine's bus).
pub type Publisher = Arc<dyn Fn(&PermissionEvent) + Send + Sync>;

struct Inner {
    approvals: Arc<dyn ApprovalStore>,
    events: broadcast::Sender<PermissionEvent>,
    ask_hook: std::sync::OnceLock<Arc<dyn AskHook>>,
    /// Where events also go, synchronously and in order with the caller's own
    /// publishing (an engine's bus), when set.
    publisher: std::sync::OnceLock<Publisher>,
    pending: Mutex<Vec<PendingAsk>>,
    next_id: AtomicU64,
}

struct PendingAsk {
    id: String,
    request: AskRequest,
    /// The caller's layers, kept so the ask can be re-evaluated when an "always"
    /// reply to another ask adds approvals.
    layers: Vec<Ruleset>,
    reply: oneshot::Sender<Result<(), PermissionError>>,
}

impl PendingAsk {
    fn resolve(self, outcome: Result<(), PermissionError>) {
        // The caller may have gone away (aborted); nobody is left to tell.
        let _ = self.reply.send(outcome);
    }
}

impl std::fmt::Debug for PermissionEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PermissionEngine")
            .field("pending", &self.lock().len())
            .finish_non_exhaustive()
    }
}

impl PermissionEngine {
    /// Creates an engine that persists "always" approvals in `approvals` and
    /// publishes asks and replies on `events`.
    pub fn new(
        approvals: Arc<dyn ApprovalStore>,
        events: broadcast::Sender<PermissionEvent>,
    ) -> Self {
        PermissionEngine {
            inner: Arc::new(Inner {
                approvals,
                events,
                ask_hook: std::sync::OnceLock::new(),
                publisher: std::sync::OnceLock::new(),
                pending: Mutex::new(Vec::new()),
                next_id: AtomicU64::new(0),
            }),
        }
    }

    /// Installs the hook consulted before a question reaches the user; a second call
    /// is ignored (the engine's clones share one hook).
    pub fn set_ask_hook(&self, hook: Arc<dyn AskHook>) {
        let _ = self.inner.ask_hook.set(hook);
    }

    /// Also hands every event to `publish`, on the thread that caused it — before
    /// the broadcast channel's subscribers can see it — so an event bus fed by it
    /// keeps asks and replies in order with what the loop publishes around them. A
    /// second call is ignored.
    pub fn set_publisher(&self, publish: Publisher) {
        let _ = self.inner.publisher.set(publish);
    }

    /// Checks `req` against `layers`, then the stored approvals for its project and
    /// agent (and its plugin's own, when a plugin asks), which can only turn an ask
    /// into an allow. Allowed → `Ok`; denied → [`PermissionError::Denied`]; otherwise
    /// publishes [`PermissionEvent::Asked`] and waits for [`reply`].
    ///
    /// Dropping the returned future (e.g. when the session is aborted) withdraws
    /// the ask.
    ///
    /// [`reply`]: PermissionEngine::reply
    pub async fn check(&self, req: AskRequest, layers: &[Ruleset]) -> Result<(), PermissionError> {
        // Approvals only ever turn an ask into an allow, so they are read (from the
        // store: a query per check) only when the rules alone would ask.
        let none = Ruleset::new(APPROVALS_SOURCE, Vec::new());
        let approvals;
        let (mut decision, mut pattern) =
            evaluate_approved(&req.permission, &req.patterns, layers.iter(), &none);
        if decision.action == Action::Ask {
            approvals = self.approvals(&req);
            (decision, pattern) =
                evaluate_approved(&req.permission, &req.patterns, layers.iter(), &approvals);
        }
        match decision.action {
            Action::Allow => return Ok(()),
            Action::Deny => {
                return Err(PermissionError::Denied {
                    permission: req.permission.clone(),
                    pattern: pattern.to_string(),
                    rule: decision.describe(),
                });
            }
            Action::Ask => {}
        }
        if let Some(hook) = self.inner.ask_hook.get() {
            match hook.decide(&req).await {
                HookAnswer::Allow => return Ok(()),
                HookAnswer::Deny { by } => {
                    return Err(PermissionError::Denied {
                        permission: req.permission.clone(),
                        pattern: pattern.to_string(),
                        rule: format!("the permission.ask hook of {by}"),
                    });
                }
                HookAnswer::Ask => {}
            }
        }

        let (tx, rx) = oneshot::channel();
        let id = self.new_id();
        self.lock().push(PendingAsk {
            id: id.clone(),
            request: req.clone(),
            layers: layers.to_vec(),
            reply: tx,
        });
        let _withdraw = Withdraw {
            engine: self,
            id: &id,
        };
        self.emit(PermissionEvent::Asked {
            id: id.clone(),
            request: Box::new(req),
        });
        // A dropped sender means the ask was removed without an answer.
        rx.await
            .unwrap_or(Err(PermissionError::Rejected { feedback: None }))
    }

    /// Answers the pending ask `id`.
    ///
    /// - `Once` lets that call through.
    /// - `Always` also stores allow rules for the ask's `always` patterns (scoped to
    ///   its project and agent, and to the plugin that asked, if one did) and lets through every other pending ask of the
    ///   session that is now allowed. If storing fails the call still goes through
    ///   once and [`PermissionError::Store`] is returned.
    /// - `Reject` fails that call with the feedback and rejects every other pending
    ///   ask of the session.
    ///
    /// Publishes [`PermissionEvent::Replied`] for every ask it settles, before the
    /// waiting call goes on: a subscriber sees the reply before anything the call then
    /// does (the call runs on another thread and could otherwise publish first).
    pub fn reply(&self, id: &str, reply: Reply) -> Result<(), PermissionError> {
        let ask = self
            .take(|ask| ask.id == id)
            .pop()
            .ok_or_else(|| PermissionError::UnknownRequest { id: id.to_string() })?;
        let session = ask.request.session_id.clone();
        match reply {
            Reply::Once => {
                self.replied(&session, id, Reply::Once);
                ask.resolve(Ok(()));
                Ok(())
            }
            Reply::Reject { feedback } => {
                self.replied(
                    &session,
                    id,
                    Reply::Reject {
                        feedback: feedback.clone(),
                    },
                );
                ask.resolve(Err(PermissionError::Rejected { feedback }));
                for other in self.take(|ask| ask.request.session_id == session) {
                    let other_id = other.id.clone();
                    self.replied(&session, &other_id, Reply::Reject { feedback: None });
                    other.resolve(Err(PermissionError::Rejected { feedback: None }));
                }
                Ok(())
            }
            Reply::Always => {
                let saved = self.persist(&ask.request);
                self.replied(&session, id, Reply::Always);
                ask.resolve(Ok(()));
                saved?;
                self.release_allowed(&session);
                Ok(())
            }
        }
    }

    /// The asks waiting for an answer, oldest first.
    pub fn pending(&self) -> Vec<(String, AskRequest)> {
        self.lock()
            .iter()
            .map(|ask| (ask.id.clone(), ask.request.clone()))
            .collect()
    }

    /// The approvals that apply to `req`: those the user gave the host's questions for
    /// its project and agent, then — when a plugin asks — those given to that plugin's
    /// own questions, which no other plugin and no host question ever sees. None for a
    /// change to Ward's configuration: that needs a person's answer each time, and an
    /// approval stored before (or too broad) must not give it.
    fn approvals(&self, req: &AskRequest) -> Ruleset {
        if crate::protected::marks_config_change(&req.metadata) {
            return Ruleset::new(APPROVALS_SOURCE, Vec::new());
        }
        let store = &self.inner.approvals;
        let mut rules = store.load(&req.project, &req.agent);
        if let Some(plugin) = &req.plugin {
            let scope = approval_scope(&req.agent, Some(plugin));
            rules.extend(store.load(&req.project, &scope));
        }
        Ruleset::new(APPROVALS_SOURCE, rules)
    }

    /// Stores allow rules for the request's `always` patterns that are not stored yet,
    /// under the asking plugin's own scope when a plugin asked.
    fn persist(&self, req: &AskRequest) -> Result<(), PermissionError> {
        let scope = approval_scope(&req.agent, req.plugin.as_deref());
        let existing = self.inner.approvals.load(&req.project, &scope);
        let mut new: Vec<Rule> = Vec::new();
        for pattern in &req.always {
            let rule = Rule::new(&req.permission, pattern, Action::Allow);
            if !existing.contains(&rule) && !new.contains(&rule) {
                new.push(rule);
            }
        }
        if new.is_empty() {
            return Ok(());
        }
        self.inner
            .approvals
            .save(&req.project, &scope, &new)
            .map_err(PermissionError::Store)
    }

    /// After an "always", lets through the session's pending asks that the stored
    /// approvals now allow in full.
    fn release_allowed(&self, session: &str) {
        // Load approvals without holding the lock: the store may do I/O.
        let requests: Vec<AskRequest> = self
            .lock()
            .iter()
            .filter(|ask| ask.request.session_id == session)
            .map(|ask| ask.request.clone())
            .collect();
        let mut approvals: HashMap<ApprovalKey, Ruleset> = HashMap::new();
        for req in &requests {
            if let Entry::Vacant(slot) = approvals.entry(ApprovalKey::of(req)) {
                slot.insert(self.approvals(req));
            }
        }

        let released = self.take(|ask| {
            let req = &ask.request;
            if req.session_id != session {
                return false;
            }
            // An ask registered after the scan has no loaded approvals; it stays.
            approvals.get(&ApprovalKey::of(req)).is_some_and(|stored| {
                evaluate_approved(&req.permission, &req.patterns, ask.layers.iter(), stored)
                    .0
                    .action
                    == Action::Allow
            })
        });
        for ask in released {
            let id = ask.id.clone();
            self.replied(session, &id, Reply::Always);
            ask.resolve(Ok(()));
        }
    }

    /// Removes and returns the pending asks matching `pred`, in order.
    fn take(&self, mut pred: impl FnMut(&PendingAsk) -> bool) -> Vec<PendingAsk> {
        let mut pending = self.lock();
        let (taken, kept) = std::mem::take(&mut *pending)
            .into_iter()
            .partition(|ask| pred(ask));
        *pending = kept;
        taken
    }

    fn lock(&self) -> MutexGuard<'_, Vec<PendingAsk>> {
        // Every update is a single push or swap, so a panicking holder cannot leave
        // the list half-changed; ignoring poison is safe.
        self.inner
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Time-ordered, unique within the process: `per_` + millis + sequence.
    fn new_id(&self) -> String {
        let millis = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let seq = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        format!("per_{millis:012x}{seq:06x}")
    }

    fn replied(&self, session: &str, id: &str, reply: Reply) {
        self.emit(PermissionEvent::Replied {
            session_id: session.to_string(),
            id: id.to_string(),
            reply,
        });
    }

    fn emit(&self, event: PermissionEvent) {
        if let Some(publish) = self.inner.publisher.get() {
            publish(&event);
        }
        // No subscribers is fine: replies can still arrive through the API.
        let _ = self.inner.events.send(event);
    }
}

/// Which stored approvals apply to an ask: its project, agent and asking plugin.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ApprovalKey {
    project: String,
    agent: String,
    plugin: Option<String>,
}

impl ApprovalKey {
    fn of(req: &AskRequest) -> Self {
        ApprovalKey {
            project: req.project.clone(),
            agent: req.agent.clone(),
            plugin: req.plugin.clone(),
        }
    }
}

/// Withdraws an ask when its `check` future ends, answered or dropped.
struct Withdraw<'a> {
    engine: &'a PermissionEngine,
    id: &'a str,
}

impl Drop for Withdraw<'_> {
    fn drop(&mut self) {
        let _ = self.engine.take(|ask| ask.id == self.id);
    }
}
