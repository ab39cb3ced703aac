"""The stream engine's sparse code matrix: statistics and second passes read from the filled
cells equal, to the last bit, those read from every cell (and the memory engine's)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import accord
from accord.engines import _matrix
from accord.engines.stream import stream_scan
from accord.stats.pairs import ItemGroups, PairTables
from tests.test_engines import COLS, assert_patterns_match, assert_same

ALL = ("items", "raters", "pairs", "patterns")


def _per_item(ctx: Any, item: Any, rater: Any, label: Any) -> Any:
    n_items, table = ctx
    return np.bincount(item, weights=table[rater, label], minlength=n_items)


def _add(a: Any, b: Any) -> Any:
    return a + b


def _run(path: Path, *, sparse: bool, pair_method: str | None, **options: Any) -> dict[str, Any]:
    """Statistics and second passes of one scan, from the cells (``sparse``) or every cell."""
    saved = (_matrix.SPARSE_FILL, _matrix.SLICE_CELLS, _matrix.CodeMatrix.pair_method)
    _matrix.SPARSE_FILL = 0 if sparse else 1 << 62
    _matrix.SLICE_CELLS = 40  # slices of a few items: their bounds are crossed
    _matrix.CodeMatrix.pair_method = pair_method
    try:
        stats, rescan = stream_scan(path, **COLS, **options)
        matrix = rescan.matrix
        assert matrix is not None
        out: dict[str, Any] = {"stats": stats, "cells": matrix.cells() is not None}
        if "statistics" in options or stats.report.dropped != stats.report.missing:
            return out  # no second pass after repeats were dropped
        rng = np.random.default_rng(0)
        q = len(stats.categories)
        table = rng.standard_normal((stats.n_raters, q))
        out["sums"] = rescan.rating_sums(table)
        index = rng.integers(-1, 3, stats.n_items)
        out["index"] = rescan.index_label_counts(index, 3)
        out["passed"] = rescan.map_reduce(_per_item, (stats.n_items, table), _add)
        return out
    finally:
        _matrix.SPARSE_FILL, _matrix.SLICE_CELLS, _matrix.CodeMatrix.pair_method = saved


def _frame(
    rng: np.random.Generator, n_items: int, n_raters: int, per_item: int, q: int, repeats: int
) -> pd.DataFrame:
    rows = []
    for i in range(n_items):
        k = int(rng.integers(0, per_item + 1))
        for r in rng.choice(n_raters, size=min(k, n_raters), replace=False):
            rows.append((i * 7 + 3, int(r), int(rng.integers(0, q))))
    if not rows:
        rows.append((3, 0, 0))
    frame = pd.DataFrame(rows, columns=["item", "rater", "label"])
    if repeats:
        frame = pd.concat([frame, frame.sample(n=min(repeats, len(frame)), random_state=1)])
    label = pd.array(frame["label"].to_numpy(), dtype="Int16")
    label[rng.random(len(frame)) < 0.1] = pd.NA
    label[0] = 0  # a label at least
    return frame.assign(label=label)


@settings(max_examples=40, deadline=None)
@given(
    n_items=st.integers(1, 50),
    n_raters=st.integers(1, 40),
    per_item=st.integers(1, 5),
    q=st.sampled_from([1, 2, 5, 14]),
    batch_size=st.integers(1, 60),
    repeats=st.sampled_from([0, 0, 3]),
    duplicates=st.sampled_from(["first", "last"]),
    pair_method=st.sampled_from([None, "long"]),
    shuffle=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_cells_equal_every_cell_property(
    n_items: int,
    n_raters: int,
    per_item: int,
    q: int,
    batch_size: int,
    repeats: int,
    duplicates: str,
    pair_method: str | None,
    shuffle: bool,
    seed: int,
) -> None:
    # Many raters, few ratings per item, rows shuffled (or in item order: then counting
    # starts while batches come in), small batches, repeats, and sometimes too many labels
    # for item keys (14 labels by 40 raters): reading the filled cells gives the numbers,
    # pattern order and float sums of reading every cell.
    rng = np.random.default_rng(seed)
    frame = _frame(rng, n_items, n_raters, per_item, q, repeats)
    if shuffle:
        frame = frame.sample(frac=1.0, random_state=seed)
    frame = frame.reset_index(drop=True)
    memory = accord.Ratings.from_long(frame, **COLS, duplicates=duplicates)  # type: ignore[arg-type]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.parquet"
        frame.to_parquet(path)
        options: dict[str, Any] = {"batch_size": batch_size, "duplicates": duplicates}
        runs = [
            _run(path, sparse=sparse, pair_method=pair_method, **options, statistics=ALL)
            for sparse in (False, True)
        ]
        dense, cells = runs
        assert not dense["cells"] and cells["cells"]
        for run in runs:
            assert_same(run["stats"], memory)
            if run["stats"].item_patterns is not None:
                assert_patterns_match(run["stats"], memory)
        a, b = dense["stats"].item_patterns, cells["stats"].item_patterns
        assert (a is None) == (b is None)
        if a is not None and b is not None:  # the same patterns, in the same order
            assert np.array_equal(a.rows, b.rows)
            assert np.array_equal(a.item_pattern, b.item_pattern)
            assert np.array_equal(a.weights, b.weights)
        # The second passes (Conger's item terms, counts by group, ratings slice by slice).
        dense, cells = (_run(path, sparse=s, pair_method=pair_method, **options) for s in (0, 1))
        for key in ("sums", "index", "passed"):
            assert (key in dense) == (key in cells)
            if key in dense:
                assert np.array_equal(dense[key], cells[key]), key
        if "sums" in cells:
            np.testing.assert_allclose(cells["sums"], cells["passed"], rtol=1e-12, atol=1e-12)
        # No statistic asked for: what the read report needs only.
        reports = [
            _run(path, sparse=s, pair_method=pair_method, **options, statistics=())["stats"].report
            for s in (False, True)
        ]
        assert reports[0] == reports[1]


def test_item_groups_from_sorted_equal_groups_of_the_ratings() -> None:
    # Grouping cells read row by row (no sort) gives the groups, and the pair tables, of
    # grouping the ratings themselves.
    rng = np.random.default_rng(5)
    frame = _frame(rng, 300, 30, 6, 4, 0).dropna()
    ratings = accord.Ratings.from_long(frame.sample(frac=1.0, random_state=2), **COLS)
    order = np.lexsort((ratings.rater_codes, ratings.item_codes))
    groups = ItemGroups.from_sorted(
        ratings.item_codes[order], ratings.rater_codes[order], ratings.label_codes[order]
    )
    expected = ItemGroups.from_ratings(ratings)
    for name in ("item", "rater", "label", "rest"):
        assert np.array_equal(getattr(groups, name), getattr(expected, name)), name
    tables = PairTables.from_groups(groups, ratings.raters, ratings.categories)
    assert tables.equals(PairTables._from_pair_expansion(ratings))
    assert tables.n_pairs > 100
