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

from .._cli import cli_json

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
    with pytest.raises(InvalidInputError, match=r"column 'item': 1 row has no item id \(row 2"):
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


# --------------------------------------------------------------------------- set distances

import itertools  # noqa: E402
import math  # noqa: E402
import warnings  # noqa: E402

from hypothesis import assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from nltk.metrics.agreement import AnnotationTask  # noqa: E402
from nltk.metrics.distance import jaccard_distance, masi_distance  # noqa: E402

import accord  # noqa: E402
from accord.agreement.multi_valued import expected_set_disagreement  # noqa: E402
from accord.agreement.set_distances import set_distance_matrix  # noqa: E402

Triples = list[tuple[str, int, frozenset[str]]]


def _ratings(triples: Triples) -> Ratings:
    frame = pd.DataFrame(triples, columns=["rater", "item", "label"])
    return Ratings.from_long(frame, item="item", rater="rater", label="label", multi_label=True)


# Passonneau (2006) and NLTK's own docstring: MASI({1, 2}, {1, 2, 3, 4}) = 1 - (2/4)(2/3).
def test_set_distances_against_nltk_on_every_pair_of_subsets() -> None:
    subsets = [frozenset(c) for k in range(1, 4) for c in itertools.combinations("abc", k)]
    membership = np.array([[x in s for x in "abc"] for s in subsets])
    for kind, peer in (("masi", masi_distance), ("jaccard", jaccard_distance)):
        ours = set_distance_matrix(membership, kind)
        theirs = np.array([[peer(set(s), set(t)) for t in subsets] for s in subsets])
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-15)
    assert math.isclose(masi_distance({1, 2}, {1, 2, 3, 4}), 1 - 0.5 * 2 / 3)


# NLTK 3.10 AnnotationTask(data, distance=...).alpha() on the same triples (coder, item, set).
NLTK_CASES: list[Triples] = [
    [
        ("a", 1, frozenset("xy")), ("b", 1, frozenset("x")), ("c", 1, frozenset("xy")),
        ("a", 2, frozenset("z")), ("b", 2, frozenset("z")), ("c", 2, frozenset("yz")),
        ("a", 3, frozenset("x")), ("b", 3, frozenset("y")),
        ("a", 4, frozenset("xyz")), ("b", 4, frozenset("xy")), ("c", 4, frozenset("w")),
        ("a", 5, frozenset("w")),
    ],
    # Passonneau (2006)-style: two coders, sets that nest, overlap, or are disjoint.
    [
        ("1", 1, frozenset({"p"})), ("2", 1, frozenset({"p", "q"})),
        ("1", 2, frozenset({"q", "r"})), ("2", 2, frozenset({"r", "s"})),
        ("1", 3, frozenset({"s"})), ("2", 3, frozenset({"s"})),
        ("1", 4, frozenset({"p", "q", "r"})), ("2", 4, frozenset({"t"})),
    ],
]  # fmt: skip


@pytest.mark.parametrize("triples", NLTK_CASES)
@pytest.mark.parametrize("kind", ["masi", "jaccard"])
def test_set_alpha_equals_nltk(triples: Triples, kind: str) -> None:
    peer = {"masi": masi_distance, "jaccard": jaccard_distance}[kind]
    expected = AnnotationTask(triples, distance=peer).alpha()
    result = accord.krippendorff_alpha(_ratings(triples), distance=kind)
    assert result.statistic == pytest.approx(expected, rel=1e-12)
    assert result.weights == kind


@st.composite
def set_triples(draw: st.DrawFn, empty: bool = False) -> Triples:
    n_items = draw(st.integers(2, 7))
    raters = ["r1", "r2", "r3", "r4"][: draw(st.integers(2, 4))]
    subsets = st.frozensets(st.sampled_from("abcd"), min_size=0 if empty else 1, max_size=4)
    out: Triples = []
    for item in range(n_items):
        for rater in raters:
            if draw(st.booleans()) or rater in ("r1", "r2"):
                out.append((rater, item, draw(subsets)))
    return out


def _pairable_sets(triples: Triples) -> set[frozenset[str]]:
    by_item: dict[int, list[frozenset[str]]] = {}
    for _, item, s in triples:
        by_item.setdefault(item, []).append(s)
    return {s for sets in by_item.values() if len(sets) > 1 for s in sets}


@settings(max_examples=20)
@given(set_triples())
def test_set_alpha_equals_nltk_on_generated_data(triples: Triples) -> None:
    # NLTK returns 1 when every pairable value is the same; accord returns NaN (0/0).
    assume(len(_pairable_sets(triples)) > 1)
    r = _ratings(triples)
    for kind, peer in (("masi", masi_distance), ("jaccard", jaccard_distance)):
        expected = AnnotationTask(triples, distance=peer).alpha()
        ours = accord.krippendorff_alpha(r, distance=kind).statistic
        assert ours == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_one_distinct_set_is_nan_where_nltk_says_one() -> None:
    triples = [("a", 1, frozenset("x")), ("b", 1, frozenset("x")), ("a", 2, frozenset("y"))]
    assert AnnotationTask(triples, distance=masi_distance).alpha() == 1
    with pytest.warns(accord.DegenerateDataWarning):
        result = accord.krippendorff_alpha(_ratings(triples), distance="masi")
    assert math.isnan(result.statistic)
    assert result.reason is not None


def test_empty_sets_agree_with_each_other() -> None:
    # NLTK divides by |A u B| = 0 for two empty sets; here they are at distance 0.
    membership = np.array([[False, False], [True, False]])
    for kind in ("masi", "jaccard"):
        np.testing.assert_array_equal(set_distance_matrix(membership, kind), [[0, 1], [1, 0]])


@settings(max_examples=20)
@given(set_triples(empty=True))
def test_set_alpha_invariances(triples: Triples) -> None:
    assume(len(_pairable_sets(triples)) > 1)
    base = accord.krippendorff_alpha(_ratings(triples), distance="masi").statistic
    rename = {"a": "delta", "b": "alpha", "c": "gamma", "d": "beta"}
    renamed = [(r, i, frozenset(rename[x] for x in s)) for r, i, s in triples]
    reversed_items = [(r, -i, s) for r, i, s in reversed(triples)]
    raters = [(r[::-1] + "x", i, s) for r, i, s in triples[::-1]]
    for other in (renamed, reversed_items, raters):
        value = accord.krippendorff_alpha(_ratings(other), distance="masi").statistic
        assert value == pytest.approx(base, rel=1e-9, abs=1e-12)
    assert base <= 1.0


@settings(max_examples=20)
@given(set_triples())
def test_identical_sets_give_alpha_one(triples: Triples) -> None:
    by_item = {i: s for _, i, s in triples}
    same = [(r, i, by_item[i]) for r, i, _ in triples]
    assume(len(_pairable_sets(same)) > 1)
    for kind in ("masi", "jaccard"):
        value = accord.krippendorff_alpha(_ratings(same), distance=kind).statistic
        assert value == pytest.approx(1.0, rel=1e-12)
    assert accord.multi_valued_alpha(_ratings(same)).statistic == pytest.approx(1.0)


def test_set_distance_refuses_single_labels_and_levels() -> None:
    single = Ratings.from_long(
        _long([(1, "a", "x"), (1, "b", "y")]), item="item", rater="rater", label="label"
    )
    with pytest.raises(InvalidInputError, match="one label each; read them with multi_label"):
        accord.krippendorff_alpha(single, distance="masi")
    sets = _ratings(NLTK_CASES[0])
    with pytest.raises(InvalidInputError, match="takes no level='interval'"):
        accord.krippendorff_alpha(sets, distance="masi", level="interval")
    with pytest.raises(InvalidInputError, match="'distance' parameter"):
        accord.krippendorff_alpha(sets, distance="dice")  # type: ignore[arg-type]


def test_nominal_alpha_on_sets_counts_each_distinct_set_as_a_category() -> None:
    triples = NLTK_CASES[1]
    as_text = [(r, i, ",".join(sorted(s))) for r, i, s in triples]
    single = Ratings.from_long(
        pd.DataFrame(as_text, columns=["rater", "item", "label"]),
        item="item",
        rater="rater",
        label="label",
    )
    assert accord.krippendorff_alpha(_ratings(triples)).statistic == pytest.approx(
        accord.krippendorff_alpha(single).statistic
    )


# --------------------------------------------------------------------------- mv-alpha

# Krippendorff & Craggs (2016), Table 3 and Tables 8a-9c, as transcribed with the values
# 0.2866, 0.947, 0.923, 0.895, 0.716, 0.554, -0.002 in the R package mvalpha (C. Drake),
# file worksheet.Rmd; its test asserts 0.2865907 for Table 3.
TABLE3 = {
    "F": [["b", "d"], ["a", "b", "d"], [], ["a"]],
    "G": [["d"], ["b"], ["a"], None],
    "H": [None, ["b", "d"], ["a"], None],
}
TABLES_8_9 = [
    ([["a"], ["a", "b", "d"], ["d"]], [["a"], ["a", "b", "d"], ["d"]],
     [["a"], ["a", "b", "d", "e"], ["d"]], 0.947),
    ([["a"], ["a", "b"], ["d"]], [["a"], ["a", "b"], ["d"]], [["a"], ["a", "b", "d"], ["d"]],
     0.923),
    ([["a"], ["b"], ["d"]], [["a"], ["b"], ["d"]], [["a"], ["b", "d"], ["d"]], 0.895),
    ([["a"], ["a", "b"], ["d"]], [["a"], ["a", "d"], ["d"]], [["a"], ["d", "b"], ["d"]], 0.716),
    ([["a"], ["a", "b"], ["d"]], [["a"], ["e", "d"], ["d"]], [["a"], ["f"], ["d"]], 0.554),
    ([["a"], ["a", "b"], ["b", "d"]], [["b"], ["e", "d"], ["d"]], [["a", "b"], ["f"], ["b", "e"]],
     -0.002),
]  # fmt: skip


def _wide_sets(columns: dict[str, list[list[str] | None]]) -> Ratings:
    rows = [
        (item, rater, cell)
        for rater, cells in columns.items()
        for item, cell in enumerate(cells, start=1)
    ]
    return Ratings.from_long(
        _long(rows), item="item", rater="rater", label="label", multi_label=True
    )


def test_multi_valued_alpha_table3() -> None:
    result = accord.multi_valued_alpha(_wide_sets(TABLE3))
    assert result.statistic == pytest.approx(0.2865907, abs=5e-8)
    assert result.n_items == 3  # item 4 has one set: not pairable
    assert result.n_items_unpairable == 1


@pytest.mark.parametrize(("f", "g", "h", "published"), TABLES_8_9)
def test_multi_valued_alpha_tables_8_and_9(
    f: list[list[str]], g: list[list[str]], h: list[list[str]], published: float
) -> None:
    result = accord.multi_valued_alpha(_wide_sets({"F": f, "G": g, "H": h}))
    assert round(result.statistic, 3) == published


def _expected_by_enumeration(n: dict[str, int], shares: dict[int, float]) -> float:
    """mv D_e by its definition: every pair of sets of each pair of sizes, weighted by
    prod_{c in C} n_c prod_{k in K} (n_k - [k in C])."""
    labels = sorted(n)
    total = 0.0
    for a, share_a in shares.items():
        for b, share_b in shares.items():
            weight_sum = weighted = 0.0
            for c in itertools.combinations(labels, a):
                for k in itertools.combinations(labels, b):
                    w = math.prod(n[x] for x in c) * math.prod(n[x] - (x in c) for x in k)
                    shared = len(set(c) & set(k))
                    d = 0.0 if a + b == 0 else 1 - 2 * shared / (a + b)
                    weight_sum += w
                    weighted += w * d
            if weight_sum:
                total += share_a * share_b * weighted / weight_sum
    return total


@given(
    st.lists(st.integers(0, 5), min_size=1, max_size=5),
    st.lists(st.floats(0, 1), min_size=1, max_size=4),
)
def test_expected_disagreement_equals_enumeration(counts: list[int], raw: list[float]) -> None:
    assume(sum(raw) > 0)
    shares = np.array(raw) / sum(raw)
    n = {chr(97 + i): c for i, c in enumerate(counts)}
    expected = _expected_by_enumeration(n, dict(enumerate(shares)))
    ours = expected_set_disagreement(np.array(counts, dtype=float), shares)
    assert ours == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_multi_valued_alpha_by_hand() -> None:
    # Two raters, two items: {x} / {x} and {x, y} / {y}. Pairable sets: {x} twice, {x, y},
    # {y}: n_.. = 4. Differences: delta({x,y}, {y}) = 1 - 2/3 = 1/3 (twice in o).
    # D_o = (2 * 1/3) / 4 = 1/6. Values: n_x = 3, n_y = 2; sizes: P_1 = 3/4, P_2 = 1/4.
    # (1,1): same value weight 3*2 + 2*1 = 8, different 3*2*2 = 12: E = 12/20 = 3/5.
    # (1,2) and (2,1): C = {x}: K = {x,y}: 3*2*2 = 12 (shared 1: delta 1/3);
    #   C = {y}: K = {x,y}: 2*3*1 = 6 (delta 1/3): E = 1/3.
    # (2,2): {x,y} twice: 3*2*2*1 = 12, delta 0: E = 0.
    # D_e = 9/16 * 3/5 + 2 * 3/16 * 1/3 = 27/80 + 10/80 = 37/80.
    r = _wide_sets({"a": [["x"], ["x", "y"]], "b": [["x"], ["y"]]})
    result = accord.multi_valued_alpha(r)
    assert result.statistic == pytest.approx(1 - (1 / 6) / (37 / 80))
    assert result.chance_agreement == pytest.approx(1 - 37 / 80)


def test_multi_valued_alpha_refuses_single_labels_and_is_nan_without_pairs() -> None:
    single = Ratings.from_long(
        _long([(1, "a", "x"), (1, "b", "y")]), item="item", rater="rater", label="label"
    )
    with pytest.raises(InvalidInputError, match="read them with multi_label=True"):
        accord.multi_valued_alpha(single)
    lone = _wide_sets({"a": [["x"], None], "b": [None, ["y"]]})
    with pytest.warns(accord.DegenerateDataWarning):
        assert math.isnan(accord.multi_valued_alpha(lone).statistic)


# --------------------------------------------------------------------------- per label


def test_per_label_table_by_hand() -> None:
    # Label x: items 1-4 by raters a, b: (1, 1), (0, 0), (0, 1), (0, 0): the 2 x 2 table
    # a = 1, b = 0, c = 1, d = 2. p_o = 3/4, p_e = (1/4)(2/4) + (3/4)(2/4) = 1/2,
    # kappa = 1/2; PSA = 2a / (2a + b + c) = 2/3. Label z: (0,0),(0,0),(0,0),(1,1): kappa 1.
    r = _wide_sets({"a": [["x", "y"], ["y"], [], ["z"]], "b": [["x"], ["y"], ["x"], ["z"]]})
    res = accord.per_label_agreement(r)
    table = res.table.set_index("label")
    assert res.kappa == "cohen_kappa"
    assert table.loc["x", "kappa"] == pytest.approx(0.5)
    assert table.loc["x", "psa"] == pytest.approx(2 / 3)
    assert table.loc["x", "n_present"] == 3
    assert table.loc["z", "kappa"] == pytest.approx(1.0)
    # y: (1, 0), (1, 1), (0, 0), (0, 0): a = 1, b = 1, c = 0, d = 2: kappa 1/2 as for x.
    assert table.loc["y", "kappa"] == pytest.approx(0.5)
    assert res.macro_kappa == pytest.approx((0.5 + 0.5 + 1) / 3)
    # micro: 12 (item, label) cells: a = 3 (x1, y2, z4), b = 1 (y1), c = 1 (x3), d = 7;
    # p_o = 10/12, p_a(yes) = p_b(yes) = 4/12, p_e = (4*4 + 8*8)/144 = 80/144; PSA 6/8.
    p_o, p_e = 10 / 12, 80 / 144
    assert res.micro_kappa == pytest.approx((p_o - p_e) / (1 - p_e))
    assert res.micro_psa == pytest.approx(6 / 8)
    # alpha for x: 8 values, 3 present; item 3 disagrees: o_01 = o_10 = 1, D_o = 2/8,
    # D_e = 2 * 5 * 3 / (8 * 7): alpha = 1 - (1/4) / (30/56) = 8/15.
    assert table.loc["x", "alpha"] == pytest.approx(8 / 15)
    # micro alpha: 24 values, 8 present, two items disagree: D_o = 4/24,
    # D_e = 2 * 16 * 8 / (24 * 23): alpha = 1 - (1/6) / (256/552).
    assert res.micro_alpha == pytest.approx(1 - (1 / 6) / (256 / 552))
    assert res.to_dict()["labels"][0]["label"] == "x"


def test_per_label_uses_fleiss_for_many_raters_and_states_undefined() -> None:
    r = _wide_sets({"a": [["x"], ["x"]], "b": [["x"], ["x"]], "c": [["x"], ["x", "y"]]})
    res = accord.per_label_agreement(r)
    table = res.table.set_index("label")
    assert res.kappa == "fleiss_kappa"
    assert math.isnan(table.loc["x", "kappa"])  # x is in every set: no chance disagreement
    assert table.loc["x", "reason"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", accord.DegenerateDataWarning)
        expected = accord.fleiss_kappa(Ratings.from_wide([[0, 0, 0], [0, 0, 1]])).statistic
    assert table.loc["y", "kappa"] == pytest.approx(expected)
    assert res.macro_kappa == pytest.approx(expected)  # x left out of the mean
    with pytest.raises(InvalidInputError, match="per_label_agreement needs set-valued"):
        accord.per_label_agreement(Ratings.from_wide([[1, 1], [2, 2]]))


@pytest.mark.slow
@settings(max_examples=20)
@given(set_triples(empty=True))
def test_per_label_invariances(triples: Triples) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", accord.DegenerateDataWarning)
        base = accord.per_label_agreement(_ratings(triples))
        shuffled = accord.per_label_agreement(
            _ratings([(r + "!", -i, s) for r, i, s in reversed(triples)])
        )
        base_mv = accord.multi_valued_alpha(_ratings(triples)).statistic
        mv = accord.multi_valued_alpha(
            _ratings([(r, i, frozenset(x.upper() for x in s)) for r, i, s in triples])
        ).statistic
    for name in ("macro_kappa", "macro_alpha", "macro_psa", "micro_kappa", "micro_alpha"):
        a, b = getattr(base, name), getattr(shuffled, name)
        assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-12)
    assert (math.isnan(base_mv) and math.isnan(mv)) or base_mv == pytest.approx(mv)


# --------------------------------------------------------------------------- engines, CLI

from pathlib import Path  # noqa: E402

from typer.testing import CliRunner  # noqa: E402

from accord.cli import app  # noqa: E402

runner = CliRunner()
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DIAGNOSES = ["--item", "patient", "--rater", "rater", "--label", "diagnosis"]


def _tags_csv(tmp_path: Path) -> Path:
    path = tmp_path / "tags.csv"
    lines = ["item,rater,label"]
    for rater, item, labels in NLTK_CASES[0]:
        lines += [f"{item},{rater},{x}" for x in sorted(labels)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_read_ratings_multi_label_files(tmp_path: Path) -> None:
    from_csv = accord.read_ratings(
        _tags_csv(tmp_path), item="item", rater="rater", label="label", multi_label=True
    )
    expected = _ratings(NLTK_CASES[0])
    assert _sets_of(from_csv) == _sets_of(expected)
    import pyarrow.parquet as pq

    parquet = tmp_path / "tags.parquet"
    pq.write_table(
        pa.table(
            {
                "item": [1, 1, 2, 2],
                "rater": ["a", "b", "a", "b"],
                "label": [["x", "y"], ["x"], [], None],
            }
        ),
        parquet,
    )
    r = accord.read_ratings(parquet, item="item", rater="rater", label="label", multi_label=True)
    assert _sets_of(r) == {
        (1, "a"): frozenset({"x", "y"}),
        (1, "b"): frozenset({"x"}),
        (2, "a"): frozenset(),
    }
    assert r.report.source == str(parquet)


def test_stream_engine_reads_a_list_column_only_as_sets(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    path = tmp_path / "sets.parquet"
    pq.write_table(pa.table({"i": [1, 1], "r": ["a", "b"], "l": [["x"], ["x", "y"]]}), path)
    with pytest.raises(InvalidInputError, match=r"column 'l' holds lists of labels .*multi_label"):
        accord.stream_statistics(path, item="i", rater="r", label="l")
    res = runner.invoke(app, ["agree", str(path), "--item", "i", "--rater", "r", "--label", "l",
                              "--engine", "stream"])  # fmt: skip
    assert res.exit_code == 2
    assert "holds lists of labels" in res.stderr
    assert "Traceback" not in res.output
    single = tmp_path / "single.parquet"
    pq.write_table(pa.table({"i": [1, 1], "r": ["a", "b"], "l": ["x", "y"]}), single)
    sets = accord.stream_statistics(single, item="i", rater="r", label="l", multi_label=True)
    assert sets.categories == (frozenset({"x"}), frozenset({"y"}))


@settings(max_examples=15)
@given(set_triples(empty=True), st.integers(1, 6))
def test_memory_and_stream_give_the_same_numbers(triples: Triples, batch: int) -> None:
    import tempfile

    import pyarrow.parquet as pq

    assume(len(_pairable_sets(triples)) > 1)
    table = pa.table(
        {
            "item": [f"unit {i}" for _, i, _ in triples],
            "rater": [r for r, _, _ in triples],
            "label": [sorted(s) for _, _, s in triples],
        }
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "sets.parquet"
        pq.write_table(table, path)
        stats = accord.stream_statistics(
            path, item="item", rater="rater", label="label", multi_label=True, batch_size=batch
        )
        memory = accord.read_ratings(
            path, item="item", rater="rater", label="label", multi_label=True
        )
    assert stats.categories == memory.categories
    np.testing.assert_array_equal(
        stats.item_counts.dense(), accord.ItemCategoryCounts.from_ratings(memory).dense()
    )
    for kind in ("masi", "jaccard"):
        assert accord.krippendorff_alpha(stats.item_counts, distance=kind).statistic == (
            pytest.approx(accord.krippendorff_alpha(memory, distance=kind).statistic, rel=1e-12)
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", accord.DegenerateDataWarning)
        mv_stream = accord.multi_valued_alpha(stats.item_counts).statistic
        mv_memory = accord.multi_valued_alpha(memory).statistic
    assert (math.isnan(mv_stream) and math.isnan(mv_memory)) or mv_stream == pytest.approx(
        mv_memory, rel=1e-12
    )


def test_dask_engine_refuses_sets() -> None:
    with pytest.raises(InvalidInputError, match="the dask engine reads one label per row"):
        accord.dask_statistics(
            str(EXAMPLES / "diagnoses.csv"),
            item="patient",
            rater="rater",
            label="diagnosis",
            multi_label=True,
        )


def test_cli_multi_label_json(tmp_path: Path) -> None:
    path = _tags_csv(tmp_path)
    base = ["agree", str(path), "--item", "item", "--rater", "rater", "--label", "label"]
    res = runner.invoke(app, [*base, "--multi-label", "--format", "json"])
    assert res.exit_code == 0, res.output
    out = cli_json(res.output)
    alpha, mv = out["coefficients"]
    triples = NLTK_CASES[0]
    assert alpha["weights"] == "masi"
    assert alpha["statistic"] == pytest.approx(
        AnnotationTask(triples, distance=masi_distance).alpha(), rel=1e-12
    )
    assert mv["name"] == "multi_valued_alpha"
    assert mv["statistic"] == pytest.approx(accord.multi_valued_alpha(_ratings(triples)).statistic)
    assert [row["label"] for row in out["per_label"]["labels"]] == ["w", "x", "y", "z"]
    assert ["x", "y"] in alpha["categories"]  # sets as lists in JSON
    jaccard = runner.invoke(app, [*base, "--multi-label", "--distance", "jaccard", "-f", "json"])
    assert cli_json(jaccard.output)["coefficients"][0]["statistic"] == pytest.approx(
        AnnotationTask(triples, distance=jaccard_distance).alpha(), rel=1e-12
    )


def test_cli_multi_label_table_and_singletons() -> None:
    res = runner.invoke(
        app, ["agree", str(EXAMPLES / "diagnoses.csv"), *DIAGNOSES, "--multi-label"]
    )
    assert res.exit_code == 0, res.output
    assert "krippendorff_alpha (masi)" in res.output
    assert "multi_valued_alpha" in res.output
    assert "(macro)" in res.output and "(micro)" in res.output
    # Sets of one label: MASI alpha is the nominal alpha of the single labels.
    single = accord.read_ratings(
        EXAMPLES / "diagnoses.csv", item="patient", rater="rater", label="diagnosis"
    )
    sets = accord.read_ratings(
        EXAMPLES / "diagnoses.csv",
        item="patient",
        rater="rater",
        label="diagnosis",
        multi_label=True,
    )
    assert accord.krippendorff_alpha(sets, distance="masi").statistic == pytest.approx(
        accord.krippendorff_alpha(single).statistic, rel=1e-12
    )


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--multi-label", "--level", "ordinal"], "--level does not apply with --multi-label"),
        (
            ["--multi-label", "--weights", "linear", "--coefficients", "fleiss_kappa"],
            "--weights and --coefficients do not apply",
        ),
        (["--multi-label", "--engine", "dask"], "the dask engine reads one label per row"),
        (["--distance", "masi"], "--distance applies with --multi-label"),
        (["--multi-label", "--distance", "dice"], "dice"),
    ],
)
def test_cli_multi_label_bad_options(extra: list[str], message: str) -> None:
    res = runner.invoke(app, ["agree", str(EXAMPLES / "diagnoses.csv"), *DIAGNOSES, *extra])
    assert res.exit_code == 2
    assert message in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_wide_sets_and_the_statistics_entry_points() -> None:
    wide = pd.DataFrame(TABLE3)
    r = Ratings.from_wide(wide, multi_label=True)
    assert accord.multi_valued_alpha(r).statistic == pytest.approx(0.2865907, abs=5e-8)
    # The estimators run on item x category counts whose categories are sets of labels
    # (what an engine would hand them), with the numbers of the ratings.
    counts = accord.ItemCategoryCounts.from_ratings(r)
    assert accord.multi_valued_alpha(counts).statistic == pytest.approx(
        accord.multi_valued_alpha(r).statistic, rel=1e-12
    )
    for kind in ("masi", "jaccard"):
        assert accord.krippendorff_alpha(counts, distance=kind).statistic == pytest.approx(
            accord.krippendorff_alpha(r, distance=kind).statistic, rel=1e-12
        )


def test_multi_valued_alpha_says_why_it_has_no_standard_error() -> None:
    # No SE is published for the multi-valued alpha: the NaN comes with its reason.
    labels = [["x", "y"], ["x"], ["y"], ["y"], ["x"], ["x", "y"]]
    frame = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": list("ababab"), "label": labels})
    r = accord.Ratings.from_long(frame, item="item", rater="rater", label="label",
                                 multi_label=True)  # fmt: skip
    res = accord.multi_valued_alpha(r)
    assert math.isfinite(res.statistic) and math.isnan(res.standard_error)
    assert res.reason is not None and "no standard error" in res.reason


# --- many distinct sets: alpha from the pairs within items, never q x q ---------------------

import contextlib  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
from collections.abc import Iterator  # noqa: E402

from accord.agreement import krippendorff, multi_valued, set_distances  # noqa: E402

#: How the expected disagreement is summed without the matrix: through the subsets of each
#: set, by tallies of (intersection, size) per block, or distance by distance per block.
SUM_MODES = {
    "subsets": {},
    "tallies": {"_SUBSET_SIZE": -1, "BLOCK_CELLS": 7},
    "distances": {"_SUBSET_SIZE": -1, "_TALLY_SIZES": -1, "BLOCK_CELLS": 7},
}


@contextlib.contextmanager
def _without_matrix(mode: str) -> Iterator[None]:
    """Alpha and the multi-valued alpha take their many-sets path on any data."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(krippendorff, "DENSE_WEIGHT_CELLS", 0)
        mp.setattr(multi_valued, "DENSE_WEIGHT_CELLS", 0)
        for name, value in SUM_MODES[mode].items():
            mp.setattr(set_distances, name, value)
        yield


@pytest.mark.parametrize("mode", list(SUM_MODES))
@pytest.mark.parametrize("triples", NLTK_CASES)
@pytest.mark.parametrize("kind", ["masi", "jaccard"])
def test_set_alpha_without_the_matrix_equals_nltk(triples: Triples, kind: str, mode: str) -> None:
    peer = {"masi": masi_distance, "jaccard": jaccard_distance}[kind]
    expected = AnnotationTask(triples, distance=peer).alpha()
    r = _ratings(triples)
    dense = accord.krippendorff_alpha(r, distance=kind)
    with _without_matrix(mode):
        ours = accord.krippendorff_alpha(r, distance=kind)
    assert ours.statistic == pytest.approx(expected, rel=1e-12)
    assert ours.statistic == pytest.approx(dense.statistic, rel=1e-12)
    assert ours.standard_error == pytest.approx(dense.standard_error, rel=1e-12)


@settings(max_examples=25)
@given(set_triples(empty=True), st.sampled_from(list(SUM_MODES)))
def test_many_sets_path_equals_the_matrix(triples: Triples, mode: str) -> None:
    r = _ratings(triples)

    def run() -> list[float]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", accord.DegenerateDataWarning)
            alphas = [accord.krippendorff_alpha(r, distance=k) for k in ("masi", "jaccard")]
            mv = accord.multi_valued_alpha(r)
        return [x for a in alphas for x in (a.statistic, a.standard_error)] + [mv.statistic]

    dense = run()
    with _without_matrix(mode):
        ours = run()
    np.testing.assert_allclose(ours, dense, rtol=1e-12, atol=1e-14, equal_nan=True)


def test_bootstrap_on_many_sets_is_refused_in_one_line() -> None:
    r = _ratings(NLTK_CASES[0])
    with _without_matrix("subsets"), pytest.raises(InvalidInputError, match=r"ci='analytic'"):
        accord.krippendorff_alpha(r, distance="masi", ci="bootstrap", n_boot=20)


@contextlib.contextmanager
def _address_space(extra: int) -> Iterator[None]:
    """The process may map only ``extra`` more bytes while the block runs."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as f:
        used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (used + extra, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@pytest.mark.skipif(sys.platform != "linux", reason="address-space limit read from /proc")
def test_thirteen_thousand_distinct_sets_in_bounded_memory() -> None:
    # 6,000 items of 5 raters, sets of 1-4 of 30 labels: some 13,000 distinct sets, whose
    # q x q distances (1.4 GB each) cannot be built within the limit.
    rng = np.random.default_rng(7)
    n_items, n_raters = 6000, 5
    rows = []
    for item in range(n_items):
        truth = rng.choice(30, 4, replace=False)
        for rater in range(n_raters):
            size = int(rng.integers(1, 5))
            labels = truth[:size] if rng.random() < 0.3 else rng.choice(30, size, replace=False)
            rows += [(item, rater, f"l{x}") for x in labels]
    frame = pd.DataFrame(rows, columns=["item", "rater", "label"])
    r = Ratings.from_long(frame, item="item", rater="rater", label="label", multi_label=True)
    assert r.n_categories > 10_000
    with _address_space(2**30):
        table = accord.agreement(r, multi_label=True)
        jaccard = accord.krippendorff_alpha(r, distance="jaccard")
    alpha, mv = table.coefficients
    assert alpha.weights == "masi" and 0.0 < alpha.statistic < 1.0
    assert math.isfinite(alpha.standard_error) and 0.0 < mv.statistic < 1.0
    assert 0.0 < jaccard.statistic < 1.0
