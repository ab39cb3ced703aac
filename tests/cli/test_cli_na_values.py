"""--na-values and --labels-as on every command that reads labels: a category named "None"
is kept when the user says that only empty cells are missing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli import app

from .._cli import cli_json

runner = CliRunner()

#: Four raters on a None/Mild/Severe scale: 5 items x 4 raters = 20 ratings, 6 of them "None".
SCALE = [
    ["None", "None", "None", "Mild"],
    ["Mild", "Mild", "Severe", "Mild"],
    ["None", "None", "Mild", "None"],
    ["Severe", "Severe", "Severe", "Mild"],
    ["Mild", "Mild", "Mild", "Mild"],
]


@pytest.fixture
def scale_csv(tmp_path: Path) -> Path:
    path = tmp_path / "severity.csv"
    rows = ["case,reader,grade"] + [
        f"c{i},r{j},{v}" for i, row in enumerate(SCALE) for j, v in enumerate(row)
    ]
    path.write_text("\n".join(rows) + "\n")
    return path


def args(path: Path) -> list[str]:
    return [str(path), "--item", "case", "--rater", "reader", "--label", "grade"]


@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_consensus_keeps_a_category_named_none(scale_csv: Path, engine: str) -> None:
    base = ["consensus", *args(scale_csv), "--engine", engine, "-f", "json"]
    default = cli_json(runner.invoke(app, base).stdout)
    # by default "None" is a missing label: the 6 ratings are dropped, as the read line says
    assert default["report"]["ratings"] == 14 and default["report"]["missing"] == 6
    kept = runner.invoke(app, [*base, "--na-values", ""])
    assert kept.exit_code == 0, kept.stderr
    payload = cli_json(kept.stdout)
    assert payload["report"]["ratings"] == 20 and payload["report"]["missing"] == 0
    assert payload["summary"]["n_ratings"] == 20


def test_consensus_labels_as_text_keeps_two_spellings(tmp_path: Path) -> None:
    path = tmp_path / "n.csv"
    path.write_text("i,r,l\n1,a,2\n1,b,2.0\n2,a,1\n2,b,1\n")
    base = ["consensus", str(path), "--item", "i", "--rater", "r", "--label", "l", "-f", "json"]
    counted = cli_json(runner.invoke(app, [*base, "--labels-as", "number"]).stdout)
    written = cli_json(runner.invoke(app, [*base, "--labels-as", "text"]).stdout)
    # as numbers 2 and 2.0 are one category (item 1 unanimous, entropy 0); as text, two
    # (item 1 split 1:1, entropy 1 bit): mean entropy 0 against 0.5 bits
    assert counted["summary"]["mean_entropy"] == pytest.approx(0.0)
    assert written["summary"]["mean_entropy"] == pytest.approx(0.5)


@pytest.mark.parametrize("sep", [None, ","])
def test_report_keeps_a_category_named_none(
    scale_csv: Path, tmp_path: Path, sep: str | None
) -> None:
    out = tmp_path / "r.html"
    extra = [] if sep is None else ["--sep", sep]
    res = runner.invoke(
        app, ["report", *args(scale_csv), "-o", str(out), "-q", "--na-values", "", *extra]
    )
    assert res.exit_code == 0, res.stderr
    html = out.read_text()
    kept = re.search(r"ratings kept</t[hd]>\s*<td[^>]*>(\d+)<", html)
    assert kept is not None and kept.group(1) == "20"
    res = runner.invoke(app, ["report", *args(scale_csv), "-o", str(out), "-q", *extra])
    assert res.exit_code == 0, res.stderr
    kept = re.search(r"ratings kept</t[hd]>\s*<td[^>]*>(\d+)<", out.read_text())
    assert kept is not None and kept.group(1) == "14"
