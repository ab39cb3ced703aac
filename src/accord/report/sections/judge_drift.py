"""Does the judge's agreement with the humans drift? From a time column: the judge's agreement
with the humans' majority label and the humans' agreement among themselves per time window,
with their standard errors, the test of equal agreement across windows and the trend test
(:func:`accord.agreement_drift`, the numbers ``accord judge --time`` prints). Present when the
report was given a judge and a time column."""

from __future__ import annotations

from typing import Any

from ..._validate import counted
from .._blocks import (
    Block,
    Column,
    Figure,
    MethodNote,
    Note,
    Section,
    Table,
    fmt_ci,
    fmt_int,
    fmt_p,
)
from .._context import Context
from .common import REF

__all__ = ["build_judge_drift", "drift_of"]

TITLE = "Does the judge drift over time?"

FLEISS1981 = (
    "Fleiss, J. L. (1981). Statistical Methods for Rates and Proportions, 2nd ed. Wiley, "
    "New York, section 13.2."
)
BORENSTEIN2009 = (
    "Borenstein, M., Hedges, L. V., Higgins, J. P. T., & Rothstein, H. R. (2009). "
    "Introduction to Meta-Analysis, ch. 20. Wiley. https://doi.org/10.1002/9780470743386"
)


def drift_of(ctx: Context) -> Any:
    """:func:`accord.agreement_drift` of the report's rows, computed once: the first judge
    against the humans (the panel given, or every rater that is not a judge), the judge's
    runs folded to its majority label when a trial column names them."""
    from ...judges.consistency import majority_over_runs
    from ...judges.drift import agreement_drift

    judges = [str(j) for j in (ctx.judge if isinstance(ctx.judge, list | tuple) else [ctx.judge])]
    rows = ctx.frame
    assert rows is not None and ctx.time is not None
    item, rater, label = str(ctx.item), str(ctx.rater), str(ctx.label)
    level: Any = ctx.level
    if ctx.trial is not None and ctx.duplicates == "raise":
        rows = majority_over_runs(rows, judges, item=item, rater=rater, label=label,
                                  trial=ctx.trial, level=level)  # fmt: skip
    humans = None if ctx.humans is None else [str(h) for h in ctx.humans]
    if humans is None and len(judges) > 1:
        humans = sorted(set(rows[rater].astype(str)) - set(judges))
    return ctx.cached(
        "agreement_drift",
        lambda: agreement_drift(
            rows, judges[0], time=str(ctx.time), window=ctx.window, item=item, rater=rater,
            label=label, level=level, humans=humans, confidence_level=ctx.confidence_level,
        ),
    )  # fmt: skip


def build_judge_drift(ctx: Context) -> Section | None:
    """The drift section: present with a judge, labels and a time column."""
    if ctx.judge is None or ctx.time is None or ctx.frame is None or ctx.label is None:
        return None
    result = drift_of(ctx)
    blocks: list[Block] = [_tests(result), _figure(result), _windows(ctx, result)]
    se = result.windows["standard_error"].astype(float)
    unused = result.windows[~(se > 0)]
    if len(unused):
        blocks.append(
            Note(
                f"{counted(len(unused), 'estimate')} of a window "
                + (
                    "has no standard error and is"
                    if len(unused) == 1
                    else "have no standard error and are"
                )
                + " left out of the tests (a perfect agreement, or too few items).",
                "fair",
            )
        )
    return Section("judge-drift", TITLE, _lead(result), tuple(blocks), _methods(result),
                   nav="Drift")  # fmt: skip


def _lead(result: Any) -> str:
    tests = result.tests.set_index("series")
    parts = []
    for series in tests.index:
        row = tests.loc[series]
        parts.append(
            f"{series}: the test of equal agreement across windows of {result.window} gives "
            f"p {fmt_p(row['pvalue'])} (chi-square {row['chi2']:.3g} on {int(row['df'])} df), "
            f"the trend {row['slope']:+.3g} per window (p {fmt_p(row['slope_pvalue'])})"
        )
    return f"{result.coefficient.capitalize()} per window; " + "; ".join(parts) + "."


def _tests(result: Any) -> Table:
    return Table.of(
        (
            Column.name("series", "series"),
            Column("windows", "n_used", fmt_int),
            Column("pooled", "pooled"),
            Column("chi-square", "chi2"),
            Column("df", "df", fmt_int),
            Column("p", "pvalue", fmt_p),
            Column("trend per window", "slope"),
            Column("trend SE", "slope_se"),
            Column("trend p", "slope_pvalue", fmt_p),
        ),
        result.tests.to_dict(orient="records"),
        "Equal agreement in every window: Fleiss's (1981) chi-square of the windows' "
        "estimates around their inverse-variance weighted mean (pooled). Trend: the "
        "inverse-variance weighted regression of the estimates on the window index.",
    )


def _starts(result: Any) -> list[str]:
    return [
        str(s.date()) if s == s.normalize() else str(s) for s in result.windows["start"].unique()
    ]


def _figure(result: Any) -> Figure:
    from ..judge_figures import drift_plot

    series = {
        name: (part["statistic"].tolist(), part["ci_low"].tolist(), part["ci_high"].tolist())
        for name, part in result.windows.groupby("series", sort=False)
    }
    level = f"{result.confidence_level:.0%}"
    svg = drift_plot("drift", _starts(result), series,
                     ylabel=f"{result.coefficient} ({level} interval)")  # fmt: skip
    return Figure(
        svg,
        f"{result.coefficient.capitalize()} per window of {result.window} with its {level} "
        "interval: the judge with the humans' majority label, and the humans among themselves.",
        "Agreement per window: "
        + "; ".join(
            f"{name} " + ", ".join(f"{v:.2f}" for v in values[0]) for name, values in series.items()
        ),
    )


def _windows(ctx: Context, result: Any) -> Table:
    frame = result.windows.assign(start=[str(s) for s in result.windows["start"]])
    return Table.of(
        (
            Column("window", "window", fmt_int),
            Column.text("start", "start"),
            Column.name("series", "series"),
            Column("items", "n_items", fmt_int),
            Column(result.coefficient, "statistic"),
            Column("SE", "standard_error"),
            Column(ctx.level_pct + " CI", lambda r: fmt_ci(r["ci_low"], r["ci_high"]), str),
        ),
        frame.to_dict(orient="records"),
        f"{result.method}.",
    )


def _methods(result: Any) -> tuple[MethodNote, ...]:
    keys: tuple[str, ...] = ("cohen1960", "fce1969", "fleiss1971", "gwet2014")
    if result.coefficient == "alpha":
        keys = ("kripp2004", "gwet2014")
    return (
        MethodNote(
            "Drift of the judge",
            f"{result.method}; accord.agreement_drift, judge {result.judge}.",
            (*(REF[k] for k in keys), FLEISS1981, BORENSTEIN2009),
        ),
    )
