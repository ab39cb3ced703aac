"""``accord agree --design``: the G-study and D-study from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from numpy.testing import assert_allclose
from typer.testing import CliRunner

from accord.agreement.gtheory import d_study, g_study
from accord.agreement.icc import icc
from accord.cli import app

ROOT = Path(__file__).resolve().parents[1]
PEFR = ["agree", str(ROOT / "examples" / "pefr.csv"), "--item", "subject", "--rater", "meter",
        "--label", "pefr"]  # fmt: skip
PRXO = ["agree", str(ROOT / "tests" / "reference" / "gtheory" / "prxo_missing.csv"), "--item",
        "person", "--rater", "rater", "--label", "score"]  # fmt: skip
runner = CliRunner()


def test_one_facet_design_prints_the_icc_of_the_meters() -> None:
    res = runner.invoke(app, [*PEFR, "--design", "p x r", "--d-study", "r=1-3", "--format",
                              "json"])  # fmt: skip
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    frame = pd.read_csv(ROOT / "examples" / "pefr.csv")
    wide = frame.pivot(index="subject", columns="meter", values="pefr").to_numpy()
    # E rho^2 at the G-study's 2 meters is ICC(C,2) (McGraw & Wong 1996), from accord's icc
    row = next(r for r in out["d_study"]["table"] if r["n_r"] == 2)
    assert_allclose(row["g_coefficient"], icc(wide)["ICC(C,k)"].statistic, rtol=1e-12)
    assert [c["effect"] for c in out["g_study"]["components"]] == ["p", "r", "pr"]
    assert out["smallest"]["n_r"] == 1


def test_two_facets_with_missing_scores_by_reml() -> None:
    res = runner.invoke(app, [*PRXO, "--design", "p x r x o", "--facet", "o=occasion",
                              "--d-study", "r=1-6,o=1/2/3", "--target", "0.6"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "G-study of p x r x o" in res.output and "reml" in res.output
    frame = pd.read_csv(PRXO[1])
    g = g_study(frame, design="p x r x o", facets={"p": "person", "o": "occasion"})
    best = d_study(g, {"r": range(1, 7), "o": [1, 2, 3]}).smallest(0.6)
    assert f"n_r = {int(best['n_r'])}, n_o = {int(best['n_o'])}" in res.output
    out_of_reach = runner.invoke(app, [*PRXO, "--design", "p x r x o", "--facet", "o=occasion",
                                       "--target", "0.99"])  # fmt: skip
    assert out_of_reach.exit_code == 0 and "no design in the D-study reaches" in out_of_reach.output


def test_csv_is_the_components_table() -> None:
    res = runner.invoke(app, [*PEFR, "--design", "p x r", "--format", "csv"])
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[0].startswith("effect,df,sum_of_squares,mean_square,variance")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--design", "p x"], "cannot read the design"),
        (["--design", "p x r x o"], "--facet o=COLUMN"),
        (["--design", "p x r", "--facet", "o"], "--facet takes FACET=COLUMN"),
        (["--design", "p x r", "--d-study", "r=a"], "--d-study sizes"),
        (["--design", "p x r", "--d-study", "o=1"], "not facets of the D-study"),
    ],
)
def test_errors_are_one_line_exit_2(extra: list[str], message: str) -> None:
    res = runner.invoke(app, [*PEFR, *extra])
    assert res.exit_code == 2
    assert message in res.output and "Traceback" not in res.output
