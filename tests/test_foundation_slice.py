"""The end-to-end slice: ratings -> Fleiss' kappa and Krippendorff's alpha (nominal)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from numpy.testing import assert_allclose

import accord
from accord import DegenerateDataWarning, fleiss_kappa, krippendorff_alpha

from .strategies import long_ratings, ratings_of


@pytest.fixture
def diagnoses(examples) -> accord.Ratings:  # type: ignore[no-untyped-def]
    return accord.read_ratings(
        examples / "diagnoses.csv", item="patient", rater="rater", label="diagnosis"
    )


def test_fleiss_diagnoses(diagnoses: accord.Ratings) -> None:
    res = fleiss_kappa(diagnoses)
    # Fleiss (1971), Psychological Bulletin 76(5):378-382: kappa = .430; R irr 0.84.1:
    # kappam.fleiss(diagnoses) -> Kappa = 0.4302445, z = 17.65183 (z = kappa / SE under H0).
    assert_allclose(res.statistic, 0.4302445, atol=5e-8)
    assert_allclose(res.statistic / res.standard_error_null, 17.65183, rtol=1e-6)
    # Fleiss (1971) per-category kappas (also R irr kappam.fleiss(diagnoses, detail=TRUE)):
    # depression .245, personality disorder .245, schizophrenia .520, neurosis .471, other .566
    per = res.per_category.set_index("category")["kappa"]
    expected = {
        "Depression": 0.245,
        "Personality Disorder": 0.245,
        "Schizophrenia": 0.520,
        "Neurosis": 0.471,
        "Other": 0.566,
    }
    for name, value in expected.items():
        assert_allclose(per[name], value, atol=5e-4)


def test_fleiss_wikipedia_vector() -> None:
    # Spec many-raters.md, Wikipedia "Fleiss' kappa" worked example (14 raters, 10 items):
    # Fleiss 0.209931 (SE 0.092371, p_a 0.378022, p_e 0.212755); SE as irrCAC fleiss.kappa.dist.
    counts = [
        [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
    ]  # fmt: skip
    res = fleiss_kappa(counts)
    assert_allclose(res.statistic, 0.209931, atol=5e-7)
    assert_allclose(res.standard_error, 0.092371, atol=5e-7)
    assert_allclose(res.observed_agreement, 0.378022, atol=5e-7)
    assert_allclose(res.chance_agreement, 0.212755, atol=5e-7)
    # Krippendorff on the same counts: 0.215574 (spec many-raters.md)
    assert_allclose(krippendorff_alpha(counts).statistic, 0.215574, atol=5e-7)


@pytest.mark.parametrize(
    ("counts", "fleiss", "alpha"),
    [
        # spec many-raters.md, count tables (Fleiss / Krippendorff)
        ([[7, 1], [3, 5]], 0.161905, 0.214286),
        ([[6, 1, 0], [0, 7, 0]], 0.708333, 0.729167),
        ([[7, 0], [0, 7]], 1.0, 1.0),
    ],
)
def test_count_table_vectors(counts: list[list[int]], fleiss: float, alpha: float) -> None:
    assert_allclose(fleiss_kappa(counts).statistic, fleiss, atol=5e-7)
    assert_allclose(krippendorff_alpha(counts).statistic, alpha, atol=5e-7)


def test_wikipedia_krippendorff_vector() -> None:
    # spec many-raters.md: Wikipedia "Krippendorff's alpha" example -> nominal 0.691358,
    # interval 0.810845
    nan = np.nan
    coders = np.array(
        [
            [nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
            [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
            [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4],
        ]
    )
    r = accord.Ratings.from_wide(coders.T)
    res = krippendorff_alpha(r)
    assert_allclose(res.statistic, 0.691358, atol=5e-7)
    # Units 2 and 14 have no value (items without a rating, not counted); unit 1 has one
    # value (not pairable).
    assert r.n_items == 15 and r.report.items == 13
    assert res.n_items_unpairable == 1
    assert_allclose(krippendorff_alpha(r, level="interval").statistic, 0.810845, atol=5e-7)


def test_alpha_matches_krippendorff_package(diagnoses: accord.Ratings) -> None:
    import krippendorff  # peer, installed with the 'peers' group

    rng = np.random.default_rng(42)
    cases = [
        (diagnoses, ("nominal",)),
        (_random_incomplete(rng), ("nominal", "ordinal", "interval")),
    ]
    for ratings, levels in cases:
        data = ratings.code_matrix().T.astype(float)
        data[data < 0] = np.nan
        for level in levels:
            ours = krippendorff_alpha(ratings, level=level).statistic  # type: ignore[arg-type]
            theirs = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
            assert_allclose(ours, theirs, rtol=1e-10)


def _random_incomplete(rng: np.random.Generator) -> accord.Ratings:
    wide = rng.integers(1, 6, size=(60, 5)).astype(float)
    wide[rng.random(wide.shape) < 0.35] = np.nan
    return accord.Ratings.from_wide(wide, level="ordinal")


def test_degenerate_one_category_is_nan_with_reason() -> None:
    counts = [[7, 0], [7, 0]]  # spec: Fleiss undefined, Krippendorff undefined
    with pytest.warns(DegenerateDataWarning):
        f = fleiss_kappa(counts)
    with pytest.warns(DegenerateDataWarning):
        a = krippendorff_alpha(counts)
    for res in (f, a):
        assert math.isnan(res.statistic)
        assert res.reason is not None and "one category" in res.reason


def test_no_pairable_item_is_nan_with_reason() -> None:
    r = accord.Ratings.from_wide([["a", None], [None, "b"]])
    with pytest.warns(DegenerateDataWarning):
        f = fleiss_kappa(r)
    with pytest.warns(DegenerateDataWarning):
        a = krippendorff_alpha(r)
    for res in (f, a):
        assert math.isnan(res.statistic)
        assert res.reason is not None and "two or more ratings" in res.reason
        assert math.isnan(res.confidence_interval().low)


def test_systematic_disagreement_alpha_is_minus_half() -> None:
    # spec many-raters.md: [["A","B"],["B","A"]] -> alpha = -0.5
    r = accord.Ratings.from_wide([["A", "B"], ["B", "A"]])
    assert_allclose(krippendorff_alpha(r).statistic, -0.5)


def test_result_fields_and_interval(diagnoses: accord.Ratings) -> None:
    res = fleiss_kappa(diagnoses)
    d = res.to_dict()
    for key in (
        "statistic", "standard_error", "n_items", "n_raters", "method", "categories",
        "ci_low", "ci_high", "pvalue", "df",
    ):  # fmt: skip
        assert key in d
    assert d["n_items"] == 30 and d["n_raters"] == 6 and d["df"] == 29
    # t interval by hand: kappa +- t(0.975, 29) * SE
    from scipy import stats

    half = stats.t.ppf(0.975, 29) * res.standard_error
    ci = res.confidence_interval(0.95)
    assert_allclose([ci.low, ci.high], [res.statistic - half, res.statistic + half])
    assert_allclose(res.pvalue, 2 * stats.t.sf(res.statistic / res.standard_error, 29))
    with pytest.raises(accord.InvalidInputError, match="strictly between 0 and 1"):
        res.confidence_interval(1.5)


# ------------------------------------------------------------------ properties


def _both(r: accord.Ratings) -> tuple[float, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        return fleiss_kappa(r).statistic, krippendorff_alpha(r).statistic


@given(long_ratings())
def test_bounds(frame: pd.DataFrame) -> None:
    # Upper bound 1 only: on incomplete designs the chance term uses items with one rating,
    # so kappa can fall below -1 (Gwet 2014, ch. 5).
    for value in _both(ratings_of(frame)):
        if not math.isnan(value):
            assert value <= 1.0 + 1e-12


@given(long_ratings())
def test_invariant_to_row_order_and_relabelling(frame: pd.DataFrame) -> None:
    base = _both(ratings_of(frame))
    shuffled = frame.sample(frac=1.0, random_state=0).reset_index(drop=True)
    renamed = frame.assign(
        label=frame["label"].map(lambda s: "z" + s[::-1]),
        rater=frame["rater"].map(lambda s: s.upper()),
        item=frame["item"].map(lambda s: s + "x"),
    )
    for other in (shuffled, renamed):
        assert_allclose(_both(ratings_of(other)), base, rtol=1e-12, atol=1e-12)
