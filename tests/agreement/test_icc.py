"""Intraclass correlations: Shrout & Fleiss (1979) values and pingouin side by side."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

import accord
from accord import DegenerateDataWarning, DroppedDataWarning, InvalidInputError, icc

REF = json.loads((Path(__file__).parents[1] / "reference" / "many_raters.json").read_text())["icc"]


def test_shrout_fleiss_table() -> None:
    res = icc(REF["scores"])  # source: REF["source"] (Shrout & Fleiss 1979)
    for form, value in REF["expected"].items():
        assert_allclose(res[form].statistic, value, atol=REF["atol"], err_msg=form)
    assert res["ICC(A,1)"] is res["ICC(2,1)"]


@pytest.mark.parametrize("level", [0.95, 0.9])
def test_matches_pingouin(level: float) -> None:
    import warnings

    import pingouin as pg  # peer: pg.intraclass_corr(data, targets, raters, ratings)

    rng = np.random.default_rng(4)
    scores = rng.normal(size=(20, 1)) + rng.normal(scale=0.7, size=(20, 5)) + np.arange(5) * 0.3
    frame = pd.DataFrame(
        [(i, j, v) for i, row in enumerate(scores) for j, v in enumerate(row)],
        columns=["t", "r", "v"],
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = pg.intraclass_corr(frame, "t", "r", "v").set_index("Type")
    ours = icc(scores)
    for f in ours.forms:
        key = {"ICC(1)": "ICC(1,1)", "ICC(k)": "ICC(1,k)"}.get(f.alias, f.alias)
        row = theirs.loc[key]
        assert_allclose(f.statistic, row["ICC"], rtol=1e-10)
        assert_allclose(f.f_statistic, row["F"], rtol=1e-10)
        assert_allclose(f.pvalue, row["pval"], rtol=1e-8)
        # pingouin's interval is fixed at 95% and rounded to 2 decimals
        if level == 0.95:
            assert_allclose(f.confidence_interval(level), row["CI95"], atol=0.005 + 1e-12)
        else:
            lo, hi = f.confidence_interval(level)
            assert row["CI95"][0] - 0.005 <= lo <= f.statistic <= hi <= row["CI95"][1] + 0.005


def test_incomplete_items_are_left_out_with_a_warning() -> None:
    scores = np.asarray(REF["scores"], dtype=float)
    with_gap = np.vstack([scores, [1.0, np.nan, 3.0, 4.0]])
    with pytest.warns(DroppedDataWarning, match="1 of 7 items"):
        res = icc(with_gap, method="anova")
    assert res.n_items == 6 and res.n_items_incomplete == 1
    assert_allclose(res["ICC(3,1)"].statistic, REF["expected"]["ICC(3,1)"], atol=REF["atol"])
    assert "complete-case" in res["ICC(3,1)"].method


def test_ratings_input_and_degenerate() -> None:
    r = accord.Ratings.from_wide(np.asarray(REF["scores"], float), level="interval")
    assert_allclose(icc(r)["ICC(2,1)"].statistic, REF["expected"]["ICC(2,1)"], atol=REF["atol"])
    with pytest.warns(DegenerateDataWarning):
        flat = icc(np.ones((4, 3)))
    assert all(math.isnan(f.statistic) and f.reason for f in flat.forms)
    with pytest.warns(DegenerateDataWarning):
        icc([[1.0, 2.0]])
    d = icc(REF["scores"]).to_dict()
    assert d["forms"][0]["form"] == "ICC(1,1)" and "ci_low" in d["forms"][0]


def test_no_error_variance_gives_the_icc_without_an_f_interval() -> None:
    # Two raters, three items. b = a + 1 on every item: the residual mean square is 0 (F
    # infinite), the within-item one is not. By hand: item means 1.5, 2.5, 5.5 (grand mean
    # 19/6), MSR = 2 * sum((m - 19/6)^2) / 2 = 26/3, MSC = 3 * (0.25 + 0.25) = 1.5,
    # MSW = (3 * 0.5) / 3 = 0.5, MSE = 0. ICC(1,1) = (MSR - MSW) / (MSR + MSW) = 49/55;
    # ICC(2,1) = MSR / (MSR + 2 MSC / 3) = 26/29; ICC(3,1) = 1.
    with pytest.warns(DegenerateDataWarning, match="differ by a constant"):
        offset = icc([[1.0, 2.0], [2.0, 3.0], [5.0, 6.0]])
    assert_allclose(offset["ICC(1,1)"].statistic, 49 / 55, rtol=1e-12)
    assert_allclose(offset["ICC(2,1)"].statistic, 26 / 29, rtol=1e-12)
    assert offset["ICC(3,1)"].statistic == 1.0
    one_way = offset["ICC(1,1)"].confidence_interval()
    assert one_way.low < 49 / 55 < one_way.high  # MSW > 0: the F interval is defined
    for form in ("ICC(2,1)", "ICC(3,1)", "ICC(2,k)", "ICC(3,k)"):
        row = offset[form].to_dict()
        assert math.isnan(row["ci_low"]) and math.isnan(row["ci_high"]), form
        assert "residual mean square is 0" in row["reason"], form
    # Every rater gives each item the same score: every form is 1, none has an interval (it
    # raised ZeroDivisionError).
    with pytest.warns(DegenerateDataWarning, match="same score"):
        same = icc([[1.0, 1.0], [2.0, 2.0]])
    for f in same.forms:
        assert f.statistic == 1.0 and math.isnan(f.confidence_interval().low), f.form
        assert "mean square is 0" in str(f.reason), f.form


@pytest.mark.parametrize("shape", [(0, 3), (4, 0)])
def test_icc_empty_input_is_an_error(shape: tuple[int, int]) -> None:
    # An empty array is bad input (as for every coefficient), not an undefined ICC.
    with pytest.raises(InvalidInputError, match="the input is empty"):
        accord.icc(np.zeros(shape))


def test_agreement_reports_the_six_forms_as_pingouin() -> None:
    import warnings

    import pingouin as pg  # peer: pg.intraclass_corr(data, targets, raters, ratings)

    rng = np.random.default_rng(7)
    scores = rng.normal(size=(15, 1)) + rng.normal(scale=0.6, size=(15, 4)) + np.arange(4) * 0.2
    frame = pd.DataFrame(
        [(i, j, v) for i, row in enumerate(scores) for j, v in enumerate(row)],
        columns=["t", "r", "v"],
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = pg.intraclass_corr(frame, "t", "r", "v").set_index("Type")["ICC"]
    table = accord.agreement(frame, item="t", rater="r", label="v", level="interval",
                             coefficients=["icc"])  # fmt: skip
    ours = {c.label: c.statistic for c in table.coefficients}  # type: ignore[attr-defined]
    assert list(ours) == ["ICC(1,1)", "ICC(A,1)", "ICC(C,1)", "ICC(1,k)", "ICC(A,k)", "ICC(C,k)"]
    # pingouin 0.7 labels its rows the same way (its "Type" column).
    for label, value in ours.items():
        assert_allclose(value, theirs[label], rtol=1e-10, err_msg=label)


def test_scores_whose_squares_overflow_say_so() -> None:
    # Scores of order 1e200: their squares (1e400) overflow double precision, so the mean
    # squares are infinite. Every form is NaN with that reason, not a bare NaN; the same
    # scores in a smaller unit give the ICCs, which do not depend on the unit.
    rng = np.random.default_rng(1)
    base = rng.normal(size=(10, 3)) + np.arange(10)[:, None]
    with pytest.warns(accord.DegenerateDataWarning):
        huge = accord.icc(base * 1e200)
    small = accord.icc(base * 1e10)
    assert all(math.isnan(f.statistic) and "overflows" in (f.reason or "") for f in huge.forms)
    assert all(math.isfinite(f.statistic) for f in small.forms)
