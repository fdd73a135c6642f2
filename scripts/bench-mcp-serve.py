#!/usr/bin/env python3
"""Per-call overhead of `ward mcp serve` over stdio: a no-op tool called N times
through raw JSON-RPC on the server's pipes (no SDK, so the client adds as little as
it can), p50 and p99 of the round trip; and, in the same process, N `tools/list`
requests — the MCP layer (pipes, framing, JSON, rmcp's dispatch) with no tool run.
Compare with the same no-op through the tool box in process,
`cargo bench -p ward-tests --bench plugins -- "tool box"`: the difference is what
the MCP layer adds.

    python3 scripts/bench-mcp-serve.py [path/to/ward] [calls]

Both protocols are measured: the 2026-07-28 one (per-request metadata, no
handshake) and the handshake-era 2025-11-25 one."""
import json, os, shutil, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from benchlib import state_env  # noqa: E402


def noop_component():
    """The `noop` test plugin's manifest and component (built by `cargo build`)."""
    manifest = os.path.join(ROOT, "tests/plugins/noop/plugin.toml")
    for target in (os.environ.get("CARGO_TARGET_DIR"), os.path.join(ROOT, "target")):
        if not target:
            continue
        # Test components are built optimised whatever the host's profile.
        wasm = os.path.join(target, "wasm", "wasm32-wasip2", "release", "ward_test_noop.wasm")
        if os.path.exists(wasm):
            return manifest, wasm
    sys.exit("the noop component is not built: cargo build -p ward-tests first")


def percentile(sorted_values, q):
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def run(ward, calls, modern):
    state = tempfile.mkdtemp(prefix="ward-bench-mcp-")
    try:
        root = os.path.join(state, "project")
        plugin = os.path.join(root, ".ward/plugins/noop")
        os.makedirs(plugin)
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        manifest, wasm = noop_component()
        shutil.copy(manifest, plugin)
        shutil.copy(wasm, plugin)
        server = subprocess.Popen([ward, "mcp", "serve"], cwd=root, env=state_env(state),
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        out = server.stdout

        def send(message):
            server.stdin.write((json.dumps(message) + "\n").encode())

        def answer():
            while True:
                line = out.readline()
                if not line:
                    sys.exit("ward mcp serve closed its output")
                message = json.loads(line)
                if "id" in message:
                    return message

        meta = {}
        if modern:
            version = "2026-07-28"
            meta = {"_meta": {"io.modelcontextprotocol/protocolVersion": version,
                              "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
                              "io.modelcontextprotocol/clientCapabilities": {}}}
        else:
            send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                  "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                             "clientInfo": {"name": "bench", "version": "1"}}})
            answer()
            send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        figures = {}
        for method in ("tools/call", "tools/list"):
            figures[method] = measure(server, answer, method, calls, meta)
        server.stdin.close()
        server.wait(timeout=10)
        return figures
    finally:
        shutil.rmtree(state, ignore_errors=True)


def measure(server, answer, method, calls, meta):
    """p50 and p99 (µs) of `calls` round trips of `method`."""
    times = []
    for i in range(1, calls + 1):
        params = {"name": "noop", "arguments": {}, **meta} if method == "tools/call" else dict(meta)
        request = {"jsonrpc": "2.0", "id": f"{method}-{i}", "method": method, "params": params}
        line = (json.dumps(request) + "\n").encode()
        start = time.perf_counter()
        server.stdin.write(line)
        reply = answer()
        times.append(time.perf_counter() - start)
        if "error" in reply or reply["result"].get("isError"):
            sys.exit(f"the call failed: {reply}")
    warm = sorted(times[calls // 10:])  # the first tenth warms up
    return percentile(warm, 0.5) * 1e6, percentile(warm, 0.99) * 1e6


def main():
    ward = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target/release/ward")
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    for modern in (True, False):
        figures = run(ward, calls, modern)
        name = "2026-07-28" if modern else "2025-11-25"
        for method, (p50, p99) in figures.items():
            what = "no-op tool calls" if method == "tools/call" else "tools/list requests (no tool run)"
            print(f"{name}: {calls} {what} over stdio, p50 {p50:.1f} us, p99 {p99:.1f} us")


if __name__ == "__main__":
    main()
