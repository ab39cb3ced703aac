"""The ICC alone asks the stream and dask engines for no counts by category.

Continuous scores make a category of every distinct value; the ICC reads only the scored
cells (a second pass), so ``agreement(path, coefficients=["icc"])`` must not make the engine
count item patterns, item counts, rater counts or pair tables of the categories. The table
(six forms, design, read report) is the memory engine's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import accord
import accord.front.agreement as front
from accord.engines import dask_statistics, stream_statistics

COLS = {"item": "item", "rater": "rater", "label": "score"}


def continuous_file(folder: Path, *, n_items: int = 300, n_raters: int = 5) -> Path:
    """Every score distinct, 10% missing, text ids, rows shuffled (Parquet)."""
    gen = np.random.default_rng(7)
    items = np.repeat(np.arange(n_items), n_raters)
    raters = np.tile(np.arange(n_raters), n_items)
    score = gen.normal(size=items.size) + items % 5
    score[gen.uniform(size=score.size) < 0.1] = np.nan
    frame = pd.DataFrame({"item": [f"item-{i}" for i in items],
                          "rater": [f"reader-{r}" for r in raters], "score": score})  # fmt: skip
    path = folder / "scores.parquet"
    frame.sample(frac=1.0, random_state=3).to_parquet(path)
    return path


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The statistics the front door's plan asks the engine for, call by call."""
    calls: list[tuple[str, ...]] = []
    real = front.scan_ratings

    def recording(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs["plan"].statistics)
        return real(*args, **kwargs)

    monkeypatch.setattr(front, "scan_ratings", recording)
    return calls


@pytest.mark.parametrize("engine", ["stream", "dask"])
def test_icc_alone_asks_the_engine_for_no_counts(
    tmp_path: Path, asked: list[tuple[str, ...]], engine: str
) -> None:
    path = continuous_file(tmp_path)
    extra: dict[str, Any] = {"batch_size": 211} if engine == "stream" else {}
    table = accord.agreement(str(path), engine=engine, **COLS, level="interval",
                             coefficients=["icc"], progress=False, **extra)  # fmt: skip
    assert asked == [()]  # no patterns, items, raters or pairs of the categories
    memory = accord.agreement(str(path), **COLS, level="interval", coefficients=["icc"])
    assert [c.statistic for c in table.coefficients] == [c.statistic for c in memory.coefficients]
    assert [c.label for c in table.coefficients] == [c.label for c in memory.coefficients]
    assert table.design == memory.design
    ratings = accord.read_ratings(str(path), **COLS, level="interval")
    assert table.report is not None and ratings.report is not None
    assert (table.report.rows, table.report.ratings, table.report.items, table.report.raters) == (
        ratings.report.rows,
        ratings.report.ratings,
        ratings.report.items,
        ratings.report.raters,
    )
    assert table.report.missing == ratings.report.missing > 0


def test_other_coefficients_still_ask_for_counts(
    tmp_path: Path, asked: list[tuple[str, ...]]
) -> None:
    path = continuous_file(tmp_path, n_items=40)
    wanted = ["icc", "krippendorff_alpha"]
    table = accord.agreement(str(path), engine="stream", **COLS, level="interval",
                             coefficients=wanted, progress=False)  # fmt: skip
    assert asked == [("raters", "patterns")]
    memory = accord.agreement(str(path), **COLS, level="interval", coefficients=wanted)
    assert [c.statistic for c in table.coefficients] == pytest.approx(
        [c.statistic for c in memory.coefficients], rel=1e-12
    )
    assert table.design == memory.design


def test_icc_alone_below_interval_level_keeps_the_counted_design(
    tmp_path: Path, asked: list[tuple[str, ...]]
) -> None:
    # No ICC at ordinal level: the (empty) table's design still comes from the counts.
    frame = pd.DataFrame({"item": [1, 1, 2, 2, 3], "rater": list("ababa"),
                          "score": [1, 2, 2, 2, 3]})  # fmt: skip
    path = tmp_path / "r.csv"
    frame.to_csv(path, index=False)
    table = accord.agreement(str(path), engine="stream", **COLS, level="ordinal",
                             coefficients=["icc"], progress=False)  # fmt: skip
    assert asked == [("raters", "patterns")]
    assert table.coefficients == ()
    memory = accord.agreement(str(path), **COLS, level="ordinal", coefficients=["icc"])
    assert table.design == memory.design


def test_stream_statistics_without_counts_keep_the_read_report(tmp_path: Path) -> None:
    path = continuous_file(tmp_path, n_items=50)
    bare = stream_statistics(path, **COLS, level="interval", statistics=(), batch_size=97)
    full = stream_statistics(path, **COLS, level="interval", batch_size=97)
    assert bare.item_counts is None and bare.rater_counts is None and bare.pair_tables is None
    assert bare.item_patterns is None
    assert bare.report == full.report
    assert bare.categories == full.categories
    assert (bare.n_items, bare.n_raters) == (full.n_items, full.n_raters)


@pytest.mark.parametrize("statistics", [(), ("raters",), ("pairs",), ("items",)])
@pytest.mark.parametrize("duplicates", ["raise", "first"])
def test_fewer_statistics_keep_the_read_report_on_every_path(
    tmp_path: Path, statistics: tuple[str, ...], duplicates: str
) -> None:
    # The stream engine's passes over ranges of items (a matrix past memory_limit) and the
    # dask engine count only what is asked for and what the read report needs.
    path = continuous_file(tmp_path, n_items=60)
    if duplicates == "first":
        frame = pd.read_parquet(path)
        path = tmp_path / "repeated.parquet"
        pd.concat([frame, frame.iloc[::7]]).to_parquet(path)
    options: dict[str, Any] = {**COLS, "level": "interval", "duplicates": duplicates}
    full = stream_statistics(path, **options, batch_size=97)
    in_matrix = stream_statistics(path, **options, statistics=statistics, batch_size=97)
    bucketed = stream_statistics(
        path, **options, statistics=statistics, batch_size=97, memory_limit=200
    )
    dask = dask_statistics(path, **options, statistics=statistics, scheduler="synchronous")
    assert bucketed.passes > 1
    for got in (in_matrix, bucketed, dask):  # what was asked for, no more
        assert got.to_dict()["statistics"] == list(statistics)
    for got in (in_matrix, bucketed, dask):
        assert got.report == full.report
        for name in ("item_counts", "rater_counts"):
            if name[:-7] + "s" in statistics:
                want = getattr(full, name).counts
                have = getattr(got, name).counts
                np.testing.assert_array_equal(
                    have.toarray() if hasattr(have, "toarray") else have,
                    want.toarray() if hasattr(want, "toarray") else want,
                )


def test_rater_counts_of_more_than_65535_labels(tmp_path: Path) -> None:
    # Raw label codes past 65,535 (continuous scores) used to wrap around in the matrix's
    # two-byte slices: some ratings read as "not rated" and others as another category.
    n = 36_000
    gen = np.random.default_rng(2)
    frame = pd.DataFrame({"item": np.repeat(np.arange(n), 2), "rater": np.tile([0, 1], n),
                          "score": gen.permutation(2 * n) / 7.0})  # fmt: skip
    path = tmp_path / "many.parquet"
    frame.to_parquet(path)
    streamed = stream_statistics(path, **COLS, level="interval", statistics=("raters",))
    ratings = accord.Ratings.from_long(frame, **COLS, level="interval")
    memory = accord.stats.RaterCategoryCounts.from_ratings(ratings)
    assert streamed.report.ratings == 2 * n
    assert streamed.rater_counts is not None
    assert streamed.categories == ratings.categories
    got = streamed.rater_counts.counts
    want = memory.counts
    got = got.toarray() if hasattr(got, "toarray") else np.asarray(got)
    want = want.toarray() if hasattr(want, "toarray") else np.asarray(want)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    ("level", "bad", "message"),
    [
        ("interval", np.inf, r"label inf at row \d+ is not finite, but the level is interval"),
        ("ratio", -2.5, r"label -2.5 at row \d+ is negative, but the ratio level"),
    ],
)
def test_a_bad_score_in_a_later_batch_is_still_caught_early(
    tmp_path: Path, level: str, bad: float, message: str
) -> None:
    score = np.arange(1.0, 41.0)
    score[33] = bad
    frame = pd.DataFrame({"item": np.arange(40) // 2, "rater": np.arange(40) % 2, "score": score})
    first, second = tmp_path / "a.parquet", tmp_path / "b.parquet"
    frame.iloc[:20].to_parquet(first)
    frame.iloc[20:].to_parquet(second)
    with pytest.raises(accord.InvalidInputError, match=message) as caught:
        stream_statistics([first, second], **COLS, level=level, batch_size=5)
    assert "first seen at" in str(caught.value)


def test_the_first_seen_note_names_the_row_of_the_bad_score(tmp_path: Path) -> None:
    # Rows 31-35 are one batch of new scores; the bad one is at row 34, not at the batch's
    # first new score (row 31). The memory engine names row 34 of the same rows.
    score = [str(v) for v in np.arange(1.0, 41.0)]
    score[33] = "n/a?"
    frame = pd.DataFrame({"item": np.arange(40) // 2, "rater": np.arange(40) % 2, "score": score})
    first, second, whole = tmp_path / "a.csv", tmp_path / "b.csv", tmp_path / "all.csv"
    frame.iloc[:20].to_csv(first, index=False)
    frame.iloc[20:].to_csv(second, index=False)
    frame.to_csv(whole, index=False)
    with pytest.raises(accord.InvalidInputError) as memory:
        accord.read_ratings(str(whole), **COLS, level="interval")
    assert "at row 34 " in str(memory.value)
    with pytest.raises(accord.InvalidInputError) as streamed:
        accord.agreement([str(first), str(second)], engine="stream", **COLS, level="interval",
                         coefficients=["icc"], progress=False, batch_size=5)  # fmt: skip
    message = str(streamed.value)
    assert "at row 34 " in message
    assert message.endswith(f"[first seen at row 34 (row 14 of {second})]")
