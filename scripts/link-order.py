#!/usr/bin/env python3
"""Regenerates host/cli/link/warm.ld, the linker script that places the code a
one-shot `ward run` executes together at the front of the `ward` binary's text.

Why: the kernel maps a binary's code 64 KiB (or a whole page-cache folio) around each
page it faults in, so a run's resident set follows how its code is spread over the
38 MiB of text, not how much of it runs. Unordered, a one-shot run with one tool step
touched 20 MiB of text for about 5 MiB of functions; placed together they take a
quarter of that (README, Benchmarks).

How: a release `ward` runs the first-run benchmark's workload (one `bash` step against
a zero-latency local model, fresh and warm data directories alternating) under
`perf record` twice: sampling the instruction pointer at 50 kHz (at 200 runs a function
that runs for a tenth of a microsecond per run is expected to be seen twice), then
whole call stacks at 4 kHz for a quarter as many runs (a caller runs a few
instructions of its own around a long call, and is rarely the one sampled). Every
function of the binary a sample lands in, or a stack passes through, goes into the
script, most sampled first.

The script names each function by its exact symbol (Rust's legacy mangling ends in a
hash of the crate's build settings, stable across machines and checkouts for the same
Cargo.lock and compiler) with `*` after it, so the `.llvm.NNN` suffixes that local
ThinLTO adds (which follow the code of the whole codegen unit) still match. A function
that is renamed, or a crate whose dependencies or features change, simply falls out of
the warm section (the link never fails on a stale name): run this again after changing
dependencies. Needs `perf` (Debian: linux-perf) and a release build:

    cargo build --release -p ward && python3 scripts/link-order.py [path/to/ward] [runs]
"""
import os, re, shutil, subprocess, sys, tempfile
from collections import Counter

import benchlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "host", "cli", "link", "warm.ld")


def workload(ward, runs):
    """Runs the first-run benchmark's `ward run` `runs` times."""
    port = benchlib.serve(benchlib.one_bash_step)
    base = tempfile.mkdtemp(prefix="ward-link-order-")
    project = benchlib.project(base, port, '[permission]\nbash = "allow"\n')
    state = os.path.join(base, "state")
    env = benchlib.state_env(state)
    for i in range(runs):
        if i % 2 == 0:
            shutil.rmtree(state, ignore_errors=True)
        os.makedirs(os.path.join(state, "home"), exist_ok=True)
        out = subprocess.run([ward, "run", "say hi"], cwd=project, env=env, capture_output=True, text=True)
        if out.returncode != 0 or "Done." not in out.stdout:
            sys.exit(f"ward run failed ({out.returncode}):\n{out.stdout}\n{out.stderr}")
    shutil.rmtree(base, ignore_errors=True)


def text_symbols(ward):
    """The function symbols of the binary."""
    out = subprocess.run(["nm", "--defined-only", ward], capture_output=True, text=True, check=True).stdout
    return {f[2] for f in (line.split() for line in out.splitlines()) if len(f) == 3 and f[1] in "tTwW"}


def sampled(ward, options, runs):
    """Every function of `ward` each sample of the workload lands in (with call stacks:
    each function on the stack), once per sample."""
    data = tempfile.mktemp(prefix="ward-perf-", suffix=".data")
    subprocess.run(["perf", "record", "-q", *options, "-o", data, "--", sys.executable,
                    os.path.abspath(__file__), ward, str(runs), "--workload"], check=True)
    script = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym,dso", "--no-demangle", "--no-inline"],
                            capture_output=True, text=True, check=True).stdout
    os.unlink(data)
    for line in script.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[-1] == f"({ward})":
            yield re.sub(r"\+0x[0-9a-f]+$", "", fields[1])


def pattern(symbol):
    """The input-section pattern that matches `symbol`'s section in any build with the
    same crate hashes: without the ThinLTO suffix, or (for C) the compiler's clone
    suffix such as `.constprop.0`."""
    symbol = re.sub(r"\.llvm\.\d+$", "", symbol)
    if not symbol.startswith(("_ZN", "_R")):
        symbol = symbol.split(".")[0]
    return f".text.{symbol}*"


def main():
    ward = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target/release/ward"))
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    if len(sys.argv) > 3 and sys.argv[3] == "--workload":
        return workload(ward, runs)
    known = text_symbols(ward)
    counts = Counter()
    sampling = (["-F", "50000"], runs), (["-F", "4000", "--call-graph", "dwarf,8192"], max(runs // 4, 1))
    for options, n in sampling:
        for symbol in sampled(ward, options, n):
            counts[symbol] += 1
    patterns = []
    for symbol, _ in counts.most_common():
        if symbol in known and pattern(symbol) not in patterns:
            patterns.append(pattern(symbol))
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write("/* Generated by scripts/link-order.py: the functions a one-shot `ward run`\n"
                "   executes, placed together before the rest of the text (see the script).\n"
                f"   {len(patterns)} functions, from {runs} runs. */\n"
                "SECTIONS {\n  .text.warm : {\n")
        for p in patterns:
            f.write(f"    *({p})\n")
        f.write("  }\n}\nINSERT BEFORE .text;\n")
    print(f"{OUT}: {len(patterns)} functions from {sum(counts.values())} samples in {runs} runs")


main()
