"""Set-valued (multi-label) ratings: the data model, set distances, per-label agreement,
the multi-valued alpha, the engines and the command line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from accord import Ratings
from accord._errors import InvalidInputError

# --------------------------------------------------------------------------- data model


def _long(rows: list[tuple[object, object, object]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["item", "rater", "label"])


def _sets_of(r: Ratings) -> dict[tuple[object, object], frozenset[object]]:
    frame = r.to_pandas()
    return {
        (i, j): s for i, j, s in zip(frame["item"], frame["rater"], frame["label"], strict=True)
    }


def test_repeated_rows_make_one_set_per_item_and_rater() -> None:
    frame = _long(
        [
            (1, "a", "x"),
            (1, "a", "y"),
            (1, "b", "x"),
            (2, "a", "y"),
            (2, "b", "z"),
            (2, "b", "y"),
        ]
    )
    r = Ratings.from_long(frame, item="item", rater="rater", label="label", multi_label=True)
    assert r.multi_label
    assert r.n_ratings == 4
    assert _sets_of(r) == {
        (1, "a"): frozenset({"x", "y"}),
        (1, "b"): frozenset({"x"}),
        (2, "a"): frozenset({"y"}),
        (2, "b"): frozenset({"y", "z"}),
    }
    assert r.label_sets is not None
    assert r.label_sets.labels == ("x", "y", "z")
    # categories: each distinct set, by size and then by its labels
    assert r.categories == (
        frozenset({"x"}),
        frozenset({"y"}),
        frozenset({"x", "y"}),
        frozenset({"y", "z"}),
    )
    assert r.label_sets.sets() == r.categories
    assert r.label_sets.membership.tolist() == [
        [True, False, False],
        [False, True, False],
        [True, True, False],
        [False, True, True],
    ]
    assert r.report.rows == 6
    assert r.report.ratings == 4
    assert r.report.dropped == 0


def test_list_column_and_repeated_rows_agree() -> None:
    listed = pd.DataFrame(
        {
            "item": [1, 1, 2, 2],
            "rater": ["a", "b", "a", "b"],
            "label": [["x", "y"], ("x",), {"y"}, ["z", "y"]],
        }
    )
    rows = _long(
        [(1, "a", "x"), (1, "a", "y"), (1, "b", "x"), (2, "a", "y"), (2, "b", "z"), (2, "b", "y")]
    )
    a = Ratings.from_long(listed, item="item", rater="rater", label="label", multi_label=True)
    b = Ratings.from_long(rows, item="item", rater="rater", label="label", multi_label=True)
    assert _sets_of(a) == _sets_of(b)
    assert a.categories == b.categories
    np.testing.assert_array_equal(a.label_codes, b.label_codes)


def test_arrow_and_polars_list_columns() -> None:
    table = pa.table(
        {
            "item": [1, 1, 2, 2],
            "rater": ["a", "b", "a", "b"],
            "label": [["x", "y"], ["x"], [], None],
        }
    )
    for frame in (table, pl.from_arrow(table)):
        r = Ratings.from_long(frame, item="item", rater="rater", label="label", multi_label=True)
        assert _sets_of(r) == {
            (1, "a"): frozenset({"x", "y"}),
            (1, "b"): frozenset({"x"}),
            (2, "a"): frozenset(),
        }
        # the missing cell is an assignment without a rating, counted in the report
        assert r.report.missing == 1
        assert r.items[r.missing_item_codes].tolist() == [2]
        assert r.raters[r.missing_rater_codes].tolist() == ["b"]


def test_empty_set_is_a_rating_and_missing_is_not() -> None:
    frame = pd.DataFrame(
        {
            "item": [1, 1, 1, 2, 2],
            "rater": ["a", "b", "c", "a", "b"],
            "label": [[], None, float("nan"), ["x"], []],
        }
    )
    r = Ratings.from_long(frame, item="item", rater="rater", label="label", multi_label=True)
    assert _sets_of(r) == {
        (1, "a"): frozenset(),
        (2, "a"): frozenset({"x"}),
        (2, "b"): frozenset(),
    }
    assert r.categories == (frozenset(), frozenset({"x"}))
    assert r.report.missing == 2
    assert dict(r.report.reasons) == {"missing label": 2}
    with pytest.raises(InvalidInputError, match=r"'label': 2 rows have a missing label \(rows 2"):
        Ratings.from_long(
            frame, item="item", rater="rater", label="label", multi_label=True, missing="raise"
        )


def test_a_label_repeated_in_a_set_counts_once_and_is_reported() -> None:
    frame = pd.DataFrame(
        {
            "item": [1, 1, 1],
            "rater": ["a", "a", "b"],
            "label": [["x", "x"], "x", ["y", None]],
        }
    )
    r = Ratings.from_long(frame, item="item", rater="rater", label="label", multi_label=True)
    assert _sets_of(r) == {(1, "a"): frozenset({"x"}), (1, "b"): frozenset({"y"})}
    text = str(r.report)
    assert "2 labels given again to the same (item, rater), counted once" in text
    assert "1 missing value inside lists of labels left out" in text


def test_a_missing_row_beside_labelled_rows_of_the_same_pair_is_dropped() -> None:
    frame = _long([(1, "a", "x"), (1, "a", None), (1, "b", "y")])
    r = Ratings.from_long(frame, item="item", rater="rater", label="label", multi_label=True)
    assert _sets_of(r) == {(1, "a"): frozenset({"x"}), (1, "b"): frozenset({"y"})}
    assert r.report.dropped == 1
    assert r.missing_item_codes.size == 0  # (1, "a") is rated: no bare assignment


def test_declared_labels_are_the_single_labels() -> None:
    frame = _long([(1, "a", "x"), (1, "b", "y")])
    r = Ratings.from_long(
        frame,
        item="item",
        rater="rater",
        label="label",
        multi_label=True,
        categories=["y", "x", "w"],
    )
    assert r.label_sets is not None
    assert r.label_sets.labels == ("y", "x", "w")
    bad = pd.DataFrame({"item": [1, 2], "rater": ["a", "a"], "label": [["x"], ["x", "v"]]})
    with pytest.raises(InvalidInputError, match=r"label 'v' at row 2 is not among the declared"):
        Ratings.from_long(
            bad, item="item", rater="rater", label="label", multi_label=True, categories=["x"]
        )


def test_options_that_do_not_apply_to_sets_are_refused() -> None:
    frame = _long([(1, "a", 1), (1, "b", 2)])
    with pytest.raises(InvalidInputError, match="sets of labels have no ordinal order"):
        Ratings.from_long(
            frame, item="item", rater="rater", label="label", multi_label=True, level="ordinal"
        )
    with pytest.raises(InvalidInputError, match="duplicates='first' does not apply"):
        Ratings.from_long(
            frame, item="item", rater="rater", label="label", multi_label=True, duplicates="first"
        )


def test_missing_id_is_named() -> None:
    frame = _long([(1, "a", "x"), (None, "b", "y")])
    with pytest.raises(InvalidInputError, match=r"column 'item': 1 rows have no item id \(rows 2"):
        Ratings.from_long(frame, item="item", rater="rater", label="label", multi_label=True)


def test_from_arrays_and_subset_keep_the_sets() -> None:
    r = Ratings.from_arrays(
        [1, 1, 2, 2], ["a", "b", "a", "b"], [["x"], ["x", "y"], ["y"], []], multi_label=True
    )
    assert r.label_sets is not None
    sub = r.subset(r.item_codes == 0)
    assert sub.label_sets is r.label_sets
    assert sub.n_ratings == 2
    assert r.code_matrix().shape == (2, 2)
