"""Pairs of raters: a heatmap of Cohen's kappa over every pair (three raters or more)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import figures
from .._blocks import (
    Block,
    Figure,
    MethodNote,
    Note,
    Paragraph,
    Section,
    fmt,
    fmt_int,
    fmt_p,
    fmt_pct,
)
from .._context import Context
from .common import REF, rater_test, rater_test_note

__all__ = ["build_pairwise"]

#: Raters shown in the heatmap.
LIMIT = 40

#: Pairs of raters who share fewer items than this are left blank in the heatmap.
MIN_SHARED = 10


def build_pairwise(ctx: Context) -> Section | None:
    """Heatmap of a two-rater measure over every pair of raters (three raters or more)."""
    if not ctx.has_labels or ctx.numeric or ctx.n_raters < 3:
        return None
    from ...agreement import pairwise_agreement
    from ...front.agreement import rater_pair_tables

    # The pair tables are sums over items: every engine gives them (raters x raters tables).
    tables = ctx.cached("pair_tables", lambda: rater_pair_tables(ctx.data))
    if tables is None:
        return ctx.unavailable("pairwise", "Pairs of raters")
    result = ctx.cached("pairwise", lambda: pairwise_agreement(tables))
    names = [str(r) for r in result.matrix.index]
    common = result.n_common.to_numpy()
    # a pair that shares a handful of items has a kappa of noise: left blank, not coloured
    values = np.where(common >= MIN_SHARED, result.matrix.to_numpy(dtype=np.float64), np.nan)
    measure = "Cohen's kappa" if result.measure == "cohen_kappa" else str(result.measure)
    shown, note = _shown_raters(common, ctx.n_raters)
    blocks: list[Block] = [Note(note)] if note else []
    methods = [
        MethodNote(
            "Pairwise agreement",
            f"{measure} per pair: accord.pairwise_agreement (Cohen's kappa of each pair's "
            "contingency table); mean and SD over pairs.",
            (REF["cohen1960"], REF["light1971"]),
        )
    ]
    test = rater_test(ctx)
    if test is not None:
        methods.append(rater_test_note(test))
        blocks.append(Paragraph(_pairs_text(test)))
    if not shown:
        lead = "No two raters rated an item in common: there is no pair of raters to compare."
        return Section("pairwise", "Pairs of raters", lead, tuple(blocks), tuple(methods))
    blocks.append(_heatmap(names, values, shown, measure))
    lead = (
        f"Mean {measure} over {fmt_int(result.n_pairs)} pairs of raters: {fmt(float(result.mean))} "
        f"(SD {fmt(float(result.sd))}). A rater whose row is pale agrees with nobody in "
        "particular."
    )
    return Section("pairwise", "Pairs of raters", lead, tuple(blocks), tuple(methods))


def _heatmap(names: list[str], values: Any, shown: list[int], measure: str) -> Figure:
    """The heatmap of the pairs of the raters ``shown``."""
    labels = [names[i] for i in shown]
    vmin = -1.0 if measure == "Cohen's kappa" else 0.0
    svg = figures.heatmap(
        "pairwise",
        values[np.ix_(shown, shown)],
        labels,
        labels,
        vmin=vmin,
        vmax=1.0,
        cmap="RdBu" if vmin < 0 else "Blues",
        colorbar_label=measure,
    )
    return Figure(
        svg,
        f"{measure} of every pair of raters that rated items in common (blank: fewer "
        f"than {MIN_SHARED} items in common, too few for the pair's value to mean much).",
        f"Heatmap of pairwise {measure} among {fmt_int(len(labels))} raters",
    )


def _shown_raters(common: Any, n_raters: int) -> tuple[list[int], str]:
    """The raters of the heatmap: those who share an item with another (the
    :data:`LIMIT` who share the most, when more do; none when no two do), and the note
    saying so when they are not all ``n_raters`` raters (those who gave a rating).

    >>> common = np.array([[0, 3, 0], [3, 0, 0], [0, 0, 0]])
    >>> _shown_raters(common, 3)
    ([0, 1], 'Showing the 2 raters who share an item with another, of 3.')
    """
    per_rater = common.sum(axis=1)
    sharing = np.flatnonzero(per_rater > 0)
    if len(sharing) > LIMIT:
        top = sorted(int(i) for i in np.argsort(-per_rater, kind="stable")[:LIMIT])
        return top, f"Showing the {LIMIT} raters who share the most items of {fmt_int(n_raters)}."
    shown = [int(i) for i in sharing]
    if not shown or len(shown) >= n_raters:
        return shown, ""
    some = f"Showing the {len(shown)} raters who share an item with another"
    return shown, f"{some}, of {fmt_int(n_raters)}."


def _pairs_text(test: Any) -> str:
    """Which pairs agree less than interchangeable raters would, or that none does."""
    pairs = test.pairs
    tested = int(pairs["pvalue"].notna().sum())
    if test.reason:
        return f"No pair is singled out: {test.reason}."
    flagged = pairs[pairs["stands_out"]]
    if not tested:
        return (
            f"No pair could be tested: the permutation test needs {test.min_items} items or "
            "more shared by two raters, whose labels are not all alike. The heatmap's palest "
            "cell is not a finding."
        )
    if flagged.empty:
        return (
            f"No pair of raters agrees less than the others beyond the noise: of {tested} "
            f"pairs sharing at least {test.min_items} items, none falls below what "
            f"interchangeable raters give (permutation test, adjusted p >= "
            f"{fmt(test.significance, 2)}). The heatmap's palest cell is not a finding."
        )
    names = "; ".join(
        f"{r.rater_a} and {r.rater_b} ({fmt_pct(r.agreement, 0)} agreement on "
        f"{fmt_int(r.n_items)} shared items where {fmt_pct(r.expected_agreement, 0)} was "
        f"expected; adjusted p {fmt_p(r.pvalue)})"
        for r in flagged.head(5).itertuples(index=False)
    )
    return (
        f"{fmt_int(len(flagged))} of {fmt_int(tested)} pairs agree less than interchangeable "
        "raters would "
        f"(permutation test, adjusted for all pairs): {names}."
    )
