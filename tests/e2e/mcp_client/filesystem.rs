//! `@modelcontextprotocol/server-filesystem` through the loop with the scripted LLM:
//! it writes and reads files of the project; a permission rule denies one of its
//! tools (the model is told, the loop goes on); and a server killed in the middle of
//! a call is an error for the model, not the end of the session.

use std::time::{Duration, Instant};

use serde_json::json;
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn, tool_names};

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_uses_server_filesystem_and_a_rule_denies_one_tool() {
    let p = Project::new("mcp-filesystem");
    p.write("notes.txt", "first line\n");
    let llm = ScriptedLlm::start(vec![
        Turn::tool(
            "c1",
            "fs_read_text_file",
            json!({"path": p.path("notes.txt")}),
        ),
        Turn::tool(
            "c2",
            "fs_write_file",
            json!({"path": p.path("out.txt"), "content": "written by mcp\n"}),
        ),
        Turn::tool(
            "c3",
            "fs_move_file",
            json!({"source": p.path("notes.txt"), "destination": p.path("moved.txt")}),
        ),
        Turn::text("finished"),
    ])
    .await;
    serve_the_project(&p, &llm, "fs_move_file = \"deny\"");
    let out = p
        .run_async(&["run", "--yes", "files"], "")
        .await
        .expect_ok();
    assert!(
        out.contains("finished"),
        "the loop went on to the end: {out}"
    );
    let requests = llm.requests();
    let offered = tool_names(&requests[0].body);
    assert!(offered.iter().any(|t| t == "fs_write_file"), "{offered:?}");
    assert!(
        !offered.iter().any(|t| t == "fs_move_file"),
        "a tool the rules deny outright is not offered: {offered:?}"
    );
    assert!(tool_result(&requests, "c1").contains("first line"));
    assert_eq!(p.read("out.txt"), "written by mcp\n");
    let denied = tool_result(&requests, "c3");
    assert!(denied.contains("fs_move_file"), "{denied}");
    assert!(p.path("notes.txt").exists() && !p.path("moved.txt").exists());

    // `"fs_*" = "ask"` covers every tool of the server; without --yes and no one to
    // answer, the call is refused, and the rule that decided is explained.
    let explain = p
        .run(&["permission", "explain", "fs_move_file", "*"], "")
        .expect_ok();
    assert!(explain.contains("deny"), "{explain}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wildcard_ask_rule_covers_every_tool_of_a_server() {
    let p = Project::new("mcp-filesystem-ask");
    let llm = ScriptedLlm::start(vec![
        Turn::tool("c1", "fs_list_allowed_directories", json!({})),
        Turn::text("asked"),
    ])
    .await;
    serve_the_project(&p, &llm, "\"fs_*\" = \"ask\"");
    let run = p
        .run_async(&["run", "--format", "json", "list"], "n\n")
        .await;
    let out = format!("{}{}", run.stdout(), run.stderr());
    no_panic(&out);
    assert!(
        out.contains("permission.asked") && out.contains("fs_list_allowed_directories"),
        "the rule asked about the MCP tool: {out}"
    );
    let explain = p
        .run(&["permission", "explain", "fs_write_file", "*"], "")
        .expect_ok();
    assert!(
        explain.contains("fs_*") && explain.contains("ask"),
        "{explain}"
    );
}

/// The pid of the process whose command line holds `needle`, once there is one.
fn wait_for_process(needle: &str) -> u32 {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if (cmdline.starts_with("node ") || cmdline.contains("/node "))
                && cmdline.contains(needle)
            {
                return pid;
            }
        }
        assert!(Instant::now() < until, "no process runs {needle}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_mid_call_is_an_error_for_the_model() {
    let p = Project::new("mcp-killed");
    let llm = ScriptedLlm::start(vec![
        Turn::tool(
            "c1",
            "everything_trigger-long-running-operation",
            json!({"duration": 20, "steps": 20}),
        ),
        Turn::tool("c2", "read", json!({"filePath": "alive.txt"})),
        Turn::text("survived"),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    p.write("alive.txt", "still here\n");
    let server = npm_server("server-everything");
    // The project path as an extra argument (ignored by the server) tells this test's
    // server apart from any other test's.
    let marker = p.root.display().to_string();
    append_config(&p, &local("everything", &[&server, "stdio", &marker], ""));
    let run = tokio::spawn({
        let p = Project::clone_handle(&p);
        async move { p.run_async(&["run", "--yes", "long"], "").await }
    });
    let pid = tokio::task::spawn_blocking(move || wait_for_process(&marker))
        .await
        .unwrap();
    // Once the model has asked for the call, the server is working on it.
    let until = Instant::now() + Duration::from_secs(30);
    while llm.requests().is_empty() {
        assert!(Instant::now() < until, "the model was never asked");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let killed = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let run = run.await.unwrap();
    let out = format!("{}{}", run.stdout(), run.stderr());
    no_panic(&out);
    assert!(run.ok(), "the session survived: {out}");
    assert!(out.contains("survived"), "{out}");
    let requests = llm.requests();
    let error = tool_result(&requests, "c1");
    assert!(
        error.contains("everything") && error.contains("killed (signal 9)"),
        "the model is told what happened: {error}"
    );
    assert!(tool_result(&requests, "c2").contains("still here"));
}

/// The scripted model and `server-filesystem` serving the project as `fs`, under the
/// permission rule `rule`.
fn serve_the_project(p: &Project, llm: &ScriptedLlm, rule: &str) {
    llm.configure(p, "openai-compatible");
    let server = npm_server("server-filesystem");
    append_config(
        p,
        &format!(
            "[permission]\n{rule}\n{}",
            local("fs", &[&server, p.root.to_str().unwrap()], "")
        ),
    );
}
