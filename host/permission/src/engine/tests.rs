//! Tests of the ask channel: decisions, replies and their cascades.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use super::*;
use crate::error::SaveError;
use crate::rule::{Action, Rule, Ruleset};

fn layers() -> Vec<Ruleset> {
    vec![Ruleset::new(
        "ward.toml",
        vec![
            Rule::new("*", "*", Action::Allow),
            Rule::new("bash", "*", Action::Ask),
            Rule::new("bash", "ls *", Action::Allow),
            Rule::new("bash", "rm *", Action::Deny),
        ],
    )]
}

fn req(session: &str, agent: &str, patterns: &[&str], always: &[&str]) -> AskRequest {
    AskRequest {
        session_id: session.into(),
        project: "proj".into(),
        agent: agent.into(),
        permission: "bash".into(),
        patterns: patterns.iter().map(|s| s.to_string()).collect(),
        always: always.iter().map(|s| s.to_string()).collect(),
        metadata: json!({}),
        call_id: Some("call_1".into()),
        message_id: None,
        plugin: None,
    }
}

struct Fixture {
    engine: PermissionEngine,
    store: Arc<MemoryApprovals>,
    events: broadcast::Receiver<PermissionEvent>,
}

fn fixture() -> Fixture {
    let store = Arc::new(MemoryApprovals::new());
    let (tx, events) = broadcast::channel(64);
    Fixture {
        engine: PermissionEngine::new(store.clone(), tx),
        store,
        events,
    }
}

impl Fixture {
    /// Starts a check in the background and returns it with its ask id.
    async fn ask(
        &mut self,
        request: AskRequest,
    ) -> (String, JoinHandle<Result<(), PermissionError>>) {
        let engine = self.engine.clone();
        let handle = tokio::spawn(async move { engine.check(request, &layers()).await });
        match self.next_event().await {
            PermissionEvent::Asked { id, .. } => (id, handle),
            other => panic!("expected an ask, got {other:?}"),
        }
    }

    async fn next_event(&mut self) -> PermissionEvent {
        tokio::time::timeout(Duration::from_secs(5), self.events.recv())
            .await
            .expect("event in time")
            .expect("channel open")
    }

    fn no_event(&mut self) {
        assert!(self.events.try_recv().is_err(), "unexpected event");
    }

    async fn check(&self, request: AskRequest) -> Option<Result<(), PermissionError>> {
        tokio::time::timeout(
            Duration::from_millis(50),
            self.engine.check(request, &layers()),
        )
        .await
        .ok()
    }
}

async fn outcome(handle: JoinHandle<Result<(), PermissionError>>) -> Result<(), PermissionError> {
    tokio::time::timeout(Duration::from_secs(5), handle)
        .await
        .expect("settled in time")
        .expect("task ok")
}

#[tokio::test]
async fn allow_and_deny_are_immediate() {
    let mut f = fixture();
    assert_eq!(
        f.check(req("s1", "build", &["ls -la"], &[])).await,
        Some(Ok(()))
    );
    let denied = f.check(req("s1", "build", &["ls", "rm -rf x"], &[])).await;
    let Some(Err(err)) = denied else {
        panic!("expected a denial, got {denied:?}")
    };
    assert_eq!(
        err,
        PermissionError::Denied {
            permission: "bash".into(),
            pattern: "rm -rf x".into(),
            rule: "`bash rm * = deny` (ward.toml)".into(),
        }
    );
    assert!(
        err.to_string()
            .starts_with("Permission denied by rule `bash rm * = deny` (ward.toml):")
    );
    f.no_event();
    assert!(f.engine.pending().is_empty());
}

#[tokio::test]
async fn once_lets_only_that_call_through() {
    let mut f = fixture();
    let (id, handle) = f.ask(req("s1", "build", &["make"], &["make *"])).await;
    assert!(id.starts_with("per_"));
    assert_eq!(f.engine.pending().len(), 1);
    f.engine.reply(&id, Reply::Once).expect("reply");
    assert_eq!(outcome(handle).await, Ok(()));
    assert_eq!(
        f.next_event().await,
        PermissionEvent::Replied {
            session_id: "s1".into(),
            id: id.clone(),
            reply: Reply::Once
        }
    );
    assert!(f.engine.pending().is_empty());
    assert!(f.store.load("proj", "build").is_empty());
    // Nothing was remembered: the next identical call asks again.
    assert_eq!(f.check(req("s1", "build", &["make"], &[])).await, None);
}

#[tokio::test]
async fn always_persists_only_for_same_project_and_agent() {
    let mut f = fixture();
    let (id, handle) = f
        .ask(req("s1", "build", &["git push origin"], &["git push *"]))
        .await;
    f.engine.reply(&id, Reply::Always).expect("reply");
    assert_eq!(outcome(handle).await, Ok(()));
    assert_eq!(
        f.store.load("proj", "build"),
        vec![Rule::new("bash", "git push *", Action::Allow)]
    );

    // Same project and agent, even another session: allowed without asking.
    assert_eq!(
        f.check(req("s2", "build", &["git push"], &[])).await,
        Some(Ok(()))
    );
    // Another agent, or another project: still asks.
    assert_eq!(f.check(req("s1", "plan", &["git push"], &[])).await, None);
    let mut other_project = req("s1", "build", &["git push"], &[]);
    other_project.project = "elsewhere".into();
    assert_eq!(f.check(other_project).await, None);
    // A pattern outside the approval still asks.
    assert_eq!(f.check(req("s1", "build", &["git pull"], &[])).await, None);
}

#[tokio::test]
async fn a_stored_approval_never_outvotes_a_deny_rule() {
    let f = fixture();
    // An approval as broad as it gets, stored earlier (or by an older Ward).
    f.store
        .save("proj", "build", &[Rule::new("bash", "*", Action::Allow)])
        .expect("saves");
    // It turns the ask into an allow…
    assert_eq!(
        f.check(req("s1", "build", &["make"], &[])).await,
        Some(Ok(()))
    );
    // …but `bash rm * = deny` still decides.
    let denied = f.check(req("s1", "build", &["rm -rf /"], &[])).await;
    assert!(
        matches!(&denied, Some(Err(PermissionError::Denied { rule, .. })) if rule.contains("rm *")),
        "{denied:?}"
    );
}

#[tokio::test]
async fn a_plugins_approvals_are_its_own() {
    let mut f = fixture();
    let mut asked = req("s1", "build", &["*"], &["*"]);
    asked.plugin = Some("forger".into());
    let (id, handle) = f.ask(asked).await;
    f.engine.reply(&id, Reply::Always).expect("reply");
    assert_eq!(outcome(handle).await, Ok(()));
    assert!(f.store.load("proj", "build").is_empty(), "not the host's");
    assert_eq!(
        f.store
            .load("proj", &approval_scope("build", Some("forger"))),
        vec![Rule::new("bash", "*", Action::Allow)]
    );

    // The same plugin asking again: allowed. Anyone else, or the host: still asks.
    let mut again = req("s2", "build", &["make"], &[]);
    again.plugin = Some("forger".into());
    assert_eq!(f.check(again).await, Some(Ok(())));
    let mut other = req("s2", "build", &["make"], &[]);
    other.plugin = Some("bash".into());
    assert_eq!(f.check(other).await, None);
    assert_eq!(f.check(req("s2", "build", &["make"], &[])).await, None);
}

#[tokio::test]
async fn always_resolves_other_pending_asks_now_allowed() {
    let mut f = fixture();
    let (first, h1) = f
        .ask(req("s1", "build", &["npm test"], &["npm test *"]))
        .await;
    let (covered, h2) = f.ask(req("s1", "build", &["npm test --watch"], &[])).await;
    let (partly, h3) = f.ask(req("s1", "build", &["npm test", "make"], &[])).await;
    let (other_session, h4) = f.ask(req("s2", "build", &["npm test"], &[])).await;

    f.engine.reply(&first, Reply::Always).expect("reply");
    assert_eq!(outcome(h1).await, Ok(()));
    assert_eq!(outcome(h2).await, Ok(()));
    assert_eq!(
        f.next_event().await,
        PermissionEvent::Replied {
            session_id: "s1".into(),
            id: first,
            reply: Reply::Always
        }
    );
    assert_eq!(
        f.next_event().await,
        PermissionEvent::Replied {
            session_id: "s1".into(),
            id: covered,
            reply: Reply::Always
        }
    );

    let still: Vec<String> = f.engine.pending().into_iter().map(|(id, _)| id).collect();
    assert_eq!(still, [partly.clone(), other_session.clone()]);
    f.engine.reply(&partly, Reply::Once).expect("reply");
    f.engine.reply(&other_session, Reply::Once).expect("reply");
    assert_eq!(outcome(h3).await, Ok(()));
    assert_eq!(outcome(h4).await, Ok(()));
}

#[tokio::test]
async fn reject_cascades_to_the_sessions_other_asks() {
    let mut f = fixture();
    let (first, h1) = f.ask(req("s1", "build", &["make"], &[])).await;
    let (second, h2) = f.ask(req("s1", "build", &["npm i"], &[])).await;
    let (other, h3) = f.ask(req("s2", "build", &["make"], &[])).await;

    let feedback = Some("use cargo instead".to_string());
    f.engine
        .reply(
            &first,
            Reply::Reject {
                feedback: feedback.clone(),
            },
        )
        .expect("reply");
    let err = outcome(h1).await.unwrap_err();
    assert_eq!(
        err,
        PermissionError::Rejected {
            feedback: feedback.clone()
        }
    );
    assert!(err.to_string().ends_with("Feedback: use cargo instead"));
    assert_eq!(
        outcome(h2).await,
        Err(PermissionError::Rejected { feedback: None })
    );
    assert_eq!(
        f.next_event().await,
        PermissionEvent::Replied {
            session_id: "s1".into(),
            id: first,
            reply: Reply::Reject { feedback }
        }
    );
    assert_eq!(
        f.next_event().await,
        PermissionEvent::Replied {
            session_id: "s1".into(),
            id: second,
            reply: Reply::Reject { feedback: None }
        }
    );

    assert_eq!(f.engine.pending().len(), 1);
    f.engine.reply(&other, Reply::Once).expect("reply");
    assert_eq!(outcome(h3).await, Ok(()));
}

#[tokio::test]
async fn unknown_or_settled_ids_are_errors() {
    let mut f = fixture();
    assert_eq!(
        f.engine.reply("per_nope", Reply::Once),
        Err(PermissionError::UnknownRequest {
            id: "per_nope".into()
        })
    );
    let (id, handle) = f.ask(req("s1", "build", &["make"], &[])).await;
    f.engine.reply(&id, Reply::Once).expect("reply");
    assert_eq!(outcome(handle).await, Ok(()));
    assert!(matches!(
        f.engine.reply(&id, Reply::Once),
        Err(PermissionError::UnknownRequest { .. })
    ));
}

#[tokio::test]
async fn dropping_the_check_withdraws_the_ask() {
    let mut f = fixture();
    let (id, handle) = f.ask(req("s1", "build", &["make"], &[])).await;
    handle.abort();
    let _ = handle.await;
    assert!(f.engine.pending().is_empty());
    assert!(matches!(
        f.engine.reply(&id, Reply::Once),
        Err(PermissionError::UnknownRequest { .. })
    ));
}

struct BrokenStore;

impl ApprovalStore for BrokenStore {
    fn load(&self, _: &str, _: &str) -> Vec<Rule> {
        Vec::new()
    }
    fn save(&self, project: &str, scope: &str, _: &[Rule]) -> Result<(), SaveError> {
        Err(SaveError {
            project: project.into(),
            scope: scope.into(),
            reason: "disk full".into(),
        })
    }
}

#[tokio::test]
async fn failed_save_still_lets_the_call_through_once() {
    let (tx, mut events) = broadcast::channel(8);
    let engine = PermissionEngine::new(Arc::new(BrokenStore), tx);
    let task_engine = engine.clone();
    let handle = tokio::spawn(async move {
        task_engine
            .check(req("s1", "build", &["make"], &["make *"]), &layers())
            .await
    });
    let Ok(PermissionEvent::Asked { id, .. }) = events.recv().await else {
        panic!("expected an ask")
    };
    let err = engine.reply(&id, Reply::Always).unwrap_err();
    let PermissionError::Store(saving) = &err else {
        panic!("expected a store error, got {err:?}");
    };
    assert_eq!(
        (saving.scope.as_str(), saving.reason.as_str()),
        ("build", "disk full")
    );
    assert_eq!(
        err.to_string(),
        "the approval was applied once but could not be saved: disk full"
    );
    assert_eq!(outcome(handle).await, Ok(()));
}

#[test]
fn check_future_is_send() {
    fn assert_send<T: Send>(_: T) {}
    let engine = PermissionEngine::new(Arc::new(MemoryApprovals::new()), broadcast::channel(1).0);
    let layers = layers();
    assert_send(engine.check(req("s", "a", &["x"], &[]), &layers));
}

#[tokio::test]
async fn no_stored_approval_answers_a_configuration_change() {
    let f = fixture();
    // Stored earlier, or by an older Ward, and as broad as it gets.
    f.store
        .save("proj", "build", &[Rule::new("bash", "*", Action::Allow)])
        .expect("saves");
    let mut change = req("s1", "build", &["git push"], &[]);
    change.metadata = json!({ crate::protected::CONFIG_CHANGE_KEY: true });
    // Marked as a change to Ward's configuration: asked, never answered from storage.
    assert_eq!(f.check(change).await, None);
    // The same question unmarked is still answered by the approval.
    assert_eq!(
        f.check(req("s1", "build", &["git push"], &[])).await,
        Some(Ok(()))
    );
}

/// Approvals that count how often they are read, over a store that holds some.
struct CountingStore {
    inner: MemoryApprovals,
    loads: std::sync::atomic::AtomicUsize,
}

impl ApprovalStore for CountingStore {
    fn load(&self, project: &str, scope: &str) -> Vec<Rule> {
        self.loads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.inner.load(project, scope)
    }
    fn save(&self, project: &str, scope: &str, rules: &[Rule]) -> Result<(), SaveError> {
        self.inner.save(project, scope, rules)
    }
}

#[tokio::test]
async fn approvals_are_read_only_when_the_rules_alone_would_ask() {
    let store = Arc::new(CountingStore {
        inner: MemoryApprovals::new(),
        loads: Default::default(),
    });
    store
        .save(
            "proj",
            "build",
            &[Rule::new("bash", "make *", Action::Allow)],
        )
        .expect("save");
    let loads = || store.loads.load(std::sync::atomic::Ordering::SeqCst);
    let (tx, _events) = broadcast::channel(8);
    let engine = PermissionEngine::new(store.clone(), tx);

    // Decided by the rules alone: allowed, and denied (even next to a pattern that
    // would ask).
    assert_eq!(
        engine
            .check(req("s1", "build", &["ls -l"], &[]), &layers())
            .await,
        Ok(())
    );
    let denied = engine
        .check(req("s1", "build", &["make", "rm -rf x"], &[]), &layers())
        .await;
    assert!(
        matches!(denied, Err(PermissionError::Denied { .. })),
        "{denied:?}"
    );
    assert_eq!(loads(), 0, "no approval read for a decided check");

    // The rules ask: the stored approval is read, and allows.
    assert_eq!(
        engine
            .check(req("s1", "build", &["make all"], &[]), &layers())
            .await,
        Ok(())
    );
    assert_eq!(loads(), 1);
}
