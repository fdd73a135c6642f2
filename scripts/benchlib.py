"""What the whole-process `ward run` benchmarks share: a zero-latency local
OpenAI-compatible SSE server, and a git project whose ward.toml points at it."""
import asyncio, http.server, json, multiprocessing, os, socketserver, subprocess, threading


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


def serve_apart(reply):
    """Like `serve`, for many concurrent requests: one asyncio thread in a process of
    its own. `serve` starts a thread per request, and a hundred loops asking at once
    made a hundred runnable Python threads that took the CPU from everything else on
    the machine; a remote provider, which the server stands in for, takes none.
    `reply` must be picklable (a module-level function or a `functools.partial`)."""
    receive, send = multiprocessing.Pipe(duplex=False)
    multiprocessing.Process(target=_serve_async, args=(reply, send), daemon=True).start()
    return receive.recv()


def _serve_async(reply, port_out):
    async def handle(reader, writer):
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                body = reply(await reader.readexactly(length))
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                             b"content-length: %d\r\n\r\n" % len(body) + body)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def main():
        server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=1024)
        port_out.send(server.sockets[0].getsockname()[1])
        await server.serve_forever()

    asyncio.run(main())


# The configuration `project` wrote last, given to `ward` by `state_env` as the user's own
# (`WARD_CONFIG`): a project's own `ward.toml` may not name a provider's endpoint and key,
# nor allow commands, until a person runs `ward trust` in it.
USER_CONFIG = None


def project(base, port, extra="", top=""):
    """A git project under `base` using the model at `port`, `extra` appended to the
    user's configuration and `top` (top-level keys) put first; returns its path."""
    global USER_CONFIG
    root = os.path.join(base, "project")
    os.makedirs(root)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    USER_CONFIG = os.path.join(base, "user.toml")
    with open(USER_CONFIG, "w") as f:
        f.write(top + 'model = "local/m"\n[provider.local]\nkind = "openai-compatible"\n'
                f'base_url = "http://127.0.0.1:{port}/v1"\napi_key = "k"\n' + extra)
    return root


def state_env(state):
    """The environment giving `ward` its own data, cache and home under `state`, and
    the configuration `project` wrote as the user's."""
    env = dict(os.environ, WARD_DATA_DIR=os.path.join(state, "data"), HOME=os.path.join(state, "home"),
               XDG_CONFIG_HOME=os.path.join(state, "home", ".config"),
               WARD_CACHE_DIR=os.path.join(state, "cache"))
    if USER_CONFIG:
        env["WARD_CONFIG"] = USER_CONFIG
    return env


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
