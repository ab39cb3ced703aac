"""The one encoder: every input type, every engine, one missing-value rule, one typing rule."""

from __future__ import annotations

import dataclasses
import functools
import json
import warnings
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

import accord
from accord import (
    ContingencyTable,
    InvalidInputError,
    ItemCategoryCounts,
    RaterCategoryCounts,
    Ratings,
)
from accord._validate import DEFAULT_NA_VALUES
from accord.data.encoder import (
    arrow_of,
    dictionary_of,
    missing_mask,
    missing_of,
    typed_column,
    typed_text,
)
from accord.engines import dask_statistics, stream_statistics

from .._cli import cli_json

COLS = {"item": "item", "rater": "rater", "label": "label"}


def engines(path: Path, **options: Any) -> tuple[Ratings, Any, Any]:
    """The memory, stream and dask engines on one file."""
    memory = accord.read_ratings(path, **COLS, **options)
    stream = stream_statistics(path, **COLS, **options)
    dask = dask_statistics(path, **COLS, **options, scheduler="synchronous")
    return memory, stream, dask


def assert_engines_agree(path: Path, **options: Any) -> Ratings:
    memory, stream, dask = engines(path, **options)
    counts = ItemCategoryCounts.from_ratings(memory)
    raters = RaterCategoryCounts.from_ratings(memory)
    for stats in (stream, dask):
        assert stats.categories == memory.categories
        assert [type(c) for c in stats.categories] == [type(c) for c in memory.categories]
        assert [str(v) for v in stats.items] == [str(v) for v in memory.items]
        assert stats.item_counts is not None and stats.item_counts.equals(counts)
        assert stats.rater_counts is not None and stats.rater_counts.equals(raters)
        assert stats.report.ratings == memory.report.ratings
        assert stats.report.missing == memory.report.missing
        assert dict(stats.report.reasons) == dict(memory.report.reasons)
    return memory


# ----------------------------------------------------------------------------- the rule


def test_missing_rule_on_distinct_values() -> None:
    values = np.array(["a", "", "  ", "NA", " null ", None, "None", "-"], dtype=object)
    assert missing_of(values).tolist() == [False, True, True, True, True, True, True, False]
    # Declared categories win over the spellings; blank text and nulls stay missing.
    kept = missing_of(values, keep=["None", "NA"])
    assert kept.tolist() == [False, True, True, False, True, True, False, False]
    # The caller's list replaces the default one.
    assert missing_of(values, na_values=["-"]).tolist() == [
        False,
        True,
        True,
        False,
        False,
        True,
        False,
        True,
    ]
    assert "NA" in DEFAULT_NA_VALUES and "" not in DEFAULT_NA_VALUES


def test_missing_rule_is_per_row_vectorised() -> None:
    floats = np.array([1.0, np.nan, 3.0, np.nan])
    assert missing_mask(floats).tolist() == [False, True, False, True]
    dates = pd.Series(pd.to_datetime(["2024-01-01", None, "2024-01-03"]))
    assert missing_mask(dates).tolist() == [False, True, False]
    assert missing_mask(pd.array([1, None, 2], dtype="Int64")).tolist() == [False, True, False]


def test_typing_of_text_columns() -> None:
    assert typed_text(["01", "1", " 2"]).tolist() == [1, 1, 2]
    assert typed_text(["1", "2.5"]).dtype == np.float64
    assert typed_text(["True", "false"]).tolist() == [True, False]
    assert typed_text(["1", "one"]).tolist() == ["1", "one"]
    # "0x10" is text, not 16: only decimal numbers are numbers.
    assert typed_text(["0x10", "1"]).dtype == object
    # Integers beyond 2**53 keep every digit.
    assert typed_text(["9007199254740993"]).tolist() == [9007199254740993]
    assert np.isnan(typed_column(["1", "", "3"])[1])


@pytest.mark.parametrize("at", [0, 1, 2_500, 4_998, 4_999])
def test_a_long_column_is_typed_from_every_value(at: int) -> None:
    # A long column is tried on a sample of its values first; one value outside the sample
    # still decides the type (positions 1 and 2,500 of 5,000 are not sampled).
    numbers = [str(k) for k in range(5_000)]
    assert typed_text(numbers).tolist() == list(range(5_000))
    assert typed_text([*numbers[:at], "x", *numbers[at + 1 :]]).dtype == object
    assert typed_text([*numbers[:at], "2.5", *numbers[at + 1 :]]).dtype == np.float64
    flags = ["true", "False"] * 2_500
    assert typed_text(flags).dtype == bool
    assert typed_text([*flags[:at], "yes", *flags[at + 1 :]]).dtype == object


def test_arrow_of_does_not_copy_numbers() -> None:
    ints = np.arange(10, dtype=np.int64)
    arr = arrow_of(ints)
    assert np.shares_memory(np.asarray(arr.to_numpy()), ints)
    # Python objects of two types (numbers and text) become text.
    mixed = arrow_of(np.array([1, "1", None], dtype=object))
    assert mixed.to_pylist() == ["1", "1", None]
    idx, dictionary = dictionary_of(mixed)
    assert idx.tolist() == [0, 0, -1] and dictionary.to_pylist() == ["1"]


def test_dictionary_of_empty_chunks() -> None:
    # An empty chunk encodes to no chunk at all (pyarrow): a dask partition of a file with
    # only a header raised IndexError here.
    import pyarrow as pa

    for column in (
        pa.chunked_array([pa.array([], type=pa.string())]),
        pa.chunked_array([], type=pa.string()),
        pa.array([], type=pa.int64()),
    ):
        idx, dictionary = dictionary_of(column)
        assert idx.tolist() == [] and dictionary.to_pylist() == []
        assert dictionary.type == column.type


# ----------------------------------------------------------------------------- input types


def test_every_frame_type_gives_the_same_ratings() -> None:
    rng = np.random.default_rng(3)
    n = 400
    pdf = pd.DataFrame(
        {
            "item": [f"item-{i:04x}" for i in rng.integers(0, 60, n)],
            "rater": [f"annotator_{r}" for r in rng.integers(0, 7, n)],
            "label": rng.choice(["neg", "neu", "pos", None], n, p=[0.3, 0.3, 0.35, 0.05]),
        }
    ).drop_duplicates(["item", "rater"])
    base = Ratings.from_long(pdf, **COLS)
    frames = {
        "pandas object": pdf.astype(object),
        "pandas arrow": pdf.astype(pd.ArrowDtype(pa.string())),
        "pandas categorical": pdf.astype("category"),
        "polars": pl.from_pandas(pdf),
        "pyarrow": pa.Table.from_pandas(pdf, preserve_index=False),
        "duckdb": duckdb.from_arrow(pa.Table.from_pandas(pdf, preserve_index=False)),
    }
    for name, frame in frames.items():
        r = Ratings.from_long(frame, **COLS)
        assert r.categories == base.categories, name
        assert list(r.items) == list(base.items), name
        assert list(r.raters) == list(base.raters), name
        assert np.array_equal(r.label_codes, base.label_codes), name
        assert np.array_equal(r.item_codes, base.item_codes), name
        assert r.report.missing == base.report.missing == int(pdf["label"].isna().sum()), name


def test_ids_of_any_type() -> None:
    frame = pd.DataFrame(
        {
            "item": pd.to_datetime(["2024-01-01", "2024-01-01", "2024-01-02", "2024-01-02"]),
            "rater": [True, False, True, False],
            "label": [2**62, 2**62, 1, 1],
        }
    )
    r = Ratings.from_long(frame, **COLS)
    assert r.n_items == 2 and r.n_raters == 2 and r.categories == (1, 2**62)
    assert list(r.raters) == [True, False]
    assert [str(pd.Timestamp(v).date()) for v in r.items] == ["2024-01-01", "2024-01-02"]


# ----------------------------------------------------------------------------- files: item 7


def test_a_label_column_is_typed_from_the_whole_file(tmp_path: Path) -> None:
    """300k rows whose labels are numbers and, far down the file, one text value: every
    label is one type, so `1` at the top and `1` at the bottom are one category."""
    n_items, n_raters = 100_000, 3
    items = np.repeat(np.arange(n_items), n_raters)
    raters = np.tile(["a", "b", "c"], n_items)
    labels = np.repeat(np.arange(n_items) % 3 + 1, n_raters).astype(object)
    labels[-n_raters:] = "x"  # the last item: text
    path = tmp_path / "big.csv"
    pd.DataFrame({"item": items, "rater": raters, "label": labels}).to_csv(path, index=False)
    r = accord.read_ratings(path, **COLS)
    assert r.n_ratings == 300_000 and r.n_items == n_items
    assert r.categories == ("1", "2", "3", "x")  # the column mixes numbers and text: text
    assert accord.percent_agreement(r).statistic == pytest.approx(1.0)
    assert accord.fleiss_kappa(r).statistic == pytest.approx(1.0)
    stream = stream_statistics(path, **COLS)
    assert stream.categories == r.categories
    assert stream.item_counts is not None
    assert stream.item_counts.equals(ItemCategoryCounts.from_ratings(r))


def test_item_ids_are_one_type_for_the_whole_file(tmp_path: Path) -> None:
    n = 100_001
    items = np.r_[np.arange(n - 1).astype(str), ["item-x"]]
    frame = pd.DataFrame(
        {"item": np.repeat(items, 3), "rater": np.tile(list("abc"), n), "label": 1}
    )
    path = tmp_path / "ids.csv"
    frame.to_csv(path, index=False)
    r = accord.read_ratings(path, **COLS)
    assert r.n_items == n
    assert r.report.ratings == 3 * n


def test_json_lines_mixing_numbers_and_text(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    rows = [
        {"item": 1, "rater": "a", "label": 1},
        {"item": 1, "rater": "b", "label": "1"},
        {"item": 2, "rater": "a", "label": 2},
        {"item": 2, "rater": "b", "label": "2"},
        {"item": 3, "rater": "a", "label": "x"},
        {"item": 3, "rater": "b", "label": "x"},
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    r = accord.read_ratings(path, **COLS)
    assert r.categories == ("1", "2", "x")
    assert accord.percent_agreement(r).statistic == 1.0


@pytest.mark.parametrize(
    ("body", "categories", "n_items"),
    [
        ("1,a,01\n1,b,1\n2,a,2\n2,b,02\n", (1, 2), 2),  # number-like labels: numbers
        ("001,a,x\n1,b,x\n2,a,y\n2,b,y\n", ("x", "y"), 3),  # ids as written: two items
        ("1,a,01\n1,b,1\n2,a,x\n2,b,x\n", ("01", "1", "x"), 2),  # mixed: text
        ("1,a,1\n1,b,NA\n2,a,2\n2,b,\n3,a,1\n3,b,1\n", (1, 2), 3),  # missing spellings
    ],
)
def test_engines_agree_on_number_like_text(
    tmp_path: Path, body: str, categories: tuple[Any, ...], n_items: int
) -> None:
    path = tmp_path / "r.csv"
    path.write_text("item,rater,label\n" + body)
    memory = assert_engines_agree(path)
    assert memory.categories == categories
    assert memory.n_items == n_items


number_like = st.sampled_from(["1", "01", "001", "1.0", "2", "02", "2.0", "10", "-1", " 3"])
id_like = st.sampled_from(["1", "01", "001", "2", "02", "10", "7"])


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    cells=st.lists(
        st.tuples(id_like, st.sampled_from("abc"), number_like | st.sampled_from(["", "NA"])),
        min_size=2,
        max_size=25,
        unique_by=lambda t: (t[0], t[1]),
    ),
    text=st.booleans(),
)
def test_memory_stream_dask_agree_on_generated_number_like_text(
    tmp_path_factory: pytest.TempPathFactory, cells: list[tuple[str, str, str]], text: bool
) -> None:
    if text:
        cells = [*cells[:-1], (cells[-1][0], cells[-1][1], "x")]
    if all(label.strip() in ("", "NA") for _, _, label in cells):
        return
    path = tmp_path_factory.mktemp("prop") / "r.csv"
    lines = ["item,rater,label", *(f"{i},{r},{label}" for i, r, label in cells)]
    path.write_text("\n".join(lines) + "\n")
    memory = assert_engines_agree(path)
    # Ids are compared as written; labels as numbers unless the column holds text.
    assert memory.n_items == len({i for i, _, label in cells if True})
    if not text:
        assert all(isinstance(c, int | float) for c in memory.categories)


# ----------------------------------------------------------------------------- ordered levels


def test_ordinal_text_labels_need_their_order() -> None:
    frame = pd.DataFrame(
        {"item": [1, 1, 2, 2, 3, 3], "rater": list("ababab"), "label": list("lmhhlm")}
    )
    frame["label"] = frame["label"].map({"l": "low", "m": "medium", "h": "high"})
    with pytest.raises(InvalidInputError) as info:
        Ratings.from_long(frame, **COLS, level="ordinal")
    message = str(info.value)
    assert "high, low, medium" in message
    assert "categories=['high', 'low', 'medium']" in message
    assert "--categories" not in message  # Python: the keyword; the command line: the flag
    r = Ratings.from_long(frame, **COLS, level="ordinal", categories=["low", "medium", "high"])
    assert r.categories == ("low", "medium", "high") and r.category_order == "as declared"
    # Nominal text needs no order.
    assert Ratings.from_long(frame, **COLS).category_order.startswith("alphabetical")


def test_numbers_keep_their_numeric_order() -> None:
    frame = pd.DataFrame({"item": [1, 1, 2, 2], "rater": list("abab"), "label": [10, 9, 2, 10]})
    r = Ratings.from_long(frame, **COLS, level="ordinal")
    assert r.categories == (2, 9, 10) and r.category_order == "numeric"
    # Numbers written as text, at an ordered level: still their numeric order.
    r = Ratings.from_long(frame.astype({"label": str}), **COLS, level="ordinal")
    assert r.categories == (2, 9, 10)


def test_ordered_categorical_names_its_order() -> None:
    frame = pd.DataFrame({"item": [1, 1], "rater": list("ab"), "label": ["hi", "lo"]})
    frame["label"] = pd.Categorical(frame["label"], categories=["lo", "hi"], ordered=True)
    r = Ratings.from_long(frame, **COLS, level="ordinal")
    assert r.categories == ("lo", "hi")
    assert r.category_order == "the ordered Categorical's order"


# ----------------------------------------------------------------------------- mixed labels


def test_same_number_spelled_differently_is_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "mixed.csv"
    path.write_text("item,rater,label\n1,a,1\n1,b,1\n2,a,2\n2,b,2.0\n3,a,one\n3,b,one\n")
    r = accord.read_ratings(path, **COLS)
    assert r.categories == ("1", "2", "2.0", "one")
    assert len(r.report.notes) == 1
    assert "'2' and '2.0'" in r.report.notes[0] and "labels_as='number'" in str(r.report)
    assert r.report.to_dict()["notes"] == list(r.report.notes)
    # As numbers, 'one' is not one.
    with pytest.raises(InvalidInputError, match=r"label 'one' at row 5 is not a number"):
        accord.read_ratings(path, **COLS, labels_as="number")
    path.write_text("item,rater,label\n1,a,1\n1,b,1\n2,a,2\n2,b,2.0\n")
    r = accord.read_ratings(path, **COLS, labels_as="text")
    assert r.categories == ("1", "2", "2.0")
    r = accord.read_ratings(path, **COLS)
    assert r.categories == (1, 2) and accord.percent_agreement(r).statistic == 1.0


def test_labels_as_number_merges_text_spellings() -> None:
    frame = pd.DataFrame({"item": [1, 1, 2, 2], "rater": list("abab"), "label": ["2", "2.0"] * 2})
    r = Ratings.from_long(frame, **COLS)
    assert r.categories == ("2", "2.0") and r.report.notes
    r = Ratings.from_long(frame, **COLS, labels_as="number")
    assert r.categories == (2,) and not r.report.notes


def test_mixed_column_at_interval_level_names_the_rows() -> None:
    frame = pd.DataFrame(
        {"item": [1, 1, 2, 2, 3, 3], "rater": list("ababab"), "label": [1, 2, "x", 3, "y", 4]}
    )
    with pytest.raises(
        InvalidInputError,
        match=r"column 'label': label 'x' at row 3 is not a number, .* \(2 such rows: 3, 5\)",
    ):
        Ratings.from_long(frame, **COLS, level="interval")


# ----------------------------------------------------------------------------- None as a label


def test_a_category_named_none_is_not_missing(tmp_path: Path) -> None:
    path = tmp_path / "severity.csv"
    levels = ["None", "Mild", "Moderate", "Severe"]
    rows = [f"{i},{r},{levels[(i + (r == 'b')) % 4]}" for i in range(8) for r in "ab"]
    path.write_text("item,rater,label\n" + "\n".join(rows) + "\n4,c,\n")
    declared = accord.read_ratings(path, **COLS, level="ordinal", categories=levels)
    assert declared.report.missing == 1  # only the empty cell
    assert declared.report.ratings == 16
    # Without the declaration, "None" is one of the missing-value spellings...
    nominal = accord.read_ratings(path, **COLS)
    assert nominal.report.missing == 1 + 4
    # ... unless the caller says what counts as missing.
    plain = accord.read_ratings(path, **COLS, na_values=[])
    assert plain.report.missing == 1 and "None" in plain.categories
    # The stream and dask engines follow the same rule.
    for options in ({"level": "ordinal", "categories": levels}, {"na_values": []}, {}):
        assert_engines_agree(path, **options)


def test_a_label_nan_that_is_not_missing_is_a_text_category(tmp_path: Path) -> None:
    # With na_values=[] only empty cells are missing, so "nan" among numbers is a label like
    # "x": the column is text on every path (it was read as the float NaN and cast to the
    # integer -9223372036854775808, a category nobody wrote).
    path = tmp_path / "nan.csv"
    path.write_text("item,rater,label\n1,a,nan\n1,b,nan\n2,a,1\n2,b,nan\n3,a,1\n3,b,2\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plain = assert_engines_agree(path, na_values=[])
    assert plain.categories == ("1", "2", "nan") and plain.report.missing == 0
    text = pd.read_csv(path, dtype=str, keep_default_na=False)
    pq.write_table(pa.Table.from_pandas(text), tmp_path / "nan.parquet")
    parquet = assert_engines_agree(tmp_path / "nan.parquet", na_values=[])
    assert parquet.categories == plain.categories
    # By default "nan" is a missing spelling; at the interval level it is no number.
    assert accord.read_ratings(path, **COLS).categories == (1, 2)
    with pytest.raises(InvalidInputError, match=r"label 'nan' at row 1 is not finite"):
        accord.read_ratings(path, **COLS, na_values=[], level="interval")


def test_an_infinite_label_stays_a_float(tmp_path: Path) -> None:
    # "inf" is a number (a float), never missing: the other whole numbers stay floats beside
    # it (it was cast to an integer with them, the category -9223372036854775808).
    path = tmp_path / "inf.csv"
    path.write_text("item,rater,label\n1,a,inf\n1,b,inf\n2,a,1\n2,b,inf\n3,a,1\n3,b,2\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read = assert_engines_agree(path)
        frame = Ratings.from_long(
            pd.DataFrame({"item": [1, 1, 2], "rater": list("aba"), "label": [1.0, np.inf, 2.0]}),
            **COLS,
        )
    assert read.categories == (1.0, 2.0, np.inf) == frame.categories


def test_na_values_name_what_is_missing() -> None:
    frame = pd.DataFrame(
        {"item": [1, 1, 2, 2], "rater": list("abab"), "label": ["x", "-", "y", "y"]}
    )
    r = Ratings.from_long(frame, **COLS, na_values=["-"])
    assert r.report.missing == 1 and r.categories == ("x", "y")
    with pytest.raises(InvalidInputError, match="must be text"):
        Ratings.from_long(frame, **COLS, na_values=[0])  # type: ignore[list-item]


def test_a_missing_id_is_an_error_in_every_engine(tmp_path: Path) -> None:
    path = tmp_path / "ids.csv"
    path.write_text("item,rater,label\n1,a,x\nNA,b,x\n2,a,y\n")
    for read in (
        lambda: accord.read_ratings(path, **COLS),
        lambda: stream_statistics(path, **COLS),
        lambda: dask_statistics(path, **COLS, scheduler="synchronous"),
    ):
        with pytest.raises(InvalidInputError, match=r"column 'item': .*no item id.*2"):
            read()


# ----------------------------------------------------------------------------- two raters


def test_cohen_kappa_on_integer_and_text_arrays_matches_sklearn() -> None:
    rng = np.random.default_rng(11)
    x = rng.integers(0, 5, 20_000)
    y = np.where(rng.random(20_000) < 0.6, x, rng.integers(0, 5, 20_000))
    # sklearn.metrics.cohen_kappa_score, run side by side.
    assert accord.cohen_kappa(x, y).statistic == pytest.approx(cohen_kappa_score(x, y), abs=1e-12)
    names = np.array(["a", "b", "c", "d", "e"])
    assert accord.cohen_kappa(names[x], names[y]).statistic == pytest.approx(
        cohen_kappa_score(names[x], names[y]), abs=1e-12
    )


def test_contingency_table_from_labels_of_two_types() -> None:
    t = ContingencyTable.from_labels([1, 2, 2, None], [1.0, 2.0, 1.0, 2.0])
    assert t.categories == (1, 2)
    assert t.counts.tolist() == [[1.0, 0.0], [1.0, 1.0]] and t.n_unpaired == 1


# ----------------------------------------------------------------------------- parquet


def test_parquet_dictionary_columns(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {"item": ["i2", "i1", "i2", "i1"], "rater": list("aabb"), "label": ["y", "n", "y", None]}
    )
    table = pa.Table.from_pandas(frame, preserve_index=False)
    path = tmp_path / "d.parquet"
    pq.write_table(table, path, row_group_size=2)
    r = accord.read_ratings(path, **COLS)
    assert list(r.items) == ["i2", "i1"] and r.categories == ("n", "y")
    dict_table = pq.read_table(path, read_dictionary=["item", "label"])
    d = Ratings.from_long(dict_table, **COLS)
    assert list(d.items) == ["i2", "i1"] and np.array_equal(d.item_codes, r.item_codes)
    assert dataclasses.replace(d.report, source=None) == dataclasses.replace(r.report, source=None)


def test_integer_labels_take_the_lookup_path_with_the_same_table() -> None:
    rng = np.random.default_rng(5)
    x = rng.choice([-3, 7, 9, 4000], 500)
    y = rng.choice([-3, 7, 9], 500)
    direct = ContingencyTable.from_labels(x, y)
    hashed = ContingencyTable.from_labels(x.astype(object), y.astype(object))
    assert direct.categories == hashed.categories == (-3, 7, 9, 4000)
    assert np.array_equal(direct.counts, hashed.counts)
    # Independent count of one cell.
    assert direct.counts[1, 2] == np.count_nonzero((x == 7) & (y == 9))


# ----------------------------------------------------------------------------- command line


def _agree(path: Path, *extra: str) -> Any:
    from typer.testing import CliRunner

    from accord.cli import app

    args = ["agree", str(path), "--item", "item", "--rater", "rater", "--label", "label"]
    return CliRunner().invoke(app, [*args, *extra])


def test_cli_ordinal_text_labels_ask_for_their_order(tmp_path: Path) -> None:
    path = tmp_path / "lmh.csv"
    rows = ["1,a,low", "1,b,low", "2,a,medium", "2,b,high", "3,a,high", "3,b,high"]
    path.write_text("item,rater,label\n" + "\n".join(rows) + "\n")
    res = _agree(path, "--level", "ordinal")
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "--categories high,low,medium" in res.output
    res = _agree(path, "--level", "ordinal", "--categories", "low,medium,high")
    assert res.exit_code == 0, res.output
    assert "categories in order (as declared): low < medium < high" in res.output
    res = _agree(path, "--level", "ordinal", "--categories", "low,medium,high", "--format", "json")
    assert cli_json(res.output)["report"]["order"].endswith("low < medium < high")


def test_cli_na_values_and_labels_as(tmp_path: Path) -> None:
    path = tmp_path / "n.csv"
    path.write_text("item,rater,label\n1,a,None\n1,b,None\n2,a,2\n2,b,2.0\n3,a,x\n3,b,x\n")
    res = _agree(path, "--format", "json")
    report = cli_json(res.output)["report"]
    assert report["missing"] == 2 and "'2' and '2.0'" in report["notes"][0]
    res = _agree(path, "--format", "json", "--na-values", "")
    assert cli_json(res.output)["report"]["missing"] == 0
    res = _agree(path, "--labels-as", "number")
    assert res.exit_code == 2 and "label 'x' at row 5 is not a number" in res.output
    assert "Traceback" not in res.output


def test_read_table_types_each_column_from_all_its_rows(tmp_path: Path) -> None:
    import warnings

    from accord.io.ratings import read_table

    n = 150_000
    gold = np.r_[np.ones(n - 1, dtype=np.int64).astype(str), ["x"]]
    path = tmp_path / "gold.csv"
    pd.DataFrame({"item": np.arange(n), "gold": gold, "score": 0.5}).to_csv(path, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no DtypeWarning: one type per column
        frame = read_table(path, ["item", "gold", "score"])
    assert frame["gold"].map(type).eq(str).all() and set(frame["gold"]) == {"1", "x"}
    assert frame["item"].dtype == np.int64 and frame["score"].dtype == np.float64


@pytest.mark.parametrize(
    ("multi_label", "encoder"), [(False, "encode_ratings"), (True, "encode_label_sets")]
)
def test_encode_columns_hands_the_columns_over(
    monkeypatch: pytest.MonkeyPatch, multi_label: bool, encoder: str
) -> None:
    # The encoder must hold the only references to the columns, so that it can let each go
    # once encoded: a wrapper between encode_columns and the encoder (functools.partial,
    # **options) kept them alive until it returned, about 500 MB more at the peak for 10M
    # ratings read from a file.
    import sys

    from accord.data import ratings as module

    seen: list[int] = []

    def spy(items: Any, raters: Any, labels: Any, **options: Any) -> str:
        seen.extend((sys.getrefcount(items), sys.getrefcount(raters), sys.getrefcount(labels)))
        return "encoded"

    monkeypatch.setattr(module, encoder, spy)
    out = module.encode_columns(
        np.arange(4), np.arange(4), np.array(["a", "b", "a", "b"]), multi_label=multi_label
    )
    assert out == "encoded"
    # The spy's own name and getrefcount's argument: nobody else holds a column.
    assert seen == [2, 2, 2]


# ----------------------------------------------------------------------------- dictionaries

pool = st.sampled_from(["a", "b", "01", "1", " 1", "NA", "", "None", "x y"]) | st.none()


@settings(max_examples=60, deadline=None)
@given(
    chunks=st.lists(st.lists(pool, max_size=8), min_size=1, max_size=4),
    shuffle=st.randoms(use_true_random=False),
    order=st.sampled_from(["first appearance", "shuffled", "with unused values"]),
)
def test_a_dictionary_column_encodes_as_its_values_do(
    chunks: list[list[str | None]], shuffle: Any, order: str
) -> None:
    # Each chunk has a dictionary of its own (as a file's reader builds them, in order of
    # first appearance, or in another order with values no row uses, as a Parquet file or a
    # pandas Categorical may): the indices and the distinct values are those of hashing the
    # plain values, row by row in order of first appearance.
    encoded = []
    for values in chunks:
        distinct = list(dict.fromkeys(v for v in values if v is not None))
        if order != "first appearance":
            shuffle.shuffle(distinct)
        if order == "with unused values":
            distinct.append("unused")
            shuffle.shuffle(distinct)
        indices = pa.array([None if v is None else distinct.index(v) for v in values], pa.int32())
        encoded.append(pa.DictionaryArray.from_arrays(indices, pa.array(distinct, pa.string())))
    column = pa.chunked_array(encoded, type=pa.dictionary(pa.int32(), pa.string()))
    idx, dictionary = dictionary_of(column)
    plain = pa.chunked_array([pa.array(values, pa.string()) for values in chunks], pa.string())
    want_idx, want_dictionary = dictionary_of(plain)
    assert idx.dtype == np.int32 and idx.tolist() == want_idx.tolist()
    assert dictionary.to_pylist() == want_dictionary.to_pylist()
    assert dictionary.type == want_dictionary.type


@settings(max_examples=80, deadline=None)
@given(
    chunks=st.lists(st.lists(pool, max_size=8), min_size=1, max_size=4),
    kind=st.sampled_from([pa.string(), pa.large_string(), pa.binary()]),
)
def test_a_column_hashed_in_two_halves_encodes_as_one_hash_does(
    chunks: list[list[str | None]], kind: Any
) -> None:
    # From encoder.SPLIT_ROWS rows a text column whose values repeat often is hashed in two
    # halves side by side and the second half's values numbered after the first's: the
    # indices (-1 for null) and the distinct values are those of one hash, row by row in
    # order of first appearance, here worked out by hand with a dict. Halves of nulls only,
    # halves cut inside a chunk and values met only in the second half are among the cases
    # drawn.
    import accord.data.encoder as encoder

    rows = [v for values in chunks for v in values]
    seen: dict[Any, int] = {}
    want = [-1 if v is None else seen.setdefault(v, len(seen)) for v in rows]
    cast = (lambda v: v) if kind != pa.binary() else (lambda v: None if v is None else v.encode())
    column = pa.chunked_array([pa.array([cast(v) for v in c], kind) for c in chunks], kind)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(encoder, "usable_cores", lambda: 2)
        mp.setattr(encoder, "_repeats_often", lambda array: True)
        mp.setattr(encoder, "SPLIT_ROWS", 1)
        idx, dictionary = dictionary_of(column)
        mp.setattr(encoder, "SPLIT_ROWS", 10**9)  # one hash, as the halves give
        whole_idx, whole = dictionary_of(column)
    assert idx.dtype == np.int32 and idx.tolist() == want
    assert dictionary.to_pylist() == [cast(v) for v in seen]
    assert dictionary.type == kind
    assert whole_idx.tolist() == want and whole.equals(dictionary)


# Cells as a spreadsheet writes them: numbers spelled several ways, missing-value spellings,
# empty and quoted empty cells, blanks, booleans, text with a separator inside quotes.
cell = st.sampled_from(
    ["1", "01", " 1", "1.0", "2", "-3", "x", "X", "NA", "na", "N/A", "None", "null", "", '""',
     " ", "true", "False", "TRUE", "x ", "nan", "inf", "a b", '"q,uoted"']
)  # fmt: skip
ids = st.sampled_from(["1", "01", " 1", "1.0", "2", "y", "true", "a b", '"q,uoted"'])


def _outcome(read: Any) -> Any:
    """What a read gives: the ratings' ids, categories, codes and report, or the error. Each
    id and category is shown by its type and its repr, so that a NaN equals a NaN."""
    try:
        r = read()
    except accord.AccordError as exc:
        return type(exc).__name__, str(exc)
    return (
        [(type(v), repr(v)) for v in r.items],
        [(type(v), repr(v)) for v in r.raters],
        [(type(c), repr(c)) for c in r.categories],
        r.item_codes.tolist(),
        r.rater_codes.tolist(),
        r.label_codes.tolist(),
        r.missing_item_codes.tolist(),
        r.missing_rater_codes.tolist(),
        r.report,
    )


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    rows=st.lists(st.tuples(ids, ids, cell), min_size=1, max_size=40),
    no_id=st.sampled_from([None, None, None, "NA", ""]),
    na_values=st.sampled_from([None, [], ["x", "None"]]),
    categories=st.sampled_from([None, None, None, ["NA", "x", "1", "q,uoted", "2", "nan"]]),
    labels_as=st.sampled_from(["auto", "text", "number", "normalized"]),
    duplicates=st.sampled_from(["raise", "first", "last"]),
)
# the label "nan" when it is not a missing spelling: a text category on every path
@example(
    rows=[("1", "1", "nan")],
    no_id=None,
    na_values=[],
    categories=None,
    labels_as="auto",
    duplicates="raise",
)
def test_a_csv_file_reads_as_its_text_does(
    tmp_path_factory: pytest.TempPathFactory,
    rows: list[tuple[str, str, str]],
    no_id: str | None,
    na_values: list[str] | None,
    categories: list[str] | None,
    labels_as: Any,
    duplicates: Any,
) -> None:
    # read_ratings reads a CSV file's columns dictionary-encoded while they are parsed; in
    # many blocks (of 32 bytes), it gives what the columns read as text give, and what
    # pandas' own reader gives (empty and quoted empty cells missing): the same ratings,
    # types of the ids and the categories, and error messages with the same rows.
    import pyarrow.csv as pacsv

    from accord.data.ratings import encode_columns
    from accord.io import ratings as readers
    from accord.io.files import read_csv_columns

    if no_id is not None:  # a missing id (an error naming its row)
        rows[-1] = (no_id, *rows[-1][1:])
    path = tmp_path_factory.mktemp("csv") / "r.csv"
    path.write_text("item,rater,label\n" + "".join(",".join(row) + "\n" for row in rows))
    options: dict[str, Any] = dict(
        na_values=na_values, categories=categories, labels_as=labels_as, duplicates=duplicates
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pacsv, "ReadOptions", functools.partial(pacsv.ReadOptions, block_size=32))
        encoded = _outcome(lambda: accord.read_ratings(path, **COLS, **options))

        def as_text(*args: Any, **kwargs: Any) -> Any:
            table = read_csv_columns(*args, **{**kwargs, "dictionary": False})
            assert not pa.types.is_dictionary(table.column(0).type)
            return table

        patch.setattr(readers, "read_csv_columns", as_text)
        text = _outcome(lambda: accord.read_ratings(path, **COLS, **options))
    frame = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])
    by_pandas = _outcome(
        lambda: encode_columns(
            frame["item"],
            frame["rater"],
            frame["label"],
            text=True,
            source=str(path),
            columns=("item", "rater", "label"),
            **options,
        )
    )
    assert encoded == text
    assert encoded == by_pandas
    if len(encoded) > 2:  # read (not an error): each category is a label written or declared
        written = {cell.removeprefix('"').removesuffix('"') for _, _, cell in rows}
        written |= {cell.strip() for cell in written} | set(categories or ())
        for kind, shown in encoded[2]:
            assert any(_spells(text, kind, shown) for text in written), (shown, written)


def _spells(text: str, kind: type, shown: str) -> bool:
    """Whether the cell ``text`` reads as the category of type ``kind`` and repr ``shown``:
    the same text, the same number (a truth value read as a number is 1 or 0), or the same
    truth value."""
    if kind is str:
        return repr(text) == shown
    if kind is bool:
        return text.lower() == shown.lower()
    truth = {"true": 1.0, "false": 0.0}.get(text.lower())  # labels_as="number": 1 and 0
    try:
        return (truth if truth is not None else float(text)) == float(shown)
    except ValueError:
        return False


def test_a_csv_file_is_read_in_dictionary_blocks(tmp_path: Path) -> None:
    import pyarrow.csv as pacsv

    from accord.io.files import read_csv_columns, sniff_csv

    path = tmp_path / "r.csv"
    cells = "".join(f"i{k % 3},{'' if k % 4 else 'x'}\n" for k in range(9))
    path.write_text("item,label\n" + cells)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pacsv, "ReadOptions", functools.partial(pacsv.ReadOptions, block_size=16))
        table = read_csv_columns(sniff_csv(path), ["item", "label"], dictionary=True)
    item = table.column("item")
    assert item.type == pa.dictionary(pa.int32(), pa.string()) and item.num_chunks > 1
    assert item.to_pylist() == [f"i{k % 3}" for k in range(9)]
    assert table.column("label").to_pylist() == [None if k % 4 else "x" for k in range(9)]


@given(st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.none()), max_size=50))
def test_missing_mask_of_numbers_is_null_or_nan(values: list[float | None]) -> None:
    # numbers take the numeric path (no dictionary of values): missing = null or NaN, the
    # same answer the text rule gives for the distinct values of the column
    from accord.data.encoder import arrow_of, dictionary_of, missing_mask, missing_of

    arr = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
    assert np.array_equal(missing_mask(arr), np.isnan(arr))
    if arr.size:
        idx, dictionary = dictionary_of(arrow_of(arr))
        assert np.array_equal(missing_mask(arr), np.r_[missing_of(dictionary), True][idx])
    ints = np.arange(len(values), dtype=np.int64)
    assert not missing_mask(ints).any()
