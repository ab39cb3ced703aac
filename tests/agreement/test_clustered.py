"""Clustered and stratified two-rater agreement: against printed values (SAS PROC FREQ;
tests/reference/stratified_kappa.json), accord's kappa/AC1 SEs,
Vanbelle's (2017) multilevel delta method and hand computations."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

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


REFERENCE = json.loads(
    (Path(__file__).parents[1] / "reference" / "stratified_kappa.json").read_text(encoding="utf-8")
)


def _from_tables(case: dict[str, Any]) -> tuple[list[Any], list[Any], list[str]]:
    """The two raters' labels and the stratum of each item of the case's square tables."""
    cats, x, y, strata = case["categories"], [], [], []
    for stratum, table in case["strata"].items():
        for i, row in enumerate(table):
            for j, count in enumerate(row):
                x += [cats[i]] * count
                y += [cats[j]] * count
                strata += [stratum] * count
    return x, y, strata


def test_sas_proc_freq_stratum_kappas() -> None:
    case = next(c for c in REFERENCE["cases"] if c["name"] == "sas_drugs")
    res = stratified_kappa(*_from_tables(case))
    want, atol = case["expected"], case["atol"]
    # SAS/STAT 9.22 PROC FREQ Example 36.10, Outputs 36.10.2 and 36.10.3 (4 decimals)
    assert res.table["stratum"].tolist() == ["F", "U"]
    assert_allclose(res.table["kappa"], want["kappa"], atol=atol)
    assert_allclose(res.table["standard_error"], want["standard_error"], atol=atol)
    z = 1.959963984540054  # SAS's limits: kappa -/+ z(0.975) ASE
    assert_allclose(res.table["kappa"] - z * res.table["standard_error"], want["ci_low"], atol=atol)
    assert_allclose(
        res.table["kappa"] + z * res.table["standard_error"], want["ci_high"], atol=atol
    )
    # the overall kappa and the equal-kappa test, by hand from the printed stratum values with
    # the formulas SAS documents (inverse-variance weights; Q = sum w (kappa_h - overall)^2):
    # the printed 4 digits carry them to 3 decimals
    k, se = np.array(want["kappa"]), np.array(want["standard_error"])
    w = 1 / se**2
    overall = w @ k / w.sum()
    assert_allclose(res.statistic, overall, atol=5e-4)
    assert_allclose(res.standard_error, 1 / math.sqrt(w.sum()), atol=5e-4)
    assert_allclose(res.chi_square, w @ (k - overall) ** 2, atol=5e-3)
    assert res.df == 1


def _vanbelle_delta_se(x: np.ndarray, y: np.ndarray, g: np.ndarray, multilevel: bool) -> float:
    """Cohen's kappa's SE by the delta method of Vanbelle (2017, Biometrical Journal 59(5),
    1016-1034, sec. 3) for items nested in K clusters, written as that paper writes it: each
    cluster's agreement P_o,k and the raters' category proportions p_k, weighted by
    xi_k = n_k / N, their covariance K^2 / (K - 1) Psi Omega Psi' with
    Omega = (I - xi 1') diag(xi^2) (I - 1 xi'), carried to kappa by the Jacobians of
    (P_o, P_e) and of (P_o - P_e) / (1 - P_e), and divided by K (multilevel); every item its
    own cluster, times (K - 1) / K^2."""
    clusters, q = np.unique(g), int(max(x.max(), y.max())) + 1
    k_ = clusters.size
    xi = np.array([np.mean(g == c) for c in clusters])
    psi = np.array(
        [
            np.r_[
                np.mean(x[g == c] == y[g == c]),
                np.bincount(x[g == c], minlength=q) / np.sum(g == c),
                np.bincount(y[g == c], minlength=q) / np.sum(g == c),
            ]
            for c in clusters
        ]
    ).T  # shape (1 + 2q, K)
    one = np.ones((k_, 1))
    omega = (np.eye(k_) - xi[:, None] @ one.T) @ np.diag(xi**2) @ (np.eye(k_) - one @ xi[None, :])
    v = k_**2 / (k_ - 1) * psi @ omega @ psi.T
    p_o, p1, p2 = psi @ xi, (psi @ xi)[1 : 1 + q], (psi @ xi)[1 + q :]
    p_o, p_e = p_o[0], float(p1 @ p2)
    jac = np.zeros((2, 1 + 2 * q))
    jac[0, 0], jac[1, 1 : 1 + q], jac[1, 1 + q :] = 1.0, p2, p1
    s = np.array([1 / (1 - p_e), (p_o - 1) / (1 - p_e) ** 2])
    var = s @ jac @ v @ jac.T @ s
    return math.sqrt(var / k_ if multilevel else var * (k_ - 1) / k_**2)


def test_cluster_robust_se_is_vanbelles_multilevel_delta_method() -> None:
    x, y = _pairs(180, 11)
    patients = np.repeat(np.arange(30), 6)
    y = np.where(patients % 3 == 0, x, y)  # a patient effect
    res = clustered_agreement(x, y, patients)
    assert_allclose(res.standard_error, _vanbelle_delta_se(x, y, patients, True), rtol=1e-12)
    alone = np.arange(x.size)
    assert_allclose(res.standard_error_naive, _vanbelle_delta_se(x, y, alone, False), rtol=1e-12)
