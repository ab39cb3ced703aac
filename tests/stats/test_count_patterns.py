"""The one count-pattern type (accord.stats.patterns.CountPatterns).

Invariants checked against the item x category counts they summarise, computed by hand
(``np.bincount`` of item * q + label) in each test: the patterns give back every item's row,
the weights count the items of each row, and merging the patterns of two disjoint sets of
ratings equals the patterns of their union.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse as sp

from accord import InvalidInputError, Ratings
from accord.stats.patterns import CountPatterns, patterns_from_counts


def by_hand(item: np.ndarray, label: np.ndarray, n_items: int, q: int) -> np.ndarray:
    return np.bincount(item * q + label, minlength=n_items * q).reshape(n_items, q)


ratings = st.integers(1, 6).flatmap(
    lambda q: st.tuples(
        st.just(q),
        st.integers(1, 12),
        st.lists(st.tuples(st.integers(0, 11), st.integers(0, q - 1)), max_size=60),
    )
)


@settings(max_examples=60, deadline=None)
@given(ratings, st.data())
def test_patterns_give_back_the_counts_and_merge(case: tuple, data: st.DataObject) -> None:
    q, n_items, pairs = case
    pairs = [(i % n_items, c) for i, c in pairs]
    item = np.array([p[0] for p in pairs], dtype=np.int64)
    label = np.array([p[1] for p in pairs], dtype=np.int64)
    counts = by_hand(item, label, n_items, q)
    whole = CountPatterns.from_codes(item, label, n_items=n_items, q=q)
    assert np.array_equal(whole.item_counts(sparse=False), counts)
    assert np.array_equal(whole.rows[whole.item_pattern], counts)
    assert np.array_equal(
        whole.weights, np.bincount(whole.item_pattern, minlength=whole.n_patterns)
    )
    assert len(np.unique(whole.rows, axis=0)) == whole.n_patterns  # distinct rows
    rated = whole.rated()
    assert np.array_equal(rated.item_counts(sparse=False), counts)
    assert rated.n_rated == int((counts.sum(axis=1) > 0).sum())
    assert (rated.rows.sum(axis=1) > 0).all()
    # Split the ratings in two (the first part over fewer items): merged, the patterns of the
    # parts are those of the whole.
    cut = data.draw(st.integers(0, len(pairs)))
    first_items = int(item[:cut].max()) + 1 if cut else 1
    a = CountPatterns.from_codes(item[:cut], label[:cut], n_items=first_items, q=q)
    b = CountPatterns.from_codes(item[cut:], label[cut:], n_items=n_items, q=q)
    merged = a.merge(b)
    assert np.array_equal(merged.item_counts(sparse=False), counts)
    assert sorted(map(tuple, merged.rows.tolist())) == sorted(map(tuple, whole.rows.tolist()))
    sparse = CountPatterns.from_counts(sp.csr_array(counts))
    assert np.array_equal(sparse.item_counts(sparse=True).toarray(), counts)


def test_from_ratings_against_a_hand_count() -> None:
    # Three items rated by two raters: rows (2, 0), (1, 1), (2, 0) -> two patterns.
    r = Ratings.from_long(
        pd.DataFrame(
            {
                "item": [1, 1, 2, 2, 3, 3],
                "rater": ["a", "b"] * 3,
                "label": ["x", "x", "x", "y", "x", "x"],
            }
        ),
        item="item",
        rater="rater",
        label="label",
    )
    p = CountPatterns.from_ratings(r)
    # Rows in order of their key 2 + 0 * 3 = 2 and 1 + 1 * 3 = 4 (base: largest count + 1).
    assert p.rows.tolist() == [[2, 0], [1, 1]]
    assert p.weights.tolist() == [2, 1]
    assert p.item_pattern.tolist() == [0, 1, 0]
    assert patterns_from_counts(np.array([[2, 0], [1, 1], [2, 0]])) is None  # 2 rows of 3 items


def test_merge_needs_one_category_domain() -> None:
    a = CountPatterns.from_codes([0], [0], n_items=1, q=2)
    b = CountPatterns.from_codes([0], [0], n_items=1, q=3)
    with pytest.raises(InvalidInputError, match="different numbers of categories"):
        a.merge(b)
