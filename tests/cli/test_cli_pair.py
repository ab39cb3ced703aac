"""``accord pair``: the two-rater command line.

The BI-RADS numbers are those of Casagrande, Fabris & Girometti (2020), Table 2 (kappa 0.821,
IA 0.729) and Fig. 2 (best cut BR1-2 | BR3-5); see tests/reference/two_raters.json.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli import app

from .._cli import cli_json

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["pair", *args])
    return result.exit_code, result.stdout, result.stderr


def test_birads_table_prints_the_papers_numbers(examples: Path) -> None:
    code, out, _ = run("--table", str(examples / "birads-table.csv"), "--seed", "1")
    assert code == 0
    assert "ABVS (rows) vs US (columns)" in out
    assert "0.8208" in out  # kappa 0.820757 -> the paper's 0.821
    assert "0.7291" in out  # IA 0.7291088595 -> the paper's 0.729
    assert "informational agreement" in out and "specific agreement" in out.lower()


def test_birads_json_is_stable_and_complete(examples: Path) -> None:
    code, out, _ = run(
        "--table",
        str(examples / "birads-table.csv"),
        "--format",
        "json",
        "--n-boot",
        "200",
        "--seed",
        "2",
        "--dichotomize",
        "--level",
        "ordinal",
    )
    assert code == 0
    data = cli_json(out)
    assert round(data["cohen_kappa"]["statistic"], 3) == 0.821
    assert round(data["informational_agreement"]["statistic"], 3) == 0.729
    assert data["input"]["categories"] == ["BR1", "BR2", "BR3", "BR4", "BR5"]
    assert data["input"]["n_items"] == 186
    assert data["dichotomization"]["best_kappa"] == 2
    assert data["dichotomization"]["best_informational_agreement"] == 2
    per_cat = data["specific_agreement"]["per_category"]
    assert [row["category"] for row in per_cat] == ["BR1", "BR2", "BR3", "BR4", "BR5"]
    assert set(data) >= {"percent_agreement", "scott_pi", "informational_agreement"}
    # same seed, same numbers
    again = cli_json(
        run(
            "--table",
            str(examples / "birads-table.csv"),
            "--format",
            "json",
            "--n-boot",
            "200",
            "--seed",
            "2",
            "--dichotomize",
            "--level",
            "ordinal",
        )[1]
    )
    assert again == data


def test_long_ratings_with_two_raters_and_weights(examples: Path, tmp_path: Path) -> None:
    target = tmp_path / "pair.csv"
    code, out, _ = run(
        str(examples / "birads.csv"),
        "--item",
        "finding",
        "--rater",
        "modality",
        "--label",
        "birads",
        "--raters",
        "ABVS",
        "US",
        "--weights",
        "linear",
        "--format",
        "csv",
        "--n-boot",
        "0",
        "--output",
        str(target),
    )
    assert code == 0 and out == ""
    import pandas as pd

    frame = pd.read_csv(target)
    by = dict(zip(frame["measure"], frame["statistic"], strict=False))
    assert round(by["cohen_kappa"], 6) == 0.820757
    assert "cohen_kappa_linear" in by
    assert round(by["informational_agreement"], 10) == 0.7291088595


def test_dichotomize_table_output_marks_the_best_cut(examples: Path, tmp_path: Path) -> None:
    target = tmp_path / "pair.txt"
    code, _, _ = run(
        "--table",
        str(examples / "birads-table.csv"),
        "--dichotomize",
        "--level",
        "ordinal",
        "--n-boot",
        "0",
        "--output",
        str(target),
    )
    assert code == 0
    text = target.read_text(encoding="utf-8")
    line = next(ln for ln in text.splitlines() if "BR1-BR2 | BR3-BR5" in ln)
    assert "0.9438" in line and "0.8364" in line and "kappa, IA" in line
    assert "Cuts of the ordered scale BR1, BR2, BR3, BR4, BR5 (level ordinal)" in " ".join(
        text.split()
    )


def test_dichotomize_nominal_labels_sets_each_category_against_the_rest(
    examples: Path,
) -> None:
    args = ("--item", "patient", "--rater", "rater", "--label", "diagnosis")
    args += ("--raters", "rater1", "rater2", "--dichotomize", "--n-boot", "0")
    code, out, err = run(str(examples / "diagnoses.csv"), *args)
    assert code == 0, err
    # Not a cut of the alphabetical order of the diagnoses.
    assert "Depression-Neurosis" not in out and "low | high" not in out
    assert "Each category against the rest" in out
    assert "Schizophrenia | rest" in out and "specific agreement" in out
    assert "--categories" in " ".join(out.split())
    code, out, _ = run(str(examples / "diagnoses.csv"), *args, "--format", "json")
    dich = cli_json(out)["dichotomization"]
    assert dich["kind"] == "one-vs-rest"
    assert dich["cuts"][0]["split"] == "Depression | rest"
    # Peer side by side: sklearn's kappa of the binarised diagnoses of raters 1 and 2.
    import pandas as pd
    from sklearn.metrics import cohen_kappa_score

    wide = pd.read_csv(examples / "diagnoses.csv").pivot(
        index="patient", columns="rater", values="diagnosis"
    )
    for row in dich["cuts"]:
        expected = cohen_kappa_score(
            wide["rater1"] == row["category"], wide["rater2"] == row["category"]
        )
        assert abs(row["kappa"] - expected) < 1e-12
    code, out, _ = run(str(examples / "diagnoses.csv"), *args, "--format", "csv")
    assert "dichotomized_specific_agreement,Depression | rest" in out


def test_dichotomize_cuts_declared_and_numeric_scales(examples: Path) -> None:
    table = str(examples / "birads-table.csv")
    order = "BR1,BR2,BR3,BR4,BR5"
    for extra in (("--categories", order), ("--level", "ordinal")):
        code, out, _ = run("--table", table, "--dichotomize", "--format", "json", *extra)
        assert code == 0
        assert cli_json(out)["dichotomization"]["kind"] == "cuts"
    code, out, _ = run("--table", table, "--dichotomize", "--format", "json", "--n-boot", "0")
    assert cli_json(out)["dichotomization"]["kind"] == "one-vs-rest"
    args = ("--item", "finding", "--rater", "modality", "--label", "birads")
    args += ("--raters", "ABVS", "US", "--dichotomize", "--n-boot", "0", "--format", "json")
    code, out, _ = run(str(examples / "birads.csv"), *args)
    dich = cli_json(out)["dichotomization"]
    assert dich["kind"] == "cuts" and dich["best_kappa"] == 2  # numbers are ordered
    code, out, _ = run(str(examples / "birads.csv"), *args, "--level", "nominal")
    assert cli_json(out)["dichotomization"]["kind"] == "one-vs-rest"
    args = ("--item", "patient", "--rater", "rater", "--label", "diagnosis", "--dichotomize")
    args += ("--raters", "rater1", "rater2", "--level", "ordinal")
    code, out, err = run(str(examples / "diagnoses.csv"), *args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "--categories" in err and "Traceback" not in err  # no cut of the alphabetical order
    code, out, err = run("--table", table, "--dichotomize", "--level", "ordered")
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.strip() == (
        "accord: error: --level must be nominal, ordinal, interval or ratio; got 'ordered'"
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("1,2,3\n4,5,6\n", "square"),
        ("x,A,B\nA,1,-2\nB,3,4\n", "negative"),
        ("x,A,B\nA,0,0\nB,0,0\n", "empty"),
        ("", "empty"),
        ("1,2\n3,4,5\n", "square"),
        ("a,b\nc,d\n", "cannot read a table"),
    ],
)
def test_bad_tables_give_one_line_and_exit_2(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "table.csv"
    path.write_text(content, encoding="utf-8")
    code, out, err = run("--table", str(path))
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("accord: error:")
    assert message in err


def test_usage_errors(examples: Path) -> None:
    code, _, err = run()
    assert code == 2 and "either a ratings file or --table" in err
    code, _, err = run(str(examples / "birads.csv"), "--item", "finding")
    assert code == 2 and "--rater, --label" in err
    code, _, err = run(
        str(examples / "birads.csv"),
        "--item",
        "finding",
        "--rater",
        "modality",
        "--label",
        "birads",
        "--raters",
        "ABVS",
        "MRI",
    )
    assert code == 2 and "rater 'MRI' not found" in err
    code, _, err = run("--table", str(examples / "missing.csv"))
    assert code == 2 and "file not found" in err
    code, _, err = run("--table", str(examples / "birads-table.csv"), "--weights", "quadatic")
    assert code == 2 and "Got 'quadatic' instead" in err


def test_table_format_prints_the_contingency_table_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    path = Path(__file__).resolve().parents[2] / "examples" / "birads-table.csv"
    code, out, _ = run("--table", str(path))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Counts: ABVS in rows, US in columns"
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in lines if "│" in line]
    # the file's counts, cell for cell, read here with the csv module
    import csv

    with path.open(newline="") as f:
        given = list(csv.reader(f))
    header = next(line for line in lines if "┃" in line)
    assert [c.strip() for c in header.split("┃")[1:-1]] == ["ABVS \\ US", *given[0][1:], "total"]
    body = rows[: len(given) - 1]
    for row, g in zip(body, given[1:], strict=True):
        assert row[:-1] == g  # the category, then the counts
        assert int(row[-1]) == sum(int(v) for v in g[1:])  # the row margin
    totals = rows[len(given) - 1]
    assert totals[0] == "total"
    assert [int(v) for v in totals[1:-1]] == [
        sum(int(g[j]) for g in given[1:]) for j in range(1, len(given[0]))
    ]
    assert int(totals[-1]) == 186  # Casagrande et al. (2020): 186 findings
    # before the coefficients
    assert out.index("Counts:") < out.index("Cohen's kappa")
