"""Errors of the dask engine name the file and its row, as the stream engine's do: both
engines read the same files and give the same message (rows of the whole input, then the
file the part is in)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import accord
from accord import InvalidInputError
from accord.engines.fold import partition_locator

pytest.importorskip("dask.dataframe")


def _files(frame: pd.DataFrame, tmp_path: Path, split: int) -> list[str]:
    """Two CSV files, rows [0, split) and [split, end): the dask engine reads one partition
    per file; the stream engine reads batches of 4 rows within each file."""
    paths = [tmp_path / "a.csv", tmp_path / "b.csv"]
    frame.iloc[:split].to_csv(paths[0], index=False)
    frame.iloc[split:].to_csv(paths[1], index=False)
    return [str(p) for p in paths]


def _message(call: object, **engine: object) -> str:
    with pytest.raises(InvalidInputError) as info:
        call(**engine)  # type: ignore[operator]
    return str(info.value)


def _stream_and_dask(call: object) -> tuple[str, str]:
    stream = _message(call, engine="stream", batch_size=6)
    dask = _message(call, engine="dask", scheduler="synchronous")
    return stream, dask


def test_confidence_errors_name_the_file_on_both_engines(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"correct": rng.integers(0, 2, 12), "confidence": rng.random(12)})
    frame.loc[8, "confidence"] = 1.5  # row 9 of the input: row 3 of b.csv (rows 7-12)
    paths = _files(frame, tmp_path, 6)

    def call(**engine: object) -> object:
        return accord.calibration_metrics("correct", "confidence", source=paths, **engine)

    stream, dask = _stream_and_dask(call)
    assert dask == stream
    assert "found 1.5 at row 9;" in dask
    assert dask.endswith(f"(in {paths[1]}, whose row 1 is row 7 of the input)")


def test_panel_errors_name_the_file_on_both_engines(tmp_path: Path) -> None:
    raters = np.repeat(np.arange(4), 3)
    frame = pd.DataFrame(
        {
            "item": [f"o{i}" for i in raters + np.tile(np.arange(3), 4)],
            "rater": [f"r{r}" for r in raters],
            "score": [str(float(k % 5)) for k in range(12)],
        }
    )
    frame.loc[9, "score"] = "bad"  # row 10 of the input: in b.csv (rows 7-12)
    paths = _files(frame, tmp_path, 6)

    def call(**engine: object) -> object:
        return accord.calibrate_panel(paths, item="item", rater="rater", score="score", **engine)

    stream, dask = _stream_and_dask(call)
    assert dask == stream
    assert "row 10" in dask and f"in {paths[1]}, whose row 1 is row 7 of the input" in dask


def test_a_repeated_rating_names_both_files_rows_on_dask(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {"i": [1, 1, 2, 2, 3, 3, 1, 4, 4, 4], "r": [*"ababab", "a", "a", "b", "c"],
         "l": list("xyyyxxxyyy")}
    )  # fmt: skip
    paths = _files(frame, tmp_path, 6)  # (1, "a") at row 1 of a.csv and row 1 of b.csv
    message = _message(
        lambda **e: accord.agreement(paths, item="i", rater="r", label="l", **e),
        engine="dask",
        scheduler="synchronous",
    )
    assert f"rows 1 (row 1 of {paths[0]}), 7 (row 1 of {paths[1]})" in message
    # the stream engine names both rows the same way (the earlier one read again)
    stream = _message(
        lambda **e: accord.agreement(paths, item="i", rater="r", label="l", **e),
        engine="stream",
    )
    assert f"rows 1 (row 1 of {paths[0]}), 7 (row 1 of {paths[1]})" in stream


def test_one_file_names_the_file_without_its_own_rows(tmp_path: Path) -> None:
    frame = pd.DataFrame({"correct": [1, 0, 1, 0], "confidence": [0.2, 0.4, 1.5, 0.3]})
    path = tmp_path / "u.csv"
    frame.to_csv(path, index=False)

    def call(**engine: object) -> object:
        return accord.calibration_metrics("correct", "confidence", source=str(path), **engine)

    stream, dask = _stream_and_dask(call)
    assert dask == stream
    assert dask.endswith(f"(in {path})") and "found 1.5 at row 3;" in dask


def test_a_frame_has_no_files_to_name() -> None:
    assert partition_locator([0, 6], None).where(8) == "row 9"
    assert partition_locator([0, 6], ["a.csv", "b.csv"]).where(3) == "row 4 (row 4 of a.csv)"


def _repeats(message: str) -> str:
    """The pairs and rows of a repeated-ratings message (its count and advice left out)."""
    return message.split("more than once: ")[1].split(". Pass")[0]


@pytest.mark.parametrize("batch_size", [4, 1000])
def test_memory_and_stream_name_the_same_rows_of_repeated_ratings(
    tmp_path: Path, batch_size: int
) -> None:
    # (3, "A") at rows 7 and 21 and (5, "B") at rows 12 and 23, by hand: with batches of 4
    # rows the first ratings are in batches before the repeats', read again for the message
    rows = [(i, r, i % 2) for i in range(10) for r in "AB"]
    rows += [(3, "A", 1), (12, "B", 0), (5, "B", 1)]
    path = tmp_path / "r.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    columns = {"item": "item", "rater": "rater", "label": "label"}
    memory = _message(lambda: accord.agreement(str(path), **columns))
    stream = _message(
        lambda: accord.agreement(str(path), **columns, engine="stream", batch_size=batch_size)
    )
    expected = "(3, 'A') at rows 7, 21; (5, 'B') at rows 12, 23"
    assert _repeats(memory) == _repeats(stream) == expected
    assert "not listed" not in stream
