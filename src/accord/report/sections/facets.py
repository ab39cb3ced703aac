"""Designs with more than one facet: for each facet column given to the report (an occasion,
a site, a session), the G-study of items, raters and that facet (its variance components with
their intervals, and the generalizability and dependability coefficients at the study's
numbers of levels) and, when the items are nested in the facet's levels (clusters, strata)
and two raters label them, the clustered agreement: Cohen's kappa and Gwet's AC1 with
cluster-robust standard errors, and each stratum's kappa with the test of equal kappas.
Present when the report was given facet columns."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from .._blocks import (
    Block,
    Column,
    Figure,
    KeyFigure,
    KeyFigures,
    MethodNote,
    Note,
    Paragraph,
    Section,
    Table,
    fmt,
    fmt_ci,
    fmt_int,
    fmt_p,
    fmt_pct,
)
from .._context import Context
from .common import REF

__all__ = ["build_facets", "facet_results"]

TITLE = "Designs with several facets"

#: How each design reads, in the section's words.
DESIGN_WORDS = {
    "p x r x o": "crossed with the items and the raters",
    "p x (r:o)": "the raters nested in its levels",
    "(p:s) x r": "the items nested in its levels",
}


def build_facets(ctx: Context) -> Section | None:
    """The G-study and the clustered agreement of each facet column: present with facets."""
    if not ctx.facets or ctx.frame is None or ctx.label is None:
        return None
    blocks: list[Block] = []
    leads: list[str] = []
    methods: list[MethodNote] = []
    for column in ctx.facets:
        found = facet_results(ctx, ctx.frame, column)
        lead, more, notes = _facet_blocks(ctx, column, found)
        leads.append(lead)
        blocks += more
        methods += notes
    return Section("facets", TITLE, " ".join(leads), tuple(blocks), tuple(dict.fromkeys(methods)))


def facet_results(ctx: Context, frame: pd.DataFrame, column: str) -> dict[str, Any]:
    """The results of one facet column, computed once by the library's public functions:
    ``design``, and as they apply ``g_study`` and ``d_study`` (numeric labels, ordinal and
    above), ``clustered`` (kappa and AC1) and ``strata`` (two raters, items nested in the
    facet, categorical labels)."""
    from ...agreement.gtheory import d_study, g_study
    from ...agreement.gtheory_design import facet_design
    from ...front.designs import agreement_by_cluster, kappa_by_stratum

    item, rater, label = str(ctx.item), str(ctx.rater), str(ctx.label)
    kind, columns = facet_design(frame, item=item, rater=rater, facet=column)
    design, columns = _named(kind, columns, column, ctx.facet_names.get(column))
    out: dict[str, Any] = {"design": design, "kind": kind, "columns": columns}
    if ctx.level != "nominal" and _numeric(frame[label]):
        g = ctx.cached(
            f"g_study:{column}",
            lambda: g_study(frame, design=design, score=label, facets=columns,
                            confidence_level=ctx.confidence_level),
        )  # fmt: skip
        varying = [f for f in g.facets if f != g.object and f not in g.parents.get(g.object, ())]
        sizes = {f: [max(1, round(g.sample_sizes[f]))] for f in varying}
        out["g_study"] = g
        out["d_study"] = ctx.cached(f"d_study:{column}", lambda: d_study(g, sizes))
        grid = _d_grid(sizes)
        out["d_grid"] = ctx.cached(f"d_grid:{column}", lambda: d_study(g, grid))
    if kind == "(p:s) x r" and ctx.level in ("nominal", "ordinal"):
        out["n_raters"] = int(frame[rater].nunique())
        if out["n_raters"] == 2:
            keep = ctx.duplicates if ctx.duplicates != "mean" else "first"
            read: dict[str, Any] = {"item": item, "rater": rater, "label": label,
                                    "duplicates": keep}  # fmt: skip
            out["clustered"] = ctx.cached(
                f"clustered:{column}",
                lambda: [agreement_by_cluster(frame, cluster=column, coefficient=c, **read)
                         for c in ("cohen_kappa", "gwet_ac1")],
            )  # fmt: skip
            out["strata"] = ctx.cached(
                f"strata:{column}", lambda: kappa_by_stratum(frame, strata=column, **read)
            )
    return out


def _named(
    kind: str, columns: dict[str, str], column: str, name: str | None
) -> tuple[str, dict[str, str]]:
    """The design read from the data with the facet of ``column`` called ``name`` (as the
    user named it, ``o=site``) instead of its default ``s`` or ``o``."""
    default = next(f for f, c in columns.items() if c == column and f not in ("p", "r"))
    if name is None or name == default:
        return kind, columns
    design = {"(p:s) x r": f"(p:{name}) x r", "p x (r:o)": f"p x (r:{name})",
              "p x r x o": f"p x r x {name}"}[kind]  # fmt: skip
    return design, {(name if f == default else f): c for f, c in columns.items()}


#: The goal of the D-study figure: Phi of 0.8, the usual threshold for decisions on individuals.
GOAL = 0.8


def _d_grid(sizes: dict[str, list[int]]) -> dict[str, list[int]]:
    """The D-study of the figure: the first facet from 1 to twice the study's number of
    levels (at least 6, at most 12), the second (if any) at 1, the study's number and twice
    it."""
    facets = list(sizes)
    grid: dict[str, list[int]] = {}
    for k, facet in enumerate(facets):
        n = sizes[facet][0]
        grid[facet] = (
            list(range(1, min(12, max(6, 2 * n)) + 1)) if k == 0 else sorted({1, n, 2 * n})
        )
    return grid


def _d_figure(column: str, d: Any) -> Figure:
    """Phi against the levels of the first facet, a line per number of levels of the second,
    the goal dashed."""
    from ..figures import report_style, to_svg
    from ..planning import d_study_figure

    key = f"d-study-{column}"
    with report_style(key):
        svg = to_svg(d_study_figure(d, coefficient="phi", target=GOAL), key)
    facets = list(d.facets)
    named = {f: "raters (r)" if f == "r" else f"{column!r} ({f})" for f in facets}
    first = f"n_{facets[0]}"
    lines = d.table.groupby(f"n_{facets[1]}") if len(facets) > 1 else [(None, d.table)]
    alt = "; ".join(
        ("" if level is None else f"{int(level)} levels of {named[facets[1]]}: ")
        + ", ".join(f"{int(n)} {fmt(v)}" for n, v in zip(rows[first], rows["phi"], strict=True))
        for level, rows in lines
    )
    caption = (
        f"D-study of facet {column!r}: Phi (absolute decisions) for 1 to "
        f"{int(d.table[first].max())} levels of {named[facets[0]]}"
        + (f", a line per number of levels of {named[facets[1]]}" if len(facets) > 1 else "")
        + f"; the dashed line is the goal of {GOAL:g}. Read off how many levels reach it."
    )
    return Figure(svg, caption, f"Phi by levels of {named[facets[0]]}: {alt}")


def _numeric(values: pd.Series) -> bool:
    """Whether every label given reads as a number."""
    given = values.dropna()
    return bool(len(given)) and bool(pd.to_numeric(given, errors="coerce").notna().all())


def _facet_blocks(
    ctx: Context, column: str, found: dict[str, Any]
) -> tuple[str, list[Block], list[MethodNote]]:
    """The lead sentence, blocks and method notes of one facet column."""
    design = found["design"]
    words = DESIGN_WORDS[found["kind"]]
    blocks: list[Block] = [Paragraph(f"Facet {column!r}: {words} ({design}).")]
    said, methods = [], []
    if "g_study" in found:
        g, row = found["g_study"], found["d_study"].table.iloc[0]
        sizes = ", ".join(f"n_{f} = {fmt_int(row[f'n_{f}'])}" for f in found["d_study"].facets)
        said.append(f"Phi = {fmt(row['phi'])} and E rho^2 = {fmt(row['g_coefficient'])} "
                    f"with {sizes}")  # fmt: skip
        blocks += [_coefficients(row, sizes), _components(ctx, g),
                   _d_figure(column, found["d_grid"])]  # fmt: skip
        methods.append(_g_note(g))
    else:
        blocks.append(Note("No G-study: it needs numeric labels at the ordinal level or above."))
    if "clustered" in found:
        kappa = found["clustered"][0]
        said.append(f"Cohen's kappa {fmt(kappa.statistic)} over {fmt_int(kappa.n_clusters)} "
                    f"clusters, design effect {fmt(kappa.design_effect, 2)}")  # fmt: skip
        blocks += _clustered_blocks(ctx, column, found["clustered"], found["strata"])
        methods += _clustered_notes(kappa, found["strata"])
    elif "n_raters" in found:
        blocks.append(
            Note(
                f"No clustered agreement: it compares two raters, and column {ctx.rater!r} has "
                f"{found['n_raters']}."
            )
        )
    lead = f"{column} ({design}): {'; '.join(said) if said else 'no coefficient applies'}."
    return lead, blocks, methods


def _coefficients(row: Any, sizes: str) -> KeyFigures:
    return KeyFigures(
        (
            KeyFigure("E rho^2", fmt(row["g_coefficient"]), f"relative decisions, {sizes}"),
            KeyFigure("Phi", fmt(row["phi"]), f"absolute decisions, {sizes}"),
            KeyFigure("SEM (absolute)", fmt(row["sem_absolute"]), "in the scores' units"),
        )
    )


def _ci(row: Any) -> str:
    """A component's interval; an upper end of over 1000 (few degrees of freedom) in three
    significant digits."""
    low, high = row.get("ci_low", math.nan), row.get("ci_high", math.nan)
    if math.isfinite(low) and math.isfinite(high) and high > 1000:
        return f"{fmt(low)} to {high:.3g}"
    return fmt_ci(low, high)


def _components(ctx: Context, g: Any) -> Table:
    how = (
        "ANOVA (expected mean squares); SE Brennan (2001) eq. 6.1"
        if g.method == "anova"
        else "REML; SE from the inverse observed information"
    )
    notes = "".join(f" {n[0].upper()}{n[1:]}." for n in g.notes)
    return Table.of(
        (
            Column.text("effect", "effect"),
            Column("variance", "variance"),
            Column("percent", lambda r: r["percent"] / 100.0, fmt_pct),
            Column("SE", lambda r: r.get("standard_error", math.nan)),
            Column(f"{ctx.level_pct} CI", _ci, str),
        ),
        g.components.to_dict(orient="records"),
        f"Variance components of {g.design} ({g.nesting}; {fmt_int(g.n_scores)} scores) by "
        f"{how}; {ctx.level_pct} Satterthwaite intervals.{notes}",
    )


def _g_note(g: Any) -> MethodNote:
    refs = ("brennan2001",) if g.method == "anova" else ("brennan2001", "bates2015")
    return MethodNote("Generalizability theory", g.methods_text(), tuple(REF[k] for k in refs))


def _clustered_blocks(ctx: Context, column: str, results: Any, strata: Any) -> list[Block]:
    rows = [r.to_dict() for r in results]
    clustered = Table.of(
        (
            Column.text("coefficient", lambda r: {"cohen_kappa": "Cohen's kappa",
                                                  "gwet_ac1": "Gwet's AC1"}[r["name"]]),
            Column("estimate", "statistic"),
            Column("SE (clusters)", "standard_error"),
            Column("SE (items independent)", "standard_error_naive"),
            Column("design effect", "design_effect"),
            Column("clusters", "n_clusters", fmt_int),
            Column("items", "n_items", fmt_int),
        ),
        rows,
        f"Items nested in {column!r}: {results[0].method}; the items rated by both raters.",
    )  # fmt: skip
    by_stratum = Table.of(
        (
            Column.name(column, "stratum"),
            Column("items", "n_items", fmt_int),
            Column("kappa", "kappa"),
            Column("SE", "standard_error"),
        ),
        strata.table.to_dict(orient="records"),
        f"Cohen's kappa in each level of {column!r}; overall {fmt(strata.statistic)} (SE "
        f"{fmt(strata.standard_error)}): {strata.method}.",
    )
    test = KeyFigure(
        "equal kappas",
        f"p {fmt_p(strata.pvalue)}" if strata.pvalue < 0.001 else f"p = {fmt_p(strata.pvalue)}",
        f"chi-square({strata.df}) = {fmt(strata.chi_square)} across {column}",
    )
    return [clustered, KeyFigures((test,)), by_stratum]


def _clustered_notes(kappa: Any, strata: Any) -> list[MethodNote]:
    return [
        MethodNote("Clustered agreement", kappa.method, (REF["yz2014"], REF["fce1969"])),
        MethodNote("Kappa across strata", strata.method, (REF["fleiss1981"], REF["fce1969"])),
    ]
