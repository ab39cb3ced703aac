"""compare_agreement: Gwet's (2016) paired test of correlated agreement coefficients."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import accord
from accord import InvalidInputError

# The fictitious data sets ``ratings1`` and ``ratings2`` of the R package pairedCAC
# (K. L. Gwet, README of github.com/kgwet/pairedCAC): 15 subjects x raters A-D, labels 1-3;
# each string is RaterA RaterB RaterC RaterD of subjects 1..15.
RATINGS1 = [
    "1111",
    "1123",
    "1123",
    "2223",
    "1211",
    "2111",
    "2222",
    "2322",
    "3333",
    "1111",
    "1123",
    "3333",
    "3233",
    "1211",
    "2111",
]
RATINGS2 = [
    "1111",
    "3332",
    "3333",
    "1121",
    "1111",
    "1111",
    "2222",
    "2211",
    "3333",
    "1113",
    "2222",
    "3333",
    "3333",
    "1211",
    "3333",
]


def _ratings(rows: list[str], raters: int = 4) -> accord.Ratings:
    cells = [[int(c) for c in row[:raters]] for row in rows]
    names = ["RaterA", "RaterB", "RaterC", "RaterD"][:raters]
    return accord.Ratings.from_wide(pd.DataFrame(cells, columns=names, index=range(1, 16)))


# Published output of pairedCAC's ttest.fleiss / ttest.conger / ttest.ac2 / ttest.bp /
# ttest.pa (ratings1, ratings2): coefficient 1, coefficient 2, difference, SE, t, p.
# ttest.ac2 with its default identity weights is AC1.
PUBLISHED = {
    "fleiss_kappa": (0.3856655, 0.7248495, 0.339184, 0.1574322, 2.154477, 0.04910569),
    "conger_kappa": (0.3932584, 0.7250859, 0.3318275, 0.1527202, 2.172781, 0.04745695),
    "gwet_ac1": (0.4069193, 0.737382, 0.3304628, 0.1452689, 2.274835, 0.03917311),
    "gwet_ac2": (0.4069193, 0.737382, 0.3304628, 0.1452689, 2.274835, 0.03917311),
    "brennan_prediger": (0.4, 0.7333333, 0.3333333, 0.1477342, 2.256304, 0.04056859),
    "percent_agreement": (0.6, 0.8222222, 0.2222222, 0.09848947, 2.256304, 0.04056859),
    # ttest.alpha (README of pairedCAC)
    "krippendorff_alpha": (0.3959044, 0.7294354, 0.3335309, 0.1548083, 2.154477, 0.04910569),
}


def _digits(value: float, printed: float) -> None:
    """``value`` agrees with R's 7-significant-digit print of ``printed``."""
    assert value == pytest.approx(printed, rel=6e-7, abs=1e-12)


@pytest.mark.parametrize("coefficient", sorted(PUBLISHED))
def test_matches_paired_cac(coefficient: str) -> None:
    res = accord.compare_agreement(_ratings(RATINGS1), _ratings(RATINGS2), coefficient=coefficient)
    expected = PUBLISHED[coefficient]
    got = (
        res.coefficient1,
        res.coefficient2,
        res.difference,
        res.standard_error,
        res.statistic,
        res.pvalue,
    )
    for value, printed in zip(got, expected, strict=True):
        _digits(value, printed)
    assert res.df == 14 and res.n_items == 15 and res.reason is None


def test_matches_paired_cac_three_raters() -> None:
    # pairedCAC README: ttest.fleiss(ratings1, ratings2[, 1:3]) (second set: raters A-C).
    res = accord.compare_agreement(_ratings(RATINGS1), _ratings(RATINGS2, raters=3))
    expected = (0.3856655, 0.7942073, 0.4085418, 0.1612858, 2.53303, 0.02389035)
    got = (
        res.coefficient1,
        res.coefficient2,
        res.difference,
        res.standard_error,
        res.statistic,
        res.pvalue,
    )
    for value, printed in zip(got, expected, strict=True):
        _digits(value, printed)


def test_coefficients_are_the_estimators_own() -> None:
    r1, r2 = _ratings(RATINGS1), _ratings(RATINGS2)
    res = accord.compare_agreement(r1, r2, coefficient="gwet_ac2", weights="quadratic")
    assert res.coefficient1 == accord.gwet_ac2(r1, weights="quadratic").statistic
    assert res.coefficient2 == accord.gwet_ac2(r2, weights="quadratic").statistic


def test_interval_is_the_t_interval() -> None:
    res = accord.compare_agreement(_ratings(RATINGS1), _ratings(RATINGS2), confidence_level=0.9)
    half = 1.7613101357748562 * res.standard_error  # t(0.95, 14) (R: qt(0.95, 14))
    assert res.confidence_interval.low == pytest.approx(res.difference - half, rel=1e-12)
    assert res.confidence_interval.high == pytest.approx(res.difference + half, rel=1e-12)
    out = res.to_dict()
    assert out["ci_low"] == res.confidence_interval.low and out["coefficient"] == "fleiss_kappa"


def test_items_are_matched_by_id() -> None:
    r1 = _ratings(RATINGS1)
    frame = pd.DataFrame([[int(c) for c in row] for row in RATINGS2], index=range(1, 16))
    shuffled = accord.Ratings.from_wide(frame.iloc[::-1])
    a = accord.compare_agreement(r1, _ratings(RATINGS2))
    b = accord.compare_agreement(r1, shuffled)
    assert b.standard_error == pytest.approx(a.standard_error, rel=1e-12)
    assert b.difference == pytest.approx(a.difference, rel=1e-12)


def test_different_items_are_refused() -> None:
    frame = pd.DataFrame([[int(c) for c in row] for row in RATINGS2], index=range(2, 17))
    with pytest.raises(InvalidInputError, match=r"only in ratings1: 1; only in ratings2: 16$"):
        accord.compare_agreement(_ratings(RATINGS1), accord.Ratings.from_wide(frame))


def test_unknown_coefficient_and_wrong_input() -> None:
    with pytest.raises(InvalidInputError, match="unknown coefficient 'cohen'"):
        accord.compare_agreement(_ratings(RATINGS1), _ratings(RATINGS2), coefficient="cohen")
    with pytest.raises(InvalidInputError, match="ratings2 must be Ratings"):
        accord.compare_agreement(_ratings(RATINGS1), [[1, 1]])  # type: ignore[arg-type]


def test_item_terms_average_to_the_coefficient() -> None:
    from accord.agreement._counts import prepare
    from accord.agreement.many_raters import _FLEISS_KAPPA, _family

    r = _ratings(RATINGS1)
    fields = _family(
        _FLEISS_KAPPA,
        prepare(r),
        None,
        population_size=None,
        ci="analytic",
        n_boot=2000,
        rng=None,
        terms=True,
    )
    terms = fields["item_terms"]
    assert terms.mean() == pytest.approx(fields["statistic"], rel=1e-12)
    # The analytic SE is the spread of the same terms.
    se = math.sqrt(np.sum((terms - terms.mean()) ** 2) / (15 * 14))
    assert se == pytest.approx(accord.fleiss_kappa(r).standard_error, rel=1e-12)


_ROWS = st.lists(st.lists(st.integers(1, 3), min_size=3, max_size=3), min_size=4, max_size=12)


@settings(max_examples=40, deadline=None)
@given(
    _ROWS,
    _ROWS,
    st.sampled_from(["fleiss_kappa", "gwet_ac1", "brennan_prediger", "krippendorff_alpha"]),
)
@example([[1, 1, 1]] * 4, [[1, 1, 1]] * 4, "gwet_ac1")  # one category: a signed zero
def test_self_and_swap(rows1: list[list[int]], rows2: list[list[int]], coefficient: str) -> None:
    n = min(len(rows1), len(rows2))
    r1 = accord.Ratings.from_wide(rows1[:n], categories=[1, 2, 3])
    r2 = accord.Ratings.from_wide(rows2[:n], categories=[1, 2, 3])
    same = accord.compare_agreement(r1, r1, coefficient=coefficient)
    assert same.difference == 0.0 or math.isnan(same.difference)
    assert math.isnan(same.statistic) and math.isnan(same.pvalue)
    assert same.reason
    ab = accord.compare_agreement(r1, r2, coefficient=coefficient)
    ba = accord.compare_agreement(r2, r1, coefficient=coefficient)
    both_nan = math.isnan(ab.difference) and math.isnan(ba.difference)
    assert both_nan or ba.difference == -ab.difference
    if math.isfinite(ab.statistic):
        assert ba.statistic == pytest.approx(-ab.statistic, rel=1e-9)
        assert ba.pvalue == pytest.approx(ab.pvalue, rel=1e-9)
    else:
        assert ab.reason and ba.reason


# --------------------------------------------------------------- Krippendorff's alpha


def test_alpha_terms_average_to_alpha_on_an_incomplete_design() -> None:
    from accord.agreement.compare import _alpha_side

    rows = [[1, 1, None], [2, 2, 3], [1, None, 1], [3, 3, 3], [2, 1, 2], [None, 3, 3]]
    r = accord.Ratings.from_wide(rows, categories=[1, 2, 3])
    for level in ("nominal", "interval"):
        side = _alpha_side(r, None, level)  # type: ignore[arg-type]
        alpha = accord.krippendorff_alpha(r, level=level)
        assert side.terms is not None
        assert side.terms.mean() == pytest.approx(alpha.statistic, rel=1e-12)
        # the spread of the terms is the estimator's SE, rescaled by (1 - 1/N)
        big_n = 2 + 3 + 2 + 3 + 3 + 2  # pairable ratings
        se = math.sqrt(np.var(side.terms, ddof=1) / 6)
        assert se == pytest.approx((1 - 1 / big_n) * alpha.standard_error, rel=1e-12)


def test_alpha_needs_the_same_pairable_items() -> None:
    r1 = accord.Ratings.from_wide([[1, 1], [2, 2], [1, 2], [2, None]], categories=[1, 2])
    r2 = accord.Ratings.from_wide([[1, 2], [2, 2], [1, None], [2, 2]], categories=[1, 2])
    res = accord.compare_agreement(r1, r2, coefficient="krippendorff_alpha")
    assert math.isnan(res.standard_error) and "pairable" in (res.reason or "")
    assert res.coefficient2 == accord.krippendorff_alpha(r2).statistic
    with pytest.raises(InvalidInputError, match="level= applies to krippendorff_alpha"):
        accord.compare_agreement(r1, r2, level="ordinal")


# ------------------------------------------------------------------ independent samples


def test_independent_samples_by_hand() -> None:
    from scipy import stats

    r1 = _ratings(RATINGS1)
    frame = pd.DataFrame([[int(c) for c in row] for row in RATINGS2[:12]], index=range(101, 113))
    r2 = accord.Ratings.from_wide(frame)  # other items, fewer of them
    res = accord.compare_agreement(r1, r2, paired=False, confidence_level=0.9)
    k1, k2 = accord.fleiss_kappa(r1), accord.fleiss_kappa(r2)
    se = math.sqrt(k1.standard_error**2 + k2.standard_error**2)
    df = se**4 / (k1.standard_error**4 / 14 + k2.standard_error**4 / 11)  # Welch-Satterthwaite
    t = (k2.statistic - k1.statistic) / se
    assert res.paired is False and res.n_items == 27
    assert res.difference == pytest.approx(k2.statistic - k1.statistic, rel=1e-12)
    assert res.standard_error == pytest.approx(se, rel=1e-12)
    assert res.df == pytest.approx(df, rel=1e-12)
    assert res.statistic == pytest.approx(t, rel=1e-12)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(t), df), rel=1e-10)
    half = stats.t.ppf(0.95, df) * se
    assert res.confidence_interval.low == pytest.approx(res.difference - half, rel=1e-10)
    assert res.to_dict()["paired"] is False
    alpha = accord.compare_agreement(r1, r2, coefficient="krippendorff_alpha", paired=False)
    a1, a2 = accord.krippendorff_alpha(r1), accord.krippendorff_alpha(r2)
    assert alpha.standard_error == pytest.approx(
        math.hypot(a1.standard_error, a2.standard_error), rel=1e-12
    )
