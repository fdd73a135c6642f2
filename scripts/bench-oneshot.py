#!/usr/bin/env python3
"""One-shot `ward run` benchmark: a cold `ward` process (compiled-component cache
warm) asks a local OpenAI-compatible SSE server for a one-line answer, 30 times.
Prints the median wall time and peak RSS. Needs `cargo build --release -p ward`.

    python3 scripts/bench-oneshot.py [path/to/ward]
"""
import http.server, os, socketserver, statistics, subprocess, sys, tempfile, threading, time

BODY = (
    'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello there."},"finish_reason":null}]}\n\n'
    'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}\n\n'
    "data: [DONE]\n\n"
).encode()


class Answer(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args):
        pass


def main():
    ward = sys.argv[1] if len(sys.argv) > 1 else "target/release/ward"
    ward = os.path.abspath(ward)
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    base = tempfile.mkdtemp(prefix="ward-oneshot-")
    project = os.path.join(base, "project")
    os.makedirs(project)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    with open(os.path.join(project, "ward.toml"), "w") as f:
        f.write(
            'model = "local/m"\n[provider.local]\nkind = "openai-compatible"\n'
            f'base_url = "http://127.0.0.1:{port}/v1"\napi_key = "k"\n'
        )
    env = dict(os.environ, WARD_DATA_DIR=os.path.join(base, "data"), HOME=os.path.join(base, "home"),
               XDG_CONFIG_HOME=os.path.join(base, "home", ".config"), WARD_CACHE_DIR=os.path.join(base, "cache"))
    run = lambda: subprocess.run(["/usr/bin/time", "-f", "%M", ward, "run", "hi"], cwd=project, env=env,
                                 capture_output=True, text=True, check=True)
    run()  # warms the compiled-component cache
    times, rss = [], []
    for _ in range(30):
        start = time.perf_counter()
        out = run()
        times.append((time.perf_counter() - start) * 1000)
        rss.append(int(out.stderr.strip().splitlines()[-1]))
    print(f"median {statistics.median(times):.1f} ms (min {min(times):.1f}, max {max(times):.1f}); "
          f"peak RSS median {statistics.median(rss) / 1024:.1f} MiB, max {max(rss) / 1024:.1f} MiB")


main()
