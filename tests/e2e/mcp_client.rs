//! Ward as an MCP client, end to end: real servers from npm (installed ahead by
//! `scripts/setup.sh` from `tests/clients/mcp-servers`, run with `node` — npx would
//! download them at run time), a small hand-rolled probe server for what they cannot
//! show, the real `ward` binary and the scripted LLM server.

mod bad_input;
mod confinement;
mod everything;
mod filesystem;
mod images;

use std::path::PathBuf;

use serde_json::Value;
use ward_tests::Project;
use ward_tests::llm::Recorded;

/// `tests/clients/mcp-servers/node_modules/@modelcontextprotocol/NAME/dist/index.js`.
fn npm_server(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("clients/mcp-servers/node_modules/@modelcontextprotocol")
        .join(name)
        .join("dist/index.js");
    assert!(
        path.is_file(),
        "{} is missing: run scripts/setup.sh",
        path.display()
    );
    path.display().to_string()
}

/// A file beside this module (the probe server, the loopback preload).
fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("e2e/mcp_client")
        .join(name)
        .display()
        .to_string()
}

/// A `[mcp.NAME]` table for a local server running `node ARGS…`, plus `extra` lines.
fn local(name: &str, args: &[&str], extra: &str) -> String {
    let mut command = vec!["\"node\"".to_string()];
    command.extend(args.iter().map(|a| format!("{a:?}")));
    format!(
        "\n[mcp.{name}]\ntype = \"local\"\ncommand = [{}]\ntimeout = 30000\n{extra}\n",
        command.join(", ")
    )
}

/// Appends `text` to the project's `ward.toml`.
fn append_config(p: &Project, text: &str) {
    let mut current = std::fs::read_to_string(p.path("ward.toml")).unwrap_or_default();
    current.push_str(text);
    p.write("ward.toml", &current);
}

/// `ward tool call --yes NAME ARGS`: (succeeded, stdout + stderr).
fn tool_call(p: &Project, name: &str, args: Value) -> (bool, String) {
    let run = p.run(&["tool", "call", "--yes", name, &args.to_string()], "");
    (run.ok(), format!("{}{}", run.stdout(), run.stderr()))
}

/// What the model was told about call `id`, in the requests it was sent (Chat
/// Completions `tool` messages).
fn tool_result(requests: &[Recorded], id: &str) -> String {
    for r in requests.iter().rev() {
        for m in r.body["messages"].as_array().into_iter().flatten() {
            if m["role"] == "tool" && m["tool_call_id"] == id {
                return match &m["content"] {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
            }
        }
    }
    panic!("no result for call {id} was sent to the model");
}

/// Asserts a `ward` output holds no panic.
fn no_panic(out: &str) {
    assert!(
        !out.contains("panicked") && !out.contains("RUST_BACKTRACE"),
        "ward panicked: {out}"
    );
}
