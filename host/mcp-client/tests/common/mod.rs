//! What the real-server tests share: a runner for a test binary that is its own
//! sandbox helper, the launcher, small MCP servers written out as scripts, and calls.

#![allow(dead_code, reason = "each test binary uses part of it")]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use ward_config::{McpConfig, McpServer};
use ward_mcp_client::{McpClients, McpContext};
use ward_sandbox::Launcher;
use ward_session::ToolSource;

/// A small MCP server over stdio in Python (no SDK: nothing to install).
/// `server.py LABEL TOOL,TOOL… [ANY…]`: it offers the tools named, each answering
/// `LABEL:TOOL`, but `read` (a file's text, or `error: …`), `flood` (`n`
/// `notifications/tools/list_changed`, after which it also offers `after`) and
/// `count` (how many times its tools were listed). A `LABEL` starting with `early`
/// announces a change before it answers `initialize` (which nothing can act on yet).
/// Further arguments are ignored.
pub const SERVER_PY: &str = r#"
import json, sys
label = sys.argv[1]
names = [n for n in sys.argv[2].split(",") if n] if len(sys.argv) > 2 else []
listed = 0
after = False
out = sys.stdout.buffer
def send(obj):
    out.write(json.dumps(obj).encode() + b"\n")
    out.flush()
def tools():
    schema = {"type": "object", "properties": {"path": {"type": "string"}, "n": {"type": "integer"}}}
    return [{"name": n, "description": n, "inputSchema": schema} for n in names + (["after"] if after else [])]
for line in sys.stdin.buffer:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    mid, method = msg.get("id"), msg.get("method")
    if mid is None:
        continue
    if method == "initialize":
        if label.startswith("early"):
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": label, "version": "1"}}})
    elif method == "tools/list":
        listed += 1
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": tools()}})
    elif method == "tools/call":
        name = msg["params"]["name"]
        args = msg["params"].get("arguments") or {}
        if name == "read":
            try:
                with open(args["path"]) as f:
                    text = f.read()
            except Exception as e:
                text = "error: %s" % e
        elif name == "flood":
            n = int(args.get("n", 0))
            after = True
            note = b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n'
            chunk = note * 10000
            for _ in range(n // 10000):
                out.write(chunk)
            out.write(note * (n % 10000))
            out.flush()
            text = "flooded %d" % n
        elif name == "count":
            text = str(listed)
        else:
            text = "%s:%s" % (label, name)
        send({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": text}]}})
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no such method"}})
"#;

/// Runs `tests` (name, body) one after another, unless this process was started as the
/// sandbox helper; exits with the number that failed.
pub fn run(tests: &[(&str, fn())]) {
    if let Some(status) = ward_sandbox::dispatch() {
        std::process::exit(status);
    }
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let mut failed = 0;
    for (name, test) in tests {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        let started = std::time::Instant::now();
        let ok = std::panic::catch_unwind(test).is_ok();
        println!(
            "test {name} ... {} ({} ms)",
            if ok { "ok" } else { "FAILED" },
            started.elapsed().as_millis()
        );
        failed += usize::from(!ok);
    }
    println!("{} failed", failed);
    std::process::exit(i32::try_from(failed).unwrap_or(1));
}

/// A launcher whose sandbox helper is this test binary.
pub fn launcher() -> Arc<Launcher> {
    Arc::new(Launcher::new(std::env::current_exe().unwrap()))
}

/// The Python interpreter `python3` really is (not a version manager's shim, which
/// would need the manager's own files to run).
pub fn python() -> PathBuf {
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 runs");
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

/// Where `name` is found on this process's `PATH`.
pub fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|c| c.is_file())
        .and_then(|c| std::fs::canonicalize(c).ok())
}

/// A local server running `command`, with no grant.
pub fn local(command: &[&str]) -> McpConfig {
    McpConfig {
        enabled: true,
        timeout: Some(20_000),
        server: McpServer::Local {
            command: command.iter().map(|s| s.to_string()).collect(),
            environment: BTreeMap::new(),
            grant: Vec::new(),
        },
    }
}

/// The servers `configs` describes, for `project`, launched confined.
pub fn clients(project: &Path, configs: &[(&str, McpConfig)]) -> Arc<McpClients> {
    let configs: BTreeMap<String, McpConfig> = configs
        .iter()
        .map(|(n, c)| (n.to_string(), c.clone()))
        .collect();
    McpClients::new(
        &configs,
        McpContext::new(project.to_path_buf(), Vec::new(), Some(launcher())),
    )
}

/// The names of the tools on offer.
pub fn names(clients: &McpClients) -> Vec<String> {
    let mut names: Vec<String> = clients
        .tools()
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    names.sort();
    names
}

/// Calls the tool offered as `name`: its text, or the error's.
pub async fn call(clients: &McpClients, project: &Path, name: &str, args: Value) -> String {
    let tool = clients
        .tools()
        .into_iter()
        .find(|t| t.name() == name)
        .unwrap_or_else(|| panic!("no tool `{name}` among {:?}", names(clients)));
    let scope = ward_plugin::CallScope::detached(project);
    match tool.run(args, &scope).await {
        Ok(done) => done.output,
        Err(e) => format!("call failed: {e}"),
    }
}

/// A small MCP server over stdio in Node, as an npm package's `bin` script run by
/// `#!INTERPRETER` (the line given): it loads the package `dep` it depends on and offers
/// `dep` (what `dep` exports) and `read` (a file's text, or `error: CODE`).
pub fn server_js(shebang: &str) -> String {
    format!(
        "{shebang}\n{}",
        r#"const dep = require("dep");
const fs = require("fs");
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const schema = { type: "object", properties: { path: { type: "string" } } };
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  if (msg.id === undefined) return;
  if (msg.method === "initialize") {
    send({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: msg.params.protocolVersion,
      capabilities: { tools: {} }, serverInfo: { name: "srv", version: "1" } } });
  } else if (msg.method === "tools/list") {
    send({ jsonrpc: "2.0", id: msg.id, result: { tools: [
      { name: "read", inputSchema: schema }, { name: "dep", inputSchema: schema }] } });
  } else if (msg.method === "tools/call") {
    let text;
    if (msg.params.name === "dep") text = dep.word;
    else {
      try { text = fs.readFileSync(msg.params.arguments.path, "utf8"); }
      catch (e) { text = "error: " + e.code; }
    }
    send({ jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text }] } });
  } else {
    send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "no such method" } });
  }
});
"#
    )
}

/// The `#!` line that runs Node: through `env` when `node` is in a directory every
/// confined server's `PATH` has, else by its path.
pub fn node_shebang() -> Option<String> {
    let node = on_path("node")?;
    let system = ["/usr/local/bin", "/usr/bin", "/bin"];
    Some(
        if system.iter().any(|d| node.parent() == Some(Path::new(d))) {
            "#!/usr/bin/env node".to_string()
        } else {
            format!("#!{}", node.display())
        },
    )
}

/// A runtime for one test.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Writes `text` to `path` (its directories made), executable when it starts with `#!`.
pub fn write(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    if text.starts_with("#!") {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}
