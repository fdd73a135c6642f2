//! The official MCP Python SDK lists and calls Ward's tools: over stdio on the
//! 2026-07-28 protocol and the handshake-era one, over streamable HTTP; a rule that
//! asks becomes an elicitation (accepted, declined, "always"), or is refused for a
//! client without the capability; installing and removing a plugin is announced.

use serde_json::json;
use ward_tests::{Project, test_plugin};

use super::{Served, drive, names, stdio, text};

/// A project with the `noop` test plugin installed.
fn noop_project(name: &str) -> Project {
    let p = Project::new(name);
    p.install_test_plugin("noop");
    p
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_lists_and_calls_a_plugin_tool_over_stdio() {
    let p = noop_project("mcp-stdio");
    for mode in ["auto", "legacy"] {
        let record = drive(json!({
            "stdio": stdio(&p, &[]),
            "mode": mode,
            "steps": [
                {"op": "list"},
                {"op": "call", "name": "noop", "args": {}},
                {"op": "call", "name": "read", "args": {"filePath": "ward.toml"}},
            ],
        }))
        .await;
        assert_eq!(record["server"], "ward", "{mode}: {record}");
        if mode == "legacy" {
            assert_eq!(record["protocol"], "2025-11-25", "{record}");
        } else {
            assert_eq!(record["protocol"], "2026-07-28", "{record}");
        }
        let results = record["results"].as_array().unwrap();
        // Only the installed plugin's tools: the standard ones need --standard-tools.
        assert_eq!(names(&results[0]), ["noop"], "{mode}: {record}");
        let tool = &results[0]["tools"][0];
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert_eq!(tool["title"], "noop", "{tool}");
        assert_eq!(tool["description"], "Does nothing.", "{tool}");
        assert_eq!(tool["outputSchema"]["type"], "object", "{tool}");
        let call = &results[1];
        assert_eq!(call["isError"], false, "{call}");
        assert_eq!(text(call), "ok", "{call}");
        assert_eq!(call["structuredContent"]["output"], "ok", "{call}");
        assert_eq!(call["structuredContent"]["title"], "noop", "{call}");
        // A tool that is not served is not reachable by its name either.
        let refused = results[2]["protocol_error"].as_str().expect("refused");
        assert!(refused.contains("unknown tool `read`"), "{refused}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn standard_tools_are_served_on_request_with_their_read_only_hint() {
    let p = noop_project("mcp-standard");
    p.write("hello.txt", "hello from the project\n");
    let record = drive(json!({
        "stdio": stdio(&p, &["--standard-tools"]),
        "steps": [
            {"op": "list"},
            {"op": "call", "name": "read", "args": {"filePath": "hello.txt"}},
        ],
    }))
    .await;
    let results = record["results"].as_array().unwrap();
    let listed = names(&results[0]);
    for tool in ["noop", "read", "grep", "bash", "write"] {
        assert!(listed.iter().any(|n| n == tool), "{tool}: {listed:?}");
    }
    let read = results[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "read")
        .unwrap();
    assert_eq!(read["annotations"]["readOnlyHint"], true, "{read}");
    let write = results[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "write")
        .unwrap();
    assert_eq!(write["annotations"]["readOnlyHint"], false, "{write}");
    assert!(
        text(&results[1]).contains("hello from the project"),
        "{record}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_lists_and_calls_a_plugin_tool_over_streamable_http() {
    let p = noop_project("mcp-http");
    let mut served = Served::start(&p, &[], &[]).await;
    for mode in ["auto", "legacy"] {
        let record = drive(json!({
            "url": served.url,
            "mode": mode,
            "steps": [
                {"op": "list"},
                {"op": "call", "name": "noop", "args": {}},
                {"op": "call", "name": "bash", "args": {"command": "id"}},
            ],
        }))
        .await;
        let results = record["results"].as_array().unwrap();
        assert_eq!(names(&results[0]), ["noop"], "{mode}: {record}");
        assert_eq!(text(&results[1]), "ok", "{mode}: {record}");
        assert_eq!(results[1]["structuredContent"]["output"], "ok");
        let refused = results[2]["protocol_error"].as_str().expect("refused");
        assert!(refused.contains("unknown tool `bash`"), "{refused}");
    }
    assert!(served.alive());
}

/// The record of calling `noop` under `noop = "ask"`, the client answering `elicit`
/// (`None`: without the elicitation capability) on protocol `mode`.
async fn ask_noop(
    name: &str,
    elicit: Option<&str>,
    mode: &str,
    extra: &[&str],
) -> serde_json::Value {
    let p = noop_project(name);
    p.write("ward.toml", "[permission]\nnoop = \"ask\"\n");
    drive(json!({
        "stdio": stdio(&p, extra),
        "mode": mode,
        "elicit": elicit,
        "steps": [
            {"op": "call", "name": "noop", "args": {}},
            {"op": "call", "name": "noop", "args": {}},
        ],
    }))
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ask_becomes_an_elicitation_the_client_accepts_or_declines() {
    for mode in ["auto", "legacy"] {
        let record = ask_noop("mcp-ask-yes", Some("accept"), mode, &[]).await;
        let results = record["results"].as_array().unwrap();
        assert_eq!(text(&results[0]), "ok", "{mode}: {record}");
        // "Once": the second call asks again.
        assert_eq!(text(&results[1]), "ok", "{mode}: {record}");
        let asked = record["elicitations"].as_array().unwrap();
        assert_eq!(asked.len(), 2, "{mode}: {record}");
        assert!(asked[0].as_str().unwrap().contains("noop"), "{record}");

        let record = ask_noop("mcp-ask-no", Some("decline"), mode, &[]).await;
        let results = record["results"].as_array().unwrap();
        assert_eq!(results[0]["isError"], true, "{mode}: {record}");
        assert!(
            text(&results[0]).contains("rejected") || text(&results[0]).contains("refused"),
            "{record}"
        );
        assert_eq!(record["elicitations"].as_array().unwrap().len(), 2);

        // "Always" is remembered: the second call is not asked about.
        let record = ask_noop("mcp-ask-always", Some("always"), mode, &[]).await;
        let results = record["results"].as_array().unwrap();
        assert_eq!(text(&results[0]), "ok", "{mode}: {record}");
        assert_eq!(text(&results[1]), "ok", "{mode}: {record}");
        assert_eq!(
            record["elicitations"].as_array().unwrap().len(),
            1,
            "{record}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_elicitation_an_ask_is_denied_unless_configured_otherwise() {
    for mode in ["auto", "legacy"] {
        let record = ask_noop("mcp-ask-none", None, mode, &[]).await;
        let results = record["results"].as_array().unwrap();
        assert_eq!(results[0]["isError"], true, "{mode}: {record}");
        assert!(
            text(&results[0]).contains("no elicitation capability"),
            "{record}"
        );
        let record = ask_noop("mcp-ask-allow", None, mode, &["--ask", "allow"]).await;
        let results = record["results"].as_array().unwrap();
        assert_eq!(text(&results[0]), "ok", "{mode}: {record}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn installing_or_removing_a_plugin_is_announced() {
    let (_, dir, wasm) = test_plugin("hostile");
    let staged = Project::new("mcp-staged");
    let source = staged.path("hostile");
    std::fs::create_dir_all(&source).unwrap();
    std::fs::copy(
        std::path::Path::new(dir).join("plugin.toml"),
        source.join("plugin.toml"),
    )
    .unwrap();
    let file = std::path::Path::new(wasm).file_name().unwrap();
    std::fs::copy(wasm, source.join(file)).unwrap();
    for (mode, listen) in [("legacy", false), ("auto", true)] {
        let p = noop_project("mcp-changed");
        // Into the user's own plugin directory: one dropped into the project's would
        // change what the trusted project asks for, and restrict it (security::trust).
        let user_plugins = p.home.join(".config/ward/plugins");
        std::fs::create_dir_all(&user_plugins).unwrap();
        let installed = user_plugins.join("hostile");
        let record = drive(json!({
            "stdio": stdio(&p, &[]),
            "mode": mode,
            "listen": listen,
            "steps": [
                {"op": "list"},
                {"op": "install", "from": source, "to": installed},
                {"op": "await_list_changed", "timeout": 60},
                {"op": "list"},
                {"op": "call", "name": "hostile_noop", "args": {}},
                {"op": "remove", "path": installed},
                {"op": "await_list_changed", "timeout": 60},
                {"op": "list"},
            ],
        }))
        .await;
        let results = record["results"].as_array().unwrap();
        assert_eq!(names(&results[0]), ["noop"], "{mode}: {record}");
        assert_eq!(results[2]["changed"], true, "{mode}: {record}");
        let after = names(&results[3]);
        assert!(after.iter().any(|n| n == "hostile_noop"), "{after:?}");
        assert!(after.iter().any(|n| n == "noop"), "{after:?}");
        assert_eq!(results[4]["isError"], false, "{mode}: {record}");
        assert_eq!(results[6]["changed"], true, "{mode}: {record}");
        assert_eq!(names(&results[7]), ["noop"], "{mode}: {record}");
    }
}

/// A repository never trusted is served restricted: its own plugin is not offered and
/// its `[mcp]` server never starts; trusted, the plugin is served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_project_is_served_restricted() {
    let p = Project::stranger("mcp-untrusted");
    p.install_test_plugin("noop");
    p.write(
        "ward.toml",
        "[mcp.evil]\ntype = \"local\"\ncommand = [\"sh\", \"-c\", \"touch ran-evil\"]\n",
    );
    let plan = || json!({"stdio": stdio(&p, &[]), "mode": "auto", "steps": [{"op": "list"}]});
    let record = drive(plan()).await;
    let listed = names(&record["results"][0]);
    assert!(!listed.iter().any(|n| n == "noop"), "{record}");
    assert!(
        !p.path("ran-evil").exists(),
        "the repository's MCP server ran"
    );
    p.run(&["trust", "--yes"], "").expect_ok();
    let record = drive(plan()).await;
    assert!(
        names(&record["results"][0]).iter().any(|n| n == "noop"),
        "{record}"
    );
}
