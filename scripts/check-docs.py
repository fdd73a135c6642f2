#!/usr/bin/env python3
"""Checks README.md and the book in docs/ (mdBook layout, book.toml at the root).

- Every relative link and image in README.md and docs/**/*.md points at a file or
  directory that exists inside the repository, and its `#anchor`, if any, names a
  heading of the markdown file it points at (slugs as GitHub and mdBook make them:
  lowercase, whitespace to `-`, other punctuation dropped, `-1`, `-2`… for repeats).
- Every chapter (`docs/**/*.md` but SUMMARY.md) is listed in docs/SUMMARY.md, and
  every entry of docs/SUMMARY.md exists.
- README.md is under 12,000 characters.

Links to http(s):// and mailto: are not followed; nothing here uses the network.
Each problem is printed as `file:line: message`; the exit status is 1 if there was one.
Standard library only (Python 3.11).
"""

from __future__ import annotations

import re
import sys
import unicodedata
from functools import cache
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SUMMARY = DOCS / "SUMMARY.md"
README = ROOT / "README.md"
README_LIMIT = 12_000

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
FENCE_CLOSE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*$")
ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
# [text](target "title") and ![alt](target); the target may be <...>.
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REFERENCE_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_ANCHOR = re.compile(r"<a\s+[^>]*(?:id|name)\s*=\s*[\"']([^\"']+)[\"']", re.I)
EXTERNAL = ("http://", "https://", "mailto:")


def rel(path: Path) -> str:
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return path.as_posix()


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) for every line outside fenced code blocks."""
    out = []
    fence = None
    for number, line in enumerate(text.split("\n"), start=1):
        if fence is None:
            match = FENCE.match(line)
            if match:
                fence = match.group(1)
                continue
            out.append((number, line))
        else:
            closing = FENCE_CLOSE.match(line)
            if closing and closing.group(1)[0] == fence[0] and len(closing.group(1)) >= len(fence):
                fence = None
    return out


def heading_text(raw: str) -> str:
    """A heading's text as it renders: code spans, links and emphasis unwrapped."""
    text = CODE_SPAN.sub(lambda m: m.group(2).strip(), raw)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text)
    text = text.replace("*", "")
    return text.strip()


def slug(text: str) -> str:
    """GitHub's and mdBook's anchor for a heading text."""
    out = []
    for ch in text.strip().lower():
        if ch.isalnum() or ch in "-_":
            out.append(ch)
        elif ch.isspace():
            out.append("-")
        elif unicodedata.category(ch) in ("Mn", "Mc"):
            out.append(ch)
    return "".join(out)


@cache
def anchors(path: Path) -> frozenset[str]:
    """Every anchor a markdown file defines: heading slugs and explicit HTML anchors."""
    text = path.read_text(encoding="utf-8")
    found: set[str] = set()
    seen: dict[str, int] = {}

    def add(heading: str) -> None:
        base = slug(heading_text(heading))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")

    lines = prose_lines(text)
    previous: tuple[int, str] | None = None
    for number, line in lines:
        atx = ATX.match(line)
        if atx:
            add(atx.group(2) or "")
        elif (
            SETEXT.match(line)
            and previous is not None
            and previous[0] == number - 1
            and previous[1].strip()
            and not previous[1].lstrip().startswith(("|", "-", "*", "+", ">", "#"))
            and "|" not in line
        ):
            add(previous[1])
        found.update(HTML_ANCHOR.findall(line))
        previous = (number, line)
    return frozenset(found)


def links(text: str) -> list[tuple[int, str]]:
    """(line number, target) of every inline link, image and reference definition."""
    out = []
    for number, line in prose_lines(text):
        without_code = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        for match in INLINE_LINK.finditer(without_code):
            out.append((number, match.group(1)))
        definition = REFERENCE_DEF.match(without_code)
        if definition:
            out.append((number, definition.group(1)))
    return out


def check_link(source: Path, number: int, target: str, problems: list[str]) -> None:
    where = f"{rel(source)}:{number}"
    target = target.strip()
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1].strip()
    if target.lower().startswith(EXTERNAL):
        return
    if not target:
        problems.append(f"{where}: empty link target")
        return
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
        problems.append(f"{where}: `{target}`: not a relative link (only http(s) and mailto are allowed)")
        return
    path_part, _, anchor = target.partition("#")
    path_part = unquote(path_part)
    if path_part.startswith("/"):
        problems.append(f"{where}: `{target}`: absolute path; use a path relative to {rel(source)}")
        return
    resolved = (source.parent / path_part).resolve() if path_part else source
    if resolved != ROOT and ROOT not in resolved.parents:
        problems.append(f"{where}: `{target}`: leaves the repository")
        return
    if not resolved.exists():
        problems.append(f"{where}: `{target}`: {rel(resolved)} does not exist")
        return
    if not anchor:
        return
    if resolved.is_dir() or resolved.suffix.lower() != ".md":
        problems.append(f"{where}: `{target}`: an anchor into {rel(resolved)}, which is not a markdown file")
        return
    if unquote(anchor) not in anchors(resolved):
        problems.append(f"{where}: `{target}`: no heading in {rel(resolved)} has the anchor `#{anchor}`")


def check_summary(problems: list[str]) -> None:
    if not SUMMARY.exists():
        problems.append(f"{rel(SUMMARY)}:1: missing (the book's table of contents)")
        return
    listed: set[Path] = set()
    for number, target in links(SUMMARY.read_text(encoding="utf-8")):
        target = target.strip("<>").strip()
        if target.lower().startswith(EXTERNAL):
            continue
        path_part = unquote(target.partition("#")[0])
        if not path_part:
            problems.append(f"{rel(SUMMARY)}:{number}: entry without a file (a draft chapter)")
            continue
        chapter = (SUMMARY.parent / path_part).resolve()
        if DOCS not in chapter.parents:
            problems.append(f"{rel(SUMMARY)}:{number}: `{target}`: chapter outside docs/")
        elif chapter.suffix.lower() != ".md":
            problems.append(f"{rel(SUMMARY)}:{number}: `{target}`: a chapter must be a .md file")
        elif not chapter.is_file():
            problems.append(f"{rel(SUMMARY)}:{number}: `{target}`: {rel(chapter)} does not exist")
        listed.add(chapter)
    for chapter in sorted(DOCS.rglob("*.md")):
        if chapter.resolve() != SUMMARY.resolve() and chapter.resolve() not in listed:
            problems.append(f"{rel(chapter)}:1: chapter not listed in {rel(SUMMARY)}")


def main() -> int:
    problems: list[str] = []
    size = 0
    files = [README] + sorted(DOCS.rglob("*.md"))
    for source in files:
        if not source.exists():
            problems.append(f"{rel(source)}:1: missing")
            continue
        text = source.read_text(encoding="utf-8")
        for number, target in links(text):
            check_link(source.resolve(), number, target, problems)
    check_summary(problems)
    if README.exists():
        size = len(README.read_text(encoding="utf-8"))
        if size >= README_LIMIT:
            problems.append(
                f"{rel(README)}:1: {size} characters; keep it under {README_LIMIT:,} and move text into docs/"
            )
    problems = list(dict.fromkeys(problems))  # SUMMARY.md's entries are checked twice
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"checked {len(files)} files: links, anchors, docs/SUMMARY.md, README size ({size} characters)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
