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
import argparse, http.client, json, os, re, statistics, subprocess, sys, tempfile, threading, time

import benchlib

TOKEN = "bench-token-0123456789abcdef"


def chunk(delta, finish=None, usage=False):
    c = {"id": "c", "object": "chat.completion.chunk",
         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage:
        c["usage"] = {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}
    return "data: " + json.dumps(c) + "\n\n"


def reply_for(steps):
    def reply(body):
        request = json.loads(body)
        done = sum(1 for m in request.get("messages", []) if m.get("role") == "tool")
        if done < steps:
            call = {"index": 0, "id": f"call_{done}", "type": "function",
                    "function": {"name": "read", "arguments": json.dumps({"filePath": "a.txt"})}}
            out = chunk({"role": "assistant", "tool_calls": [call]}) + chunk({}, "tool_calls", True)
        else:
            out = chunk({"role": "assistant", "content": "All done."}) + chunk({}, "stop", True)
        return (out + "data: [DONE]\n\n").encode()
    return reply


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


class Stream(threading.Thread):
    """One SSE client reading every event; demultiplexes them by session."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port, self.lock = port, threading.Lock()
        self.first = {}      # session -> time of its first event after its prompt was sent
        self.sent = {}       # session -> time its prompt was sent
        self.parts = {}      # session -> {part id: part}
        self.idle = set()
        self.ids = []
        self.connected = threading.Event()

    def run(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.port)
        conn.request("GET", "/event", headers={"Authorization": "Bearer " + TOKEN})
        response = conn.getresponse()
        data = ""
        for raw in response:
            line = raw.decode().rstrip("\n")
            if line.startswith("id:"):
                self.ids.append(int(line[3:]))
            elif line.startswith("data:"):
                data += line[5:].strip()
            elif line == "" and data:
                self.event(json.loads(data))
                data = ""

    def event(self, ev):
        now = time.perf_counter()
        p = ev.get("properties", {})
        if ev["type"] == "server.connected":
            self.connected.set()
            return
        session = p.get("sessionID")
        if not session:
            return
        with self.lock:
            if session in self.sent:
                self.first.setdefault(session, now)
            parts = self.parts.setdefault(session, {})
            if ev["type"] == "message.part.updated":
                parts[p["part"]["id"]] = p["part"]
            elif ev["type"] == "message.part.delta":
                part = parts.setdefault(p["partID"], {"id": p["partID"], "type": "text", "text": ""})
                part[p["field"]] = part.get(p["field"], "") + p["delta"]
            elif ev["type"] == "session.idle":
                self.idle.add(session)


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
    model = benchlib.serve(reply_for(args.steps))
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
        stream = Stream(port)
        stream.start()
        stream.connected.wait(30)
        sessions = [request(port, "POST", "/session", {})["id"] for _ in range(args.sessions)]
        sent = stream.sent
        def prompt(session):
            with stream.lock:
                sent[session] = time.perf_counter()
            request(port, "POST", f"/session/{session}/prompt_async",
                    {"parts": [{"type": "text", "text": "read a.txt repeatedly"}]})
        start = time.perf_counter()
        threads = [threading.Thread(target=prompt, args=(s,)) for s in sessions]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        deadline = time.time() + 600
        while len(stream.idle & set(sessions)) < len(sessions):
            if time.time() > deadline:
                sys.exit(f"only {len(stream.idle)} of {len(sessions)} sessions finished")
            time.sleep(0.05)
        total = time.perf_counter() - start
        time.sleep(0.5)  # the last events of the stream
        peak = rss_kib(server.pid, "VmHWM")

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
