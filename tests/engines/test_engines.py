"""Stream and dask engines: the same codes and integer statistics as the memory engine."""

from __future__ import annotations

import dataclasses
import itertools
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import accord
from accord import (
    ColumnNotFoundError,
    DuplicateRatingError,
    InvalidInputError,
    ItemCategoryCounts,
    PairTables,
    RaterCategoryCounts,
)
from accord.engines import RatingStatistics, _matrix, dask_statistics, stream_statistics
from accord.engines.stream import stream_scan

COLS = {"item": "item", "rater": "rater", "label": "label"}


def make_frame(seed: int = 0, n_items: int = 240, n_raters: int = 7) -> pd.DataFrame:
    """Long ratings, shuffled, with missing labels (None and blank text) and a category that
    first appears in the last tenth of the rows."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        k = int(rng.integers(1, n_raters + 1))
        for r in rng.choice(n_raters, size=k, replace=False):
            rows.append((f"item-{i:03d}", f"r{r}", str(rng.choice(["low", "mid", "high"]))))
    frame = pd.DataFrame(rows, columns=["item", "rater", "label"], dtype=object)
    frame = frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    n = len(frame)
    late = np.arange(n - n // 10, n)
    frame.loc[late[::3], "label"] = "zzz-late"
    frame.loc[frame.index[5::23], "label"] = None
    frame.loc[frame.index[11::41], "label"] = "  "
    return frame


def numeric_frame(seed: int = 1) -> pd.DataFrame:
    """Integer ids and integer labels 1..4, label 9 only near the end."""
    rng = np.random.default_rng(seed)
    n_items, n_raters = 150, 5
    full = pd.DataFrame(
        {
            "item": np.repeat(np.arange(1000, 1000 + n_items), n_raters),
            "rater": np.tile(np.arange(n_raters) * 10, n_items),
            "label": rng.integers(1, 5, n_items * n_raters).astype(float),
        }
    )
    full = full.sample(frac=0.8, random_state=seed).reset_index(drop=True)
    full.loc[full.index[-7:], "label"] = 9.0
    full.loc[full.index[3::29], "label"] = np.nan
    return full


def write_parquet(frame: pd.DataFrame, folder: Path, cuts: tuple[int, ...]) -> list[Path]:
    """Split the frame at ``cuts`` into files with small, uneven row groups."""
    paths = []
    bounds = [0, *cuts, len(frame)]
    for k, (lo, hi) in enumerate(itertools.pairwise(bounds)):
        path = folder / f"part-{k}.parquet"
        table = pa.Table.from_pandas(frame.iloc[lo:hi], preserve_index=False)
        pq.write_table(table, path, row_group_size=37 + 11 * k)
        paths.append(path)
    return paths


def write_csv(frame: pd.DataFrame, folder: Path, cuts: tuple[int, ...]) -> list[Path]:
    paths = []
    bounds = [0, *cuts, len(frame)]
    for k, (lo, hi) in enumerate(itertools.pairwise(bounds)):
        path = folder / f"part-{k}.csv"
        frame.iloc[lo:hi].to_csv(path, index=False)
        paths.append(path)
    return paths


def assert_same(stats: RatingStatistics, ratings: accord.Ratings) -> None:
    """Codes, decode tables, integer statistics and report equal the memory engine's."""
    assert stats.categories == ratings.categories
    assert [type(c) for c in stats.categories] == [type(c) for c in ratings.categories]
    assert list(stats.items) == list(ratings.items)
    assert list(stats.raters) == list(ratings.raters)
    assert stats.item_counts is not None and stats.rater_counts is not None
    assert stats.pair_tables is not None
    assert stats.item_counts.equals(ItemCategoryCounts.from_ratings(ratings))
    assert stats.rater_counts.equals(RaterCategoryCounts.from_ratings(ratings))
    assert stats.pair_tables.equals(PairTables.from_ratings(ratings))
    assert stats.item_counts.counts.dtype == np.int64
    mine = dataclasses.replace(stats.report, source=None)
    assert mine == dataclasses.replace(ratings.report, source=None)


@pytest.fixture
def frame() -> pd.DataFrame:
    return make_frame()


@pytest.fixture
def memory(frame: pd.DataFrame) -> accord.Ratings:
    return accord.Ratings.from_long(frame, **COLS)


@pytest.fixture
def parquet_files(frame: pd.DataFrame, tmp_path: Path) -> list[Path]:
    return write_parquet(frame, tmp_path, (101, 130))


@pytest.fixture
def local_client() -> Iterator[Any]:
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


# ------------------------------------------------------------------------ stream


@pytest.mark.parametrize("batch_size", [13, 100, 10_000])
@pytest.mark.parametrize("pair_method", ["columns", "long"])
def test_stream_parquet_matches_memory(
    parquet_files: list[Path],
    memory: accord.Ratings,
    batch_size: int,
    pair_method: _matrix.PairMethod,
) -> None:
    modes = _matrix.MatrixModes(pairs=pair_method)
    stats, _ = stream_scan(parquet_files, **COLS, batch_size=batch_size, modes=modes)
    assert stats.passes == 1
    assert "zzz-late" in stats.categories and stats.report.missing > 0
    assert_same(stats, memory)


def test_stream_bucketed_passes_match_memory(
    parquet_files: list[Path], memory: accord.Ratings
) -> None:
    # A limit far below items x raters forces passes over ranges of items.
    stats = stream_statistics(parquet_files, **COLS, batch_size=50, memory_limit=1_500)
    assert stats.passes > 2
    assert_same(stats, memory)


def test_stream_glob_and_folder_read_files_in_name_order(
    parquet_files: list[Path], memory: accord.Ratings
) -> None:
    folder = parquet_files[0].parent
    assert_same(stream_statistics(str(folder / "part-*.parquet"), **COLS, batch_size=64), memory)
    assert_same(stream_statistics(folder, **COLS, batch_size=64), memory)


def test_stream_csv_matches_pandas_read(frame: pd.DataFrame, tmp_path: Path) -> None:
    paths = write_csv(frame, tmp_path, (77, 300))
    whole = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)
    memory = accord.Ratings.from_long(whole, **COLS)
    stats = stream_statistics(paths, **COLS, batch_size=40)
    assert_same(stats, memory)


def test_stream_numeric_ids_and_labels_csv_and_parquet(tmp_path: Path) -> None:
    frame = numeric_frame()
    pq_paths = write_parquet(frame, tmp_path, (200, 201, 480))
    csv_paths = write_csv(frame, tmp_path, (333,))
    from_pq = accord.Ratings.from_long(frame, **COLS, level="ordinal")
    whole_csv = pd.concat([pd.read_csv(p) for p in csv_paths], ignore_index=True)
    from_csv = accord.Ratings.from_long(whole_csv, **COLS, level="ordinal")
    assert from_pq.categories == (1, 2, 3, 4, 9)  # integral floats are integer labels
    s_pq = stream_statistics(pq_paths, **COLS, level="ordinal", batch_size=33)
    s_csv = stream_statistics(csv_paths, **COLS, level="ordinal", batch_size=33)
    assert s_pq.items.dtype == np.int64  # ids keep their dtype
    assert_same(s_pq, from_pq)
    assert_same(s_csv, from_csv)


def test_stream_declared_categories(parquet_files: list[Path], frame: pd.DataFrame) -> None:
    declared = ["zzz-late", "high", "mid", "low", "unused"]
    memory = accord.Ratings.from_long(frame, **COLS, categories=declared)
    stats = stream_statistics(parquet_files, **COLS, categories=declared, batch_size=29)
    assert stats.categories == tuple(declared) and stats.categories_declared
    assert_same(stats, memory)


def test_stream_undeclared_label_names_value_and_row(parquet_files: list[Path]) -> None:
    with pytest.raises(InvalidInputError, match=r"'zzz-late' at row \d+ is not among"):
        stream_statistics(parquet_files, **COLS, categories=["low", "mid", "high"])


def test_stream_interval_level_rejects_text(parquet_files: list[Path]) -> None:
    with pytest.raises(InvalidInputError, match="is not a number"):
        stream_statistics(parquet_files, **COLS, level="interval")


def test_stream_interval_floats(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "item": np.repeat(np.arange(60), 3),
            "rater": np.tile(["a", "b", "c"], 60),
            "label": np.round(rng.normal(size=180), 1),
        }
    )
    paths = write_parquet(frame, tmp_path, (50,))
    memory = accord.Ratings.from_long(frame, **COLS, level="interval")
    stats = stream_statistics(paths, **COLS, level="interval", batch_size=17)
    assert_same(stats, memory)


@pytest.mark.parametrize("policy", ["first", "last"])
@pytest.mark.parametrize("memory_limit", [1 << 30, 1_000])
def test_stream_duplicates_first_last_match_memory(
    frame: pd.DataFrame, tmp_path: Path, policy: str, memory_limit: int
) -> None:
    # Repeats within one batch and across batches, with different labels.
    extra = frame.dropna().iloc[[0, 1, 2, 3, 0, 50]].copy()
    extra["label"] = ["low", "mid", "high", "low", "high", "mid"]
    doubled = pd.concat([frame, extra, frame.iloc[:4]], ignore_index=True)
    paths = write_parquet(doubled, tmp_path, (60, 400))
    memory = accord.Ratings.from_long(doubled, **COLS, duplicates=policy)  # type: ignore[arg-type]
    stats = stream_statistics(
        paths, **COLS, duplicates=policy, batch_size=45, memory_limit=memory_limit
    )
    assert any(k.startswith("duplicate") for k in stats.report.reasons)
    assert_same(stats, memory)


def test_stream_within_batch_repeats_far_apart_are_found(tmp_path: Path) -> None:
    # Many items so that a batch's cells are spread out: the marker rounds do the work.
    n = 3000
    frame = pd.DataFrame(
        {"item": np.arange(n) * 7, "rater": np.zeros(n, np.int64), "label": np.ones(n, np.int64)}
    )
    frame = pd.concat([frame, frame.iloc[[5]]], ignore_index=True)  # row 3001 repeats row 6
    frame = frame.iloc[np.r_[0:1000, 3000, 1000:3000]].reset_index(drop=True)
    frame["rater"] = np.tile([0, 1, 2], n // 3 + 1)[: n + 1]
    frame.loc[1000, "rater"] = frame.loc[5, "rater"]
    path = tmp_path / "r.parquet"
    frame.to_parquet(path)
    with pytest.raises(DuplicateRatingError, match=r"\(35, 2\) at row"):
        stream_statistics(path, **COLS, batch_size=100_000)
    memory = accord.Ratings.from_long(frame, **COLS, duplicates="last")
    assert_same(stream_statistics(path, **COLS, duplicates="last"), memory)


def test_stream_duplicates_raise_across_batches(parquet_files: list[Path], tmp_path: Path) -> None:
    frame = pd.concat([pq.read_table(p).to_pandas() for p in parquet_files], ignore_index=True)
    row = frame.dropna().iloc[3]
    repeated = pd.concat([frame, frame.iloc[[row.name]]], ignore_index=True)
    path = tmp_path / "dup.parquet"
    repeated.to_parquet(path)
    expected = rf"\({row['item']!r}, {row['rater']!r}\) at rows {row.name + 1}, {len(frame) + 1}\."
    with pytest.raises(DuplicateRatingError, match=expected):
        stream_statistics(path, **COLS, batch_size=64)
    with pytest.raises(DuplicateRatingError, match=rf"rows {row.name + 1}, {len(frame) + 1}"):
        stream_statistics(path, **COLS, batch_size=64, memory_limit=1_000)


def test_stream_bad_input_messages(parquet_files: list[Path], tmp_path: Path) -> None:
    with pytest.raises(ColumnNotFoundError, match="'score' not found; the columns are: 'item'"):
        stream_statistics(parquet_files, item="item", rater="rater", label="score")
    frame = numeric_frame()
    frame["item"] = frame["item"].astype("Int64")
    frame.loc[4, "item"] = pd.NA
    path = tmp_path / "noid.parquet"
    frame.to_parquet(path)
    with pytest.raises(InvalidInputError, match=r"column 'item': 1 row has no item id \(row 5\)"):
        stream_statistics(path, **COLS)
    with pytest.raises(InvalidInputError, match="duplicates='mean' is not available"):
        stream_statistics(parquet_files, **COLS, duplicates="mean")
    with pytest.raises(InvalidInputError, match="The 'statistics' parameter"):
        stream_statistics(parquet_files, **COLS, statistics=("items", "kappa"))
    with pytest.raises(InvalidInputError, match="missing label"):
        stream_statistics(parquet_files, **COLS, missing="raise")
    with pytest.raises(FileNotFoundError):
        stream_statistics(tmp_path / "nope.parquet", **COLS)


def test_stream_progress_and_partial_statistics(parquet_files: list[Path]) -> None:
    seen: list[tuple[int, int | None]] = []
    stats = stream_statistics(
        parquet_files,
        **COLS,
        batch_size=90,
        statistics=("items",),
        progress=lambda done, total: seen.append((done, total)),
    )
    total = stats.report.rows
    assert seen[-1] == (total, total)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and len(seen) >= 4
    assert stats.rater_counts is None and stats.pair_tables is None
    assert stats.to_dict()["statistics"] == ["items"]


def test_coefficients_from_streamed_counts(
    parquet_files: list[Path], memory: accord.Ratings
) -> None:
    stats = stream_statistics(parquet_files, **COLS, batch_size=31)
    assert stats.item_counts is not None
    for fn in (accord.fleiss_kappa, accord.krippendorff_alpha):
        assert fn(stats.item_counts).statistic == pytest.approx(
            fn(memory).statistic, abs=1e-12, rel=0
        )


def test_ordinal_krippendorff_from_streamed_counts(tmp_path: Path) -> None:
    frame = numeric_frame(seed=4)
    paths = write_parquet(frame, tmp_path, (120,))
    memory = accord.Ratings.from_long(frame, **COLS, level="ordinal")
    stats = stream_statistics(paths, **COLS, level="ordinal", batch_size=50)
    assert stats.item_counts is not None
    a = accord.krippendorff_alpha(stats.item_counts, level="ordinal").statistic
    b = accord.krippendorff_alpha(memory, level="ordinal").statistic
    assert np.isfinite(a) and abs(a - b) <= 1e-12


def test_import_accord_does_not_import_dask() -> None:
    code = "import sys, accord, accord.engines; print('dask' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -------------------------------------------------------------------------- dask


def test_dask_local_cluster_matches_memory(
    frame: pd.DataFrame, memory: accord.Ratings, local_client: Any
) -> None:
    dd = pytest.importorskip("dask.dataframe")
    # Uneven partitions: the late category lands in the last one only.
    ddf = dd.from_pandas(frame, npartitions=1).repartition(divisions=[0, 9, 300, len(frame) - 1])
    stats = dask_statistics(ddf, **COLS)
    assert stats.engine == "dask"
    assert_same(stats, memory)
    fk = accord.fleiss_kappa(stats.item_counts).statistic  # type: ignore[arg-type]
    assert abs(fk - accord.fleiss_kappa(memory).statistic) <= 1e-12


def test_dask_from_paths_matches_memory(
    parquet_files: list[Path], frame: pd.DataFrame, memory: accord.Ratings, tmp_path: Path
) -> None:
    assert_same(dask_statistics(parquet_files, **COLS, scheduler="threads"), memory)
    csv_dir = tmp_path / "csv"
    csv_dir.mkdir()
    paths = write_csv(frame, csv_dir, (150, 151))
    whole = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)
    stats = dask_statistics(str(csv_dir / "*.csv"), **COLS, scheduler="synchronous")
    assert_same(stats, accord.Ratings.from_long(whole, **COLS))


@pytest.mark.parametrize("policy", ["first", "last"])
def test_dask_duplicates_match_memory(frame: pd.DataFrame, policy: str) -> None:
    dd = pytest.importorskip("dask.dataframe")
    extra = frame.dropna().iloc[[0, 1, 2, 0]].copy()
    extra["label"] = ["low", "mid", "high", "mid"]
    doubled = pd.concat([frame, extra], ignore_index=True)
    memory = accord.Ratings.from_long(doubled, **COLS, duplicates=policy)  # type: ignore[arg-type]
    stats = dask_statistics(
        dd.from_pandas(doubled, npartitions=3), **COLS, duplicates=policy, scheduler="sync"
    )
    assert_same(stats, memory)


def test_dask_bad_input_messages(frame: pd.DataFrame) -> None:
    dd = pytest.importorskip("dask.dataframe")
    ddf = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(ColumnNotFoundError, match="'who' not found; the columns are"):
        dask_statistics(ddf, item="item", rater="who", label="label")
    with pytest.raises(InvalidInputError, match="'zzz-late' at row"):
        dask_statistics(ddf, **COLS, categories=["low", "mid", "high"], scheduler="sync")
    doubled = pd.concat([frame, frame.dropna().iloc[[2]]], ignore_index=True)
    with pytest.raises(DuplicateRatingError, match=rf"at rows \d+, {len(frame) + 1}"):
        dask_statistics(dd.from_pandas(doubled, npartitions=3), **COLS, scheduler="sync")
    with pytest.raises(InvalidInputError, match="takes a dask DataFrame"):
        dask_statistics(frame, **COLS)


@pytest.mark.slow
def test_dask_worker_processes_match_memory(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    frame = make_frame(seed=7, n_items=120, n_raters=5)
    paths = write_parquet(frame, tmp_path, (80, 333))
    memory = accord.Ratings.from_long(frame, **COLS)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        stats = dask_statistics(paths, **COLS, scheduler=client)
    assert_same(stats, memory)


# ------------------------------------------------------------------------ duckdb


@pytest.mark.parametrize("batch_size", [17, 10_000])
def test_stream_duckdb_reader_matches_memory(
    parquet_files: list[Path], frame: pd.DataFrame, memory: accord.Ratings, batch_size: int
) -> None:
    pytest.importorskip("duckdb")
    stats = stream_statistics(parquet_files, **COLS, reader="duckdb", batch_size=batch_size)
    assert_same(stats, memory)
    # CSV read by DuckDB as text is typed like the pyarrow reader and pandas type it.
    csv = write_csv(frame, parquet_files[0].parent, (90, 200))
    assert_same(
        stream_statistics(csv, **COLS, reader="duckdb"),
        accord.Ratings.from_long(
            pd.concat([pd.read_csv(p) for p in csv], ignore_index=True), **COLS
        ),
    )


def test_stream_duckdb_relation_matches_memory(
    parquet_files: list[Path], memory: accord.Ratings
) -> None:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    listed = ", ".join(f"'{p}'" for p in parquet_files)
    relation = con.sql(f"SELECT label, rater, item, 1 AS extra FROM read_parquet([{listed}])")
    stats = stream_statistics(relation, **COLS, batch_size=50)
    assert_same(stats, memory)
    # Bucketed passes run the query again.
    assert_same(stream_statistics(relation, **COLS, batch_size=50, memory_limit=1_500), memory)
    with pytest.raises(ColumnNotFoundError, match="labels"):
        stream_statistics(relation, item="item", rater="rater", label="labels")
    with pytest.raises(InvalidInputError, match="'reader' parameter"):
        stream_statistics(parquet_files, **COLS, reader="polars")


def test_agreement_and_consensus_from_duckdb_relation(
    parquet_files: list[Path], memory: accord.Ratings
) -> None:
    duckdb = pytest.importorskip("duckdb")
    listed = ", ".join(f"'{p}'" for p in parquet_files)
    relation = duckdb.connect().sql(f"SELECT * FROM read_parquet([{listed}])")
    got = accord.agreement(relation, engine="stream", **COLS)
    expected = accord.agreement(memory)
    by_name = {c.name: c.statistic for c in expected.coefficients}
    for c in got.coefficients:
        assert c.statistic == pytest.approx(by_name[c.name], rel=1e-12, abs=1e-15), c.name
    result = accord.consensus(relation, engine="stream", **COLS)
    pd.testing.assert_frame_equal(
        result.raters, accord.consensus(memory).raters, rtol=1e-12, atol=1e-12
    )


def test_stream_second_pass_from_files_equals_pass_from_matrix(
    parquet_files: list[Path],
) -> None:
    # Two-pass methods read the code matrix when it fits, else the files again: the same sums.
    from accord.engines.stream import stream_scan

    def per_rater(ctx: int, item: Any, rater: Any, label: Any) -> Any:
        return np.bincount(rater * ctx + label, minlength=7 * ctx)

    def add(a: Any, b: Any) -> Any:
        return a + b

    stats, matrix_pass = stream_scan(parquet_files, **COLS, batch_size=29)
    assert matrix_pass.matrix is not None
    matrix_pass.matrix, file_pass = None, matrix_pass
    _, matrix_pass = stream_scan(parquet_files, **COLS, batch_size=29)
    q = len(stats.categories)
    got = matrix_pass.map_reduce(per_rater, q, add)
    assert np.array_equal(got, file_pass.map_reduce(per_rater, q, add))
    assert stats.rater_counts is not None
    assert np.array_equal(got.reshape(-1, q)[: stats.n_raters], stats.rater_counts.counts)


def test_stream_passes_keep_the_decoded_matrix_within_its_limit(
    parquet_files: list[Path],
) -> None:
    # the first pass over the code matrix keeps its decoded slices for the next (an EM fit
    # passes twice an iteration), read-only, when they fit in the memory limit beside it;
    # the sums are those of a pass over the files either way
    def per_rater(ctx: int, item: Any, rater: Any, label: Any) -> Any:
        return np.bincount(rater * ctx + label, minlength=7 * ctx)

    def add(a: Any, b: Any) -> Any:
        return a + b

    stats, rescan = stream_scan(parquet_files, **COLS, batch_size=29)
    _, by_file = stream_scan(parquet_files, **COLS, batch_size=29)
    by_file.matrix = None
    q = len(stats.categories)
    expect = by_file.map_reduce(per_rater, q, add)
    assert rescan.matrix is not None and rescan.held is None
    first = rescan.map_reduce(per_rater, q, add)
    assert rescan.held is not None and len(rescan.held) >= 1
    assert np.array_equal(first, expect)
    assert np.array_equal(rescan.map_reduce(per_rater, q, add), expect)  # from what it held

    def writes(ctx: Any, item: Any, rater: Any, label: Any) -> Any:
        label[:] = 0
        return None

    with pytest.raises(ValueError, match="read-only"):
        rescan.map_reduce(writes, None, add)
    # a limit the matrix alone fills: nothing more is held, and every pass decodes again
    _, tight = stream_scan(parquet_files, **COLS, batch_size=29)
    assert tight.matrix is not None
    tight.matrix.limit = tight.matrix.nbytes
    assert np.array_equal(tight.map_reduce(per_rater, q, add), expect)
    assert tight.held is None
    assert np.array_equal(tight.map_reduce(per_rater, q, add), expect)


def test_stream_rating_sums_equal_sums_over_the_ratings(parquet_files: list[Path]) -> None:
    # Conger's item terms: per item, the sum of table[rater, label] over its ratings, read
    # column by column from the code matrix, equal a bincount over the ratings themselves.
    from accord.engines.stream import stream_scan

    def per_item(ctx: Any, item: Any, rater: Any, label: Any) -> Any:
        n_items, table = ctx
        return np.bincount(item, weights=table[rater, label], minlength=n_items)

    def add(a: Any, b: Any) -> Any:
        return a + b

    stats, rescan = stream_scan(parquet_files, **COLS, batch_size=29)
    assert rescan.matrix is not None
    q = len(stats.categories)
    table = np.random.default_rng(0).random((stats.n_raters, q))
    got = rescan.rating_sums(table)
    assert got is not None
    expected = rescan.map_reduce(per_item, (got.size, table), add)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    # From the group codes kept when the pairs were counted, and rater by rater without them.
    assert rescan.matrix._codes is not None
    rescan.matrix._codes = None
    by_rater = rescan.rating_sums(table)
    assert by_rater is not None
    np.testing.assert_allclose(by_rater, expected, rtol=1e-12, atol=1e-12)
    rescan.matrix = None  # no matrix: the caller reads the ratings again
    assert rescan.rating_sums(table) is None


def test_pair_counter_equals_pairs_counted_one_by_one() -> None:
    # Pair tables from joint tables of groups of raters equal those counted pair by pair,
    # across slices, for few and many raters and categories (some too many to group).
    from accord.engines._matrix import _count_pairs_one_by_one, _PairCounter

    rng = np.random.default_rng(3)
    for r in (1, 2, 3, 5, 10, 13):
        for q in (1, 2, 5, 15, 40):
            counter = _PairCounter(r, q)
            expected = np.zeros((r, r, (q + 1) ** 2), dtype=np.int64)
            for _ in range(3):
                block = rng.integers(-1, q, (50, r)).astype(np.int8)
                counter.add(block)
                shifted = np.ascontiguousarray((block + 1).T.astype(np.uint16))
                _count_pairs_one_by_one(shifted, q, expected)
            assert np.array_equal(counter.tables(), expected), (r, q)


# ------------------------------------------------------------------ dask progress


def _progress_run(frame: pd.DataFrame, scheduler: Any) -> None:
    dd = pytest.importorskip("dask.dataframe")
    ddf = dd.from_pandas(frame, npartitions=3)
    calls: list[tuple[int, int | None]] = []
    stats = dask_statistics(
        ddf, **COLS, scheduler=scheduler, progress=lambda d, t: calls.append((d, t))
    )
    n = ddf.npartitions
    assert [d for d, _ in calls] == list(range(1, 2 * n + 1))
    assert {t for _, t in calls} == {2 * n}
    assert_same(stats, accord.Ratings.from_long(frame, **COLS))
    # A method that reads the ratings again reports a third pass.
    calls.clear()
    accord.consensus(
        ddf, engine="dask", **COLS, scheduler=scheduler, progress=lambda d, t: calls.append((d, t))
    )
    assert calls[-1] == (3 * n, 3 * n)


@pytest.mark.parametrize("scheduler", ["synchronous", "threads"])
def test_dask_progress_local_schedulers(frame: pd.DataFrame, scheduler: str) -> None:
    _progress_run(frame, scheduler)


def test_dask_progress_with_client(frame: pd.DataFrame, local_client: Any) -> None:
    _progress_run(frame, local_client)


# ---------------------------------------------------- integer ids sorted by item, patterns


def sorted_numeric_frame(seed: int = 4, n_items: int = 400, n_raters: int = 6) -> pd.DataFrame:
    """Integer ids in item order (as exports sorted by item are), int8 labels with nulls,
    label 7 only in the last rows, raters in a shuffled order within each item."""
    rng = np.random.default_rng(seed)
    item = np.repeat(np.arange(5, 5 + n_items, dtype=np.int64), n_raters)
    rater = np.argsort(rng.random((n_items, n_raters)), axis=1).ravel().astype(np.int32)
    label = pd.array(rng.integers(1, 5, item.size), dtype="Int8")
    frame = pd.DataFrame({"item": item, "rater": rater * 3, "label": label})
    frame = frame.iloc[rng.random(len(frame)) > 0.15].reset_index(drop=True)  # unrated cells
    frame.loc[frame.index[-9:], "label"] = 7
    frame.loc[frame.index[2::17], "label"] = pd.NA
    return frame


def assert_patterns_match(stats: RatingStatistics, ratings: accord.Ratings) -> None:
    """The item patterns give back the memory engine's item counts, item by item."""
    patterns = stats.item_patterns
    assert patterns is not None
    expected = ItemCategoryCounts.from_ratings(ratings).dense()
    rows = np.vstack([patterns.rows, np.zeros((1, patterns.rows.shape[1]), np.int64)])
    index = np.where(patterns.item_pattern < 0, len(patterns.rows), patterns.item_pattern)
    assert np.array_equal(rows[index], expected)
    # Distinct rows, none empty, multiplicities that count the rated items.
    assert len(np.unique(patterns.rows, axis=0)) == len(patterns.rows)
    assert (patterns.rows.sum(axis=1) >= 1).all()
    assert patterns.n_rated == int((expected.sum(axis=1) > 0).sum())


@pytest.mark.parametrize("batch_size", [7, 64, 1000, 100_000])
def test_stream_sorted_integer_ids_match_memory(tmp_path: Path, batch_size: int) -> None:
    frame = sorted_numeric_frame()
    path = tmp_path / "r.parquet"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path, row_group_size=300)
    memory = accord.Ratings.from_long(frame, **COLS)
    stats = stream_statistics(
        path, **COLS, batch_size=batch_size, statistics=("items", "raters", "pairs", "patterns")
    )
    assert 7 in stats.categories and stats.report.missing > 0
    assert_same(stats, memory)
    assert_patterns_match(stats, memory)


def test_stream_patterns_alone_give_the_report(tmp_path: Path) -> None:
    frame = sorted_numeric_frame(seed=5)
    path = tmp_path / "r.parquet"
    frame.to_parquet(path)
    memory = accord.Ratings.from_long(frame, **COLS)
    stats = stream_statistics(path, **COLS, statistics=("patterns", "raters"))
    assert stats.item_counts is None and stats.pair_tables is None
    assert_patterns_match(stats, memory)
    assert stats.report == dataclasses.replace(memory.report, source=stats.report.source)


@pytest.mark.parametrize("policy", ["first", "last"])
def test_stream_sorted_repeats_within_and_across_batches(tmp_path: Path, policy: str) -> None:
    # Item-ordered integer input: a repeat inside one batch (found by counting the cells the
    # batch fills) and one across two batches (found by reading the cells before writing).
    frame = sorted_numeric_frame(seed=6, n_items=60, n_raters=4).dropna().reset_index(drop=True)
    within = frame.iloc[[10]].assign(label=np.int8(3))
    across = frame.iloc[[3]].assign(label=np.int8(2))
    doubled = pd.concat(
        [frame.iloc[:12], within, frame.iloc[12:], across], ignore_index=True
    ).astype({"label": "Int8"})
    path = tmp_path / "r.parquet"
    doubled.to_parquet(path)
    with pytest.raises(DuplicateRatingError):
        stream_statistics(path, **COLS, batch_size=40)
    memory = accord.Ratings.from_long(doubled, **COLS, duplicates=policy)  # type: ignore[arg-type]
    stats = stream_statistics(path, **COLS, duplicates=policy, batch_size=40)
    assert stats.report.reasons  # the repeats are reported
    assert_same(stats, memory)


def test_stream_patterns_without_room_for_keys(tmp_path: Path) -> None:
    # 40 categories rated by 8 raters: 9 ** 40 keys do not fit in 64 bits, so the engine
    # counts the item counts per cell and reports them in place of the patterns.
    rng = np.random.default_rng(8)
    frame = pd.DataFrame(
        {
            "item": np.repeat(np.arange(300), 8),
            "rater": np.tile(np.arange(8), 300),
            "label": rng.integers(0, 40, 2400),
        }
    )
    path = tmp_path / "r.parquet"
    frame.to_parquet(path)
    memory = accord.Ratings.from_long(frame, **COLS)
    stats = stream_statistics(path, **COLS, statistics=("patterns", "raters"))
    assert stats.item_patterns is None
    assert stats.item_counts is not None
    assert stats.item_counts.equals(ItemCategoryCounts.from_ratings(memory))


@settings(max_examples=25)
@given(
    n_items=st.integers(1, 40),
    n_raters=st.integers(1, 6),
    q=st.integers(1, 5),
    fill=st.floats(0.2, 1.0),
    shuffle=st.booleans(),
    batch_size=st.integers(1, 50),
    seed=st.integers(0, 2**16),
)
def test_stream_integer_input_property(
    n_items: int,
    n_raters: int,
    q: int,
    fill: float,
    shuffle: bool,
    batch_size: int,
    seed: int,
) -> None:
    # Any integer input, ordered by item or not, in any batch size: the stream engine's
    # codes, counts and patterns are the memory engine's.
    rng = np.random.default_rng(seed)
    item = np.repeat(np.arange(n_items) * 3 + 100, n_raters)
    rater = np.tile(np.arange(n_raters), n_items)
    keep = rng.random(item.size) < fill
    keep[0] = True
    label = pd.array(rng.integers(0, q, item.size), dtype="Int16")
    label[rng.random(item.size) < 0.1] = pd.NA
    label[0] = 0
    frame = pd.DataFrame({"item": item, "rater": rater, "label": label})[keep]
    if shuffle:
        frame = frame.sample(frac=1.0, random_state=seed)
    frame = frame.reset_index(drop=True)
    slice_cells = _matrix.SLICE_CELLS
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.parquet"
        frame.to_parquet(path)
        try:
            # Slices of a few items: statistics counted while the batches come in.
            _matrix.SLICE_CELLS = 3 * max(n_raters, 1)
            stats = stream_statistics(
                path,
                **COLS,
                batch_size=batch_size,
                statistics=("items", "raters", "pairs", "patterns"),
            )
        finally:
            _matrix.SLICE_CELLS = slice_cells
    memory = accord.Ratings.from_long(frame, **COLS)
    assert_same(stats, memory)
    assert_patterns_match(stats, memory)


@pytest.mark.parametrize("memory_limit", [1 << 30, 1_500])
def test_stream_index_label_counts_equal_counts_of_the_ratings(
    parquet_files: list[Path], memory: accord.Ratings, memory_limit: int
) -> None:
    # From the code matrix, and (with a tiny memory limit) from a pass over the files.
    from accord.engines._run import index_label_counts
    from accord.engines.stream import stream_scan

    stats, rescan = stream_scan(parquet_files, **COLS, batch_size=50, memory_limit=memory_limit)
    assert (rescan.matrix is None) == (memory_limit < 10_000)
    rng = np.random.default_rng(0)
    index = rng.integers(-1, 4, stats.n_items)
    got = index_label_counts(rescan, index, 4, n_raters=stats.n_raters, q=stats.n_categories)
    expected = np.zeros((stats.n_raters, 4, stats.n_categories), dtype=np.int64)
    group = index[memory.item_codes]
    ok = group >= 0
    np.add.at(expected, (memory.rater_codes[ok], group[ok], memory.label_codes[ok]), 1)
    assert np.array_equal(got, expected)


def test_dask_index_label_counts_equal_counts_of_the_ratings(
    frame: pd.DataFrame, memory: accord.Ratings
) -> None:
    dd = pytest.importorskip("dask.dataframe")
    from accord.engines._run import index_label_counts
    from accord.engines.dask import dask_scan

    stats, rescan = dask_scan(dd.from_pandas(frame, npartitions=3), **COLS, scheduler="sync")
    index = np.random.default_rng(1).integers(-1, 3, stats.n_items)
    got = index_label_counts(rescan, index, 3, n_raters=stats.n_raters, q=stats.n_categories)
    expected = np.zeros((stats.n_raters, 3, stats.n_categories), dtype=np.int64)
    group = index[memory.item_codes]
    ok = group >= 0
    np.add.at(expected, (memory.rater_codes[ok], group[ok], memory.label_codes[ok]), 1)
    assert np.array_equal(got, expected)


def test_patterns_from_counts_equal_the_stream_engines(tmp_path: Path) -> None:
    # Patterns made from item counts (dense or sparse; the dask engine's route) are those
    # the stream engine counts from its code matrix.
    from scipy import sparse as sp

    from accord.stats.patterns import patterns_from_counts

    frame = sorted_numeric_frame(seed=9)
    path = tmp_path / "r.parquet"
    frame.to_parquet(path)
    stats = stream_statistics(path, **COLS, statistics=("items", "raters", "patterns"))
    assert stats.item_counts is not None and stats.item_patterns is not None
    dense = stats.item_counts.dense()
    for counts in (dense, sp.csr_array(dense)):
        made = patterns_from_counts(counts)
        assert made is not None
        assert np.array_equal(made.item_counts(sparse=False), dense)
        assert (made.item_pattern < 0).sum() == (stats.item_patterns.item_pattern < 0).sum()
        mine = {tuple(r): w for r, w in zip(made.rows, made.weights, strict=True)}
        theirs = {
            tuple(r): w
            for r, w in zip(stats.item_patterns.rows, stats.item_patterns.weights, strict=True)
        }
        assert mine == theirs
    assert patterns_from_counts(np.zeros((0, 3), np.int64)) is None
    assert patterns_from_counts(np.full((2, 40), 500, np.int64)) is None  # keys too wide


@pytest.mark.parametrize("dtype", ["object", "Int8"])
def test_stream_batches_whose_labels_are_all_missing(tmp_path: Path, dtype: str) -> None:
    # A batch of nulls only (text labels: the dictionary path; integers: the lookup table)
    # is counted as missing labels, before and after the first label is seen.
    labels = [None, "a", "b", None, None] if dtype == "object" else [None, 2, 3, None, None]
    frame = pd.DataFrame(
        {"item": [1, 1, 2, 2, 3], "rater": [1, 2, 1, 2, 1], "label": pd.array(labels, dtype=dtype)}
    )
    path = tmp_path / "r.parquet"
    frame.to_parquet(path)
    memory = accord.Ratings.from_long(frame, **COLS)
    for batch_size in (1, 2, 100):
        stats = stream_statistics(path, **COLS, batch_size=batch_size)
        assert stats.report.missing == 3
        assert_same(stats, memory)


@pytest.mark.parametrize("order", ["sorted", "shuffled", "late-rater", "late-label", "repeat"])
def test_stream_statistics_counted_during_the_input_equal_memory(
    tmp_path: Path, order: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With slices of a few items, the statistics of the items behind each batch are counted
    # while batches come in. Input not ordered by item, a rater or label first seen late, or
    # a repeat written below the counted items drop that tally: the numbers never change.
    monkeypatch.setattr(_matrix, "SLICE_CELLS", 24)
    frame = sorted_numeric_frame(seed=11, n_items=200, n_raters=6)
    if order == "shuffled":
        frame = frame.sample(frac=1.0, random_state=1).reset_index(drop=True)
    elif order == "late-rater":
        extra = frame.iloc[[len(frame) - 1]].assign(rater=99)
        frame = pd.concat([frame, extra], ignore_index=True)
    elif order == "late-label":
        frame.loc[frame.index[-1], "label"] = 42
    elif order == "repeat":
        extra = frame.iloc[[3]].assign(label=np.int8(1))
        frame = pd.concat([frame, extra], ignore_index=True)
    frame = frame.astype({"label": "Int8"})
    path = tmp_path / "r.parquet"
    frame.to_parquet(path)
    duplicates = "last" if order == "repeat" else "raise"
    memory = accord.Ratings.from_long(frame, **COLS, duplicates=duplicates)  # type: ignore[arg-type]
    for statistics in (("items", "raters", "pairs", "patterns"), ("patterns", "raters")):
        stats = stream_statistics(
            path, **COLS, batch_size=37, duplicates=duplicates, statistics=statistics
        )
        assert_patterns_match(stats, memory)
        if "items" in statistics:
            assert_same(stats, memory)
        else:
            assert stats.rater_counts is not None
            assert stats.rater_counts.equals(RaterCategoryCounts.from_ratings(memory))


def test_stream_tally_runs_during_the_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The tally does count during the input when it is ordered by item (not only at the end).
    monkeypatch.setattr(_matrix, "SLICE_CELLS", 24)
    seen: list[int] = []
    original = _matrix._Tally.count

    def spy(self: Any, mat: Any, lo: int, hi: int, cells: Any = None) -> None:
        seen.append(hi - lo)
        original(self, mat, lo, hi, cells)

    monkeypatch.setattr(_matrix._Tally, "count", spy)
    frame = sorted_numeric_frame(seed=12, n_items=200, n_raters=6)
    path = tmp_path / "r.parquet"
    frame.to_parquet(path)
    stream_statistics(path, **COLS, batch_size=37, statistics=("patterns", "raters", "pairs"))
    assert len(seen) > 5 and seen[-1] < sum(seen)  # many steps before the final one


@pytest.mark.parametrize(
    "ids",
    [
        np.repeat(np.arange(40, 140), 3),  # one run of consecutive ids, in order
        np.r_[np.repeat(np.arange(0, 50), 3), np.repeat(np.arange(60, 80), 3)],  # a gap
        np.r_[np.repeat(np.arange(0, 50), 3), np.repeat(np.arange(10, 30), 3)],  # back
        np.r_[np.repeat(np.arange(5, 50), 3), np.repeat(np.arange(0, 5), 3)],  # below start
    ],
)
def test_dictionary_run_of_consecutive_ids(ids: np.ndarray) -> None:
    # Consecutive ids in order are coded without a table; a gap, a step back or an id below
    # the first leaves that mode for the lookup table with the same codes.
    from accord.data.dictionary import GrowingDictionary

    expected, uniques = pd.factorize(ids)
    for batch in (1, 7, 64, 1000):
        d = GrowingDictionary(track_rows=True)
        codes = np.concatenate(
            [
                d.encode(pa.array(ids[lo : lo + batch]), lo, wide=False)
                for lo in range(0, ids.size, batch)
            ]
        )
        assert np.array_equal(codes, expected)
        assert np.array_equal(d.values(), uniques)
        first = [int(np.argmax(ids == u)) for u in uniques]
        assert d.first_rows().tolist() == first


def test_dictionary_run_then_nulls() -> None:
    # A run of consecutive values, then a batch with nulls: the table takes over.
    from accord.data.dictionary import GrowingDictionary

    d = GrowingDictionary(track_rows=True)
    first = d.encode(pa.array([1, 1, 2, 3], type=pa.int8()), 0, wide=False)
    second = d.encode(pa.array([None, 4, 2, None], type=pa.int8()), 4, wide=False)
    assert first.tolist() == [0, 0, 1, 2] and second.tolist() == [-1, 3, 1, -1]
    assert d.values().tolist() == [1, 2, 3, 4] and d.first_rows().tolist() == [0, 2, 3, 5]
    assert d.nulls is not None and d.nulls.tolist() == [0, 3]


def test_engines_run_without_huge_page_advice(parquet_files: list[Path]) -> None:
    # numpy's huge-page advice is off while an engine runs (nested and repeated runs
    # restore it once) and back as it was after; the memory engine leaves it alone.
    from accord.engines import _pages

    setter = _pages._setter()
    if setter is None:
        pytest.skip("this numpy has no huge-page setting")
    seen: list[bool] = []

    def probe(ctx: Any, item: Any, rater: Any, label: Any) -> int:
        now = setter(False)  # reading the setting means setting it: put it back
        setter(now)
        seen.append(now)
        return 0

    before = setter(True)
    switch = _pages.use_small_pages()
    try:
        with _pages.small_pages():
            with _pages.small_pages():
                assert setter(False) is False
            assert setter(False) is False  # still off after the inner exit
        assert setter(True) is True  # restored after the outer exit
        from accord.engines.stream import stream_scan

        with _pages.small_pages():
            _, rescan = stream_scan(parquet_files, **COLS)
            rescan.matrix = None  # read the files again: the probe runs per batch
            rescan.map_reduce(probe, None, lambda a, b: a)
        assert seen and not any(seen)
        table = accord.agreement(parquet_files, engine="stream", **COLS)
        assert table.coefficients
        assert setter(True) is True  # restored after agreement(engine="stream")
    finally:
        _pages.use_small_pages(switch)
        setter(before)


def test_huge_page_advice_is_left_alone_by_default(parquet_files: list[Path]) -> None:
    # The advice is a process-wide numpy setting: the engines change it only when asked.
    from accord.engines import _pages

    setter = _pages._setter()
    if setter is None:
        pytest.skip("this numpy has no huge-page setting")
    seen: list[bool] = []

    def probe(ctx: Any, item: Any, rater: Any, label: Any) -> int:
        now = setter(True)  # reading the setting means setting it: put it back
        setter(now)
        seen.append(now)
        return 0

    before = setter(True)
    switch = _pages.use_small_pages(False)
    try:
        with _pages.small_pages():
            assert setter(True) is True  # untouched
        from accord.engines.stream import stream_scan

        _, rescan = stream_scan(parquet_files, **COLS)
        rescan.matrix = None
        rescan.map_reduce(probe, None, lambda a, b: a)
        assert seen and all(seen)
        assert accord.stream_statistics(parquet_files, **COLS).n_ratings > 0
        assert setter(True) is True
    finally:
        _pages.use_small_pages(switch)
        setter(before)


@pytest.mark.parametrize(
    ("body", "fault"),
    [
        ("1,a,x\n1,b,y\n2,a,x,extra\n2,b,y\n", "line 4: an extra field"),
        ("1,a,x\n1,b\n2,a,x\n", "line 3: "),
    ],
)
def test_a_ragged_csv_is_the_same_one_line_error_in_every_engine(
    tmp_path: Path, body: str, fault: str
) -> None:
    # A row with more or fewer fields than the header is never dropped silently: the memory,
    # stream and dask engines read CSV with one reader and give one message naming the line.
    path = tmp_path / "ragged.csv"
    path.write_text("item,rater,label\n" + body)
    messages = []
    for read in (
        lambda: accord.read_ratings(path, **COLS),
        lambda: stream_statistics(path, **COLS),
        lambda: dask_statistics(path, **COLS, scheduler="synchronous"),
    ):
        with pytest.raises(accord.AccordError) as info:
            read()
        messages.append(str(info.value))
    assert len(set(messages)) == 1, messages
    assert fault in messages[0] and "\n" not in messages[0]


def test_dask_and_stream_read_csv_as_the_memory_engine(tmp_path: Path) -> None:
    # Semicolon-separated, gzip-compressed, with a byte-order mark: the dask engine reads it
    # as the memory engine does (same codes, same counts).
    import gzip

    text = "\ufeffitem;rater;label\n1;a;x\n1;b;y\n2;a;x\n2;b;x\n3;a;\n3;b;y\n"
    path = tmp_path / "r.csv.gz"
    path.write_bytes(gzip.compress(text.encode("utf-8")))
    memory = accord.read_ratings(path, **COLS, sep=";")
    expected = ItemCategoryCounts.from_ratings(memory).dense()
    for stats in (
        dask_statistics(path, **COLS, sep=";", scheduler="synchronous"),
        stream_statistics(path, **COLS, sep=";"),
    ):
        assert stats.categories == memory.categories == ("x", "y")
        assert stats.items.tolist() == memory.items.tolist()
        assert stats.report.missing == 1 and stats.n_ratings == 5
        assert stats.item_counts is not None
        assert np.array_equal(stats.item_counts.dense(), expected)


def test_rescans_declare_their_second_passes(
    frame: pd.DataFrame, parquet_files: list[Path]
) -> None:
    # The stream engine's code matrix answers both optional second passes; without it (and
    # with dask) none is declared and each returns None, so the caller runs map_reduce.
    from accord.engines._mapreduce import CAPABILITIES
    from accord.engines.dask import dask_scan
    from accord.engines.stream import stream_scan

    stats, rescan = stream_scan(parquet_files, **COLS)
    assert rescan.capabilities == frozenset(CAPABILITIES)
    table = np.arange(stats.n_raters * stats.n_categories, dtype=np.float64)
    table = table.reshape(stats.n_raters, stats.n_categories)
    sums = rescan.rating_sums(table)
    assert sums is not None
    # The same sums from the ratings, by hand: table[rater, label] summed per item.
    ratings = accord.Ratings.from_long(frame, **COLS)
    expected = np.bincount(
        ratings.item_codes,
        weights=table[ratings.rater_codes, ratings.label_codes],
        minlength=stats.n_items,
    )
    np.testing.assert_allclose(sums, expected, rtol=0, atol=1e-9)
    rescan.matrix = None
    assert rescan.capabilities == frozenset()
    assert rescan.rating_sums(table) is None
    assert rescan.index_label_counts(np.zeros(stats.n_items, np.int64), 1) is None
    _, dask_rescan = dask_scan(parquet_files, **COLS, scheduler="synchronous")
    assert dask_rescan.capabilities == frozenset()
    assert dask_rescan.rating_sums(table) is None


def test_every_engine_reads_a_latin1_csv_with_encoding(tmp_path: Path) -> None:
    # A spreadsheet export in Latin-1: without encoding= every engine names the byte it
    # cannot decode (one message); with encoding="latin-1" all three read the same labels.
    path = tmp_path / "latin.csv"
    path.write_bytes("item,rater,label\n1,a,café\n1,b,thé\n2,a,thé\n2,b,thé\n".encode("latin-1"))
    messages = []
    for read in (
        lambda: accord.read_ratings(path, **COLS),
        lambda: stream_statistics(path, **COLS),
        lambda: dask_statistics(path, **COLS, scheduler="synchronous"),
    ):
        with pytest.raises(accord.AccordError) as info:
            read()
        messages.append(str(info.value))
    assert len(set(messages)) == 1 and "offset" in messages[0], messages
    memory = accord.read_ratings(path, **COLS, encoding="latin-1")
    assert memory.categories == ("café", "thé")
    expected = ItemCategoryCounts.from_ratings(memory).dense()  # [[1, 1], [0, 2]]
    assert expected.tolist() == [[1, 1], [0, 2]]
    for stats in (
        stream_statistics(path, **COLS, encoding="latin-1"),
        dask_statistics(path, **COLS, encoding="latin-1", scheduler="synchronous"),
    ):
        assert stats.categories == memory.categories
        assert stats.item_counts is not None
        assert np.array_equal(stats.item_counts.dense(), expected)
