"""The ICC on irrNA's example designs (Brueckl & Heuer, irrNA 0.2.3): no between-item
variance (``Indep``) and an exact fit with no residual (``Consist``)."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from typer.testing import CliRunner

from accord import DegenerateDataWarning, icc
from accord.cli import app

from .._cli import cli_json

REF = json.loads((Path(__file__).parents[1] / "reference" / "irrna.json").read_text())


def _matrix(name: str) -> np.ndarray:
    return np.array(REF[name]["scores"], dtype=float)  # None -> NaN


def _long(y: np.ndarray) -> pd.DataFrame:
    items, raters = np.nonzero(~np.isnan(y))
    return pd.DataFrame({"item": items + 1, "rater": raters + 1, "score": y[items, raters]})


def test_indep_has_no_between_item_variance() -> None:
    # irrNA's Indep, a 6 x 6 Latin square: every item mean is 3.5 (MSR = 0) and every rater
    # mean too. The ANOVA formulas give ICC(2,k) = 6 and ICC(1,k) = ICC(3,k) = -inf (R:
    # psych::ICC(Indep, lmer=FALSE) prints 6 and -1.8e31, pingouin the same), and ICC(2,1)'s
    # interval raised ZeroDivisionError. None is an estimate: NaN with the reason.
    with pytest.warns(DegenerateDataWarning, match="no between-item variance"):
        res = icc(_matrix("Indep"), method="anova")
    for f in res.forms:
        assert math.isnan(f.statistic), f.form
        low, high = f.confidence_interval()
        assert math.isnan(low) and math.isnan(high), f.form
        assert "no between-item variance" in str(f.reason), f.form
    table = res.table()
    assert table.icc.isna().all() and table.ci_low.isna().all() and table.ci_high.isna().all()


def test_indep_on_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "indep.csv"
    _long(_matrix("Indep")).to_csv(path, index=False)
    args = ["agree", str(path), "--item", "item", "--rater", "rater", "--label", "score",
            "--level", "interval"]  # fmt: skip
    out = CliRunner().invoke(app, [*args, "--format", "json"])
    assert out.exit_code == 0, out.output
    iccs = [c for c in cli_json(out.stdout)["coefficients"] if c["name"] == "icc"]
    assert len(iccs) == 6
    for c in iccs:
        assert c["statistic"] is None or math.isnan(c["statistic"])
        assert "no between-item variance" in c["reason"]
    table = CliRunner().invoke(app, args)
    assert table.exit_code == 0 and "Traceback" not in table.output
    assert "no between-item variance" in table.output
    html = tmp_path / "indep.html"
    report = CliRunner().invoke(app, ["report", *args[1:], "--output", str(html)])
    assert report.exit_code == 0, report.output
    assert "no between-item variance" in html.read_text()


def test_icc_2k_with_a_mean_variance_that_is_not_positive() -> None:
    # Items differ a little (MSR > 0), the residual is large and the raters agree on their
    # levels (MSC = 0): MSR + (MSC - MSE)/n < 0, and the ANOVA ratio for ICC(2,k) would be
    # above 1. By hand for these 3 x 2 scores: item means 1, 1, 1.5 (grand mean 7/6,
    # MSR = 2 (1/36 + 1/36 + 4/36) / 2 = 1/6), rater means 7/6 and 7/6 (MSC = 0),
    # SST = 13/3, MSE = (13/3 - 1/3) / 2 = 2; MSR + (MSC - MSE)/3 = -1/2, and the formula
    # (MSR - MSE)/(MSR + (MSC - MSE)/n) would give 11/3.
    y = np.array([[0.0, 2.0], [2.0, 0.0], [1.5, 1.5]])
    with pytest.warns(DegenerateDataWarning, match="ICC\\(2,k\\) undefined"):
        res = icc(y)
    assert math.isnan(res["ICC(2,k)"].statistic)
    assert "not positive" in str(res["ICC(2,k)"].reason)
    assert math.isnan(res["ICC(2,k)"].confidence_interval().low)
    # ICC(2,1)'s denominator MSR + (k-1) MSE + k (MSC - MSE)/n = 5/6 is positive: its value
    # stands, (1/6 - 2) / (5/6) = -11/5
    assert_allclose(res["ICC(2,1)"].statistic, -11 / 5, rtol=1e-12)


def test_consist_exact_fit_reml_equals_anova() -> None:
    # irrNA's Consist: y = object + rater exactly (MSE = 0). For balanced data the REML
    # maximum as s_e -> 0 is the ANOVA point s_a = MSR/k, s_b = MSC/n; the REML search
    # returned ICC(2,1) = 0.544 here.
    y = _matrix("Consist")
    psych = REF["Consist"]["psych_lmer_false"]  # R: psych::ICC(Consist, lmer=FALSE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        anova, reml = icc(y, method="anova"), icc(y, method="reml")
    for form in ("ICC(1,1)", "ICC(2,1)", "ICC(3,1)", "ICC(1,k)", "ICC(2,k)", "ICC(3,k)"):
        assert_allclose(anova[form].statistic, psych[form], rtol=1e-9, err_msg=form)
        assert_allclose(reml[form].statistic, psych[form], rtol=1e-6, err_msg=form)
    # by hand: item means 1.5 .. 6.5 (grand 4; MSR = 6 * 17.5 / 5 = 21), rater means 3.5,
    # 5.5, 7.5, 4.5, 2.5, 0.5 (MSC = 6 * 29.5 / 5 = 35.4): s_a = 21/6, s_b = 35.4/6, s_e = 0,
    # and ICC(2,1) = 21 / (21 + 35.4) = 0.3723 (psych's above)
    a, b, e = reml["ICC(2,1)"].variance_components
    assert_allclose((a, b), (21 / 6, 35.4 / 6), rtol=1e-9)
    assert e == 0.0
    # the profile interval of the limit: the revealed item and rater effects are two normal
    # samples; at each end the deviance, minimised over s_a with s_b = s_a (1 - rho)/rho,
    # is the chi-square(1) 95% quantile above its minimum
    from scipy import optimize

    sa, sb = 5 * 21 / 6, 5 * 35.4 / 6  # sums of squares of the effects about their means

    def dev(s_a: float, s_b: float) -> float:
        return 5 * math.log(s_a) + sa / s_a + 5 * math.log(s_b) + sb / s_b

    def profile(rho: float) -> float:
        f = lambda t: dev(math.exp(t), math.exp(t) * (1 - rho) / rho)  # noqa: E731
        return float(optimize.minimize_scalar(f, bounds=(-10, 10), method="bounded").fun)

    low, high = reml["ICC(2,1)"].confidence_interval()
    assert 0 < low < a / (a + b) < high < 1
    for end in (low, high):
        assert_allclose(profile(end) - dev(21 / 6, 35.4 / 6), 3.8414588, atol=1e-4)


def test_the_interval_says_which_it_is_and_why(tmp_path: Path) -> None:
    # Shrout & Fleiss's (1979) 6 x 4 scores: complete, the F interval; one score removed,
    # the REML profile interval. Each form's ci_method names its interval and why.
    scores = np.array(
        [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]],
        dtype=float,
    )
    gap = scores.copy()
    gap[0, 1] = np.nan
    complete, incomplete = icc(scores), icc(gap)
    assert complete["ICC(A,1)"].ci_description == (
        "F-based interval (Shrout & Fleiss 1979; McGraw & Wong 1996), chosen as every rater "
        "scored every item (complete design)"
    )
    assert incomplete["ICC(A,1)"].ci_description == (
        "profile-likelihood interval of the REML fit (chi-square(1)), chosen as 1 of 24 item x "
        "rater cells has no score and the F interval needs every rater on every item"
    )
    assert (
        icc(scores, method="reml")["ICC(A,1)"]
        .to_dict()["ci_method"]
        .endswith("chosen as the REML fit was asked for")
    )
    assert incomplete.to_dict()["interval_choice"].startswith("1 of 24 item x rater cells")
    assert incomplete.table()["ci_method"].str.contains("1 of 24").all()
    path = tmp_path / "gap.csv"
    _long(gap).to_csv(path, index=False)
    args = ["agree", str(path), "--item", "item", "--rater", "rater", "--label", "score",
            "--level", "interval"]  # fmt: skip
    out = CliRunner().invoke(app, [*args, "--format", "json"])
    iccs = [c for c in cli_json(out.stdout)["coefficients"] if c["name"] == "icc"]
    assert all("chosen as 1 of 24 item x rater cells has no score" in c["ci_method"] for c in iccs)
    table = CliRunner().invoke(app, args, env={"COLUMNS": "250"})
    assert table.exit_code == 0
    assert "profile likelihood of the REML fit, chosen as 1 of 24" in " ".join(table.output.split())


def test_beside_psych_lmer_and_why_they_differ() -> None:
    # R: psych::ICC(x, lmer=TRUE)$results on Shrout & Fleiss's 6 x 4 scores with x[1, 2] and
    # x[4, 3] missing (psych 2.x, R 4.2.2): ICC1 0.2087493701, ICC2 0.3213280847,
    # ICC3 0.7457447141, ICC1k 0.5134502387, ICC2k 0.6544412646, ICC3k 0.9214590991
    # (docs/icc-incomplete.md shows them beside accord's)
    gaps = np.array([[9, np.nan, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, np.nan, 6],
                     [10, 5, 6, 9], [6, 2, 4, 7]])  # fmt: skip
    res = icc(gaps)
    assert_allclose(res["ICC(A,1)"].statistic, 0.3213280847, rtol=1e-4)  # the same model
    s_a, s_b, s_e = res["ICC(A,1)"].variance_components
    # psych steps up to k = 4 raters (accord to k-hat = 3.6) ...
    assert_allclose(s_a / (s_a + (s_b + s_e) / 4), 0.6544412646, rtol=1e-4)
    assert_allclose(res.k_hat, 3.6)
    # ... and takes ICC(1,1) and ICC(C,1) from the two-way random fit's variances
    msb, msw = 4 * s_a + s_e, s_b + s_e
    assert_allclose((msb - msw) / (msb + 3 * msw), 0.2087493701, rtol=1e-4)
    assert_allclose(s_a / (s_a + s_e), 0.7457447141, rtol=1e-4)
    # where accord fits the one-way and the fixed-rater models themselves
    assert abs(res["ICC(1,1)"].statistic - 0.2087493701) > 0.03


def test_reml_intervals_on_a_complete_design_on_request(tmp_path: Path) -> None:
    # --icc-method reml (icc_method="reml"): the profile interval on a complete design too,
    # with every engine; the point values are the ANOVA's (Shrout & Fleiss 1979, Table 2:
    # ICC(2,1) = 0.29)
    scores = np.array(
        [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]],
        dtype=float,
    )
    path = tmp_path / "sf.csv"
    _long(scores).to_csv(path, index=False)
    args = ["agree", str(path), "--item", "item", "--rater", "rater", "--label", "score",
            "--level", "interval", "--format", "json"]  # fmt: skip
    for extra in ([], ["--engine", "stream"]):
        out = CliRunner().invoke(app, [*args, *extra, "--icc-method", "reml"])
        assert out.exit_code == 0, out.output
        iccs = {c["alias"]: c for c in cli_json(out.stdout)["coefficients"] if c["name"] == "icc"}
        assert iccs["ICC(A,1)"]["ci_method"].startswith("profile-likelihood interval")
        assert iccs["ICC(A,1)"]["ci_method"].endswith("chosen as the REML fit was asked for")
        assert round(iccs["ICC(A,1)"]["statistic"], 2) == 0.29
        reml = icc(scores, method="reml")["ICC(A,1)"].confidence_interval()
        assert_allclose([iccs["ICC(A,1)"]["ci_low"], iccs["ICC(A,1)"]["ci_high"]], reml)
    default = CliRunner().invoke(app, args)
    iccs = {c["alias"]: c for c in cli_json(default.stdout)["coefficients"] if c["name"] == "icc"}
    assert iccs["ICC(A,1)"]["ci_method"].startswith("F-based interval")
    bad = CliRunner().invoke(app, [*args, "--icc-method", "ml"])
    assert bad.exit_code == 2 and "--icc-method must be one of" in bad.output
    assert "Traceback" not in bad.output


def test_consist_na_exact_fit_on_unlinked_raters_is_undefined() -> None:
    # irrNA's ConsistNA: two blocks (items 1-3 by raters 1-3, items 4-6 by raters 4-6), each
    # y = item + rater exactly. The REML likelihood has no maximum and the raters share no
    # item: ICC(A,.) is NaN with the reason (the search returned 0.51, then 0.99)
    with pytest.warns(DegenerateDataWarning, match="share no item"):
        res = icc(_matrix("ConsistNA"))
    for form in ("ICC(A,1)", "ICC(A,k)"):
        assert math.isnan(res[form].statistic), form
        assert math.isnan(res[form].confidence_interval().low), form
        assert "share no item" in str(res[form].reason), form
    # consistency: the residual goes to 0 with item variance left, ICC(C,1) -> 1
    assert res["ICC(C,1)"].statistic > 0.999999
