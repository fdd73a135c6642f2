#!/usr/bin/env python3
"""Benchmark of `ward`'s full-screen UI on a real pseudo-terminal.

1. Keystroke-to-frame latency while an answer streams at ~200 tokens/s: a local
   stand-in for an OpenAI-compatible server streams one word per 5 ms; meanwhile a
   key is written to the terminal every 50 ms and timed until the UI has drawn it
   (the key's character appears in what the UI writes back). Reports p50 and p99.
2. CPU used while idle: after the answer, the UI's process CPU time (user + system,
   from /proc) over 10 s with nothing happening.

Usage: scripts/bench-tui.py [path/to/ward]   (default: target/debug/ward, or
$CARGO_TARGET_DIR/debug/ward). Linux only (pty, /proc). Binds 127.0.0.1 only.
"""

import http.server
import json
import os
import pty
import select
import shutil
import socketserver
import struct
import subprocess
import sys
import tempfile
import termios
import fcntl
import threading
import time

TOKENS_PER_SECOND = 200
STREAM_SECONDS = 12
KEY_EVERY = 0.05
IDLE_SECONDS = 10
# Keys typed while the answer streams: letters that never occur in the answer.
KEYS = "QZJXKV"


class Stream(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("content-length", "0"))
        self.rfile.read(length)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()

        def chunk(delta, finish=None):
            body = {
                "id": "bench", "object": "chat.completion.chunk", "created": 1, "model": "bench",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            self.wfile.write(b"data: " + json.dumps(body).encode() + b"\n\n")
            self.wfile.flush()

        chunk({"role": "assistant", "content": ""})
        words = TOKENS_PER_SECOND * STREAM_SECONDS
        start = time.monotonic()
        for i in range(words):
            chunk({"content": f"word{i % 97} " + ("\n" if i % 12 == 11 else "")})
            # Paced against the clock, so the rate holds whatever a write costs.
            wait = start + (i + 1) / TOKENS_PER_SECOND - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        chunk({}, "stop")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def main():
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    ward = sys.argv[1] if len(sys.argv) > 1 else os.path.join(target, "debug", "ward")
    ward = os.path.abspath(ward)
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Stream)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]

    base = tempfile.mkdtemp(prefix="ward-bench-tui-")
    project = os.path.join(base, "project")
    os.makedirs(project)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    with open(os.path.join(project, "ward.toml"), "w") as f:
        f.write(
            'model = "bench/m"\n[provider.bench]\nkind = "openai-compatible"\n'
            f'base_url = "http://127.0.0.1:{port}/v1"\napi_key = "k"\n'
            "[provider.bench.models.m]\noutput = 1024\n"
        )
    env = dict(os.environ, WARD_DATA_DIR=os.path.join(base, "data"), HOME=os.path.join(base, "home"),
               XDG_CONFIG_HOME=os.path.join(base, "home", ".config"), TERM="xterm-256color")
    env.pop("WARD_CONFIG", None)

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    proc = subprocess.Popen([ward], cwd=project, env=env, stdin=slave, stdout=slave,
                            stderr=slave, start_new_session=True)
    os.close(slave)

    def read_for(seconds, until=None):
        """Reads what the UI writes for `seconds`, or until `until` (bytes) shows."""
        got = b""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([master], [], [], max(0.0, end - time.monotonic()))
            if ready:
                try:
                    got += os.read(master, 65536)
                except OSError:
                    break
                if until is not None and until in got:
                    return got, True
        return got, False

    _, ok = read_for(30, b" build ")
    if not ok:
        sys.exit("the UI did not start")
    os.write(master, b"go\r")
    _, ok = read_for(30, b"word3 ")
    if not ok:
        sys.exit("the answer did not stream")

    latencies = []
    stream_end = time.monotonic() + STREAM_SECONDS - 2
    n = 0
    while time.monotonic() < stream_end:
        key = KEYS[n % len(KEYS)].encode()
        n += 1
        sent = time.monotonic()
        os.write(master, key)
        _, ok = read_for(1.0, key)
        if ok:
            latencies.append((time.monotonic() - sent) * 1000)
        time.sleep(max(0.0, KEY_EVERY - (time.monotonic() - sent)))
    # Clear what was typed (Ctrl-U), let the answer finish, then sit idle.
    os.write(master, b"\x15")
    read_for(STREAM_SECONDS + 5, b"word" + str((TOKENS_PER_SECOND * STREAM_SECONDS - 1) % 97).encode() + b" ")
    read_for(1.0)
    before = cpu_seconds(proc.pid)
    read_for(IDLE_SECONDS)
    idle_cpu = cpu_seconds(proc.pid) - before
    os.write(master, b"\x04")
    read_for(5)
    proc.wait(timeout=10)
    shutil.rmtree(base, ignore_errors=True)

    latencies.sort()
    def pct(p):
        return latencies[min(len(latencies) - 1, int(len(latencies) * p / 100))]
    print(f"keystrokes timed: {len(latencies)} of {n} (stream at {TOKENS_PER_SECOND} tokens/s)")
    print(f"keystroke-to-frame latency: p50 {pct(50):.1f} ms, p99 {pct(99):.1f} ms, max {latencies[-1]:.1f} ms")
    print(f"idle CPU over {IDLE_SECONDS} s: {idle_cpu:.3f} s ({idle_cpu / IDLE_SECONDS * 100:.2f}%)")


if __name__ == "__main__":
    main()
