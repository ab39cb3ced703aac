"""Set-valued ratings through the stream engine: repeated rows of one (item, rater) in a CSV
(split across batches in any order) and list columns in Parquet give the memory engine's
codes, counts and coefficients; the front door and the command line take them."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import jaccard_distance, masi_distance
from typer.testing import CliRunner

import accord
from accord._errors import InvalidInputError
from accord.cli import app

from .._cli import cli_json

runner = CliRunner()
COLUMNS = {"item": "item", "rater": "rater", "label": "label"}
PEERS = {"masi": masi_distance, "jaccard": jaccard_distance}

#: (rater, item, set of labels)
Triples = list[tuple[str, int, frozenset[str]]]


@st.composite
def set_triples(draw: st.DrawFn, empty: bool = False) -> Triples:
    n_items = draw(st.integers(2, 6))
    raters = ["r1", "r2", "r3"][: draw(st.integers(2, 3))]
    subsets = st.frozensets(st.sampled_from("abcd"), min_size=0 if empty else 1, max_size=4)
    return [
        (rater, item, draw(subsets))
        for item in range(n_items)
        for rater in raters
        if rater in ("r1", "r2") or draw(st.booleans())
    ]


def _varied(triples: Triples) -> bool:
    """More than one distinct set among the items rated twice or more (else alpha is 0/0)."""
    by_item: dict[int, list[frozenset[str]]] = {}
    for _, item, labels in triples:
        by_item.setdefault(item, []).append(labels)
    return len({s for sets in by_item.values() if len(sets) > 1 for s in sets}) > 1


def _long_rows(triples: Triples, seed: int, repeats: bool) -> pd.DataFrame:
    """One row per label given (some given twice, some rows without a label), shuffled."""
    rng = random.Random(seed)
    rows: list[tuple[str, str, str | None]] = []
    for rater, item, labels in triples:
        for label in sorted(labels):
            rows.append((f"unit {item}", rater, label))
            if repeats and rng.random() < 0.2:
                rows.append((f"unit {item}", rater, label))  # the same label again
        if repeats and rng.random() < 0.2:
            rows.append((f"unit {item}", rater, None))  # a blank beside the labels
    rng.shuffle(rows)
    return pd.DataFrame(rows, columns=["item", "rater", "label"])


def _assert_same(stats: accord.RatingStatistics, memory: accord.Ratings) -> None:
    assert stats.categories == memory.categories
    assert stats.items.tolist() == memory.items.tolist()
    assert stats.raters.tolist() == memory.raters.tolist()
    np.testing.assert_array_equal(
        stats.item_counts.dense(), accord.ItemCategoryCounts.from_ratings(memory).dense()
    )
    assert str(stats.report).splitlines() == str(memory.report).splitlines()


@settings(max_examples=25, deadline=None)
@given(set_triples(), st.integers(1, 6), st.integers(0, 2**16), st.booleans())
def test_repeated_rows_in_a_csv_stream_as_in_memory(
    triples: Triples, batch: int, seed: int, repeats: bool
) -> None:
    frame = _long_rows(triples, seed, repeats)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "sets.csv"
        frame.to_csv(path, index=False)
        stats = accord.stream_statistics(path, **COLUMNS, multi_label=True, batch_size=batch)
        memory = accord.read_ratings(path, **COLUMNS, multi_label=True)
    _assert_same(stats, memory)
    if not _varied(triples):
        return
    for kind, peer in PEERS.items():
        # NLTK's AnnotationTask on the same (rater, item, set) triples: an independent count.
        expected = AnnotationTask(triples, distance=peer).alpha()
        streamed = accord.krippendorff_alpha(stats.item_counts, distance=kind).statistic
        assert streamed == pytest.approx(expected, rel=1e-9)
        in_memory = accord.krippendorff_alpha(memory, distance=kind).statistic
        assert streamed == pytest.approx(in_memory, rel=1e-12)
    assert accord.multi_valued_alpha(stats.item_counts).statistic == pytest.approx(
        accord.multi_valued_alpha(memory).statistic, rel=1e-12
    )


@settings(max_examples=20, deadline=None)
@given(set_triples(empty=True), st.integers(1, 6), st.integers(0, 2**16))
def test_list_column_parquet_streams_as_in_memory(triples: Triples, batch: int, seed: int) -> None:
    rows = [(f"unit {i}", r, sorted(s)) for r, i, s in triples]
    random.Random(seed).shuffle(rows)
    table = pa.table({name: [row[k] for row in rows] for k, name in enumerate(COLUMNS)})
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "sets.parquet"
        pq.write_table(table, path)
        stats = accord.stream_statistics(path, **COLUMNS, multi_label=True, batch_size=batch)
        memory = accord.read_ratings(path, **COLUMNS, multi_label=True)
        fronts = [
            accord.agreement(path, **COLUMNS, multi_label=True, engine=engine)
            for engine in ("memory", "stream")
            if _varied(triples)
        ]
    _assert_same(stats, memory)
    if fronts:
        a, b = (np.array([c.statistic for c in t.coefficients]) for t in fronts)
        np.testing.assert_allclose(a, b, rtol=1e-12)


def _tags(tmp_path: Path) -> tuple[Path, Triples]:
    # Hand-made: three items, two or three raters, labels spread over repeated rows.
    triples: Triples = [
        ("r1", 1, frozenset({"x", "y"})),
        ("r2", 1, frozenset({"x"})),
        ("r3", 1, frozenset({"x", "y"})),
        ("r1", 2, frozenset({"z"})),
        ("r2", 2, frozenset({"y", "z"})),
        ("r1", 3, frozenset({"w"})),
        ("r2", 3, frozenset({"w"})),
        ("r3", 3, frozenset({"x"})),
    ]
    frame = _long_rows(triples, seed=3, repeats=True)
    path = tmp_path / "tags.csv"
    frame.to_csv(path, index=False)
    return path, triples


def test_numeric_labels_in_repeated_rows_are_typed_as_in_memory(tmp_path: Path) -> None:
    path = tmp_path / "numbers.csv"
    pd.DataFrame(
        {
            "item": [1, 1, 2, 3, 2, 3, 2],
            "rater": ["a", "b", "a", "a", "b", "b", "a"],
            "label": [9, 10, 10, 1, 2, 1, 2],
        }
    ).to_csv(path, index=False)
    stats = accord.stream_statistics(path, **COLUMNS, multi_label=True, batch_size=2)
    memory = accord.read_ratings(path, **COLUMNS, multi_label=True)
    # Sets by size, then by their labels read as numbers: {9} before {10} (as text "10"
    # would come first).
    assert [sorted(c) for c in stats.categories] == [[1], [2], [9], [10], [2, 10]]
    _assert_same(stats, memory)


def test_the_duckdb_reader_combines_repeated_rows_too(tmp_path: Path) -> None:
    path, _ = _tags(tmp_path)
    memory = accord.read_ratings(path, **COLUMNS, multi_label=True)
    stats = accord.stream_statistics(path, **COLUMNS, multi_label=True, reader="duckdb")
    _assert_same(stats, memory)


def test_agreement_front_door_with_sets(tmp_path: Path) -> None:
    path, triples = _tags(tmp_path)
    for kind, peer in PEERS.items():
        expected = AnnotationTask(triples, distance=peer).alpha()
        for engine in ("memory", "stream"):
            table = accord.agreement(
                path, **COLUMNS, multi_label=True, distance=kind, engine=engine, batch_size=2
            )
            alpha, mv = table.coefficients
            assert alpha.statistic == pytest.approx(expected, rel=1e-12)
            assert mv.name == "multi_valued_alpha"
    stream = accord.agreement(path, **COLUMNS, multi_label=True, engine="stream")
    assert stream.report is not None and stream.report.ratings == len(triples)


def test_cli_agree_multi_label_with_the_stream_engine(tmp_path: Path) -> None:
    path, triples = _tags(tmp_path)
    base = ["agree", str(path), "--item", "item", "--rater", "rater", "--label", "label"]
    outputs = {}
    for engine in ("memory", "stream"):
        res = runner.invoke(app, [*base, "--multi-label", "--engine", engine, "--format", "json"])
        assert res.exit_code == 0, res.output
        outputs[engine] = cli_json(res.output)
    alpha, mv = outputs["stream"]["coefficients"]
    assert alpha["weights"] == "masi"
    assert alpha["statistic"] == pytest.approx(
        AnnotationTask(triples, distance=masi_distance).alpha(), rel=1e-12
    )
    memory_alpha, memory_mv = outputs["memory"]["coefficients"]
    assert alpha["statistic"] == pytest.approx(memory_alpha["statistic"], rel=1e-12)
    assert mv["statistic"] == pytest.approx(memory_mv["statistic"], rel=1e-12)
    jaccard = ["--multi-label", "--engine", "stream", "--distance", "jaccard"]
    table = runner.invoke(app, [*base, *jaccard])
    assert table.exit_code == 0, table.output
    assert "krippendorff_alpha (jaccard)" in table.output


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"engine": "dask"}, "the dask engine reads one label per row"),
        ({"engine": "stream", "level": "ordinal"}, "sets of labels have no ordinal order"),
        ({"coefficients": ["fleiss_kappa"]}, "coefficients= do not apply with multi_label"),
        ({"weights": "linear", "engine": "stream"}, "weights= do not apply with multi_label"),
    ],
)
def test_what_stays_unsupported_is_one_clear_line(
    tmp_path: Path, options: dict[str, object], message: str
) -> None:
    path, _ = _tags(tmp_path)
    with pytest.raises(InvalidInputError, match=message) as info:
        accord.agreement(str(path), **COLUMNS, multi_label=True, **options)  # type: ignore[arg-type]
    assert "\n" not in str(info.value)


def test_distance_without_sets_and_duplicates_with_sets_are_refused(tmp_path: Path) -> None:
    path, _ = _tags(tmp_path)
    with pytest.raises(InvalidInputError, match="distance= applies with multi_label=True"):
        accord.agreement(path, **COLUMNS, distance="masi")
    with pytest.raises(InvalidInputError, match="duplicates='first' does not apply"):
        accord.stream_statistics(path, **COLUMNS, multi_label=True, duplicates="first")
    with pytest.raises(InvalidInputError, match="raise memory_limit or read them with the memory"):
        accord.stream_statistics(path, **COLUMNS, multi_label=True, memory_limit=1)


def test_cli_dask_refuses_sets_in_one_line(tmp_path: Path) -> None:
    path, _ = _tags(tmp_path)
    base = ["agree", str(path), "--item", "item", "--rater", "rater", "--label", "label"]
    res = runner.invoke(app, [*base, "--multi-label", "--engine", "dask"])
    assert res.exit_code == 2
    assert "the dask engine reads one label per row" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
