"""The memory engine of the confidence front doors names a value at fault as the stream
engine does: its row of the whole input, then the file it is in (and that file's first row
when there are several files)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import accord
from accord import InvalidInputError


def _message(call: object, **engine: object) -> str:
    with pytest.raises(InvalidInputError) as info:
        call(**engine)  # type: ignore[operator]
    return str(info.value)


def _two_files(tmp_path: Path, column: str, value: object) -> list[str]:
    """Twelve units in a.csv (rows 1-6) and b.csv (rows 7-12), row 9 of the input (row 3
    of b.csv) holding ``value`` in ``column``."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"correct": rng.integers(0, 2, 12), "confidence": rng.random(12)})
    frame[column] = frame[column].astype(object)
    frame.loc[8, column] = value
    paths = [tmp_path / "a.csv", tmp_path / "b.csv"]
    frame.iloc[:6].to_csv(paths[0], index=False)
    frame.iloc[6:].to_csv(paths[1], index=False)
    return [str(p) for p in paths]


@pytest.mark.parametrize(
    ("column", "value", "fault"),
    [
        ("confidence", 1.5, "found 1.5 at row 9;"),
        ("confidence", "abc", "must be numbers; found 'abc' at row 9"),
        ("correct", 2, "must be 0/1 or true/false; found 2 at row 9"),
        ("correct", None, "missing value at row 9"),
    ],
)
def test_the_memory_engine_names_the_row_and_file_as_the_stream_engine(
    tmp_path: Path, column: str, value: object, fault: str
) -> None:
    paths = _two_files(tmp_path, column, value)

    def call(**engine: object) -> object:
        return accord.calibration_metrics("correct", "confidence", source=paths, **engine)

    memory = _message(call, engine="memory")
    stream = _message(call, engine="stream", batch_size=4)
    place = f"(in {paths[1]}, whose row 1 is row 7 of the input)"
    assert fault in memory and memory.endswith(place)
    assert stream.endswith(place) and "row 9" in stream


def test_one_file_is_named_without_its_own_rows(tmp_path: Path) -> None:
    path = tmp_path / "u.csv"
    pd.DataFrame({"correct": [1, 0, 1], "confidence": [0.2, "high", 0.3]}).to_csv(path, index=False)
    memory = _message(
        lambda: accord.normalized_cross_entropy("correct", "confidence", source=str(path))
    )
    assert memory.endswith(f"found 'high' at row 2 (in {path})")
    read = _message(
        lambda: accord.read_confidences(path, correct="correct", confidence="confidence")
    )
    assert read.endswith(f"at row 2 (in {path})")


def test_clipping_still_reads_out_of_range_confidences(tmp_path: Path) -> None:
    # with out_of_range="clip" the reading leaves the range alone: sclite's clipping
    paths = _two_files(tmp_path, "confidence", 1.5)
    clipped = accord.normalized_cross_entropy(
        "correct", "confidence", source=paths, out_of_range="clip"
    )
    assert clipped.n_out_of_range == 1
