//! "Always" approvals persist, scoped to (project, agent), and plug into the
//! permission engine.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is how a test fails"
)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::TempDir;
use tokio::sync::broadcast;
use ward_permission::{
    Action, ApprovalStore, AskRequest, PermissionEngine, PermissionEvent, Reply, Rule,
};
use ward_store::SqliteStore;

#[test]
fn approvals_are_scoped_ordered_and_deduplicated() {
    let dir = TempDir::new("approvals");
    let store = SqliteStore::open(dir.db()).expect("opens");
    let push = Rule::new("bash", "git push *", Action::Allow);
    let edit = Rule::new("edit", "src/*", Action::Allow);
    let deny = Rule::new("bash", "git push *", Action::Deny);
    store
        .save("/p1", "build", &[push.clone(), edit.clone()])
        .expect("saves");
    store
        .save("/p1", "build", &[push.clone(), deny.clone()])
        .expect("saves again");
    store
        .save("/p2", "build", std::slice::from_ref(&edit))
        .expect("saves");

    drop(store);
    let store = SqliteStore::open(dir.db()).expect("reopens");
    assert_eq!(store.load("/p1", "build"), vec![push, edit.clone(), deny]);
    assert!(store.load("/p1", "plan").is_empty());
    assert_eq!(store.load("/p2", "build"), vec![edit]);
    assert!(store.load("/p3", "build").is_empty());
}

fn request(agent: &str) -> AskRequest {
    AskRequest {
        session_id: "ses_1".into(),
        project: "/project".into(),
        agent: agent.into(),
        permission: "bash".into(),
        patterns: vec!["git push origin main".into()],
        always: vec!["git push *".into()],
        metadata: serde_json::Value::Null,
        call_id: None,
        message_id: None,
        plugin: None,
    }
}

#[tokio::test]
async fn an_always_reply_survives_a_restart_for_that_agent_only() {
    let dir = TempDir::new("engine");
    {
        let store = Arc::new(SqliteStore::open(dir.db()).expect("opens"));
        let (events, mut asked) = broadcast::channel(8);
        let engine = PermissionEngine::new(store, events);
        let check = tokio::spawn({
            let engine = engine.clone();
            async move { engine.check(request("build"), &[]).await }
        });
        let Ok(PermissionEvent::Asked { id, .. }) = asked.recv().await else {
            panic!("expected an ask");
        };
        engine.reply(&id, Reply::Always).expect("replies");
        check.await.expect("joins").expect("allowed");
    }

    let store = Arc::new(SqliteStore::open(dir.db()).expect("reopens"));
    let (events, _) = broadcast::channel(8);
    let engine = PermissionEngine::new(store, events);
    let allowed = tokio::time::timeout(Duration::from_secs(5), engine.check(request("build"), &[]))
        .await
        .expect("decided without asking");
    assert!(allowed.is_ok());
    let other_agent = tokio::time::timeout(
        Duration::from_millis(100),
        engine.check(request("plan"), &[]),
    )
    .await;
    assert!(other_agent.is_err(), "another agent must still be asked");
}
