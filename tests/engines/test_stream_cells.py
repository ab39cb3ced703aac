"""The stream engine's sparse code matrix: statistics and second passes read from the filled
cells equal, to the last bit, those read from every cell (and the memory engine's)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import accord
from accord.engines import _matrix
from accord.engines.stream import stream_scan
from accord.stats.pairs import ItemGroups, PairTables
from tests.engines.test_engines import COLS, assert_patterns_match, assert_same

ALL = ("items", "raters", "pairs", "patterns")


def _per_item(ctx: Any, item: Any, rater: Any, label: Any) -> Any:
    n_items, table = ctx
    return np.bincount(item, weights=table[rater, label], minlength=n_items)


def _add(a: Any, b: Any) -> Any:
    return a + b


MODES = ("dense", "cells", "store", "store in runs")


def _run(
    path: Path, *, mode: str, pair_method: _matrix.PairMethod, **options: Any
) -> dict[str, Any]:
    """Statistics and second passes of one scan: from every cell of the matrix (``dense``),
    from its filled cells (``cells``), or from the ratings held as long codes (``store``),
    sorted into cells a few items at a time (``store in runs``)."""
    saved = _matrix.SLICE_CELLS, _matrix.FINISH_ROWS, _matrix.PAIR_ROWS
    _matrix.SLICE_CELLS = 40  # slices of a few items: their bounds are crossed
    if mode == "store in runs":
        _matrix.FINISH_ROWS = 7  # runs of a few items, repeats checked in every run
        _matrix.PAIR_ROWS = 5  # and the pairs counted over runs of other bounds
    modes = _matrix.MatrixModes(
        storage="store" if mode.startswith("store") else "matrix",
        reading="cells" if mode == "cells" else "every cell",
        pairs=pair_method,
    )
    try:
        stats, rescan = stream_scan(path, **COLS, modes=modes, **options)
        matrix = rescan.matrix
        assert matrix is not None
        # Conger's terms from the group codes the pair counts kept add each item's terms
        # group by group: equal to the last bit only when there are none.
        grouped = matrix._codes is not None
        out: dict[str, Any] = {"stats": stats, "cells": matrix.cells() is not None}
        out["grouped"] = grouped
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
        _matrix.SLICE_CELLS, _matrix.FINISH_ROWS, _matrix.PAIR_ROWS = saved


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
    pair_method=st.sampled_from(["auto", "long"]),
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
    pair_method: _matrix.PairMethod,
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
            _run(path, mode=mode, pair_method=pair_method, **options, statistics=ALL)
            for mode in MODES
        ]
        assert [run["cells"] for run in runs] == [False, True, True, True]
        dense = runs[0]
        for run in runs:
            assert_same(run["stats"], memory)
            if run["stats"].item_patterns is not None:
                assert_patterns_match(run["stats"], memory)
            a, b = dense["stats"].item_patterns, run["stats"].item_patterns
            assert (a is None) == (b is None)
            if a is not None and b is not None:  # the same patterns, in the same order
                assert np.array_equal(a.rows, b.rows)
                assert np.array_equal(a.item_pattern, b.item_pattern)
                assert np.array_equal(a.weights, b.weights)
        # The second passes (Conger's item terms, counts by group, ratings slice by slice).
        passes = [_run(path, mode=mode, pair_method=pair_method, **options) for mode in MODES]
        for run in passes[1:]:
            for key in ("sums", "index", "passed"):
                assert (key in passes[0]) == (key in run)
                if key == "sums" and passes[0]["grouped"] and key in run:
                    np.testing.assert_allclose(passes[0][key], run[key], rtol=1e-12)
                elif key in run:
                    assert np.array_equal(passes[0][key], run[key]), key
            if "sums" in run:
                np.testing.assert_allclose(run["sums"], run["passed"], rtol=1e-12, atol=1e-12)
        # No statistic asked for: what the read report needs only.
        reports = [
            _run(path, mode=mode, pair_method=pair_method, **options, statistics=())["stats"].report
            for mode in MODES
        ]
        assert reports[0] == reports[1] == reports[2] == reports[3]


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


def _scan(frame: pd.DataFrame, folder: Path, **options: Any) -> tuple[Any, Any]:
    path = folder / "r.parquet"
    frame.to_parquet(path)
    return stream_scan(path, **COLS, statistics=ALL, **options)


def test_matrix_moves_into_the_store_when_it_turns_sparse(tmp_path: Path) -> None:
    # Rows ordered by rater: the first batches fill a small matrix densely; once more items
    # and raters than 16 cells per row read come in, its cells move into the store (their
    # rows unknown). A repeat across the move is resolved as in the memory engine, and under
    # "raise" named with both rows (the earlier one read again).
    rng = np.random.default_rng(7)
    rows = [(i, int(r), int(rng.integers(0, 3))) for i in range(200) for r in rng.choice(60, 2)]
    frame = pd.DataFrame(rows, columns=["item", "rater", "label"]).sort_values("rater")
    frame = frame.drop_duplicates(["item", "rater"])
    repeat = frame.iloc[[0]].assign(label=(frame["label"].iloc[0] + 1) % 3)
    frame = pd.concat([frame, repeat], ignore_index=True)
    stats, rescan = _scan(frame, tmp_path, batch_size=10, duplicates="last")
    assert rescan.matrix._store is not None and not rescan.matrix.rows_known
    assert_same(stats, accord.Ratings.from_long(frame, **COLS, duplicates="last"))
    last = len(frame)  # the repeat's row, after the first (data rows count from 1)
    with pytest.raises(accord.DuplicateRatingError, match=rf"^1 \(item, .* at rows 1, {last}\."):
        _scan(frame, tmp_path, batch_size=10)


def test_store_turns_into_a_matrix_when_it_ends_dense(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One rating of each item in the first batch (sparse: the store), every cell rated in the
    # end: the cells are written into a matrix, and every count and sum is the matrix's.
    n_items, n_raters = 40, 30
    item = np.repeat(np.arange(n_items), n_raters)
    slot = np.tile(np.arange(n_raters), n_items)
    rater = (item + slot) % n_raters
    label = np.random.default_rng(3).integers(0, 4, item.size)
    frame = pd.DataFrame({"item": item, "rater": rater, "label": label, "slot": slot})
    frame = frame.sort_values("slot", kind="stable")[["item", "rater", "label"]]
    moved: list[int] = []
    to_matrix = _matrix.CodeMatrix._to_matrix

    def spy(self: Any, cells: Any) -> None:
        moved.append(int(cells.code.size))
        to_matrix(self, cells)

    monkeypatch.setattr(_matrix.CodeMatrix, "_to_matrix", spy)
    stats, rescan = _scan(frame, tmp_path, batch_size=n_items)
    assert moved == [n_items * n_raters]
    assert rescan.matrix._store is None and rescan.matrix.cells() is None
    assert_same(stats, accord.Ratings.from_long(frame, **COLS))
    _, dense = _scan(frame, tmp_path, batch_size=n_items, modes=_matrix.MatrixModes("matrix"))
    table = np.random.default_rng(0).standard_normal((n_raters, 4))
    assert np.array_equal(rescan.rating_sums(table), dense.rating_sums(table))


def test_store_names_every_row_of_a_repeat(tmp_path: Path) -> None:
    # Repeats found when the store is sorted: every row of each repeated pair is known (the
    # store holds the rows from the first batch on: 30 items by 60 raters, 61 rows).
    rows = [(i, r, "a") for i in range(30) for r in (2 * i, 2 * i + 1)]
    frame = pd.DataFrame([*rows, (3, 7, "b")], columns=["item", "rater", "label"])
    with pytest.raises(
        accord.DuplicateRatingError, match=r"^1 \(item, rater\) .*\(3, 7\) at rows 8, 61\."
    ):
        _scan(frame, tmp_path, batch_size=100)


@pytest.mark.parametrize("n_labels", [5, 1 << 60])
def test_store_sorts_ratings_into_cells(n_labels: int) -> None:
    # The store's cells are the distinct (item, rater) pairs in item order, raters increasing,
    # with their labels, rows without a rating (missing labels) left out: by one sort of
    # packed keys, or (keys past 64 bits) by the rows.
    rng = np.random.default_rng(4)
    store = _matrix._Store()
    seen: dict[tuple[int, int], int] = {}
    for row0 in range(0, 600, 100):
        item = rng.integers(0, 40, 100)
        rater = rng.integers(0, 30, 100)
        label = rng.integers(0, 5, 100)
        fresh = np.array([(int(i), int(r)) not in seen for i, r in zip(item, rater, strict=True)])
        _, first = np.unique(item * 30 + rater, return_index=True)
        fresh &= np.isin(np.arange(100), first)
        miss = np.flatnonzero(~fresh)  # repeats and missing labels alike: no rating
        label[miss[::2]] = -1
        kept = np.flatnonzero(fresh)
        seen.update({(int(item[k]), int(rater[k])): int(label[k]) for k in kept})
        store.add(item, rater.astype(np.int32), label, row0, miss)
    assert store.size == len(seen)
    cells, dropped, repeats = store.finish("raise", 40, 30, n_labels)
    assert cells is not None and dropped == 0 and repeats is None
    expected = sorted(seen.items())
    assert cells.item.tolist() == [i for (i, _), _ in expected]
    assert cells.rater.tolist() == [r for (_, r), _ in expected]
    assert cells.code.tolist() == [x for _, x in expected]


@pytest.mark.parametrize("storage", ["matrix", "store"])
def test_storage_is_a_parameter_of_the_matrix_with_the_same_numbers(
    tmp_path: Path, storage: _matrix.Storage
) -> None:
    # The same dense ratings held as a matrix or as long codes (each forced through the
    # scan's modes, never by a class attribute): the same statistics, each under its name.
    frame = _frame(np.random.default_rng(11), 50, 8, 5, 3, 0).dropna()
    modes = _matrix.MatrixModes(storage=storage)
    stats, rescan = _scan(frame, tmp_path, batch_size=64, modes=modes)
    matrix = rescan.matrix
    assert matrix.modes == modes and _matrix.CodeMatrix(1 << 20).modes == _matrix.MatrixModes()
    assert (matrix._store is not None) == (storage == "store")
    assert_same(stats, accord.Ratings.from_long(frame, **COLS))
    counted = matrix.statistics(
        rescan.remap,
        raters=stats.raters,
        categories=stats.categories,
        statistics=("raters", "items"),
        sparse=False,
    )
    assert isinstance(counted, _matrix.MatrixStatistics)
    assert counted.pairs is None and counted.patterns is None
    assert np.array_equal(counted.rater_counts, stats.rater_counts.counts)
    assert np.array_equal(counted.item_counts, stats.item_counts.dense())


def test_pairs_by_columns_only_where_every_pair_table_fits() -> None:
    # Column by column, each of the r^2 rater pairs has a (q+1)^2 table: asked for with 400
    # raters and 5 labels (5.8 million cells), the pairs are counted from long codes instead.
    matrix = _matrix.CodeMatrix(1 << 24, _matrix.MatrixModes("matrix", pairs="columns"))
    assert matrix.reserve(10, 400, 5, rows=4_000)
    assert not matrix._pairs_by_columns(5)
    assert matrix.reserve(10, 40, 5, rows=400)
    assert matrix._pairs_by_columns(5)


@pytest.mark.parametrize(
    ("duplicates", "repeat"), [("raise", True), ("first", True), ("last", True), ("raise", False)]
)
def test_store_sorted_in_runs_of_items_equals_one_sort(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, duplicates: str, repeat: bool
) -> None:
    # A store sorted a few items at a time gives the cells of one sort; a repeat in a late
    # run is found before any run is let go, and resolved (or named, rows and all) as with
    # one sort.
    rng = np.random.default_rng(11)
    rows = [(i, int(r), int(rng.integers(0, 3))) for i in range(300) for r in rng.choice(90, 3)]
    frame = pd.DataFrame(rows, columns=["item", "rater", "label"]).drop_duplicates(
        ["item", "rater"]
    )
    late = frame[frame["item"] == 290].iloc[[0]].assign(label=lambda f: (f["label"] + 1) % 3)
    frame = frame.sample(frac=1.0, random_state=3)
    frame = pd.concat([frame, late] if repeat else [frame], ignore_index=True)
    modes = _matrix.MatrixModes(storage="store")
    path = tmp_path / "r.parquet"
    frame.to_parquet(path)

    def scan() -> Any:
        try:
            stats, rescan = stream_scan(
                path, **COLS, statistics=ALL, batch_size=50, duplicates=duplicates, modes=modes
            )
        except accord.InvalidInputError as exc:
            return str(exc)
        cells = rescan.matrix.cells()
        return stats, [c.copy() for c in (cells.item, cells.rater, cells.code)]

    whole = scan()
    monkeypatch.setattr(_matrix, "FINISH_ROWS", 40)  # about 20 runs of items
    monkeypatch.setattr(_matrix, "PAIR_ROWS", 25)  # the pairs over runs of other bounds
    runs = scan()
    if repeat and duplicates == "raise":
        assert isinstance(whole, str) and "290" in whole
        assert runs == whole
        return
    for a, b in zip(whole[1], runs[1], strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert_same(runs[0], accord.Ratings.from_long(frame, **COLS, duplicates=duplicates))  # type: ignore[arg-type]
    assert runs[0].report == whole[0].report


def test_item_ids_are_decoded_when_first_read(tmp_path: Path) -> None:
    """The stream engine's statistics hold the item ids undecoded (the coefficients never
    read them): their number is known without them, and read they are those the memory
    engine decodes (text ids of a CSV file that are all numbers typed as numbers)."""
    from accord.engines._blocks import DeferredIds

    frame = pd.DataFrame(
        {"item": ["b7", "a1", "b7", "c", "a1"], "rater": ["x", "y", "y", "x", "x"],
         "label": ["n", "y", "y", "n", "y"]}
    )  # fmt: skip
    numbers = frame.assign(item=["20", "3", "20", "10", "3"])
    for name, data in (("text", frame), ("numbers", numbers)):
        path = tmp_path / f"{name}.csv"
        data.to_csv(path, index=False)
        stats = stream_scan(path, **COLS)[0]
        assert isinstance(stats.item_ids, DeferredIds) and stats.n_items == 3
        expected = accord.Ratings.from_long(pd.read_csv(path), **COLS).items
        assert stats.items.tolist() == expected.tolist()
        assert [type(v) for v in stats.items.tolist()] == [type(v) for v in expected.tolist()]
        assert stats.item_ids is stats.items  # decoded once, then kept
