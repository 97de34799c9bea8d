"""mkdocs hook: pages take sections of the README (and other Markdown files of the project)
rather than copies of them, so the site and the README never disagree.

In a page, ``<!-- include README.md "A job" -->`` is replaced by the text of the section with
that heading, up to its first sub-heading; ``... "A job" all`` takes its sub-sections too,
and ``<!-- include bench/README.md -->`` a whole file (its first heading dropped). Headings
are shifted to sit under the page's own, and links to files of the project are rewritten:
to the site's page when it has one, else to plain text. A section that is not found stops the
build (a renamed heading must be renamed here too).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INCLUDE = re.compile(r'<!-- include (\S+)(?: "([^"]+)")?( all)? -->')
HEADING = re.compile(r"^(#{1,6}) (.*)$")
#: project files that are pages of the site
PAGES = {"docs/risk.md": "risk.md", "docs/koptimize.md": "koptimize.md", "docs/architecture.md": "architecture.md",
         "bench/README.md": "benchmarks.md", "README.md": "index.md", "CHANGELOG.md": "changelog.md"}


def _lines_outside_code(lines: list[str]):
    fenced = False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
        yield i, line, fenced


def section(path: str, title: str | None, everything: bool) -> tuple[str, int]:
    """The text under ``title`` in ``path`` and the level of its heading."""
    lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
    start, level = None, 1
    for i, line, fenced in _lines_outside_code(lines):
        match = HEADING.match(line)
        if fenced or not match:
            continue
        depth = len(match.group(1))
        if start is None:
            if title is None or match.group(2).strip() == title:
                start, level = i + 1, depth
                if title is None:
                    everything = True
            continue
        if depth <= level or not everything:
            return "\n".join(lines[start:i]), level
    if start is None:
        raise ValueError(f"docs: no section {title!r} in {path}: update the include in the page")
    return "\n".join(lines[start:]), level


def _links(text: str, path: str) -> str:
    folder = Path(path).parent

    def replace(match: re.Match) -> str:
        label, target = match.group(1), match.group(2)
        if re.match(r"[a-z]+:|#", target):
            return match.group(0)
        file, _, anchor = target.partition("#")
        resolved = str((folder / file).as_posix()).removeprefix("./")
        page = PAGES.get(resolved)
        if page:
            return f"[{label}]({page}{'#' + anchor if anchor else ''})"
        return label if label.startswith("`") else f"`{label}`" if "/" in label else label
    text = re.sub(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)", replace, text)
    # images of other folders are not part of the site: their alt text stands in
    return re.sub(r"!\[([^\]]*)\]\(([^)\s]+)\)", lambda m: m.group(0) if m.group(2).startswith("data:") else
                  f"*({m.group(1)}: `{(folder / m.group(2)).as_posix()}` in the repository)*", text)


def on_page_markdown(markdown: str, page, config, files) -> str:
    def include(match: re.Match) -> str:
        path, title, everything = match.group(1), match.group(2), bool(match.group(3))
        text, level = section(path, title, everything)
        shift = 1 - level  # the section's sub-headings become the page's second level
        out = []
        for _, line, fenced in _lines_outside_code(text.splitlines()):
            heading = HEADING.match(line)
            if heading and not fenced:
                depth = min(6, max(2, len(heading.group(1)) + shift))
                line = "#" * depth + " " + heading.group(2)
            out.append(line)
        return _links("\n".join(out), path)

    return INCLUDE.sub(include, markdown)
