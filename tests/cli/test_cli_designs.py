"""``accord agree --design``: the G-study and D-study from the command line."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from numpy.testing import assert_allclose
from typer.testing import CliRunner

from accord.agreement.gtheory import d_study, g_study
from accord.agreement.icc import icc
from accord.cli import app

from .._cli import cli_json

ROOT = Path(__file__).resolve().parents[2]
PEFR = ["agree", str(ROOT / "examples" / "pefr.csv"), "--item", "subject", "--rater", "meter",
        "--label", "pefr"]  # fmt: skip
PRXO = ["agree", str(ROOT / "tests" / "reference" / "gtheory" / "prxo_missing.csv"), "--item",
        "person", "--rater", "rater", "--label", "score"]  # fmt: skip
runner = CliRunner()


def test_one_facet_design_prints_the_icc_of_the_meters() -> None:
    res = runner.invoke(app, [*PEFR, "--design", "p x r", "--d-study", "r=1-3", "--format",
                              "json"])  # fmt: skip
    assert res.exit_code == 0, res.output
    out = cli_json(res.stdout)
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
    # the REML components' Satterthwaite intervals, shown as the ANOVA ones are
    shown = g.components.dropna(subset=["ci_low"])
    assert not shown.empty
    for row in shown.itertuples():
        assert f"{row.ci_low:.4f} to {row.ci_high:.4f}" in res.output
    js = runner.invoke(app, [*PRXO, "--design", "p x r x o", "--facet", "o=occasion",
                             "--format", "json"])  # fmt: skip
    comps = cli_json(js.stdout)["g_study"]["components"]
    assert {"standard_error", "df_satterthwaite", "ci_low", "ci_high"} <= set(comps[0])
    assert_allclose([c["ci_high"] for c in comps], g.components["ci_high"], rtol=1e-12)
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
        (["--design", "p x r", "--facet", "o"], "has no facet left for it"),
        (["--facet", "o=occasion"], "give --design too"),
        (["--design", "p x r x o", "--facet", "o="], "--facet takes COLUMN or FACET=COLUMN"),
        (["--design", "p x r x o", "--facet", "p=patient"], "facet 'p' is the items"),
        (["--design", "p x r", "--d-study", "r=a"], "--d-study sizes"),
        (["--design", "p x r", "--d-study", "o=1"], "not facets of the D-study"),
    ],
)
def test_errors_are_one_line_exit_2(extra: list[str], message: str) -> None:
    res = runner.invoke(app, [*PEFR, *extra])
    assert res.exit_code == 2
    assert message in res.output and "Traceback" not in res.output


def _clustered_file(tmp_path: Path) -> Path:
    import numpy as np

    rng = np.random.default_rng(2)
    x = rng.integers(0, 2, 60)
    y = np.where(rng.random(60) < 0.7, x, rng.integers(0, 2, 60))
    site = np.repeat(["s1", "s2", "s3", "s4"], 15)
    rows = [(i, "A", x[i], site[i]) for i in range(60)] + [
        (i, "B", y[i], site[i]) for i in range(60)
    ]
    path = tmp_path / "clustered.csv"
    pd.DataFrame(rows, columns=["item", "reader", "label", "site"]).to_csv(path, index=False)
    return path


def test_cluster_and_strata_match_the_library(tmp_path: Path) -> None:
    from accord.agreement.clustered import clustered_agreement, stratified_kappa

    path = _clustered_file(tmp_path)
    frame = pd.read_csv(path)
    wide = frame.pivot(index="item", columns="reader", values="label")
    site = frame.groupby("item")["site"].first()
    base = ["agree", str(path), "--item", "item", "--rater", "reader", "--label", "label"]
    res = runner.invoke(app, [*base, "--cluster", "site", "--format", "json"])
    assert res.exit_code == 0, res.output
    kappa = clustered_agreement(wide["A"], wide["B"], site)
    assert_allclose(
        cli_json(res.stdout)["coefficients"][0]["standard_error"], kappa.standard_error, rtol=1e-12
    )
    res = runner.invoke(app, [*base, "--strata", "site", "--format", "json"])
    assert res.exit_code == 0, res.output
    overall = stratified_kappa(wide["A"], wide["B"], site)
    assert_allclose(cli_json(res.stdout)["chi_square"], overall.chi_square, rtol=1e-12)
    table = runner.invoke(app, [*base, "--strata", "site"])
    assert "Test of equal kappas across site" in table.output
    both = runner.invoke(app, [*base, "--strata", "site", "--cluster", "site"])
    assert both.exit_code == 2
    many = runner.invoke(app, [*PEFR[:1], str(ROOT / "examples" / "diagnoses.csv"), "--item",
                               "patient", "--rater", "rater", "--label", "diagnosis",
                               "--cluster", "rater"])  # fmt: skip
    assert many.exit_code == 2 and "two raters" in many.output


def test_plan_d_study_from_given_components() -> None:
    from accord.agreement.gtheory import g_study_from_components

    comps = "p=0.8,r=0.04,o=0.02,pr=0.19,po=0.31,ro=0,pro=0.32"
    res = runner.invoke(app, ["plan", "--coefficient", "g_theory", "--design", "p x r x o",
                              "--components", comps, "--d-study", "r=1-6,o=1/2/3",
                              "--format", "json"])  # fmt: skip
    assert res.exit_code == 0, res.output
    out = cli_json(res.stdout)
    # by hand at n_r = 4, n_o = 3: tau / (tau + error variance), the p x r x o D-study
    rel = 0.19 / 4 + 0.31 / 3 + 0.32 / 12
    ab = rel + 0.04 / 4 + 0.02 / 3 + 0 / 12
    assert_allclose(out["smallest"]["phi"], 0.8 / (0.8 + ab), rtol=1e-12)
    assert_allclose(out["smallest"]["g_coefficient"], 0.8 / (0.8 + rel), rtol=1e-12)
    g = g_study_from_components("p x r x o", dict(p=0.8, r=0.04, o=0.02, pr=0.19, po=0.31,
                                                  ro=0.0, pro=0.32))  # fmt: skip
    assert g.method == "given"
    bad = runner.invoke(app, ["plan", "--coefficient", "g_theory", "--design", "p x r",
                              "--components", "p=1"])  # fmt: skip
    assert bad.exit_code == 2 and "none for ['r', 'pr']" in bad.output
    wrong = runner.invoke(app, ["plan", "--coefficient", "icc", "--rho", "0.8", "--width", "0.2",
                                "--design", "p x r"])  # fmt: skip
    assert wrong.exit_code == 2 and "--design does not apply" in wrong.output


def test_the_stream_engine_gives_the_memory_g_study_of_a_balanced_design() -> None:
    balanced = ["agree", str(ROOT / "tests" / "reference" / "gtheory" / "prxo_balanced.csv"),
                "--item", "person", "--rater", "rater", "--label", "score", "--design",
                "p x r x o", "--facet", "o=occasion", "--format", "json"]  # fmt: skip
    memory = runner.invoke(app, balanced)
    stream = runner.invoke(app, [*balanced, "--engine", "stream"])
    assert memory.exit_code == 0 and stream.exit_code == 0, stream.output
    ours, theirs = cli_json(stream.stdout), cli_json(memory.stdout)
    for a, b in zip(ours["g_study"]["components"], theirs["g_study"]["components"], strict=True):
        assert a["effect"] == b["effect"]
        assert_allclose(a["variance"], b["variance"], rtol=1e-10, atol=1e-10)
    assert ours["smallest"] == pytest.approx(theirs["smallest"], rel=1e-10)
    dask = runner.invoke(app, [*balanced, "--engine", "dask"])
    assert dask.exit_code == 2 and "--engine memory, or stream" in dask.output
    missing = runner.invoke(app, [*PRXO, "--design", "p x r x o", "--facet", "o=occasion",
                                  "--engine", "stream"])  # fmt: skip
    assert missing.exit_code == 2 and "not balanced" in missing.output


def test_a_bare_facet_column_is_the_facet_left_unnamed() -> None:
    named = runner.invoke(app, [*PRXO, "--design", "p x r x o", "--facet", "o=occasion",
                                "--format", "json"])  # fmt: skip
    bare = runner.invoke(app, [*PRXO, "--design", "p x r x o", "--facet", "occasion",
                               "--format", "json"])  # fmt: skip
    assert named.exit_code == bare.exit_code == 0, bare.output
    assert cli_json(bare.stdout) == cli_json(named.stdout)
    two_left = runner.invoke(app, [*PRXO, "--design", "p x r x o x t", "--facet", "occasion"])
    assert two_left.exit_code == 2 and "Traceback" not in two_left.output
    assert "2 facets left (o, t): name each, e.g. --facet o=occasion" in two_left.output
    twice = runner.invoke(app, [*PRXO, "--design", "p x r x o", "--facet", "o=occasion",
                                "--facet", "o=session"])  # fmt: skip
    assert twice.exit_code == 2
    assert "names the facet 'o' twice: 'occasion' and 'session'" in twice.output
