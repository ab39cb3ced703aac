"""Specific agreement (PSA = F1, NSA, per category) and kappa as negatives grow.

Expected numbers come from tests/reference/two_raters.json (sources cited there), from
scikit-learn run side by side, or from computations written out in the tests.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from accord import (
    ContingencyTable,
    DegenerateDataWarning,
    InvalidInputError,
    Ratings,
    cohen_kappa,
    kappa_vs_negatives,
    specific_agreement,
)

REFERENCE = json.loads(
    (Path(__file__).parents[1] / "reference" / "two_raters.json").read_text(encoding="utf-8")
)
BIRADS = REFERENCE["dichotomization"]["table"]


def _labels(table: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    counts = np.asarray(table, dtype=int)
    rows, cols = np.nonzero(counts)
    reps = counts[rows, cols]
    return np.repeat(rows, reps), np.repeat(cols, reps)


def test_psa_nsa_and_standard_errors_reference_vector() -> None:
    ref = REFERENCE["specific_agreement"]  # source: ref["source"]
    res = specific_agreement(ref["table"])
    assert_allclose(res.statistic, ref["psa"], atol=ref["atol"])
    assert_allclose(res.negative_agreement, ref["nsa"], atol=ref["atol"])
    assert_allclose(res.standard_error, ref["se_psa"], atol=ref["atol"])
    assert_allclose(res.negative_standard_error, ref["se_nsa"], atol=ref["atol"])
    assert_allclose(cohen_kappa(ref["table"]).statistic, ref["kappa"], atol=ref["atol"])
    assert res.f1 == res.statistic


def test_psa_is_f1_of_either_rater_against_the_other() -> None:
    from sklearn.metrics import f1_score, precision_score, recall_score

    x, y = _labels([[40, 5], [10, 45]])
    # positive = category 0 (cell a); sklearn.metrics.*_score(y_true=Y, y_pred=X, pos_label=0)
    res = specific_agreement(x, y)
    assert_allclose(res.statistic, f1_score(y, x, pos_label=0))
    assert_allclose(res.statistic, f1_score(x, y, pos_label=0))  # symmetric
    assert_allclose(res.precision, precision_score(y, x, pos_label=0))
    assert_allclose(res.recall, recall_score(y, x, pos_label=0))
    neg = specific_agreement(x, y, positive=1)
    assert_allclose(neg.statistic, res.negative_agreement)


def test_unknown_negatives() -> None:
    # Hripcsak & Rothschild (2005): PSA, precision and recall need no d.
    res = specific_agreement([[40, 5], [10, None]])
    assert_allclose(res.statistic, 80 / 95)  # 2a / (2a + b + c)
    assert_allclose(res.precision, 40 / 45)  # a / (a + b)
    assert_allclose(res.recall, 40 / 50)  # a / (a + c)
    assert math.isnan(res.negative_agreement) and math.isnan(res.d)
    assert math.isnan(res.observed_agreement)
    assert res.per_category.empty
    assert "unknown" in res.method
    nan_form = specific_agreement(np.array([[40, 5], [10, np.nan]]))
    assert_allclose(nan_form.statistic, res.statistic)
    low, high = res.confidence_interval()
    assert low < res.statistic < high
    assert math.isnan(res.confidence_interval(which="negative").low)
    with pytest.raises(InvalidInputError, match="only the negative cell"):
        specific_agreement([[40, None], [10, None]])
    with pytest.raises(InvalidInputError, match="positive category is the first"):
        specific_agreement([[40, 5], [10, None]], positive=1)


def test_per_category_specific_agreement_by_hand() -> None:
    res = specific_agreement(BIRADS, categories=["BR1", "BR2", "BR3", "BR4", "BR5"])
    table = np.asarray(BIRADS, dtype=float)
    n_x, n_y, both = table.sum(axis=1), table.sum(axis=0), np.diag(table)
    assert_allclose(res.per_category["specific_agreement"], 2 * both / (n_x + n_y))
    assert res.per_category["category"].tolist() == ["BR1", "BR2", "BR3", "BR4", "BR5"]
    # each category against the rest is a 2 x 2 table with the same PSA and SE
    for k, row in res.per_category.iterrows():
        one = specific_agreement(BIRADS, positive=k)
        assert_allclose(row["specific_agreement"], one.statistic)
        assert_allclose(row["standard_error"], one.standard_error)
    br5 = specific_agreement(BIRADS, categories=["BR1", "BR2", "BR3", "BR4", "BR5"], positive="BR5")
    assert_allclose(br5.statistic, 2 * 5 / (5 + 13))
    assert (br5.a, br5.b, br5.c) == (5.0, 0.0, 8.0)


def test_delta_method_se_matches_numerical_derivative() -> None:
    # Var(PSA) by central differences of 2a/(2a+b+c) over multinomial cell proportions.
    counts = np.array([[40.0, 5.0], [10.0, 45.0]])
    n = counts.sum()
    p = counts / n

    def psa(cells: np.ndarray) -> float:
        return 2 * cells[0, 0] / (2 * cells[0, 0] + cells[0, 1] + cells[1, 0])

    grad = np.zeros_like(p)
    for idx in np.ndindex(p.shape):
        up, down = p.copy(), p.copy()
        up[idx] += 1e-7
        down[idx] -= 1e-7
        grad[idx] = (psa(up) - psa(down)) / 2e-7
    se = math.sqrt((np.sum(p * grad**2) - np.sum(p * grad) ** 2) / n)
    assert_allclose(specific_agreement(counts).standard_error, se, rtol=1e-6)


def test_intervals() -> None:
    from scipy.stats import norm

    res = specific_agreement([[40, 5], [10, 45]], n_boot=500, rng=3)
    z = norm.ppf(0.975)
    wald = res.confidence_interval(method="wald")
    assert_allclose(
        wald, [res.statistic - z * res.standard_error, res.statistic + z * res.standard_error]
    )
    # Wilson score interval on n* = (2a+b+c)^2 / (2(a+b+c)) = 95^2 / 110, written out:
    n_eff, p = 95**2 / 110, 80 / 95
    centre = (p + z**2 / (2 * n_eff)) / (1 + z**2 / n_eff)
    half = z * math.sqrt(p * (1 - p) / n_eff + z**2 / (4 * n_eff**2)) / (1 + z**2 / n_eff)
    assert_allclose(res.confidence_interval(), [centre - half, centre + half])
    for method in ("percentile", "bca"):
        for which in ("positive", "negative"):
            low, high = res.confidence_interval(method=method, which=which)
            assert 0 <= low < high <= 1
    # at PSA = 1 the Wald interval collapses, the Wilson-type interval does not
    perfect = specific_agreement([[30, 0], [0, 20]])
    assert perfect.confidence_interval(method="wald") == (1.0, 1.0)
    low, high = perfect.confidence_interval()
    assert low < 0.95 and high == pytest.approx(1.0, abs=1e-12)
    d = res.to_dict()
    assert d["ci_low"] == res.confidence_interval().low and "Wilson" in d["ci_method"]
    with pytest.raises(InvalidInputError, match="'method' parameter"):
        res.confidence_interval(method="exact")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="'which' parameter"):
        res.confidence_interval(which="both")  # type: ignore[arg-type]


def test_bootstrap_se_close_to_delta_method() -> None:
    # Bootstrap over items vs the delta method (large sample: 10x the reference counts).
    res = specific_agreement([[400, 50], [100, 450]], n_boot=3000, rng=5)
    assert res.replicates is not None and res.negative_replicates is not None
    assert_allclose(np.std(res.replicates, ddof=1), res.standard_error, rtol=0.08)
    assert_allclose(np.std(res.negative_replicates, ddof=1), res.negative_standard_error, rtol=0.08)


def test_no_positive_rating_is_nan_with_warning() -> None:
    with pytest.warns(DegenerateDataWarning, match="positive specific agreement is 0/0"):
        res = specific_agreement([[0, 0], [0, 9]])
    assert math.isnan(res.statistic) and res.reason
    assert res.negative_agreement == 1.0


def test_inputs_labels_and_ratings() -> None:
    frame = pd.DataFrame(
        {
            "item": [1, 1, 2, 2, 3, 3, 4],
            "rater": ["A", "B"] * 3 + ["A"],
            "label": ["yes", "yes", "yes", "no", "no", "no", "yes"],
        }
    )
    r = Ratings.from_long(frame, item="item", rater="rater", label="label")
    res = specific_agreement(r, positive="yes")
    # items 1-3: (yes, yes), (yes, no), (no, no): a = 1, b = 1, c = 0, d = 1
    assert (res.a, res.b, res.c, res.d) == (1.0, 1.0, 0.0, 1.0)
    assert_allclose(res.statistic, 2 / 3)
    assert res.n_items_unpairable == 1
    with pytest.raises(InvalidInputError, match="not among the categories"):
        specific_agreement(r, positive="maybe")


def test_kappa_vs_negatives_reference_curve() -> None:
    ref = REFERENCE["kappa_vs_negatives"]  # source: ref["source"]
    a, b, c = ref["abc"]
    curve = kappa_vs_negatives([[a, b], [c, None]], negatives=ref["d"])
    assert_allclose(curve.curve["kappa"], ref["kappa"], atol=ref["atol"])
    assert_allclose(curve.positive_agreement, ref["psa"], atol=ref["atol"])
    # the closed form is Cohen's kappa of [[a, b], [c, d]]
    for d, k in zip(ref["d"], curve.curve["kappa"], strict=True):
        assert_allclose(cohen_kappa([[a, b], [c, d]]).statistic, k, rtol=1e-9)


def test_kappa_vs_negatives_default_grid_includes_observed_d() -> None:
    res = kappa_vs_negatives([[40, 5], [10, 45]])
    assert 45.0 in res.curve["d"].tolist() and 0.0 in res.curve["d"].tolist()
    assert res.curve["d"].is_monotonic_increasing
    assert res.observed_d == 45.0
    assert res.to_dict()["positive_agreement"] == res.positive_agreement
    with pytest.raises(InvalidInputError, match="negatives"):
        kappa_vs_negatives([[40, 5], [10, 45]], negatives=[-1])


@given(
    st.integers(1, 200),
    st.integers(0, 200),
    st.integers(0, 200),
)
def test_property_kappa_tends_to_psa_as_negatives_grow(a: int, b: int, c: int) -> None:
    res = kappa_vs_negatives([[a, b], [c, None]], negatives=[1e3, 1e6, 1e12])
    gaps = np.abs(res.curve["kappa"].to_numpy() - res.positive_agreement)
    assert gaps[-1] < 1e-6
    assert np.all(np.diff(gaps) <= 1e-12)  # the gap shrinks as d grows
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        # kappa from proportions at d = 10^12 loses digits to cancellation: cross-check at 10^6
        full = cohen_kappa(ContingencyTable([[a, b], [c, 1e6]]))
    assert_allclose(full.statistic, res.curve["kappa"].iloc[1], rtol=1e-9)


@given(st.lists(st.integers(0, 30), min_size=4, max_size=4))
def test_property_psa_symmetric_and_bounded(cells: list[int]) -> None:
    table = np.array(cells, dtype=float).reshape(2, 2)
    if table[0, 0] + table[0, 1] + table[1, 0] == 0 or table.sum() == 0:
        return
    a = specific_agreement(table)
    b = specific_agreement(table.T)
    assert 0.0 <= a.statistic <= 1.0
    assert_allclose(a.statistic, b.statistic)
    assert_allclose(a.standard_error, b.standard_error)
    assert_allclose(a.precision, b.recall, equal_nan=True)  # roles swap with the raters
