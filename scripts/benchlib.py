"""What the whole-process `ward run` benchmarks share: a zero-latency local
OpenAI-compatible SSE server, and a git project whose ward.toml points at it."""
import http.server, json, os, socketserver, subprocess, threading


def serve(reply):
    """Starts a server answering every POST with `reply(request_body)` as an event
    stream; returns its port."""

    class Model(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = reply(self.rfile.read(int(self.headers.get("content-length", 0))))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Model)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


def project(base, port, extra="", top=""):
    """A git project under `base` using the model at `port`, `extra` appended to its
    ward.toml and `top` (top-level keys) put first; returns its path."""
    root = os.path.join(base, "project")
    os.makedirs(root)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    with open(os.path.join(root, "ward.toml"), "w") as f:
        f.write(top + 'model = "local/m"\n[provider.local]\nkind = "openai-compatible"\n'
                f'base_url = "http://127.0.0.1:{port}/v1"\napi_key = "k"\n' + extra)
    return root


def state_env(state):
    """The environment giving `ward` its own data, cache and home under `state`."""
    return dict(os.environ, WARD_DATA_DIR=os.path.join(state, "data"), HOME=os.path.join(state, "home"),
                XDG_CONFIG_HOME=os.path.join(state, "home", ".config"),
                WARD_CACHE_DIR=os.path.join(state, "cache"))


def sse(*chunks):
    """An OpenAI chat-completions event stream of `chunks`."""
    return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks).encode() + b"data: [DONE]\n\n"


def chunk(delta, finish=None):
    """One chat-completions stream chunk."""
    return {"id": "c", "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


BASH_CALL = sse(
    chunk({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1", "type": "function",
           "function": {"name": "bash", "arguments": json.dumps({"command": "echo hi", "description": "say hi"})}}]}),
    chunk({}, "tool_calls"),
)
DONE = sse(chunk({"role": "assistant", "content": "Done."}), chunk({}, "stop"))


def one_bash_step(body):
    """A model that calls `bash` once, then answers "Done." once the result is in."""
    return DONE if b'"role":"tool"' in body else BASH_CALL
