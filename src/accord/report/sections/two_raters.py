"""Two raters: the table, kappa beside informational agreement, specific agreement, the
dichotomisation cuts and kappa against the number of negatives."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ..._names import role_name
from ..._verdict import shown_label
from .. import figures
from .._blocks import (
    Block,
    Column,
    Figure,
    KeyFigure,
    KeyFigures,
    MethodNote,
    Paragraph,
    Section,
    Table,
    Tone,
    fmt,
    fmt_ci,
    fmt_int,
    fmt_pct,
)
from .._context import Context
from .common import CITES, REF, interval, many_categories, tone_of, two_raters

__all__ = ["build_two_raters"]

TITLE = "Two raters"

IA_READING = (
    "IA is the share of the less spread rater's information that the other "
    "rater's label carries (mutual information over the smaller entropy). It "
    "measures dependence, not agreement on the diagonal: two raters who always "
    "disagree in a fixed way have IA = 1 and kappa = -1, so read it beside kappa."
)


def build_two_raters(ctx: Context) -> Section | None:
    """Two raters: the table, kappa beside IA, specific agreement, the kappa-vs-negatives
    curve and the dichotomisation cuts."""
    if not two_raters(ctx) or ctx.numeric:
        return None
    ratings = ctx.ratings
    if ratings is None:
        return ctx.unavailable("two-raters", TITLE)
    from ..._errors import AccordError
    from ...agreement import cohen_kappa, informational_agreement

    try:
        kappa = ctx.cached("cohen", lambda: cohen_kappa(ratings))
    except AccordError as exc:  # no item rated by both
        return _undefined(f"Cohen's kappa and the two-rater view are undefined: {exc}.")
    if many_categories(ratings):
        q = ratings.n_categories
        return _undefined(
            f"The two-rater view (contingency table, informational agreement, specific "
            f"agreement, cuts) is left out on {fmt_int(q)} categories: their table would "
            f"hold {fmt_int(q * q)} cells. Cohen's kappa, from the table's filled cells, is "
            "in the coefficients table."
        )
    if ratings.n_categories < 2:
        return _undefined(
            f"Cohen's kappa and informational agreement are undefined: {kappa.reason}; "
            "informational agreement divides by the raters' entropies, which are 0."
        )
    ia = ctx.cached("ia", lambda: informational_agreement(ratings, n_boot=ctx.n_boot, rng=ctx.seed))
    methods: list[MethodNote] = [
        MethodNote("Cohen's kappa", str(kappa.method), tuple(REF[k] for k in CITES["cohen_kappa"])),
        MethodNote(
            "Informational agreement",
            f"{ia.method}. Interval: bootstrap over items ({ia.n_boot} replicates, "
            f"{ia.default_ci_method}), seeded with {ctx.seed}.",
            (REF["cfg2020"], REF["shannon1948"], REF["efron1987"]),
        ),
    ]
    blocks: list[Block] = [
        KeyFigures(_key_figures(ctx, kappa, ia)),
        Paragraph(IA_READING),
        _table_figure(ctx, kappa),
        *_specific_blocks(ctx, kappa, methods),
        *_dichotomization_blocks(ctx, methods),
        *_kappa_curve_blocks(ctx, methods),
    ]
    x_name, y_name = _names(kappa)
    lead = (
        f"{x_name} and {y_name} agree on {fmt_pct(kappa.percent_agreement)} of "
        f"{fmt_int(kappa.n_items)} items; {_kappa_title(ctx)} {fmt(kappa.statistic)}, "
        f"informational agreement {fmt(ia.statistic)}."
    )
    if x_name.startswith("rater "):  # a sentence starts with a capital
        lead = "R" + lead[1:]
    return Section("two-raters", TITLE, lead, tuple(blocks), tuple(methods))


def _kappa_title(ctx: Context) -> str:
    """The section's kappa (unweighted) by its name: with its weights where the page's
    headline is a weighted kappa (an ordered scale), so that no two kappas share a name."""
    return "Cohen's kappa" if ctx.level == "nominal" else "Cohen's kappa (unweighted)"


def _undefined(why: str) -> Section:
    """The section on data where the two-rater statistics are undefined: why, in one
    paragraph."""
    return Section("two-raters", TITLE, why, ())


def _key_figures(ctx: Context, kappa: Any, ia: Any) -> tuple[KeyFigure, ...]:
    k_low, k_high, _ = interval(ctx, kappa)
    i_ci = ia.confidence_interval(ctx.confidence_level) if ia.replicates is not None else None
    return (
        KeyFigure(
            _kappa_title(ctx),
            fmt(kappa.statistic),
            ctx.ci_text(k_low, k_high),
            tone_of(k_low, kappa.statistic),
        ),
        KeyFigure(
            "Informational agreement",
            fmt(ia.statistic),
            ctx.ci_text(i_ci.low, i_ci.high) if i_ci else "",
            tone_of(i_ci.low if i_ci else math.nan, ia.statistic),
        ),
        KeyFigure(
            "Raw agreement",
            fmt_pct(kappa.percent_agreement),
            f"kappa max {fmt(kappa.kappa_max)} given the marginals",
        ),
    )


def _names(kappa: Any) -> tuple[str, str]:
    """The two raters as the section names them: as written, a bare user id as "rater 7"
    (:func:`accord._names.role_name`)."""
    x, y = kappa.raters
    return role_name(x, "rater"), role_name(y, "rater")


def _table_figure(ctx: Context, kappa: Any) -> Figure:
    """The two raters' contingency table as a heatmap."""
    x_name, y_name = _names(kappa)
    table = np.asarray(kappa.table, dtype=np.float64)
    cats = [shown_label(c) for c in ctx.label_categories]
    return Figure(
        figures.heatmap(
            "table2",
            table,
            cats,
            cats,
            vmin=0.0,
            vmax=float(np.nanmax(table)) if table.size else 1.0,
            cmap="Blues",
            colorbar_label="items",
            xlabel=y_name,
            ylabel=x_name,
            integer=True,
        ),
        f"Contingency table: rows {x_name}, columns {y_name}; the diagonal is agreement.",
        f"Contingency table of {x_name} against {y_name}",
    )


def _specific_blocks(ctx: Context, kappa: Any, methods: list[MethodNote]) -> list[Block]:
    """Specific agreement per category, with its interval."""
    from ...agreement import specific_agreement

    ratings = ctx.ratings
    assert ratings is not None
    spec = ctx.cached("specific", lambda: specific_agreement(ratings))
    per_cat = spec.per_category
    if not isinstance(per_cat, pd.DataFrame) or per_cat.empty:
        return []
    x_name, y_name = _names(kappa)
    methods.append(
        MethodNote(
            "Specific agreement",
            str(spec.method),
            (REF["hr2005"], REF["gb1998"], REF["wilson1927"]),
        )
    )
    return [
        Table.of(
            (
                Column.name("category", "category"),
                Column(f"both {x_name} and {y_name}", "n_both", fmt_int),
                Column(x_name, "n_x", fmt_int),
                Column(y_name, "n_y", fmt_int),
                Column("specific agreement", "specific_agreement"),
                Column(f"{ctx.level_pct} CI", lambda r: fmt_ci(r.ci_low, r.ci_high), str),
            ),
            per_cat.itertuples(index=False),
            caption="Specific agreement per category, 2 n_kk / (n_k. + n_.k): how often "
            "a label given by one rater is confirmed by the other.",
        )
    ]


def _dichotomization(ctx: Context) -> Any | None:
    """``accord.best_dichotomization`` of an ordered scale of three categories or more,
    computed once (None otherwise)."""
    ratings = ctx.ratings
    if ratings is None or ratings.level == "nominal" or ratings.n_categories < 3:
        return None
    from ...agreement import best_dichotomization

    return ctx.cached("dichotomization", lambda: best_dichotomization(ratings))


def _dichotomization_blocks(ctx: Context, methods: list[MethodNote]) -> list[Block]:
    result = _dichotomization(ctx)
    if result is None:
        return []
    cuts = result.cuts
    best = result.best_kappa
    best_row = cuts.loc[cuts["cut"] == best].iloc[0] if best is not None else None
    methods.append(
        MethodNote(
            "Dichotomisation",
            "Each cut c = 1..q-1 of the ordered scale collapses categories <= c against > c "
            "for both raters; Cohen's kappa and IA are computed on the 2 x 2 table "
            "(Casagrande, Fabris & Girometti 2020, Fig. 2).",
            (REF["cfg2020"],),
        )
    )
    text = (
        f"Split {best_row['split']} gives the highest kappa ({fmt(best_row['kappa'])}, IA "
        f"{fmt(best_row['informational_agreement'])}): the scale is read most reliably as "
        "that two-way decision."
        if best_row is not None
        else "Kappa is undefined at every cut."
    )
    return [Paragraph(text), _cuts_figure(cuts, best), _cuts_table(cuts, best)]


def _cuts_figure(cuts: pd.DataFrame, best: Any) -> Figure:
    svg = figures.dichotomization_plot(
        "cuts",
        [str(s) for s in cuts["split"]],
        cuts["kappa"].tolist(),
        cuts["informational_agreement"].tolist(),
        best=None if best is None else int(best) - 1,
    )
    return Figure(
        svg,
        "Kappa and IA at every cut of the ordered scale into low | high; the best cut is shaded.",
        "Dichotomisation: "
        + "; ".join(
            f"{s} kappa {fmt(k)}" for s, k in zip(cuts["split"], cuts["kappa"], strict=True)
        ),
    )


def _cuts_table(cuts: pd.DataFrame, best: Any) -> Table:
    tones: tuple[Tone, ...] = tuple(
        "good" if best is not None and int(c) == best else "neutral" for c in cuts["cut"]
    )
    return Table.of(
        (
            Column.text("cut", "split"),
            Column("low, low", "n_low_low", fmt_int),
            Column("low, high", "n_low_high", fmt_int),
            Column("high, low", "n_high_low", fmt_int),
            Column("high, high", "n_high_high", fmt_int),
            Column("kappa", "kappa"),
            Column("IA", "informational_agreement"),
        ),
        cuts.itertuples(index=False),
        caption="The 2 x 2 table of each cut (first rater first) with its kappa and IA.",
        row_tones=tones,
    )


def _kappa_curve(ctx: Context) -> tuple[Any, str] | None:
    """``accord.kappa_vs_negatives`` for two categories, or for the best cut of an ordered
    scale (its high side as the positive class), computed once; and what is positive."""
    from ...agreement import kappa_vs_negatives

    ratings = ctx.ratings
    assert ratings is not None
    if ratings.n_categories == 2:
        positive = ratings.categories[-1] if ctx.positive is None else ctx.positive
        curve = ctx.cached("kappa_curve", lambda: kappa_vs_negatives(ratings, positive=positive))
        return curve, f"positive class {positive}"
    cut = _dichotomization(ctx)
    if cut is None or cut.best_kappa is None:
        return None
    row = cut.cuts.loc[cut.cuts["cut"] == cut.best_kappa].iloc[0]
    two_by_two = [
        [float(row["n_high_high"]), float(row["n_high_low"])],
        [float(row["n_low_high"]), float(row["n_low_low"])],
    ]
    curve = ctx.cached("kappa_curve", lambda: kappa_vs_negatives(two_by_two))
    return curve, f"positive class: the high side of {row['split']}"


def _kappa_curve_blocks(ctx: Context, methods: list[MethodNote]) -> list[Block]:
    """Kappa against the number of negatives, with its limit, the positive specific
    agreement."""
    found = _kappa_curve(ctx)
    if found is None:
        return []
    curve, what = found
    data = curve.curve
    observed = data.loc[data["d"] == curve.observed_d, "kappa"]
    methods.append(
        MethodNote(
            "Kappa and the number of negatives",
            "Cohen's kappa of [[a, b], [c, d]] evaluated as the number d of items both raters "
            "call negative grows, with a, b, c fixed; its limit is the positive specific "
            "agreement PSA = 2a / (2a + b + c), the F-measure (Hripcsak & Rothschild 2005).",
            (REF["hr2005"],),
        )
    )
    svg = figures.kappa_curve(
        "kappa-curve",
        data["d"].to_numpy(),
        data["kappa"].to_numpy(),
        psa=float(curve.positive_agreement),
        observed_d=float(curve.observed_d),
        observed_kappa=float(observed.iloc[0]) if len(observed) else math.nan,
    )
    return [
        Figure(
            svg,
            f"Kappa as the number of agreed negatives d grows ({what}; a = {fmt_int(curve.a)}, "
            f"b = {fmt_int(curve.b)}, c = {fmt_int(curve.c)}). Kappa depends on how many easy "
            "negatives were counted; PSA does not.",
            f"Kappa against negatives, limit PSA {fmt(curve.positive_agreement)}",
        )
    ]
