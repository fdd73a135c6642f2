#!/usr/bin/env bash
# Builds everything: the first-party plugin components (embedded in the binary) and the
# `ward` binary, optimised. The binary ends up at target/release/ward.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --release -p ward -p ward-sandbox
