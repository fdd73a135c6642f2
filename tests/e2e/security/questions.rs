//! Security tests: permission questions. A plugin with no capabilities (`ask-forger`)
//! tries to ask about `bash *` and about other plugins' rights, and its one "always"
//! answer tries to let every shell command run; a stored approval tries to outvote an
//! explicit deny rule; a hook granted `bash` and `read` tries to answer a question
//! about another tool. The real host, the real `bash` component, the real engine.

use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio::sync::broadcast;
use ward_permission::{
    Action, ApprovalStore, AskRequest, MemoryApprovals, PermissionEngine, PermissionError,
    PermissionEvent, Reply, Rule, approval_scope,
};
use ward_plugin::{CallError, HookVerdict, PermissionRequest};
use ward_tests::Project;
use ward_tests::harness::Harness;

/// The questions that reached "the user", who answers bash questions with `bash_reply`
/// and every other question "always".
type Asked = Arc<Mutex<Vec<AskRequest>>>;

/// Gives `h` a fresh engine over `store` whose questions are answered in the
/// background, and returns the list of questions asked.
fn answered(h: &mut Harness, store: Arc<MemoryApprovals>, bash_reply: Reply) -> Asked {
    let (tx, mut events) = broadcast::channel(64);
    let engine = PermissionEngine::new(store, tx);
    h.scope.permissions = engine.clone();
    let asked: Asked = Arc::default();
    let seen = asked.clone();
    tokio::spawn(async move {
        while let Ok(event) = events.recv().await {
            let PermissionEvent::Asked { id, request } = event else {
                continue;
            };
            let reply = match request.permission.as_str() {
                "bash" => bash_reply.clone(),
                _ => Reply::Always,
            };
            seen.lock().expect("asked").push(*request);
            let _ = engine.reply(&id, reply);
        }
    });
    asked
}

async fn forge(h: &Harness, permission: &str, patterns: &[&str]) -> String {
    let args = json!({ "permission": permission, "patterns": patterns }).to_string();
    h.call("forge", &args).await.expect("forge runs").output
}

fn questions(asked: &Asked) -> Vec<AskRequest> {
    asked.lock().expect("asked").clone()
}

#[tokio::test]
async fn a_plugin_asks_only_about_what_is_its_own_and_its_always_stays_its_own() {
    let p = Project::new("forged-questions");
    let mut h = Harness::new(
        &p,
        &["ask-forger", "bash", "noop"],
        &[("bash", &["exec"])],
        r#"bash = { "*" = "ask" }"#,
    );
    let store = Arc::new(MemoryApprovals::new());
    let asked = answered(&mut h, store.clone(), Reply::Reject { feedback: None });
    // The defaults allow every key no rule names; this one is asked about.
    let mut rules = (*h.scope.rules).clone();
    rules.push(ward_permission::Ruleset::new(
        "test",
        vec![Rule::new("ask-forger:deploy", "*", Action::Ask)],
    ));
    h.scope.rules = Arc::new(rules);

    // The attack: questions about rights the plugin was never granted.
    for (permission, patterns) in [
        ("bash", &["*"][..]),
        ("bash", &[][..]),
        ("edit", &["*"]),
        ("read", &["*"]),
        ("webfetch", &["https://example.com/"]),
        ("external_directory", &["/*"]),
        ("noop", &["*"]),
        ("bash:x", &["*"]),
    ] {
        let out = forge(&h, permission, patterns).await;
        assert!(
            out.starts_with("refused: plugin `ask-forger` may not ask about")
                && out.contains(&format!("`{permission}`")),
            "{permission}: {out}"
        );
    }
    assert!(
        questions(&asked).is_empty(),
        "no forged question reached the user"
    );
    let audit = Harness::audit_log(&p);
    assert!(
        audit.contains("\"plugin\":\"ask-forger\"") && audit.contains("may not ask about `bash`"),
        "{audit}"
    );

    // Its own key is fine: the question names it, and "always" is stored for it alone.
    assert_eq!(forge(&h, "ask-forger:deploy", &["*"]).await, "allowed");
    let asked_now = questions(&asked);
    assert_eq!(asked_now.len(), 1, "{asked_now:?}");
    assert_eq!(asked_now[0].plugin.as_deref(), Some("ask-forger"));
    let project = h.scope.project.to_string_lossy().into_owned();
    assert!(store.load(&project, "build").is_empty(), "not the host's");
    assert_eq!(
        store.load(&project, &approval_scope("build", Some("ask-forger"))),
        [Rule::new("ask-forger:deploy", "*", Action::Allow)]
    );
    assert_eq!(forge(&h, "ask-forger:deploy", &["prod"]).await, "allowed");
    assert_eq!(questions(&asked).len(), 1, "remembered, not asked again");

    // The shell is still asked about (and here refused): nothing the forger got applies.
    let err = h
        .call("bash", &json!({ "command": "touch ran.txt" }).to_string())
        .await
        .expect_err("rejected");
    assert!(err.to_string().contains("reject"), "{err}");
    // The refusal reached the plugin as text through its `exec`; the host knows it by
    // type, whatever the plugin made of it.
    assert!(
        matches!(
            &err,
            CallError::Rejected {
                refusal: PermissionError::Rejected { feedback: None },
                ..
            }
        ),
        "{err:?}"
    );
    assert!(!p.path("ran.txt").exists(), "the command never ran");
    let last = questions(&asked).pop().expect("the bash question");
    assert_eq!(
        (last.permission.as_str(), last.plugin.as_deref()),
        ("bash", Some("bash"))
    );
    h.assert_noop_works().await;
}

#[tokio::test]
async fn a_deny_rule_wins_over_any_stored_approval() {
    let p = Project::new("deny-beats-always");
    p.write("victim/keep.txt", "precious");
    let mut h = Harness::new(
        &p,
        &["bash", "noop"],
        &[("bash", &["exec"])],
        r#"bash = { "*" = "ask", "rm *" = "deny" }"#,
    );
    let store = Arc::new(MemoryApprovals::new());
    let project = h.scope.project.to_string_lossy().into_owned();
    // The broadest approvals there are, for the host and for the bash plugin.
    let everything = [Rule::new("bash", "*", Action::Allow)];
    store.save(&project, "build", &everything).expect("saves");
    let scoped = approval_scope("build", Some("bash"));
    store.save(&project, &scoped, &everything).expect("saves");
    let asked = answered(&mut h, store, Reply::Always);

    let err = h
        .call("bash", &json!({ "command": "rm -rf victim" }).to_string())
        .await
        .expect_err("denied");
    assert!(err.to_string().contains("rm *"), "{err}");
    assert_eq!(p.read("victim/keep.txt"), "precious");

    // What the approvals cover and no deny rule refuses runs without a question.
    let out = h
        .call(
            "bash",
            &json!({ "command": "echo approved-ran" }).to_string(),
        )
        .await
        .expect("approved");
    assert!(out.output.contains("approved-ran"), "{out:?}");
    assert!(questions(&asked).is_empty());
    h.assert_noop_works().await;
}

fn request(permission: &str, pattern: &str) -> PermissionRequest {
    PermissionRequest {
        session_id: "ses_test".into(),
        permission: permission.into(),
        patterns: vec![pattern.into()],
        metadata: "{}".into(),
    }
}

#[tokio::test]
async fn a_hook_answers_only_questions_about_its_granted_tools() {
    let p = Project::new("hook-question-scope");
    let h = Harness::new(
        &p,
        &["hook-guard", "noop"],
        &[("hook-guard", &["hooks:bash"])],
        "",
    );
    let s = &h.scope;
    // hook-guard allows every `webfetch` question it sees and denies `git push`: it is
    // granted `bash` only, so it sees the second and never the first.
    assert_eq!(
        h.host
            .permission_ask(&request("webfetch", "https://x.test"), s)
            .await,
        None
    );
    assert_eq!(
        h.host.permission_ask(&request("edit", "src/a.rs"), s).await,
        None
    );
    assert_eq!(
        h.host
            .permission_ask(&request("bash", "git push origin"), s)
            .await,
        Some(HookVerdict::Deny {
            plugin: "hook-guard".into()
        })
    );
    h.assert_noop_works().await;
}

/// `ward tool call forge ARGS` in `p`, with `[permission]` asking about
/// `ask-forger:deploy`, answering `stdin`.
fn forge_on_terminal(p: &Project, args: &serde_json::Value, stdin: &str) -> (String, String) {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = p
        .ward()
        .args(["tool", "call", "forge", &args.to_string()])
        .env(
            "WARD_CONFIG_CONTENT",
            "[permission]\n\"ask-forger:deploy\" = \"ask\"\n",
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ward");
    if let Some(mut input) = child.stdin.take() {
        let _ = input.write_all(stdin.as_bytes());
    }
    let out = child.wait_with_output().expect("ward ran");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_question_on_the_terminal_names_the_asking_plugin() {
    let p = Project::new("question-names-plugin");
    p.install_test_plugin("ask-forger");
    let args = json!({ "permission": "ask-forger:deploy", "patterns": ["prod"] });
    let (stdout, stderr) = forge_on_terminal(&p, &args, "n\n");
    assert!(
        stderr.contains("Plugin `ask-forger` asks: Allow ask-forger:deploy for prod?"),
        "{stderr}"
    );
    assert!(stdout.contains("refused:"), "{stdout}");

    // A forged question about the shell never reaches the terminal.
    let args = json!({ "permission": "bash", "patterns": ["*"] });
    let (stdout, stderr) = forge_on_terminal(&p, &args, "a\n");
    assert!(stdout.contains("may not ask about `bash`"), "{stdout}");
    assert!(!stderr.contains("Allow bash"), "{stderr}");
}
