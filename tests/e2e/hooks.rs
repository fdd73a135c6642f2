//! Hook plugins end to end: the real `PluginHost` running the compiled test hook
//! components (`hook-guard`, `hook-observer`, `hook-hostile`) around the real `bash`,
//! `read` and `noop` tool components, the way the agent loop calls them — before-hooks,
//! the call, after-hooks — with the outcome checked on the file system.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use ward_plugin::{
    HookPoint, HookVerdict, PermissionRequest, PluginHost, SamplingParams, ToolOutput,
};
use ward_tests::Project;
use ward_tests::harness::Harness;

/// Runs `tool` as the loop does: before-hooks, the call, after-hooks. Errors are the
/// text the model would read.
async fn run_tool(h: &Harness, tool: &str, args: serde_json::Value) -> Result<ToolOutput, String> {
    let args = h
        .host
        .tool_execute_before(tool, &args.to_string(), &h.scope)
        .await
        .map_err(|b| b.to_string())?;
    let out = h.call(tool, &args).await.map_err(|e| e.to_string())?;
    Ok(h.host.tool_execute_after(tool, &args, out, &h.scope).await)
}

fn plugin<'a>(h: &'a Harness, name: &str) -> &'a Arc<ward_plugin::Plugin> {
    h.host
        .plugins()
        .iter()
        .find(|p| p.name() == name)
        .unwrap_or_else(|| panic!("{name} installed"))
}

fn observer_log(p: &Project) -> String {
    std::fs::read_to_string(p.path("hook-log/observer.log")).unwrap_or_default()
}

#[tokio::test]
async fn a_guard_blocks_rewrites_and_marks_real_tool_calls() {
    let p = Project::new("hook-guard");
    p.write("victim/keep.txt", "precious");
    p.write("notes.txt", "hello\nworld\n");
    let h = Harness::new(
        &p,
        &["hook-guard", "bash", "read"],
        &[
            ("hook-guard", &["hooks", "fs-write"]),
            ("bash", &["exec", "fs-read", "fs-write"]),
            ("read", &["fs-read"]),
        ],
        "",
    );

    let err = run_tool(&h, "bash", json!({ "command": "rm -rf victim" }))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        "plugin `hook-guard` blocked this `bash` call: `rm -rf` is not allowed by hook-guard"
    );
    assert_eq!(
        p.read("victim/keep.txt"),
        "precious",
        "the command never ran"
    );

    let out = run_tool(
        &h,
        "bash",
        json!({ "command": "echo PLACEHOLDER > out.txt" }),
    )
    .await
    .expect("a rewritten call runs");
    assert_eq!(p.read("out.txt"), "rewritten-by-guard\n", "{}", out.output);

    let out = run_tool(&h, "read", json!({ "filePath": "notes.txt" }))
        .await
        .expect("read");
    assert!(out.output.contains("1: hello"), "{}", out.output);
    assert!(
        out.output.ends_with("\n[checked by hook-guard]"),
        "{}",
        out.output
    );
    let metadata: serde_json::Value = serde_json::from_str(&out.metadata).expect("metadata json");
    assert_eq!(metadata["guard"], "checked", "{metadata}");

    // The same component is a tool plugin too.
    let out = run_tool(&h, "guard_status", json!({})).await.expect("tool");
    assert_eq!(out.output, "guarding");

    let registered = h
        .host
        .hooks_of(plugin(&h, "hook-guard"))
        .await
        .expect("registration");
    assert!(registered.hooks.contains(&HookPoint::ToolExecuteBefore));
    assert_eq!(registered.tools, ["bash", "read"]);

    let audit = Harness::audit_log(&p);
    assert!(
        audit
            .lines()
            .any(|l| l.contains("\"plugin\":\"hook-guard\"")
                && l.contains("tool-execute-before bash")
                && l.contains("blocked the call")),
        "{audit}"
    );
}

#[tokio::test]
async fn observe_only_plugins_are_called_but_change_nothing() {
    let p = Project::new("hook-observe");
    p.write("notes.txt", "hello\n");
    std::fs::create_dir_all(p.path("hook-log")).expect("log dir");
    let h = Harness::new(
        &p,
        &["hook-observer", "bash", "read"],
        &[
            ("hook-observer", &["hooks", "fs-write"]),
            ("bash", &["exec", "fs-read", "fs-write"]),
            ("read", &["fs-read"]),
        ],
        "",
    );

    run_tool(&h, "bash", json!({ "command": "echo ran > ran.txt" }))
        .await
        .expect("an observer cannot block");
    assert_eq!(p.read("ran.txt"), "ran\n");
    let out = run_tool(&h, "read", json!({ "filePath": "notes.txt" }))
        .await
        .expect("read");
    assert!(
        out.output.contains("1: hello"),
        "arguments kept: {}",
        out.output
    );
    assert!(
        !out.output.contains("observer"),
        "output kept: {}",
        out.output
    );
    assert_ne!(out.title, "observer title");

    let log = observer_log(&p);
    for line in ["before bash", "after bash", "before read", "after read"] {
        assert!(log.lines().any(|l| l == line), "{line} missing: {log}");
    }

    let s = &h.scope;
    let params = sampling();
    let got = h.host.chat_params("test/model", params.clone(), s).await;
    assert_eq!(
        (got.temperature, got.max_tokens),
        (params.temperature, params.max_tokens)
    );
    assert_eq!(h.host.permission_ask(&request("bash", "ls"), s).await, None);
    assert!(h.host.chat_message("{}", s).await.is_empty());
    let system = vec!["base".to_string()];
    assert_eq!(h.host.system_transform(system.clone(), s).await, system);
    let compacting = h.host.session_compacting(s).await;
    assert!(compacting.context.is_empty() && compacting.prompt.is_none());
    assert_eq!(h.host.command_before("deploy", "prod", s).await, "prod");

    let audit = Harness::audit_log(&p);
    let ignored: Vec<&str> = audit
        .lines()
        .filter(|l| {
            l.contains("\"plugin\":\"hook-observer\"") && l.contains("\"decision\":\"deny\"")
        })
        .collect();
    assert!(
        ignored
            .iter()
            .any(|l| l.contains("observe-only hook plugin blocked the call; ignored")),
        "{audit}"
    );
    assert!(
        ignored.iter().any(|l| l.contains("permission-ask")),
        "{audit}"
    );
}

#[tokio::test]
async fn conversation_hooks_chain_in_discovery_order() {
    let p = Project::new("hook-chat");
    let h = Harness::new(
        &p,
        &["hook-guard", "hook-observer"],
        &[("hook-guard", &["hooks"]), ("hook-observer", &["hooks"])],
        "",
    );
    let s = &h.scope;
    let got = h.host.chat_params("test/model", sampling(), s).await;
    assert_eq!(got.temperature, Some(0.25));
    assert_eq!(
        got.max_tokens,
        Some(100),
        "the observer's change is ignored"
    );
    let options: serde_json::Value = serde_json::from_str(&got.options).expect("options");
    assert_eq!(options, json!({ "seed": 7, "guarded": true }));

    // hook-guard would allow `webfetch`, but its hooks are granted `bash` and `read`
    // only: a question about another tool never reaches it.
    assert_eq!(
        h.host
            .permission_ask(&request("webfetch", "https://x.test"), s)
            .await,
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
    assert_eq!(
        h.host.permission_ask(&request("read", "a.txt"), s).await,
        None
    );

    assert_eq!(
        h.host.chat_message("{}", s).await,
        ["[hook-guard] mind the rules"]
    );
    assert_eq!(
        h.host.system_transform(vec!["base".into()], s).await,
        ["base", "hook-guard system rules"]
    );
    let compacting = h.host.session_compacting(s).await;
    assert_eq!(compacting.context, ["hook-guard context"]);
    assert_eq!(compacting.prompt, None);
    assert_eq!(
        h.host.command_before("deploy", "prod", s).await,
        "prod --dry-run"
    );
    assert_eq!(h.host.command_before("build", "all", s).await, "all");
}

#[tokio::test]
async fn a_hanging_guard_fails_closed_then_is_disabled() {
    let p = Project::new("hook-hang");
    let h = Harness::new(
        &p,
        &["hook-hostile", "bash", "noop"],
        &[
            ("hook-hostile", &["hooks"]),
            ("bash", &["exec", "fs-read", "fs-write"]),
        ],
        "",
    );
    for _ in 0..ward_plugin::MAX_STRIKES {
        let started = Instant::now();
        let err = run_tool(&h, "bash", json!({ "command": "touch ran.txt" }))
            .await
            .unwrap_err();
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "stopped near its 300 ms limit, took {:?}",
            started.elapsed()
        );
        assert!(
            err.contains("plugin `hook-hostile` exceeded its time limit of 300 ms"),
            "{err}"
        );
        assert!(err.contains("`bash` call was blocked"), "{err}");
        assert!(
            !p.path("ran.txt").exists(),
            "a failing guard let the call through"
        );
        h.assert_noop_works().await;
    }
    let reason = plugin(&h, "hook-hostile")
        .disabled_reason()
        .expect("disabled");
    assert!(reason.contains("3 consecutive failures"), "{reason}");
    // Disabled, it is skipped: the call goes through.
    run_tool(&h, "bash", json!({ "command": "touch ran.txt" }))
        .await
        .expect("runs once the guard is disabled");
    assert!(p.path("ran.txt").exists());
}

#[tokio::test]
async fn a_failing_after_hook_keeps_the_result() {
    let p = Project::new("hook-bomb");
    let h = Harness::new(
        &p,
        &["hook-hostile", "noop"],
        &[("hook-hostile", &["hooks"])],
        "",
    );
    let hostile = plugin(&h, "hook-hostile");
    let out = h.call("noop", "{}").await.expect("noop");
    // Only after-hooks here: a before-hook that works would end the run of failures.
    for _ in 0..ward_plugin::MAX_STRIKES {
        assert!(hostile.disabled_reason().is_none());
        let after = h
            .host
            .tool_execute_after("noop", "{}", out.clone(), &h.scope)
            .await;
        assert_eq!(
            (after.title.as_str(), after.output.as_str()),
            ("noop", "ok"),
            "the original result is kept"
        );
    }
    let reason = hostile.disabled_reason().expect("disabled");
    assert!(reason.contains("ran out of memory"), "{reason}");
}

#[tokio::test]
async fn ungranted_and_broken_hook_plugins() {
    // Not granted `hooks`: never called, so it blocks nothing.
    let p = Project::new("hook-ungranted");
    p.write("victim/keep.txt", "x");
    let h = Harness::new(
        &p,
        &["hook-guard", "bash"],
        &[("bash", &["exec", "fs-read", "fs-write"])],
        "",
    );
    run_tool(&h, "bash", json!({ "command": "rm -rf victim" }))
        .await
        .expect("no granted guard");
    assert!(!p.path("victim").exists());

    // Granted but unloadable: fails closed like a crash, and is disabled like one.
    let p = Project::new("hook-broken");
    let dir = p.install_test_plugin("hook-guard");
    std::fs::write(dir.join("ward_test_hook_guard.wasm"), b"\0asm garbage").expect("break it");
    let h = Harness::new(
        &p,
        &["bash"],
        &[
            ("hook-guard", &["hooks"]),
            ("bash", &["exec", "fs-read", "fs-write"]),
        ],
        "",
    );
    for _ in 0..ward_plugin::MAX_STRIKES {
        let err = run_tool(&h, "bash", json!({ "command": "touch ran.txt" }))
            .await
            .unwrap_err();
        assert!(
            err.contains("plugin `hook-guard` cannot be loaded"),
            "{err}"
        );
    }
    assert!(!p.path("ran.txt").exists());
    run_tool(&h, "bash", json!({ "command": "touch ran.txt" }))
        .await
        .expect("disabled, skipped");
    assert!(p.path("ran.txt").exists());
}

#[tokio::test]
async fn events_never_wait_for_a_slow_plugin() {
    let p = Project::new("hook-events");
    std::fs::create_dir_all(p.path("hook-log")).expect("log dir");
    let Harness { host, scope } = Harness::new(
        &p,
        &["hook-guard", "hook-hostile"],
        &[
            ("hook-guard", &["hooks", "fs-write"]),
            ("hook-hostile", &["hooks"]),
        ],
        "",
    );
    let host: Arc<PluginHost> = Arc::new(host);
    let log = p.path("hook-log/events.log");
    let payload = json!({ "log": log }).to_string();
    let started = Instant::now();
    for name in ["session.created", "session.updated", "session.idle"] {
        host.event(name, &payload, &scope);
    }
    assert!(
        started.elapsed() < Duration::from_millis(250),
        "publishing waited for the plugins: {:?}",
        started.elapsed()
    );

    let hostile = host
        .plugins()
        .iter()
        .find(|p| p.name() == "hook-hostile")
        .cloned();
    let hostile = hostile.expect("installed");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let seen = std::fs::read_to_string(&log).unwrap_or_default();
        // Count finished lines only: the plugin may be mid-write of the last one.
        if seen.matches('\n').count() == 3 && hostile.disabled_reason().is_some() {
            assert_eq!(
                seen,
                "hook-guard session.created\nhook-guard session.updated\nhook-guard session.idle\n",
                "delivered in order"
            );
            break;
        }
        assert!(
            Instant::now() < deadline,
            "events: {seen:?}, hostile: {:?}",
            hostile.disabled_reason()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let reason = hostile.disabled_reason().unwrap_or_default();
    assert!(reason.contains("time limit"), "{reason}");
}

#[test]
fn plugin_list_shows_the_hooks_a_plugin_provides() {
    let p = Project::new("hook-list");
    p.install_test_plugin("hook-guard");
    p.install_test_plugin("hook-observer");
    p.write(
        "ward.toml",
        "[plugins.hook-guard]\ngrant = [\"hooks:bash\"]\n",
    );
    let out = p.run(&["plugin", "list"], "").expect_ok();
    let block = |name: &str| {
        out.split("\n\n")
            .find(|b| b.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} listed:\n{out}"))
            .to_string()
    };
    let line = |block: &str, key: &str| {
        block
            .lines()
            .find(|l| l.trim_start().starts_with(key))
            .unwrap_or_else(|| panic!("no {key} in {block}"))
            .to_string()
    };
    let guard = block("hook-guard");
    assert!(guard.contains("(project, tool, hook)"), "{guard}");
    assert!(guard.contains("tools:     guard_status"), "{guard}");
    assert!(
        guard.contains(
            "hooks:     tool-execute-before, tool-execute-after, chat-message, chat-params, \
             permission-ask, event, system-transform, session-compacting, command-before \
             (tools: bash, read)"
        ),
        "{guard}"
    );
    assert!(
        line(&guard, "requested:").contains("hooks [bash, read] mutate"),
        "{guard}"
    );
    assert!(
        line(&guard, "granted:").contains("hooks [bash] mutate"),
        "{guard}"
    );
    assert!(guard.contains("status:    ok"), "{guard}");

    let observer = block("hook-observer");
    assert!(
        line(&observer, "requested:").contains("hooks [*] observe"),
        "{observer}"
    );
    assert!(
        line(&observer, "granted:").ends_with("nothing"),
        "{observer}"
    );
    assert!(
        observer.contains("hooks:     tool-execute-before"),
        "{observer}"
    );
}

fn sampling() -> SamplingParams {
    SamplingParams {
        temperature: Some(0.7),
        top_p: None,
        max_tokens: Some(100),
        options: json!({ "seed": 7 }).to_string(),
    }
}

fn request(permission: &str, pattern: &str) -> PermissionRequest {
    PermissionRequest {
        session_id: "ses_test".into(),
        permission: permission.into(),
        patterns: vec![pattern.into()],
        metadata: "{}".into(),
    }
}

/// The whole loop through `ward run`: the model's calls pass the guard's hooks, and
/// the conversation hooks shape what the model is sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ward_run_calls_the_hooks_around_the_loop() {
    use ward_tests::llm::{ScriptedLlm, Turn};
    let p = Project::new("hook-loop");
    p.write("victim/keep.txt", "precious");
    p.write("notes.txt", "hello\n");
    p.install_test_plugin("hook-guard");
    let llm = ScriptedLlm::start(vec![
        Turn::tool(
            "c1",
            "bash",
            json!({"command": "rm -rf victim", "description": "clean"}),
        ),
        Turn::tool("c2", "read", json!({"filePath": "notes.txt"})),
        Turn::text("done"),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    let mut config = p.read("ward.toml");
    config.push_str("[plugins.hook-guard]\ngrant = [\"hooks\", \"fs-write\"]\n");
    p.write("ward.toml", &config);

    p.run_async(&["run", "--yes", "tidy up"], "")
        .await
        .expect_ok();

    assert_eq!(p.read("victim/keep.txt"), "precious");
    let requests = llm.requests();
    assert_eq!(requests.len(), 3);
    let first = &requests[0].body;
    // chat.params, system.transform and chat.message, on every call.
    assert_eq!(first["temperature"], json!(0.25));
    assert_eq!(first["guarded"], json!(true));
    let messages = first["messages"].as_array().expect("messages");
    let system = messages[0]["content"].to_string();
    assert!(system.contains("hook-guard system rules"), "{system}");
    let user = messages[1]["content"].to_string();
    assert!(
        user.contains("tidy up") && user.contains("[hook-guard] mind the rules"),
        "{user}"
    );
    // tool.execute.before blocked the call; the model reads why.
    let tool_result = |body: &serde_json::Value, id: &str| {
        body["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
            .map(|m| m["content"].to_string())
            .unwrap_or_else(|| panic!("no result for {id}"))
    };
    let blocked = tool_result(&requests[1].body, "c1");
    assert!(
        blocked.contains("`rm -rf` is not allowed by hook-guard"),
        "{blocked}"
    );
    // tool.execute.after marked the read.
    let read = tool_result(&requests[2].body, "c2");
    assert!(
        read.contains("hello") && read.contains("[checked by hook-guard]"),
        "{read}"
    );
}

/// `permission.ask` is really called (unlike OpenCode): the guard answers some
/// questions itself, and the rest still reach the user.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permission_ask_hooks_decide_before_the_user_is_asked() {
    use ward_tests::llm::{ScriptedLlm, Turn};
    let p = Project::new("hook-ask");
    p.install_test_plugin("hook-guard");
    let llm = ScriptedLlm::start(vec![
        Turn::tool(
            "c1",
            "bash",
            json!({"command": "git push origin main", "description": "push"}),
        ),
        Turn::tool(
            "c2",
            "bash",
            json!({"command": "echo hi > asked.txt", "description": "write"}),
        ),
        Turn::text("done"),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    let mut config = p.read("ward.toml");
    config.push_str("[permission]\nbash = \"ask\"\n[plugins.hook-guard]\ngrant = [\"hooks\"]\n");
    p.write("ward.toml", &config);

    // One answer on stdin: for the question the guard leaves to the user.
    let run = p.run_async(&["run", "push and write"], "y\n").await;
    run.expect_ok();
    let stderr = run.stderr();
    assert!(!stderr.contains("git push origin main?"), "{stderr}");
    assert!(
        stderr.contains("Allow bash for echo hi > asked.txt?"),
        "{stderr}"
    );
    let questions = stderr.lines().filter(|l| l.contains("Allow bash")).count();
    assert_eq!(questions, 1, "{stderr}");
    assert_eq!(p.read("asked.txt"), "hi\n");
    let requests = llm.requests();
    let denied = requests[1].body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == "c1")
        .map(|m| m["content"].to_string())
        .expect("result of c1");
    assert!(
        denied.contains("permission.ask hook of hook-guard"),
        "{denied}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn command_before_hooks_change_a_slash_commands_arguments() {
    use ward_tests::llm::{ScriptedLlm, Turn};
    let p = Project::new("hooks-command-before");
    p.install_test_plugin("hook-guard");
    p.write(".ward/commands/deploy.md", "Deploy to $ARGUMENTS.\n");
    p.write(".ward/commands/build.md", "Build $ARGUMENTS.\n");
    let llm = ScriptedLlm::start(vec![Turn::text("deployed"), Turn::text("built")]).await;
    llm.configure(&p, "openai-compatible");
    let mut config = p.read("ward.toml");
    config.push_str("[plugins.hook-guard]\ngrant = [\"hooks\"]\n");
    p.write("ward.toml", &config);

    p.run_async(&["run", "/deploy prod"], "").await.expect_ok();
    p.run_async(&["run", "/build all"], "").await.expect_ok();
    let requests = llm.requests();
    let deploy = requests[0].body["messages"].to_string();
    assert!(deploy.contains("Deploy to prod --dry-run."), "{deploy}");
    // The guard only changes `deploy`.
    let build = requests[1].body["messages"].to_string();
    assert!(build.contains("Build all."), "{build}");
}
