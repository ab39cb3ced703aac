"""What was read: rows, items, raters, missing, dropped and why."""

from __future__ import annotations

import numpy as np

from ..._verdict import shown_label
from .._blocks import Block, Column, MethodNote, Section, Table, fmt_int
from .._context import Context

__all__ = ["build_read"]


def build_read(ctx: Context) -> Section | None:
    """What was read: rows, items, raters, missing, dropped and why."""
    if not ctx.has_labels and ctx.frame is None:
        return None
    blocks: list[Block] = []
    if ctx.has_labels:
        rep = ctx.read_report
        rows = [
            ("source", rep.source or ctx.source or "(in memory)"),
            ("rows read", fmt_int(rep.rows)),
            ("ratings kept", fmt_int(rep.ratings)),
            ("items", fmt_int(rep.items)),
            ("raters", fmt_int(rep.raters)),
            ("missing labels", fmt_int(rep.missing)),
            ("rows dropped", fmt_int(rep.dropped)),
            ("level of measurement", ctx.level),
            *_label_rows(ctx),
        ]
        lead = str(rep)[0].upper() + str(rep)[1:] + "."
        if rep.reasons:
            blocks.append(
                Table.of(
                    (Column.text("reason", 0), Column("rows dropped", 1, fmt_int)),
                    rep.reasons.items(),
                    caption="Every row not kept, by reason.",
                )
            )
    else:
        assert ctx.frame is not None
        rows = [("source", ctx.source or "(in memory)"), ("rows read", fmt_int(len(ctx.frame)))]
        lead = f"Read {len(ctx.frame):,} rows."
    rows.append(("columns", _columns(ctx)))
    blocks.insert(0, Table.facts(rows))
    return Section("read", "What was read", lead, tuple(blocks), (_method(ctx),))


def _label_rows(ctx: Context) -> list[tuple[str, str]]:
    """The values or categories of the labels, and the ratings per item (with the stream
    and dask engines, for categories only: measurements would need per-rating data)."""
    if ctx.numeric and not ctx.in_memory:
        return []
    categories = ctx.label_categories
    if ctx.numeric:  # measurements: their range, not a list of "categories"
        rows = [
            (
                "values",
                f"{categories[0]} to {categories[-1]} ({fmt_int(len(categories))} distinct)",
            )
        ]
    else:
        declared = (
            ctx.ratings.categories_declared if ctx.ratings is not None else bool(ctx.categories)
        )
        rows = [
            (
                "categories" + (" (declared)" if declared else " (observed)"),
                ", ".join(shown_label(c) for c in categories),
            )
        ]
    ratings = ctx.ratings
    if ratings is not None:  # one count a rating (no item x category table over the values)
        per_item = np.bincount(ratings.item_codes, minlength=ratings.n_items)
    else:
        per_item = ctx.consensus_result().counts.totals()
    rated = per_item[per_item > 0]
    if rated.size:
        rows.append(
            (
                "ratings per item",
                f"{int(rated.min())} to {int(rated.max())} (median {float(np.median(rated)):g})",
            )
        )
    return rows


def _columns(ctx: Context) -> str:
    """The columns read and the role of each."""
    columns = [
        (role, name)
        for role, name in (
            ("item", ctx.item),
            ("rater", ctx.rater),
            ("label", ctx.label),
            ("confidence", ctx.confidence),
            ("correct", ctx.correct),
            ("gold", ctx.gold),
        )
        if name
    ]
    for score in ctx.scores:
        columns.append(("score", score))
        if score in ctx.score_confidence:
            columns.append((f"confidence of {score}", ctx.score_confidence[score]))
    return ", ".join(f"{role}: {name}" for role, name in columns)


def _method(ctx: Context) -> MethodNote:
    return MethodNote(
        "Reading",
        "One row per rating (item, rater, label). Missing labels (empty, NaN, None) "
        "are not ratings: they are left out and counted"
        + (
            ". Labels are read as numbers (measurements). Items with fewer than two "
            "ratings enter no comparison."
            if ctx.numeric
            else ", never made a category. Items with fewer than two ratings enter no "
            "agreement pair and are counted as unpairable. Categories are the declared "
            "domain when given, else the observed labels in sorted order."
        ),
    )
