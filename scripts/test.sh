#!/usr/bin/env bash
# Runs every test: unit tests of each crate, the standard tools end to end through the
# real `ward` binary, and the hostile-plugin suite against real components.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# The end-to-end tests drive the real binary, so build it first.
cargo build -p ward -p ward-sandbox
cargo test "$@"
