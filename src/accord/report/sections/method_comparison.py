"""Method comparison of measurements: Bland-Altman limits of agreement and Lin's CCC for
each pair of raters, and the Passing-Bablok regression of each pair (interval and ratio
levels)."""

from __future__ import annotations

import math
from typing import Any, cast

from ..._errors import InvalidInputError
from .._blocks import Block, Column, Figure, MethodNote, Note, Section, Table, fmt, fmt_int
from .._context import Context
from ..measurements import MARKERS, binned, bland_altman_svg
from ..regression import regression_svg

__all__ = ["build_method_comparison"]

#: Pairs of raters drawn as a Bland-Altman plot (all are in the table).
FIGURES = 6
#: Pairs of raters in the table.
ROWS = 45
#: Pairs of raters fitted by Passing-Bablok regression (and drawn: the first two).
REGRESSIONS = 10
REGRESSION_FIGURES = 2
#: Pairs of scores (over every pair of raters) beyond which the report leaves Passing-Bablok
#: out: its exact slope selection takes about a second per 100,000 pairs, many times the read.
REGRESSION_PAIRS = 20_000

PB_REFERENCES = (
    "Passing, H., & Bablok, W. (1983). A new biometrical procedure for testing the equality "
    "of measurements from two different analytical methods. Journal of Clinical Chemistry "
    "and Clinical Biochemistry, 21(11), 709-720. https://doi.org/10.1515/cclm.1983.21.11.709",
)

DEMING_REFERENCES = (
    "Cornbleet, P. J., & Gochman, N. (1979). Incorrect least-squares regression coefficients "
    "in method-comparison analysis. Clinical Chemistry, 25(3), 432-438. "
    "https://doi.org/10.1093/clinchem/25.3.432",
    "Linnet, K. (1993). Evaluation of regression procedures for methods comparison studies. "
    "Clinical Chemistry, 39(3), 424-432. https://doi.org/10.1093/clinchem/39.3.424",
)

REFERENCES = (
    "Bland, J. M., & Altman, D. G. (1986). Statistical methods for assessing agreement "
    "between two methods of clinical measurement. Lancet, 327(8476), 307-310. "
    "https://doi.org/10.1016/S0140-6736(86)90837-8",
    "Carkeet, A. (2015). Exact parametric confidence intervals for Bland-Altman limits of "
    "agreement. Optometry and Vision Science, 92(3), e71-e80. "
    "https://doi.org/10.1097/OPX.0000000000000513",
    "Lin, L. I.-K. (1989). A concordance correlation coefficient to evaluate "
    "reproducibility. Biometrics, 45(1), 255-268. https://doi.org/10.2307/2532051",
)


def _comparison(ctx: Context) -> Any:
    from ...measurements import bland_altman

    ratings = ctx.ratings
    assert ratings is not None
    return ctx.cached("method-comparison", lambda: bland_altman(ratings))


def _ci(low: float, high: float) -> str:
    return "" if math.isnan(low) or math.isnan(high) else f"{fmt(low)} to {fmt(high)}"


def _left_out_note(n_pairs: int) -> Note:
    """Why the Passing-Bablok fit is not on the page beyond :data:`REGRESSION_PAIRS`."""
    return Note(
        f"Passing-Bablok regression left out: {fmt_int(n_pairs)} pairs of scores, "
        f"beyond the {fmt_int(REGRESSION_PAIRS)} the report fits (about a second "
        "per 100,000 pairs); accord compare --method passing-bablok fits them."
    )


def _regression_blocks(ctx: Context, n_pairs: int) -> tuple[list[Block], tuple[MethodNote, ...]]:
    """The Passing-Bablok (or, with ``regression="deming"``, Deming) table and figures of
    the first pairs of raters (each rater's scores on the next one's, as in the Bland-Altman
    table); for Passing-Bablok a note instead beyond :data:`REGRESSION_PAIRS` pairs of scores
    in all (``n_pairs``)."""
    from ...measurements.regression import RegressionMethod, method_regression

    ratings = ctx.ratings
    assert ratings is not None
    deming = ctx.regression == "deming"
    name = "Deming" if deming else "Passing-Bablok"
    method = cast(RegressionMethod, ctx.regression)
    if not deming and n_pairs > REGRESSION_PAIRS:
        return [_left_out_note(n_pairs)], ()
    try:
        result = ctx.cached(
            ctx.regression,
            lambda: method_regression(
                ratings,
                method=method,
                error_ratio=ctx.error_ratio,
                confidence_level=ctx.confidence_level,
            ),
        )
    except InvalidInputError as error:
        return [Note(f"{name} regression not shown: {error}.")], ()
    fits = [f for f in result.fits if not math.isnan(f.slope)][:REGRESSIONS]
    if not fits:
        return [], ()
    pct = ctx.level_pct
    rows = [f.to_dict() | {"p": getattr(f, "cusum_pvalue", math.nan)} for f in fits]
    linearity = () if deming else (Column("linearity p", "p"),)
    how = (
        f"errors of both methods, in the ratio {ctx.error_ratio:g} (x to y); jackknife intervals"
        if deming
        else "robust to outliers"
    )
    blocks: list[Block] = [
        Table.of(
            (
                Column.name("pair", lambda r: f"{r['second']} on {r['first']}"),
                Column("pairs", "n_pairs", fmt_int),
                Column("intercept", "intercept"),
                Column(
                    f"intercept {pct} CI",
                    lambda r: _ci(r["intercept_ci_low"], r["intercept_ci_high"]),
                    str,
                ),
                Column("slope", "slope"),
                Column(
                    f"slope {pct} CI", lambda r: _ci(r["slope_ci_low"], r["slope_ci_high"]), str
                ),
                *linearity,
            ),
            rows,
            caption=f"{name} regression (the line relating the two raters' scores, {how}): "
            "agreement wants the slope's interval to hold 1 and the intercept's 0"
            + (
                "."
                if deming
                else "; linearity p is the Cusum test (small: the relation is not a line)."
            ),
        )
    ]
    shown = fits[:REGRESSION_FIGURES]
    band = (
        "the pointwise jackknife band"
        if deming
        else "the lines through the bounds of the intervals"
    )
    blocks.append(
        Figure(
            regression_svg(shown, ctx.regression),
            f"Left: the pairs, the {name} line with its {pct} band ({band}) and the identity "
            "line; right: the residuals.",
            f"{name} fits of " + ", ".join(f"{f.second} on {f.first}" for f in shown),
        )
    )
    refs = DEMING_REFERENCES if deming else PB_REFERENCES
    return blocks, (MethodNote(f"{name} regression", fits[0].method, refs),)


def _binned_words(shown: list[Any]) -> str:
    """What the caption says of the plots that draw their pairs as a 2-D histogram."""
    many = [ba for ba in shown if binned(ba)]
    if not many:
        return ""
    counts = ", ".join(f"{ba.first} - {ba.second}: {fmt_int(ba.n_pairs)}" for ba in many)
    return (
        f"; beyond {fmt_int(MARKERS)} pairs, the pairs are binned (a 2-D histogram, darker: "
        f"more pairs in the bin; {counts} pairs binned)"
    )


def build_method_comparison(ctx: Context) -> Section | None:
    """Bland-Altman plots and the limits of agreement of each pair of raters."""
    if not ctx.numeric:
        return None
    title = "Method comparison"
    if ctx.ratings is None:
        return ctx.without_data("method-comparison", title)
    try:
        result = _comparison(ctx)
    except InvalidInputError as error:
        return Section("method-comparison", title, f"Not shown: {error}.", ())
    level = ctx.confidence_level
    table = result.table(level)
    widest = table.assign(width=table["upper"] - table["lower"]).sort_values(
        "width", ascending=False, kind="stable"
    )
    top = widest.iloc[0]
    if math.isnan(top["width"]):
        lead = "No pair of raters measured 2 items in common: the limits are undefined."
    else:
        lead = (
            f"The widest limits of agreement are those of {top['first']} - {top['second']}: "
            f"two measurements of the same item differ by {fmt(top['lower'])} to "
            f"{fmt(top['upper'])}. Judge the limits against the largest difference that "
            "does not matter in practice."
        )
    pct = ctx.level_pct
    blocks: list[Block] = [
        Table.of(
            (
                Column.name("pair", lambda r: f"{r['first']} - {r['second']}"),
                Column("pairs", "n_pairs", fmt_int),
                Column("bias", "bias"),
                Column(f"bias {pct} CI", lambda r: _ci(r["bias_ci_low"], r["bias_ci_high"]), str),
                Column(
                    "limits of agreement", lambda r: f"{fmt(r['lower'])} to {fmt(r['upper'])}", str
                ),
                Column(
                    f"outer {pct} CI of the limits",
                    lambda r: _ci(r["lower_ci_low"], r["upper_ci_high"]),
                    str,
                ),
                Column("CCC", "ccc"),
            ),
            table.head(ROWS).to_dict(orient="records"),
            caption="Differences first - second; limits at 1.96 SD, their exact intervals "
            "(Carkeet 2015)"
            + (
                f"; the first {fmt_int(ROWS)} pairs of {fmt_int(len(table))}."
                if len(table) > ROWS
                else "."
            ),
        )
    ]
    undefined = [ba for ba in result.limits if math.isnan(ba.bias)]
    if undefined:
        blocks.append(Note("; ".join(str(ba.reason) for ba in undefined[:FIGURES]) + "."))
    shown = [ba for ba in result.limits if not math.isnan(ba.bias)][:FIGURES]
    if not shown:
        return Section("method-comparison", title, lead, tuple(blocks), ())
    names = ", ".join(f"{ba.first} - {ba.second}" for ba in shown)
    blocks.append(
        Figure(
            bland_altman_svg(shown, "bland-altman", level),
            "Each pair's difference against its mean, with the bias (solid) and the limits of "
            f"agreement (dashed), their {pct} intervals shaded"
            + (f"; the first {FIGURES} pairs" if len(result.limits) > FIGURES else "")
            + _binned_words(shown)
            + ".",
            f"Bland-Altman plots of {names}",
        )
    )
    first = result.limits[0]
    more, pb_notes = _regression_blocks(ctx, sum(ba.n_pairs for ba in result.limits))
    blocks += more
    notes = (
        MethodNote("Bland-Altman limits of agreement", first.method, REFERENCES[:2]),
        MethodNote("Concordance correlation", result.concordance[0].method, REFERENCES[2:]),
        *pb_notes,
    )
    return Section("method-comparison", title, lead, tuple(blocks), notes)
