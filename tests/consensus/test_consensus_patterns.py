"""accord.consensus with the stream and dask engines, computed by count pattern.

The engines score each distinct item count row (pattern) once and sum the raters' figures
from the ratings counted by (rater, pattern, label); every table must equal the memory
engine's on the same ratings (integers exactly, floats to 1e-12: sums in another order).
Covered: the engine's own patterns, patterns derived from the item counts (dask; many
categories, where the engine forms none; the stream engine without its code matrix), the
per-rating fallback when the (rater, group, label) table would be large, sparse item
counts, and a hash collision.
"""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import accord
from accord.consensus import _cells, _items, _scores, _statistics, consensus_from_ratings
from accord.engines import _blocks
from accord.front import consensus as front_consensus
from accord.stats.patterns import count_patterns

COLS = {"item": "item", "rater": "rater", "label": "label"}


@st.composite
def panels(draw: st.DrawFn) -> tuple[pd.DataFrame, dict[str, float]]:
    """Ratings of up to 10 items by up to 5 raters in up to 4 numeric categories: a cell is
    not rated, rated, or given without a label (some items end with no label at all, some
    with one rating); and gold labels for some items."""
    n_items = draw(st.integers(1, 10))
    n_raters = draw(st.integers(1, 5))
    q = draw(st.integers(1, 4))
    cells = draw(
        st.lists(
            st.one_of(st.none(), st.just(-1), st.integers(1, q)),
            min_size=n_items * n_raters,
            max_size=n_items * n_raters,
        )
    )
    rows: list[tuple[str, str, float | None]] = []
    for i, j in itertools.product(range(n_items), range(n_raters)):
        cell = cells[i * n_raters + j]
        if cell is not None:
            rows.append((f"it{i}", f"r{j}", None if cell == -1 else float(cell)))
    if not rows:
        rows = [("it0", "r0", 1.0)]
    if not any(lab is not None for _, _, lab in rows):
        rows = [(it, rt, 1.0) if k == 0 else (it, rt, lab) for k, (it, rt, lab) in enumerate(rows)]
    if len(rows) > 1 and rows[0][2] is None:
        # A labelled row first, so that no file starts with a batch of missing labels only.
        first = next(k for k, row in enumerate(rows) if row[2] is not None)
        rows.insert(0, rows.pop(first))
    frame = pd.DataFrame(rows, columns=["item", "rater", "label"])
    frame["label"] = frame["label"].astype("Float64")
    labels = sorted(frame["label"].dropna().unique().tolist())
    items = frame["item"].unique().tolist()
    gold_of = draw(st.lists(st.one_of(st.none(), st.sampled_from(labels)), min_size=len(items)))
    gold = {it: g for it, g in zip(items, gold_of, strict=False) if g is not None}
    if not gold:
        gold = {items[0]: labels[0]}
    return frame, gold


def write(frame: pd.DataFrame, folder: Path, parts: int = 2) -> list[Path]:
    bounds = np.linspace(0, len(frame), parts + 1).round().astype(int)
    paths = []
    for k, (lo, hi) in enumerate(itertools.pairwise(bounds)):
        path = folder / f"part-{k}.parquet"
        frame.iloc[lo:hi].to_parquet(path)
        paths.append(path)
    return paths


def assert_same(got: accord.Consensus, expected: accord.Consensus) -> None:
    pd.testing.assert_frame_equal(got.items, expected.items, rtol=1e-12, atol=1e-12)
    pd.testing.assert_frame_equal(got.raters, expected.raters, rtol=1e-12, atol=1e-12)
    assert got.counts.equals(expected.counts)
    assert got.counts.is_sparse == expected.counts.is_sparse
    a, b = got.summary.to_dict(), expected.summary.to_dict()
    for key, value in b.items():
        if isinstance(value, dict | float):
            assert a[key] == pytest.approx(value, rel=1e-12, abs=1e-12, nan_ok=True), key
        else:
            assert a[key] == value, key
    assert len(got.ratings) == 0


@given(
    panels(),
    st.sampled_from(["all", "others"]),
    st.booleans(),
    st.booleans(),
    st.sampled_from([2.0, 10.0]),
)
def test_stream_equals_memory(
    panel: tuple[pd.DataFrame, dict[str, float]],
    reference: str,
    ordinal: bool,
    with_gold: bool,
    base: float,
) -> None:
    frame, gold = panel
    level = "ordinal" if ordinal else "nominal"
    opts: dict[str, Any] = dict(
        reference=reference, ordinal=ordinal, base=base, gold=gold if with_gold else None
    )
    ratings = accord.Ratings.from_long(frame, **COLS, level=level)  # type: ignore[arg-type]
    expected = accord.consensus(ratings, **opts)
    with tempfile.TemporaryDirectory() as folder:
        # One file read in one batch: a batch of missing labels only is another matter.
        files = write(frame, Path(folder), parts=1)
        got = accord.consensus(files, engine="stream", **COLS, level=level, **opts)
    assert_same(got, expected)


@given(
    panels(),
    st.sampled_from(["all", "others"]),
    st.sampled_from(["omit", "category"]),
    st.booleans(),
    st.booleans(),
)
def test_without_rows_every_other_table_is_the_same(
    panel: tuple[pd.DataFrame, dict[str, float]],
    reference: str,
    missing: str,
    ordinal: bool,
    with_gold: bool,
) -> None:
    """``rows=False`` (what the report asks for) builds no per-rating table and changes no
    other: items, raters, counts and summary equal those with the table."""
    frame, gold = panel
    ordinal = ordinal and missing == "omit"  # ordinal scores refuse a missing category
    level = "ordinal" if ordinal else "nominal"
    ratings = accord.Ratings.from_long(frame, **COLS, level=level)  # type: ignore[arg-type]
    opts: dict[str, Any] = dict(
        reference=reference, missing=missing, ordinal=ordinal, gold=gold if with_gold else None
    )
    whole = consensus_from_ratings(ratings, **opts)
    got = consensus_from_ratings(ratings, rows=False, **opts)
    assert len(whole.ratings) == ratings.n_ratings + (whole.summary.n_missing_as_category)
    assert_same(got, whole)
    assert list(got.ratings.columns) == list(whole.ratings.columns)[:7]
    assert got.method == whole.method


def test_rows_must_be_a_bool() -> None:
    ratings = accord.Ratings.from_wide([list("AAB")])
    with pytest.raises(accord.InvalidInputError, match=r"'rows' parameter .* Got 'no'"):
        consensus_from_ratings(ratings, rows="no")  # type: ignore[arg-type]


def many_categories(seed: int = 5, n_items: int = 120, n_raters: int = 8) -> pd.DataFrame:
    """40 categories, 8 raters: the count rows do not fit the engine's 64-bit keys."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        centre = int(rng.integers(1, 41))
        for j in range(n_raters):
            if rng.random() < 0.2:
                continue
            lab = float(np.clip(centre + rng.integers(-2, 3), 1, 40))
            rows.append((f"it{i:03d}", f"r{j}", lab))
    rows.append(("it999", "r0", None))  # an item without a label
    frame = pd.DataFrame(rows, columns=["item", "rater", "label"])
    frame["label"] = frame["label"].astype("Float64")
    return frame


def five_categories() -> pd.DataFrame:
    """As :func:`many_categories`, 60 items, the labels folded into 5 categories."""
    frame = many_categories(n_items=60)
    frame["label"] = (frame["label"] % 5 + 1).astype("Float64")
    return frame


@pytest.fixture(scope="module")
def wide_frame() -> pd.DataFrame:
    frame = many_categories()
    assert frame["label"].nunique() == 40  # every category used
    return frame


@pytest.fixture(scope="module")
def wide_files(wide_frame: pd.DataFrame, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return write(wide_frame, tmp_path_factory.mktemp("wide"), parts=3)


def wide_gold(frame: pd.DataFrame) -> dict[str, float]:
    items = frame["item"].unique().tolist()
    labels = sorted(frame["label"].dropna().unique().tolist())
    return {it: labels[k % len(labels)] for k, it in enumerate(items) if k % 3 == 0}


@pytest.mark.parametrize("reference", ["all", "others"])
@pytest.mark.parametrize("per_rating", [False, True])
@pytest.mark.parametrize("looked_up", [True, False])
def test_many_categories_without_engine_patterns(
    wide_frame: pd.DataFrame,
    wide_files: list[Path],
    monkeypatch: pytest.MonkeyPatch,
    reference: str,
    per_rating: bool,
    looked_up: bool,
) -> None:
    stats = accord.stream_statistics(wide_files, **COLS, statistics=("patterns", "raters"))
    assert stats.item_patterns is None and stats.item_counts is not None  # none formed
    if per_rating:  # the (rater, group, label) table counts as too large: rating by rating
        monkeypatch.setattr(_statistics, "GROUP_CELLS", 0)
        monkeypatch.setattr(_statistics, "RATINGS_PER_CALL", 17)
    if not looked_up:  # each entry's (pattern, label) cell scored where it is read
        monkeypatch.setattr(_statistics, "TABLE_SLOTS", 0)
    opts: dict[str, Any] = dict(reference=reference, ordinal=True, gold=wide_gold(wide_frame))
    ratings = accord.Ratings.from_long(wide_frame, **COLS, level="ordinal")
    expected = accord.consensus(ratings, **opts)
    got = accord.consensus(wide_files, engine="stream", **COLS, level="ordinal", **opts)
    assert_same(got, expected)


def test_dask_derives_the_patterns(wide_frame: pd.DataFrame, wide_files: list[Path]) -> None:
    pytest.importorskip("dask.dataframe")
    opts: dict[str, Any] = dict(reference="others", ordinal=True, gold=wide_gold(wide_frame))
    expected = accord.consensus(
        accord.Ratings.from_long(wide_frame, **COLS, level="ordinal"), **opts
    )
    got = accord.consensus(
        wide_files, engine="dask", **COLS, level="ordinal", scheduler="synchronous", **opts
    )
    assert_same(got, expected)


def test_hash_collision_falls_back_to_one_pattern_per_item(
    wide_frame: pd.DataFrame, wide_files: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    checks: list[int] = []

    def collision(counts: Any, rows: Any, inverse: Any) -> bool:
        checks.append(counts.shape[0])
        return False

    from accord.stats import patterns as _patterns

    monkeypatch.setattr(_patterns, "rows_match", collision)
    opts: dict[str, Any] = dict(gold=wide_gold(wide_frame))
    expected = accord.consensus(accord.Ratings.from_long(wide_frame, **COLS), **opts)
    got = accord.consensus(wide_files, engine="stream", **COLS, **opts)
    # the hashed rows were checked, by the memory engine and by the stream engine
    assert checks == [expected.summary.n_items] * 2
    assert_same(got, expected)


@pytest.mark.parametrize("wide", [False, True])
def test_sparse_item_counts(
    wide: bool, wide_frame: pd.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Counts past the dense limit are sparse in both engines (no count columns); the
    # patterns come from the engine (5 categories) or from the sparse counts (40).
    frame = wide_frame if wide else five_categories()
    files = write(frame, tmp_path)
    for module in (_cells, _scores, _statistics, _blocks):
        monkeypatch.setattr(module, "SPARSE_CELLS", 0)
    opts: dict[str, Any] = dict(reference="others", gold=wide_gold(frame))
    expected = accord.consensus(accord.Ratings.from_long(frame, **COLS), **opts)
    got = accord.consensus(files, engine="stream", **COLS, **opts)
    assert expected.counts.is_sparse
    assert not any(c.startswith("count_") for c in got.items.columns)
    assert_same(got, expected)


def test_stream_without_code_matrix(
    wide_frame: pd.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # When the code matrix does not fit, the stream engine counts the items in bucketed
    # passes (no patterns) and the (rater, group, label) table comes from the files again.
    from accord.engines import stream

    frame = five_categories()
    files = write(frame, tmp_path, parts=3)
    scans: list[Any] = []

    def small_scan(data: Any, engine: str, **kwargs: Any) -> Any:
        kwargs.pop("owner")
        kwargs.pop("scheduler")
        statistics = kwargs.pop("plan").statistics  # the front door's plan, by name
        stats, rescan = stream.stream_scan(data, **kwargs, statistics=statistics, memory_limit=64)
        scans.append((stats, rescan))
        return stats, rescan

    monkeypatch.setattr(front_consensus, "scan_ratings", small_scan)
    opts: dict[str, Any] = dict(reference="all", ordinal=True, gold=wide_gold(frame))
    expected = accord.consensus(accord.Ratings.from_long(frame, **COLS, level="ordinal"), **opts)
    got = accord.consensus(files, engine="stream", **COLS, level="ordinal", batch_size=23, **opts)
    ((stats, rescan),) = scans
    assert rescan.matrix is None and stats.item_patterns is None
    assert_same(got, expected)


# ------------------------------------------------------------------ the pieces


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("q", [3, 40])
def test_patterns_from_counts(sparse: bool, q: int) -> None:
    from scipy import sparse as sp

    rng = np.random.default_rng(q)
    base = rng.integers(0, 3, (7, q))
    dense = base[rng.integers(0, 7, 500)]
    dense[::50] = 0  # items without a rating
    counts: Any = sp.csr_array(dense) if sparse else dense
    got = count_patterns(counts)
    rows = got.counts.toarray() if sparse else got.counts
    assert np.array_equal(rows[got.item_pattern], dense)
    assert len({tuple(r) for r in rows.tolist()}) == rows.shape[0] <= 8
    assert np.array_equal(got.weights, np.bincount(got.item_pattern, minlength=rows.shape[0]))


def test_pattern_ranks_equal_pandas_rank() -> None:
    rng = np.random.default_rng(0)
    entropy = np.r_[rng.choice([0.0, 0.5, 1.0, 1.5, np.nan], 30), np.nan]
    weights = rng.integers(0, 4, 30)
    rank, missing = _items.pattern_ranks(entropy, weights)
    per_item = np.repeat(np.arange(30), weights)
    expected = pd.Series(entropy[per_item]).rank(method="min", ascending=False)
    got = pd.Series(np.where(missing[per_item], np.nan, rank[per_item]))
    pd.testing.assert_series_equal(got, expected, check_dtype=False)


def test_stream_item_counts_shared_with_the_items_table(tmp_path: Path) -> None:
    # The result's item counts are the items table's count columns (one array, read-only):
    # changing the table leaves the counts as they were.
    frame = pd.DataFrame(
        {
            "item": ["a", "a", "b", "b", "c"],
            "rater": ["x", "y", "x", "y", "x"],
            "label": [1, 2, 2, 2, 1],
        }
    )
    path = tmp_path / "r.parquet"
    frame.to_parquet(path)
    got = accord.consensus(path, engine="stream", **COLS)
    expected = accord.consensus(accord.Ratings.from_long(frame, **COLS))
    assert got.counts.equals(expected.counts)
    column = next(c for c in got.items.columns if str(c).startswith("count_"))
    got.items[column] = got.items[column] + 10
    assert got.counts.equals(expected.counts)
    assert got.items[column].tolist() == [x + 10 for x in expected.items[column].tolist()]
