"""The pair passes of :mod:`accord.stats.pairs` (grouping by item, the pairs of ratings
within items, the rater-pair tables and agreement terms) against a plain computation: a
Python loop over each item's ratings, every pair of them counted by hand into a dictionary
of q x q tables. Random codes include items with one rating, raters with no item in
common, missing labels, an (item, rater) rated twice, and every path of the kernel: dense
and sorted rater-pair keys, packed and unpacked codes, tiny batches, margins instead of
tables."""

from __future__ import annotations

import contextlib
import dataclasses
from collections import defaultdict
from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import accord
from accord.stats import pairs as pairs_module
from accord.stats.pairs import ItemGroups, PairCells, PairTables, pair_agreement


@st.composite
def long_ratings(draw: st.DrawFn) -> accord.Ratings:
    """Items rated by random subsets of raters (often one rater, sometimes all of them),
    some labels missing; a rater pool larger than any item's subset leaves pairs of raters
    with nothing in common."""
    n_items = draw(st.integers(1, 25))
    n_raters = draw(st.integers(2, 12))
    q = draw(st.integers(1, 5))
    rows = []
    for i in range(n_items):
        size = draw(st.sampled_from([1, 1, 2, 3, n_raters]))
        raters = draw(st.permutations(range(n_raters)))[:size]
        for r in raters:
            label = draw(st.one_of(st.none(), st.integers(0, q - 1)))
            rows.append((f"item{i}", f"rater{r}", None if label is None else f"c{label}"))
    if all(label is None for *_, label in rows):
        rows.append(("item0", "rater_extra", "c0"))
    frame = pd.DataFrame(rows, columns=["item", "rater", "label"])
    return accord.Ratings.from_long(frame, item="item", rater="rater", label="label")


def reference_tables(
    item: np.ndarray, rater: np.ndarray, label: np.ndarray, q: int
) -> dict[tuple[int, int], np.ndarray]:
    """Every pair of ratings of an item, raters in increasing order (ties in the order
    given), counted into its rater pair's table."""
    by_item: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for i, r, x in zip(item.tolist(), rater.tolist(), label.tolist(), strict=True):
        by_item[i].append((r, x))
    tables: dict[tuple[int, int], np.ndarray] = {}
    for ratings in by_item.values():
        ratings.sort(key=lambda rx: rx[0])  # stable: a rater twice keeps the given order
        for j, (a, x) in enumerate(ratings):
            for b, y in ratings[j + 1 :]:
                tables.setdefault((a, b), np.zeros((q, q), dtype=np.int64))[x, y] += 1
    return tables


def _stacked(tables: dict[tuple[int, int], np.ndarray], q: int) -> tuple[list, np.ndarray]:
    keys = sorted(tables)
    stack = np.array([tables[k] for k in keys]) if keys else np.zeros((0, q, q), np.int64)
    return [list(k) for k in keys], stack


PATHS = {
    "default": {},
    "sorted keys": {"DENSE_CELLS": 0},
    "sorted keys, tiny batches, margins": {"DENSE_CELLS": 0, "CHUNK_PAIRS": 3},
    "tiny batches, margins": {"CHUNK_PAIRS": 3},
    "unpacked codes": {"_PACKED_BITS": 0},
    "batches of one pair": {"CHUNK_PAIRS": 1},
    "batches of some pairs": {"CHUNK_PAIRS": 40},
}


@settings(max_examples=80, deadline=None)
@given(r=long_ratings(), path=st.sampled_from(sorted(PATHS)))
def test_pair_tables_and_terms_equal_a_loop_over_items(r: accord.Ratings, path: str) -> None:
    q = r.n_categories
    pairs, tables = _stacked(reference_tables(r.item_codes, r.rater_codes, r.label_codes, q), q)
    mp = pytest.MonkeyPatch()
    for name, value in PATHS[path].items():
        mp.setattr(pairs_module, name, value)
    try:
        expanded = PairTables._from_pair_expansion(r)
        pa = pair_agreement(r)
        groups = ItemGroups.from_ratings(r)
        sorted_path = PairTables.from_groups(
            ItemGroups.from_sorted(groups.item, groups.rater, groups.label), r.raters, r.categories
        )
        positions = [np.c_[left, right] for left, right in groups.pairs()]
    finally:
        mp.undo()
    assert expanded.pairs.tolist() == pairs
    assert np.array_equal(expanded.tables, tables)
    assert expanded.tables.dtype == np.int64
    assert sorted_path.equals(expanded)
    assert pa.pairs.tolist() == pairs
    assert pa.n.tolist() == tables.sum(axis=(1, 2)).tolist()
    assert pa.agree.tolist() == np.trace(tables, axis1=1, axis2=2).tolist()
    chance = (tables.sum(axis=2) * tables.sum(axis=1)).sum(axis=1)
    assert pa.chance.tolist() == chance.astype(float).tolist()
    # the positions of the pairs: each pair of ratings of an item once, left first
    found = sorted(map(tuple, np.concatenate(positions).tolist())) if positions else []
    expected = [
        (i, j)
        for i in range(groups.item.size)
        for j in range(i + 1, groups.item.size)
        if groups.item[i] == groups.item[j]
    ]
    assert found == expected


def _expected(r: accord.Ratings) -> tuple[int, list[list[int]], np.ndarray, ItemGroups]:
    """The categories, the co-rating pairs and their tables by a loop over items, and the
    ratings grouped by item."""
    q = r.n_categories
    pairs, tables = _stacked(reference_tables(r.item_codes, r.rater_codes, r.label_codes, q), q)
    return q, pairs, tables, ItemGroups.from_ratings(r)


@contextlib.contextmanager
def _in_runs(runs: int, batch: int, **limits: int) -> Iterator[None]:
    """The pair passes in ``runs`` runs of items whatever the size, batches of ``batch``
    pairs, and the other module ``limits`` given (a hypothesis example cannot take the
    function-scoped ``monkeypatch`` fixture)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pairs_module, "SPLIT", 0)
        mp.setattr(pairs_module, "CHUNK_PAIRS", batch)
        mp.setattr(pairs_module, "usable_cores", lambda: runs)
        for name, value in limits.items():
            mp.setattr(pairs_module, name, value)
        yield


@settings(max_examples=60, deadline=None)
@given(
    r=long_ratings(),
    runs=st.integers(1, 4),
    batch=st.sampled_from([1, 3, 4_000_000]),
    counted=st.sampled_from([0, 4_000_000]),
)
def test_pair_cells_counted_in_runs_of_items_equal_a_loop_over_items(
    r: accord.Ratings, runs: int, batch: int, counted: int
) -> None:
    # the groups cut into runs of whole items, each counted on its own thread, then summed;
    # counted=0: the cells sorted batch by batch, else counted in the pairs' dense tables
    q, pairs, tables, groups = _expected(r)
    split = groups.split(runs)
    assert 1 <= len(split) <= runs
    assert np.concatenate([g.item for g in split]).tolist() == groups.item.tolist()
    assert all(g.item.size for g in split) or groups.item.size == 0
    ends = [int(g.item[-1]) for g in split[:-1]]
    starts = [int(g.item[0]) for g in split[1:]]
    assert all(a != b for a, b in zip(ends, starts, strict=True))  # no item cut in two
    with _in_runs(runs, batch, COUNTED_CELLS=counted):
        cells = PairCells.from_groups(groups, r.raters, r.categories)
    assert cells.pairs.tolist() == pairs
    dense = np.zeros((len(pairs), q, q), dtype=np.int64)
    dense[cells.pair, cells.x, cells.y] = cells.count
    assert np.array_equal(dense, tables)


@settings(max_examples=60, deadline=None)
@given(
    r=long_ratings(),
    runs=st.integers(1, 4),
    batch=st.sampled_from([1, 3, 4_000_000]),
    dense=st.sampled_from([0, 20_000_000]),
)
def test_pair_tables_counted_in_runs_of_items_equal_a_loop_over_items(
    r: accord.Ratings, runs: int, batch: int, dense: int
) -> None:
    # each run of whole items counted on its own thread, its tables summed pair by pair;
    # dense=0: the rater pairs' sorted keys first (the path for many raters)
    q, pairs, tables, groups = _expected(r)
    with _in_runs(runs, batch, DENSE_CELLS=dense):
        counted = groups.pair_tables(r.n_raters, q)
        capped = groups.pair_tables(r.n_raters, q, max_cells=max(len(pairs) * q * q - 1, 0))
    assert counted is not None
    keys, got = counted
    assert [[int(k) // r.n_raters, int(k) % r.n_raters] for k in keys] == pairs
    assert np.array_equal(got.reshape(len(pairs), q, q), tables)
    if pairs:  # one cell fewer than the tables hold: refused, whatever the runs
        assert capped is None


@settings(max_examples=40, deadline=None)
@given(r=long_ratings())
def test_grouping_equals_a_stable_sort(r: accord.Ratings) -> None:
    groups = ItemGroups.from_ratings(r)
    order = np.lexsort((r.rater_codes, r.item_codes))
    assert groups.item.tolist() == r.item_codes[order].tolist()
    assert groups.rater.tolist() == r.rater_codes[order].tolist()
    assert groups.label.tolist() == r.label_codes[order].tolist()
    after = [int(np.sum(groups.item[k + 1 :] == groups.item[k])) for k in range(groups.item.size)]
    assert groups.rest.tolist() == after


def test_a_rater_twice_on_an_item_keeps_the_given_order() -> None:
    # Rater 1 rated item 0 twice (labels 1 then 0): the stable sort keeps that order, so
    # the pair (1, 1) counts one item with labels (1, 0); with rater 0 (label 2) each
    # rating of rater 1 makes a pair (0, 1): cells (2, 1) and (2, 0).
    r = accord.Ratings.from_wide([[2, 1], [0, 0]])
    twice = dataclasses.replace(
        r,
        item_codes=np.array([0, 0, 0, 1, 1]),
        rater_codes=np.array([1, 0, 1, 0, 1]),
        label_codes=np.array([1, 2, 0, 0, 0]),
    )
    pt = PairTables._from_pair_expansion(twice)
    assert pt.pairs.tolist() == [[0, 1], [1, 1]]
    assert pt.tables[0].tolist() == [[1, 0, 0], [0, 0, 0], [1, 1, 0]]
    assert pt.tables[1].tolist() == [[0, 0, 0], [1, 0, 0], [0, 0, 0]]
    want = reference_tables(twice.item_codes, twice.rater_codes, twice.label_codes, 3)
    assert _stacked(want, 3)[0] == pt.pairs.tolist()
    assert np.array_equal(_stacked(want, 3)[1], pt.tables)


def test_raters_with_nothing_in_common_make_no_pair() -> None:
    # Raters 0 and 1 rate items 0-1, raters 2 and 3 items 2-3: only (0, 1) and (2, 3).
    wide = [["a", "b", None, None], ["a", "a", None, None], [None, None, "b", "b"],
            [None, None, "a", "b"]]  # fmt: skip
    r = accord.Ratings.from_wide(wide)
    pa = pair_agreement(r)
    assert pa.pairs.tolist() == [[0, 1], [2, 3]]
    assert pa.n.tolist() == [2, 2]
    assert pa.agree.tolist() == [1, 1]


def test_numbering_in_order_of_first_meeting() -> None:
    # Size 1000: up to 15 new keys are sorted, more are marked; a batch with under a
    # quarter new keys has them filled in, else the whole batch is looked up again.
    numbers = pairs_module._Numbering(1000)
    assert numbers(np.array([7, 3, 7])).tolist() == [1, 0, 1]  # first call: 3, 7
    assert numbers(np.array([3, 3, 7])).tolist() == [0, 0, 1]  # nothing new
    assert numbers(np.array([3, 9, 7, 3, 7])).tolist() == [0, 2, 1, 0, 1]  # one new: filled
    assert numbers(np.array([5, 4, 5])).tolist() == [4, 3, 4]  # all new: looked up again
    many = np.arange(100, 140)[::-1]  # 40 new, marked: numbered in key order
    assert numbers(many).tolist() == list(range(44, 4, -1))
    assert numbers.count == 45
    expected = [3, 7, 9, 4, 5, *range(100, 140)]
    assert numbers.keys().tolist() == expected


@given(
    st.lists(
        st.tuples(st.integers(0, 40), st.integers(0, 4), st.integers(0, 4), st.integers(1, 3)),
        min_size=1,
        max_size=60,
    ),
    st.booleans(),
)
@settings(max_examples=60, deadline=None)
def test_cell_counts_sum_each_cell_once_in_key_order(cells: list[tuple[int, ...]],
                                                     ones: bool) -> None:  # fmt: skip
    # the cells numbered as one integer give the (key, x, y) order of a three-key sort and
    # each distinct cell's summed count, as a dictionary of the cells counts them by hand
    key, x, y, count = (np.array(c, dtype=np.int64) for c in zip(*cells, strict=True))
    if ones:
        count = np.ones_like(count)
    by_hand: dict[tuple[int, int, int], int] = defaultdict(int)
    for k, a, b, c in zip(key, x, y, count, strict=True):
        by_hand[int(k), int(a), int(b)] += int(c)
    got = pairs_module._cell_counts(key, x, y, count)
    assert [tuple(int(v) for v in t) for t in zip(*got[:3], strict=True)] == sorted(by_hand)
    assert got[3].tolist() == [by_hand[c] for c in sorted(by_hand)]
