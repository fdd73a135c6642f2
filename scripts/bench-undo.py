#!/usr/bin/env python3
"""What undo's snapshots add to a tool step, whole process: `ward run` with one `bash`
step that changes 3 files of a 10,000-file project, snapshots on (the default) against
the same project with `snapshot = false`, runs alternated A B A B so drift cancels.
Twice: with a model that answers instantly, and with one that takes PACE ms to stream
the call's arguments after naming the tool (a real model takes seconds), where the
"before" snapshot is taken while the arguments stream. Each run makes STEPS such tool
steps (default 1) in one session: from the second on, the file-system watcher tells the
snapshots what changed. Prints the median of each, and of the per-pair difference
divided by STEPS. Needs `scripts/build.sh` first.

    python3 scripts/bench-undo.py [path/to/ward] [runs] [pace-ms] [steps]
"""
import http.server, json, os, shutil, socketserver, statistics, subprocess, sys, tempfile, threading, time

import benchlib

FILES = 10_000
COMMAND = "; ".join(f"date +%s%N > src/m00{i}/f{i}.rs" for i in (1, 2, 3))


def tool_call(pace, step):
    """The model's reply calling `bash`, in two pieces: the call's start (its name),
    then `pace` seconds later its arguments and the finish."""
    head = benchlib.sse(benchlib.chunk({"role": "assistant", "tool_calls": [
        {"index": 0, "id": f"call_{step}", "type": "function", "function": {"name": "bash", "arguments": ""}}]}))
    head = head[: -len(b"data: [DONE]\n\n")]
    tail = benchlib.sse(
        benchlib.chunk({"tool_calls": [{"index": 0, "function": {
            "arguments": json.dumps({"command": f"{COMMAND} # step {step}", "description": "touch three files"})}}]}),
        benchlib.chunk({}, "tool_calls"))
    return head, pace, tail


def serve(pace, steps):
    class Model(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            done = body.count(b'"role":"tool"')
            pieces = (benchlib.DONE, 0, b"") if done >= steps else tool_call(pace, done + 1)
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            head, wait, tail = pieces
            for i, piece in enumerate((head, tail)):
                if i == 1 and wait:
                    time.sleep(wait)
                if piece:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")

        def log_message(self, *args):
            pass

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Model)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


def project(base, port, top):
    root = benchlib.project(base, port, '[permission]\nbash = "allow"\nedit = "allow"\n', top=top)
    for i in range(FILES):
        d = os.path.join(root, f"src/m{i // 100:03}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"f{i}.rs"), "w") as f:
            f.write(f"// file {i}\n" * 40)
    return root


def main():
    ward = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/ward")
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    pace_ms = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    steps = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    base = tempfile.mkdtemp(prefix="ward-undo-")
    for label, pace in (("instant model", 0), (f"arguments streamed over {pace_ms} ms", pace_ms / 1000)):
        port = serve(pace, steps)
        on = project(os.path.join(base, f"on-{pace_ms}-{pace}"), port, "")
        off = project(os.path.join(base, f"off-{pace_ms}-{pace}"), port, "snapshot = false\n")
        env = benchlib.state_env(os.path.join(base, f"state-{pace}"))
        os.makedirs(env["HOME"], exist_ok=True)

        def run(root):
            start = time.perf_counter()
            out = subprocess.run([ward, "run", "change three files"], cwd=root, env=env,
                                 capture_output=True, text=True)
            wall = (time.perf_counter() - start) * 1000
            if out.returncode != 0 or "Done." not in out.stdout:
                sys.exit(f"ward run failed ({out.returncode}):\n{out.stdout}\n{out.stderr}")
            return wall

        run(on), run(off)  # warm-up: the compiled-component cache, the first snapshot
        pairs = [(run(on), run(off)) for _ in range(runs)]
        a, b = [p[0] for p in pairs], [p[1] for p in pairs]
        d = [(x - y) / steps for x, y in pairs]
        print(f"{label}: snapshots on median {statistics.median(a):.1f} ms, off {statistics.median(b):.1f} ms; "
              f"added per step: median {statistics.median(d):.1f} ms (min {min(d):.1f}, max {max(d):.1f}), "
              f"{runs} pairs of {steps}-step runs")
    shutil.rmtree(base, ignore_errors=True)


main()
