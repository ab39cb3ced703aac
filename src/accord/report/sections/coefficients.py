"""The coefficient table with intervals, and the forest plot."""

from __future__ import annotations

import math
import re
from typing import Any

import pandas as pd

from ..._methods import without_advice
from ..._verdict import coefficient_label, short_label
from .. import figures
from .._blocks import (
    Block,
    Column,
    Details,
    Figure,
    MethodNote,
    Section,
    Table,
    fmt,
    fmt_ci,
    fmt_int,
    fmt_p,
    fmt_pct,
)
from .._context import Context, SectionUnavailable
from .common import CITES, REF, coefficients, interval, primary, two_raters

__all__ = ["build_coefficients"]


def build_coefficients(ctx: Context) -> Section | None:
    """The coefficient table with intervals, and the forest plot."""
    if not ctx.has_labels:
        return None
    coefs = coefficients(ctx)
    if not coefs:
        raise SectionUnavailable("no agreement coefficient applies to these data")
    numeric = ctx.numeric
    rows: list[tuple[Any, float, float]] = []
    ci_methods: list[str] = []
    methods: list[MethodNote] = []
    seen: set[str] = set()
    for c in coefs:
        low, high, how = interval(ctx, c)
        rows.append((c, low, high))
        how = re.sub(r", truncated to \[[^\]]*\]", "", how)
        if how and math.isfinite(low) and how not in ci_methods:
            ci_methods.append(how)
        if f"{c.name}:{c.method}" not in seen:
            seen.add(f"{c.name}:{c.method}")
            methods.append(
                MethodNote(
                    coefficient_label(c),
                    without_advice(str(c.method)),
                    tuple(REF[k] for k in CITES.get(c.name, ())),
                )
            )
    head = primary(ctx)
    lead = (
        f"{len(coefs)} coefficients for measurements: the intraclass correlations (each "
        "row names its form) and Krippendorff's alpha at the data's level. "
        if numeric
        else f"{len(coefs)} coefficients; they differ in how they model chance agreement, "
        "so read them together. "
    ) + (f"The headline is {coefficient_label(head)}." if head is not None else "")
    blocks: list[Block] = [_forest(ctx, coefs), _table(ctx, coefs, rows, ci_methods)]
    blocks.extend(_per_category(ctx, coefs))
    methods.append(_intervals_note(ctx, ci_methods))
    return Section("coefficients", "Agreement coefficients", lead, tuple(blocks), tuple(methods),
                   nav="Coefficients")  # fmt: skip


def _note(row: tuple[Any, float, float]) -> str:
    """Why a coefficient is undefined, or has no interval."""
    c, low, _ = row
    note = c.reason or (
        ""
        if math.isfinite(low)
        else "no analytic SE"
        if "no analytic SE" in c.method
        else "no interval"
    )
    if c.name == "icc" and not c.reason:
        note = ""  # no SE: the caption says the F-based interval is the ICC's inference
    return str(note)


def _columns(ctx: Context) -> tuple[Column, ...]:
    """A coefficient's row, of ``(coefficient, low, high)``: estimate, SE, interval, items
    (observed and chance agreement for categories) and a note."""
    agreement = (
        ()
        if ctx.numeric
        else (
            Column("observed", lambda r: getattr(r[0], "observed_agreement", math.nan)),
            Column("chance", lambda r: getattr(r[0], "chance_agreement", math.nan)),
        )
    )
    test = (
        (Column(_test_heading(ctx), lambda r: _tested_p(ctx, r[0]), fmt_p),) if ctx.tested else ()
    )
    return (
        Column.text("coefficient", lambda r: coefficient_label(r[0])),
        Column("estimate", lambda r: r[0].statistic),
        Column("SE", lambda r: r[0].standard_error),
        Column(f"{ctx.level_pct} CI", lambda r: fmt_ci(r[1], r[2]), str),
        *test,
        Column("items", lambda r: r[0].n_items, fmt_int),
        *agreement,
        Column.text("note", _note),
    )


#: The standard error of each ``se`` option, as the table's caption words it.
_SE_WORDS = {
    "raters": "general (non-null) standard error, conditional on the raters (generalises to "
    "other items rated by these raters)",
    "items": "standard error conditional on the items (a jackknife over raters, Gwet 2008: "
    "generalises to other raters of these items)",
    "unconditional": "unconditional standard error (the variances over items and over raters "
    "summed, Gwet 2008: generalises to other items and other raters)",
}

#: The reference distribution of the analytic intervals of each ``se`` option.
_REFERENCE = {
    "raters": "t(1 - alpha/2, n_items - 1)",
    "items": "t(1 - alpha/2, n_raters - 1)",
    "unconditional": "z(1 - alpha/2), the normal quantile",
}


def _test_heading(ctx: Context) -> str:
    """The p column's heading: the null hypothesis it tests."""
    value = f"{float(ctx.inference.get('test_value', 0.0)):g}"
    relation = {"greater": "≤", "less": "≥"}.get(str(ctx.inference.get("alternative")), "=")
    return f"p (H0: {relation} {value})"


def _tested_p(ctx: Context, coef: Any) -> float:
    """The p-value of the table's test, for a coefficient that took it (an ICC keeps its F
    test of 0, so it has none here)."""
    value = float(ctx.inference.get("test_value", 0.0))
    took = getattr(coef, "test_value", None) == value and getattr(coef, "alternative", None) == (
        ctx.inference.get("alternative", "two-sided")
    )
    return float(coef.pvalue) if took else math.nan


def _se_caption(ctx: Context) -> str:
    """Which standard error the table holds, its raters' finite-population correction, and
    the test of the p column."""
    text = f"SE: {_SE_WORDS.get(ctx.se_kind, ctx.se_kind)}"
    size = ctx.inference.get("rater_population_size")
    if size is not None and ctx.se_kind != "raters":
        text += f", with the finite-population correction for {float(size):,.0f} raters"
    if ctx.tested:
        side = {"greater": "one-sided, H1: greater", "less": "one-sided, H1: less"}.get(
            str(ctx.inference.get("alternative")), "two-sided"
        )
        value = f"{float(ctx.inference.get('test_value', 0.0)):g}"
        text += f". p: test of the coefficient against {value} ({side})"
    return text + ". "


def _forest(ctx: Context, coefs: list[Any]) -> Figure:
    """Every chance-corrected coefficient with its interval (percent agreement is off the
    kappa scale)."""
    shown = [c for c in coefs if c.name != "percent_agreement"]
    labels = [short_label(c) for c in shown]
    est = [float(c.statistic) for c in shown]
    bounds = [interval(ctx, c)[:2] for c in shown]
    numeric = ctx.numeric
    svg = figures.forest_plot(
        "forest",
        labels,
        est,
        [b[0] for b in bounds],
        [b[1] for b in bounds],
        xlabel=f"coefficient and {ctx.level_pct} interval"
        + ("" if numeric else " (shaded: Landis & Koch bands)"),
        benchmarks=not numeric,
    )
    return Figure(
        svg,
        "Each coefficient with its interval."
        if numeric
        else "Each chance-corrected coefficient with its interval (percent agreement, "
        "which is not corrected for chance, is in the table). Shaded bands: Landis & Koch "
        "(1977).",
        "Forest plot of "
        + "; ".join(f"{lab} {fmt(e)}" for lab, e in zip(labels, est, strict=True)),
    )


def _table(
    ctx: Context, coefs: list[Any], rows: list[tuple[Any, float, float]], ci_methods: list[str]
) -> Table:
    numeric = ctx.numeric
    if numeric:
        caption = (
            "ICC forms as McGraw & Wong (1996) name them, Shrout & Fleiss (1979) in brackets; "
            "A: absolute agreement, C: consistency (a constant offset between raters is not "
            "counted), 1: a single rater's measurement. "
        ) + (
            (
                "An ICC has no SE here: its inference is the profile-likelihood interval of "
                "the REML fit (some rater did not score some item). "
                if any(hasattr(c, "lr_statistic") for c in coefs)
                else "An ICC has no SE here: its inference is the F-based interval. "
            )
            if all(not math.isfinite(c.standard_error) for c in coefs if c.name == "icc")
            else ""
        )
    else:
        caption = (
            _se_caption(ctx)
            + ("Observed and chance: p_a and p_e of (p_a - p_e) / (1 - p_e). ")
            + _no_chance_term(coefs)
        )
    return Table.of(
        _columns(ctx),
        rows,
        caption=caption + _intervals_caption(ci_methods, numeric),
    )


def _no_chance_term(coefs: list[Any]) -> str:
    """Why a coefficient shows no chance agreement (a dash): it is not of the form
    ``(p_a - p_e) / (1 - p_e)`` (Light's kappa averages the pairs' kappas; informational
    agreement is a ratio of information)."""
    names = [
        coefficient_label(c)
        for c in coefs
        if math.isfinite(c.statistic) and not math.isfinite(getattr(c, "chance_agreement", 0.0))
    ]
    if not names:
        return ""
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    verb = "is" if len(names) == 1 else "are"
    return (
        f"A dash: {listed} {verb} not of that form, so no single chance term (observed, "
        "where shown: the share of rating pairs that agree). "
    )


def _intervals_caption(ci_methods: list[str], numeric: bool) -> str:
    """How the intervals were made; that there are none when no coefficient has one."""
    if not ci_methods:
        return "No interval: no coefficient here has one (each row's note says why)."
    return (
        "Intervals: "
        + "; ".join(ci_methods)
        + ("." if numeric else ", truncated to each coefficient's range.")
    )


def _per_category(ctx: Context, coefs: list[Any]) -> list[Block]:
    """Fleiss' kappa of each category against all others (three raters or more)."""
    fleiss = next((c for c in coefs if c.name == "fleiss_kappa" and c.weights == "identity"), None)
    per_cat = getattr(fleiss, "per_category", None)
    if not isinstance(per_cat, pd.DataFrame) or per_cat.empty or two_raters(ctx) or ctx.numeric:
        return []
    table = Table.of(
        (
            Column.name("category", "category"),
            Column("share of ratings", "proportion", fmt_pct),
            Column("kappa of the category", "kappa"),
        ),
        per_cat.itertuples(index=False),
        caption="Each category against all others (Fleiss 1971, eq. 16): low "
        "values mark the categories raters confuse.",
    )
    return [Details("Agreement per category (Fleiss 1971)", (table,))]


def _intervals_note(ctx: Context, ci_methods: list[str]) -> MethodNote:
    numeric = ctx.numeric
    return MethodNote(
        "Intervals and p-values",
        (f"{ctx.level_pct} intervals: " + "; ".join(ci_methods) + ". " if ci_methods else "")
        + f"Analytic intervals are statistic +- {_REFERENCE.get(ctx.se_kind, '')} x SE, "
        "truncated to the coefficient's range; bootstrap intervals resample items (the "
        f"unit of analysis) with replacement, seeded with {ctx.seed} so the report is "
        "reproducible."
        + (
            " ICC intervals are the classical F-based ones (Satterthwaite degrees of "
            "freedom for the two-way random forms) on a complete design, profile-likelihood "
            "ones of the REML fit otherwise."
            if numeric
            else ""
        ),
        (REF["gwet2014"], REF["efron1987"]) + ((REF["mw1996"],) if numeric else ()),
    )
