#!/usr/bin/env bash
# Regenerates the terminal UI's screenshots: the pseudo-terminal tests write the
# screens they assert on (parsed by `vt100`) to docs/tui-*.txt, then each is put into
# docs/frontends/tui.md in place of the block after its `<!-- screen: docs/tui-NAME.txt -->`
# marker. `tui::the_readme_embeds_the_generated_screens` fails when they differ.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -p ward -p ward-sandbox
target/debug/ward plugin embed-builtins --out target/embedded/debug >/dev/null
cargo build -p ward -p ward-sandbox
WARD_UPDATE_SCREENSHOT=1 cargo test -p ward-tests --test e2e tui:: -- --skip the_readme_embeds
python3 - <<'PY'
import pathlib
import re

readme = pathlib.Path("docs/frontends/tui.md")
text = readme.read_text()


def block(match):
    name = match.group(1)
    return f"<!-- screen: {name} -->\n```text\n{pathlib.Path(name).read_text()}```\n"


text = re.sub(
    r"<!-- screen: (docs/tui-[\w-]+\.txt) -->\n```text\n.*?```\n", block, text, flags=re.S
)
readme.write_text(text)
PY
