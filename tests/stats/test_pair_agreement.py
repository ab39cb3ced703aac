"""The per-rater-pair agreement terms (:func:`accord.stats.pairs.pair_agreement`) and the
pair tables built from the pairs of ratings within items, against a hand computation and
against the raters x items code matrix (one ``bincount`` per rater pair, an independent
route to the same tables)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import accord
from accord.stats import pairs as pairs_module
from accord.stats.pairs import PairTables, pair_agreement, rater_code_rows


def test_pair_agreement_by_hand() -> None:
    # Items x raters (None: not rated). Pair (0, 1) co-rated items 0, 1, 2: labels
    # (a, a), (b, a), (a, a): 3 items, 2 agree; rater 0's margins a:2 b:1, rater 1's a:3, so
    # chance = 2 * 3 + 1 * 0 = 6. Pair (0, 2) co-rated items 0 and 3: (a, b), (b, b): 2
    # items, 1 agrees; margins a:1 b:1 and b:2: chance = 1 * 0 + 1 * 2 = 2. Pair (1, 2)
    # co-rated item 0 only: (a, b): 1 item, 0 agree, chance 1 * 0 + 0 * 1 = 0.
    wide = [["a", "a", "b"], ["b", "a", None], ["a", "a", None], ["b", None, "b"]]
    r = accord.Ratings.from_wide(wide)
    pa = pair_agreement(r)
    assert pa.pairs.tolist() == [[0, 1], [0, 2], [1, 2]]
    assert pa.n.tolist() == [3, 2, 1]
    assert pa.agree.tolist() == [2, 1, 0]
    assert pa.chance.tolist() == [6.0, 2.0, 0.0]


def _from_tables(pt: PairTables) -> tuple[list[int], list[int], list[float]]:
    tables = pt.tables
    n = tables.sum(axis=(1, 2)).tolist()
    agree = np.trace(tables, axis1=1, axis2=2).tolist()
    chance = (tables.sum(axis=2) * tables.sum(axis=1)).sum(axis=1).astype(float).tolist()
    return n, agree, chance


@st.composite
def wide_ratings(draw: st.DrawFn) -> accord.Ratings:
    n_items = draw(st.integers(1, 30))
    n_raters = draw(st.integers(2, 7))
    q = draw(st.integers(1, 4))
    cells = draw(
        st.lists(
            st.one_of(st.none(), st.integers(0, q - 1)),
            min_size=n_items * n_raters,
            max_size=n_items * n_raters,
        )
    )
    wide = np.array([np.nan if c is None else c for c in cells], dtype=float)
    wide = wide.reshape(n_items, n_raters)
    if np.isnan(wide).all():
        wide[0, 0] = 0
    return accord.Ratings.from_wide(wide)


@settings(max_examples=60, deadline=None)
@given(r=wide_ratings(), small=st.booleans())
def test_pair_terms_equal_the_code_matrix_tables(r: accord.Ratings, small: bool) -> None:
    rows = rater_code_rows(r, check_cost=False)
    if rows is None:  # fewer than two raters with ratings: no pair
        assert pair_agreement(r).n.size == PairTables._from_pair_expansion(r).n_pairs
        return
    expected = PairTables.from_code_rows(rows, r.raters, r.categories)
    mp = pytest.MonkeyPatch()
    if small:  # the sorted-keys path and batches of a few pairs
        mp.setattr(pairs_module, "DENSE_CELLS", 0)
        mp.setattr(pairs_module, "CHUNK_PAIRS", 3)
    try:
        expanded = PairTables._from_pair_expansion(r)
        pa = pair_agreement(r)
    finally:
        mp.undo()
    assert expanded.equals(expected)
    assert pa.pairs.tolist() == expected.pairs.tolist()
    assert (pa.n.tolist(), pa.agree.tolist(), pa.chance.tolist()) == _from_tables(expected)
