"""``accord compare``: method comparison of continuous measurements (Bland-Altman, CCC,
Passing-Bablok and Deming regression)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, cast

import typer

from ._app import app, examples
from ._common import (
    ITEM_OPTION,
    NA_VALUES_OPTION,
    RATER_OPTION,
    Cell,
    OutputFormat,
    Shared,
    check_output,
    command_source,
    echo_warnings,
    format_pvalue,
    parse_na_values,
    print_table,
    shared_options,
    user_errors,
    write_csv,
    write_json,
)

EPILOG = examples(
    "accord compare examples/pefr.csv --item subject --rater meter --score pefr "
    "--reference mini-Wright",
    "accord compare examples/pefr.csv --item subject --rater meter --score pefr "
    "--multiplier 2 --format json",
    "accord compare examples/pefr.csv --item subject --rater meter --score pefr "
    "--reference mini-Wright --method passing-bablok",
    "accord compare examples/pefr.csv --item subject --rater meter --score pefr "
    "--reference mini-Wright --method deming --error-ratio 1",
)

METHODS = ("bland-altman", "passing-bablok", "deming", "repeated-ccc")
FIT_COLUMNS = ["pair", "n", "intercept [CI]", "slope [CI]", "linearity p"]

COLUMNS = ["pair", "n", "bias [CI]", "lower limit [CI]", "upper limit [CI]", "CCC [CI]",
           "slope p"]  # fmt: skip


def _g(value: float) -> str:
    """A measurement for display: 4 significant digits (NaN as NaN)."""
    return "NaN" if value != value else f"{value:.4g}"


def _with_ci(value: float, low: float, high: float) -> str:
    """A value and its interval; in less room, the interval under the value."""
    if low != low or high != high:
        return _g(value)
    ci = f"[{_g(low)}, {_g(high)}]"
    return Cell(f"{_g(value)} {ci}", narrow=f"{_g(value)}\n{ci}")


def _rows(table: Any) -> list[dict[str, Any]]:
    """The rows of :meth:`~accord.MethodComparison.table`, each value with its interval."""
    rows = []
    for row in table.to_dict(orient="records"):
        rows.append(
            {
                "pair": f"{row['first']} - {row['second']}",
                "n": row["n_pairs"],
                "bias [CI]": _with_ci(row["bias"], row["bias_ci_low"], row["bias_ci_high"]),
                "lower limit [CI]": _with_ci(row["lower"], row["lower_ci_low"],
                                             row["lower_ci_high"]),
                "upper limit [CI]": _with_ci(row["upper"], row["upper_ci_low"],
                                             row["upper_ci_high"]),
                "slope p": format_pvalue(row["slope_pvalue"]),
                "CCC [CI]": _with_ci(row["ccc"], row["ccc_ci_low"], row["ccc_ci_high"]),
            }
        )  # fmt: skip
    return rows


def _fit_rows(result: Any) -> list[dict[str, Any]]:
    """The rows of :meth:`~accord.measurements.regression.RegressionComparison.table`."""
    rows = []
    for row in result.table().to_dict(orient="records"):
        rows.append(
            {
                "pair": f"{row['second']} on {row['first']}",
                "n": row["n_pairs"],
                "intercept [CI]": _with_ci(row["intercept"], row["intercept_ci_low"],
                                           row["intercept_ci_high"]),
                "slope [CI]": _with_ci(row["slope"], row["slope_ci_low"], row["slope_ci_high"]),
                "linearity p": format_pvalue(row.get("cusum_pvalue", float("nan"))),
            }
        )  # fmt: skip
    return rows


def _replicates_ccc(
    ratings: Any, subjects: dict[Any, Any] | None, confidence_level: float, shared: Shared
) -> None:
    """The repeated-measures CCC of the raters (methods), written as ``shared`` says."""
    from .._errors import InvalidInputError
    from ..measurements.repeated_concordance import concordance_of_replicates

    if subjects is None:
        raise InvalidInputError(
            "--method repeated-ccc needs --subject: the subject each item (replicate) measures"
        )
    res = concordance_of_replicates(ratings, subjects, confidence_level=confidence_level)
    if shared.fmt is OutputFormat.json:
        write_json({"report": ratings.report.to_dict(), **res.to_dict()}, shared.output)
        return
    row = {"CCC [CI]": _with_ci(res.statistic, res.ci.low, res.ci.high),
           "subjects": res.between_subjects, "subject x method": res.subject_method,
           "methods": res.between_methods, "replicates": res.within}  # fmt: skip
    if shared.fmt is OutputFormat.csv:
        flat = {k: v for k, v in res.to_dict().items() if k != "ci"}
        write_csv(_frame([flat | {"ci_low": res.ci.low, "ci_high": res.ci.high}]), shared.output)
        return
    title = f"repeated-measures CCC of {res.n_methods} methods on {res.n_subjects} subjects"
    caption = f"{res.method}. Variance components: subjects, subject x method, methods, replicates"
    print_table([row], list(row), title=f"{ratings.report}\n{title}", caption=caption,
                output=shared.output)  # fmt: skip


def _frame(rows: list[dict[str, Any]]) -> Any:
    """A table of ``rows`` (pandas, imported here)."""
    import pandas as pd

    return pd.DataFrame(rows)


def _error_ratio(text: str) -> float | str:
    """``--error-ratio``: a positive number or ``replicates``."""
    from .._errors import InvalidInputError

    if text == "replicates":
        return text
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 < value < math.inf:
        raise InvalidInputError(
            f"--error-ratio must be a positive number or replicates; got {text}"
        )
    return value


def _regression(
    ratings: Any, method: str, reference: str | None, options: dict[str, Any], shared: Shared
) -> None:
    """The Passing-Bablok or Deming regressions, written as ``shared`` says."""
    from ..measurements.regression import method_regression

    result = method_regression(ratings, method=cast(Any, method), reference=reference,
                               **options)  # fmt: skip
    if shared.fmt is OutputFormat.json:
        write_json({"report": ratings.report.to_dict(), **result.to_dict()}, shared.output)
        return
    if shared.fmt is OutputFormat.csv:
        write_csv(result.table(), shared.output)
        return
    first = result.fits[0]
    caption = f"{first.method}; y = intercept + slope x"
    if method == "passing-bablok":
        caption += "; linearity p: Cusum test (small: not linear)"
    print_table(_fit_rows(result), FIT_COLUMNS, title=f"{ratings.report}\n{result}",
                caption=caption, output=shared.output)  # fmt: skip


def _subjects(
    path: Path, item: str, subject: str, files: Any, na_values: list[str] | None
) -> dict[Any, Any]:
    """The subject of each item, from the ``item`` and ``subject`` columns of ``path``
    (missing where the text is one of ``na_values``, as the scores)."""
    from .._errors import InvalidInputError
    from ..io.ratings import read_table

    frame = read_table(path, [item, subject], na_values=na_values, **files)
    frame = frame.dropna().drop_duplicates()
    clash = frame[frame[item].duplicated(keep=False)]
    if len(clash):
        raise InvalidInputError(
            f"column '{subject}': item {clash[item].iloc[0]} has more than one subject "
            f"({', '.join(map(str, clash[subject].iloc[:2]))})"
        )
    return dict(zip(frame[item].tolist(), frame[subject].tolist(), strict=True))


@app.command("compare", epilog=EPILOG)
@shared_options("sep", "encoding", "fmt", "output")
def compare(
    path: Path = typer.Argument(..., help="Measurements file: CSV, TSV, Parquet or JSON Lines."),
    item: str = ITEM_OPTION,
    rater: str = RATER_OPTION,
    score: str = typer.Option(..., "--score", help="Column holding the numeric measurements."),
    analysis: str = typer.Option(
        "bland-altman",
        "--method",
        help="bland-altman (limits of agreement and Lin's CCC), passing-bablok (Passing & "
        "Bablok 1983), deming (Deming regression, jackknife intervals; see --error-ratio, "
        "--weighted) or repeated-ccc (the CCC of replicates, each item one replicate of its "
        "--subject; Carrasco & Jover 2003). The regressions put the reference (or the second "
        "rater of a pair) on x.",
    ),
    error_ratio: str = typer.Option(
        "1",
        "--error-ratio",
        help="With --method deming: the error variance of x over that of y (lambda, as mcr), "
        "or 'replicates' to estimate it from the replicates of each --subject (Linnet 1998).",
    ),
    weighted: bool = typer.Option(
        False,
        "--weighted",
        help="With --method deming: Linnet's weighted Deming (errors proportional to the level).",
    ),
    reference: str | None = typer.Option(
        None, "--reference", help="Compare each rater with this one (default: every pair)."
    ),
    subject: str | None = typer.Option(
        None,
        "--subject",
        help="Column of the subject of each item, when a subject was measured more than once "
        "(Bland & Altman 2007; with --method deming the line is fitted to the subjects' means).",
    ),
    fit: str = typer.Option(
        "anova",
        "--fit",
        help="With --subject: anova (the bias is the mean of all differences, the SD from "
        "one-way ANOVA moments; Bland & Altman 2007) or reml (subjects weighted by a REML "
        "fit of the one-way random-effects model, as lme4 and MethComp's linked=TRUE).",
    ),
    multiplier: float = typer.Option(
        1.96, "--multiplier", help="SDs from the bias to each limit of agreement."
    ),
    scale: str = typer.Option(
        "difference", "--scale", help="difference, ratio (x / y, log scale) or percent."
    ),
    limits: str | None = typer.Option(
        None,
        "--limits-ci",
        help="Interval of the limits: exact (Carkeet, as a pair), exact-individual, "
        "approximate (Bland & Altman 1999), approximate-1986 or mover (Zou 2013). "
        "Default: exact, or mover with several pairs per subject.",
        show_default=False,
    ),
    confidence_level: float = typer.Option(0.95, "--confidence-level", help="Confidence level."),
    duplicates: str = typer.Option(
        "raise",
        "--duplicates",
        help="A rater measuring an item twice: raise, first, last or mean (of the two).",
    ),
    na_values: str | None = NA_VALUES_OPTION,
    shared: Shared = Shared(),
) -> None:
    """Compare methods of measurement: Bland-Altman limits of agreement and Lin's CCC, or
    Passing-Bablok or Deming regression, for every pair of raters or each rater against a
    reference."""
    from .._errors import InvalidInputError
    from ..data.ratings import Ratings
    from ..front.reading import ratings_of
    from ..measurements import bland_altman
    from ..measurements.comparison import RepeatedFit
    from ..measurements.limits import LIMITS_METHODS, LimitsMethod, Scale, limits_method_of

    check_output(shared.output)
    files = shared.files()
    with user_errors(), echo_warnings():
        if analysis not in METHODS:
            raise InvalidInputError(f"--method must be one of {', '.join(METHODS)}; got {analysis}")
        if limits is not None and limits not in LIMITS_METHODS:
            raise InvalidInputError(
                f"--limits-ci must be one of {', '.join(LIMITS_METHODS)}; got {limits}"
            )
        if not 0.0 < confidence_level < 1.0:
            raise InvalidInputError(
                f"--confidence-level must be strictly between 0 and 1; got {confidence_level:g}"
            )
        # the shared read flags: the columns, --na-values, --duplicates, --sep, --encoding
        src = command_source(path, shared, files, label=score, level="interval")
        ratings: Ratings = ratings_of(src, "accord compare")
        subjects = (
            None
            if subject is None
            else _subjects(path, item, subject, files, parse_na_values(na_values))
        )
        if analysis == "repeated-ccc":
            _replicates_ccc(ratings, subjects, confidence_level, shared)
            return
        if analysis != "bland-altman":
            options: dict[str, Any] = {"confidence_level": confidence_level}
            if analysis == "deming":
                options.update(error_ratio=_error_ratio(error_ratio), weighted=weighted,
                               subject=subjects)  # fmt: skip
            elif subjects is not None:
                raise InvalidInputError(
                    "--subject with --method passing-bablok: Passing-Bablok takes one pair "
                    "per subject (use --method deming, or average the replicates first)"
                )
            _regression(ratings, analysis, reference, options, shared)
            return
        result = bland_altman(
            ratings,
            reference=reference,
            subject=subjects,
            multiplier=multiplier,
            scale=cast(Scale, scale),
            fit=cast(RepeatedFit, fit),
        )
        method = cast(LimitsMethod | None, limits)
        if shared.fmt is OutputFormat.json:
            write_json(
                {"report": ratings.report.to_dict(), **result.to_dict(confidence_level, method)},
                shared.output,
            )
            return
        if shared.fmt is OutputFormat.csv:
            table = result.table(confidence_level, method)
            write_csv(table, shared.output)
            return
        first = result.limits[0]
        table = result.table(confidence_level, method)
        used = ", ".join(dict.fromkeys(limits_method_of(ba, method) for ba in result.limits))
        print_table(
            _rows(table),
            COLUMNS,
            title=f"{ratings.report}\n{result} ({first.scale}s, limits at {multiplier:g} SD)",
            caption=f"{first.method}; {confidence_level:.0%} intervals, the limits' {used}; "
            "slope p: proportional bias (difference on mean)",
            output=shared.output,
            together=[("lower limit [CI]", "upper limit [CI]")],
        )
