"""Light's kappa left one item out, from the pairs each item touches: the values of the
coefficient recomputed on every item's complement (an independent computation, here by
`light_kappa` itself on the ratings without the item), pairs that become undefined or whose
kappa is undefined throughout included."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import accord
from accord.agreement._tables import cohen_pairs, cohen_tables, pair_features, pair_mean_jackknife
from accord.agreement.pairwise import light_kappa
from accord.stats import PairTables

COLS = {"item": "item", "rater": "rater", "label": "label"}


def _kappas(tables: np.ndarray) -> np.ndarray:
    out: np.ndarray = cohen_tables(tables)[:, None]
    return out


def _frame(rng: np.random.Generator, n_items: int, n_raters: int, q: int) -> pd.DataFrame:
    rows = []
    for i in range(n_items):
        for r in rng.choice(n_raters, size=int(rng.integers(1, n_raters + 1)), replace=False):
            rows.append((f"i{i}", f"r{r}", int(rng.integers(0, q))))
    return pd.DataFrame(rows, columns=["item", "rater", "label"])


def _left_out(frame: pd.DataFrame, kept_pairs: set[frozenset[str]], item: str) -> float:
    """Light's kappa of the ratings without ``item`` over the pairs kept on all the items
    (the bootstrap's statistic: the kept pairs fixed, their defined kappas averaged; a
    pair named by its two raters, whatever their codes)."""
    rest = accord.Ratings.from_long(
        frame[frame["item"] != item], **COLS, categories=sorted(frame["label"].unique())
    )
    pt = PairTables.from_ratings(rest)
    kappas = cohen_pairs(pt, 1)[0]
    names = [frozenset((rest.raters[a], rest.raters[b])) for a, b in pt.pairs]
    values = [k for k, pair in zip(kappas, names, strict=True) if pair in kept_pairs]
    finite = [v for v in values if np.isfinite(v)]
    return float(np.mean(finite)) if finite else float("nan")


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), n_items=st.integers(3, 14), q=st.integers(2, 4))
def test_each_item_left_out_is_the_coefficient_without_it(seed: int, n_items: int, q: int) -> None:
    rng = np.random.default_rng(seed)
    frame = _frame(rng, n_items, 4, q)
    ratings = accord.Ratings.from_long(frame, **COLS)
    pt = PairTables.from_ratings(ratings)
    _, kept, _ = cohen_pairs(pt, 2)
    if kept.size == 0:
        return
    feats = pair_features(ratings, pt, kept)
    got = pair_mean_jackknife(feats, int(kept.size), ratings.n_categories, _kappas)
    assert got is not None
    kept_pairs = {frozenset((ratings.raters[a], ratings.raters[b])) for a, b in pt.pairs[kept]}
    expected = [_left_out(frame, kept_pairs, it) for it in ratings.items]
    np.testing.assert_allclose(got[:, 0], expected, rtol=1e-12, atol=1e-12)


def test_the_coefficient_keeps_its_replicates_and_gives_these_values() -> None:
    """`light_kappa`'s bootstrap draws the same replicates as before, and its leave-one-out
    values are those of the row-by-row recomputation of the bootstrap module."""
    from accord.agreement.inference import bootstrap

    rng = np.random.default_rng(5)
    frame = _frame(rng, 60, 6, 3)
    ratings = accord.Ratings.from_long(frame, **COLS)
    coef = light_kappa(ratings, n_boot=300, rng=1)
    pt = PairTables.from_ratings(ratings)
    _, kept, _ = cohen_pairs(pt, 2)
    feats = pair_features(ratings, pt, kept)
    q = ratings.n_categories

    def stat(t: np.ndarray) -> np.ndarray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            out: np.ndarray = np.nanmean(cohen_tables(t.reshape(t.shape[0], kept.size, q, q)), 1)
        return out

    reps, jk = bootstrap(feats, stat, n_boot=300, rng=1)
    np.testing.assert_array_equal(coef.replicates, reps)
    np.testing.assert_allclose(coef.jackknife, jk, rtol=1e-12, atol=1e-12)


def test_specific_agreement_over_pairs_left_out_as_recomputed() -> None:
    """Each category's specific agreement and the negative agreement, averaged over the
    pairs: the pairs-touched jackknife equals the row-by-row recomputation (several
    statistics at once, pairs whose ratio becomes undefined included)."""
    from accord.agreement._tables import pair_mean_bootstrap, pair_specific
    from accord.agreement.inference import bootstrap

    rng = np.random.default_rng(11)
    frame = _frame(rng, 40, 5, 3)
    ratings = accord.Ratings.from_long(frame, **COLS)
    pt = PairTables.from_ratings(ratings)
    kept = cohen_pairs(pt, 2)[1]
    feats = pair_features(ratings, pt, kept)
    q, k = ratings.n_categories, 1

    def per_pair(t: np.ndarray) -> np.ndarray:
        cat, _, neg = pair_specific(t, k)
        return np.concatenate([cat, neg[:, None]], axis=1)

    def stat(t: np.ndarray) -> np.ndarray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            out: np.ndarray = np.nanmean(per_pair(t.reshape(-1, q, q)).reshape(
                t.shape[0], kept.size, q + 1), axis=1)  # fmt: skip
        return out

    reps, jk = pair_mean_bootstrap(feats, stat, per_pair, int(kept.size), q, n_boot=50, rng=2)
    expected_reps, expected_jk = bootstrap(feats, stat, n_boot=50, rng=2)
    np.testing.assert_array_equal(reps, expected_reps)
    assert jk is not None and jk.shape == expected_jk.shape == (ratings.n_items, q + 1)
    np.testing.assert_allclose(jk, expected_jk, rtol=1e-12, atol=1e-12)
    assert np.isnan(expected_jk).any() == np.isnan(jk).any()
