"""Ratings and ContingencyTable: construction from every source, validation, reporting."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import accord
from accord import (
    ColumnNotFoundError,
    ContingencyTable,
    DuplicateRatingError,
    InvalidInputError,
    Ratings,
)


def long_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "item": [1, 1, 1, 2, 2, 3, 3, 3],
            "rater": ["a", "b", "c", "a", "b", "a", "b", "c"],
            "label": ["x", "x", "y", "y", "y", "x", None, "x"],
        }
    )


def test_from_long_encodes_and_reports() -> None:
    r = Ratings.from_long(long_frame(), item="item", rater="rater", label="label")
    assert (r.n_items, r.n_raters, r.n_ratings) == (3, 3, 7)
    assert r.categories == ("x", "y")
    assert r.report.rows == 8
    assert r.report.missing == 1
    assert r.report.dropped == 1
    assert dict(r.report.reasons) == {"missing label": 1}
    # decode tables round-trip
    back = r.to_pandas()
    kept = long_frame().dropna()
    assert sorted(map(tuple, back.to_numpy().tolist())) == sorted(
        map(tuple, kept.to_numpy().tolist())
    )


def test_missing_raise_names_rows() -> None:
    with pytest.raises(InvalidInputError, match=r"row.* 7"):
        Ratings.from_long(long_frame(), item="item", rater="rater", label="label", missing="raise")


def test_unknown_column_lists_columns() -> None:
    with pytest.raises(ColumnNotFoundError, match=r"'labels' not found; the columns are: 'item'"):
        Ratings.from_long(long_frame(), item="item", rater="rater", label="labels")


def test_empty_input() -> None:
    with pytest.raises(InvalidInputError, match="empty"):
        Ratings.from_long(long_frame().iloc[:0], item="item", rater="rater", label="label")


def test_item_with_only_missing_labels_stays_without_ratings() -> None:
    frame = pd.DataFrame(
        {"i": [1, 1, 2, 2], "r": ["a", "b", "a", "b"], "s": ["x", "y", None, None]}
    )
    r = Ratings.from_long(frame, item="i", rater="r", label="s")
    assert r.n_items == 2 and r.report.items == 1 and r.report.missing == 2
    assert accord.ItemCategoryCounts.from_ratings(r).totals().tolist() == [2, 0]


def test_all_missing_labels() -> None:
    frame = long_frame().assign(label=None)
    with pytest.raises(InvalidInputError, match="all 8 rows have a missing label"):
        Ratings.from_long(frame, item="item", rater="rater", label="label")


def test_duplicates_raise_lists_pairs_and_rows() -> None:
    frame = pd.concat([long_frame(), long_frame().iloc[[0, 3]]], ignore_index=True)
    with pytest.raises(DuplicateRatingError) as info:
        Ratings.from_long(frame, item="item", rater="rater", label="label")
    msg = str(info.value)
    assert "2 (item, rater) pairs" in msg
    assert "(1, 'a') at rows 1, 9" in msg
    assert "(2, 'a') at rows 4, 10" in msg


def test_duplicates_first_last_mean() -> None:
    frame = pd.DataFrame(
        {"item": [1, 1, 1, 2], "rater": ["a", "a", "b", "a"], "label": [1.0, 3.0, 2.0, 4.0]}
    )
    first = Ratings.from_long(frame, item="item", rater="rater", label="label", duplicates="first")
    last = Ratings.from_long(frame, item="item", rater="rater", label="label", duplicates="last")
    mean = Ratings.from_long(
        frame, item="item", rater="rater", label="label", duplicates="mean", level="interval"
    )
    assert first.to_wide().loc[1, "a"] == 1
    assert last.to_wide().loc[1, "a"] == 3
    assert mean.to_wide().loc[1, "a"] == 2.0
    for r in (first, last, mean):
        assert r.n_ratings == 3
        assert r.report.dropped == 1
        assert len(r.report.reasons) == 1
    with pytest.raises(InvalidInputError, match="needs level='interval' or 'ratio'"):
        Ratings.from_long(frame, item="item", rater="rater", label="label", duplicates="mean")


def test_interval_level_names_unparseable_row() -> None:
    frame = pd.DataFrame({"i": [1, 1, 2], "r": ["a", "b", "a"], "s": ["1.5", "2", "high"]})
    with pytest.raises(InvalidInputError, match=r"'high' at row 3 is not a number"):
        Ratings.from_long(frame, item="i", rater="r", label="s", level="interval")
    ok = Ratings.from_long(frame.iloc[:2], item="i", rater="r", label="s", level="interval")
    assert ok.values is not None
    assert ok.values.tolist() == [1.5, 2.0]


def test_ratio_level_rejects_negative() -> None:
    frame = pd.DataFrame({"i": [1, 1], "r": ["a", "b"], "s": [1.0, -2.0]})
    with pytest.raises(InvalidInputError, match="negative"):
        Ratings.from_long(frame, item="i", rater="r", label="s", level="ratio")


def test_declared_categories_order_and_validation() -> None:
    frame = pd.DataFrame({"i": [1, 1, 2, 2], "r": ["a", "b"] * 2, "s": ["lo", "hi", "mid", "hi"]})
    r = Ratings.from_long(
        frame, item="i", rater="r", label="s", level="ordinal", categories=["lo", "mid", "hi"]
    )
    assert r.categories == ("lo", "mid", "hi")
    assert r.categories_declared
    with pytest.raises(InvalidInputError, match=r"'mid' at row 3 is not among the declared"):
        Ratings.from_long(frame, item="i", rater="r", label="s", categories=["lo", "hi"])


def test_declared_domain_keeps_unused_categories() -> None:
    r = Ratings.from_wide([[1, 1], [2, 2]], categories=[1, 2, 3, 4])
    assert r.n_categories == 4
    assert accord.ItemCategoryCounts.from_ratings(r).shape == (2, 4)


def test_numeric_labels_sort_numerically_not_as_text() -> None:
    # R irr sorts numeric levels as strings (1, 10, 2); accord does not.
    r = Ratings.from_wide([[1, 10], [2, 1], [10, 2]])
    assert r.categories == (1, 2, 10)


def test_ordered_pandas_categorical_gives_order() -> None:
    frame = pd.DataFrame(
        {
            "i": [1, 1],
            "r": ["a", "b"],
            "s": pd.Categorical(["hi", "lo"], categories=["lo", "hi"], ordered=True),
        }
    )
    r = Ratings.from_long(frame, item="i", rater="r", label="s", level="ordinal")
    assert r.categories == ("lo", "hi")


def test_integral_floats_from_blanks_become_integers(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "r.csv"
    path.write_text("item,rater,label\n1,a,1\n1,b,\n2,a,2\n2,b,2\n")
    r = accord.read_ratings(path, item="item", rater="rater", label="label")
    assert r.categories == (1, 2)
    assert r.report.source == str(path)


def test_from_wide_frame_and_array() -> None:
    frame = pd.DataFrame({"r1": ["a", "b", None], "r2": ["a", "a", "b"]}, index=["i1", "i2", "i3"])
    r = Ratings.from_wide(frame)
    assert list(r.raters) == ["r1", "r2"]
    assert list(r.items) == ["i1", "i2", "i3"]
    assert r.report.missing == 1
    # the missing cell is kept as an assignment without a label: (i3, r1)
    assert r.items[r.missing_item_codes].tolist() == ["i3"]
    assert r.raters[r.missing_rater_codes].tolist() == ["r1"]
    arr = Ratings.from_wide(np.array([[1.0, np.nan], [2.0, 2.0]]))
    assert arr.n_ratings == 3
    with pytest.raises(InvalidInputError, match="2-D"):
        Ratings.from_wide(np.array([1, 2, 3]))


def test_from_wide_item_column() -> None:
    frame = pd.DataFrame({"id": ["x", "y"], "r1": [1, 2], "r2": [1, 1]})
    r = Ratings.from_wide(frame, item="id")
    assert list(r.items) == ["x", "y"]
    assert list(r.raters) == ["r1", "r2"]
    with pytest.raises(ColumnNotFoundError, match="'nope' not found"):
        Ratings.from_wide(frame, item="nope")


def test_missing_item_id_is_an_error() -> None:
    frame = pd.DataFrame({"i": [1, None], "r": ["a", "b"], "s": ["x", "y"]})
    with pytest.raises(InvalidInputError, match=r"column .i.: 1 row has no item id \(row 2\)"):
        Ratings.from_long(frame, item="i", rater="r", label="s")


def test_bad_option_message_template() -> None:
    with pytest.raises(InvalidInputError, match=r"The 'level' parameter of Ratings must be one of"):
        Ratings.from_long(long_frame(), item="item", rater="rater", label="label", level="nominl")  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", ["polars", "pyarrow", "duckdb"])
def test_frames_of_every_kind_give_the_same_ratings(kind: str) -> None:
    base = long_frame().dropna()
    expected = Ratings.from_long(base, item="item", rater="rater", label="label")
    if kind == "polars":
        import polars as pl

        frame = pl.from_pandas(base)
    elif kind == "pyarrow":
        import pyarrow as pa

        frame = pa.Table.from_pandas(base, preserve_index=False)
    else:
        import duckdb

        con = duckdb.connect()
        con.register("base", base)
        frame = con.sql("select * from base")
    got = Ratings.from_long(frame, item="item", rater="rater", label="label")
    assert got.categories == expected.categories
    assert np.array_equal(got.code_matrix(), expected.code_matrix())
    assert list(got.items) == list(expected.items)


@pytest.mark.parametrize("suffix", ["csv", "tsv", "parquet", "jsonl"])
def test_read_ratings_every_format(tmp_path, suffix: str) -> None:  # type: ignore[no-untyped-def]
    frame = long_frame()
    path = tmp_path / f"r.{suffix}"
    if suffix == "csv":
        frame.to_csv(path, index=False)
    elif suffix == "tsv":
        frame.to_csv(path, index=False, sep="\t")
    elif suffix == "parquet":
        frame.to_parquet(path)
    else:
        frame.to_json(path, orient="records", lines=True)
    r = accord.read_ratings(path, item="item", rater="rater", label="label")
    assert (r.n_items, r.n_raters, r.n_ratings, r.report.missing) == (3, 3, 7, 1)
    with pytest.raises(ColumnNotFoundError, match="the columns are"):
        accord.read_ratings(path, item="item", rater="who", label="label")


def test_read_ratings_errors(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(FileNotFoundError):
        accord.read_ratings(tmp_path / "nope.csv", item="i", rater="r", label="l")
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(InvalidInputError, match="empty"):
        accord.read_ratings(tmp_path / "empty.csv", item="i", rater="r", label="l")
    (tmp_path / "x.weird").write_text("a")
    with pytest.raises(InvalidInputError, match="file format"):
        accord.read_ratings(tmp_path / "x.weird", item="i", rater="r", label="l")


def test_subset_keeps_dictionaries() -> None:
    r = Ratings.from_long(long_frame(), item="item", rater="rater", label="label")
    half = r.subset(r.item_codes == 0)
    assert half.n_items == r.n_items
    assert half.n_ratings == 3


# ---------------------------------------------------------------- contingency tables


def test_contingency_table_validation() -> None:
    with pytest.raises(InvalidInputError, match="square"):
        ContingencyTable([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(InvalidInputError, match=r"cell \(0, 1\) is negative"):
        ContingencyTable([[1, -2], [3, 4]])
    with pytest.raises(InvalidInputError, match="empty"):
        ContingencyTable([[0, 0], [0, 0]])
    with pytest.raises(InvalidInputError, match="at least 2 categories"):
        ContingencyTable([[3]])


def test_contingency_table_from_ratings_and_labels(examples) -> None:  # type: ignore[no-untyped-def]
    # Casagrande, Fabris & Girometti (2020), Table 2: rows ABVS, columns US.
    r = accord.read_ratings(
        examples / "birads.csv", item="finding", rater="modality", label="birads"
    )
    t = ContingencyTable.from_ratings(r)
    assert t.raters == ("ABVS", "US")
    assert t.counts.tolist() == [
        [51, 4, 0, 1, 1],
        [3, 78, 1, 0, 0],
        [0, 0, 13, 4, 0],
        [0, 1, 1, 16, 7],
        [0, 0, 0, 0, 5],
    ]
    swapped = ContingencyTable.from_ratings(r, raters=("US", "ABVS"))
    assert np.array_equal(swapped.counts, t.counts.T)
    lab = ContingencyTable.from_labels(["a", "b", None, "b"], ["a", "a", "b", "b"])
    assert lab.counts.tolist() == [[1, 0], [1, 1]]
    assert lab.n_unpaired == 1


def test_contingency_table_read_csv(examples, tmp_path) -> None:  # type: ignore[no-untyped-def]
    t = ContingencyTable.read_csv(examples / "birads-table.csv")
    assert t.categories == ("BR1", "BR2", "BR3", "BR4", "BR5")
    assert t.raters == ("ABVS", "US")
    assert t.n == 186
    numeric = tmp_path / "numeric.csv"
    numeric.write_text(",1,2,5\n1,3,1,0\n2,0,2,1\n5,0,0,4\n")
    assert ContingencyTable.read_csv(numeric).categories == (1, 2, 5)
    mismatch = tmp_path / "mismatch.csv"
    mismatch.write_text(",a,b\nb,1,2\na,3,4\n")
    with pytest.raises(InvalidInputError, match="row categories"):
        ContingencyTable.read_csv(mismatch)
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("1,2\n3,4,5,6\n")
    with pytest.raises(InvalidInputError, match="square"):
        ContingencyTable.read_csv(ragged)
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(InvalidInputError, match="empty"):
        ContingencyTable.read_csv(empty)
    bare = tmp_path / "bare.csv"
    bare.write_text("3,1\n2,4\n")
    assert ContingencyTable.read_csv(bare).counts.tolist() == [[3, 1], [2, 4]]
    bad = tmp_path / "bad.csv"
    bad.write_text("1,2,3\n4,5,6\n")
    with pytest.raises(InvalidInputError, match="square"):
        ContingencyTable.read_csv(bad)


@pytest.mark.parametrize("top", [float("inf"), float("nan")])
def test_counts_whose_categories_are_not_finite_numbers_are_scaled_by_position(
    top: float,
) -> None:
    # Categories that are not all finite numbers are scaled by their positions, for counts
    # as for Ratings (Ratings.category_values), never read as a silent NaN. The items
    # (1, 1), (1, 2), (2, 3), (3, 3) on the positions of the three categories:
    # krippendorff.alpha(reliability_data=[[1, 1, 2, 3], [1, 2, 3, 3]],
    #                    level_of_measurement="interval")
    import krippendorff

    counts = np.array([[2, 0, 0], [1, 1, 0], [0, 1, 1], [0, 0, 2]])
    peer = krippendorff.alpha(
        reliability_data=[[1, 1, 2, 3], [1, 2, 3, 3]], level_of_measurement="interval"
    )
    got = accord.krippendorff_alpha(counts, categories=(1.0, 2.0, top), level="interval")
    assert got.statistic == pytest.approx(peer, abs=1e-12)
    assert peer == pytest.approx(0.7083333, abs=1e-6)


@pytest.mark.parametrize("level", ["interval", "ratio"])
def test_float_scores_are_numbered_by_one_sort_as_by_the_hash(
    level: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Float scores at the interval and ratio levels are numbered by one sort of the present
    # values instead of a hash then a sort of the distinct ones: the same Ratings as the
    # general path (forced here), with NaN and nulls missing, float32, whole numbers read
    # as ints and the note on numbers that differ by float noise.
    import pyarrow as pa

    from accord.data import ratings as module

    gen = np.random.default_rng(12)
    scores = np.round(gen.uniform(0.0, 9.0, 400), 1)
    scores[::37] = np.nan
    cases = [
        pa.array(scores),
        pa.array(np.where(np.isnan(scores), None, scores), type=pa.float64()),
        pa.chunked_array([pa.array(scores[:150]), pa.array(scores[150:])]),
        pa.array(scores.astype(np.float32)),
        pa.array(np.floor(scores)),
        pa.array(np.r_[scores[:398], 0.1 + 0.2, 0.3]),
    ]
    items = np.repeat(np.arange(200), 2)
    raters = np.tile(["a", "b"], 200)

    real, numbered = module._float_labels, []

    def counted(*args: object, **kwargs: object) -> object:
        out = real(*args, **kwargs)  # type: ignore[arg-type]
        numbered.append(out is not None)
        return out

    monkeypatch.setattr(module, "_float_labels", counted)

    def read(labels: object) -> accord.Ratings:
        return accord.Ratings.from_arrays(items, raters, labels, level=level)

    for labels in cases:
        fast = read(labels)
        with monkeypatch.context() as m:
            m.setattr(module, "_float_labels", lambda *a, **k: None)
            general = read(labels)
        assert fast.categories == general.categories
        assert [type(c) for c in fast.categories] == [type(c) for c in general.categories]
        assert np.array_equal(fast.label_codes, general.label_codes)
        assert np.array_equal(fast.item_codes, general.item_codes)
        assert np.array_equal(fast.category_values, general.category_values)
        assert fast.report == general.report
    assert numbered == [True] * len(cases)  # the sort, not the general path, on each
    # by hand: codes into the sorted distinct present values
    r = read(pa.array(np.r_[[2.5, np.nan, 1.0, 2.5], np.full(396, 7.25)]))
    assert r.categories[:3] == (1.0, 2.5, 7.25) and r.report.missing == 1
    assert r.label_codes[:3].tolist() == [1, 0, 1]


def test_float_scores_that_are_not_finite_are_named_by_row() -> None:
    # The sort leaves infinite (and at the ratio level negative) scores to the general path,
    # whose message names the first row.
    import pyarrow as pa

    items, raters = [1, 1, 2, 2], ["a", "b", "a", "b"]
    with pytest.raises(accord.InvalidInputError, match=r"label inf at row 3 is not finite"):
        accord.Ratings.from_arrays(items, raters, pa.array([1.0, 2.0, np.inf, 3.0]),
                                   level="interval")  # fmt: skip
    with pytest.raises(accord.InvalidInputError, match=r"at row 2 is negative"):
        accord.Ratings.from_arrays(items, raters, pa.array([1.0, -2.0, 1.5, 3.0]),
                                   level="ratio")  # fmt: skip
