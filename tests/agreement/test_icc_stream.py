"""The ICC on every engine: the scored cells merge, and ``agreement(path, engine=...)`` gives
the memory engine's six forms at interval level.

The reference is the memory engine's :func:`accord.icc`, itself checked against Shrout &
Fleiss (1979) Table 2, pingouin and statsmodels MixedLM in test_icc.py and test_icc_reml.py;
the complete design below is checked against the published values directly. The cells are
sorted by (item, rater) before the fit, so every engine fits the same arrays and the numbers
agree to the last bit.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import accord
from accord.agreement import icc_from_statistics
from accord.stats import ScoreCells

COLS = {"item": "item", "rater": "rater", "label": "score"}

#: Shrout & Fleiss (1979), 6 targets x 4 judges, and their Table 2 ICCs (two decimals), in
#: the order ICC(1,1), ICC(2,1), ICC(3,1), ICC(1,k), ICC(2,k), ICC(3,k).
SHROUT_FLEISS = [
    [9, 2, 5, 8],
    [6, 1, 3, 2],
    [8, 4, 6, 8],
    [7, 1, 2, 6],
    [10, 5, 6, 9],
    [6, 2, 4, 7],
]
PUBLISHED = [0.17, 0.29, 0.71, 0.44, 0.62, 0.91]


def long_frame(scores: list[list[float | None]], seed: int) -> pd.DataFrame:
    """One row per (item, rater) with text ids, rows shuffled; None is a missing score."""
    rows = [
        (f"target {i}", f"judge-{'abcdefgh'[j]}", v)
        for i, row in enumerate(scores)
        for j, v in enumerate(row)
    ]
    frame = pd.DataFrame(rows, columns=["item", "rater", "score"])
    frame["score"] = frame["score"].astype("Float64")
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def icc_rows(table: accord.AgreementTable) -> list[tuple[str, float, float, float]]:
    """(form, statistic, 95% interval) of the table's ICC rows."""
    out = []
    for c in table.coefficients:
        if c.name == "icc":
            low, high = c.confidence_interval(0.95)
            out.append((str(c.weights), c.statistic, low, high))
    return out


def same(
    a: list[tuple[str, float, float, float]], b: list[tuple[str, float, float, float]]
) -> None:
    assert [r[0] for r in a] == [r[0] for r in b]
    for x, y in zip(a, b, strict=True):
        for u, v in zip(x[1:], y[1:], strict=True):
            assert (math.isnan(u) and math.isnan(v)) or u == pytest.approx(v, rel=1e-12, abs=1e-12)


def random_scores(seed: int, n_items: int, n_raters: int, fill: float) -> list[list[Any]]:
    rng = np.random.default_rng(seed)
    out: list[list[Any]] = []
    for _ in range(n_items):
        level = float(rng.normal(0, 2))
        row = [
            round(level + j * 0.3 + float(rng.normal()), 3) if rng.random() < fill else None
            for j in range(n_raters)
        ]
        out.append(row)
    return out


def write(frame: pd.DataFrame, folder: Path, fmt: str, parts: int = 3) -> list[Path]:
    """The frame in ``parts`` uneven files (an item's rows fall in several files)."""
    cuts = np.linspace(0, len(frame), parts + 1).astype(int)
    cuts[1] = max(1, cuts[1] // 2)
    paths = []
    for k in range(parts):
        path = folder / f"part{k}.{fmt}"
        piece = frame.iloc[cuts[k] : cuts[k + 1]]
        if fmt == "csv":
            piece.to_csv(path, index=False)
        else:
            piece.to_parquet(path)
        paths.append(path)
    return paths


# ------------------------------------------------------------------ the statistic


@st.composite
def cells_and_split(draw: st.DrawFn) -> tuple[ScoreCells, list[ScoreCells]]:
    n_items = draw(st.integers(2, 12))
    n_raters = draw(st.integers(2, 5))
    mask = draw(st.lists(st.booleans(), min_size=n_items * n_raters, max_size=n_items * n_raters))
    flat = np.flatnonzero(mask)
    items, raters = np.divmod(flat, n_raters)
    values = draw(
        st.lists(
            st.floats(-50, 50, allow_nan=False, width=32), min_size=flat.size, max_size=flat.size
        )
    )
    scores = np.asarray(values, dtype=np.float64)
    order = np.asarray(draw(st.permutations(list(range(flat.size)))), dtype=np.int64)
    n_parts = draw(st.integers(1, 5))
    part_of = np.asarray(
        draw(st.lists(st.integers(0, n_parts - 1), min_size=flat.size, max_size=flat.size)),
        dtype=np.int64,
    )
    whole = ScoreCells.from_codes(items, raters, scores, n_items=n_items, n_raters=n_raters)
    parts = [
        ScoreCells.from_codes(
            items[order][part_of == k],
            raters[order][part_of == k],
            scores[order][part_of == k],
            n_items=n_items,
            n_raters=n_raters,
        )
        for k in range(n_parts)
    ]
    return whole, parts


def same_cells(a: ScoreCells, b: ScoreCells) -> None:
    assert (a.n_items, a.n_raters, a.n_scores) == (b.n_items, b.n_raters, b.n_scores)
    for x, y in zip(a.cells(), b.cells(), strict=True):
        np.testing.assert_array_equal(x, y)


@settings(max_examples=60, deadline=None)
@given(cells_and_split())
def test_merge_of_a_random_split_equals_the_whole(
    case: tuple[ScoreCells, list[ScoreCells]],
) -> None:
    whole, parts = case
    in_order = parts[0]
    for p in parts[1:]:
        in_order = in_order.merge(p)
    same_cells(in_order, whole)
    reverse = parts[-1]
    for p in parts[-2::-1]:
        reverse = reverse.merge(p)
    same_cells(reverse, whole)  # commutative: the cells are sorted by (item, rater)
    if len(parts) >= 3:  # associative
        same_cells(
            parts[0].merge(parts[1]).merge(parts[2]), parts[0].merge(parts[1].merge(parts[2]))
        )


def test_icc_of_merged_halves_split_inside_items_is_the_published_one() -> None:
    # Shrout & Fleiss (1979) Table 2; each half holds part of items 2 and 4
    scores = np.array(SHROUT_FLEISS, dtype=float)
    items, raters = np.divmod(np.arange(24), 4)
    rng = np.random.default_rng(0)
    order = rng.permutation(24)
    halves = [
        ScoreCells.from_codes(items[s], raters[s], scores.ravel()[s])
        for s in (order[:10], order[10:])
    ]
    res = icc_from_statistics(halves[1].merge(halves[0]))
    assert res.method == "anova"
    assert [round(f.statistic, 2) for f in res.forms] == PUBLISHED
    whole = accord.icc(scores)
    for a, b in zip(res.forms, whole.forms, strict=True):
        assert a.statistic == b.statistic
        assert a.confidence_interval(0.95) == b.confidence_interval(0.95)


def test_from_ratings_and_the_array_path_agree_on_incomplete_data() -> None:
    # the REML forms of icc(array) (cells read off the array) and of icc(Ratings) (cells
    # of the ratings, rows shuffled and ids as text: other codes, so sums in another order)
    # agree to the optimiser's tolerance
    scores = random_scores(4, 15, 4, 0.7)
    frame = long_frame(scores, seed=1).dropna()
    ratings = accord.Ratings.from_long(frame, **COLS, level="interval")
    from_ratings = accord.icc(ratings)
    from_array = accord.icc(np.array(scores, dtype=float))
    assert from_ratings.method == from_array.method == "reml"
    for a, b in zip(from_ratings.forms, from_array.forms, strict=True):
        assert a.statistic == pytest.approx(b.statistic, abs=1e-6)


# ------------------------------------------------------------------ the engines


def test_stream_and_dask_give_the_published_anova_forms(tmp_path: Path) -> None:
    frame = long_frame(SHROUT_FLEISS, seed=3)  # type: ignore[arg-type]
    files = write(frame, tmp_path, "csv")
    memory = accord.agreement(
        accord.Ratings.from_long(frame, **COLS, level="interval"), coefficients=["icc"]
    )
    expected = icc_rows(memory)
    assert [round(r[1], 2) for r in expected] == PUBLISHED
    for engine, extra in (("stream", {"batch_size": 5}), ("dask", {"scheduler": "threads"})):
        table = accord.agreement(
            files, engine=engine, **COLS, level="interval", coefficients=["icc"], **extra
        )
        same(icc_rows(table), expected)


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    seed=st.integers(0, 10_000),
    batch_size=st.integers(1, 40),
    fill=st.sampled_from([0.5, 0.8, 1.0]),
    fmt=st.sampled_from(["csv", "parquet"]),
)
def test_stream_matches_memory_on_shuffled_incomplete_files(
    tmp_path_factory: pytest.TempPathFactory, seed: int, batch_size: int, fill: float, fmt: str
) -> None:
    scores = random_scores(seed, 12, 4, fill)
    frame = long_frame(scores, seed)
    files = write(frame, tmp_path_factory.mktemp("icc"), fmt)
    ratings = accord.Ratings.from_long(frame, **COLS, level="interval")
    expected = accord.agreement(ratings)
    got = accord.agreement(files, engine="stream", **COLS, level="interval", batch_size=batch_size)
    same(icc_rows(got), icc_rows(expected))
    assert len(icc_rows(got)) == 6


def test_dask_matches_memory_with_missing_scores(tmp_path: Path) -> None:
    scores = random_scores(11, 30, 5, 0.6)
    scores[3][1] = None
    frame = long_frame(scores, seed=5)  # missing scores stay as rows without a score
    files = write(frame, tmp_path, "parquet", parts=4)
    ratings = accord.Ratings.from_long(frame, **COLS, level="interval")
    expected = icc_rows(accord.agreement(ratings))
    assert accord.icc(ratings).method == "reml"
    dask_table = accord.agreement(files, engine="dask", **COLS, level="interval")
    stream_table = accord.agreement(files, engine="stream", **COLS, level="interval", batch_size=7)
    same(icc_rows(dask_table), expected)
    same(icc_rows(stream_table), expected)
    assert dask_table.report is not None and dask_table.report.missing > 0


def test_engines_leave_the_icc_out_below_interval_level(tmp_path: Path) -> None:
    frame = long_frame(random_scores(2, 10, 3, 1.0), seed=2)
    frame["score"] = frame["score"].round().astype("Int64")
    files = write(frame, tmp_path, "csv")
    table = accord.agreement(files, engine="stream", **COLS, level="ordinal")
    memory = accord.agreement(accord.Ratings.from_long(frame, **COLS, level="ordinal"))
    assert icc_rows(table) == icc_rows(memory) == []


def test_an_item_without_any_score_counts_alike_on_every_engine(tmp_path: Path) -> None:
    # the item is in the input (rows without a score), so no engine sees a complete design
    scores: list[list[Any]] = [list(r) for r in SHROUT_FLEISS] + [[None] * 4]
    frame = long_frame(scores, seed=0)
    files = write(frame, tmp_path, "csv")
    ratings = accord.Ratings.from_long(frame, **COLS, level="interval")
    assert accord.icc(ratings).method == "reml"
    expected = icc_rows(accord.agreement(ratings))
    for engine in ("stream", "dask"):
        same(icc_rows(accord.agreement(files, engine=engine, **COLS, level="interval")), expected)


def test_score_matrix_is_the_matrix_of_the_merged_cells() -> None:
    # Hand-built: item 0 scored 4 by rater 0 and 5 by rater 1, item 1 scored 2 by rater 0.
    from accord.stats.scores import score_matrix

    first = ScoreCells.from_codes(np.array([0, 1]), np.array([0, 0]), np.array([4.0, 2.0]))
    second = ScoreCells.from_codes(np.array([0]), np.array([1]), np.array([5.0]))
    np.testing.assert_array_equal(first.merge(second).matrix(), [[4.0, 5.0], [2.0, np.nan]])
    ratings = accord.Ratings.from_arrays(
        [0, 0, 1], ["a", "b", "a"], ["4", "5", "2"], level="interval"
    )
    np.testing.assert_array_equal(score_matrix(ratings), [[4.0, 5.0], [2.0, np.nan]])


def test_icc_of_text_categories_names_the_label_that_is_not_a_number() -> None:
    ratings = accord.Ratings.from_arrays([0, 0, 1, 1], ["a", "b", "a", "b"], ["1", "x", "2", "1"])
    with pytest.raises(accord.InvalidInputError, match=r"icc needs numeric scores; the label 'x'"):
        accord.icc(ratings)
    with pytest.raises(accord.InvalidInputError, match=r"the label 'x' is not a number"):
        accord.concordance_correlation(ratings)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda r: st.lists(st.lists(st.integers(-1, 7), min_size=r, max_size=r), max_size=12)
    )
)
def test_sparse_cell_counts_equal_the_dense_ones(rows: list[list[int]]) -> None:
    # Continuous scores make one category per distinct value: the stream engine then counts
    # each slice of its matrix sparsely, and must count what the dense counter counts.
    from accord.engines._matrix import _cell_counts, _sparse_cell_counts

    block = np.array(rows, dtype=np.int64).reshape(len(rows), -1 if rows else 0)
    assert (_sparse_cell_counts(block, 8).toarray() == _cell_counts(block, 8)).all()


def test_continuous_scores_stay_sparse_through_the_stream_engine(tmp_path: Path) -> None:
    # Every score distinct: 120,000 categories over 30,000 items. A dense item x category
    # table would be 29 GB (the stream engine used to build one); the counts stay sparse
    # from the engine's slices to the estimators, and the ICC equals the memory engine's.
    gen = np.random.default_rng(4)
    items = np.repeat(np.arange(30_000), 4)
    frame = pd.DataFrame({"item": items.astype(str), "rater": np.tile(list("abcd"), 30_000),
                          "score": gen.normal(size=items.size) + items % 7})  # fmt: skip
    path = tmp_path / "scores.parquet"
    frame.sample(frac=1.0, random_state=1).to_parquet(path)
    kw = dict(item="item", rater="rater", label="score", level="interval", coefficients=["icc"])
    streamed = accord.agreement(str(path), engine="stream", progress=False, **kw)
    in_memory = accord.agreement(str(path), **kw)
    assert len(streamed.coefficients) == 6
    assert [c.statistic for c in streamed.coefficients] == pytest.approx(
        [c.statistic for c in in_memory.coefficients], rel=1e-12
    )
