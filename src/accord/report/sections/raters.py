"""The raters section. Categories: the raters against the consensus, ranked by how far their
ratings stray from it (named only beyond a permutation test), with their profiles and, given
gold labels, their accuracy. Measurements: each rater's mean difference from the others, in
the data's units."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..._verdict import shown_label
from .. import figures
from .._blocks import (
    Block,
    Column,
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
    fmt_pct,
)
from .._context import Context
from .common import REF, rater_test, rater_test_note

__all__ = ["build_raters"]

#: Raters shown.
LIMIT = 40

CLASSES = ("good", "acceptable", "poor", "very poor")

DEVIATION_NOTE = MethodNote(
    "Rater deviation",
    "Surprisal s = -log2 p of each rating, p the share of the item's ratings in the "
    "same category; deviation d = s - e, e the item's entropy; classes on d: good "
    "<= 0 < acceptable <= 1 < poor <= 2 < very poor (bits). Raters ranked by mean "
    "deviation; each rater also compared with the leave-one-out consensus label "
    "(percent agreement, Cohen's kappa, informational agreement).",
    (REF["simon2010"], REF["cohen1960"], REF["cfg2020"]),
)

Intervals = dict[Any, tuple[float, float]]

_PCT = functools.partial(fmt_pct, digits=0)  # a share, in whole percent
_TWO = functools.partial(fmt, digits=2)  # two decimals (z, differences in the units)


def build_raters(ctx: Context) -> Section | None:
    """Raters ranked by how far their ratings stray from the consensus, with profiles."""
    if not ctx.has_labels:
        return None
    if ctx.numeric:
        return _build_differences(ctx)
    gold = ctx.gold is not None
    title = "Raters against the consensus" + (" and the gold labels" if gold else "")
    # with two raters the pair is the consensus: the section is then only about the gold labels
    if ctx.n_raters < (2 if gold else 3):
        return None
    # the per-rater sums against the consensus are merged batch by batch: every engine has
    # them; the rating profiles and the permutation test need the ratings in memory
    raters = ctx.consensus_result().raters
    raters = raters[raters["n_ratings"] > 0]  # a rater of missing labels only: nothing to rank
    test = rater_test(ctx) if ctx.n_raters >= 3 else None
    gold_ci = _gold_intervals(ctx, raters)
    blocks: list[Block] = [_classes_figure(raters), _table(ctx, raters, test, gold_ci)]
    if ctx.ratings is not None:
        blocks.extend(_profiles(ctx, raters))
    lead = _stray_text(test, raters) + (
        " Agreement with the consensus is not correctness: the lone dissenter may be the "
        "one who is right."
    )
    if gold and "gold_accuracy" in raters:
        lead += " " + _gold_lead(ctx, raters, gold_ci)
    if len(raters) > LIMIT:
        many = f"Showing the {LIMIT} raters who stray most of {fmt_int(len(raters))}."
        blocks.insert(0, Note(many))
    methods = [*((rater_test_note(test),) if test is not None else ()), DEVIATION_NOTE]
    if gold:
        methods.append(
            MethodNote(
                "Raters against the gold labels",
                f"Each rater's ratings of the items with a gold label (column {ctx.gold}) "
                "against that label: accuracy (share equal) with its Wilson score interval, "
                "and Cohen's kappa (chance from the rater's and the gold labels' marginal "
                "shares).",
                (REF["cohen1960"], REF["wilson1927"]),
            )
        )
    return Section("raters", title, lead, tuple(blocks), tuple(methods), nav="Raters")


def _gold_intervals(ctx: Context, raters: pd.DataFrame) -> Intervals:
    """The Wilson interval of each rater's accuracy against the gold labels."""
    if ctx.gold_labels is None or "gold_accuracy" not in raters:
        return {}
    from ...confidence import wilson_interval

    n_gold = raters["gold_n"].to_numpy(dtype=np.float64)
    acc = raters["gold_accuracy"].to_numpy(dtype=np.float64)
    low, high = wilson_interval(acc * n_gold, n_gold, ctx.confidence_level)
    return {r: (float(a), float(b)) for r, a, b in zip(raters["rater"], low, high, strict=True)}


def _classes_figure(raters: pd.DataFrame) -> Figure:
    shown = raters.head(LIMIT)
    share_cols = [f"share_{c.replace(' ', '_')}" for c in CLASSES]
    svg = figures.class_bars(
        "rater-classes",
        [str(r) for r in shown["rater"]],
        np.column_stack([shown[c].to_numpy(dtype=np.float64) for c in share_cols]),
        CLASSES,
    )
    return Figure(
        svg,
        "Share of each rater's ratings in each deviation class, raters who stray most at the top.",
        "Deviation classes per rater",
    )


def _columns(
    ctx: Context,
    tested: dict[Any, tuple[float, float, bool]] | None,
    gold_ci: Intervals,
) -> tuple[Column, ...]:
    """Each rater's deviation, agreement with the consensus, the test, the gold."""

    def known(field: str) -> Callable[[Mapping[Any, Any]], Any]:  # a field some tables lack
        return lambda r: r.get(field, math.nan)

    columns: tuple[Column, ...] = (
        Column("rank", "rank", fmt_int),
        Column.name("rater", "rater"),
        Column("ratings", "n_ratings", fmt_int),
        Column("mean deviation (bits)", "mean_deviation"),
        Column("poor or worse", lambda r: r["share_poor"] + r["share_very_poor"], _PCT),
        Column("agrees with consensus", known("consensus_agreement"), _PCT),
        Column("kappa vs consensus", known("consensus_kappa")),
        Column("IA vs consensus", known("consensus_ia")),
    )
    if tested is not None:

        def test(r: Mapping[Any, Any]) -> tuple[float, float, bool]:
            return tested.get(r["rater"], (math.nan, math.nan, False))

        columns += (
            Column("z", lambda r: test(r)[0], _TWO),
            Column("adjusted p", lambda r: test(r)[1], fmt_p),
        )
    if ctx.gold_labels is not None:
        columns += (
            Column("items with gold", lambda r: r.get("gold_n", 0), fmt_int),
            Column("accuracy vs gold", known("gold_accuracy"), _PCT),
            Column(
                f"{ctx.level_pct} CI",
                lambda r: (
                    fmt_ci(*gold_ci.get(r["rater"], (math.nan, math.nan)), digits=2)
                    if gold_ci
                    else "\u2013"
                ),
                str,
            ),
            Column("kappa vs gold", known("gold_kappa")),
        )
    return columns


def _untested(test: Any, shown: pd.DataFrame) -> str:
    """Why a shown rater has no adjusted p (a dash): too few items for the test."""
    rows = test.raters
    untested = set(rows.loc[rows["pvalue"].isna() & (rows["n_items"] < test.min_items), "rater"])
    if untested.isdisjoint(shown["rater"]):
        return ""
    return (
        f" A dash for adjusted p: the rater has fewer than {test.min_items} items rated by "
        "others too, too few to test (the z is shown for reference)."
    )


def _table(ctx: Context, raters: pd.DataFrame, test: Any, gold_ci: Intervals) -> Table:
    shown = raters.head(LIMIT)
    tested = (
        {r.rater: (r.z, r.pvalue, bool(r.stands_out)) for r in test.raters.itertuples(index=False)}
        if test is not None
        else None
    )
    tones: tuple[Tone, ...] = tuple(
        "poor" if (tested or {}).get(r, (0.0, 1.0, False))[2] else "neutral" for r in shown["rater"]
    )
    return Table.of(
        _columns(ctx, tested, gold_ci),
        shown.to_dict(orient="records"),
        caption="Deviation = surprisal of the rating minus the entropy of its item: above "
        "0, the rater's choices are more surprising than the panel's average choice. "
        "Consensus: the unique modal label of the other raters of the item."
        + (
            " z and adjusted p: the permutation test of whether the rater strays more "
            "than interchangeable raters would (a highlighted row does)." + _untested(test, shown)
            if test is not None
            else ""
        )
        + (
            f" Gold: the label in column {ctx.gold} (accuracy: share of the rater's "
            "ratings of gold items equal to it, with its Wilson interval; kappa: Cohen's "
            "kappa against it)."
            if ctx.gold_labels is not None
            else ""
        ),
        row_tones=tones,
    )


def _profiles(ctx: Context, raters: pd.DataFrame) -> list[Block]:
    """How each rater shown spreads their ratings over the categories."""
    from ...agreement.raters import RatingTallies

    ratings = ctx.ratings
    assert ratings is not None
    tallies = ctx.cached("tallies", lambda: RatingTallies(ratings))
    profile = tallies.profiles.astype(np.float64)
    order = [
        int(np.flatnonzero(ratings.raters == r)[0])
        for r in raters.head(LIMIT)["rater"]
        if (ratings.raters == r).any()
    ]
    if not order:
        return []
    shares = profile[order] / np.maximum(profile[order].sum(axis=1, keepdims=True), 1.0)
    svg = figures.heatmap(
        "rater-profiles",
        shares,
        [str(ratings.raters[i]) for i in order],
        [shown_label(c) for c in ratings.categories],
        vmin=0.0,
        vmax=1.0,
        cmap="Blues",
        colorbar_label="share of the rater's ratings",
    )
    return [
        Figure(
            svg,
            "Profiles: how each rater spreads their ratings over the categories (a rater "
            "who over-uses a category shows a darker cell than the others).",
            "Rater profiles over the categories",
        )
    ]


def _stray_text(test: Any, raters: pd.DataFrame) -> str:
    """Which raters stray beyond the noise, or that none does (with two raters, or without
    the test, nothing is named)."""
    if len(raters) == 0:
        return "No rater could be scored."
    if test is None and len(raters) >= 3:  # the stream and dask engines: no permutation test
        return (
            "The ranking below is by mean deviation from the consensus, for reference: whether "
            "a rater strays beyond the noise is a permutation test of the ratings, run with "
            "the memory engine."
        )
    if test is None:
        return (
            "With two raters, neither can be said to stray from the other: the table compares "
            "each with the gold labels."
        )
    tested = int(test.raters["pvalue"].notna().sum())
    flagged = test.raters[test.raters["stands_out"]]
    if not tested:
        return (
            f"No rater could be tested: the permutation test needs {test.min_items} items of a "
            "rater or more, rated by others too, whose labels are not all alike. The ranking "
            "below is by mean deviation, for reference, not a finding."
        )
    if flagged.empty:
        return (
            f"No rater strays beyond the noise: of {fmt_int(tested)} raters with at least "
            f"{test.min_items} items, none has ratings more surprising than interchangeable "
            f"raters give (permutation test, adjusted p >= {fmt(test.significance, 2)}). The "
            "ranking below is by mean deviation, for reference, not a finding."
        )
    names = "; ".join(
        f"{r.rater} (mean deviation {fmt(r.mean_deviation)} bits, adjusted p {fmt_p(r.pvalue)})"
        for r in flagged.head(5).itertuples(index=False)
    )
    verb = "strays" if len(flagged) == 1 else "stray"
    return (
        f"{names} {verb} from the consensus beyond the noise: more surprising ratings than "
        f"interchangeable raters give (permutation test over {tested} raters)."
    )


def _gold_lead(ctx: Context, raters: pd.DataFrame, intervals: Intervals) -> str:
    """One sentence on the raters' accuracy against the gold labels: the most and least
    accurate are named only when their Wilson intervals do not overlap."""
    scored = raters[raters["gold_n"] > 0].sort_values(
        ["gold_accuracy", "rater"], ascending=[False, True], kind="stable"
    )
    n_gold = 0 if ctx.gold_labels is None else len(ctx.gold_labels)
    if scored.empty:
        return f"No rater rated an item with a gold label ({fmt_int(n_gold)} items have one)."
    best, worst = scored.iloc[0], scored.iloc[-1]
    b_ci = intervals.get(best["rater"], (math.nan, math.nan))
    w_ci = intervals.get(worst["rater"], (math.nan, math.nan))

    def say(row: Any, ci: tuple[float, float]) -> str:
        return (
            f"{fmt_pct(row['gold_accuracy'], 0)}, {ctx.level_pct} CI "
            f"{fmt_pct(ci[0], 0)} to {fmt_pct(ci[1], 0)}, kappa {fmt(row['gold_kappa'])}"
        )

    head = f"Against the gold labels ({fmt_int(n_gold)} items): "
    if len(scored) == 1:
        return f"{head}{best['rater']} ({say(best, b_ci)})."
    if w_ci[1] < b_ci[0]:
        return (
            f"{head}{best['rater']} is the most accurate ({say(best, b_ci)}), "
            f"{worst['rater']} the least ({say(worst, w_ci)}); their Wilson intervals do not "
            "overlap."
        )
    return (
        f"{head}accuracy runs from {fmt_pct(worst['gold_accuracy'], 0)} to "
        f"{fmt_pct(best['gold_accuracy'], 0)}, and the Wilson intervals of the most and least "
        "accurate overlap: no rater is singled out."
    )


DIFFERENCES_TITLE = "Raters compared with each other"


def _build_differences(ctx: Context) -> Section | None:
    """Each rater's mean difference from the others (the raters section for measurements)."""
    ratings = ctx.ratings
    if ratings is None:
        return ctx.unavailable("raters", DIFFERENCES_TITLE)
    from ...agreement import rater_differences

    diff = ctx.cached(
        "rater_differences",
        lambda: rater_differences(ratings, confidence_level=ctx.confidence_level),
    )
    table = diff.table
    blocks: list[Block] = [
        _differences_figure(ctx, table.head(LIMIT)),
        _differences_table(ctx, table.head(LIMIT)),
    ]
    if len(table) > LIMIT:
        blocks.insert(
            0,
            Note(f"Showing the {LIMIT} raters with the largest offsets of {fmt_int(len(table))}."),
        )
    method = MethodNote(
        "Rater differences",
        f"{diff.method[0].upper()}{diff.method[1:]} (with two raters, the Bland-Altman "
        "mean difference).",
        (REF["ba1986"], REF["holm1979"]),
    )
    return Section(
        "raters",
        DIFFERENCES_TITLE,
        _differences_lead(ctx, diff, ratings.n_raters),
        tuple(blocks),
        (method,),
    )


def _differences_lead(ctx: Context, diff: Any, n_raters: int) -> str:
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


def _differences_figure(ctx: Context, shown: pd.DataFrame) -> Figure:
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


def _differences_table(ctx: Context, shown: pd.DataFrame) -> Table:
    tones: tuple[Tone, ...] = tuple("poor" if bool(x) else "neutral" for x in shown["stands_out"])
    return Table.of(
        (
            Column.name("rater", "rater"),
            Column("items", "n_items", fmt_int),
            Column("mean difference", "mean_difference", _TWO),
            Column(f"{ctx.level_pct} CI", lambda r: fmt_ci(r.ci_low, r.ci_high, 2), str),
            Column("mean absolute difference", "mean_absolute_difference", _TWO),
            Column("SD", "sd", _TWO),
            Column("adjusted p", "pvalue_adjusted", fmt_p),
        ),
        shown.itertuples(index=False),
        caption="Difference: the rater's measurement minus the mean of the other raters' "
        "measurements of the item, in the data's units. Adjusted p: two-sided t test of "
        "a zero mean, Holm-adjusted over the raters (a highlighted row stands out).",
        row_tones=tones,
    )
