"""The report's section "Does the judge drift over time?" from a time column: its numbers are
those of agreement_drift and of ``accord judge --time`` on the same file, from Python and from
the command line."""

from __future__ import annotations

import html as html_module
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import accord
from accord.cli import app
from accord.report._blocks import fmt, fmt_ci, fmt_p

pytest.importorskip("matplotlib")
pytest.importorskip("jinja2")

DRIFT = accord.datasets.path("judge-drift.csv")
NAMES = {"item": "item", "rater": "rater", "label": "verdict"}


def _section(page_html: str) -> str:
    text = page_html.split('id="judge-drift"', 1)[1].split("<section", 1)[0]
    return html_module.unescape(text)


def _cells(section: str) -> list[str]:
    """The table cells of the section, in order, as shown."""
    return [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>",
                                                                  section, re.S)]  # fmt: skip


def _judge_json(window: str) -> dict:
    args = ["judge", str(DRIFT), "--item", "item", "--rater", "rater", "--label", "verdict",
            "--judge", "judge", "--time", "time", "--window", window,
            "--format", "json"]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    out: dict = json.loads(res.stdout)["result"]
    return out


def _check_section(section: str, expected: dict) -> None:
    """Every window's estimate, SE and interval, and each series' tests, as the page shows
    them, are those of the result ``expected`` (``to_dict`` form)."""
    cells = _cells(section)
    for test in expected["tests"]:
        for key in ("chi2", "slope", "slope_se", "pooled"):
            assert fmt(test[key]) in cells
        assert fmt_p(test["pvalue"]) in cells and fmt_p(test["slope_pvalue"]) in cells
    for row in expected["windows"]:
        assert fmt(row["statistic"]) in cells and fmt(row["standard_error"]) in cells
        assert fmt_ci(row["ci_low"], row["ci_high"]) in cells
    assert "<svg" in section and "judge with humans" in section


def _compare(result: accord.AgreementDrift, expected: dict) -> None:
    """The library's result equals the command's JSON to 1e-12."""
    got = result.to_dict()
    for part, keys in (("windows", ("statistic", "standard_error", "ci_low", "ci_high")),
                       ("tests", ("pooled", "chi2", "pvalue", "slope", "slope_se",
                                  "slope_pvalue"))):  # fmt: skip
        assert len(got[part]) == len(expected[part]) > 0
        for mine, theirs in zip(got[part], expected[part], strict=True):
            assert mine["series"] == theirs["series"]
            for key in keys:
                np.testing.assert_allclose(mine[key], theirs[key], rtol=1e-12, atol=1e-12)


def test_the_section_shows_the_numbers_of_accord_judge_time() -> None:
    # No window given: seven days, as on accord judge.
    page = accord.report(
        DRIFT,
        judge=accord.Judge("judge", epsilon=0.15, time="time"),
        progress=False,
        inference=accord.Inference(n_boot=50),
        **NAMES,
    )
    assert "judge-drift" in page.sections
    assert page.sections.index("judge-drift") < page.sections.index("coefficients")
    expected = _judge_json("7d")
    library = accord.agreement_drift(pd.read_csv(DRIFT), "judge", label="verdict", time="time",
                                     window="7d")  # fmt: skip
    _compare(library, expected)
    _check_section(_section(page.html), expected)
    methods = page.html.split('id="methods"', 1)[1]
    assert "Fleiss, J. L. (1981)" in methods


def test_report_command_takes_time_and_window(tmp_path: Path) -> None:
    out = tmp_path / "drift.html"
    args = ["report", str(DRIFT), "--item", "item", "--rater", "rater", "--label", "verdict",
            "--judge", "judge", "--epsilon", "0.15", "--time", "time", "--window", "14d",
            "-o", str(out), "--quiet"]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    expected = _judge_json("14d")
    _check_section(_section(out.read_text(encoding="utf-8")), expected)
    # The four fortnights' kappas of the judge, as docs/judge-bias.md states them.
    assert [round(r["statistic"], 3) for r in expected["windows"]][::2] == [
        0.862, 0.713, 0.759, 0.524,
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--time", "time"], "--time dates the judge's agreement"),
        (["--window", "7d", "--judge", "judge", "--epsilon", "0.1"], "give --time too"),
        (["--time", "when", "--judge", "judge", "--epsilon", "0.1"], "'when'"),
        (
            ["--time", "time", "--window", "soon", "--judge", "judge", "--epsilon", "0.1"],
            "--window must be a length",
        ),
        (["--time", "verdict", "--judge", "judge", "--epsilon", "0.1"], "must hold times"),
    ],
)
def test_report_time_errors_are_one_line_and_exit_2(
    args: list[str], message: str, tmp_path: Path
) -> None:
    base = ["report", str(DRIFT), "--item", "item", "--rater", "rater", "--label", "verdict",
            "-o", str(tmp_path / "x.html"), "--quiet"]  # fmt: skip
    res = CliRunner().invoke(app, [*base, *args])
    assert res.exit_code == 2, res.output
    assert message in res.output and "Traceback" not in res.output


def test_python_time_errors() -> None:
    with pytest.raises(accord.InvalidInputError, match="give the judge too"):
        accord.report(DRIFT, progress=False, judge=accord.Judge(time="time"), **NAMES)
    with pytest.raises(accord.InvalidInputError, match="give time too"):
        accord.report(
            DRIFT, judge=accord.Judge("judge", epsilon=0.1, window="7d"), progress=False, **NAMES
        )
    with pytest.raises(accord.InvalidInputError, match="time is read from the rows"):
        accord.report(
            DRIFT,
            judge=accord.Judge("judge", epsilon=0.1, time="time"),
            engine="stream",
            progress=False,
            **NAMES,
        )


def test_with_runs_the_page_and_accord_judge_read_the_majority_over_runs(tmp_path: Path) -> None:
    runs = accord.datasets.path("judge-runs.csv")
    args = ["judge", str(runs), "--item", "item", "--rater", "rater", "--label", "verdict",
            "--judge", "judge", "--time", "time", "--window", "14d", "--trial", "run",
            "--format", "json"]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    expected = json.loads(res.stdout)["result"]
    # The judge's five runs of an item folded to its majority label, counted by hand.
    frame = pd.read_csv(runs)
    judge = frame[frame["rater"] == "judge"]
    majority = judge.groupby("item")["verdict"].agg(lambda v: v.value_counts().idxmax())
    first = judge[judge["run"] == 1].set_index("item")
    folded = pd.concat([
        frame[frame["rater"] != "judge"],
        first.assign(verdict=majority).reset_index()[frame.columns],
    ])  # fmt: skip
    by_hand = accord.agreement_drift(folded, "judge", label="verdict", time="time", window="14d")
    _compare(by_hand, expected)
    page = accord.report(
        runs,
        judge=accord.Judge("judge", epsilon=0.15, time="time", window="14d"),
        trial="run",
        progress=False,
        inference=accord.Inference(n_boot=50),
        **NAMES,
    )
    _check_section(_section(page.html), expected)
