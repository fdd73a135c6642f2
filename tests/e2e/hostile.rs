//! The hostile-plugin suite: each test attacks one boundary with a real component, asserts
//! the attack fails with a clear error, and then checks that the same host still serves a
//! well-behaved plugin.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::time::{Duration, Instant};

use ward_permission::Reply;
use ward_plugin::CallError;
use ward_tests::Project;
use ward_tests::harness::Harness;
use ward_tests::http::TestServer;

const ALL: &[&str] = &["fs-read", "fs-write", "net", "exec", "env"];

fn harness(project: &Project, grants: &[&str], rules: &str) -> Harness {
    Harness::new(
        project,
        &["hostile", "noop"],
        &[("hostile", grants), ("noop", &[])],
        rules,
    )
}

fn denied_text(e: &CallError) -> String {
    e.to_string()
}

#[tokio::test]
async fn infinite_loop_is_stopped_at_the_deadline() {
    let p = Project::new("spin");
    let h = harness(&p, ALL, "");
    h.call("hostile_noop", "{}")
        .await
        .expect("warm up: compile first");
    let start = Instant::now();
    let err = h.call("spin", "{}").await.unwrap_err();
    let took = start.elapsed();
    assert!(matches!(err, CallError::Timeout { ms: 400, .. }), "{err}");
    // The limit is 400 ms and the epoch ticks every 5 ms; allow for scheduling on a busy
    // two-core machine, but not for a missed deadline.
    assert!(
        took >= Duration::from_millis(400),
        "stopped early: {took:?}"
    );
    assert!(
        took < Duration::from_millis(400 + 150),
        "stopped late: {took:?}"
    );
    assert!(err.to_string().contains("time limit of 400 ms"), "{err}");
    h.assert_noop_works().await;
}

#[tokio::test]
async fn memory_bomb_hits_the_memory_limit() {
    let p = Project::new("bomb");
    let h = harness(&p, ALL, "");
    let err = h.call("bomb", "{}").await.unwrap_err();
    assert!(matches!(err, CallError::Memory { mib: 64, .. }), "{err}");
    h.assert_noop_works().await;
}

#[tokio::test]
async fn unbounded_recursion_overflows_the_stack_cleanly() {
    let p = Project::new("recurse");
    let h = harness(&p, ALL, "");
    let err = h.call("recurse", "{}").await.unwrap_err();
    assert!(err.to_string().contains("stack overflow"), "{err}");
    h.assert_noop_works().await;
}

#[tokio::test]
async fn a_one_gigabyte_result_is_refused() {
    let p = Project::new("huge");
    let h = harness(&p, ALL, "");
    let err = h
        .call("huge", r#"{"bytes": 1073741824}"#)
        .await
        .unwrap_err();
    assert!(matches!(err, CallError::Memory { .. }), "{err}");
    // Within memory but over the 1 MiB output limit.
    let err = h.call("huge", r#"{"bytes": 5000000}"#).await.unwrap_err();
    assert!(
        matches!(
            err,
            CallError::OutputTooLarge {
                size: 5_000_002..,
                limit: 1_048_576,
                ..
            }
        ),
        "{err}"
    );
    h.assert_noop_works().await;
}

#[tokio::test]
async fn traversal_and_absolute_paths_stay_inside_the_grant() {
    let p = Project::new("traverse");
    std::fs::write(p.root.parent().unwrap().join("secret.txt"), "TOP SECRET").unwrap();
    let h = harness(&p, ALL, "");
    let root = p.root.display().to_string();
    for path in [
        format!("{root}/../secret.txt"),
        format!("{root}/sub/../../secret.txt"),
        "../secret.txt".to_string(),
        "/etc/passwd".to_string(),
        p.data.join("audit.log").display().to_string(),
    ] {
        let args = serde_json::json!({ "path": path }).to_string();
        let err = h.call("read_path", &args).await.unwrap_err();
        assert!(!err.to_string().contains("TOP SECRET"), "{path}: {err}");
        assert!(matches!(err, CallError::Tool(_)), "{path}: {err}");
    }
    h.assert_noop_works().await;
}

#[tokio::test]
async fn a_symlink_inside_the_grant_cannot_point_outside() {
    let p = Project::new("symlink");
    let outside = p.root.parent().unwrap().join("outside.txt");
    std::fs::write(&outside, "OUTSIDE").unwrap();
    std::os::unix::fs::symlink(&outside, p.path("link.txt")).unwrap();
    std::os::unix::fs::symlink(p.root.parent().unwrap(), p.path("dirlink")).unwrap();
    let h = harness(&p, ALL, "");
    for path in [p.path("link.txt"), p.path("dirlink/outside.txt")] {
        let args = serde_json::json!({ "path": path }).to_string();
        let err = h.call("read_path", &args).await.unwrap_err();
        assert!(!err.to_string().contains("OUTSIDE"), "{err}");
    }
    h.assert_noop_works().await;
}

#[tokio::test]
async fn writes_need_fs_write_on_that_directory() {
    let p = Project::new("write");
    std::fs::create_dir_all(p.path("out")).unwrap();
    let h = harness(&p, ALL, "");
    let args = serde_json::json!({ "path": p.path("README.md"), "content": "pwned" }).to_string();
    let err = h.call("write_path", &args).await.unwrap_err();
    assert!(matches!(err, CallError::Tool(_)), "{err}");
    assert!(
        !p.path("README.md").exists(),
        "a read-only grant let a write through"
    );
    // The write grant covers out/ only, and works there.
    let args = serde_json::json!({ "path": p.path("out/ok.txt"), "content": "fine" }).to_string();
    h.call("write_path", &args)
        .await
        .expect("write inside fs-write");
    assert_eq!(p.read("out/ok.txt"), "fine");

    // Without the fs-write grant, out/ is read-only too.
    let p2 = Project::new("write-ungranted");
    std::fs::create_dir_all(p2.path("out")).unwrap();
    let h2 = harness(&p2, &["fs-read"], "");
    let args = serde_json::json!({ "path": p2.path("out/x.txt"), "content": "x" }).to_string();
    h2.call("write_path", &args).await.unwrap_err();
    assert!(!p2.path("out/x.txt").exists());
    h2.assert_noop_works().await;
}

#[tokio::test]
async fn nothing_granted_means_no_files_at_all() {
    let p = Project::new("nogrant");
    p.write("a.txt", "visible?");
    let h = harness(&p, &[], "");
    let args = serde_json::json!({ "path": p.path("a.txt") }).to_string();
    let err = h.call("read_path", &args).await.unwrap_err();
    assert!(!err.to_string().contains("visible?"), "{err}");
    h.assert_noop_works().await;
}

#[tokio::test]
async fn exec_needs_the_capability_and_a_matching_pattern() {
    let p = Project::new("exec");
    let h = harness(&p, &["fs-read"], "");
    let err = h.call("exec", r#"{"text": "echo hi"}"#).await.unwrap_err();
    assert!(
        denied_text(&err).contains("not granted the `exec` capability"),
        "{err}"
    );

    let p = Project::new("exec2");
    let h = harness(&p, ALL, "");
    let out = h
        .call("exec", r#"{"text": "echo hi"}"#)
        .await
        .expect("granted pattern");
    assert_eq!(out.output.trim(), "hi");
    for cmd in [
        "touch pwned",
        "echo hi && touch pwned",
        "echo $(touch pwned)",
        "git status; touch pwned",
    ] {
        let args = serde_json::json!({ "text": cmd }).to_string();
        let err = h.call("exec", &args).await.unwrap_err();
        assert!(
            denied_text(&err).contains("outside the exec patterns"),
            "{cmd}: {err}"
        );
    }
    assert!(!p.path("pwned").exists());
    assert!(Harness::audit_log(&p).contains("\"decision\":\"deny\""));
    h.assert_noop_works().await;
}

#[tokio::test]
async fn exec_inside_the_grant_still_obeys_bash_rules() {
    let p = Project::new("exec-rules");
    let h = harness(&p, ALL, "bash = { \"echo *\" = \"deny\" }");
    let err = h.call("exec", r#"{"text": "echo hi"}"#).await.unwrap_err();
    assert!(denied_text(&err).contains("echo * = deny"), "{err}");
    h.assert_noop_works().await;
}

#[tokio::test]
async fn http_to_an_ungranted_host_is_refused() {
    let server = TestServer::start().await;
    let p = Project::new("net");
    let grant = format!("net:{}", server.base);
    let h = harness(&p, &["fs-read", grant.as_str()], "");
    let ok = h
        .call("fetch", &format!(r#"{{"text": "{}/hello"}}"#, server.base))
        .await
        .expect("granted host");
    assert_eq!(ok.output, "200 hello");
    let hits = server.hits();
    let err = h
        .call(
            "fetch",
            &format!(r#"{{"text": "http://localhost:{}/hello"}}"#, server.port),
        )
        .await
        .unwrap_err();
    assert!(
        denied_text(&err).contains("not among the hosts granted"),
        "{err}"
    );
    assert_eq!(
        server.hits(),
        hits,
        "the refused request reached the server"
    );

    // Nothing granted at all.
    let p2 = Project::new("net-none");
    let h2 = harness(&p2, &["fs-read"], "");
    let err = h2
        .call("fetch", &format!(r#"{{"text": "{}/hello"}}"#, server.base))
        .await
        .unwrap_err();
    assert!(
        denied_text(&err).contains("not granted the `net` capability"),
        "{err}"
    );
    h2.assert_noop_works().await;
}

#[tokio::test]
async fn a_redirect_to_an_ungranted_host_is_refused() {
    let granted = TestServer::start().await;
    let other = TestServer::start().await;
    let p = Project::new("redirect");
    let grant = format!("net:{}", granted.base);
    let h = harness(&p, &[grant.as_str()], "");
    let url = format!(
        "{}/redirect?to=http://localhost:{}/hello",
        granted.base, other.port
    );
    let err = h
        .call("fetch", &serde_json::json!({ "text": url }).to_string())
        .await
        .unwrap_err();
    assert!(
        denied_text(&err).contains("not among the hosts granted"),
        "{err}"
    );
    assert_eq!(other.hits(), 0, "the redirect target was contacted");
    h.assert_noop_works().await;
}

#[tokio::test]
async fn a_granted_name_resolving_to_loopback_is_refused() {
    let server = TestServer::start().await;
    let p = Project::new("rebind");
    // `net` grants the manifest's whole ceiling (`*`), but loopback needs an explicit grant.
    let h = harness(&p, &["net"], "");
    let url = format!("http://localhost:{}/hello", server.port);
    let err = h
        .call("fetch", &serde_json::json!({ "text": url }).to_string())
        .await
        .unwrap_err();
    assert!(denied_text(&err).contains("internal address"), "{err}");
    assert_eq!(server.hits(), 0);
    h.assert_noop_works().await;
}

#[tokio::test]
async fn the_environment_is_empty_unless_granted() {
    let p = Project::new("env");
    let h = harness(&p, &["fs-read"], "");
    let out = h.call("env", "{}").await.expect("env call");
    assert!(!out.output.contains("PATH="), "{}", out.output);
    assert!(!out.output.contains("HOME="), "{}", out.output);
    h.assert_noop_works().await;
}

#[tokio::test]
async fn an_undeclared_import_is_refused_at_load() {
    let p = Project::new("sneaky");
    let h = Harness::new(
        &p,
        &["sneaky-import", "noop"],
        &[("sneaky-import", &["fs-read"])],
        "",
    );
    let plugin = h
        .host
        .plugins()
        .iter()
        .find(|p| p.name() == "sneaky-import")
        .unwrap()
        .clone();
    let err = h.host.tools_of(&plugin).await.unwrap_err();
    let text = err.to_string();
    assert!(text.contains("wasi:sockets/"), "{text}");
    assert!(
        text.contains("does not declare the `net` capability"),
        "{text}"
    );
    h.assert_noop_works().await;
}

#[tokio::test]
async fn an_unsupported_api_version_is_refused_naming_both() {
    let p = Project::new("future");
    let h = Harness::new(&p, &["future-api", "noop"], &[], "");
    let plugin = h
        .host
        .plugins()
        .iter()
        .find(|p| p.name() == "future-api")
        .unwrap()
        .clone();
    let text = h.host.tools_of(&plugin).await.unwrap_err().to_string();
    assert!(text.contains("ward:plugin@0.9.0"), "{text}");
    assert!(text.contains("ward:plugin@0.1.0"), "{text}");
    h.assert_noop_works().await;
}

#[tokio::test]
async fn repeated_failures_disable_the_plugin() {
    let p = Project::new("strikes");
    let h = harness(&p, ALL, "");
    for _ in 0..ward_plugin::MAX_STRIKES {
        let err = h.call("recurse", "{}").await.unwrap_err();
        assert!(matches!(err, CallError::Trap { .. }), "{err}");
    }
    let err = h.call("hostile_noop", "{}").await.unwrap_err();
    assert!(matches!(err, CallError::Disabled { .. }), "{err}");
    assert!(err.to_string().contains("3 consecutive failures"), "{err}");
    h.assert_noop_works().await;
}

#[tokio::test]
async fn read_rules_hold_inside_the_grant() {
    let p = Project::new("read-rules");
    p.write(".env", "API_KEY=hunter2");
    p.write("ok.txt", "fine");
    // A relative link, which wasmtime-wasi follows inside the preopen: only the rules
    // can stop it.
    std::os::unix::fs::symlink(".env", p.path("innocent.txt")).unwrap();
    let h = harness(&p, ALL, r#"read = { "*.env" = "deny" }"#);

    for path in [
        p.path(".env"),
        p.path("innocent.txt"),
        p.path("sub/../.env"),
    ] {
        let args = serde_json::json!({ "path": path }).to_string();
        let err = h.call("read_path", &args).await.unwrap_err();
        assert!(matches!(err, CallError::Tool(_)), "{path:?}: {err}");
        assert!(!err.to_string().contains("hunter2"), "{path:?}: {err}");
    }
    let args = serde_json::json!({ "path": p.path("ok.txt") }).to_string();
    let out = h.call("read_path", &args).await.expect("an allowed read");
    assert_eq!(out.output, "fine");
    // Listing the directory reads the directory, not the files in it.
    let args = serde_json::json!({ "path": p.root }).to_string();
    let out = h.call("list_dir", &args).await.expect("list the root");
    assert!(out.output.contains(".env"), "{}", out.output);

    let log = Harness::audit_log(&p);
    let denials: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("\"capability\":\"fs\"") && l.contains("\"decision\":\"deny\""))
        .collect();
    assert!(
        denials
            .iter()
            .any(|l| l.contains("/.env\"") && l.contains("*.env = deny")),
        "{log}"
    );
    assert!(
        denials
            .iter()
            .any(|l| l.contains("innocent.txt") && l.contains("`.env`")),
        "the symlink was not refused by the rules: {log}"
    );
    assert!(
        !log.contains("ok.txt"),
        "allowed reads are not audited: {log}"
    );
    h.assert_noop_works().await;
}

#[tokio::test]
async fn a_symlinked_directory_is_checked_as_its_target() {
    let p = Project::new("dir-link");
    p.write("secret/key", "hunter2");
    p.write("public/ok.txt", "fine");
    std::fs::create_dir_all(p.path("out/locked")).unwrap();
    // Relative links inside the grant: wasmtime-wasi follows them, the rules must not.
    std::os::unix::fs::symlink("secret", p.path("alias")).unwrap();
    std::os::unix::fs::symlink("out/locked", p.path("drop")).unwrap();
    let rules = r#"
        read = { "secret/*" = "deny" }
        edit = { "out/locked/*" = "deny" }
    "#;
    let h = harness(&p, ALL, rules);

    for path in [p.path("alias/key"), p.path("public/../alias/key")] {
        let args = serde_json::json!({ "path": path }).to_string();
        let err = h.call("read_path", &args).await.unwrap_err();
        assert!(!err.to_string().contains("hunter2"), "{path:?}: {err}");
    }
    let args = serde_json::json!({ "path": p.path("public/ok.txt") }).to_string();
    let out = h.call("read_path", &args).await.expect("a plain read");
    assert_eq!(out.output, "fine");

    let args = serde_json::json!({ "path": p.path("drop/x"), "content": "pwned" });
    h.call("write_path", &args.to_string()).await.unwrap_err();
    assert!(
        !p.path("out/locked/x").exists(),
        "a write went through the link"
    );

    let log = Harness::audit_log(&p);
    assert!(
        log.lines()
            .any(|l| l.contains("alias/key") && l.contains("`secret/key`")),
        "{log}"
    );
    h.assert_noop_works().await;
}

#[tokio::test]
async fn edit_rules_hold_inside_the_write_grant() {
    let p = Project::new("edit-rules");
    std::fs::create_dir_all(p.path("out/locked")).unwrap();
    std::fs::create_dir_all(p.path("out/free")).unwrap();
    let h = harness(&p, ALL, r#"edit = { "out/locked/*" = "deny" }"#);

    let args = serde_json::json!({ "path": p.path("out/locked/x"), "content": "pwned" });
    let err = h.call("write_path", &args.to_string()).await.unwrap_err();
    assert!(matches!(err, CallError::Tool(_)), "{err}");
    assert!(
        !p.path("out/locked/x").exists(),
        "a denied write went through"
    );

    let args = serde_json::json!({ "path": p.path("out/free/x"), "content": "fine" });
    h.call("write_path", &args.to_string())
        .await
        .expect("a write the rules allow");
    assert_eq!(p.read("out/free/x"), "fine");

    let log = Harness::audit_log(&p);
    assert!(
        log.lines().any(|l| l.contains("\"decision\":\"deny\"")
            && l.contains("out/locked/x")
            && l.contains("out/locked/* = deny")),
        "{log}"
    );
    h.assert_noop_works().await;
}

#[tokio::test]
async fn an_ask_inside_the_grant_goes_to_the_user_once() {
    let p = Project::new("ask-rules");
    p.write(".env", "API_KEY=hunter2");
    let args = serde_json::json!({ "path": p.path(".env") }).to_string();
    // The default rules ask before reading `*.env`; a need the caller already approved
    // at tool level is not asked again (nobody answers here: an ask would time out).
    let h = harness(&p, ALL, "");
    let need = ("read".to_string(), ".env".to_string());
    h.scope.approved.lock().unwrap().push(need);
    let out = h.call("read_path", &args).await.expect("pre-approved read");
    assert_eq!(out.output, "API_KEY=hunter2");

    let h = harness(&p, ALL, "");
    let engine = h.scope.permissions.clone();
    let (asked, reject) = (
        Arc::new(AtomicUsize::new(0)),
        Arc::new(AtomicBool::new(true)),
    );
    let answerer = {
        let (asked, reject) = (asked.clone(), reject.clone());
        tokio::spawn(async move {
            loop {
                for (id, request) in engine.pending() {
                    assert_eq!(request.permission, "read");
                    assert_eq!(request.patterns, [".env"]);
                    asked.fetch_add(1, SeqCst);
                    let reply = if reject.load(SeqCst) {
                        Reply::Reject { feedback: None }
                    } else {
                        Reply::Once
                    };
                    engine.reply(&id, reply).unwrap();
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
    };
    // Rejected: refused and audited.
    let err = h.call("read_path", &args).await.unwrap_err();
    assert!(!err.to_string().contains("hunter2"), "{err}");
    assert_eq!(asked.load(SeqCst), 1);
    assert!(Harness::audit_log(&p).contains("rejected"));
    // Approved once: read, and the answer holds for the rest of the scope.
    reject.store(false, SeqCst);
    let out = h.call("read_path", &args).await.expect("approved read");
    assert_eq!(out.output, "API_KEY=hunter2");
    h.call("read_path", &args).await.expect("already approved");
    assert_eq!(asked.load(SeqCst), 2);
    answerer.abort();
    h.assert_noop_works().await;
}
