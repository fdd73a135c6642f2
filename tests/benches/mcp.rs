//! What the MCP layer adds to a tool call, measured in one sitting.
//!
//! The same no-op plugin tool is called three ways, in rounds that alternate them so
//! every figure sees the same machine (on this kind of virtual machine one minute can
//! run the same code three times slower than the next):
//!
//! - **direct**: `ToolBox::execute` on the tool box of the very project `ward mcp
//!   serve` opens ([`Project::open`] with the server's options), on a current-thread
//!   runtime as the server's;
//! - **over stdio**: this build's `ward mcp serve` (`target/release/ward`: `cargo build
//!   --release -p ward` first), raw JSON-RPC lines written and read on blocking pipes by
//!   this process, on both protocol eras (2026-07-28's per-request metadata; 2025-11-25's
//!   handshake);
//! - **the floor**: `cat` echoing the same request lines through the same client code:
//!   pipes, client and wake-ups with no server work.
//!
//! Each call is timed alone; p50 and p99 per round and over all rounds, and the p50 the
//! MCP layer adds (over stdio minus direct).
//!
//! ```text
//! cargo build --release -p ward && cargo bench -p ward-tests --bench mcp [-- CALLS ROUNDS]
//! ```

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use ward_engine::EngineOptions;
use ward_mcp_server::ServeOptions;
use ward_mcp_server::project::Project as Served;
use ward_tests::Project;

/// The two protocol eras a server is measured on.
const ERAS: [&str; 2] = ["2026-07-28", "2025-11-25"];

fn main() {
    // `cargo bench` passes `--bench`; the figures are positional.
    let numbers: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let calls = numbers.first().copied().unwrap_or(2000);
    let rounds = numbers.get(1).copied().unwrap_or(5);

    let project = Project::new("bench-mcp");
    project.install_test_plugin("noop");
    // The engine in this process sees what the servers' do (`Project::ward`): the
    // shared component cache, no user configuration.
    // SAFETY: no other thread exists yet (the runtime is built below).
    unsafe {
        std::env::set_var("WARD_CACHE_DIR", &project.cache);
        std::env::set_var("HOME", &project.home);
        std::env::set_var("XDG_CONFIG_HOME", project.home.join(".config"));
        std::env::remove_var("WARD_CONFIG");
        std::env::remove_var("WARD_CONFIG_CONTENT");
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let served = runtime.block_on(open(&project));
    // The first call compiles the plugin into the shared cache; the servers started
    // below load it from there, as every start after a plugin's first does.
    runtime.block_on(direct_call(&served));

    let mut servers: Vec<(&str, Client)> = ERAS
        .iter()
        .map(|era| (*era, Client::server(&project, era)))
        .collect();
    let mut floor = Client::cat();
    // Warm-up: every path a tenth of a round, and the server's background work settled.
    for _ in 0..calls / 10 {
        runtime.block_on(direct_call(&served));
        for (_, server) in &mut servers {
            server.call();
        }
        floor.call();
    }
    std::thread::sleep(Duration::from_secs(2));

    let mut all: Vec<(String, Vec<Duration>)> = Vec::new();
    let mut series = |name: &str, times: Vec<Duration>| {
        let (p50, p99) = p50_p99(&times);
        print!(" | {name} {p50:.1} / {p99:.1}");
        match all.iter_mut().find(|(n, _)| n == name) {
            Some((_, kept)) => kept.extend(times),
            None => all.push((name.to_string(), times)),
        }
    };
    println!("p50 / p99 in µs of {calls} calls each, {rounds} rounds");
    for round in 1..=rounds {
        print!("round {round}");
        let times = (0..calls)
            .map(|_| runtime.block_on(direct_call(&served)))
            .collect();
        series("direct", times);
        for (era, server) in &mut servers {
            let times = (0..calls).map(|_| server.call()).collect();
            series(&format!("stdio {era}"), times);
        }
        let times = (0..calls).map(|_| floor.call()).collect();
        series("cat", times);
        println!();
    }

    let direct = all
        .iter()
        .find(|(n, _)| n == "direct")
        .map(|(_, t)| p50_p99(t).0)
        .unwrap_or_default();
    println!("all rounds:");
    for (name, times) in &all {
        let (p50, p99) = p50_p99(times);
        let added = if name.starts_with("stdio") {
            format!(", added by the MCP layer {:.1} µs p50", p50 - direct)
        } else {
            String::new()
        };
        println!("  {name}: p50 {p50:.1} µs, p99 {p99:.1} µs{added}");
    }
    for (_, server) in servers {
        server.close();
    }
    floor.close();
}

/// The project as `ward mcp serve` opens it, in this process.
async fn open(project: &Project) -> Served {
    let root = project.root.clone();
    let data = project.data.join("direct");
    let helper = ward_sandbox::helper_beside(&ward_tests::ward_binary());
    let engine = Arc::new(move || {
        EngineOptions::new(root.clone())
            .data_dir(data.clone())
            .sandbox_helper(helper.clone())
    });
    Served::open(&ServeOptions::new(engine), true)
        .await
        .expect("the served project opens")
}

/// One direct call, timed.
async fn direct_call(served: &Served) -> Duration {
    let start = Instant::now();
    let out = served.tools.call("noop", "{}", served.call_ids()).await;
    let took = start.elapsed();
    assert_eq!(out.expect("the no-op call").output, "ok");
    took
}

/// A process spoken to in JSON-RPC lines on its pipes.
struct Client {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    request: Vec<u8>,
    answer: String,
    /// Whether answers are checked as MCP results (not for `cat`'s echo).
    mcp: bool,
}

impl Client {
    /// `ward mcp serve` in `project`, on protocol `era`.
    fn server(project: &Project, era: &str) -> Client {
        let mut command = project.ward();
        command.args(["mcp", "serve"]);
        let modern = era == ERAS[0];
        let meta = if modern {
            json!({"_meta": {
                "io.modelcontextprotocol/protocolVersion": era,
                "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            }})
        } else {
            json!({})
        };
        let mut params = json!({"name": "noop", "arguments": {}});
        if let (Some(params), Some(meta)) = (params.as_object_mut(), meta.as_object()) {
            params.extend(meta.clone());
        }
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
        let mut client = Client::spawn(command, &request, true);
        if !modern {
            client.send(
                &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": era, "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"}}}),
            );
            client.read_answer();
            client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        }
        client
    }

    /// `cat`, echoing a request line of the same size.
    fn cat() -> Client {
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "noop", "arguments": {}}});
        Client::spawn(Command::new("cat"), &request, false)
    }

    fn spawn(mut command: Command, request: &Value, mcp: bool) -> Client {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn");
        let input = child.stdin.take().expect("stdin");
        let output = BufReader::with_capacity(1 << 16, child.stdout.take().expect("stdout"));
        let mut request = serde_json::to_vec(request).expect("request");
        request.push(b'\n');
        Client {
            child,
            input,
            output,
            request,
            answer: String::new(),
            mcp,
        }
    }

    fn send(&mut self, message: &Value) {
        let mut line = serde_json::to_vec(message).expect("message");
        line.push(b'\n');
        self.input.write_all(&line).expect("write");
    }

    /// Reads lines up to the next answer (one with an id), parsed as every client does.
    fn read_answer(&mut self) -> Value {
        loop {
            self.answer.clear();
            let read = self.output.read_line(&mut self.answer).expect("read");
            assert!(read > 0, "the server closed its output");
            let message: Value = serde_json::from_str(&self.answer).expect("a JSON line");
            if message.get("id").is_some() {
                return message;
            }
        }
    }

    /// One round trip of the request, timed.
    fn call(&mut self) -> Duration {
        let start = Instant::now();
        self.input.write_all(&self.request).expect("write");
        let answer = self.read_answer();
        let took = start.elapsed();
        if self.mcp {
            let failed = answer.get("error").is_some() || answer["result"]["isError"] == true;
            assert!(!failed, "the call failed: {answer}");
        }
        took
    }

    fn close(mut self) {
        drop(self.input);
        let _ = self.child.wait();
    }
}

/// p50 and p99 in µs.
fn p50_p99(times: &[Duration]) -> (f64, f64) {
    let mut sorted: Vec<Duration> = times.to_vec();
    sorted.sort();
    let at = |q: f64| {
        let i = ((q * sorted.len() as f64) as usize).min(sorted.len().saturating_sub(1));
        sorted.get(i).map_or(0.0, |d| d.as_secs_f64() * 1e6)
    };
    (at(0.5), at(0.99))
}
