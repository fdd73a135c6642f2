//! `--continue` (per directory), `fork` (CLI and `POST /session/{id}/fork`) and
//! `rename`, through the real binary.

use std::process::Stdio;

use serde_json::Value;
use ward_store::{MessageInfo, SqliteStore, Store};
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn, message_texts};

use super::transfer::session_in;

/// `ward ARGS` in `dir` (a directory of `p`), sharing `p`'s data directory.
async fn run_in(p: &Project, dir: &str, args: &[&str]) -> (bool, String, String) {
    // `dir` may be a project of its own (its own `ward.toml`): its user trusts it too.
    let _ = p
        .untrusting_ward()
        .current_dir(p.path(dir))
        .args(["trust", "--yes"])
        .output();
    let mut cmd = p.ward();
    cmd.current_dir(p.path(dir))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = tokio::task::spawn_blocking(move || cmd.output().expect("runs"))
        .await
        .expect("joins");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn continue_picks_the_last_session_of_this_directory() {
    let p = Project::new("sessions-continue");
    let llm = ScriptedLlm::start(vec![
        Turn::text("one"),
        Turn::text("two"),
        Turn::text("three"),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    // Another project inside this one, with the same configuration: its own root.
    p.write("other/ward.toml", &p.read("ward.toml"));
    p.write("empty/ward.toml", &p.read("ward.toml"));
    let (ok, here, _) = run_in(&p, ".", &["run", "--format", "json", "FIRST-HERE"]).await;
    assert!(ok);
    let here = session_in(&here);
    // Later, elsewhere: the most recent session overall is not this directory's.
    let (ok, _, _) = run_in(&p, "other", &["run", "ELSEWHERE"]).await;
    assert!(ok);
    let (ok, _, stderr) = run_in(&p, ".", &["run", "-c", "AGAIN"]).await;
    assert!(ok, "{stderr}");
    assert!(stderr.contains(&format!("session {here}")), "{stderr}");
    let last = llm.requests().last().expect("a request").body.clone();
    assert_eq!(message_texts(&last, "user"), ["FIRST-HERE", "AGAIN"]);

    let (ok, _, stderr) = run_in(&p, "empty", &["run", "--continue", "x"]).await;
    assert!(!ok);
    assert!(stderr.contains("no session to continue in"), "{stderr}");
    assert_eq!(llm.requests().len(), 3, "no model call without a session");
    let (ok, _, stderr) = run_in(&p, ".", &["run", "-c", "--session", &here, "x"]).await;
    assert!(!ok, "--continue and --session conflict: {stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fork_copies_up_to_a_message_with_new_ids_and_the_copy_goes_on_alone() {
    let p = Project::new("sessions-fork");
    let llm = ScriptedLlm::start(vec![
        Turn::text("answer one"),
        Turn::text("answer two"),
        Turn::text("answer three"),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    let events = p
        .run_async(&["run", "--format", "json", "PROMPT-ONE"], "")
        .await
        .expect_ok();
    let source = session_in(&events);
    p.run_async(&["run", "--session", &source, "PROMPT-TWO"], "")
        .await
        .expect_ok();
    p.run_async(&["session", "rename", &source, "Counting"], "")
        .await
        .expect_ok();

    let store = SqliteStore::open(p.data.join("ward.db")).expect("store");
    let original = store.messages(&source, None).expect("messages");
    assert_eq!(original.len(), 4);
    // OpenCode's fork point: the messages *before* the one named are copied, so
    // forking at the second prompt keeps the first exchange.
    let second_prompt = original[2].info.id().to_string();
    drop(store);

    let fork = p
        .run_async(
            &["session", "fork", &source, "--message", &second_prompt],
            "",
        )
        .await
        .expect_ok();
    let fork = fork.trim().to_string();
    let store = SqliteStore::open(p.data.join("ward.db")).expect("store");
    let forked = store.get_session(&fork).expect("the fork");
    assert_eq!(forked.title, "Counting (fork #1)");
    assert_eq!(forked.parent_id, None);
    let copied = store.messages(&fork, None).expect("messages");
    assert_eq!(copied.len(), 2, "the messages before the fork point");
    for (c, o) in copied.iter().zip(&original) {
        assert_ne!(c.info.id(), o.info.id(), "new ids");
        assert_eq!(c.info.session_id(), fork);
        assert_eq!(c.parts.len(), o.parts.len());
        for (cp, op) in c.parts.iter().zip(&o.parts) {
            assert_ne!(cp.id, op.id);
            assert_eq!(
                (cp.message_id.as_str(), cp.session_id.as_str()),
                (c.info.id(), fork.as_str())
            );
            assert_eq!(cp.kind, op.kind, "the same content");
        }
    }
    let MessageInfo::Assistant(answer) = &copied[1].info else {
        panic!("an assistant message");
    };
    assert_eq!(
        answer.parent_id,
        copied[0].info.id(),
        "links follow the copy"
    );
    assert_eq!(
        store.messages(&source, None).expect("messages"),
        original,
        "the source is untouched"
    );
    drop(store);

    // A fork of the fork counts up; an unknown message is refused.
    let second = p
        .run_async(&["session", "fork", &fork], "")
        .await
        .expect_ok();
    let store = SqliteStore::open(p.data.join("ward.db")).expect("store");
    assert_eq!(
        store.get_session(second.trim()).expect("fork").title,
        "Counting (fork #2)"
    );
    drop(store);
    let bad = p
        .run_async(&["session", "fork", &source, "--message", "msg_nope"], "")
        .await;
    assert!(bad.expect_err().contains("is not in session"));

    // The fork continues from the copied point: the second exchange is not there.
    p.run_async(&["run", "--session", &fork, "PROMPT-THREE"], "")
        .await
        .expect_ok();
    let last = llm.requests().last().expect("request").body.clone();
    assert_eq!(message_texts(&last, "user"), ["PROMPT-ONE", "PROMPT-THREE"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_forks_like_opencode() {
    let p = Project::new("sessions-fork-serve");
    let llm = ScriptedLlm::start(vec![Turn::text("answer one")]).await;
    llm.configure(&p, "openai-compatible");
    let events = p
        .run_async(&["run", "--format", "json", "PROMPT-ONE"], "")
        .await
        .expect_ok();
    let source = session_in(&events);
    let served = crate::serve::Served::start(&p, &[], &[]).await;
    let (status, body) = served
        .call("POST", &format!("/session/{source}/fork"), Some("{}"))
        .await;
    assert_eq!(status, 200, "{body}");
    let info: Value = serde_json::from_str(&body).expect("JSON");
    let fork = info["id"].as_str().expect("id").to_string();
    assert_ne!(fork, source);
    assert!(
        info["title"]
            .as_str()
            .expect("title")
            .ends_with("(fork #1)"),
        "{info}"
    );
    let (status, body) = served
        .call("GET", &format!("/session/{fork}/message"), None)
        .await;
    assert_eq!(status, 200, "{body}");
    let messages: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(messages.as_array().map(Vec::len), Some(2));
    // At a message: the messages before it, as OpenCode copies them.
    let (status, body) = served
        .call("GET", &format!("/session/{source}/message"), None)
        .await;
    assert_eq!(status, 200, "{body}");
    let original: Value = serde_json::from_str(&body).expect("JSON");
    let at = original[1]["info"]["id"].as_str().expect("the answer's id");
    let (status, body) = served
        .call(
            "POST",
            &format!("/session/{source}/fork"),
            Some(&format!(r#"{{"messageID": "{at}"}}"#)),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let at_answer: Value = serde_json::from_str(&body).expect("JSON");
    let id = at_answer["id"].as_str().expect("id");
    let (status, body) = served
        .call("GET", &format!("/session/{id}/message"), None)
        .await;
    assert_eq!(status, 200, "{body}");
    let copied: Value = serde_json::from_str(&body).expect("JSON");
    let roles: Vec<&str> = copied
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| m["info"]["role"].as_str())
        .collect();
    assert_eq!(
        roles,
        ["user"],
        "only the prompt before the answer: {copied}"
    );
    let (status, body) = served
        .call(
            "POST",
            &format!("/session/{source}/fork"),
            Some(r#"{"messageID": "msg_elsewhere"}"#),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    let (status, _) = served
        .call("POST", "/session/ses_missing/fork", Some("{}"))
        .await;
    assert_eq!(status, 404);
}
