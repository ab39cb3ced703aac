"""The methods section: every estimator, convention and reference the report used."""

from __future__ import annotations

from collections.abc import Sequence

from .._blocks import Block, Column, Details, Section, Table
from .._context import Context
from .paragraph import methods_paragraph

__all__ = ["build_methods"]


def build_methods(sections: Sequence[Section], ctx: Context | None = None) -> Section:
    """The methods paragraph to copy (with ``ctx``, :func:`.paragraph.methods_paragraph`),
    then every estimator, convention and reference the report used, references numbered
    as the paragraph numbers them."""
    text, cited = ([], []) if ctx is None else methods_paragraph(ctx)
    numbers: dict[str, int] = {ref: n for n, ref in enumerate(dict.fromkeys(cited), 1)}
    rows: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    for section in sections:
        for note in section.methods:
            if (note.topic, note.text) in seen:
                continue
            seen.add((note.topic, note.text))
            cites = []
            for ref in note.references:
                numbers.setdefault(ref, len(numbers) + 1)
                cites.append(f"[{numbers[ref]}]")
            rows.append((note.topic, note.text, " ".join(cites)))
    rows.append(
        (
            "Display",
            "Numbers are rounded for display only (3 decimals for coefficients); the library "
            "computes at full precision. The same input gives the same report, byte for byte.",
            "",
        )
    )
    refs = sorted(numbers.items(), key=lambda kv: kv[1])
    # The paragraph to paste stays open; the tables behind it are folded (on a phone they
    # would be half of every page) and print open.
    blocks: list[Block] = [
        *text,
        Details(
            f"How each number was computed ({len(rows)} topics)",
            (
                Table.of(
                    (
                        Column.text("topic", 0),
                        Column.text("how it was computed", 1),
                        Column.text("refs", 2),
                    ),
                    rows,
                ),
            ),
        ),
        Details(
            f"References ({len(refs)})",
            (
                Table.of(
                    (Column.text("", 0), Column.text("reference", 1)),
                    ((f"[{n}]", ref) for ref, n in refs),
                    caption="References.",
                ),
            ),
        ),
    ]
    return Section(
        "methods",
        "Methods",
        "Every estimator, convention and reference behind the numbers above.",
        tuple(blocks),
    )
