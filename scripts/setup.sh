#!/usr/bin/env bash
# Installs what building Ward needs beyond a Rust toolchain: the wasm32-wasip2 target
# the plugin components are compiled for.
set -euo pipefail
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-wasip2; then
    echo "installing the wasm32-wasip2 target" >&2
    rustup target add wasm32-wasip2
fi
