#!/usr/bin/env python3
"""One-shot `ward run` benchmark: a cold `ward` process (compiled-component cache
warm) asks a local OpenAI-compatible SSE server for a one-line answer, 30 times.
Prints the median wall time and peak RSS. Needs `cargo build --release -p ward`.

    python3 scripts/bench-oneshot.py [path/to/ward]
"""
import os, statistics, subprocess, sys, tempfile, time

import benchlib

BODY = (
    'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello there."},"finish_reason":null}]}\n\n'
    'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}\n\n'
    "data: [DONE]\n\n"
).encode()


def main():
    ward = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/ward")
    port = benchlib.serve(lambda _body: BODY)
    base = tempfile.mkdtemp(prefix="ward-oneshot-")
    project = benchlib.project(base, port)
    env = benchlib.state_env(base)
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
