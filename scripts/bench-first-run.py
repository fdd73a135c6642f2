#!/usr/bin/env python3
"""First-run benchmark: one-shot `ward run` with one `bash` tool step against a
zero-latency local OpenAI-compatible SSE server, 10 runs with a fresh data, cache and
home directory every run (a new user, a CI job, a container), then 10 with a warm one.
Prints the median wall time and peak RSS of each. Needs `scripts/build.sh` first.
A second argument is appended to the project's ward.toml (e.g. `'snapshot = false'`,
to see what undo's snapshots add).

    python3 scripts/bench-first-run.py [path/to/ward] [extra-toml]
"""
import os, shutil, statistics, subprocess, sys, tempfile, time

import benchlib


def main():
    ward = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/ward")
    port = benchlib.serve(benchlib.one_bash_step)
    base = tempfile.mkdtemp(prefix="ward-first-run-")
    extra = sys.argv[2] + "\n" if len(sys.argv) > 2 else ""
    project = benchlib.project(base, port, '[permission]\nbash = "allow"\n', top=extra)
    state = os.path.join(base, "state")
    env = benchlib.state_env(state)

    def run(fresh):
        if fresh:
            shutil.rmtree(state, ignore_errors=True)
        os.makedirs(os.path.join(state, "home"), exist_ok=True)
        start = time.perf_counter()
        out = subprocess.run(["/usr/bin/time", "-f", "%M", ward, "run", "say hi"], cwd=project, env=env,
                             capture_output=True, text=True)
        wall = (time.perf_counter() - start) * 1000
        if out.returncode != 0 or "Done." not in out.stdout:
            sys.exit(f"ward run failed ({out.returncode}):\n{out.stdout}\n{out.stderr}")
        return wall, int(out.stderr.strip().splitlines()[-1]) / 1024

    for label, fresh in (("fresh data dir", True), ("warm data dir", False)):
        run(fresh)  # warm-up (for the warm case: fills the data dir)
        runs = [run(fresh) for _ in range(10)]
        walls, rss = [w for w, _ in runs], [r for _, r in runs]
        print(f"{label}: median {statistics.median(walls):.1f} ms (min {min(walls):.1f}, max {max(walls):.1f}); "
              f"peak RSS median {statistics.median(rss):.1f} MiB, max {max(rss):.1f} MiB")
    shutil.rmtree(base, ignore_errors=True)


main()
