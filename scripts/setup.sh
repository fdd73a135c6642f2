#!/usr/bin/env bash
# Installs what building Ward needs beyond a Rust toolchain: the wasm32-wasip2 target
# the plugin components are compiled for.
set -euo pipefail
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-wasip2; then
    echo "installing the wasm32-wasip2 target" >&2
    rustup target add wasm32-wasip2
fi

# The JavaScript and Python plugin toolchains, pinned, installed inside the repository
# (where `ward plugin build` finds them for the examples and tests): componentize-js
# from sdk/js/package-lock.json, componentize-py from sdk/python/requirements.txt.
# Each is skipped when what is installed already matches.
cd "$(dirname "$0")/.."
js_stamp=sdk/js/node_modules/.ward-lock.sha256
js_want=$(sha256sum sdk/js/package-lock.json | cut -d' ' -f1)
if [ "$(cat "$js_stamp" 2>/dev/null)" != "$js_want" ]; then
    echo "installing componentize-js (sdk/js)" >&2
    # Not `npm ci`: some optional platform packages in the lock (other systems' binaries)
    # name versions the registry never published, which `npm ci` refuses outright;
    # `npm install --no-save` installs the locked versions and leaves the lock alone.
    (cd sdk/js && npm install --no-save --no-audit --no-fund --loglevel=error)
    echo "$js_want" > "$js_stamp"
fi
# The official ACP client library the `ward acp` test drives it with
# (tests/clients/acp/package-lock.json), installed the same way.
acp_stamp=tests/clients/acp/node_modules/.ward-lock.sha256
acp_want=$(sha256sum tests/clients/acp/package-lock.json | cut -d' ' -f1)
if [ "$(cat "$acp_stamp" 2>/dev/null)" != "$acp_want" ]; then
    echo "installing the ACP client library (tests/clients/acp)" >&2
    (cd tests/clients/acp && npm install --no-save --no-audit --no-fund --loglevel=error)
    echo "$acp_want" > "$acp_stamp"
fi
py_want=$(sed -n 's/^componentize-py==//p' sdk/python/requirements.txt)
if [ "$(sdk/python/.venv/bin/componentize-py --version 2>/dev/null)" != "componentize-py $py_want" ]; then
    echo "installing componentize-py (sdk/python/.venv)" >&2
    python3 -m venv sdk/python/.venv
    sdk/python/.venv/bin/pip install --quiet --disable-pip-version-check -r sdk/python/requirements.txt
fi

# The official MCP Python SDK the `ward mcp serve` tests drive it with, pinned in
# tests/clients/mcp-python/requirements.txt, in a virtual environment of its own;
# skipped when the pinned version is what is installed.
mcp_want=$(sed -n 's/^mcp==//p' tests/clients/mcp-python/requirements.txt)
mcp_have=$(tests/clients/mcp-python/.venv/bin/python -c \
    'import importlib.metadata as m; print(m.version("mcp"))' 2>/dev/null || true)
if [ "$mcp_have" != "$mcp_want" ]; then
    echo "installing the MCP Python SDK (tests/clients/mcp-python/.venv)" >&2
    python3 -m venv tests/clients/mcp-python/.venv
    tests/clients/mcp-python/.venv/bin/pip install --quiet --disable-pip-version-check \
        -r tests/clients/mcp-python/requirements.txt
fi

# The third-party clients the end-to-end tests drive Ward with (the OpenCode SDK, …),
# each pinned by its own lock in tests/clients/NAME, installed the same way.
for client in tests/clients/*/; do
    [ -f "$client/package-lock.json" ] || continue
    stamp="$client/node_modules/.ward-lock.sha256"
    want=$(sha256sum "$client/package-lock.json" | cut -d' ' -f1)
    if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
        echo "installing the test client $client" >&2
        (cd "$client" && npm install --no-save --no-audit --no-fund --loglevel=error)
        echo "$want" > "$stamp"
    fi
done
