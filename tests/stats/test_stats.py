"""Sufficient statistics: exact counts, and merge of any split equals the whole."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import accord
from accord import InvalidInputError, ItemCategoryCounts, PairTables, RaterCategoryCounts

from ..strategies import long_ratings, ratings_of, splits


def test_item_and_rater_counts_by_hand() -> None:
    r = accord.Ratings.from_wide([["a", "a", "b"], ["b", None, "b"]])
    assert ItemCategoryCounts.from_ratings(r).counts.tolist() == [[2, 1], [0, 2]]
    assert RaterCategoryCounts.from_ratings(r).counts.tolist() == [[1, 1], [1, 0], [0, 2]]


def test_sparse_and_dense_agree() -> None:
    r = accord.Ratings.from_wide([["a", "a", "b"], ["b", None, "b"], ["c", "c", "c"]])
    dense = ItemCategoryCounts.from_ratings(r, sparse=False)
    sparse = ItemCategoryCounts.from_ratings(r, sparse=True)
    assert sparse.is_sparse and not dense.is_sparse
    assert dense.equals(sparse)
    assert np.array_equal(dense.totals(), sparse.totals())
    assert dense.merge(sparse).equals(
        ItemCategoryCounts(2 * dense.counts, dense.categories)  # type: ignore[call-arg]
    )


def test_pair_tables_by_hand() -> None:
    # 3 raters, 3 items; rater c misses item 2.
    r = accord.Ratings.from_wide([["y", "y", "n"], ["n", "n", None], ["y", "n", "n"]])
    pt = PairTables.from_ratings(r)
    assert pt.pairs.tolist() == [[0, 1], [0, 2], [1, 2]]
    # categories ("n", "y"): rows rater a, columns rater b
    assert pt.table(0, 1).counts.tolist() == [[1, 0], [1, 1]]
    assert pt.table(0, 2).counts.tolist() == [[0, 0], [2, 0]]
    assert pt.table(2, 0).counts.tolist() == [[0, 2], [0, 0]]


def test_pair_tables_match_contingency_tables_on_real_data(examples) -> None:  # type: ignore[no-untyped-def]
    r = accord.read_ratings(
        examples / "diagnoses.csv", item="patient", rater="rater", label="diagnosis"
    )
    pt = PairTables.from_ratings(r)
    assert pt.n_pairs == 15
    for a, b in pt.pairs.tolist():
        direct = accord.ContingencyTable.from_ratings(r, raters=(r.raters[a], r.raters[b]))
        assert np.array_equal(pt.table(a, b).counts, direct.counts)


def test_pair_tables_sparse_path_equals_dense_path(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(5)
    wide = rng.integers(0, 3, size=(40, 6)).astype(float)
    wide[rng.random(wide.shape) < 0.3] = np.nan
    r = accord.Ratings.from_wide(wide)
    dense = PairTables.from_ratings(r)
    from accord.stats import pairs as pairs_module

    monkeypatch.setattr(pairs_module, "DENSE_CELLS", 0)
    monkeypatch.setattr(pairs_module, "CHUNK_PAIRS", 7)
    chunked = PairTables.from_ratings(r)
    assert dense.equals(chunked)


def test_merge_rejects_different_domains() -> None:
    a = ItemCategoryCounts.from_array([[1, 2]], categories=("x", "y"))
    b = ItemCategoryCounts.from_array([[1, 2]], categories=("x", "z"))
    with pytest.raises(InvalidInputError, match="different category domains"):
        a.merge(b)


def test_counts_validation() -> None:
    with pytest.raises(InvalidInputError, match="negative"):
        ItemCategoryCounts.from_array([[1, -1]])
    with pytest.raises(InvalidInputError, match="whole number"):
        ItemCategoryCounts.from_array([[1.5, 1]])
    with pytest.raises(InvalidInputError, match="2-D"):
        ItemCategoryCounts.from_array([1, 2])


@given(frame=long_ratings(), data=st.data())
def test_merge_of_any_split_equals_whole(frame: pd.DataFrame, data: st.DataObject) -> None:
    r = ratings_of(frame)
    mask = data.draw(splits(r.n_ratings))
    left, right = r.subset(mask), r.subset(~mask)
    for stat in (ItemCategoryCounts, RaterCategoryCounts):
        whole = stat.from_ratings(r)
        assert stat.from_ratings(left).merge(stat.from_ratings(right)).equals(whole)


@given(frame=long_ratings(), data=st.data())
def test_pair_tables_merge_over_item_split(frame: pd.DataFrame, data: st.DataObject) -> None:
    # Pairs form within items, so a split keeps each item's ratings on one side.
    r = ratings_of(frame)
    item_side = np.asarray(data.draw(splits(r.n_items)))
    mask = item_side[r.item_codes]
    whole = PairTables.from_ratings(r)
    merged = PairTables.from_ratings(r.subset(mask)).merge(PairTables.from_ratings(r.subset(~mask)))
    assert merged.equals(whole)


@given(frame=long_ratings())
def test_pair_tables_total_equals_co_rated_pairs(frame: pd.DataFrame) -> None:
    r = ratings_of(frame)
    totals = ItemCategoryCounts.from_ratings(r).totals()
    assert PairTables.from_ratings(r).tables.sum() == int(np.sum(totals * (totals - 1) // 2))
