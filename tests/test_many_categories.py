"""Thousands of categories: unweighted coefficients never build q x q arrays, and give the
numbers of the dense computation."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
from numpy.testing import assert_allclose

import accord
from accord.agreement import _shared, many_raters, pairwise
from accord.stats import pairs


def _ratings(n_items: int, n_raters: int, q: int, seed: int = 0) -> accord.Ratings:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, q, n_items)
    wide = np.where(rng.random((n_items, n_raters)) < 0.5, truth[:, None],
                    rng.integers(0, q, (n_items, n_raters))).astype(float)  # fmt: skip
    wide[rng.random((n_items, n_raters)) < 0.1] = np.nan
    return accord.Ratings.from_wide(wide)


def _summary(table: accord.agreement.AgreementTable) -> list[tuple[str, str, float, float]]:
    return [(c.name, c.weights, c.statistic, c.standard_error) for c in table.coefficients]


def test_sparse_path_equals_the_dense_computation(monkeypatch: pytest.MonkeyPatch) -> None:
    r = _ratings(400, 4, 600)
    assert r.n_categories > many_raters.SPARSE_Q
    sparse = accord.agreement(r)
    assert _shared.is_sparse(many_raters._prepare(r).counts)
    fleiss_sparse = accord.fleiss_kappa(r).per_category
    # The same data through dense counts, dense identity weights and dense pair tables.
    monkeypatch.setattr(many_raters, "SPARSE_Q", 10**9)
    monkeypatch.setattr(_shared, "DENSE_IDENTITY_Q", 10**9)
    monkeypatch.setattr(pairwise, "PAIR_TABLE_CELLS", 10**12)
    assert not _shared.is_sparse(many_raters._prepare(r).counts)
    dense = accord.agreement(r)
    for a, b in zip(_summary(sparse), _summary(dense), strict=True):
        assert a[:2] == b[:2]
        assert_allclose(a[2:], b[2:], rtol=1e-10, equal_nan=True, err_msg=str(a[:2]))
    assert_allclose(fleiss_sparse["kappa"], accord.fleiss_kappa(r).per_category["kappa"],
                    rtol=1e-10, equal_nan=True)  # fmt: skip


def test_light_kappa_from_pair_terms_is_the_mean_of_cohen_kappas(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # By hand: each rater pair's Cohen's kappa from its own contingency table.
    r = _ratings(300, 3, 400, seed=2)
    terms = pairs.pair_agreement(r)
    wide = np.full((r.n_items, r.n_raters), -1)
    wide[r.item_codes, r.rater_codes] = r.label_codes
    kappas = []
    for a, b in terms.pairs:
        both = (wide[:, a] >= 0) & (wide[:, b] >= 0)
        assert both.sum() == terms.n[len(kappas)]
        kappas.append(accord.cohen_kappa(wide[both, a], wide[both, b]).statistic)
    dense_tables = accord.light_kappa(r, ci="analytic").statistic
    assert_allclose(dense_tables, np.mean(kappas), rtol=1e-12)
    monkeypatch.setattr(pairwise, "PAIR_TABLE_CELLS", 0)  # the pair-terms route
    assert_allclose(accord.light_kappa(r, ci="analytic").statistic, np.mean(kappas), rtol=1e-12)


def test_five_thousand_categories_allocate_nothing_q_by_q() -> None:
    # 5,000 items x 3 raters over ~4,000 of 5,000 categories: one q x q float array alone
    # would be 200 MB, a dense item x category matrix 200 MB, pair tables 600 MB.
    r = _ratings(5000, 3, 5000, seed=1)
    q = r.n_categories
    assert q > 3500
    tracemalloc.start()
    table = accord.agreement(r)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < q * q * 8 / 4, f"peak {peak / 2**20:.0f} MB"
    names = {c.name for c in table.coefficients}
    assert names >= {"fleiss_kappa", "light_kappa", "conger_kappa", "krippendorff_alpha"}
    for c in table.coefficients:
        assert math.isfinite(c.statistic), c.name


def test_every_entry_point_takes_the_sparse_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    r = _ratings(200, 4, 500, seed=3)
    assert _shared.is_sparse(many_raters._prepare(r).counts)
    code = int(r.label_codes[0])
    positive = r.categories[code]

    def run() -> list[float]:
        return [
            accord.pooled_specific_agreement(r, positive=positive).statistic,
            accord.fleiss_kappa(r, ci="bootstrap", n_boot=30, rng=1).standard_error,
            accord.conger_kappa(r, ci="bootstrap", n_boot=30, rng=1).standard_error,
            accord.krippendorff_alpha(r, ci="bootstrap", n_boot=30, rng=1).standard_error,
            accord.gwet_ac2(r, weights="linear").statistic,
        ]

    sparse = run()
    monkeypatch.setattr(many_raters, "SPARSE_Q", 10**9)
    monkeypatch.setattr(_shared, "DENSE_IDENTITY_Q", 10**9)
    assert_allclose(sparse, run(), rtol=1e-10)


def test_alpha_on_many_values_without_pairs_warns_at_the_callers_line() -> None:
    # Interval alpha on more than 512 distinct values takes the per-rating-sums path; with
    # every item rated once there is no pair, and the warning must name the user's call
    # (this file), as on every other undefined coefficient.
    r = accord.Ratings.from_arrays(
        np.arange(600), np.zeros(600, dtype=int), np.arange(600) / 7.0, level="interval"
    )
    with pytest.warns(accord.DegenerateDataWarning) as caught:
        out = accord.krippendorff_alpha(r)
    assert math.isnan(out.statistic)
    assert out.reason is not None and "no item has two or more ratings" in out.reason
    assert [w.filename for w in caught] == [__file__]
