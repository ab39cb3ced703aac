"""Measurements: each rater's mean difference from the others, in the data's units."""

from __future__ import annotations

from typing import Any

import pandas as pd

from .. import figures
from .._blocks import (
    Block,
    Figure,
    MethodNote,
    Note,
    Section,
    Table,
    Tone,
    fmt,
    fmt_ci,
    fmt_int,
    fmt_p,
)
from .._context import Context
from .common import REF

__all__ = ["build_differences"]

#: Raters shown.
LIMIT = 40

TITLE = "Raters compared with each other"


def build_differences(ctx: Context) -> Section | None:
    """Each rater's mean difference from the others (the raters section for measurements)."""
    ratings = ctx.ratings
    if ratings is None:
        return ctx.unavailable("raters", TITLE)
    from ... import rater_differences

    diff = ctx.cached(
        "rater_differences",
        lambda: rater_differences(ratings, confidence_level=ctx.confidence_level),
    )
    table = diff.table
    blocks: list[Block] = [_figure(ctx, table.head(LIMIT)), _table(ctx, table.head(LIMIT))]
    if len(table) > LIMIT:
        blocks.insert(
            0, Note(f"Showing the {LIMIT} raters with the largest offsets of {len(table)}.")
        )
    method = MethodNote(
        "Rater differences",
        f"{diff.method[0].upper()}{diff.method[1:]} (with two raters, the Bland-Altman "
        "mean difference).",
        (REF["ba1986"], REF["holm1979"]),
    )
    return Section("raters", TITLE, _lead(ctx, diff, ratings.n_raters), tuple(blocks), (method,))


def _lead(ctx: Context, diff: Any, n_raters: int) -> str:
    """Who measures higher or lower than the others beyond the noise, or that nobody does."""
    table = diff.table
    flagged = table[table["stands_out"]]
    if n_raters == 2 and not flagged.empty:  # one offset, seen from either side
        first = flagged.sort_values("mean_difference", ascending=False, kind="stable").iloc[0]
        other = next(str(x) for x in table["rater"] if x != first["rater"])
        return (
            f"{first['rater']} measures {'higher' if first['mean_difference'] > 0 else 'lower'}"
            f" than {other} by {fmt(abs(first['mean_difference']), 2)} on average (the "
            f"Bland-Altman mean difference; {ctx.level_pct} CI "
            f"{fmt_ci(first['ci_low'], first['ci_high'], 2)}, adjusted p "
            f"{fmt_p(first['pvalue_adjusted'])}). The absolute-agreement ICC counts such an "
            "offset as disagreement."
        )
    if flagged.empty:
        return (
            f"No rater measures systematically higher or lower than the others beyond the "
            f"noise: every {ctx.level_pct} interval of a mean difference is wide enough to "
            f"hold it, or its Holm-adjusted p-value is at least {fmt(diff.significance, 2)}."
        )
    return (
        "; ".join(
            f"{r.rater} measures {'higher' if r.mean_difference > 0 else 'lower'} than "
            f"the others by {fmt(abs(r.mean_difference), 2)} on average ({ctx.level_pct} "
            f"CI {fmt_ci(r.ci_low, r.ci_high, 2)}, adjusted p {fmt_p(r.pvalue_adjusted)})"
            for r in flagged.head(5).itertuples(index=False)
        )
        + ". The absolute-agreement ICC counts such an offset as disagreement. One "
        "rater's offset moves the others' differences the other way (by its share in "
        "their reference), so read the largest first."
    )


def _figure(ctx: Context, shown: pd.DataFrame) -> Figure:
    return Figure(
        figures.bar_with_errors(
            "rater-differences",
            [str(x) for x in shown["rater"]],
            shown["mean_difference"].tolist(),
            None,
            lows=shown["ci_low"].tolist(),
            highs=shown["ci_high"].tolist(),
            xlabel=f"mean difference from the other raters ({ctx.label or 'the data'}"
            "'s units; above 0: measures high)",
        ),
        f"Each rater's mean difference from the mean of the other raters of the same "
        f"item, with its {ctx.level_pct} interval; an interval that excludes 0 marks a "
        "systematic offset.",
        "Mean difference of each rater from the others",
    )


def _table(ctx: Context, shown: pd.DataFrame) -> Table:
    rows = tuple(
        (
            str(r.rater),
            fmt_int(r.n_items),
            fmt(r.mean_difference, 2),
            fmt_ci(r.ci_low, r.ci_high, 2),
            fmt(r.mean_absolute_difference, 2),
            fmt(r.sd, 2),
            fmt_p(r.pvalue_adjusted),
        )
        for r in shown.itertuples(index=False)
    )
    tones: tuple[Tone, ...] = tuple("poor" if bool(x) else "neutral" for x in shown["stands_out"])
    return Table(
        (
            "rater",
            "items",
            "mean difference",
            f"{ctx.level_pct} CI",
            "mean absolute difference",
            "SD",
            "adjusted p",
        ),
        rows,
        (False, True, True, True, True, True, True),
        caption="Difference: the rater's measurement minus the mean of the other raters' "
        "measurements of the item, in the data's units. Adjusted p: two-sided t test of "
        "a zero mean, Holm-adjusted over the raters (a highlighted row stands out).",
        row_tones=tones,
    )
