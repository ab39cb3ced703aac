"""Krippendorff's unitizing alphas: the published examples (1995, 2004), a peer run of the
2016 family, hand computations, brute-force cross-checks and invariances."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import accord


def frame(rows: list[tuple[object, str, int, int]], document: str = "d") -> pd.DataFrame:
    """(annotator, label, start, end) rows in one document."""
    df = pd.DataFrame(rows, columns=["annotator", "label", "start", "end"])
    df["document"] = document
    return df


# --- Krippendorff (1995, 2004): the per-label alpha, as DKPro Agreement tests it ------------


def k1995(stretch: int = 1) -> pd.DataFrame:
    """Krippendorff (1995: p. 57), the four pairs of observers A-D on 24 positions, as
    DKPro Agreement's Krippendorff1995Test.createExample(stretch) builds it: units given
    as (begin, length) times ``stretch``; one label per pair of observers."""
    units = {
        "A": [(0, 2, 8), (0, 14, 6), (1, 4, 4), (1, 15, 2)],
        "B": [(0, 0, 18), (1, 0, 2), (1, 2, 1), (1, 3, 1), (1, 4, 1), (1, 5, 1), (1, 6, 3),
              (1, 9, 1)],
        "C": [(0, 2, 6), (0, 10, 2), (0, 14, 4), (0, 20, 2), (1, 0, 2), (1, 4, 4),
              (1, 10, 4), (1, 16, 2), (1, 20, 2)],
        "D": [(0, 0, 2), (0, 2, 8), (0, 10, 4), (0, 14, 6), (0, 20, 4), (1, 0, 4),
              (1, 4, 4), (1, 8, 7), (1, 15, 2), (1, 17, 7)],
    }  # fmt: skip
    rows = [(r, lab, b * stretch, (b + n) * stretch) for lab, us in units.items() for r, b, n in us]
    return frame(rows)


def test_krippendorff_1995_observed_disagreement() -> None:
    # DKPro Agreement, Krippendorff1995Test.testAgreement: D_o for A-D (offset 1e-5)
    res = accord.unitizing_alpha_1995(k1995(), lengths={"d": 24})
    got = res.per_label.set_index("label")["observed"]
    assert_allclose(got[["A", "B", "C", "D"]], [0.03125, 2.26736, 0.02777, 0.38715], atol=1e-5)
    # by hand for A: Bertha [2,10) [14,20), Bill [4,8) [15,17): (2^2 + 2^2) + (1^2 + 3^2) = 18,
    # D_o = 2 * 18 / (2 * 1 * 24^2) = 0.03125
    assert got["A"] == pytest.approx(2 * 18 / (2 * 24**2), rel=1e-12)


def test_krippendorff_1995_expected_and_alpha_on_a_fine_continuum() -> None:
    # Krippendorff (1995) reports D_e and alpha for a continuum taken as continuous; DKPro's
    # Krippendorff1995Test stretches the example by 1200000/24 and accepts D_e within 0.005
    # and alpha within 0.02 of the printed values (A .553, B -.926, C .679, D .066)
    res = accord.unitizing_alpha_1995(k1995(50000), lengths={"d": 1200000})
    t = res.per_label.set_index("label")
    assert_allclose(t.loc[["A", "B", "C", "D"], "expected"], [0.06990, 1.17731, 0.08642, 0.41445],
                    atol=0.005)  # fmt: skip
    assert_allclose(t.loc[["A", "B", "C", "D"], "alpha"], [0.553, -0.926, 0.679, 0.066], atol=0.02)
    # the observed disagreement does not depend on the stretch
    assert_allclose(t.loc["C", "observed"], 0.02777, atol=1e-5)


def test_krippendorff_1995_expected_converges_with_the_stretch() -> None:
    # DKPro Krippendorff1995Test.testVaryingLengths: D_e(C) at 12/24 and 120/24
    for stretch, length, d_e in ((1, 24, None), (5, 120, 0.08234), (50, 1200, 0.08600)):
        res = accord.unitizing_alpha_1995(k1995(stretch), lengths={"d": length})
        row = res.per_label.set_index("label").loc["C"]
        assert row["observed"] == pytest.approx(0.02777, abs=1e-5)
        if d_e is not None:
            assert row["expected"] == pytest.approx(d_e, abs=0.005)


def k2004() -> pd.DataFrame:
    """Krippendorff (2004: p. 254): two observers, labels c and k on [150, 450), shifted to
    start at 0 (DKPro Krippendorff2004Test.createExample, units as (begin, length))."""
    units = [(0, "c", 225, 70), (0, "c", 370, 30), (1, "c", 220, 80), (1, "c", 355, 20),
             (1, "c", 400, 20), (0, "k", 180, 60), (0, "k", 300, 50), (1, "k", 180, 60),
             (1, "k", 300, 50)]  # fmt: skip
    return frame([(r, lab, b - 150, b + n - 150) for r, lab, b, n in units])


def test_krippendorff_2004_example() -> None:
    # DKPro Agreement Krippendorff2004Test.testCategoryAgreement (offset 1e-4):
    # c: D_o .0144, D_e .0532, alpha .7286; k: D_o 0, D_e .0490, alpha 1
    res = accord.unitizing_alpha_1995(k2004(), lengths={"d": 300})
    t = res.per_label.set_index("label")
    assert_allclose(t.loc["c", ["observed", "expected", "alpha"]].astype(float),
                    [0.0144, 0.0532, 0.7286], atol=1e-4)  # fmt: skip
    assert_allclose(t.loc["k", ["observed", "expected", "alpha"]].astype(float),
                    [0.0, 0.0490, 1.0], atol=1e-4)  # fmt: skip
    # testAgreement: 0.8591 within 0.0005 (the book's figure from D's rounded to 4 places:
    # 1 - .0144 / (.0532 + .0490) = .8591; unrounded it is .8587)
    assert res.statistic == pytest.approx(0.8591, abs=5e-4)
    assert res.statistic == pytest.approx(1 - res.observed / res.expected, rel=1e-12)


def test_dkpro_unitizing_example_by_hand() -> None:
    # DKPro UnitizingAgreementTest.testAgreement: r0 -11111111-, r1 --1-1-1---;
    # D_o .9100, D_e .5351, alpha -.7003 (offset 1e-4). By hand: the unit [1,9) against
    # [2,3), [4,5), [6,7): 37 + 25 + 29 = 91, D_o = 2 * 91 / (2 * 1 * 10^2) = 0.91;
    # D_e = (2/10) * (3 * 840 / 3 + 3 * 9) / (20 * 19 - 56) = 173.4 / 324
    res = accord.unitizing_alpha_1995(
        frame([(0, "A", 1, 9), (1, "A", 2, 3), (1, "A", 4, 5), (1, "A", 6, 7)]), lengths={"d": 10}
    )
    row = res.per_label.iloc[0]
    assert row["observed"] == pytest.approx(0.91, rel=1e-12)
    assert row["expected"] == pytest.approx(173.4 / 324, rel=1e-12)
    assert row["alpha"] == pytest.approx(-0.7003, abs=1e-4)


def test_units_of_different_labels_may_overlap_in_1995_but_not_in_2016() -> None:
    df = frame([("a", "x", 0, 5), ("a", "y", 3, 8), ("b", "x", 0, 5), ("b", "y", 3, 8)])
    res = accord.unitizing_alpha_1995(df, lengths={"d": 10})
    assert res.statistic == pytest.approx(1.0)
    with pytest.raises(
        accord.InvalidInputError, match=r"annotator 'a', document 'd', 'x' 0-5 and 'y' 3-8"
    ):
        accord.unitizing_alpha(df, lengths={"d": 10})


# --- the 2016 family ------------------------------------------------------------------------

#: Peer: lindanna/unitized_alpha (unitized_alpha.py, which transcribes the 2016 paper's
#: equations), run side by side: ``u_alpha(spans, 20, 'nominal')`` on the data of its
#: ``__main__`` block; its README prints the same figures (0.474, 0.433, 0.779 covering
#: 38.33 %, (1) 0.769 covering 95.45 %, (2) 0.787 covering 59.52 %).
LINDANNA_MAIN = {
    "spans": [("Alex", "1", 2, 5), ("Alex", "1", 9, 11), ("Alex", "2", 12, 20),
              ("Paul", "1", 2, 5), ("Paul", "2", 7, 15), ("Susan", "1", 2, 5),
              ("Susan", "2", 10, 15)],
    "length": 20,
    "u": 0.4739130434782609, "binary": 0.43281249999999993, "cu": 0.7788819875776397,
    "coverage": 0.38333333333333336, "k": [0.7692517006802722, 0.7869714285714285],
    "k_coverage": [0.9545454545454545, 0.5952380952380952],
}  # fmt: skip

#: Same peer, ``u_alpha(spans, 60, 'nominal')`` on the spans of its README example.
LINDANNA_README = {
    "spans": [("Alex", "1", 2, 5), ("Paul", "1", 2, 5), ("Paul", "2", 10, 20),
              ("Susan", "2", 2, 5), ("Susan", "2", 15, 20)],
    "length": 60,
    "u": 0.3982981423791392, "binary": 0.5238010446343782, "cu": 0.3571428571428571,
    "coverage": 0.07777777777777778, "k": [0.3125000000000001, 0.390625],
    "k_coverage": [1.0, 0.4444444444444444],
}  # fmt: skip


@pytest.mark.parametrize("ref", [LINDANNA_MAIN, LINDANNA_README], ids=["main", "readme"])
def test_2016_family_against_the_python_transcription(ref: dict) -> None:
    res = accord.unitizing_alpha(frame(ref["spans"]), lengths={"d": ref["length"]})
    assert_allclose([res.statistic, res.binary, res.coding, res.coverage],
                    [ref["u"], ref["binary"], ref["cu"], ref["coverage"]], rtol=1e-12)  # fmt: skip
    assert_allclose(res.per_label["alpha"], ref["k"], rtol=1e-12)
    assert_allclose(res.per_label["coverage"], ref["k_coverage"], rtol=1e-12)


def test_2016_one_label_by_hand() -> None:
    # a: x [0,4); b: x [2,6); L = 10. l_xx = 4, l_x. = 8, l_gg = 8, l_.. = 20;
    # S_x = 4^2 + 4^2 = 32, S_gap = 6 + 6 = 12; e_xx = 20 * 32 / 356, e_gg = 20 * 132 / 356;
    # u-alpha = 1 - 8 / (20 - 20 * 164 / 356) = 31/120; with one label |u = u, and cu is
    # undefined (no expected disagreement among labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = accord.unitizing_alpha(frame([("a", "x", 0, 4), ("b", "x", 2, 6)]), lengths={"d": 10})
    assert res.statistic == pytest.approx(31 / 120, rel=1e-12)
    assert res.binary == pytest.approx(31 / 120, rel=1e-12)
    assert math.isnan(res.coding)
    assert res.observed.loc["x", "x"] == 4 and res.observed.loc["(gap)", "(gap)"] == 8
    assert res.expected.loc["x", "x"] == pytest.approx(20 * 32 / 356, rel=1e-12)


def test_2016_two_labels_no_gaps_by_hand() -> None:
    # a: x [0,4), y [4,8); b: x [0,6), y [6,8); L = 8, no gaps. l_xx = 8, l_xy = l_yx = 2,
    # l_yy = 4; S*_x = 4^2 + 6^2 = 52, S*_y = 4^2 + 2^2 = 20; e*_kk = (l_k^2 - S_k) / 11.5;
    # cu = 1 - 4 / (16 - 64 / 11.5) = 37/60, and without gaps u = cu;
    # (x) = 1 - (108 / 115) * 2 / (60 / 11.5) = 0.64, (y) = 1 - 152 / 360 = 26/45
    df = frame([("a", "x", 0, 4), ("a", "y", 4, 8), ("b", "x", 0, 6), ("b", "y", 6, 8)])
    res = accord.unitizing_alpha(df)
    assert res.coding == pytest.approx(37 / 60, rel=1e-12)
    assert res.statistic == pytest.approx(37 / 60, rel=1e-12)
    assert res.coverage == pytest.approx(1.0)
    assert_allclose(res.per_label["alpha"], [0.64, 26 / 45], rtol=1e-12)
    assert res.n_annotators == 2 and res.length == 8


def brute_coincidences(df: pd.DataFrame, length: int, labels: list[str]) -> np.ndarray:
    """l_ck by counting character by character (value 0 the gap, label index + 1)."""
    annotators = sorted(df["annotator"].unique())
    m = len(annotators)
    grid = np.zeros((m, length), dtype=int)
    for a, lab, s, e in df[["annotator", "label", "start", "end"]].itertuples(index=False):
        grid[annotators.index(a), s:e] = labels.index(lab) + 1
    q = len(labels) + 1
    ell = np.zeros((q, q))
    for t in range(length):
        for i, j in itertools.permutations(range(m), 2):
            ell[grid[i, t], grid[j, t]] += 1
    return ell / (m - 1)


@st.composite
def partitions(draw: st.DrawFn) -> tuple[pd.DataFrame, int]:
    """Two to four annotators, each with non-overlapping units on [0, length)."""
    length = draw(st.integers(4, 30))
    m = draw(st.integers(2, 4))
    rows = []
    for a in range(m):
        cuts = sorted(draw(st.sets(st.integers(0, length), min_size=2, max_size=8)))
        for s, e in itertools.pairwise(cuts):
            if draw(st.booleans()):
                rows.append((f"r{a}", draw(st.sampled_from(["x", "y", "z"])), s, e))
    return frame(rows), length


@settings(max_examples=40, deadline=None)
@given(partitions())
def test_coincidences_match_a_character_count(case: tuple[pd.DataFrame, int]) -> None:
    df, length = case
    if df.empty or df["annotator"].nunique() < 2:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = accord.unitizing_alpha(df, lengths={"d": length})
    ell = brute_coincidences(df, length, list(res.labels))
    assert_allclose(res.observed.to_numpy(), ell, atol=1e-9)
    assert_allclose(res.expected.to_numpy().sum(), ell.sum(), rtol=1e-9)


def brute_observed_1995(df: pd.DataFrame, length: int, label: str) -> float:
    """Sum of delta^2 over every pair of segments of two annotators that overlap."""
    annotators = sorted(df["annotator"].unique())
    segments = []
    for a in annotators:
        units = sorted(
            (s, e)
            for s, e in df[(df.annotator == a) & (df.label == label)][["start", "end"]].itertuples(
                index=False
            )
        )
        segs, pos = [], 0
        for s, e in units:
            if s > pos:
                segs.append((pos, s, False))
            segs.append((s, e, True))
            pos = e
        if pos < length:
            segs.append((pos, length, False))
        segments.append(segs)
    total = 0.0
    for gi, hj in itertools.combinations(segments, 2):
        for sg, eg, ug in gi:
            for sh, eh, uh in hj:
                if min(eg, eh) <= max(sg, sh):
                    continue
                if ug and uh:
                    total += (sg - sh) ** 2 + (eg - eh) ** 2
                elif ug and sg >= sh and eg <= eh:
                    total += (eg - sg) ** 2
                elif uh and sh >= sg and eh <= eg:
                    total += (eh - sh) ** 2
    m = len(annotators)
    return 2 * total / (m * (m - 1) * length**2)


@settings(max_examples=40, deadline=None)
@given(partitions())
def test_1995_observed_matches_a_pairwise_loop(case: tuple[pd.DataFrame, int]) -> None:
    df, length = case
    if df.empty or df["annotator"].nunique() < 2:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = accord.unitizing_alpha_1995(df, lengths={"d": length})
    for lab, got in res.per_label.set_index("label")["observed"].items():
        assert got == pytest.approx(brute_observed_1995(df, length, str(lab)), abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(partitions(), st.permutations(["x", "y", "z"]))
def test_invariant_to_annotator_and_label_names(case: tuple[pd.DataFrame, int], perm: list) -> None:
    df, length = case
    if df.empty or df["annotator"].nunique() < 2:
        return
    renamed = df.assign(
        label=df["label"].map(dict(zip(["x", "y", "z"], perm, strict=True))),
        annotator=df["annotator"].map(lambda a: "z" + a[::-1]),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = accord.unitizing_alpha(df, lengths={"d": length})
        two = accord.unitizing_alpha(renamed, lengths={"d": length})
        a95 = accord.unitizing_alpha_1995(df, lengths={"d": length})
        b95 = accord.unitizing_alpha_1995(renamed, lengths={"d": length})
    for a, b in ((one.statistic, two.statistic), (one.binary, two.binary),
                 (one.coding, two.coding), (a95.statistic, b95.statistic)):  # fmt: skip
        assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-9)
    if math.isfinite(one.statistic):
        assert one.statistic <= 1 + 1e-12


def test_identical_annotators_agree_perfectly_and_documents_do_not_merge_gaps() -> None:
    rows = [("a", "x", 2, 5), ("b", "x", 2, 5), ("a", "y", 6, 9), ("b", "y", 6, 9)]
    one = pd.concat([frame(rows, "d1"), frame(rows, "d2")])
    res = accord.unitizing_alpha(one, lengths={"d1": 12, "d2": 12})
    assert res.statistic == pytest.approx(1.0) and res.coding == pytest.approx(1.0)
    assert res.length == 24 and res.n_documents == 2
    # two documents are two continua: the gap [9, 12) of d1 and [0, 2) of d2 stay apart
    assert res.expected.loc["(gap)", "(gap)"] > 0


def test_overlapping_units_are_counted_in_words() -> None:
    one = [("a", "x", 0, 4), ("a", "y", 3, 6), ("b", "x", 0, 4)]
    with pytest.raises(accord.InvalidInputError, match=r"but 1 unit overlaps the one before; "):
        accord.unitizing_alpha(frame(one), lengths={"d": 9})
    two = [("a", "x", 0, 4), ("a", "y", 3, 6), ("a", "x", 5, 8), ("b", "x", 0, 4)]
    with pytest.raises(accord.InvalidInputError, match=r"but 2 units overlap the one before; "):
        accord.unitizing_alpha(frame(two), lengths={"d": 9})


def test_unknown_length_is_the_last_end_and_a_note_says_so() -> None:
    res = accord.unitizing_alpha(frame([("a", "x", 0, 4), ("b", "x", 0, 6), ("b", "y", 6, 9)]))
    assert res.length == 9
    assert (
        "1 document without a known length (first: 'd'): the continuum ends at the last end "
        "any annotator marked there" in res.notes
    )
    with pytest.raises(accord.InvalidInputError, match="given length 5, but a span ends at 9"):
        accord.unitizing_alpha(frame([("a", "x", 0, 4), ("b", "y", 6, 9)]), lengths={"d": 5})


def test_bad_input() -> None:
    with pytest.raises(accord.InvalidInputError, match="at least two annotators"):
        accord.unitizing_alpha(frame([("a", "x", 0, 4)]))
    with pytest.raises(accord.InvalidInputError, match="not in the spans"):
        accord.unitizing_alpha(frame([("a", "x", 0, 4), ("b", "x", 0, 4)]), lengths={"e": 9})
    with pytest.raises(accord.InvalidInputError, match="mutually exclusive"):
        accord.unitizing_alpha_1995(frame([("a", "x", 0, 4), ("a", "x", 2, 6), ("b", "x", 0, 4)]))


def test_read_brat_example_and_to_dict() -> None:
    spans = accord.read_brat(accord.datasets.path("spans"))
    res = accord.unitizing_alpha(spans)
    assert -1 <= res.statistic <= 1 and 0 < res.coverage < 1
    d = res.to_dict()
    assert set(d["observed"]) == {"(gap)", "DISEASE", "DRUG"}
    assert d["per_label"][0]["label"] == "DISEASE"
    old = accord.unitizing_alpha_1995(spans).to_dict()
    assert old["per_label"][0]["label"] == "DISEASE"


# --- Krippendorff (2019), Figure 12.11: the book's worked example -------------------------

#: Krippendorff, *Content Analysis* (4th ed., 2019), section 12.6, Figure 12.11 (p. 340):
#: three observers on a continuum of 60 characters, positions 1-based and inclusive as R
#: quallmer's tests/testthat/test-alpha_u.R transcribes the figure. The book prints
#: u-alpha = .510, |u-alpha = .413 and cu-alpha = .724.
BOOK_12_11 = {
    "Alex": [(1, 7, "1"), (8, 13, "2"), (31, 32, "5"), (33, 37, "6"), (38, 44, "6"),
             (45, 60, "7")],
    "Paul": [(1, 7, "1"), (8, 13, "3"), (14, 21, "5"), (33, 44, "6")],
    "Suzan": [(1, 7, "1"), (8, 13, "4"), (14, 21, "5"), (33, 37, "6"), (38, 41, "6"),
              (42, 44, "6")],
}  # fmt: skip


def test_krippendorff_2019_figure_12_11() -> None:
    rows = [(a, lab, s - 1, e) for a, units in BOOK_12_11.items() for s, e, lab in units]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = accord.unitizing_alpha(frame(rows), lengths={"d": 60})
    assert round(res.statistic, 3) == 0.510
    assert res.binary == pytest.approx(0.413, abs=1e-3)
    # the printed .724 is nearer accord's self-pairings (0.7256, averaged over the other
    # observers) than quallmer's (the union of the others' units: 0.7283)
    assert res.coding == pytest.approx(0.724, abs=2e-3)
    per = res.per_label.set_index("label")
    # 2, 3 and 4 meet only each other in [7, 13): no agreement; 1, 5 and 6 always agree;
    # 5 meets another observer's unit on 8 of its 18 characters, 7 on none
    assert_allclose(per.loc[["1", "5", "6"], "alpha"], 1.0)
    assert_allclose(per.loc[["2", "3", "4"], "alpha"], 0.0, atol=1e-12)
    assert per.loc["5", "coverage"] == pytest.approx(8 / 18, rel=1e-12)
    assert per.loc["7", "coverage"] == 0 and math.isnan(per.loc["7", "alpha"])


# --- three annotators: the pooled coincidences, by hand ------------------------------------


def test_three_annotators_pool_every_ordered_pair_by_hand() -> None:
    # a, b: x [0,4); c: x [2,6); L = 10. Over the 6 ordered pairs: xx 4+4+2+2+2+2 = 16,
    # gap-gap 6+6+4+4+4+4 = 28, x-gap 8 each way; over m - 1 = 2: l_xx = 8, l_gg = 14,
    # l_xg = 4, l_.. = 30. S_x = 3 * 16 = 48, S_gap = 6 * 3 = 18; denominator
    # 30 - 66/30 = 27.8; D_e = 2 * 12 * 18 / 27.8, D_o = 8: u-alpha = 1 - 8 * 27.8 / 432
    # = 131/270. Averaging the three pairs' alphas instead (1, 31/120, 31/120, see
    # test_2016_one_label_by_hand) would give 91/180: accord pools, as the 2016 paper's
    # eq. for l_ck, R quallmer (compute_alpha_u) and DKPro Agreement (all pairs summed) do.
    df = frame([("a", "x", 0, 4), ("b", "x", 0, 4), ("c", "x", 2, 6)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = accord.unitizing_alpha(df, lengths={"d": 10})
    assert res.statistic == pytest.approx(131 / 270, rel=1e-12)
    assert res.binary == pytest.approx(131 / 270, rel=1e-12)
    assert res.observed.loc["x", "x"] == 8 and res.observed.loc["(gap)", "(gap)"] == 14
    assert res.observed.loc["x", "(gap)"] == 4 and res.observed.to_numpy().sum() == 30
    assert res.statistic != pytest.approx(91 / 180, rel=1e-3)


def test_three_annotators_cu_alpha_self_pairings_by_hand() -> None:
    # a: x [0,4); b: x [0,2), y [2,4); c: x [2,4); L = 4. l*_xx = 4, l*_xy = l*_yx = 2,
    # l*_yy = 0, l*_.. = 8, l*_x. = 6, l*_y. = 2. Self-pairings averaged over the other
    # annotators (accord, the Python transcription): a's x meets 4 of b's units and 2 of
    # c's (16 + 4), b's x 2 and 0 (4), b's y 2 and 2 (4 + 4), c's x 2 and 2 (4 + 4), over
    # m - 1: S*_x = 32/2 = 16, S*_y = 4; denominator 8 - 20/8 = 5.5; e*_xx = 20/5.5,
    # e*_yy = 0; cu-alpha = 1 - 4 / (8 - 20/5.5) = 1/12. R quallmer squares the stretch
    # covered by the union of the others' units (a's x: 16, b's x: 4, b's y: 4, c's x: 4;
    # S*_x = 24, S*_y = 4, denominator 4.5), which gives 1 - 4 / (8 - 12/4.5) = 1/4.
    df = frame([("a", "x", 0, 4), ("b", "x", 0, 2), ("b", "y", 2, 4), ("c", "x", 2, 4)])
    res = accord.unitizing_alpha(df, lengths={"d": 4})
    assert res.coding == pytest.approx(1 / 12, rel=1e-12)
    assert res.observed.loc["x", "y"] == 2 and res.observed.loc["y", "y"] == 0
    assert res.coverage == pytest.approx(8 / 12, rel=1e-12)


# --- bootstrap intervals over documents ----------------------------------------------------


def corpus(seed: int, n_docs: int = 6) -> tuple[pd.DataFrame, dict[str, int]]:
    """Three annotators marking three slots of 30 characters in each document."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(n_docs):
        for a in "abc":
            for s in (0, 10, 20):
                if rng.random() < 0.8:
                    lab = str(rng.choice(["x", "y"]))
                    begin = s + int(rng.integers(0, 3))
                    rows.append((a, lab, begin, s + 5 + int(rng.integers(0, 3)), f"d{d}"))
    df = pd.DataFrame(rows, columns=["annotator", "label", "start", "end", "document"])
    return df, {f"d{d}": 30 for d in range(n_docs)}


def boot(df: pd.DataFrame, lengths: dict[str, int], **kw: object) -> accord.UnitizingAlpha:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return accord.unitizing_alpha(df, lengths=lengths, **kw)  # type: ignore[arg-type]


def test_bootstrap_resamples_documents_like_a_loop_over_the_public_function() -> None:
    # the same draws (Generator(7).integers(n_docs, size=n_docs), one a replicate), each
    # resample built as its own table of documents renamed by draw position
    df, lengths = corpus(1)
    res = boot(df, lengths, n_boot=40, rng=7)
    docs = sorted(lengths)
    gen = np.random.default_rng(7)
    reps = []
    for _ in range(40):
        draw = gen.integers(len(docs), size=len(docs))
        parts = [df[df.document == docs[d]].assign(document=f"r{p}") for p, d in enumerate(draw)]
        one = boot(pd.concat(parts), {f"r{p}": 30 for p in range(len(docs))})
        reps.append([one.statistic, one.binary, one.coding, *one.per_label["alpha"]])
    table = np.array(reps)
    assert list(res.intervals["coefficient"]) == ["u", "|u", "cu", "(k)u x", "(k)u y"]
    assert_allclose(res.intervals["low"], np.nanquantile(table, 0.025, axis=0), rtol=1e-12)
    assert_allclose(res.intervals["high"], np.nanquantile(table, 0.975, axis=0), rtol=1e-12)
    assert_allclose(res.intervals["standard_error"], np.nanstd(table, axis=0, ddof=1), rtol=1e-12)
    # Hayes & Krippendorff's (2007) q, the probability of failing to reach a smallest
    # acceptable alpha (which the 2016 paper adds to its intervals): the share below it
    for edge in (0.667, 0.8):
        share = [np.mean(col[np.isfinite(col)] < edge) for col in table.T]
        assert_allclose(res.intervals[f"q_{edge:.3f}"], share, rtol=0, atol=0)
    assert res.intervals["estimate"].iloc[0] == res.statistic
    assert res.n_boot == 40 and res.seed == 7 and res.confidence_level == 0.95


def test_bootstrap_of_identical_documents_collapses_and_is_seeded() -> None:
    df, lengths = corpus(2, n_docs=1)
    copies = pd.concat([df.assign(document=f"d{k}") for k in range(4)])
    res = boot(copies, {f"d{k}": 30 for k in range(4)}, n_boot=30, rng=1)
    assert_allclose(res.intervals["low"], res.intervals["estimate"], rtol=1e-12)
    assert_allclose(res.intervals["high"], res.intervals["estimate"], rtol=1e-12)
    df, lengths = corpus(3)
    one, two = boot(df, lengths, n_boot=25, rng=5), boot(df, lengths, n_boot=25, rng=5)
    pd.testing.assert_frame_equal(one.intervals, two.intervals)
    assert boot(df, lengths).intervals.empty


def test_bootstrap_warns_below_1000_and_refuses_one_document() -> None:
    df, lengths = corpus(4)
    with pytest.warns(accord.AccordWarning, match=r"only 50 bootstrap replicates \(n_boot=50\)"):
        accord.unitizing_alpha(df, lengths=lengths, n_boot=50)
    one = df[df.document == "d0"]
    res = boot(one, {"d0": 30}, n_boot=1000)
    assert res.intervals[["low", "high", "standard_error", "q_0.667"]].isna().all().all()
    assert any("resamples documents, and there is one" in n for n in res.notes)
    with pytest.raises(accord.InvalidInputError, match="n_boot"):
        accord.unitizing_alpha(df, lengths=lengths, n_boot=-1)
    with pytest.raises(accord.InvalidInputError, match="confidence_level"):
        accord.unitizing_alpha(df, lengths=lengths, n_boot=1000, confidence_level=95)


def test_overlap_within_an_annotator_is_refused_naming_labels_and_positions() -> None:
    df = frame([("a", "x", 0, 5), ("a", "x", 4, 8), ("b", "x", 0, 5)])
    with pytest.raises(accord.InvalidInputError) as caught:
        accord.unitizing_alpha(df, lengths={"d": 10})
    message = str(caught.value)
    assert "\n" not in message
    assert "annotator 'a', document 'd', 'x' 0-5 and 'x' 4-8" in message
    assert "partition of the continuum into units and gaps" in message
