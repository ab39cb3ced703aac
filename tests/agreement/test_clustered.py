"""Clustered and stratified two-rater agreement against accord's kappa/AC1 SEs and by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from accord._errors import InvalidInputError
from accord.agreement.clustered import clustered_agreement, stratified_kappa
from accord.agreement.many_raters import gwet_ac1
from accord.agreement.two_raters import cohen_kappa
from accord.data.ratings import Ratings


def _pairs(n: int, seed: int, share: float = 0.6) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 3, n)
    return x, np.where(rng.random(n) < share, x, rng.integers(0, 3, n))


def test_every_item_its_own_cluster_gives_the_usual_standard_errors() -> None:
    x, y = _pairs(200, 5)
    n = x.size
    res = clustered_agreement(x, y, np.arange(n))
    k = cohen_kappa(x, y)  # Fleiss, Cohen & Everitt (1969) large-sample SE
    assert_allclose(res.statistic, k.statistic, rtol=1e-14)
    assert_allclose(res.standard_error_naive, k.standard_error, rtol=1e-12)
    assert_allclose(res.standard_error, k.standard_error * math.sqrt(n / (n - 1)), rtol=1e-12)
    ac1 = clustered_agreement(x, y, np.arange(n), coefficient="gwet_ac1")
    r = Ratings.from_arrays(np.r_[np.arange(n), np.arange(n)], np.r_[[0] * n, [1] * n], np.r_[x, y])
    g = gwet_ac1(r)  # Gwet (2008) variance, with its 1 / (n (n - 1))
    assert_allclose(ac1.statistic, g.statistic, rtol=1e-12)
    assert_allclose(ac1.standard_error, g.standard_error, rtol=1e-12)


def test_cluster_robust_se_by_hand_and_by_bootstrap() -> None:
    x, y = _pairs(240, 9)
    sites = np.repeat(np.arange(24), 10)
    # a site effect: the second rater copies the first on half of the sites
    y = np.where((sites % 2 == 0), x, y)
    res = clustered_agreement(x, y, sites)
    # by hand: kappa's influence values summed within sites
    q, n = 3, x.size
    p1, p2 = np.bincount(x, minlength=q) / n, np.bincount(y, minlength=q) / n
    po, pe = float(np.mean(x == y)), float(p1 @ p2)
    u = ((x == y) - po) / (1 - pe) + (po - 1) / (1 - pe) ** 2 * (p2[x] + p1[y] - 2 * pe)
    s = np.bincount(sites, weights=u)
    assert_allclose(res.standard_error, math.sqrt(24 / 23 * (s @ s)) / n, rtol=1e-12)
    assert res.design_effect > 1.5
    boot = clustered_agreement(x, y, sites, method="bootstrap", n_boot=400, rng=1)
    assert_allclose(boot.standard_error, res.standard_error, rtol=0.25)


def _fce_variance(t: np.ndarray) -> float:
    """Fleiss, Cohen & Everitt (1969) large-sample variance of kappa (as SAS PROC FREQ
    documents it): (A + B - C) / (n (1 - pe)^2)."""
    p = t / t.sum()
    r, c = p.sum(axis=1), p.sum(axis=0)
    po, pe = np.trace(p), r @ c
    kappa = (po - pe) / (1 - pe)
    q = len(r)
    a = sum(p[i, i] * (1 - (r[i] + c[i]) * (1 - kappa)) ** 2 for i in range(q))
    b = (1 - kappa) ** 2 * sum(
        p[i, j] * (c[i] + r[j]) ** 2 for i in range(q) for j in range(q) if i != j
    )
    cc = (kappa - pe * (1 - kappa)) ** 2
    return float((a + b - cc) / (t.sum() * (1 - pe) ** 2))


def test_stratified_kappa_by_hand() -> None:
    x, y = _pairs(150, 3)
    strata = np.repeat(["a", "b", "c"], 50)
    y = np.where((strata == "a") & (np.arange(150) % 5 > 0), x, y)  # stratum a agrees more
    res = stratified_kappa(x, y, strata)
    kappas, weights = [], []
    for s in "abc":
        t = np.zeros((3, 3))
        np.add.at(t, (x[strata == s], y[strata == s]), 1)
        p = t / t.sum()
        po, pe = np.trace(p), p.sum(axis=1) @ p.sum(axis=0)
        kappas.append((po - pe) / (1 - pe))
        weights.append(1 / _fce_variance(t))
    k, w = np.array(kappas), np.array(weights)
    overall = w @ k / w.sum()
    assert_allclose(res.table["kappa"], k, rtol=1e-12)
    assert_allclose(res.statistic, overall, rtol=1e-12)
    assert_allclose(res.standard_error, 1 / math.sqrt(w.sum()), rtol=1e-10)
    assert_allclose(res.chi_square, w @ (k - overall) ** 2, rtol=1e-10)
    assert res.df == 2 and res.pvalue < 0.05


def test_bad_input() -> None:
    with pytest.raises(InvalidInputError, match="one length"):
        clustered_agreement([1, 0], [1], [1, 2])
    with pytest.raises(InvalidInputError, match="missing in row 2"):
        clustered_agreement([1, None, 0], [1, 0, 0], [1, 2, 3])
    with pytest.raises(InvalidInputError, match="coefficient"):
        clustered_agreement([1, 0], [1, 0], [1, 2], coefficient="kappa")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="at least 2 strata"):
        stratified_kappa([1, 0, 1], [1, 0, 0], ["a", "a", "a"])


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000))
def test_item_order_and_label_invariance(seed: int) -> None:
    x, y = _pairs(60, seed)
    sites = np.repeat(np.arange(6), 10)
    order = np.random.default_rng(seed).permutation(60)
    a = clustered_agreement(x, y, sites)
    b = clustered_agreement(np.array(list("abc"))[x[order]], np.array(list("abc"))[y[order]],
                            sites[order] + 100)  # fmt: skip
    assert_allclose([a.statistic, a.standard_error], [b.statistic, b.standard_error],
                    rtol=1e-10, equal_nan=True)  # fmt: skip
