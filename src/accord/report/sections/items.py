"""Contested items: the distribution of item entropy and the most contested items
(categories only: for measurements, exact matches of values mean nothing)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..._validate import counted
from ..._verdict import shown_label
from .. import figures
from .._blocks import Block, Column, Figure, MethodNote, Section, Table, fmt, fmt_int, fmt_pct
from .._context import Context
from .common import REF

__all__ = ["build_items"]

#: Contested items listed.
TOP = 10


def _lead(cons: Any, unanimous: int, n: int, entropy: str) -> str:
    """How many items are unanimous, items of one rating apart (nothing to contest)."""
    sizes = cons.items["n_ratings"].to_numpy()
    once = int(np.sum(sizes == 1))
    if once == n:
        return "Every item has one rating: none can be contested (entropy 0 bits each)."
    if not once:
        unanimity = f"{fmt_int(unanimous)} of {counted(n, 'item')} {_are(n)} unanimous"
        return f"{unanimity}; the mean entropy is {entropy}."
    return (
        f"{fmt_int(unanimous - once)} of {counted(n - once, 'item')} rated twice or more "
        f"{_are(n - once)} unanimous, and {fmt_int(once)} {'has' if once == 1 else 'have'} one "
        "rating; the mean entropy over all "
        f"{fmt_int(n)} is {entropy}."
    )


def _are(n: int) -> str:
    return "is" if n == 1 else "are"


def build_items(ctx: Context) -> Section | None:
    """The distribution of item entropy and the most contested items."""
    if not ctx.has_labels or ctx.numeric:
        return None
    cons = ctx.consensus_result()
    entropy = cons.items["entropy"].to_numpy(dtype=np.float64)
    finite = entropy[np.isfinite(entropy)]
    if finite.size == 0:
        return None
    mean_entropy = float(cons.summary.mean_entropy)
    q = len(ctx.label_categories)
    unanimous = int(np.sum(finite <= 1e-12))
    top_h = math.log2(q) if q > 1 else 1.0
    svg = figures.histogram(
        "entropy",
        finite,
        bins=np.linspace(0.0, top_h, 21) if top_h > 0 else 10,
        xlabel=f"entropy of the item's ratings (bits; 0 = unanimous, {top_h:.2f} = evenly spread)",
        marker=mean_entropy,
        marker_label=f"mean {mean_entropy:.2f}",
    )
    possible = f"{fmt(mean_entropy)} bits of a possible {fmt(top_h)}"
    lead = _lead(cons, unanimous, finite.size, possible)
    contested, ranked_by = _most_contested(ctx, cons)
    blocks: list[Block] = [
        Figure(
            svg,
            "How contested the items are: the entropy of each item's ratings.",
            f"Histogram of item entropy; {unanimous} unanimous items of {finite.size}",
        ),
        Table.of(
            (
                Column.name("item", "item"),
                Column("ratings", "n_ratings", fmt_int),
                Column.text("labels given", _spread(cons.categories)),
                Column.text(
                    "modal label",
                    lambda r: f"{shown_label(r['mode'])} ({fmt_pct(r['modal_share'], 0)})",
                ),
                Column("entropy (bits)", "entropy"),
                *(
                    [Column("ordinal entropy (bits)", "ordinal_entropy")]
                    if ranked_by == "ordinal_entropy"
                    else []
                ),
            ),
            contested,
            caption=(
                "The most contested item, highest "
                if len(contested) == 1
                else f"The {len(contested)} most contested items, highest "
            )
            + (
                "ordinal entropy first (Simon 2010: the categories in their order, so that a "
                "split between far grades is more contested than one between neighbours)."
                if ranked_by == "ordinal_entropy"
                else "entropy first."
            ),
        ),
    ]
    method = MethodNote(
        "Consensus diagnostics", str(cons.method), (REF["simon2010"], REF["shannon1948"])
    )
    return Section("items", "Contested items", lead, tuple(blocks), (method,))


def _most_contested(ctx: Context, cons: Any) -> tuple[list[dict[str, Any]], str]:
    """The most contested items as rows, and the column they are ranked by: on an ordinal
    scale Simon's ordinal entropy (:func:`accord.consensus` with ``ordinal=True``), which
    counts how far apart the labels are; else the entropy."""
    if ctx.level != "ordinal":
        return cons.most_contested(TOP).to_dict(orient="records"), "entropy"
    from ...front.consensus import consensus

    ordinal = ctx.cached(
        "consensus-ordinal",
        lambda: consensus(ctx.data, ordinal=True),
    )
    items = ordinal.items.dropna(subset=["ordinal_entropy"])
    ranked = items.sort_values(
        ["ordinal_entropy", "modal_share"], ascending=[False, True], kind="stable"
    ).head(TOP)
    return ranked.to_dict(orient="records"), "ordinal_entropy"


def _spread(categories: Any) -> Callable[[Any], str]:
    """How an item's ratings spread over the categories given, e.g. ``a ×2 · b ×1``."""
    count_cols = [f"count_{c}" for c in categories]

    def spread(r: Any) -> str:
        return " \u00b7 ".join(
            f"{shown_label(c)} \u00d7{int(r[col])}"
            for c, col in zip(categories, count_cols, strict=True)
            if r.get(col)
        )

    return spread
