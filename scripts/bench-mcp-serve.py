#!/usr/bin/env python3
"""Per-call overhead of `ward mcp serve` over stdio: a no-op tool called N times
through raw JSON-RPC on the server's pipes (no SDK, so the client adds as little as
it can), p50 and p99 of the round trip; and, in the same process, N `tools/list`
requests — the MCP layer (pipes, framing, JSON, rmcp's dispatch) with no tool run.
This is the view of a client in another language; what the MCP layer adds over the
same no-op called directly in Ward is measured by `cargo bench -p ward-tests --bench
mcp`, which alternates both in one process so the machine's drift cancels out.

    python3 scripts/bench-mcp-serve.py [path/to/ward] [calls]

Both protocols are measured: the 2026-07-28 one (per-request metadata, no
handshake) and the handshake-era 2025-11-25 one."""
import io, json, os, shutil, subprocess, sys, tempfile, time

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


MODERN_META = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                         "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
                         "io.modelcontextprotocol/clientCapabilities": {}}}


class Server:
    """`ward mcp serve` started in `root`, spoken to in raw JSON-RPC over its pipes."""

    def __init__(self, ward, root, state, modern):
        self.process = subprocess.Popen([ward, "mcp", "serve"], cwd=root, env=state_env(state),
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self.stdin = self.process.stdin
        # Requests are written unbuffered (each reaches the server at once); answers
        # are read through a buffer, as every real client reads. Reading the raw pipe
        # with `readline` costs one system call per byte (0.6 ms for a 326-byte line
        # here): the client, not the server, was most of the round trip measured.
        self.out = io.BufferedReader(self.process.stdout, 1 << 16)
        self.meta = MODERN_META if modern else {}
        if not modern:
            self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                       "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                  "clientInfo": {"name": "bench", "version": "1"}}})
            self.answer()
            self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.stdin.write((json.dumps(message) + "\n").encode())

    def answer(self):
        while True:
            line = self.out.readline()
            if not line:
                sys.exit("ward mcp serve closed its output")
            message = json.loads(line)
            if "id" in message:
                return message

    def close(self):
        self.stdin.close()
        self.process.wait(timeout=10)


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
        # A first server compiles the plugin into Ward's cache (in the background, for
        # most of a second on both cores) and is closed once its call is answered; the
        # measured one starts from that cache, as every start after a plugin's first
        # does. Measured during that compile, a call took 2-3x as long.
        warm = Server(ward, root, state, modern)
        measure(warm, "tools/call", 1)
        warm.close()
        server = Server(ward, root, state, modern)
        figures = {}
        for method in ("tools/call", "tools/list"):
            figures[method] = measure(server, method, calls)
        server.close()
        return figures
    finally:
        shutil.rmtree(state, ignore_errors=True)


def measure(server, method, calls):
    """p50 and p99 (µs) of `calls` round trips of `method`."""
    times = []
    meta = server.meta
    for i in range(1, calls + 1):
        params = {"name": "noop", "arguments": {}, **meta} if method == "tools/call" else dict(meta)
        request = {"jsonrpc": "2.0", "id": f"{method}-{i}", "method": method, "params": params}
        line = (json.dumps(request) + "\n").encode()
        start = time.perf_counter()
        server.stdin.write(line)
        reply = server.answer()
        times.append(time.perf_counter() - start)
        if "error" in reply or reply["result"].get("isError"):
            sys.exit(f"the call failed: {reply}")
    return p50_p99(times)


def p50_p99(times):
    """p50 and p99 (µs) of round trips `times` (seconds), the first tenth left out as
    warm-up."""
    warm = sorted(times[len(times) // 10:])
    return percentile(warm, 0.5) * 1e6, percentile(warm, 0.99) * 1e6


def pipe_floor(calls):
    """p50 and p99 (µs) of the same client's round trip through `cat`, which echoes
    each request line: the pipes, the client and the wake-ups, with no server work."""
    echo = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    out = io.BufferedReader(echo.stdout, 1 << 16)
    line = (json.dumps({"jsonrpc": "2.0", "id": "tools/call-1", "method": "tools/call",
                        "params": {"name": "noop", "arguments": {}}}) + "\n").encode()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        echo.stdin.write(line)
        out.readline()
        times.append(time.perf_counter() - start)
    echo.stdin.close()
    echo.wait(timeout=10)
    return p50_p99(times)


def main():
    ward = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target/release/ward")
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    for modern in (True, False):
        figures = run(ward, calls, modern)
        name = "2026-07-28" if modern else "2025-11-25"
        for method, (p50, p99) in figures.items():
            what = "no-op tool calls" if method == "tools/call" else "tools/list requests (no tool run)"
            print(f"{name}: {calls} {what} over stdio, p50 {p50:.1f} us, p99 {p99:.1f} us")
    p50, p99 = pipe_floor(calls)
    print(f"the pipes alone (`cat` echoing {calls} requests): p50 {p50:.1f} us, p99 {p99:.1f} us")


if __name__ == "__main__":
    main()
