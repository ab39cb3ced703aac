"""Parquet text columns read as Arrow dictionaries by the stream engine (raters and labels):
the codes, decode tables, counts, report and messages are those of the memory engine, with
nulls, missing-value spellings, entries of a row group's dictionary no row of the batch
uses, and batches that cut row groups."""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import accord
from accord._errors import InvalidInputError
from accord.data.dictionary import GrowingDictionary, dictionary_codes, new_value_positions

from .test_engines import assert_same

COLUMNS = {"item": "item", "rater": "rater", "label": "label"}
TEXT = st.sampled_from(["a", "b", "c", "NA", "", " ", "d e", "ü"])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.one_of(st.none(), TEXT), max_size=12), min_size=1, max_size=4),
    st.booleans(),
)
def test_dictionary_codes_are_those_of_the_decoded_values(
    batches: list[list[str | None]], unused: bool
) -> None:
    # The growing dictionary fed the decoded strings is the reference: same codes, same
    # order of first appearance, the same first position of each new value.
    plain, coded = GrowingDictionary(), GrowingDictionary()
    for values in batches:
        array = pa.array(values, type=pa.string()).dictionary_encode()
        if unused:  # a dictionary with entries no row uses, in another order
            extra = pa.array(["zz", *reversed(array.dictionary.to_pylist())], type=pa.string())
            lookup = {v: i for i, v in enumerate(extra.to_pylist())}
            indices = [None if v is None else lookup[v] for v in values]
            array = pa.DictionaryArray.from_arrays(pa.array(indices, type=pa.int32()), extra)
        known = plain.size
        expected = plain.encode(pa.array(values, type=pa.string()), 0)
        codes, nulls, first = dictionary_codes(coded, array, wide=False)
        np.testing.assert_array_equal(codes, expected)
        np.testing.assert_array_equal(nulls, np.flatnonzero(expected < 0))
        np.testing.assert_array_equal(first, new_value_positions(expected, known))
        # By hand: the first position of each value new in this batch.
        seen = {v for v in plain.values().tolist()[:known]}
        by_hand = [
            i
            for i, v in enumerate(values)
            if v is not None and v not in seen and v not in values[:i]
        ]
        assert first.tolist() == by_hand
    assert coded.values().tolist() == plain.values().tolist()


@st.composite
def frames(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(1, 30))
    items = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
    raters = draw(st.lists(st.sampled_from(["r1", "r2", "r3", "r4"]), min_size=n, max_size=n))
    labels = draw(st.lists(st.one_of(st.none(), TEXT), min_size=n, max_size=n))
    frame = pd.DataFrame({"item": items, "rater": raters, "label": labels})
    return frame.drop_duplicates(["item", "rater"]).reset_index(drop=True)


def _read_or_refused_alike(path: Path, other: Callable[[], object]) -> accord.Ratings | None:
    """``read_ratings`` of the file; None when it refuses it (every label missing), after
    checking that ``other`` refuses the same data with the same message."""
    try:
        return accord.read_ratings(path, **COLUMNS)
    except InvalidInputError as refused:
        with pytest.raises(InvalidInputError) as info:
            other()
        assert str(info.value) == str(refused)
        return None


@settings(max_examples=40, deadline=None)
@given(frames(), st.integers(1, 7), st.integers(1, 8), st.booleans())
def test_dictionary_columns_stream_as_in_memory(
    frame: pd.DataFrame, row_group: int, batch: int, categorical: bool
) -> None:
    if categorical:  # pandas categories (sorted, some unused): written and read as such
        frame = frame.astype({"item": "category", "rater": "category", "label": "category"})
        frame["rater"] = frame["rater"].cat.add_categories(["r0"])
    table = pa.Table.from_pandas(frame, preserve_index=False)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.parquet"
        pq.write_table(table, path, row_group_size=row_group)
        memory = _read_or_refused_alike(
            path, lambda: accord.stream_statistics(path, **COLUMNS, batch_size=batch)
        )
        if memory is None:
            return
        stats = accord.stream_statistics(path, **COLUMNS, batch_size=batch)
    assert_same(stats, memory)


def test_an_undeclared_label_names_its_row_across_row_groups(tmp_path: Path) -> None:
    table = pa.table({"item": [1, 1, 2, 2, 3, 3], "rater": list("ababab"), "label": list("xyxzyx")})
    path = tmp_path / "r.parquet"
    pq.write_table(table, path, row_group_size=2)
    messages = []
    with pytest.raises(InvalidInputError) as info:
        accord.read_ratings(path, **COLUMNS, categories=["x", "y"])
    messages.append(str(info.value))
    for batch in (1, 2, 3, 6):
        with pytest.raises(InvalidInputError) as info:
            accord.stream_statistics(path, **COLUMNS, categories=["x", "y"], batch_size=batch)
        messages.append(str(info.value))
    # Row 4 (1-based) holds "z", the first label outside the categories.
    assert "label 'z' at row 4" in messages[0]
    assert set(messages) == {messages[0]}


@settings(max_examples=40, deadline=None)
@given(frames(), st.integers(1, 7), st.booleans(), st.booleans())
def test_parquet_raters_and_labels_read_as_dictionaries_give_the_frames_ratings(
    frame: pd.DataFrame, row_group: int, text_items: bool, reversed_dictionary: bool
) -> None:
    # read_ratings reads a Parquet file's text raters and labels as Arrow dictionaries, one
    # per row group, each in its own order: the ratings are those of the frame itself (read
    # without Parquet), codes numbered in order of first appearance over the whole file. A
    # rater column written as a dictionary in reverse order (not a pandas Categorical, not
    # ordered) declares nothing and is renumbered.
    if text_items:
        frame = frame.assign(item=[f"i{v}" for v in frame["item"]])
    table = pa.Table.from_pandas(frame, preserve_index=False).replace_schema_metadata(None)
    if reversed_dictionary:
        values = sorted(set(frame["rater"]), reverse=True)
        indices = pa.array([values.index(v) for v in frame["rater"]], type=pa.int32())
        rater = pa.DictionaryArray.from_arrays(indices, pa.array(values, type=pa.string()))
        table = table.set_column(table.schema.get_field_index("rater"), "rater", rater)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.parquet"
        pq.write_table(table, path, row_group_size=row_group)
        read = _read_or_refused_alike(path, lambda: accord.Ratings.from_long(frame, **COLUMNS))
        if read is None:
            return
    whole = accord.Ratings.from_long(frame, **COLUMNS)
    for name in ("item_codes", "rater_codes", "label_codes"):
        np.testing.assert_array_equal(getattr(read, name), getattr(whole, name))
    assert list(read.items) == list(whole.items)
    assert list(read.raters) == list(whole.raters)
    assert read.categories == whole.categories
    assert dataclasses.replace(read.report, source=None) == dataclasses.replace(
        whole.report, source=None
    )


def test_read_columns_gives_only_text_columns_as_dictionaries(tmp_path: Path) -> None:
    from accord.io.ratings import read_columns

    table = pa.table({"item": [1, 2], "rater": ["a", "b"], "label": [0.5, 1.5]})
    path = tmp_path / "r.parquet"
    pq.write_table(table, path)
    item, rater, label = read_columns(path, ["item", "rater", "label"],
                                      dictionary=["rater", "label"])[0]  # fmt: skip
    assert pa.types.is_dictionary(rater.type) and rater.to_pylist() == ["a", "b"]
    assert pa.types.is_integer(item.type) and pa.types.is_floating(label.type)
