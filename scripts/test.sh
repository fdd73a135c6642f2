#!/usr/bin/env bash
# Runs every test: unit tests of each crate, the standard tools end to end through the
# real `ward` binary, and the hostile-plugin suite against real components.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# The end-to-end tests drive the real binary, so build it first — together with
# everything `cargo test` builds, in one invocation. Cargo resolves features per
# invocation: `cargo build -p ward` alone resolves them without the tests'
# dev-dependencies, so `cargo test` then rebuilt wasmtime, tokio and a hundred other
# crates with the tests' features (and `ward` under `cargo test` is the binary built
# here). With the same targets selected, `cargo test` finds everything built.
cargo build --lib --bins --tests --examples
# The standard plugins' compiled code and declarations, made by the `ward` just built
# with its own engine, then embedded by relinking it (see scripts/build.sh): the tests
# run the binary as users get it, compiling nothing on a first run.
target/debug/ward plugin embed-builtins --out target/embedded/debug >/dev/null
cargo build --lib --bins --tests --examples
cargo test "$@"
