"""What the sections share: the references, the benchmark colours, and the results every
section reads (the coefficients, the headline, the rater test), computed once per report."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..._methods import CITES, REFERENCES
from ..._verdict import by_key, for_level, headline, with_cohen_first
from .._blocks import MethodNote, Section, Tone
from .._context import Context

__all__ = [
    "CITES",
    "REF",
    "Builder",
    "coefficients",
    "coefficients_by_key",
    "icc_tone",
    "interval",
    "many_categories",
    "primary",
    "rater_test",
    "rater_test_note",
    "tone_of",
    "two_raters",
]

Builder = Callable[[Context], Section | None]

#: The published sources (one table, shared with the methods paragraph of the results).
REF = REFERENCES


def icc_tone(low: float, estimate: float) -> Tone:
    """Good when the lower end of the interval reaches 0.75 (Koo & Li's "good"), fair from
    0.5, poor below."""
    anchor = low if math.isfinite(low) else estimate
    if not math.isfinite(anchor):
        return "neutral"
    return "good" if anchor >= 0.75 else "fair" if anchor >= 0.5 else "poor"


def tone_of(low: float, estimate: float) -> Tone:
    """Good when the lower end of the interval reaches 0.8, fair from 0.6 (or the estimate
    when there is no interval), poor below."""
    anchor = low if math.isfinite(low) else estimate
    if not math.isfinite(anchor):
        return "neutral"
    if anchor >= 0.8:
        return "good"
    if anchor >= 0.6:
        return "fair"
    return "poor"


def interval(ctx: Context, coef: Any) -> tuple[float, float, str]:
    """The interval of a coefficient at the report's level and how it was computed (the
    agreement table's choice for the coefficients it holds)."""
    table = ctx.agreement_table() if ctx.has_labels else None
    if table is not None and coef in table.coefficients:
        low, high, how = table.interval(coef, ctx.confidence_level)
        return float(low), float(high), str(how)
    ci = coef.confidence_interval(ctx.confidence_level)
    return float(ci.low), float(ci.high), str(getattr(coef, "ci_description", ""))


def two_raters(ctx: Context) -> bool:
    """Whether the ratings come from exactly two raters."""
    return ctx.has_labels and ctx.n_raters == 2


def coefficients(ctx: Context) -> list[Any]:
    """Every coefficient the report shows, computed once: ``accord.agreement`` (for
    measurements the ICC and alpha at the data's level), Cohen's kappa first for two raters
    (with IA in memory)."""
    if not ctx.has_labels:
        return []

    def compute() -> list[Any]:
        table = ctx.agreement_table()
        if ctx.numeric:
            return for_level(table.coefficients, ctx.level)
        out = list(table.coefficients)
        if not two_raters(ctx):
            return out
        if ctx.ratings is not None:  # Cohen's kappa first, as the command line lists it
            test = {k: v for k, v in ctx.inference.items() if k in ("test_value", "alternative")}
            out = with_cohen_first(out, ctx.ratings, test)
            return _with_informational(ctx, ctx.ratings, out)
        return with_cohen_first(out, None)  # the table's own Cohen's kappa: every engine's

    result: list[Any] = ctx.cached("coefficients", compute)
    return result


def many_categories(ratings: Any) -> bool:
    """Whether two raters' q x q contingency table is too large to build (the two-rater
    view and informational agreement are then left out; Cohen's kappa is computed from the
    table's filled cells)."""
    from ...agreement.two_raters import SPARSE_TABLE_CELLS

    return bool(ratings.n_categories**2 > SPARSE_TABLE_CELLS)


def _with_informational(ctx: Context, ratings: Any, rows: list[Any]) -> list[Any]:
    """``rows`` with informational agreement after Cohen's kappa of two raters. IA, whose
    entropies are all 0 on one category, is left out there, as it is on too many categories
    for a q x q table, and when Cohen's kappa is undefined (the two rated no item in common:
    the agreement table's rows say why)."""
    from ...agreement import informational_agreement

    if not rows or rows[0].name != "cohen_kappa" or ratings.n_categories < 2:
        return rows
    if many_categories(ratings):
        return rows
    ia = informational_agreement(ratings, n_boot=ctx.n_boot, rng=ctx.seed)
    return [rows[0], ia, *rows[1:]]


def coefficients_by_key(ctx: Context) -> dict[str, Any]:
    """Each coefficient by ``name:weights`` (an ICC by ``icc:<form>``), first one kept."""
    return by_key(coefficients(ctx))


def primary(ctx: Context) -> Any | None:
    """The headline coefficient, following the level of measurement
    (:func:`accord._verdict.headline`)."""
    if not ctx.has_labels:
        return None
    return headline(coefficients(ctx), ctx.level, two_raters=two_raters(ctx))


def rater_test(ctx: Context) -> Any | None:
    """``accord.rater_permutation_test(ratings)``, computed once (None for measurements
    and without the ratings in memory)."""
    ratings = ctx.ratings
    if ratings is None or ctx.numeric:
        return None
    from ...agreement import rater_permutation_test

    return ctx.cached("rater_test", lambda: rater_permutation_test(ratings, rng=ctx.seed))


def rater_test_note(test: Any) -> MethodNote:
    """The methods entry of the rater permutation test."""
    return MethodNote(
        "Which rater or pair stands out",
        f"Permutation test: {test.method}.",
        (REF["wy1993"], REF["simon2010"]),
    )
