"""Replicate measurements: when raters measured an item more than once (its repeated rows,
or a trial column numbering them), the repeated-measures CCC with its jackknife interval
and the Deming regression of each pair of raters with the ratio of their error variances
estimated from the replicates. Interval and ratio levels, memory engine."""

from __future__ import annotations

import math
from typing import Any

from ..._errors import InvalidInputError
from .._blocks import Block, Column, MethodNote, Note, Section, Table, fmt, fmt_ci, fmt_int
from .._context import Context

__all__ = ["build_replicates"]

TITLE = "Replicate measurements"
#: Pairs of raters in the Deming table.
ROWS = 10

CCC_REFERENCES = (
    "Carrasco, J. L., & Jover, L. (2003). Estimating the generalized concordance "
    "correlation coefficient through variance components. Biometrics, 59(4), 849-858. "
    "https://doi.org/10.1111/j.0006-341X.2003.00099.x",
    "Carrasco, J. L., King, T. S., & Chinchilli, V. M. (2009). The concordance correlation "
    "coefficient for repeated measures estimated by variance components. Journal of "
    "Biopharmaceutical Statistics, 19(1), 90-105. https://doi.org/10.1080/10543400802527890",
)

DEMING_REFERENCES = (
    "Linnet, K. (1998). Performance of Deming regression analysis in case of misspecified "
    "analytical error ratio in method comparison studies. Clinical Chemistry, 44(5), "
    "1024-1031. https://doi.org/10.1093/clinchem/44.5.1024",
    "Linnet, K. (1993). Evaluation of regression procedures for methods comparison studies. "
    "Clinical Chemistry, 39(3), 424-432. https://doi.org/10.1093/clinchem/39.3.424",
)


def replicates_of(ctx: Context) -> Any:
    """The replicates of the rows read (:func:`accord.measurements.replicates.\
replicates_of_rows`), computed once: numbered by the trial column when one was given
    without a judge (a judge's trial column names its runs), else by the order of the rows;
    None when no rater measured an item twice and no trial column was given."""
    from ...measurements.replicates import replicates_of_rows

    if ctx.frame is None or ctx.item is None or ctx.rater is None or ctx.label is None:
        return None
    column = ctx.trial if ctx.judge is None else None
    if column is None and not _repeated(ctx):
        return None
    return ctx.cached(
        "replicates",
        lambda: replicates_of_rows(
            ctx.frame,  # type: ignore[arg-type]
            item=str(ctx.item),
            rater=str(ctx.rater),
            label=str(ctx.label),
            replicate=column,
            level=ctx.level,  # type: ignore[arg-type]
            na_values=ctx.na_values,
            labels_as=ctx.labels_as,  # type: ignore[arg-type]
        ),
    )


def _repeated(ctx: Context) -> bool:
    """Whether some rater measured some item twice among the rows with a label: never when
    the ratings were read refusing repeats and every such row became a rating (no pass over
    the rows then), else :func:`accord.measurements.replicates.has_repeats`."""
    from ...measurements.replicates import has_repeats

    assert ctx.frame is not None and ctx.item and ctx.rater and ctx.label
    if ctx.duplicates == "raise" and ctx.ratings is not None:
        labelled = int(ctx.frame[ctx.label].notna().sum())
        if ctx.ratings.n_ratings == labelled:
            return False
    return has_repeats(ctx.frame, ctx.item, ctx.rater, ctx.label)


def _concordance_table(ctx: Context, ccc: Any) -> Table:
    """The repeated-measures CCC, its interval and its variance components, in one row."""
    return Table.of(
        (
            Column.text("coefficient", lambda r: "repeated-measures CCC"),
            Column("raters", "n_methods", fmt_int),
            Column("subjects", "n_subjects", fmt_int),
            Column("measurements", "n_measurements", fmt_int),
            Column("CCC", "statistic"),
            Column(f"{ctx.level_pct} CI", lambda r: fmt_ci(r.ci.low, r.ci.high), str),
            Column("SE", "standard_error"),
            Column("subjects var.", "between_subjects"),
            Column("subject x rater var.", "subject_method"),
            Column("raters var.", "between_methods"),
            Column("replicates var.", "within"),
        ),
        [ccc],
        caption="Repeated-measures CCC: the share of the variance of one measurement that "
        "is between subjects, beside the subject-by-rater interaction, the spread of the "
        f"raters' means and the replicates' error ({ccc.method}).",
    )


def _deming_table(ctx: Context, fits: Any) -> Table:
    """Each pair's Deming line, the ratio of the error variances from the replicates."""
    shown = [f.to_dict() for f in fits.fits[:ROWS]]
    more = len(fits.fits) - len(shown)
    return Table.of(
        (
            Column.name("pair", lambda r: f"{r['second']} on {r['first']}"),
            Column("subjects", "n_pairs", fmt_int),
            Column("replicate pairs", "n_measurements", fmt_int),
            Column("error ratio", "error_ratio"),
            Column("within SD x", "within_sd_x"),
            Column("within SD y", "within_sd_y"),
            Column("intercept", "intercept"),
            Column(
                f"intercept {ctx.level_pct} CI",
                lambda r: fmt_ci(r["intercept_ci_low"], r["intercept_ci_high"]),
                str,
            ),
            Column("slope", "slope"),
            Column(
                f"slope {ctx.level_pct} CI",
                lambda r: fmt_ci(r["slope_ci_low"], r["slope_ci_high"]),
                str,
            ),
        ),
        shown,
        caption="Deming regression of each pair on the subjects' means, the error ratio "
        "(the within-subject variance of x over that of y) estimated from the replicates "
        "(Linnet 1998), jackknife intervals over subjects. Replicate pairs: the l-th "
        "replicate of x with the l-th of y on one subject (a replicate without its pair is "
        "left out). Agreement wants the slope's interval to hold 1 and the intercept's 0"
        + (f"; the first {fmt_int(ROWS)} pairs of {fmt_int(len(fits.fits))}." if more > 0 else "."),
    )


def _lead(reps: Any, ccc: Any) -> str:
    by = f"column {reps.replicate!r}" if reps.replicate else "the order of the rows"
    head = (
        f"Raters measured items more than once (up to {reps.most_replicates} times, the "
        f"replicates numbered by {by})"
    )
    if ccc is None or math.isnan(ccc.statistic):
        return head + "."
    return (
        f"{head}: the repeated-measures CCC of the {ccc.n_methods} raters over "
        f"{fmt_int(ccc.n_subjects)} subjects is {fmt(ccc.statistic)} "
        f"({_ci_words(ccc)}); the other sections read one measurement per item and rater."
    )


def _ci_words(ccc: Any) -> str:
    """The CCC's interval as the lead words it."""
    return f"{ccc.confidence_level:.0%} CI {fmt_ci(ccc.ci.low, ccc.ci.high)}"


def build_replicates(ctx: Context) -> Section | None:
    """The replicates' CCC and Deming fits: present at the interval and ratio levels when
    some rater measured an item twice (or a trial column numbers the replicates)."""
    if not ctx.numeric or not ctx.in_memory or ctx.ratings is None:
        return None
    reps = replicates_of(ctx)
    if reps is None:
        return None
    from ...measurements.regression import method_regression
    from ...measurements.repeated_concordance import concordance_of_replicates

    level = ctx.confidence_level
    blocks: list[Block] = []
    notes: list[MethodNote] = []
    ccc = None
    try:
        ccc = ctx.cached("replicates-ccc", lambda: concordance_of_replicates(
            reps.ratings, reps.subject, confidence_level=level))  # fmt: skip
        blocks.append(_concordance_table(ctx, ccc))
        if ccc.reason:
            blocks.append(Note(f"{ccc.reason}.", "fair"))
        notes.append(MethodNote("Repeated-measures CCC", ccc.method, CCC_REFERENCES))
    except InvalidInputError as error:
        blocks.append(Note(f"Repeated-measures CCC not shown: {error}."))
    try:
        fits = ctx.cached("replicates-deming", lambda: method_regression(
            reps.ratings, method="deming", error_ratio="replicates", subject=reps.subject,
            confidence_level=level))  # fmt: skip
        blocks.append(_deming_table(ctx, fits))
        notes.append(MethodNote("Deming regression of replicates", fits.fits[0].method,
                                DEMING_REFERENCES))  # fmt: skip
    except InvalidInputError as error:
        blocks.append(Note(f"Deming regression of the replicates not shown: {error}."))
    return Section("replicates", TITLE, _lead(reps, ccc), tuple(blocks), tuple(notes))
