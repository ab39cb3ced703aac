"""``accord judge --from pairwise`` (position consistency and bias tests) and ``accord judge
--trial`` (a judge's agreement with itself): the numbers are the library's."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest
from typer.testing import CliRunner

import accord
from accord._results import dumps
from accord.cli import app

from .._cli import cli_json

runner = CliRunner()
PAIRWISE = str(accord.datasets.path("judge-pairs.jsonl"))
RUNS = str(accord.datasets.path("judge-pair-runs.csv"))
SMALL = str(accord.datasets.path("annotation-tools") / "pairwise.jsonl")
TRIAL_ARGS = ["--item", "question_id", "--rater", "judge", "--label", "preferred",
              "--trial", "order", "--judge", "judge-model"]  # fmt: skip


def _run(*args: str) -> str:
    result = runner.invoke(app, ["judge", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_pairwise_json_is_the_library_results() -> None:
    out = cli_json(_run(PAIRWISE, "--from", "pairwise", "--seed", "1", "--format", "json"))
    log = pd.read_json(PAIRWISE, lines=True)
    position = accord.position_bias(log).table
    got = pd.DataFrame(out["position_bias"]["table"])
    pd.testing.assert_series_equal(got["mcnemar_pvalue"], position["mcnemar_pvalue"])
    assert got["favours_first"].tolist() == position["favours_first"].tolist()
    length = accord.length_bias(log).table
    assert [r["slope"] for r in out["length_bias"]["table"]] == pytest.approx(length["slope"])
    pc = accord.pairwise_preference_agreement(log, rng=1)
    assert out["agreement"]["position_consistency"] == pc.position_consistency
    assert out["agreement"]["position_consistency_ci_low"] == pc.position_consistency_ci_low
    assert "self_preference" not in out


def test_pairwise_csv_has_one_row_per_judge() -> None:
    table = pd.read_csv(io.StringIO(_run(PAIRWISE, "--from", "pairwise", "--format", "csv")))
    assert table["judge"].tolist() == ["judge-model"]
    assert {"position_consistency", "flip_rate", "mcnemar_pvalue", "length_slope"} <= set(
        table.columns
    )
    consistency = table["position_consistency"].tolist()
    assert table["flip_rate"].tolist() == pytest.approx([1 - c for c in consistency])


def test_pairwise_table_shows_the_bias_tests() -> None:
    text = _run(SMALL, "--from", "pairwise", "--judge", "gpt-4-pair", "--own", "gpt-4",
                "--n-boot", "0")  # fmt: skip
    assert "Position bias" in text and "Self-preference" in text
    assert "gpt-4-pair prefers its own model in 100.0%" in text


def test_self_preference_json() -> None:
    out = cli_json(_run(SMALL, "--from", "pairwise", "--judge", "gpt-4-pair", "--own",
                          "gpt-4", "--n-boot", "0", "--format", "json"))  # fmt: skip
    expected = accord.self_preference(pd.read_json(SMALL, lines=True), "gpt-4-pair", "gpt-4")
    assert out["self_preference"] == json.loads(dumps(expected.to_dict()))


def test_trial_json_and_csv_are_the_library_results() -> None:
    out = cli_json(_run(RUNS, *TRIAL_ARGS, "--format", "json"))
    expected = accord.judge_consistency(
        pd.read_csv(RUNS), "judge-model", item="question_id", rater="judge", label="preferred",
        trial="order",
    )  # fmt: skip
    assert out["table"][0]["alpha"] == expected.table["alpha"].iloc[0]
    assert out["table"][0]["n_fragile"] == expected.table["n_fragile"].iloc[0] == 34
    assert len(out["items"]) == len(expected.items)
    table = pd.read_csv(io.StringIO(_run(RUNS, *TRIAL_ARGS, "--format", "csv")))
    assert table["rater"].tolist() == ["judge-model"]
    assert table["kappa"].iloc[0] == pytest.approx(expected.table["kappa"].iloc[0])
    text = _run(RUNS, *TRIAL_ARGS)
    assert "judge-model with itself alpha 0.270" in text and "most fragile items" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([RUNS, "--item", "question_id", "--rater", "judge", "--label", "preferred"],
         "--judge and --epsilon are needed"),
        ([RUNS, "--trial", "order", "--judge", "judge-model"], "--trial needs the columns"),
        ([RUNS, *TRIAL_ARGS[:-2]], "--trial needs --judge"),
        ([RUNS, *TRIAL_ARGS, "--level", "nominl"], "level"),
        ([SMALL, "--from", "pairwise", "--own", "gpt-4"], "--own needs one --judge"),
        ([RUNS, "--item", "question_id", "--rater", "judge", "--label", "preferred",
          "--judge", "judge-model", "--epsilon", "0.1", "--own", "x"],
         "--own needs --from pairwise"),
        ([RUNS, *TRIAL_ARGS[:-1], "nobody"], "no rows of judge 'nobody'"),
    ],
)  # fmt: skip
def test_errors_are_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["judge", *args])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


DRIFT = str(accord.datasets.path("judge-drift.csv"))
DRIFT_ARGS = ["--item", "item", "--rater", "rater", "--label", "verdict", "--judge", "judge",
              "--time", "time"]  # fmt: skip


def test_drift_json_csv_and_table_are_the_library_results() -> None:
    out = cli_json(_run(DRIFT, *DRIFT_ARGS, "--window", "14d", "--format", "json"))
    expected = accord.agreement_drift(pd.read_csv(DRIFT), "judge", time="time", window="14d",
                                      label="verdict")  # fmt: skip
    tests = {r["series"]: r for r in out["tests"]}
    row = expected.tests.set_index("series").loc["judge with humans"]
    assert tests["judge with humans"]["chi2"] == pytest.approx(row["chi2"])
    assert tests["judge with humans"]["slope_pvalue"] == pytest.approx(row["slope_pvalue"])
    table = pd.read_csv(io.StringIO(_run(DRIFT, *DRIFT_ARGS, "--format", "csv")))
    assert len(table) == 2 * 8  # eight weekly windows, two series
    text = _run(DRIFT, *DRIFT_ARGS, "--window", "14d")
    assert "Equal agreement across windows of 14d" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([DRIFT, *DRIFT_ARGS, "--window", "weekly"], "--window must be a length"),
        ([DRIFT, *DRIFT_ARGS[:-4], "--time", "time"], "--time needs one --judge"),
        ([DRIFT, "--judge", "judge", "--time", "time"], "--time needs the columns"),
        ([DRIFT, *DRIFT_ARGS[:-1], "verdict"], "must hold times"),
    ],
)
def test_drift_errors(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["judge", *args])
    assert result.exit_code == 2, result.output
    assert message in result.output
