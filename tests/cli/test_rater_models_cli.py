"""``accord truth``: rater models on the command line (the numbers are the library's,
checked in tests/truth/test_rater_models.py; here, that the command prints them)."""

from __future__ import annotations

import io
import shlex
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import accord
from accord._bootstrap import MIN_INTERVAL_REPLICATES
from accord.cli import app
from accord.cli._truth import EPILOG

from .._cli import cli_json

runner = CliRunner()


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def pandalm(examples: Path, *more: str) -> tuple[int, str, str]:
    path = str(examples / "pandalm.csv")
    columns = ("--item", "item", "--rater", "rater", "--label", "preference")
    return invoke("truth", path, *columns, "--n-bootstrap", "0", *more)


def test_json_is_the_library_result(examples: Path) -> None:
    code, out, _ = pandalm(examples, "--format", "json", "--next", "3")
    assert code == 0
    payload = cli_json(out)
    ratings = accord.read_ratings(
        examples / "pandalm.csv", item="item", rater="rater", label="preference"
    )
    fit = accord.rater_model(ratings, n_bootstrap=0)
    assert [r["accuracy"] for r in payload["raters"]] == fit.raters["accuracy"].tolist()
    assert [r["item"] for r in payload["next"]] == fit.next_items(3)["item"].tolist()
    assert payload["model"] == "dawid-skene" and payload["converged"] is True


def test_table_and_csv(examples: Path) -> None:
    code, out, _ = pandalm(examples, "--model", "mace", "--next", "4")
    assert code == 0
    assert "mace:" in out and "Items to label again (top 4)" in out and "gpt-3.5-turbo" in out
    # the shares are named by their labels, and the interval columns by their level
    fit = accord.rater_model(
        accord.read_ratings(examples / "pandalm.csv", item="item", rater="rater",
                            label="preference"), model="mace", n_bootstrap=0)  # fmt: skip
    shares = ", ".join(f"{c} {p:.3f}" for c, p in zip(fit.categories, fit.prevalence, strict=True))
    assert f"label shares {shares}" in out
    assert "accuracy's 95% interval" in out
    code, out, _ = pandalm(examples, "--format", "csv", "--next", "4")
    assert code == 0
    assert len(pd.read_csv(io.StringIO(out))) == 4


def test_gold_file(examples: Path, tmp_path: Path) -> None:
    gold = tmp_path / "gold.csv"
    pd.DataFrame({"item": [0, 1, 2], "preference": ["second", "first", "tie"]}).to_csv(
        gold, index=False
    )
    code, out, _ = pandalm(examples, "--gold", str(gold), "--format", "json")
    assert code == 0
    assert {r["gold_n"] for r in cli_json(out)["raters"]} <= {3, 2}


def test_bad_input_is_one_line_exit_2(examples: Path) -> None:
    code, _, err = pandalm(examples, "--model", "ds")
    assert code == 2
    assert err.strip().splitlines() == [
        "accord: error: --model must be one of dawid-skene, one-coin, mace, glad; got ds"
    ]
    code, _, err = pandalm(examples, "--gold", "missing.csv")
    assert code == 2 and "--gold: no such file" in err


def test_stream_and_dask_engines_give_the_memory_fit(examples: Path) -> None:
    path = examples / "pandalm.csv"
    read = {"item": "item", "rater": "rater", "label": "preference"}
    memory = accord.rater_model(path, **read, n_bootstrap=0)
    columns = ["p_first", "p_second", "p_tie"]
    for engine in ("stream", "dask"):
        fit = accord.rater_model(path, **read, engine=engine, n_bootstrap=0, model="mace")
        again = accord.rater_model(path, **read, n_bootstrap=0, model="mace")
        assert fit.items["item"].astype(str).tolist() == again.items["item"].astype(str).tolist()
        assert abs(fit.items[columns].to_numpy() - again.items[columns].to_numpy()).max() < 1e-12
        assert fit.report.ratings == memory.report.ratings == 4970
    # Dawid-Skene without a bootstrap: each EM step one pass of the stream engine, the
    # memory fit to rounding
    code, out, _ = pandalm(examples, "--engine", "stream", "--format", "json")
    assert code == 0
    shown = [r["accuracy"] for r in cli_json(out)["raters"]]
    assert shown == pytest.approx(memory.raters["accuracy"].tolist(), abs=1e-9)


def test_help_examples_ask_for_no_bootstrap_or_enough_of_it() -> None:
    # An interval read from fewer than MIN_INTERVAL_REPLICATES resamples warns: an example
    # of the help must not teach a call that warns.
    words = shlex.split(EPILOG.replace("\\\n", " ").replace("\b", " "))
    asked = [int(words[k + 1]) for k, w in enumerate(words) if w == "--n-bootstrap"]
    assert asked and all(n == 0 or n >= MIN_INTERVAL_REPLICATES for n in asked)


def test_observed_information_interval(examples: Path) -> None:
    code, out, _ = pandalm(examples, "--interval", "observed-information", "--format", "json")
    assert code == 0
    ratings = accord.read_ratings(
        examples / "pandalm.csv", item="item", rater="rater", label="preference"
    )
    fit = accord.rater_model(ratings, n_bootstrap=0, interval="observed-information")
    shown = [r["accuracy_se"] for r in cli_json(out)["raters"]]
    assert shown == fit.raters["accuracy_se"].tolist()
    code, out, _ = pandalm(examples, "--interval", "observed-information")
    assert code == 0 and " SE " in out
    code, _, err = pandalm(examples, "--interval", "observed-information", "--model", "mace")
    assert code == 2 and "needs model='dawid-skene'" in err and "\n" not in err.strip()
