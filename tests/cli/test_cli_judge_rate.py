"""``accord judge-rate``: the judge's rates corrected by its errors, from the command line.

The numbers are the library's (``accord.judges.rates.judge_rates``), whose estimators
tests/judges/test_judge_rates.py checks against judgy, ppi-python and the published formulas; here
the command must print what the library returns, and fail in one line.
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import accord
from accord.cli import app
from accord.judges.rates import judge_rates

from .._cli import cli_json

runner = CliRunner()
COLUMNS = ["--item", "item", "--rater", "rater", "--label", "preference"]


def run(examples: Path, *args: str) -> tuple[int, str, str]:
    path = str(examples / "pandalm-judged.csv")
    result = runner.invoke(app, ["judge-rate", path, *COLUMNS, "--judge", "gpt-3.5-turbo", *args])
    return result.exit_code, result.stdout, result.stderr


def _library(examples: Path, **options: object) -> accord.judges.rates.JudgeRates:
    ratings = accord.read_ratings(
        examples / "pandalm-judged.csv", item="item", rater="rater", label="preference"
    )
    return judge_rates(ratings, "gpt-3.5-turbo", **options)  # type: ignore[arg-type]


def test_json_is_the_library_result(examples: Path) -> None:
    code, out, _ = run(examples, "--positive", "first", "--format", "json")
    assert code == 0
    payload = cli_json(out)
    ours = _library(examples, positive="first")
    assert payload["corrected"]["estimate"] == pytest.approx(ours.corrected.estimate)
    assert payload["ppi"][0]["estimate"] == pytest.approx(ours.ppi[0].estimate)
    assert payload["n_labelled"] == 196 and payload["n_unlabelled"] == 778
    assert payload["report"]["rows"] == 1574


def test_table_shows_raw_corrected_ppi_and_labels_to_halve(examples: Path) -> None:
    code, out, _ = run(examples)
    assert code == 0
    ours = _library(examples)
    row = ours.table.set_index("label").loc["first"]
    assert f"{row['raw_rate']:.3f}" in out and f"{row['ppi']:.3f}" in out
    assert f"{int(row['ppi_labels_to_halve']):,}" in out
    assert "labels to halve" in out and "majority of 3 humans" in out


def test_csv_is_the_table(examples: Path) -> None:
    code, out, _ = run(examples, "--format", "csv", "--positive", "tie")
    assert code == 0
    frame = pd.read_csv(io.StringIO(out))
    assert list(frame["label"]) == ["tie"]
    assert frame["corrected"].iloc[0] == 0.0  # clipped: the judge rarely says tie


def test_unlabelled_file_adds_judged_items(examples: Path, tmp_path: Path) -> None:
    extra = tmp_path / "more.csv"
    pd.DataFrame(
        {"item": [5000, 5001, 5002], "rater": "gpt-3.5-turbo", "preference": ["first"] * 3}
    ).to_csv(extra, index=False)
    code, out, _ = run(examples, "--unlabelled", str(extra), "--format", "json")
    assert code == 0
    assert cli_json(out)["n_unlabelled"] == 781


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--positive", "maybe"], "--positive must be one of first, second, tie; got maybe"),
        (["--interval", "wald"], "--interval must be one of delta, bootstrap; got wald"),
        (["--humans", "nobody"], "nobody"),
        (["--confidence-level", "95"], "--confidence-level"),
    ],
)
def test_bad_options_exit_2_in_one_line(examples: Path, args: list[str], message: str) -> None:
    code, _, err = run(examples, *args)
    assert code == 2
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
