"""The dask engine reads each partition once and numbers ids and labels as the memory engine
does, however the input is split into partitions."""

from __future__ import annotations

import dataclasses
import itertools
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import accord
from accord import (
    DuplicateRatingError,
    InvalidInputError,
    ItemCategoryCounts,
    PairTables,
    RaterCategoryCounts,
)
from accord.engines import _mapreduce, dask_statistics

from .test_engines import COLS, assert_same, make_frame

SCORES = {"item": "item", "rater": "rater", "label": "score"}


def _split_csv(frame: pd.DataFrame, folder: Path, cuts: tuple[int, ...]) -> list[Path]:
    """The frame in CSV files, cut before the rows in ``cuts``."""
    paths = []
    for k, (lo, hi) in enumerate(itertools.pairwise([0, *cuts, len(frame)])):
        path = folder / f"part-{k}.csv"
        frame.iloc[lo:hi].to_csv(path, index=False)
        paths.append(path)
    return paths


def _scores(n_items: int = 60, n_raters: int = 4, seed: int = 3) -> pd.DataFrame:
    """Continuous scores (a few missing), rows shuffled, text ids."""
    rng = np.random.default_rng(seed)
    item = np.repeat(np.arange(n_items), n_raters)
    rater = np.tile(np.arange(n_raters), n_items)
    score = rng.normal(size=item.size).round(6)
    score[rng.random(item.size) < 0.05] = np.nan
    frame = pd.DataFrame(
        {"item": [f"i{i}" for i in item], "rater": [f"r{r}" for r in rater], "score": score}
    )
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


@pytest.mark.parametrize("scheduler", ["synchronous", "threads"])
def test_dask_reads_each_csv_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scheduler: str
) -> None:
    # Before: each pass read the files again (three reads of each file for the ICC: the
    # distinct values, the counts, the scored cells).
    frame = _scores()
    paths = _split_csv(frame, tmp_path, (70, 150))
    reads: list[str] = []
    read = _mapreduce.read_csv_columns

    def counted(dialect: Any, *args: Any, **kwargs: Any) -> Any:
        reads.append(str(dialect.path))
        return read(dialect, *args, **kwargs)

    monkeypatch.setattr(_mapreduce, "read_csv_columns", counted)
    options: dict[str, Any] = {**SCORES, "level": "interval", "coefficients": ["icc"]}
    table = accord.agreement(paths, engine="dask", scheduler=scheduler, **options)
    assert sorted(reads) == sorted(str(p) for p in paths)
    ratings = accord.Ratings.from_long(frame, **SCORES, level="interval")
    expected = accord.agreement(ratings, level="interval", coefficients=["icc"])
    got = [c.statistic for c in table.coefficients]
    assert got == pytest.approx([c.statistic for c in expected.coefficients], rel=1e-12)


def test_dask_csv_messages_count_rows_over_the_files(tmp_path: Path) -> None:
    # Row numbers run over the files in order (the header of each file is not a row).
    frame = make_frame()
    n = len(frame)
    cuts = (100, 250)
    blank = frame.copy()
    blank.loc[300, "item"] = " "
    blank.loc[301, "rater"] = "NA"
    # row 301 over the files is row 51 of the third (rows 251 on)
    item_error = r"column 'item': rows have no item id \(row 301 \(row 51 of \S*part-2\.csv\)\)"
    with pytest.raises(InvalidInputError, match=item_error):
        dask_statistics(_split_csv(blank, tmp_path, cuts), **COLS, scheduler="synchronous")
    for path in tmp_path.iterdir():
        path.unlink()
    doubled = pd.concat([frame, frame.dropna().iloc[[2]]], ignore_index=True)
    first = int(frame.dropna().index[2])
    # each row over the files, and its row in its file (the third file starts at row 251)
    twice = rf"at rows {first + 1} \(row {first + 1} of \S*part-0\.csv\), {n + 1} \(row {n - 249} "
    with pytest.raises(DuplicateRatingError, match=twice):
        dask_statistics(_split_csv(doubled, tmp_path, cuts), **COLS, scheduler="synchronous")
    missing = frame["label"].isna() | (frame["label"].str.strip() == "")
    first_five = np.flatnonzero(missing)[:5] + 1
    assert first_five.max() <= cuts[0]  # all in the first file: each is its own row there
    rows = ", ".join(rf"{r} \(row {r} of \S*part-0\.csv\)" for r in first_five)
    with pytest.raises(InvalidInputError, match=rf"rows have a missing label \(rows {rows}\)"):
        dask_statistics(
            _split_csv(frame, tmp_path, cuts), **COLS, missing="raise", scheduler="synchronous"
        )


def test_dask_object_column_of_mixed_types_matches_memory() -> None:
    # An object column holding numbers in one partition and text in another: the one
    # encoder reads the whole column as text, in every engine (before, the dask engine kept
    # 1 and "1" apart and its decode table mixed ints and text).
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    frame = pd.DataFrame(
        {
            "item": np.array([1, 1, 2, 2, "a", "a", "1", "b"], dtype=object),
            "rater": ["x", "y", "x", "y", "x", "y", "z", "x"],
            "label": ["p", "q", "p", "p", "q", "q", "p", "q"],
        }
    )
    with dask.config.set({"dataframe.convert-string": False}):  # keep the objects
        ddf = dd.from_pandas(frame, npartitions=1).repartition(divisions=[0, 4, 7])
        stats = dask_statistics(ddf, **COLS, scheduler="synchronous")
    assert_same(stats, accord.Ratings.from_long(frame, **COLS))
    assert list(stats.items) == ["1", "2", "a", "b"]


ID = st.sampled_from(["1", "01", "2", "10", "x7"])
SCORE = st.sampled_from(["1", "2.5", "3", "", "NA", "-0.5", " 2.5"])
# Spellings the read report warns about: a boolean two ways, a label with a space, float noise.
SPELLED = st.sampled_from(
    ["TRUE", "True", "false", "yes", "yes ", "Yes", "0.3", "0.30000000000000004"]
)


@settings(max_examples=25, deadline=None)
@given(
    cells=st.lists(
        st.tuples(ID, st.sampled_from("abcd"), SCORE | SPELLED),
        min_size=1,
        max_size=40,
        unique_by=lambda t: (t[0], t[1]),
    ),
    cuts=st.lists(st.integers(1, 40), max_size=3, unique=True),
)
def test_dask_split_csv_equals_memory(cells: list[tuple[str, str, str]], cuts: list[int]) -> None:
    # However the rows are cut into files, the dask engine's codes, decode tables, counts and
    # report (its warnings about spellings included) are the memory engine's on the whole file
    # (one label at least is present).
    lines = ["item,rater,label\n", "x7,z,2\n", *(f"{i},{r},{label}\n" for i, r, label in cells)]
    bounds = [1, *sorted(c for c in cuts if c < len(lines) - 1), len(lines)]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "whole.csv").write_text("".join(lines))
        paths = []
        for k, (lo, hi) in enumerate(itertools.pairwise(bounds)):
            paths.append(folder / f"part-{k}.csv")
            paths[-1].write_text(lines[0] + "".join(lines[lo:hi]))
        stats = dask_statistics(paths, **COLS, scheduler="synchronous")
        assert_same(stats, accord.read_ratings(folder / "whole.csv", **COLS))


@pytest.mark.parametrize(
    ("values", "level", "text"),
    [
        (["2.5", None, "1", " NA", "-0.5", "1.0"], "interval", True),
        (["b", "a", "", "c", None], "nominal", True),
        (["3", "1", "x"], "nominal", False),
    ],
)
def test_raw_label_domain_of_arrow_equals_of_numpy(
    values: list[str | None], level: Any, text: bool
) -> None:
    # The dask engine hands the distinct labels over as Arrow (no Python object per label);
    # the domain, the relabelling and the missing flags are those of the numpy input.
    import pyarrow as pa

    from accord.data.dictionary import raw_label_domain

    rows = np.arange(len(values), dtype=np.int64) * 3
    options: dict[str, Any] = {"level": level, "categories": None, "column": "c", "text": text}
    from_numpy = raw_label_domain(np.array(values, dtype=object), rows, **options)
    from_arrow = raw_label_domain(pa.array(values, pa.large_string()), rows, **options)
    assert np.array_equal(from_arrow[0], from_numpy[0])
    assert from_arrow[1] == from_numpy[1]
    assert [type(c) for c in from_arrow[1]] == [type(c) for c in from_numpy[1]]
    assert np.array_equal(from_arrow[2], from_numpy[2])
    assert from_arrow[3:] == from_numpy[3:]


def test_dask_scheduler_address_matches_memory(tmp_path: Path) -> None:
    # A scheduler given by its address gets a client per call, so nothing is kept between
    # passes (each pass reads the files again): the numbers are the same.
    distributed = pytest.importorskip("distributed")
    frame = _scores()
    paths = _split_csv(frame, tmp_path, (90,))
    options: dict[str, Any] = {**SCORES, "level": "interval", "coefficients": ["icc"]}
    ratings = accord.Ratings.from_long(frame, **SCORES, level="interval")
    expected = [
        c.statistic
        for c in accord.agreement(ratings, level="interval", coefficients=["icc"]).coefficients
    ]
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        table = accord.agreement(
            paths, engine="dask", scheduler=cluster.scheduler_address, **options
        )
    assert [c.statistic for c in table.coefficients] == pytest.approx(expected, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(min_value=0, max_value=40), max_size=30),
    st.integers(min_value=0, max_value=2_000),
)
def test_items_with_a_rating_counted_by_marks_or_by_sorting(codes: list[int], extra: int) -> None:
    # A dask block counts the items it rated among every item of the data: by a table of
    # marks when the items are few beside the block's ratings, else by sorting the codes;
    # both give the number of distinct codes (numpy.unique, the independent count).
    from accord.data.encoder import n_distinct

    array = np.asarray(codes, dtype=np.int64)
    n_groups = 41 + extra
    assert n_distinct(array, n_groups) == np.unique(array).size


def _count_shuffles(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that grows by one each time the dask engine shuffles the codes by item."""
    from accord.engines import dask as engine

    calls: list[int] = []
    shuffled = engine._Pass._count_shuffled

    def counting(self: Any, *args: Any) -> Any:
        calls.append(1)
        return shuffled(self, *args)

    monkeypatch.setattr(engine._Pass, "_count_shuffled", counting)
    return calls


def _split_items(tmp: Path, repeat: bool = False) -> tuple[list[Path], Path]:
    """Ratings with every item's ratings spread over three CSV files (so no partition holds
    an item whole); ``repeat`` rates item ``i0`` twice by rater ``a``, in the first file and
    the last, with another label."""
    rows = [f"i{i},{r},{(i + k) % 3}" for i in range(12) for k, r in enumerate("abcd")]
    rows = rows[::4] + rows[1::4] + rows[2::4] + rows[3::4]  # rater by rater: items split
    if repeat:
        rows.append("i0,a,2")
    whole = tmp / "whole.csv"
    whole.write_text("item,rater,label\n" + "\n".join(rows) + "\n")
    cut = [0, 16, 32, len(rows)]
    paths = []
    for k, (lo, hi) in enumerate(itertools.pairwise(cut)):
        paths.append(tmp / f"part-{k}.csv")
        paths[-1].write_text("item,rater,label\n" + "\n".join(rows[lo:hi]) + "\n")
    return paths, whole


@pytest.mark.parametrize(
    "statistics", [("items", "raters"), ("items",), ("raters",), ("items", "raters", "pairs")]
)
def test_counts_of_items_split_over_partitions_equal_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, statistics: tuple[str, ...]
) -> None:
    # Without the rater-pair tables the partitions are counted where they are (no shuffle):
    # an item's counts add up over the partitions that hold its ratings, and the read
    # report counts it once.
    shuffles = _count_shuffles(monkeypatch)
    paths, whole = _split_items(tmp_path)
    memory = accord.read_ratings(whole, **COLS)
    stats = dask_statistics(paths, **COLS, scheduler="synchronous", statistics=statistics)
    assert not shuffles
    if "pairs" in statistics:
        assert stats.pair_tables.equals(PairTables.from_ratings(memory))
    if "items" in statistics:
        assert stats.item_counts.equals(ItemCategoryCounts.from_ratings(memory))
    if "raters" in statistics:
        assert stats.rater_counts.equals(RaterCategoryCounts.from_ratings(memory))
    assert dataclasses.replace(stats.report, source=None) == dataclasses.replace(
        memory.report, source=None
    )
    assert stats.report.items == 12  # each item once, though in three partitions


@pytest.mark.parametrize("duplicates", ["first", "last"])
def test_a_repeat_over_two_partitions_is_resolved_as_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, duplicates: str
) -> None:
    # the unshuffled count finds the repeat; the codes are then shuffled to resolve it
    shuffles = _count_shuffles(monkeypatch)
    paths, whole = _split_items(tmp_path, repeat=True)
    memory = accord.read_ratings(whole, **COLS, duplicates=duplicates)
    stats = dask_statistics(paths, **COLS, scheduler="synchronous", duplicates=duplicates,
                            statistics=("items", "raters"))  # fmt: skip
    assert stats.item_counts.equals(ItemCategoryCounts.from_ratings(memory))
    assert stats.rater_counts.equals(RaterCategoryCounts.from_ratings(memory))
    assert stats.report.dropped == memory.report.dropped == 1
    assert len(shuffles) == 1


def test_a_repeat_over_two_partitions_names_both_rows(tmp_path: Path) -> None:
    paths, _ = _split_items(tmp_path, repeat=True)
    with pytest.raises(DuplicateRatingError, match=r"i0.*a") as caught:
        dask_statistics(paths, **COLS, scheduler="synchronous", statistics=("items", "raters"))
    assert "part-0.csv" in str(caught.value) and "part-2.csv" in str(caught.value)


# ------------------------------------------- distinct values merged, ratings by item blocks


def _many_raters(n_items: int = 600, per_item: int = 5, n_raters: int = 2000, seed: int = 8):
    """Text ids, rows shuffled, a few missing labels; with 2,000 raters the rater pairs' tables
    are held as their filled cells (about 1,550 raters met: more than 20M cells dense)."""
    rng = np.random.default_rng(seed)
    item = np.repeat(np.arange(n_items), per_item)
    rater = np.concatenate([rng.choice(n_raters, per_item, replace=False) for _ in range(n_items)])
    label = rng.choice(["a", "b", "c", "d", "e"], item.size).astype(object)
    label[rng.random(item.size) < 0.05] = None
    frame = pd.DataFrame(
        {"item": [f"i{i:04x}" for i in item], "rater": [f"r{r}" for r in rater], "label": label}
    )
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


@pytest.mark.parametrize(("n_items", "npartitions"), [(600, 2), (600, 5), (600, 40), (12, 20)])
def test_rater_pair_tables_of_item_blocks_equal_memory(n_items: int, npartitions: int) -> None:
    # Each block of items counts its rater pairs; the blocks' tables (filled cells with
    # 600 items) are merged. More partitions than blocks (40: 16 blocks), more blocks than
    # items (12 items, 16 blocks: some empty). Reference: the memory engine's tables.
    from accord.stats.pairs import PairCells, pair_statistic

    dd = pytest.importorskip("dask.dataframe")
    frame = _many_raters(n_items=n_items)
    memory = accord.Ratings.from_long(frame, **COLS, missing="omit")
    stats = dask_statistics(dd.from_pandas(frame, npartitions=npartitions), **COLS,
                            missing="omit", scheduler="synchronous")  # fmt: skip
    expected = pair_statistic(memory)
    assert isinstance(expected, PairCells) == (n_items == 600)
    assert type(stats.pair_tables) is type(expected)
    if isinstance(expected, PairCells):
        for field in ("pairs", "pair", "x", "y", "count"):
            assert np.array_equal(getattr(stats.pair_tables, field), getattr(expected, field))
    else:
        assert stats.pair_tables.equals(expected)
    assert list(stats.items) == list(memory.items) and list(stats.raters) == list(memory.raters)
    assert stats.item_counts.equals(ItemCategoryCounts.from_ratings(memory))
    assert stats.rater_counts.equals(RaterCategoryCounts.from_ratings(memory))
    assert dataclasses.replace(stats.report, source=None) == dataclasses.replace(
        memory.report, source=None
    )


def test_the_first_pass_brings_each_distinct_value_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # The partitions' distinct values are merged in a tree where they were found: what the
    # first pass returns holds each item once (not once per partition holding it), in the
    # order of first appearance over the frame, with each label's first row.
    from accord.engines import dask as engine

    dd = pytest.importorskip("dask.dataframe")
    frame = _many_raters(n_items=60)
    merged: list[Any] = []
    first_pass = engine._first_pass

    def kept(*args: Any) -> Any:
        out = first_pass(*args)
        merged.append(out[1])
        return out

    monkeypatch.setattr(engine, "_first_pass", kept)
    dask_statistics(dd.from_pandas(frame, npartitions=6), **COLS, missing="omit",
                    scheduler="synchronous")  # fmt: skip
    (found,) = merged
    assert found.items.to_pylist() == list(pd.unique(frame["item"]))
    assert found.raters.to_pylist() == list(pd.unique(frame["rater"]))
    labels = frame["label"].dropna()
    assert found.labels.to_pylist() == list(pd.unique(labels))
    assert found.label_first.tolist() == [
        int(labels.index[labels == v][0]) for v in pd.unique(labels)
    ]
    assert sum(found.lengths) == len(frame) and len(found.lengths) == 6


def test_block_plan_packs_four_bytes_when_it_fits_else_eight() -> None:
    from accord.engines._item_blocks import BlockPlan, pieces_of

    assert BlockPlan.of(n_items=10**6, n_raters=2000, q=5, n_blocks=8).dtype == np.uint32
    wide = BlockPlan.of(n_items=10**6, n_raters=10**4, q=5, n_blocks=2)
    assert wide is not None and wide.dtype == np.int64
    assert BlockPlan.of(n_items=10**9, n_raters=10**6, q=10**5, n_blocks=1) is None
    rng = np.random.default_rng(1)
    item, rater, label = (
        rng.integers(0, 10**6, 50),
        rng.integers(0, 10**4, 50),
        rng.integers(0, 5, 50),
    )
    pieces = pieces_of(item, rater, label, wide)
    got = set()
    for b, piece in enumerate(pieces):  # each packed rating read back by hand
        for key in piece.tolist():
            cell, c = divmod(key, 5)
            i, r = divmod(cell, 10**4)
            got.add((b * wide.width + i, r, c))
    assert got == set(zip(item.tolist(), rater.tolist(), label.tolist(), strict=True))
