//! Sessions belong to the project they were made in: `ward session list`, `ward serve`'s
//! `GET /session` and the web page show the project's own, with a way to see all; and a
//! run that never reached a model, or a session opened and left without a prompt,
//! leaves nothing behind.

use serde_json::Value;
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn};

use crate::serve::Served;

/// The session ids `ward session list` printed.
fn listed(p: &Project, args: &[&str]) -> Vec<String> {
    let mut all = vec!["session", "list"];
    all.extend_from_slice(args);
    p.run(&all, "")
        .expect_ok()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

/// The id `ward run` printed last (`session ses_…` on standard error).
fn session_of(stderr: &str) -> String {
    stderr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("session "))
        .unwrap_or_else(|| panic!("no session named: {stderr}"))
        .trim()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_project_lists_its_own_sessions_and_all_lists_every_one() {
    let llm = ScriptedLlm::start(vec![Turn::text("one"), Turn::text("two")]).await;
    let mine = Project::new("sessions-mine");
    let mut theirs = Project::new("sessions-theirs");
    // One data directory, as one user's machine has.
    theirs.data = mine.data.clone();
    llm.configure(&mine, "openai-compatible");
    llm.configure(&theirs, "openai-compatible");
    let run = mine.run_async(&["run", "hello"], "").await;
    assert!(run.ok(), "{}", run.stderr());
    let a = session_of(&run.stderr());
    let run = theirs.run_async(&["run", "hello"], "").await;
    assert!(run.ok(), "{}", run.stderr());
    let b = session_of(&run.stderr());

    assert_eq!(listed(&mine, &[]), vec![a.clone()]);
    assert_eq!(listed(&theirs, &[]), vec![b.clone()]);
    let mut all = listed(&mine, &["--all"]);
    all.sort();
    let mut want = vec![a.clone(), b.clone()];
    want.sort();
    assert_eq!(all, want);

    // The server: its project's sessions, another directory's on request, or all.
    let served = Served::start(&mine, &[], &[]).await;
    let ids = |body: &str| -> Vec<String> {
        let list: Vec<Value> = serde_json::from_str(body).expect("a list");
        let mut ids: Vec<String> = list
            .iter()
            .filter_map(|s| s["id"].as_str().map(str::to_string))
            .collect();
        ids.sort();
        ids
    };
    let (status, body) = served.call("GET", "/session", None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(ids(&body), vec![a.clone()]);
    let other = theirs.root.display().to_string();
    let (_, body) = served
        .call("GET", &format!("/session?directory={other}"), None)
        .await;
    assert_eq!(ids(&body), vec![b.clone()]);
    // As OpenCode's clients send it: in a header, percent-encoded.
    let encoded = other.replace('/', "%2F");
    let header = format!("x-opencode-directory: {encoded}");
    let bearer = format!("Authorization: Bearer {}", served.token);
    let (status, body) = served
        .raw("GET", "/session", &[&bearer, &header], None)
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(ids(&body), vec![b.clone()]);
    let (_, body) = served.call("GET", "/session?all=true", None).await;
    assert_eq!(ids(&body), want);
    let (status, body) = served.call("GET", "/session?all=maybe", None).await;
    assert_eq!(status, 400, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_never_reached_a_model_leaves_no_session() {
    let p = Project::new("sessions-junk");
    // No model chosen at all.
    let err = p.run(&["run", "hello"], "").expect_err();
    assert!(err.contains("no model chosen"), "{err}");
    // A provider nobody declared.
    p.write("ward.toml", "model = \"nope/some-model\"\n");
    let err = p.run(&["run", "hello"], "").expect_err();
    assert!(err.contains("unknown provider `nope`"), "{err}");
    assert!(!err.contains("session ses_"), "no session to name: {err}");
    assert!(listed(&p, &["--all"]).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_opened_and_left_without_a_prompt_is_not_kept() {
    let llm = ScriptedLlm::start(vec![Turn::text("answered")]).await;
    let p = Project::new("sessions-unused");
    llm.configure(&p, "openai-compatible");
    // The line mode, closed at once.
    let run = p.run_async(&[], "").await;
    assert!(run.ok(), "{}", run.stderr());
    assert!(listed(&p, &["--all"]).is_empty());
    // One prompt, and it is kept.
    let run = p.run_async(&[], "hello\n").await;
    assert!(run.ok(), "{}", run.stderr());
    assert_eq!(listed(&p, &["--all"]).len(), 1);
}
