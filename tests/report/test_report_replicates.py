"""The report's "Replicate measurements" section: the repeated-measures CCC and Deming with
the error ratio from the replicates, when raters measured items more than once.

The numbers on the page are those of ``accord.repeated_concordance`` on the raw rows and of
``accord.deming`` on the replicate pairs built by hand (tests/measurements/test_replicates.py
checks the same functions agree to 1e-12 through the report's reading of the rows); here
each cell is checked against those results as the page prints them (:func:`fmt`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import accord
from accord import InvalidInputError
from accord.cli import app
from accord.report._blocks import fmt, fmt_ci

from ..measurements.test_replicates import ROWS, _deming_by_hand, frame
from .test_report import row_values

COLUMNS = {"item": "patient", "rater": "method", "label": "value", "level": "interval"}
BY_COLUMN = [(p, r, r) for p in range(1, 5) for r in (2, 3)] + [(5, 2, 2)]


def section(page: str) -> str:
    """The page from the replicates section on (the method-comparison section before it
    has an "a on b" row of its own)."""
    return page[page.index('id="replicates"') :]


def test_repeated_rows_add_the_section_with_the_functions_numbers() -> None:
    df = frame()
    page = accord.report(df, **COLUMNS, duplicates="mean", progress=False)
    assert page.sections.index("replicates") == page.sections.index("method-comparison") + 1
    ccc = accord.repeated_concordance(df["value"], df["patient"], df["method"])
    values = row_values(page.html, "repeated-measures CCC")
    assert values[:3] == ["2", "5", str(len(ROWS))]
    assert values[3:6] == [fmt(ccc.statistic), fmt_ci(*ccc.ci), fmt(ccc.standard_error)]
    assert values[6:] == [fmt(v) for v in (ccc.between_subjects, ccc.subject_method,
                                           ccc.between_methods, ccc.within)]  # fmt: skip
    # numbered by the order of the rows: a's first replicate beside b's first
    by_order = [(p, r, r + 1) for p in range(1, 5) for r in (1, 2)] + [(5, 1, 2)]
    fit = _deming_by_hand(by_order)
    cells = row_values(section(page.html), "a on b")
    assert cells[:2] == ["5", "9"]
    assert cells[2:] == [fmt(fit.error_ratio), fmt(fit.within_sd_x), fmt(fit.within_sd_y),
                         fmt(fit.intercept), fmt_ci(*fit.intercept_ci), fmt(fit.slope),
                         fmt_ci(*fit.slope_ci)]  # fmt: skip
    assert "the order of the rows" in page.html
    assert "Carrasco, J. L., &amp; Jover, L. (2003)" in page.html
    assert "Linnet, K. (1998)" in page.html


def test_the_trial_column_numbers_the_replicates() -> None:
    page = accord.report(frame(), **COLUMNS, duplicates="mean", trial="rep", progress=False)
    fit = _deming_by_hand(BY_COLUMN)
    cells = row_values(section(page.html), "a on b")
    assert cells[2] == fmt(fit.error_ratio) and cells[7] == fmt(fit.slope)
    assert "numbered by column &#39;rep&#39;" in page.html


def test_no_section_without_replicates_or_below_the_interval_level() -> None:
    once = frame().drop_duplicates(["patient", "method"])
    page = accord.report(once, **COLUMNS, progress=False)
    assert "replicates" not in page.sections
    ordinal = accord.report(frame(), **{**COLUMNS, "level": "ordinal"}, duplicates="first",
                            progress=False)  # fmt: skip
    assert "replicates" not in ordinal.sections


def test_trial_without_a_judge_needs_measurements_and_duplicates() -> None:
    with pytest.raises(InvalidInputError, match="at the interval and ratio levels"):
        accord.report(frame(), **{**COLUMNS, "level": "nominal"}, trial="rep",
                      duplicates="first", progress=False)  # fmt: skip
    with pytest.raises(InvalidInputError, match=r"give duplicates \('mean'"):
        accord.report(frame(), **COLUMNS, trial="rep", progress=False)


def _cli(tmp_path: Path, *extra: str) -> object:
    frame().to_csv(tmp_path / "reps.csv", index=False)
    args = ["report", str(tmp_path / "reps.csv"), "--item", "patient", "--rater", "method",
            "--label", "value", "--level", "interval", "--duplicates", "mean",
            "-o", str(tmp_path / "reps.html"), *extra]  # fmt: skip
    return CliRunner().invoke(app, args)


def test_cli_report_of_replicates_end_to_end(tmp_path: Path) -> None:
    res = _cli(tmp_path, "--trial", "rep")
    assert res.exit_code == 0, res.output
    assert "replicates" in res.output.split("(")[-1]  # the sections written
    page = (tmp_path / "reps.html").read_text(encoding="utf-8")
    fit = _deming_by_hand(BY_COLUMN)
    assert row_values(section(page), "a on b")[7] == fmt(fit.slope)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--trial", "occasion"), "column 'occasion' not found"),
        (("--trial", "rep", "--level", "nominal"), "--trial names the runs of a --judge"),
    ],
)
def test_cli_bad_replicate_column_is_a_one_line_error(
    tmp_path: Path, extra: tuple[str, ...], message: str
) -> None:
    res = _cli(tmp_path, *extra)
    lines = res.stderr.strip().splitlines()
    assert res.exit_code == 2, res.output
    assert len(lines) == 1 and lines[0].startswith("accord: error: "), res.stderr
    assert message in lines[0]


def test_cli_replicate_repeated_within_a_replicate_is_a_one_line_error(tmp_path: Path) -> None:
    df = frame()
    df.loc[1, "rep"] = 1
    df.to_csv(tmp_path / "twice.csv", index=False)
    args = ["report", str(tmp_path / "twice.csv"), "--item", "patient", "--rater", "method",
            "--label", "value", "--level", "interval", "--duplicates", "mean", "--trial",
            "rep", "-o", str(tmp_path / "twice.html")]  # fmt: skip
    res = CliRunner().invoke(app, args)
    lines = res.stderr.strip().splitlines()
    assert res.exit_code == 2 and len(lines) == 1, res.output
    assert "column 'rep': rater 'a' measured item 1 more than once in replicate 1" in lines[0]
