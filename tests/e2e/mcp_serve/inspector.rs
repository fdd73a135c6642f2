//! The MCP inspector's CLI (`@modelcontextprotocol/inspector-cli` from npm, in
//! tests/clients/mcp-inspector) lists Ward's tools, over stdio and over HTTP, and
//! calls one.

use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use ward_tests::polyglot::repo_root;
use ward_tests::{Project, ward_binary};

use super::Served;

/// Runs the inspector's CLI with `args` in `p` and parses what it prints.
async fn inspect(p: &Project, args: &[&str]) -> Value {
    let cli = repo_root().join(
        "tests/clients/mcp-inspector/node_modules/@modelcontextprotocol/inspector-cli/build/cli.js",
    );
    assert!(
        cli.is_file(),
        "the MCP inspector is missing: run scripts/setup.sh"
    );
    // inspector-cli 1.0.3 looks for `../package.json` from the working directory
    // but imports it from its own directory (where it is): run from a directory whose
    // parent has one, inside the project (so the server it starts serves it).
    p.write("package.json", "{}\n");
    let cwd = p.path("sub");
    std::fs::create_dir_all(&cwd).unwrap();
    let mut node = tokio::process::Command::new("node");
    node.arg(cli)
        .arg("--cli")
        .args(args)
        .current_dir(&cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // The server it starts runs with the project's isolated home and data.
    for (key, value) in p.ward().get_envs() {
        match value {
            Some(value) => node.env(key, value),
            None => node.env_remove(key),
        };
    }
    let out = tokio::time::timeout(Duration::from_secs(120), node.output())
        .await
        .expect("the inspector finished within 120 s")
        .expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "inspector failed:\n{stderr}\n{stdout}"
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"))
}

fn names(listed: &Value) -> Vec<&str> {
    listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inspector_cli_lists_and_calls_the_tools() {
    let p = Project::new("mcp-inspector");
    p.install_test_plugin("noop");
    p.trust();
    let ward = ward_binary();
    let ward = ward.to_str().unwrap();
    let listed = inspect(&p, &[ward, "mcp", "serve", "--method", "tools/list"]).await;
    assert_eq!(names(&listed), ["noop"], "{listed}");
    assert_eq!(listed["tools"][0]["inputSchema"]["type"], "object");
    let called = inspect(
        &p,
        &[
            ward,
            "mcp",
            "serve",
            "--method",
            "tools/call",
            "--tool-name",
            "noop",
        ],
    )
    .await;
    assert_eq!(called["content"][0]["text"], "ok", "{called}");
    assert_eq!(called["structuredContent"]["output"], "ok", "{called}");

    let served = Served::start(&p, &["--standard-tools"], &[]).await;
    let listed = inspect(
        &p,
        &[&served.url, "--transport", "http", "--method", "tools/list"],
    )
    .await;
    let names = names(&listed);
    assert!(
        names.contains(&"noop") && names.contains(&"read"),
        "{names:?}"
    );
}
