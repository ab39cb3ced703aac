"""The one fold over batches and partitions (``accord.engines.fold``): errors name rows of
the whole input on every engine, partial statistics merge the same way on every engine
(decode tables unioned, empty partitions skipped), and the fold merges in order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

import accord
from accord import InvalidInputError
from accord.engines.fold import fold_kept, fold_partitions, fold_parts
from accord.stats.confidence import ConfidenceSums, ConfidenceValueCounts
from accord.stats.panel import PanelStatistics

ENGINES = ["memory", "stream", "dask"]
BAD_ROW = 10  # 1-based data row of the bad value: in the third batch of 4 rows


def _panel() -> pd.DataFrame:
    # a chain of 12 assessments: rater k scores items k..k+2 (connected), scores as text
    raters = np.repeat(np.arange(4), 3)
    items = raters + np.tile(np.arange(3), 4)
    return pd.DataFrame(
        {
            "item": [f"o{i}" for i in items],
            "rater": [f"r{r}" for r in raters],
            "score": [str(float(k % 5)) for k in range(12)],
        }
    )


def _panel_source(engine: str, frame: pd.DataFrame, tmp_path: Path) -> tuple[object, dict]:
    """The frame where each engine reads it, and the engine's keywords: the stream engine
    reads a CSV file in batches of 4 rows, the dask engine a frame of 3 partitions."""
    if engine == "memory":
        return frame, {}
    if engine == "stream":
        path = tmp_path / "panel.csv"
        frame.to_csv(path, index=False)
        return path, {"batch_size": 4}
    dd = pytest.importorskip("dask.dataframe")
    return dd.from_pandas(frame, npartitions=3), {"scheduler": "synchronous"}


@pytest.mark.parametrize("engine", ENGINES)
def test_calibrate_panel_names_the_row_of_the_whole_input(tmp_path: Path, engine: str) -> None:
    frame = _panel()
    frame.loc[BAD_ROW - 1, "score"] = "bad"
    data, extra = _panel_source(engine, frame, tmp_path)
    with pytest.raises(InvalidInputError) as info:
        accord.calibrate_panel(
            data, item="item", rater="rater", score="score", engine=engine, **extra
        )
    message = str(info.value)
    assert f"'bad' at row {BAD_ROW} is not a number" in message
    assert "count from" not in message and "batch" not in message


@pytest.mark.parametrize("engine", ENGINES)
def test_calibrate_panel_names_missing_rows_of_the_whole_input(tmp_path: Path, engine: str) -> None:
    frame = _panel()
    frame.loc[[BAD_ROW - 1, BAD_ROW], "score"] = None
    data, extra = _panel_source(engine, frame, tmp_path)
    with pytest.raises(InvalidInputError) as info:
        accord.calibrate_panel(
            data, item="item", rater="rater", score="score", missing="raise", engine=engine, **extra
        )
    assert f"2 rows are missing (rows {BAD_ROW}, {BAD_ROW + 1})" in str(info.value)


def _units() -> pd.DataFrame:
    correct = [1, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 0]
    confidence = [0.95, 0.8, 0.6, 0.4, 0.9, 0.7, 0.2, 0.85, 1.0, 0.0, 0.75, 0.3]
    return pd.DataFrame({"correct": correct, "confidence": confidence})


def _unit_files(frame: pd.DataFrame, tmp_path: Path) -> list[str]:
    """Two CSV files of 6 rows: the dask engine reads one partition per file."""
    paths = [tmp_path / "a.csv", tmp_path / "b.csv"]
    frame.iloc[:6].to_csv(paths[0], index=False)
    frame.iloc[6:].to_csv(paths[1], index=False)
    return [str(p) for p in paths]


@pytest.mark.parametrize("function", ["normalized_cross_entropy", "calibration_metrics"])
@pytest.mark.parametrize("engine", ENGINES)
def test_confidence_errors_name_the_row_of_the_whole_input(
    tmp_path: Path, engine: str, function: str
) -> None:
    if engine == "dask":
        pytest.importorskip("dask.dataframe")
    frame = _units()
    frame.loc[BAD_ROW - 1, "confidence"] = 1.5
    extra: dict[str, object] = {"batch_size": 4} if engine == "stream" else {}
    with pytest.raises(InvalidInputError) as info:
        getattr(accord, function)(
            "correct",
            "confidence",
            source=_unit_files(frame, tmp_path),
            engine=engine,
            **extra,
        )
    message = str(info.value)
    assert f"found 1.5 at row {BAD_ROW};" in message
    assert "batch" not in message and "partition" not in message


def test_confidence_on_dask_skips_empty_partitions() -> None:
    dd = pytest.importorskip("dask.dataframe")
    frame = _units().assign(keep=[True] * 4 + [False] * 4 + [True] * 4)
    parts = dd.from_pandas(frame, npartitions=3)  # partitions of rows 1-4, 5-8, 9-12
    kept = parts[parts["keep"]]
    result = accord.normalized_cross_entropy(
        "correct", "confidence", source=kept, engine="dask", scheduler="synchronous"
    )
    # reference: sclite's NCE computed by hand on the 8 kept units (confidences clipped to
    # [1e-7, 0.9999999] as in SCTK scores.c)
    units = frame[frame["keep"]]
    y = units["correct"].to_numpy() == 1
    c = np.clip(units["confidence"].to_numpy(), 1e-7, 0.9999999)
    p_c = y.mean()
    h_max = -(y.sum() * np.log2(p_c) + (~y).sum() * np.log2(1 - p_c))
    expected = (h_max + np.log2(c[y]).sum() + np.log2(1 - c[~y]).sum()) / h_max
    assert_allclose(result.statistic, expected, rtol=1e-12)


def test_panel_statistics_of_batches_merge_into_the_union_of_their_decode_tables() -> None:
    meta = {"source": "equal", "relative": True, "n_dropped": 0}
    ones = np.ones(2)
    first = PanelStatistics.from_batch(
        np.array([0, 1]),
        np.array([0, 0]),
        np.array([1.0, 2.0]),
        ones,
        items=np.array(["a", "b"]),
        raters=np.array(["x"]),
        **meta,
    )
    # the second batch codes item "b" as 0 and knows rater "y" only
    second = PanelStatistics.from_batch(
        np.array([0, 0]),
        np.array([0, 0]),
        np.array([3.0, 5.0]),
        ones,
        items=np.array(["b"]),
        raters=np.array(["y"]),
        **meta,
    )
    both = first.merge(second).sorted_pairs()
    named = [
        (str(both.items[i]), str(both.raters[r]))
        for i, r in zip(both.item_codes, both.rater_codes, strict=True)
    ]
    # by hand: pairs (a, x) once, (b, x) once, (b, y) twice with mean (3 + 5) / 2
    assert named == [("a", "x"), ("b", "x"), ("b", "y")]
    assert both.count.tolist() == [1.0, 1.0, 2.0]
    assert both.mean.tolist() == [1.0, 2.0, 4.0]
    assert both.within.tolist() == [0.0, 0.0, 2.0]


def test_confidence_statistics_from_batches_name_rows_from_their_offset() -> None:
    sums = ConfidenceSums.from_batch(
        [1, 0, 1], [0.5, 0.25, 1.0], ["g", "h", "g"], out_of_range="raise", owner="t", row0=5
    )
    assert sums.groups == ("g", "h") and sums.n.tolist() == [2, 1]
    with pytest.raises(InvalidInputError, match="missing value at row 7"):
        ConfidenceValueCounts.from_batch(
            [1, 0, None], [0.5, 0.2, 0.1], out_of_range="raise", owner="t", row0=4
        )


def test_the_fold_merges_parts_in_their_order_and_reports_progress() -> None:
    seen: list[tuple[int, int | None]] = []
    parts = [(k * 2, [str(k), str(k)]) for k in range(7)]
    out = fold_parts(
        parts,
        lambda part, row0: None if row0 == 4 else f"{row0}:{''.join(part)} ",
        str.__add__,
        progress=lambda done, total: seen.append((done, total)),
        total=14,
    )
    # a non-commutative merge: the parts in input order, the empty one (None) skipped
    assert out == "0:00 2:11 6:33 8:44 10:55 12:66 "
    assert seen == [(2 * k + 2, 14) for k in range(7)]
    assert fold_parts([], str, str.__add__) is None


def test_fold_partitions_counts_rows_before_the_bad_partition() -> None:
    dd = pytest.importorskip("dask.dataframe")
    frame = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6, -7, 8]})

    def summarise(part: pd.DataFrame, row0: int) -> int:
        values = part["x"].to_numpy()
        if (values < 0).any():
            raise InvalidInputError(f"negative at row {row0 + int((values < 0).argmax()) + 1}")
        return int(values.sum())

    parts = dd.from_pandas(frame, npartitions=3).to_delayed()
    with pytest.raises(InvalidInputError, match=r"^negative at row 7$"):
        fold_partitions(parts, summarise, int.__add__, scheduler="synchronous")
    good = dd.from_pandas(frame.abs(), npartitions=3).to_delayed()
    assert fold_partitions(good, summarise, int.__add__, scheduler="synchronous") == 36


def test_a_fold_that_is_a_phase_reports_progress_within_the_run() -> None:
    """A second pass over 3 partitions after 3 done: progress goes from 3 towards 6 of 6
    (one display for every phase), not from 0 of 3."""
    dd = pytest.importorskip("dask.dataframe")
    frame = dd.from_pandas(pd.DataFrame({"x": range(9)}), npartitions=3)
    seen: list[tuple[int, int | None]] = []

    def total(part: Any, row0: int) -> int:
        return int(part["x"].sum())

    out = fold_partitions(
        frame.to_delayed(), total, int.__add__, scheduler="synchronous",
        progress=lambda done, whole: seen.append((done, whole)), phase=(3, 6),
    )  # fmt: skip
    assert out == 36  # 0 + 1 + ... + 8
    assert seen and all(whole == 6 and 3 <= done <= 6 for done, whole in seen), seen
    assert seen[-1] == (6, 6)


def test_the_dask_passes_go_through_the_fold(monkeypatch: pytest.MonkeyPatch) -> None:
    dd = pytest.importorskip("dask.dataframe")
    import accord.engines.dask as engine

    calls: list[int] = []
    fold = engine.fold_partitions

    def counted(parts: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(len(parts))
        return fold(parts, *args, **kwargs)

    monkeypatch.setattr(engine, "fold_partitions", counted)
    rows = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": list("ababab"),
                         "label": list("xxyxyy")})  # fmt: skip
    frame = dd.from_pandas(rows, npartitions=2)
    columns = {"item": "item", "rater": "rater", "label": "label"}
    got = accord.consensus(frame, **columns, engine="dask", scheduler="synchronous")
    expected = accord.consensus(rows, **columns)
    # the counts, then the surprisal sums of the raters: each one fold over both partitions
    assert calls == [2, 2]
    pd.testing.assert_frame_equal(got.raters, expected.raters)


def _kept_and_rows(part: Any, row0: int) -> tuple[Any, list[int]]:
    return part["x"].to_numpy() * 10, [len(part)]


def test_the_kept_form_keeps_every_partition_in_order_empty_ones_too() -> None:
    dd = pytest.importorskip("dask.dataframe")
    whole = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6]})
    frame = dd.from_pandas(whole, npartitions=3)  # partitions [1, 2], [3, 4], [5, 6]
    frame = frame[(frame["x"] < 3) | (frame["x"] > 4)]  # the second one left empty
    seen: list[tuple[int, int | None]] = []
    kept, rows = fold_kept(frame.to_delayed(), _kept_and_rows, list.__add__,
                           scheduler="synchronous", progress=lambda d, t: seen.append((d, t)),
                           phase=(0, 6))  # fmt: skip
    assert rows == [2, 0, 2]  # one per partition, in order, the empty one too
    values = [k.compute(scheduler="synchronous").tolist() for k in kept]
    assert values == [[10, 20], [], [50, 60]]
    assert seen[-1] == (3, 6)  # the first of two phases: three partitions of six
