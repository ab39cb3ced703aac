"""``accord consensus``: tables, files, formats and one-line errors."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

from accord.cli import app

from .._cli import cli_json

runner = CliRunner()

DIAGNOSES = ("--item", "patient", "--rater", "rater", "--label", "diagnosis")


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_table_prints_contested_items_and_straying_raters(examples: Path) -> None:
    code, out, _ = invoke("consensus", str(examples / "diagnoses.csv"), *DIAGNOSES, "--top", "3")
    assert code == 0
    assert "Most contested items (top 3)" in out
    assert "Raters who stray most (top 3)" in out
    assert "not correctness" in out


def test_output_dir_writes_three_tables(examples: Path, tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    code, _, _ = invoke(
        "consensus", str(examples / "diagnoses.csv"), *DIAGNOSES, "--output-dir", str(out_dir)
    )
    assert code == 0
    items = pd.read_csv(out_dir / "items.csv")
    ratings = pd.read_csv(out_dir / "ratings.csv")
    raters = pd.read_csv(out_dir / "raters.csv")
    assert len(items) == 30 and len(ratings) == 180 and len(raters) == 6  # Fleiss (1971)
    assert {"entropy", "contested_rank", "mode"} <= set(items.columns)
    assert list(ratings.columns) == [
        "item", "rater", "label", "p", "surprisal", "deviation", "class"
    ]  # fmt: skip
    assert raters["rank"].tolist() == [1, 2, 3, 4, 5, 6]
    # patient 1: six times Neurosis (Fleiss 1971, Table 1) -> entropy 0, deviations 0
    assert items.loc[items["item"] == 1, "entropy"].item() == 0
    assert (ratings.loc[ratings["item"] == 1, "deviation"] == 0).all()


def test_json_and_csv(examples: Path) -> None:
    code, out, _ = invoke(
        "consensus", str(examples / "diagnoses.csv"), *DIAGNOSES, "--format", "json", "--top", "2"
    )
    assert code == 0
    data = cli_json(out)
    assert {"report", "method", "summary", "most_contested", "raters", "caution"} <= set(data)
    assert len(data["most_contested"]) == 2 and len(data["raters"]) == 2
    assert data["summary"]["n_ratings"] == 180
    code, out, _ = invoke("consensus", str(examples / "diagnoses.csv"), *DIAGNOSES, "-f", "csv")
    assert code == 0
    assert out.splitlines()[0].startswith("rank,rater,n_ratings,mean_deviation")
    assert len(out.strip().splitlines()) == 7


def test_missing_category_and_gold(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text(
        "item,rater,label,truth\n"
        "1,a,yes,yes\n1,b,yes,yes\n1,c,,yes\n"
        "2,a,no,no\n2,b,no,\n2,c,yes,no\n",
        encoding="utf-8",
    )
    args = ("consensus", str(path), "--item", "item", "--rater", "rater", "--label", "label")
    code, out, _ = invoke(*args, "--missing", "category", "--gold", "truth", "-f", "json")
    assert code == 0, out
    data = cli_json(out)
    assert data["summary"]["n_missing_as_category"] == 1
    raters = {r["rater"]: r for r in data["raters"]}
    assert raters["a"]["gold_accuracy"] == 1.0
    assert raters["c"]["gold_accuracy"] == 0.0  # no label on item 1, "yes" on item 2
    assert raters["c"]["n_ratings"] == 2


def test_errors_are_one_line(tmp_path: Path, examples: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("item,rater,label,truth\n1,a,x,x\n1,b,y,y\n", encoding="utf-8")
    args = ("consensus", str(path), "--item", "item", "--rater", "rater", "--label", "label")
    code, _, err = invoke(*args, "--gold", "truth")
    assert code == 2
    assert err.strip() == (
        "accord: error: column 'truth': item 1 has 2 different gold labels (x, y); "
        "items with more than one: 1"
    )
    code, _, err = invoke(*args, "--bands", "0,one,2")
    assert code == 2 and "--bands: 'one' is not a number" in err
    code, _, err = invoke(*args, "--bands", "2,1,0")
    assert code == 2 and "strictly increasing" in err
    code, _, err = invoke(*args, "--missing", "drop")
    assert code == 2 and "--missing must be one of" in err and "got drop" in err
    code, _, err = invoke("consensus", str(tmp_path / "nope.csv"), *args[2:])
    assert code == 2 and "file not found" in err
    assert len(err.strip().splitlines()) == 1


def test_single_category_states_why_normalised_is_nan(tmp_path: Path) -> None:
    path = tmp_path / "one.csv"
    path.write_text("item,rater,label\n1,a,x\n1,b,x\n2,a,x\n2,b,x\n")
    code, out, _ = invoke("consensus", str(path), "--item", "item", "--rater", "rater",
                          "--label", "label")  # fmt: skip
    assert code == 0
    assert "normalised NaN (one category (x)" in " ".join(out.split())
