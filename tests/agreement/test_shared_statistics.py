"""The fast paths of the many-raters coefficients equal the direct computations.

``agreement()`` computes every coefficient from one shared set of statistics (item totals,
pair sums per weight matrix, the raters x items code matrix, the rater-pair tables); Conger's
item terms and the rater-pair tables have a code-matrix path next to the per-rating one.
Every expected value here is accord's own direct computation (per-rating pass, pair
expansion, per-pair Cohen's kappa, each coefficient called on its own): the paths must agree
to 1e-12.
"""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from numpy.testing import assert_allclose

import accord
from accord import DegenerateDataWarning
from accord.agreement import _counts
from accord.agreement.pairwise import light_no_analytic_se
from accord.stats import PairTables
from accord.stats.pairs import rater_code_rows

from ..strategies import long_ratings, ratings_of


def _wide(seed: int, n: int, r: int, q: int, missing: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, q, size=n)
    wide = np.where(rng.random((n, r)) < 0.6, truth[:, None], rng.integers(0, q, size=(n, r)))
    out = wide.astype(float)
    out[rng.random((n, r)) < missing] = np.nan
    out[0, 1:] = np.nan  # an item with one rating
    return out


DESIGNS = [(0, 40, 5, 3, 0.3), (1, 25, 2, 4, 0.1), (2, 60, 7, 2, 0.6), (3, 15, 4, 6, 0.0)]


@pytest.mark.parametrize("design", DESIGNS)
def test_pair_tables_from_code_rows_equal_pair_expansion(design: tuple[int, ...]) -> None:
    r = accord.Ratings.from_wide(_wide(*design))  # type: ignore[arg-type]
    rows = rater_code_rows(r, check_cost=False)
    assert rows is not None and rows.dtype == np.int8
    fast = PairTables.from_code_rows(rows, r.raters, r.categories)
    assert fast.equals(PairTables._from_pair_expansion(r))


@given(long_ratings())
def test_pair_tables_paths_agree_on_any_design(frame: object) -> None:
    r = ratings_of(frame)  # type: ignore[arg-type]
    rows = rater_code_rows(r, check_cost=False)
    if rows is not None:
        fast = PairTables.from_code_rows(rows, r.raters, r.categories)
        assert fast.equals(PairTables._from_pair_expansion(r))


def test_code_rows_refuse_repeated_pairs_and_sparse_designs() -> None:
    r = accord.Ratings.from_wide(_wide(0, 40, 5, 3, 0.3))
    doubled = dataclasses.replace(
        r,
        item_codes=np.r_[r.item_codes, r.item_codes[:1]],
        rater_codes=np.r_[r.rater_codes, r.rater_codes[:1]],
        label_codes=np.r_[r.label_codes, r.label_codes[:1]],
    )
    assert rater_code_rows(doubled, check_cost=False) is None
    # 2,000 raters who each rated one of 2,000 items: one cell in 2,000 is filled.
    sparse = accord.Ratings.from_arrays(np.arange(2000), np.arange(2000), np.zeros(2000))
    assert rater_code_rows(sparse, check_cost=False) is None


def _with_rows(r: accord.Ratings, rows: object) -> _counts.CountsView:
    d = _counts.prepare(r)
    d.cache["code_rows"] = rows
    return d


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("weights", ["identity", "quadratic"])
def test_conger_code_rows_equal_per_rating_pass(design: tuple[int, ...], weights: str) -> None:
    r = accord.Ratings.from_wide(_wide(*design), level="ordinal")  # type: ignore[arg-type]
    fast = accord.conger_kappa(
        _with_rows(r, rater_code_rows(r, check_cost=False)),  # type: ignore[arg-type]
        weights=weights,
    )
    slow = accord.conger_kappa(_with_rows(r, None), weights=weights)  # type: ignore[arg-type]
    assert_allclose(fast.statistic, slow.statistic, rtol=0, atol=1e-12)
    assert_allclose(fast.standard_error, slow.standard_error, rtol=0, atol=1e-12)


@pytest.mark.parametrize("design", DESIGNS)
def test_light_kappa_is_the_mean_of_per_pair_cohen(design: tuple[int, ...]) -> None:
    r = accord.Ratings.from_wide(_wide(*design))  # type: ignore[arg-type]
    pt = PairTables.from_ratings(r)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        per_pair = [accord.cohen_kappa(pt.table(int(a), int(b))).statistic for a, b in pt.pairs]
    finite = [k for k in per_pair if math.isfinite(k)]
    expected = float(np.mean(finite))
    alone = accord.light_kappa(r, ci="analytic")
    shared = accord.light_kappa(_with_rows(r, rater_code_rows(r, check_cost=False)), ci="analytic")  # type: ignore[arg-type]
    assert_allclose(alone.statistic, expected, rtol=0, atol=1e-12)
    assert_allclose(shared.statistic, expected, rtol=0, atol=1e-12)
    assert (shared.n_items, shared.n_raters, shared.n_items_unpairable) == (
        alone.n_items,
        alone.n_raters,
        alone.n_items_unpairable,
    )


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_agreement_equals_each_coefficient_alone(design: tuple[int, ...], level: str) -> None:
    r = accord.Ratings.from_wide(_wide(*design), level=level)  # type: ignore[arg-type]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        table = accord.agreement(r)
        for c in table.coefficients:
            fn = getattr(accord, c.name)
            if c.name == "light_kappa":
                alone = fn(r, ci="analytic")
            elif c.name == "krippendorff_alpha":
                lvl = "nominal" if c.weights == "nominal" else level
                alone = fn(r, level=lvl)
            elif c.name == "gwet_ac1":
                alone = fn(r)
            else:
                alone = fn(r, weights=c.weights)
            for field in ("statistic", "standard_error", "observed_agreement", "chance_agreement"):
                assert_allclose(
                    getattr(c, field), getattr(alone, field), rtol=0, atol=1e-12, err_msg=c.name
                )


def test_light_kappa_analytic_se_is_nan_with_a_reason() -> None:
    r = accord.Ratings.from_wide(_wide(0, 40, 5, 3, 0.3))
    row = next(c for c in accord.agreement(r).coefficients if c.name == "light_kappa")
    assert math.isfinite(row.statistic) and math.isnan(row.standard_error)
    # in agreement's words: its ci is an option of the Inference it takes
    assert row.reason == "no analytic SE: inference=accord.Inference(ci='bootstrap') gives one"
    assert accord.light_kappa(r, ci="analytic").reason == light_no_analytic_se()
    boot = accord.light_kappa(r, n_boot=50, rng=0)
    assert math.isfinite(boot.standard_error) and boot.reason is None
