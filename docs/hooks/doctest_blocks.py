"""MkDocs hook: show the pages' bare doctest examples as Python console code blocks.

The pages under docs/ are doctested as they are (tests/test_docs.py), so an example may stand
in the Markdown without a fence. Markdown would run such lines together into a paragraph; this
hook fences each run of them (a ``>>>`` line and the non-blank lines that follow it, which is
how doctest reads an example and its output) as ``pycon`` before the page is rendered. Fenced
examples are left alone.
"""

from __future__ import annotations

import re
from typing import Any

FENCE = re.compile(r"^\s*(```|~~~)")


def fence_doctests(markdown: str) -> str:
    """Fence every unfenced run of doctest lines.

    A run starts at a line opening with ``>>>`` outside a fence and ends at the first blank
    line; the fence takes the run's indentation, so examples inside list items stay there.
    """
    out: list[str] = []
    lines = markdown.split("\n")
    in_fence = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if FENCE.match(line):
            in_fence = not in_fence
            out.append(line)
            i += 1
            continue
        if not in_fence and line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i])
                i += 1
            out.append(f"{indent}```pycon")
            out.extend(block)
            out.append(f"{indent}```")
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    return fence_doctests(markdown)
