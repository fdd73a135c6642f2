#!/usr/bin/env bash
# Builds everything: the first-party plugin components (embedded in the binary) and the
# `ward` binary, optimised. The binary ends up at target/release/ward.
#
# Two passes: the first builds `ward` with the standard plugins' components; that
# `ward` then compiles them with its own engine and asks what they declare
# (`ward plugin embed-builtins`), and the second pass relinks it with both embedded,
# so a first run compiles nothing. wasmtime is compiled once, for the runtime.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --release -p ward -p ward-sandbox
target/release/ward plugin embed-builtins --out target/embedded/release >/dev/null
cargo build --release -p ward -p ward-sandbox
