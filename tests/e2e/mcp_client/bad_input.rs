//! What goes wrong, contained and reported: a malformed `[mcp]` entry (located), a
//! server that prints what is not JSON-RPC, sends an oversized message, declares tool
//! schemas that are not objects, never answers, fails to start or hangs; a call that
//! outlives its timeout is cancelled. Nothing panics, and the session goes on.

use serde_json::json;
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn};

use super::*;

#[test]
fn a_malformed_entry_is_a_located_config_error() {
    let p = Project::new("mcp-bad-config");
    p.write(
        "ward.toml",
        "model = \"a/b\"\n\n[mcp.broken]\ntype = \"local\"\nenvironment = { A = \"1\" }\n",
    );
    let err = p.run(&["tool", "list"], "").expect_err();
    assert!(err.contains("ward.toml:3:1"), "{err}");
    assert!(err.contains("needs `command`"), "{err}");
    p.write(
        "ward.toml",
        "[mcp.x]\ntype = \"local\"\ncommand = [\"node\"]\ntimeout = -5\n",
    );
    let err = p.run(&["mcp", "list"], "").expect_err();
    assert!(err.contains("ward.toml:4:11"), "{err}");
}

#[test]
fn a_hostile_server_is_contained_and_reported() {
    let p = Project::new("mcp-hostile");
    let probe = fixture("probe_server.mjs");
    append_config(
        &p,
        &format!(
            "{}{}",
            local("noisy", &[&probe, "garbage"], ""),
            local("bad", &[&probe, "badschema"], ""),
        ),
    );
    // Lines that are not JSON-RPC are skipped and reported; the server still works.
    let (ok, out) = tool_call(&p, "noisy_add_tool", json!({}));
    assert!(ok, "{out}");
    let status = p.run(&["mcp", "list"], "").expect_ok();
    assert!(status.contains("noisy  connected"), "{status}");
    assert!(
        status.contains("not a JSON-RPC message") && status.contains("this is not json"),
        "{status}"
    );
    // Tools whose schema is not an object are left out, each reported; the rest stay.
    assert!(status.contains("bad  connected"), "{status}");
    assert!(status.contains("`string_schema` was left out"), "{status}");
    assert!(status.contains("`typed_string` was left out"), "{status}");
    let list = p.run(&["tool", "list"], "").expect_ok();
    assert!(
        list.contains("bad_read_file") && !list.contains("bad_string_schema"),
        "{list}"
    );

    // A 9 MiB message ends the connection; the call fails saying why.
    let (ok, out) = tool_call(&p, "noisy_huge", json!({}));
    no_panic(&out);
    assert!(!ok && out.contains("more than 8 MiB"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_past_its_timeout_is_cancelled_and_the_loop_goes_on() {
    let p = Project::new("mcp-timeout");
    let marker = p.path("cancelled.txt");
    let llm = ScriptedLlm::start(vec![
        Turn::tool("c1", "slow_sleep", json!({"ms": 60000, "marker": marker})),
        Turn::tool("c2", "slow_garbage_reply", json!({})),
        Turn::text("moved on"),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    append_config(
        &p,
        "\n[mcp.slow]\ntype = \"local\"\ncommand = [\"node\", \"PROBE\"]\ntimeout = 3000\n"
            .replace("PROBE", &fixture("probe_server.mjs"))
            .as_str(),
    );
    let run = p.run_async(&["run", "--yes", "wait"], "").await;
    let out = format!("{}{}", run.stdout(), run.stderr());
    no_panic(&out);
    assert!(run.ok() && out.contains("moved on"), "{out}");
    let requests = llm.requests();
    let first = tool_result(&requests, "c1");
    assert!(
        first.contains("did not answer `sleep` within 3000 ms"),
        "{first}"
    );
    let second = tool_result(&requests, "c2");
    assert!(second.contains("within 3000 ms"), "{second}");
    // The server was told: `notifications/cancelled` for the first call's request.
    assert!(
        std::fs::read_to_string(&marker).is_ok_and(|m| m.starts_with("cancelled")),
        "the server received notifications/cancelled"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_that_fail_or_hang_are_reported_and_the_session_runs() {
    let p = Project::new("mcp-failing");
    p.write("a.txt", "readable\n");
    let llm = ScriptedLlm::start(vec![
        Turn::tool("c1", "read", json!({"filePath": "a.txt"})),
        Turn::tool("c2", "missing_anything", json!({})),
        Turn::text("ran anyway"),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    append_config(
        &p,
        "\n[mcp.missing]\ntype = \"local\"\ncommand = [\"node\", \"does-not-exist.mjs\"]\ntimeout = 20000\n\
         \n[mcp.hangs]\ntype = \"local\"\ncommand = [\"node\", \"-e\", \"setInterval(() => {}, 1000)\"]\ntimeout = 1500\n\
         \n[mcp.off]\ntype = \"local\"\ncommand = [\"node\", \"nothing.mjs\"]\nenabled = false\n",
    );
    let run = p.run_async(&["run", "--yes", "go"], "").await;
    let out = format!("{}{}", run.stdout(), run.stderr());
    no_panic(&out);
    assert!(run.ok() && out.contains("ran anyway"), "{out}");
    let requests = llm.requests();
    assert!(tool_result(&requests, "c1").contains("readable"));
    assert!(tool_result(&requests, "c2").contains("missing_anything"));
    assert!(
        run.stderr().contains("warning: MCP server `missing`")
            && run.stderr().contains("exited with status 1")
            && run
                .stderr()
                .contains("warning: MCP server `hangs` did not answer"),
        "the run reports the servers that failed: {}",
        run.stderr()
    );

    let status = p.run(&["mcp", "list"], "").expect_ok();
    assert!(
        status.contains("missing  failed:") && status.contains("exited with status 1"),
        "{status}"
    );
    assert!(
        status.contains("does-not-exist.mjs"),
        "stderr says why: {status}"
    );
    assert!(
        status.contains("hangs  failed:") && status.contains("within 1500 ms"),
        "{status}"
    );
    assert!(status.contains("off  disabled"), "{status}");
}

#[test]
fn mcp_add_and_remove_edit_the_project_file() {
    let p = Project::new("mcp-add-remove");
    p.write("ward.toml", "# my settings\nmodel = \"a/b\"\n");
    let probe = fixture("probe_server.mjs");
    p.run(
        &[
            "mcp", "add", "probe", "--env", "A=1", "--grant", "net", "--", "node", &probe,
        ],
        "",
    )
    .expect_ok();
    let text = p.read("ward.toml");
    assert!(
        text.starts_with("# my settings\nmodel = \"a/b\"\n"),
        "{text}"
    );
    assert!(text.contains("[mcp.probe]"), "{text}");
    let list = p.run(&["tool", "list"], "").expect_ok();
    assert!(list.contains("probe_read_file"), "{list}");
    p.run(
        &["mcp", "add", "web", "--url", "http://127.0.0.1:9/mcp"],
        "",
    )
    .expect_ok();
    let err = p
        .run(&["mcp", "add", "web", "--url", "http://x/mcp"], "")
        .expect_err();
    assert!(err.contains("already has"), "{err}");
    p.run(&["mcp", "remove", "probe"], "").expect_ok();
    let text = p.read("ward.toml");
    assert!(
        !text.contains("probe") && text.contains("[mcp.web]"),
        "{text}"
    );
    assert!(
        text.starts_with("# my settings\nmodel = \"a/b\"\n"),
        "{text}"
    );
}
