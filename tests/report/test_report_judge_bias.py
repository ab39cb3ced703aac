"""The report's section "Is the judge biased?" from a pairwise judge log: its numbers are
those of position_bias, pairwise_preference_agreement and length_bias."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import accord
from accord.cli import app
from accord.report._blocks import fmt, fmt_ci, fmt_p

pytest.importorskip("matplotlib")
pytest.importorskip("jinja2")

LOG = accord.datasets.path("judge-pairs.jsonl")
SMALL = accord.datasets.path("annotation-tools") / "pairwise.jsonl"


def _section(html: str) -> str:
    return html.split('id="judge-bias"', 1)[1].split("<section", 1)[0]


def test_the_section_shows_the_library_numbers() -> None:
    ratings = accord.read_pairwise(SMALL, duplicates="first")
    page = accord.report(
        ratings, judge=accord.Judge(pairwise=LOG), inference=accord.Inference(n_boot=200, seed=0)
    )
    assert "judge-bias" in page.sections
    section = _section(page.html)
    log = pd.read_json(LOG, lines=True)
    row = accord.position_bias(log).table.set_index("judge").loc["judge-model"]
    assert fmt_ci(row["first_win_rate_ci_low"], row["first_win_rate_ci_high"]) in section
    assert fmt_p(row["mcnemar_pvalue"]) in section
    # Pairs judged in both orders: the lead names the paired test it reports.
    assert row["position_test"] == "mcnemar_exact"
    assert "McNemar&#39;s exact test on pairs judged in both orders" in section or (
        "McNemar's exact test on pairs judged in both orders" in section
    )
    length = accord.length_bias(log).table.set_index("judge").loc["judge-model"]
    assert fmt(length["odds_ratio_per_sd"]) in section
    # Length bias: the paired test (28 pairs preferred the longer answer both times, 12 the
    # shorter, counted by hand in test_judge_bias.py) and its p-value.
    assert length["length_test"] == "mcnemar_exact"
    assert (int(length["longer_both"]), int(length["shorter_both"])) == (28, 12)
    assert fmt_p(length["length_mcnemar_pvalue"]) in section
    # First wins 80 of 131 decisive; position consistency 42 of 76 pairs (1 - 34 flips
    # counted by hand in test_judge_bias.py).
    assert f"{80 / 131:.1%}" in section and f"{42 / 76:.1%}" in section
    methods = page.html.split('id="methods"', 1)[1]
    assert "McNemar, Q. (1947)" in methods


def test_a_frame_works_and_no_log_no_section() -> None:
    ratings = accord.read_pairwise(SMALL, duplicates="first")
    log = pd.read_json(SMALL, lines=True)
    page = accord.report(
        ratings, judge=accord.Judge(pairwise=log), inference=accord.Inference(n_boot=200)
    )
    assert "judge-bias" in page.sections
    assert "no length test" in _section(page.html)
    assert (
        "judge-bias" not in accord.report(ratings, inference=accord.Inference(n_boot=200)).sections
    )


def test_report_command_takes_pairwise(tmp_path: Path) -> None:
    out = tmp_path / "bias.html"
    result = CliRunner().invoke(app, ["report", str(SMALL), "--from", "pairwise",
                                      "--duplicates", "first", "--pairwise", str(LOG),
                                      "-o", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "judge-bias" in result.output and "Is the judge biased?" in out.read_text()
    assert "judge-model" in out.read_text()
