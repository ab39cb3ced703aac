"""Sets of labels given as a label column of lists whose (item, rater) rows repeat: the
memory engine gives each (item, rater) the union of the lists of its rows (the documented
rule: repeated rows and lists are both forms of a set, or both together), and the stream
engine gives the same codes, counts, report and coefficients to the last bit, whatever the
batches; the CSV form of the same sets (one label per row) too."""

from __future__ import annotations

import random
import tempfile
import warnings
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import masi_distance

import accord
from accord._errors import InvalidInputError

from .test_engines import assert_same

COLUMNS = {"item": "item", "rater": "rater", "label": "label"}

#: (rater, item, set of labels)
Triples = list[tuple[str, int, frozenset[str]]]

#: One row of a list column: item, rater, the list (None: a missing cell).
Row = tuple[str, str, list[str | None] | None]


def _masi(a: frozenset[str], b: frozenset[str]) -> float:
    return 0.0 if not a and not b else float(masi_distance(a, b))


def _same_tables(path: Path, batch: int) -> None:
    """``agreement`` with both engines: the same table and report, compared exactly."""
    with warnings.catch_warnings():  # no item rated twice: NaN, and a warning (each engine)
        warnings.simplefilter("ignore", accord.DegenerateDataWarning)
        memory, stream = (
            accord.agreement(path, **COLUMNS, multi_label=True, engine=engine, batch_size=batch)
            for engine in ("memory", "stream")
        )
    pd.testing.assert_frame_equal(memory.to_frame(), stream.to_frame(), check_exact=True)
    assert memory.report == stream.report


def test_repeated_rows_of_lists_make_one_set(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {
            "item": [1, 1, 1, 2, 2, 3, 3],
            "rater": ["a", "a", "b", "a", "b", "a", "b"],
            "label": [["x"], ["y"], ["x", "y"], ["x"], ["x"], ["y"], []],
        }
    )
    path = tmp_path / "f.parquet"
    frame.to_parquet(path)
    memory = accord.read_ratings(path, **COLUMNS, multi_label=True)
    for batch in (1, 2, 3, 100):
        for reader in ("pyarrow", "duckdb"):
            stats = accord.stream_statistics(
                path, **COLUMNS, multi_label=True, batch_size=batch, reader=reader
            )
            assert_same(stats, memory)
        _same_tables(path, batch)
    # (1, a) rates {x, y}: rows 1 and 2 together. NLTK's alpha on the union triples (MASI,
    # with two empty sets at distance 0, where NLTK divides by zero).
    triples = [
        ("a", 1, frozenset("xy")),
        ("b", 1, frozenset("xy")),
        ("a", 2, frozenset("x")),
        ("b", 2, frozenset("x")),
        ("a", 3, frozenset("y")),
        ("b", 3, frozenset()),
    ]
    expected = AnnotationTask(triples, distance=_masi).alpha()
    streamed = accord.krippendorff_alpha(stats.item_counts, distance="masi").statistic
    assert streamed == pytest.approx(expected, rel=1e-12)
    assert [sorted(c) for c in stats.categories] == [[], ["x"], ["y"], ["x", "y"]]


def test_labels_repeated_and_missing_inside_lists_are_reported_as_in_memory(
    tmp_path: Path,
) -> None:
    table = pa.table(
        {
            "item": [1, 1, 2, 2, 2, 3],
            "rater": ["a", "b", "a", "b", "a", "a"],
            "label": [["x", "x"], ["y", None], ["x"], None, ["x"], [None]],
        }
    )
    path = tmp_path / "f.parquet"
    pq.write_table(table, path)
    memory = accord.read_ratings(path, **COLUMNS, multi_label=True)
    report = str(memory.report)
    # Hand count: x twice in row 1 and again for (2, a) in rows 3 and 5; one None beside y;
    # rows 4 (null) and 6 ([None]) add no label.
    assert "3 ratings of 2 items" in report
    assert "2 labels given again" in report
    assert "1 missing value inside lists" in report
    assert "dropped 2 (2 missing label)" in report
    for batch in (1, 2, 6):
        assert_same(
            accord.stream_statistics(path, **COLUMNS, multi_label=True, batch_size=batch), memory
        )


def test_duplicates_option_does_not_apply_to_lists_either(tmp_path: Path) -> None:
    path = tmp_path / "f.parquet"
    pd.DataFrame({"item": [1, 1], "rater": ["a", "b"], "label": [["x"], ["y"]]}).to_parquet(path)
    for read in (accord.read_ratings, accord.stream_statistics):
        with pytest.raises(InvalidInputError, match="duplicates='last' does not apply"):
            read(path, **COLUMNS, multi_label=True, duplicates="last")


def test_lists_of_missing_values_only_are_refused_as_in_memory(tmp_path: Path) -> None:
    table = pa.table(
        {"item": [1, 1, 2], "rater": ["a", "b", "a"], "label": [[None], [], []]},
        schema=pa.schema(
            [("item", pa.int64()), ("rater", pa.string()), ("label", pa.list_(pa.string()))]
        ),
    )
    path = tmp_path / "f.parquet"
    pq.write_table(table, path)
    messages = []
    for engine in ("memory", "stream"):
        with pytest.raises(InvalidInputError) as info:
            accord.agreement(path, **COLUMNS, multi_label=True, engine=engine)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


@st.composite
def set_triples(draw: st.DrawFn) -> Triples:
    n_items = draw(st.integers(2, 6))
    raters = ["r1", "r2", "r3"][: draw(st.integers(2, 3))]
    subsets = st.frozensets(st.sampled_from("abcd"), max_size=4)
    return [
        (rater, item, draw(subsets))
        for item in range(n_items)
        for rater in raters
        if rater in ("r1", "r2") or draw(st.booleans())
    ]


def _split_rows(triples: Triples, seed: int) -> list[Row]:
    """Each set spread over one to three rows of lists (a label may be in two rows, a row
    may be an empty list or a missing cell beside the others), shuffled."""
    rng = random.Random(seed)
    rows: list[Row] = []
    for rater, item, labels in triples:
        parts: list[list[str | None]] = [[] for _ in range(rng.randint(1, 3))]
        for label in sorted(labels):
            rng.choice(parts).append(label)
            if rng.random() < 0.1:
                rng.choice(parts).append(label)  # the same label again
        for part in parts:
            if rng.random() < 0.1:
                part.append(None)  # a missing value inside a list
            rows.append((f"unit {item}", rater, part))
        if rng.random() < 0.1:
            rows.append((f"unit {item}", rater, None))  # a missing cell beside the lists
    rng.shuffle(rows)
    return rows


def _has_labels(triples: Triples) -> bool:
    return any(labels for _, _, labels in triples)


@settings(max_examples=25, deadline=None)
@given(set_triples(), st.sampled_from([1, 2, 3, 5, 1000]), st.integers(0, 2**16))
def test_lists_split_over_repeated_rows_stream_as_in_memory(
    triples: Triples, batch: int, seed: int
) -> None:
    rows = _split_rows(triples, seed)
    table = pa.table(
        {name: [row[k] for row in rows] for k, name in enumerate(COLUMNS)},
        schema=pa.schema(
            [("item", pa.string()), ("rater", pa.string()), ("label", pa.list_(pa.string()))]
        ),
    )
    # The CSV form: one label per row (an empty set has no row there, so sets only).
    flat = [
        (item, rater, label)
        for item, rater, labels in rows
        for label in (labels if labels is not None else [None])
    ]
    with tempfile.TemporaryDirectory() as folder:
        parquet, csv = Path(folder) / "sets.parquet", Path(folder) / "sets.csv"
        pq.write_table(table, parquet)
        pd.DataFrame(flat, columns=list(COLUMNS)).to_csv(csv, index=False)
        paths = [parquet, csv] if _has_labels(triples) else [parquet]
        for path in paths:
            try:
                memory = accord.read_ratings(path, **COLUMNS, multi_label=True)
            except InvalidInputError as refused:  # every label given is a missing value
                with pytest.raises(InvalidInputError) as info:
                    accord.stream_statistics(path, **COLUMNS, multi_label=True, batch_size=batch)
                assert str(info.value) == str(refused)
                continue
            stats = accord.stream_statistics(path, **COLUMNS, multi_label=True, batch_size=batch)
            assert_same(stats, memory)
            if len(memory.categories) > 1:
                _same_tables(path, batch)
