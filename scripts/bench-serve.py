#!/usr/bin/env python3
"""`ward serve` under load: N concurrent sessions over HTTP, each a prompt whose loop
makes STEPS `read` tool calls against a zero-latency local model server, then answers.

Checks that every session completes and that nothing was lost or reordered: one SSE
client reads the whole stream (ids must be consecutive), rebuilds each session's parts
from the events, and compares them with what `GET /session/{id}/message` stores.
Prints p50/p99 from sending a prompt to the first event of its session, the total
time, ward's peak RSS, and the RSS each idle session costs (1000 more sessions).

    python3 scripts/bench-serve.py [path/to/ward] [--sessions 100] [--steps 10]
Needs `cargo build --release -p ward -p ward-sandbox`.
"""
import argparse, functools, http.client, json, multiprocessing, os, re, socket, statistics, subprocess, sys, tempfile, threading, time

import benchlib

TOKEN = "bench-token-0123456789abcdef"


def chunk(delta, finish=None, usage=False):
    c = {"id": "c", "object": "chat.completion.chunk",
         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage:
        c["usage"] = {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}
    return "data: " + json.dumps(c) + "\n\n"


def reply(steps, body):
    """The model's answer to `body`: a `read` call until `steps` results are in."""
    request = json.loads(body)
    done = sum(1 for m in request.get("messages", []) if m.get("role") == "tool")
    if done < steps:
        call = {"index": 0, "id": f"call_{done}", "type": "function",
                "function": {"name": "read", "arguments": json.dumps({"filePath": "a.txt"})}}
        out = chunk({"role": "assistant", "tool_calls": [call]}) + chunk({}, "tool_calls", True)
    else:
        out = chunk({"role": "assistant", "content": "All done."}) + chunk({}, "stop", True)
    return (out + "data: [DONE]\n\n").encode()


def request(port, method, path, body=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Authorization": "Bearer " + TOKEN}
    if body is not None:
        headers["Content-Type"] = "application/json"
        body = json.dumps(body)
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    if response.status >= 300:
        raise RuntimeError(f"{method} {path}: {response.status} {data[:200]!r}")
    return json.loads(data) if data else None


def read_stream(port, connected, idle, records):
    """The SSE client, in a process of its own so the prompting threads cannot delay
    it: records `(arrival time, id, JSON)` of every event; counts `session.idle`s.

    Reads the socket itself (64 KiB at a time, the chunked framing undone by hand)
    and stamps each event with the time the bytes that completed it arrived, before
    parsing them: a line-by-line reader stamped events after Python had parsed all
    the lines before them, adding its own backlog to the latencies measured."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall((f"GET /event HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                  f"Authorization: Bearer {TOKEN}\r\nAccept: text/event-stream\r\n\r\n").encode())
    raw = b""
    while b"\r\n\r\n" not in raw:
        raw += sock.recv(1 << 16)
    head, raw = raw.split(b"\r\n\r\n", 1)
    assert b" 200 " in head.split(b"\r\n", 1)[0], head
    chunked = b"transfer-encoding: chunked" in head.lower()
    body, out = b"", []
    now = time.time()
    while True:
        if chunked:
            while True:
                nl = raw.find(b"\r\n")
                if nl < 0:
                    break
                size = int(raw[:nl].split(b";")[0], 16)
                if len(raw) < nl + 2 + size + 2:
                    break
                body += raw[nl + 2:nl + 2 + size]
                raw = raw[nl + 4 + size:]
        else:
            body, raw = body + raw, b""
        while True:
            end = body.find(b"\n\n")
            if end < 0:
                break
            event, body = body[:end], body[end + 2:]
            event_id, data = None, []
            for line in event.split(b"\n"):
                if line.startswith(b"id:"):
                    event_id = int(line[3:])
                elif line.startswith(b"data:"):
                    data.append(line[5:].strip())
            if not data:
                continue
            text = b"".join(data).decode()
            out.append((now, event_id, text))
            if '"server.connected"' in text:
                connected.set()
            elif '"session.idle"' in text:
                with idle.get_lock():
                    idle.value += 1
        if stop_file_exists(port):
            break
        received = sock.recv(1 << 16)
        now = time.time()
        if not received:
            break
        raw += received
    records.send(out)


def stop_file(port):
    return os.path.join(tempfile.gettempdir(), f"ward-bench-serve-{port}.stop")


def stop_file_exists(port):
    return os.path.exists(stop_file(port))


class Stream:
    """What the reader process saw, demultiplexed by session once it is done."""

    def __init__(self, records):
        self.first, self.parts, self.ids = {}, {}, []
        self.records = records

    def replay(self, sent):
        for arrived, event_id, data in self.records:
            if event_id is not None:
                self.ids.append(event_id)
            ev = json.loads(data)
            p = ev.get("properties", {})
            session = p.get("sessionID")
            if not session:
                continue
            if session in sent and arrived >= sent[session]:
                self.first.setdefault(session, arrived)
            parts = self.parts.setdefault(session, {})
            if ev["type"] == "message.part.updated":
                parts[p["part"]["id"]] = p["part"]
            elif ev["type"] == "message.part.delta":
                part = parts.setdefault(p["partID"], {"id": p["partID"], "type": "text", "text": ""})
                part[p["field"]] = part.get(p["field"], "") + p["delta"]


def rss_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(rf"{field}:\s+(\d+)", f.read()).group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("ward", nargs="?", default="target/release/ward")
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args()
    ward = os.path.abspath(args.ward)
    model = benchlib.serve_apart(functools.partial(reply, args.steps))
    base = tempfile.mkdtemp(prefix="ward-serve-")
    root = benchlib.project(base, model)
    with open(os.path.join(root, "a.txt"), "w") as f:
        f.write("alpha\n")
    env = dict(benchlib.state_env(base), WARD_SERVER_TOKEN=TOKEN)
    server = subprocess.Popen([ward, "serve", "--port", "0"], cwd=root, env=env,
                              stdout=subprocess.PIPE, text=True)
    port = None
    for line in server.stdout:
        m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
        if m:
            port = int(m.group(1))
            break
    threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
    try:
        connected, idle = multiprocessing.Event(), multiprocessing.Value("i", 0)
        receive, send = multiprocessing.Pipe(duplex=False)
        reader = multiprocessing.Process(target=read_stream, args=(port, connected, idle, send))
        reader.start()
        connected.wait(30)
        sessions = [request(port, "POST", "/session", {})["id"] for _ in range(args.sessions)]
        idle_before = idle.value
        # All prompts at once, from one thread on connections opened beforehand: each
        # request's bytes leave with one `sendall`, its time taken just before. (A
        # thread per prompt measured Python's thread switching as well: a thread could
        # take its time and then wait for the interpreter while others sent.)
        body = json.dumps({"parts": [{"type": "text", "text": "read a.txt repeatedly"}]})
        conns = {}
        for s in sessions:
            conn = socket.create_connection(("127.0.0.1", port))
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conns[s] = conn
        sent = {}
        start = time.perf_counter()
        for s, conn in conns.items():
            sent[s] = time.time()
            conn.sendall((f"POST /session/{s}/prompt_async HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                          f"Authorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\n"
                          f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n{body}").encode())
        for s, conn in conns.items():
            status = conn.makefile("rb").readline()
            assert b" 204 " in status, status
            conn.close()
        deadline = time.time() + 600
        while idle.value - idle_before < len(sessions):
            if time.time() > deadline:
                sys.exit(f"only {idle.value - idle_before} of {len(sessions)} sessions finished")
            time.sleep(0.01)
        total = time.perf_counter() - start
        peak = rss_kib(server.pid, "VmHWM")
        open(stop_file(port), "w").close()
        request(port, "POST", "/session", {})  # one more event, so the reader sees the stop
        stream = Stream(receive.recv())
        reader.join(10)
        os.remove(stop_file(port))
        stream.replay(sent)

        # Nothing lost: consecutive ids; nothing reordered: each session's parts as the
        # stream built them equal the stored ones.
        ids = stream.ids
        assert ids == list(range(ids[0], ids[0] + len(ids))), "event ids have gaps"
        checked_tools = 0
        for s in sessions:
            stored = {p["id"]: p for m in request(port, "GET", f"/session/{s}/message") for p in m["parts"]}
            streamed = stream.parts[s]
            for pid, part in stored.items():
                got = streamed.get(pid)
                assert got is not None, f"{s}: part {pid} never streamed"
                if part["type"] == "tool":
                    assert got["state"]["status"] == part["state"]["status"] == "completed", (got, part)
                    checked_tools += 1
                elif part["type"] == "text":
                    assert got.get("text") == part["text"], (got, part)
            tools = sum(1 for p in stored.values() if p["type"] == "tool")
            assert tools == args.steps, f"{s}: {tools} tool calls, not {args.steps}"
        latencies = sorted((stream.first[s] - sent[s]) * 1000 for s in sessions)
        p50 = statistics.median(latencies)
        p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]

        before = rss_kib(server.pid, "VmRSS")
        for _ in range(1000):
            request(port, "POST", "/session", {})
        time.sleep(0.5)
        after = rss_kib(server.pid, "VmRSS")
        print(f"{args.sessions} sessions x {args.steps} tool steps: all completed in {total:.2f} s; "
              f"{len(ids)} events, ids consecutive, {checked_tools} tool calls streamed = stored")
        print(f"prompt -> first event: p50 {p50:.1f} ms, p99 {p99:.1f} ms")
        print(f"ward peak RSS {peak / 1024:.1f} MiB; 1000 idle sessions more: "
              f"{(after - before) / 1024:.1f} MiB ({(after - before) / 1000:.1f} KiB each)")
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            sys.exit("ward serve did not stop within 10 s of SIGTERM")


main()
