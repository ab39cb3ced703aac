"""span_agreement: the spec's vector, hand-computed cases, errors and matching properties."""

from __future__ import annotations

import itertools
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import accord
from accord.spans._match import Side, match_exact, match_overlap

REFERENCE = json.loads((Path(__file__).parents[1] / "reference" / "spans.json").read_text())
VECTOR = REFERENCE["spec_vector"]


def frame(rows: list[tuple[str, str, int, int]], document: str = "d1") -> pd.DataFrame:
    """(annotator, label, start, end) rows in one document."""
    df = pd.DataFrame(rows, columns=["annotator", "label", "start", "end"])
    df["document"] = document
    return df


def spec_frame() -> pd.DataFrame:
    return frame([tuple(r) for r in VECTOR["spans"]])


def pair_f1(result: accord.SpanAgreement) -> list[float]:
    return result.pairs["f1"].tolist()


# --- the spec's vector ------------------------------------------------------------------


def test_spec_vector_exact() -> None:
    # source: tests/reference/spans.json (spec spans.md vector)
    res = accord.span_agreement(spec_frame(), match="exact")
    ref = VECTOR["exact"]
    assert [tuple(p) for p in res.pairs[["annotator_a", "annotator_b"]].to_numpy()] == [
        tuple(p) for p in VECTOR["pairs"]
    ]
    assert_allclose(pair_f1(res), ref["pair_f1"], atol=5e-7)
    assert_allclose(res.statistic, ref["mean"], atol=5e-7)
    assert_allclose(res.sd, ref["sd"], atol=5e-7)
    assert_allclose(res.pooled, ref["pooled"], rtol=1e-12)
    assert res.n_pairs == res.n_pairs_defined == 3
    groups = res.groups.set_index("label")
    for lab, (mean, sd) in ref["per_label_printed_3dp"].items():
        assert round(groups.loc[lab, "mean_f1"], 3) == mean
        assert round(groups.loc[lab, "sd_f1"], 3) == sd


def test_spec_vector_exact_by_hand() -> None:
    # hand count: ann1 5, ann2 4, ann3 5 spans; exact TP 3, 3, 1
    res = accord.span_agreement(spec_frame())
    assert res.pairs["matched"].tolist() == [3, 3, 1]
    assert res.pairs["n_a"].tolist() == [5, 5, 4]
    assert res.pairs["n_b"].tolist() == [4, 5, 5]
    assert_allclose(res.pairs["precision"], [3 / 5, 3 / 5, 1 / 4])
    assert_allclose(res.pairs["recall"], [3 / 4, 3 / 5, 1 / 5])
    f1 = np.array([6 / 9, 6 / 10, 2 / 9])
    assert_allclose(res.statistic, f1.mean())
    assert_allclose(res.sd, math.sqrt(((f1 - f1.mean()) ** 2).mean()))  # population SD
    assert res.pooled == 14 / 28
    # per label by hand: DISEASE sizes 3, 2, 3 and TP 1, 2, 0; DRUG sizes 2, 2, 2, TP 2, 1, 1
    gp = res.group_pairs
    assert_allclose(gp[gp.label == "DISEASE"]["f1"], [2 / 5, 4 / 6, 0 / 5])
    assert_allclose(gp[gp.label == "DRUG"]["f1"], [4 / 4, 2 / 4, 2 / 4])
    groups = res.groups.set_index("label")
    assert_allclose(groups.loc["DISEASE", "pooled_f1"], 2 * 3 / (5 + 6 + 5))
    assert_allclose(groups.loc["DRUG", "pooled_f1"], 2 * 4 / 12)
    # per-label TP add up to the overall TP
    assert gp.groupby(["annotator_a", "annotator_b"])["matched"].sum().tolist() == [3, 3, 1]


def test_spec_vector_overlap() -> None:
    # source: tests/reference/spans.json; by hand TP 4, 4, 3
    res = accord.span_agreement(spec_frame(), match="overlap")
    ref = VECTOR["overlap"]
    assert res.pairs["matched"].tolist() == [4, 4, 3]
    assert_allclose(pair_f1(res), ref["pair_f1"], atol=5e-7)
    assert_allclose(res.statistic, ref["mean"], atol=5e-7)
    assert_allclose(res.pooled, ref["pooled"], atol=5e-7)
    assert res.pooled == 22 / 28


def test_spec_vector_token() -> None:
    # hand count with tokens Aspirin(0) reduces(1) fever(2) and aspirin(4) may cause
    # ulcers(7) in(8) patients(9) with gastritis(11) .: token sets per label
    # ann1 DRUG {0,4} DISEASE {2,7,11}; ann2 DRUG {0,4} DISEASE {2,7,8,9};
    # ann3 DRUG {0,9} DISEASE {1,2,7,11}; TP 4, 4, 3 of sizes 5+6, 5+6, 6+6
    res = accord.span_agreement(spec_frame(), match="token", texts={"d1": VECTOR["text"]})
    assert res.pairs["matched"].tolist() == [4, 4, 3]
    assert res.pairs["n_a"].tolist() == [5, 5, 6]
    assert_allclose(pair_f1(res), [8 / 11, 8 / 11, 6 / 12])
    assert_allclose(res.pooled, 22 / 34)
    assert res.n_units == 17


def test_spec_vector_ignore_label_overlap() -> None:
    # without labels ann2's DISEASE 44-62 may match ann3's DRUG 54-62 (overlap 8) rather than
    # DISEASE 44-50 (overlap 6): the maximum-overlap matching takes the larger; counts stay
    # 4, 4, 3 (by hand)
    res = accord.span_agreement(spec_frame(), match="overlap", ignore_label=True, by=None)
    assert res.pairs["matched"].tolist() == [4, 4, 3]
    assert res.groups is None and res.labels == ()


# --- nested, crossing, non-overlapping spans ---------------------------------------------


def test_nested_spans() -> None:
    df = frame([("a", "X", 0, 20), ("b", "X", 5, 10)])
    assert accord.span_agreement(df).pairs["matched"].tolist() == [0]
    res = accord.span_agreement(df, match="overlap")
    assert res.pairs["matched"].tolist() == [1] and res.statistic == 1.0
    # nested within one annotator: a marks [0,20) and [5,10); b marks [5,10)
    df = frame([("a", "X", 0, 20), ("a", "X", 5, 10), ("b", "X", 5, 10)])
    assert_allclose(accord.span_agreement(df).statistic, 2 / 3)  # exact: TP 1, sizes 2 + 1
    res = accord.span_agreement(df, match="overlap")
    assert res.pairs["matched"].tolist() == [1]  # b's span is used once, not twice
    assert_allclose(res.statistic, 2 / 3)


def test_crossing_spans() -> None:
    df = frame([("a", "X", 0, 10), ("b", "X", 5, 15)])
    assert accord.span_agreement(df).statistic == 0.0
    assert accord.span_agreement(df, match="overlap").statistic == 1.0
    # crossing chain a:[0,10) [12,20); b:[8,14): b overlaps both (2 each): one match
    df = frame([("a", "X", 0, 10), ("a", "X", 12, 20), ("b", "X", 8, 14)])
    res = accord.span_agreement(df, match="overlap")
    assert res.pairs["matched"].tolist() == [1]
    assert_allclose(res.statistic, 2 / 3)


def test_non_overlapping_spans() -> None:
    # adjacent: end is exclusive, so [0,5) and [5,10) share nothing
    df = frame([("a", "X", 0, 5), ("b", "X", 5, 10)])
    for match in ("exact", "overlap"):
        res = accord.span_agreement(df, match=match)
        assert res.pairs["matched"].tolist() == [0] and res.statistic == 0.0


def test_overlap_needs_same_label_and_document() -> None:
    df = frame([("a", "X", 0, 5), ("b", "Y", 0, 5)])
    assert accord.span_agreement(df, match="overlap").statistic == 0.0
    assert accord.span_agreement(df, match="exact", ignore_label=True, by=None).statistic == 1.0
    df = pd.concat([frame([("a", "X", 0, 5)], "d1"), frame([("b", "X", 0, 5)], "d2")])
    res = accord.span_agreement(df, match="overlap", by="document")
    assert res.statistic == 0.0
    assert res.groups["document"].tolist() == ["d1", "d2"]
    assert res.groups["mean_f1"].tolist() == [0.0, 0.0]


def test_overlap_maximises_total_overlap_not_greedy() -> None:
    # a1 [0,10) a2 [11,15); b1 [5,15) b2 [0,4): overlaps a1-b1 5, a1-b2 4, a2-b1 4.
    # Greedy by largest overlap takes a1-b1 and stops at 1 pair; the maximum total overlap
    # (4 + 4 = 8 > 5) pairs a1-b2 and a2-b1: 2 pairs, F1 = 1.
    df = frame([("a", "X", 0, 10), ("a", "X", 11, 15), ("b", "X", 5, 15), ("b", "X", 0, 4)])
    res = accord.span_agreement(df, match="overlap")
    assert res.pairs["matched"].tolist() == [2]
    assert res.statistic == 1.0


def test_overlap_ties_go_to_more_pairs() -> None:
    # a1 [0,4) a2 [0,2); b1 [0,4) b2 [2,4): {a1-b1} and {a1-b2, a2-b1} both overlap 4 in
    # total; the second has more pairs
    df = frame([("a", "X", 0, 4), ("a", "X", 0, 2), ("b", "X", 0, 4), ("b", "X", 2, 4)])
    assert accord.span_agreement(df, match="overlap").pairs["matched"].tolist() == [2]


def test_a_span_given_twice_by_one_annotator_counts_once() -> None:
    # a marked [0, 5) X twice, b once: one span each, one match, F1 = 2 * 1 / (1 + 1) = 1
    # (counted twice it would be 2 * 1 / (2 + 1) = 2/3)
    df = frame([("a", "X", 0, 5), ("a", "X", 0, 5), ("b", "X", 0, 5), ("b", "Y", 0, 5)])
    with pytest.warns(accord.DroppedDataWarning, match="dropped 1 duplicate span"):
        spans = accord.Spans.from_frame(df)
    assert spans.n_spans == 3
    assert spans.notes == (
        "dropped 1 duplicate span (the same annotator, document, offsets and label given "
        "again; each counted once); first: annotator 'a', document 'd1', 0-5 'X'",
    )
    res = accord.span_agreement(spans, by=None)
    assert res.pairs["matched"].tolist() == [1]
    assert_allclose(res.statistic, 2 * 1 / (1 + 2))  # b also marked [0, 5) as Y
    assert res.notes == spans.notes
    with pytest.warns(accord.DroppedDataWarning):
        res = accord.span_agreement(frame([("a", "X", 0, 5), ("a", "X", 0, 5), ("b", "X", 0, 5)]))
    assert res.statistic == 1.0


def test_f1_is_micro_within_pair_over_documents() -> None:
    # d1: a 1 span, b 1 (match); d2: a 3 spans, b none -> TP 1, sizes 4 + 1: F1 = 2/5
    # (a macro average over documents would give (1 + 0) / 2)
    df = pd.concat(
        [
            frame([("a", "X", 0, 5), ("b", "X", 0, 5)], "d1"),
            frame([("a", "X", 0, 5), ("a", "X", 6, 9), ("a", "X", 10, 12)], "d2"),
        ]
    )
    res = accord.span_agreement(df, by="document")
    assert_allclose(res.statistic, 2 / 5)
    assert res.groups["mean_f1"].tolist() == [1.0, 0.0]


def test_precision_recall_roles() -> None:
    df = frame([("a", "X", 0, 5), ("a", "X", 6, 9), ("b", "X", 0, 5)])
    row = accord.span_agreement(df).pairs.iloc[0]
    assert (row.annotator_a, row.annotator_b) == ("a", "b")
    assert row.precision == 1 / 2 and row.recall == 1.0  # a judged against b
    assert_allclose(row.f1, 2 * row.precision * row.recall / (row.precision + row.recall))


# --- annotators with no spans, undefined values --------------------------------------------


def test_annotator_without_spans_is_kept_and_reported() -> None:
    df = frame([("a", "X", 0, 5), ("b", "X", 0, 5)])
    df = pd.concat([df, pd.DataFrame([{"annotator": "c", "document": "d1"}])])
    with pytest.warns(accord.AccordWarning, match="'c'"):
        res = accord.span_agreement(df)
    assert res.annotators == ("a", "b", "c")
    assert res.annotators_without_spans == ("c",)
    assert pair_f1(res) == [1.0, 0.0, 0.0]
    assert_allclose(res.statistic, 1 / 3)
    spans = accord.Spans.from_frame(frame([("a", "X", 0, 5)]), annotators=["a", "z"])
    with pytest.warns(accord.AccordWarning, match="'z'"):
        assert accord.span_agreement(spans).statistic == 0.0


def test_pairs_with_nothing_marked_are_nan_and_left_out() -> None:
    # label Y: only a marks it, so the pair b-c has 0/0 for Y
    df = frame([("a", "X", 0, 5), ("b", "X", 0, 5), ("c", "X", 0, 5), ("a", "Y", 6, 8)])
    res = accord.span_agreement(df)
    y = res.group_pairs[res.group_pairs.label == "Y"]
    assert y["f1"].iloc[:2].tolist() == [0.0, 0.0] and math.isnan(y["f1"].iloc[2])
    groups = res.groups.set_index("label")
    assert groups.loc["Y", "n_pairs_defined"] == 2 and groups.loc["Y", "mean_f1"] == 0.0


def test_nobody_marked_anything_is_nan_with_reason() -> None:
    df = pd.DataFrame({"annotator": ["a", "b"], "document": ["d1", "d1"]})
    df["start"] = df["end"] = np.nan
    df["label"] = None
    with pytest.warns(accord.AccordWarning):
        res = accord.span_agreement(df, by=None)
    assert math.isnan(res.statistic) and math.isnan(res.pooled)
    assert res.reason and "0/0" in res.reason
    assert res.n_pairs_defined == 0


# --- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([("a", "X", 5, 5), ("b", "X", 0, 5)], "end <= start in row 1"),
        ([("a", "X", 0, 5), ("b", "X", 9, 4)], "end <= start in row 2"),
        ([("a", "X", -1, 5), ("b", "X", 0, 5)], "negative 'start' in row 1"),
    ],
)
def test_bad_offsets(rows: list[tuple[str, str, int, int]], message: str) -> None:
    with pytest.raises(accord.InvalidInputError, match=message):
        accord.span_agreement(frame(rows))


def test_offsets_outside_the_text() -> None:
    df = frame([("a", "X", 0, 5), ("b", "X", 70, 79)])
    accord.span_agreement(df)  # without the text there is nothing to check against
    with pytest.raises(accord.InvalidInputError, match=r"past their document in row 2.*78"):
        accord.span_agreement(df, texts={"d1": VECTOR["text"]})


def test_other_bad_input() -> None:
    df = spec_frame()
    with pytest.raises(accord.ColumnNotFoundError, match="'coder' not found"):
        accord.span_agreement(df, annotator="coder")
    with pytest.raises(accord.InvalidInputError, match="at least two annotators"):
        accord.span_agreement(df[df.annotator == "ann1"])
    with pytest.raises(accord.InvalidInputError, match="'match' parameter of span_agreement"):
        accord.span_agreement(df, match="fuzzy")  # type: ignore[arg-type]
    with pytest.raises(accord.InvalidInputError, match="'by' parameter"):
        accord.span_agreement(df, by="annotator")  # type: ignore[arg-type]
    with pytest.raises(accord.InvalidInputError, match="by='label' needs labels"):
        accord.span_agreement(df, ignore_label=True)
    with pytest.raises(accord.InvalidInputError, match="needs the text"):
        accord.span_agreement(df, match="token")
    bad = df.astype({"start": object})
    bad.loc[2, "start"] = "x"
    with pytest.raises(accord.InvalidInputError, match="integer offsets; row 3 does not"):
        accord.span_agreement(bad)
    bad = df.astype({"end": float})
    bad.loc[0, "end"] = 7.5
    with pytest.raises(accord.InvalidInputError, match="integer offsets; row 1 does not"):
        accord.span_agreement(bad)
    bad.loc[0, "end"] = np.nan
    with pytest.raises(accord.InvalidInputError, match="one of 'start' and 'end'"):
        accord.span_agreement(bad)
    with pytest.raises(accord.InvalidInputError, match="'label' is missing in row 4"):
        accord.span_agreement(df.assign(label=df.label.where(df.index != 3)))
    with pytest.raises(accord.InvalidInputError, match="empty"):
        accord.span_agreement(df.iloc[:0])
    with pytest.raises(accord.InvalidInputError, match="texts is for a table"):
        accord.span_agreement(accord.Spans.from_frame(df), texts={"d1": ""})


def test_no_label_column() -> None:
    res = accord.span_agreement(spec_frame().drop(columns="label"), label=None, by=None)
    # without labels the exact pairs are ann1-ann2 3, ann1-ann3 3, ann2-ann3 1 (same as above)
    assert res.pairs["matched"].tolist() == [3, 3, 1]


def test_result_to_dict_and_dumps() -> None:
    res = accord.span_agreement(spec_frame())
    d = res.to_dict()
    assert d["name"] == "span_agreement" and d["match"] == "exact"
    assert d["pairs"][0]["annotator_a"] == "ann1"
    assert d["groups"][0]["label"] == "DISEASE"
    json.loads(accord._results.dumps(res))
    assert "Hripcsak" in res.method


# --- properties ---------------------------------------------------------------------------


@st.composite
def span_sets(draw: st.DrawFn, max_spans: int = 7) -> tuple[Side, Side]:
    """Two annotators' spans over 2 documents, 2 labels, offsets in [0, 20)."""

    def side() -> Side:
        n = draw(st.integers(0, max_spans))
        doc = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
        lab = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
        starts = draw(st.lists(st.integers(0, 18), min_size=n, max_size=n))
        widths = draw(st.lists(st.integers(1, 8), min_size=n, max_size=n))
        arr = np.array
        return Side(
            arr(doc, dtype=np.int64),
            arr(lab, dtype=np.int64),
            arr(starts, dtype=np.int64),
            arr(starts, dtype=np.int64) + arr(widths, dtype=np.int64),
        )

    return side(), side()


def _overlap(a: Side, i: int, b: Side, j: int) -> int:
    if a.document[i] != b.document[j] or a.label[i] != b.label[j]:
        return 0
    return max(0, int(min(a.end[i], b.end[j]) - max(a.start[i], b.start[j])))


def _best_by_brute_force(a: Side, b: Side) -> tuple[int, int]:
    """(total overlap, pairs) of the lexicographically best one-to-one matching."""
    n_a, n_b = a.start.size, b.start.size
    best = (0, 0)
    for k in range(1, min(n_a, n_b) + 1):
        for rows in itertools.combinations(range(n_a), k):
            for cols in itertools.permutations(range(n_b), k):
                w = [_overlap(a, i, b, j) for i, j in zip(rows, cols, strict=True)]
                if all(w):
                    best = max(best, (sum(w), k))
    return best


@given(span_sets())
def test_overlap_matching_is_one_to_one_and_valid(sides: tuple[Side, Side]) -> None:
    a, b = sides
    ia, ib = match_overlap(a, b)
    assert len(set(ia.tolist())) == ia.size  # no span of a used twice
    assert len(set(ib.tolist())) == ib.size  # no span of b used twice
    assert ia.size == ib.size <= min(a.start.size, b.start.size)
    assert all(_overlap(a, i, b, j) > 0 for i, j in zip(ia, ib, strict=True))
    # maximal: no unmatched span of a overlaps an unmatched span of b
    free_a = set(range(a.start.size)) - set(ia.tolist())
    free_b = set(range(b.start.size)) - set(ib.tolist())
    assert not any(_overlap(a, i, b, j) for i in free_a for j in free_b)
    # at least as many pairs as exact matching
    assert match_exact(a, b)[0].size <= ia.size


@given(span_sets(max_spans=4))
def test_overlap_matching_is_optimal(sides: tuple[Side, Side]) -> None:
    a, b = sides
    ia, ib = match_overlap(a, b)
    total = sum(_overlap(a, i, b, j) for i, j in zip(ia, ib, strict=True))
    assert (total, ia.size) == _best_by_brute_force(a, b)


@given(span_sets())
def test_exact_matching_is_one_to_one(sides: tuple[Side, Side]) -> None:
    a, b = sides
    ia, ib = match_exact(a, b)
    assert len(set(ia.tolist())) == ia.size and len(set(ib.tolist())) == ib.size
    for i, j in zip(ia, ib, strict=True):
        assert (a.document[i], a.label[i], a.start[i], a.end[i]) == (
            b.document[j],
            b.label[j],
            b.start[j],
            b.end[j],
        )
    keys_a = list(zip(a.document, a.label, a.start, a.end, strict=True))
    keys_b = list(zip(b.document, b.label, b.start, b.end, strict=True))
    expected = sum(min(keys_a.count(k), keys_b.count(k)) for k in set(keys_a))
    assert ia.size == expected  # multiset intersection


@st.composite
def span_frames(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(1, 25))
    rows = []
    for _ in range(n):
        start = draw(st.integers(0, 30))
        rows.append(
            {
                "annotator": draw(st.sampled_from(["p", "q", "r"])),
                "document": draw(st.sampled_from(["d1", "d2"])),
                "start": start,
                "end": start + draw(st.integers(1, 6)),
                "label": draw(st.sampled_from(["X", "Y"])),
            }
        )
    df = pd.DataFrame(rows)
    if df["annotator"].nunique() < 2:
        df = pd.concat([df, pd.DataFrame([{**rows[0], "annotator": "s"}])], ignore_index=True)
    return df


@given(span_frames(), st.sampled_from(["exact", "overlap"]))
def test_invariant_to_row_order_and_symmetric(df: pd.DataFrame, match: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = accord.span_agreement(df, match=match)  # type: ignore[arg-type]
        shuffled = df.sample(frac=1.0, random_state=7).reset_index(drop=True)
        again = accord.span_agreement(shuffled, match=match)  # type: ignore[arg-type]
        # renaming annotators in reverse order swaps the roles in every pair
        names = {"p": "z", "q": "y", "r": "x", "s": "w"}
        swapped = accord.span_agreement(
            df.assign(annotator=df.annotator.map(names)),
            match=match,  # type: ignore[arg-type]
        )
    pd.testing.assert_frame_equal(res.pairs, again.pairs)
    for row in res.pairs.itertuples():
        other = swapped.pairs[
            (swapped.pairs.annotator_a == names[row.annotator_b])
            & (swapped.pairs.annotator_b == names[row.annotator_a])
        ].iloc[0]
        assert other.matched == row.matched
        assert_allclose(
            [other.f1, other.precision, other.recall], [row.f1, row.recall, row.precision]
        )
    # per-label TP add up to the pair's TP; F1 in [0, 1]
    summed = res.group_pairs.groupby(["annotator_a", "annotator_b"], sort=False)["matched"].sum()
    assert summed.tolist() == res.pairs["matched"].tolist()
    f1 = res.pairs["f1"].dropna()
    assert ((f1 >= 0) & (f1 <= 1)).all()
    if match == "overlap":
        exact = accord.span_agreement(df, match="exact").pairs["matched"]
        assert (exact <= res.pairs["matched"]).all()


@given(span_frames(), st.sampled_from(["exact", "overlap", "token"]), st.data())
def test_repeating_an_annotators_spans_changes_nothing(
    df: pd.DataFrame, match: str, data: st.DataObject
) -> None:
    # a span given again by the same annotator is the same mark: counted once
    texts = {"d1": "ab " * 20, "d2": "cd " * 20}
    repeats = data.draw(st.lists(st.integers(0, len(df) - 1), min_size=1, max_size=5))
    doubled = pd.concat([df, df.iloc[repeats]], ignore_index=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = accord.span_agreement(accord.Spans.from_frame(df, texts=texts), match=match)  # type: ignore[arg-type]
        with pytest.warns(accord.DroppedDataWarning, match="duplicate span"):
            spans = accord.Spans.from_frame(doubled, texts=texts)
        again = accord.span_agreement(spans, match=match)  # type: ignore[arg-type]
    pd.testing.assert_frame_equal(res.pairs, again.pairs)
    assert again.n_spans == res.n_spans
