"""Sample-size planning: the closed forms against published values and hand computations, the
simulated studies against the closed forms, monotonicity, bad input."""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import accord
from accord import InvalidInputError
from accord.planning import kappa_cell_probabilities

Z = NormalDist().inv_cdf
PHI = NormalDist().cdf


# ------------------------------------------------------------------------------- ICC: test


def _walter(rho0: float, rho1: float, k: int, alpha: float, power: float, sides: int) -> float:
    """Walter, Eliasziw & Donner (1998), Stat. Med. 17:101-110, their approximation, written
    out by hand: n = 1 + 2 (z_a + z_b)^2 k / ((ln C0)^2 (k - 1)), C0 = (1 + k th0)/(1 + k th1).
    R ICC.Sample.Size::calculateIccSampleSize and Agree::n_icc (Zou 2012, assurance) compute
    it in the form (1 + (k - 1) rho)/(1 - rho)."""
    th0, th1 = rho0 / (1 - rho0), rho1 / (1 - rho1)
    c0 = (1 + k * th0) / (1 + k * th1)
    z_a = Z(1 - alpha / sides)
    return 1 + 2 * (z_a + Z(power)) ** 2 * k / (math.log(c0) ** 2 * (k - 1))


@pytest.mark.parametrize(
    ("rho0", "rho1", "k", "sides"),
    [(0.6, 0.8, 2, 1), (0.4, 0.6, 3, 1), (0.7, 0.9, 2, 2), (0.2, 0.5, 5, 1), (0.0, 0.3, 4, 2)],
)
def test_icc_test_matches_walter_by_hand(rho0: float, rho1: float, k: int, sides: int) -> None:
    alternative = "one-sided" if sides == 1 else "two-sided"
    plan = accord.sample_size_icc(
        rho0=rho0,
        rho1=rho1,
        n_raters=k,
        alternative=alternative,  # type: ignore[arg-type]
    )
    exact = _walter(rho0, rho1, k, 0.05, 0.8, sides)
    assert plan.n_exact == pytest.approx(exact, rel=1e-10)
    assert plan.n_items == math.ceil(exact)
    assert plan.goal == "power" and plan.n_raters == k


def test_icc_test_example_and_curve() -> None:
    # rho0 = 0.6 against rho1 = 0.8, two ratings, one-sided 5%, 80%: by hand
    # C0 = (1 + 2*1.5)/(1 + 2*4) = 4/9, n = 1 + 2 (1.6449 + 0.8416)^2 2 / (ln(4/9))^2 = 38.6.
    plan = accord.sample_size_icc(rho0=0.6, rho1=0.8, n_raters=2)
    assert plan.n_items == 39
    curve = plan.curve.set_index("n_items")["power"]
    assert curve[39] >= 0.8 > curve[38] if 38 in curve.index else curve[39] >= 0.8
    assert curve.is_monotonic_increasing


# --------------------------------------------------------------------------- ICC: interval


def test_icc_width_published_example() -> None:
    # Bonett (2002) eq. 5; the worked example of P. ten Klooster's calculator
    # (ptenklooster.nl, "ICC reliability interval estimation"): two raters, ICC 0.8,
    # width 0.2 at 95% -> 51 subjects by eq. 5; "for k = 2 and ICCs >= 0.7 ... adding
    # (5 * ICC) to the approximate sample size ... nc = 51 + (5 * 0.8) = 55". Bonett's
    # correction as R presize 0.3 prec_icc applies it (n + 5 rho if k == 2 and rho >= 0.7,
    # then ceiling) and as Borg et al. (2022, PM&R) Bonett-Zou-Walter-formulas.R: 55.
    plan = accord.sample_size_icc(rho=0.8, width=0.2, n_raters=2)
    assert plan.n_items == 55
    # by hand: 8 * 1.95996^2 * 0.2^2 * 1.8^2 / (2 * 1 * 0.2^2) + 1 = 50.785, + 5 * 0.8
    eq5 = 8 * Z(0.975) ** 2 * 0.04 * 3.24 / 0.08 + 1
    assert math.ceil(eq5) == 51
    assert plan.n_exact == pytest.approx(eq5 + 4.0, rel=1e-10)
    assert plan.assumptions["added_items"] == pytest.approx(4.0)
    assert "5 rho items" in plan.method
    # the curve's expected width at the plan's n counts the added items out
    assert plan.curve.set_index("n_items")["width"][55] <= 0.2


@pytest.mark.parametrize(
    ("rho", "k", "n"),
    [
        # presize 0.3 prec_icc(0.75, 2, conf.width = 0.2) = 79 (74.53 + 3.75, rounded up),
        # as quoted beside its run in a public sample-size guide; three raters: 52, no addition
        (0.75, 2, 79),
        (0.75, 3, 52),
        # just below the threshold: no addition (eq. 5 alone, 92.0 -> 93 by hand)
        (0.69, 2, math.ceil(8 * Z(0.975) ** 2 * 0.31**2 * 1.69**2 / (2 * 0.04) + 1)),
    ],
)
def test_icc_width_two_rater_correction(rho: float, k: int, n: int) -> None:
    plan = accord.sample_size_icc(rho=rho, width=0.2, n_raters=k)
    assert plan.n_items == n
    assert ("added_items" in plan.assumptions) == (k == 2 and rho >= 0.7)


def test_icc_width_reproduces_bonett_worked_example() -> None:
    # Bonett (2002), Stat. Med. 21:1331-1335, worked example: four raters, ICC 0.85, a 95%
    # interval of width 0.2 needs n = 19.2, so 20 subjects; with 20 subjects the expected
    # width is "close to 0.2". Quoted (19.2, 20) in the documentation and tests of R presize
    # 0.3 (prec_icc: "Bonett (2002) gives an example using 4 raters ... 19.2").
    plan = accord.sample_size_icc(rho=0.85, width=0.2, n_raters=4)
    assert round(plan.n_exact, 1) == 19.2
    assert plan.n_items == 20
    assert plan.curve.set_index("n_items")["width"][20] == pytest.approx(0.2, abs=0.01)


@pytest.mark.parametrize(
    ("rho0", "rho1", "k", "alternative", "alpha", "power", "n"),
    [
        (0.6, 0.8, 2, "one-sided", 0.05, 0.8, 39),
        (0.6, 0.8, 2, "two-sided", 0.05, 0.8, 49),
        (0.4, 0.6, 3, "one-sided", 0.05, 0.9, 71),
        (0.75, 0.9, 5, "two-sided", 0.01, 0.8, 28),
    ],
)
def test_icc_test_matches_icc_sample_size_package(
    rho0: float, rho1: float, k: int, alternative: str, alpha: float, power: float, n: int
) -> None:
    # R ICC.Sample.Size 1.0, calculateIccSampleSize(p=rho1, p0=rho0, k, alpha, tails, power)
    # (Walter, Eliasziw & Donner 1998 / Zou 2012), run in R 4.2.2 from the package's source:
    # 39, 49, 71, 28.
    plan = accord.sample_size_icc(
        rho0=rho0,
        rho1=rho1,
        n_raters=k,
        alpha=alpha,
        power=power,
        alternative=alternative,  # type: ignore[arg-type]
    )
    assert plan.n_items == n


@pytest.mark.parametrize(("rho", "k", "w"), [(0.5, 3, 0.3), (0.9, 2, 0.1), (0.3, 10, 0.2)])
def test_icc_width_by_hand(rho: float, k: int, w: float) -> None:
    n = 8 * Z(0.975) ** 2 * (1 - rho) ** 2 * (1 + (k - 1) * rho) ** 2 / (k * (k - 1) * w**2) + 1
    n += 5 * rho if k == 2 and rho >= 0.7 else 0.0  # Bonett's correction for two raters
    plan = accord.sample_size_icc(rho=rho, width=w, n_raters=k)
    assert plan.n_items == math.ceil(n)
    widths = plan.curve.set_index("n_items")["width"]
    assert widths[plan.n_items] <= w
    assert widths.is_monotonic_decreasing


def _zou(rho: float, k: int, w: float, level: float, assurance: float) -> float:
    """Zou (2012), Stat. Med. 31:3972-3981, width at most w with assurance 1 - beta, written
    out by hand as in Borg et al. (2022, PM&R) companion code Bonett-Zou-Walter-formulas.R:
    n = 1 + 2 [z A + sqrt(z^2 A^2 + 2 w z z_b A |k - 2 + 2 rho - 2 k rho|)]^2 / (k (k-1) w^2),
    A = (1 - rho)(1 + (k - 1) rho)."""
    z, z_b = Z(1 - (1 - level) / 2), Z(assurance)
    a = (1 - rho) * (1 + (k - 1) * rho)
    b = abs(k - 2 + 2 * rho - 2 * k * rho)
    root = z * a + math.sqrt(z**2 * a**2 + 2 * w * z * z_b * a * b)
    return 1 + 2 * root**2 / (k * (k - 1) * w**2)


@pytest.mark.parametrize(
    ("rho", "k", "w", "level", "assurance"),
    [
        (0.9, 2, 0.1, 0.95, 0.8),
        (0.8, 3, 0.2, 0.95, 0.8),
        (0.5, 4, 0.3, 0.9, 0.9),
        (0.3, 10, 0.2, 0.99, 0.6),
    ],
)
def test_icc_width_with_assurance_matches_zou_by_hand(
    rho: float, k: int, w: float, level: float, assurance: float
) -> None:
    plan = accord.sample_size_icc(rho=rho, width=w, n_raters=k, level=level, assurance=assurance)
    exact = _zou(rho, k, w, level, assurance)
    assert plan.n_exact == pytest.approx(exact, rel=1e-10)
    assert plan.n_items == math.ceil(exact)
    assert plan.assumptions["assurance"] == assurance and "Zou (2012)" in plan.method
    widths = plan.curve.set_index("n_items")["width"]
    assert widths[plan.n_items] <= w
    assert (widths[widths.index < plan.n_items] > w).all()
    assert widths.is_monotonic_decreasing
    # more assurance, more items than Bonett's expected width (eq. 5, no correction)
    assert (
        plan.n_exact
        > 8
        * Z(1 - (1 - level) / 2) ** 2
        * ((1 - rho) * (1 + (k - 1) * rho)) ** 2
        / (k * (k - 1) * w**2)
        + 1
    )


@pytest.mark.parametrize(("rho", "k", "w"), [(0.85, 4, 0.2), (0.8, 2, 0.2), (0.4, 5, 0.25)])
def test_zou_at_assurance_one_half_is_bonett(rho: float, k: int, w: float) -> None:
    # z_beta = 0: Zou's formula is Bonett's eq. 5 (without the two-rater addition);
    # Bonett's worked example (4 raters, 0.85, width 0.2) gives 19.2
    bonett = 8 * Z(0.975) ** 2 * ((1 - rho) * (1 + (k - 1) * rho)) ** 2 / (k * (k - 1) * w**2)
    assert _zou(rho, k, w, 0.95, 0.5) == pytest.approx(bonett + 1, rel=1e-12)
    near = accord.sample_size_icc(rho=rho, width=w, n_raters=k, assurance=0.5 + 1e-9)
    assert near.n_exact == pytest.approx(bonett + 1, rel=1e-6)
    if k == 4:
        assert round(near.n_exact, 1) == 19.2


def test_zou_assurance_holds_in_simulated_studies() -> None:
    # One-way normal scores at Zou's n (ICC 0.8, three raters, width 0.2, assurance 0.8):
    # the share of studies whose 95% F interval of ICC(1,1) is at most 0.2 wide should be
    # about 0.8 (400 studies: MC se 0.02); at Bonett's n (expected width) it is about half.
    rho, k, w, m = 0.8, 3, 0.2, 400
    gen = np.random.default_rng(20121972)

    def share(n: int) -> float:
        hits = 0
        for _ in range(m):
            scores = math.sqrt(rho) * gen.standard_normal((n, 1)) + math.sqrt(
                1 - rho
            ) * gen.standard_normal((n, k))
            ci = accord.icc(scores, method="anova")["ICC(1,1)"].confidence_interval(0.95)
            hits += bool(ci.high - ci.low <= w)
        return hits / m

    zou = accord.sample_size_icc(rho=rho, width=w, n_raters=k, assurance=0.8).n_items
    assert zou == 48
    assert abs(share(zou) - 0.8) < 0.06
    bonett = accord.sample_size_icc(rho=rho, width=w, n_raters=k).n_items
    assert abs(share(bonett) - 0.5) < 0.1


# ----------------------------------------------------------------------------- kappa: model


def test_cell_probabilities_match_kappasize_polynomials() -> None:
    # R kappaSize 1.1, R/powerBinary.R: the 3- and 4-rater cell probabilities written out
    r, p = 0.55, 0.35
    three = [
        (1 - p) ** 3 + p * r * ((1 - p) ** 2 + (1 - p)),
        3 * p * (1 - r) * (1 - p) ** 2,
        3 * p**2 * (1 - p) * (1 - r),
        p**3 + r * p * (1 - p**2),
    ]
    four = [
        p**4 - r * p**4 - 4 * p**3 + 4 * r * p**3 + 6 * p**2 - 6 * r * p**2 - 4 * p + 3 * r * p + 1,
        (4 * (1 - 3 * p - r + 3 * r * p + 3 * p**2 - 3 * r * p**2 - p**3 + r * p**3)) * p,
        -(6 * (-1 + r + 2 * p - 2 * r * p - p**2 + r * p**2)) * p**2,
        (4 * (1 - r - p + r * p)) * p**3,
        -(-(p**3) - r + r * p**3) * p,
    ]
    np.testing.assert_allclose(kappa_cell_probabilities(r, p, 3), three, rtol=1e-12)
    np.testing.assert_allclose(kappa_cell_probabilities(r, p, 4), four, rtol=1e-12)


def test_cell_probabilities_of_several_categories_match_kappasize() -> None:
    # R kappaSize 1.1, R/power3Cats.R and R/power4Cats.R: the probability that all raters
    # agree on category j (3 raters, then 4), and 1 minus their sum
    k, props = 0.45, [0.2, 0.3, 0.5]

    def three(p: float) -> float:
        return (
            p**3
            * ((p**2 + 3 * k * p - 2 * k * p**2 + 2 * k**2 - 3 * k**2 * p + k**2 * p**2) / p**2)
            / (1 + k)
        )

    def four(p: float) -> float:
        inner = (
            -(p**3) - 6 * k * p**2 + 3 * k * p**3 - 11 * k**2 * p + 12 * k**2 * p**2
            - 3 * k**2 * p**3 - 6 * k**3 + 11 * k**3 * p - 6 * k**3 * p**2 + k**3 * p**3
        )  # fmt: skip
        return -p * inner / ((1 + k) * (1 + 2 * k))

    for n_raters, cell in ((3, three), (4, four)):
        unanimous = [cell(p) for p in props]
        expected = [1 - sum(unanimous), *unanimous]
        np.testing.assert_allclose(kappa_cell_probabilities(k, props, n_raters), expected)
    # two raters: p_j^2 + k p_j (1 - p_j), kappaSize's P1 = p^2 (-(-p - k + k p)/p)
    two = [p**2 + k * p * (1 - p) for p in props]
    np.testing.assert_allclose(kappa_cell_probabilities(k, props, 2)[1:], two)


def test_kappa_several_categories_by_hand() -> None:
    # the goodness-of-fit n with the unanimity cells (kappaSize::Power3Cats' statistic)
    props, k0, k1 = [0.3, 0.3, 0.4], 0.4, 0.6

    def cells(k: float) -> list[float]:
        unanimous = [p**2 + k * p * (1 - p) for p in props]
        return [1 - sum(unanimous), *unanimous]

    per_item = sum((a - b) ** 2 / b for a, b in zip(cells(k1), cells(k0), strict=True))
    plan = accord.sample_size_kappa(rho0=k0, rho1=k1, prevalence=props)
    assert plan.n_exact == pytest.approx(_noncentrality(0.05, 0.8) / per_item, rel=1e-6)


def _discrepancy(k1: float, k0: float, p: float) -> float:
    """Donner & Eliasziw (1992), two raters, by hand: the cells (1-p)^2 + k p(1-p),
    2 p(1-p)(1-k), p^2 + k p(1-p); sum (P(k1) - P(k0))^2 / P(k0)."""

    def cells(k: float) -> list[float]:
        return [(1 - p) ** 2 + k * p * (1 - p), 2 * p * (1 - p) * (1 - k), p**2 + k * p * (1 - p)]

    return sum((a - b) ** 2 / b for a, b in zip(cells(k1), cells(k0), strict=True))


def _noncentrality(alpha: float, power: float) -> float:
    """lambda with P(chi2_1(lambda) > chi2_1,1-alpha) = power, by bisection on the normal
    form P = Phi(sqrt(lam) - c) + Phi(-sqrt(lam) - c), c = z_(1 - alpha/2)."""
    c = Z(1 - alpha / 2)
    lo, hi = 0.0, 100.0
    for _ in range(200):
        mid = (lo + hi) / 2
        reached = PHI(math.sqrt(mid) - c) + PHI(-math.sqrt(mid) - c)
        lo, hi = (mid, hi) if reached < power else (lo, mid)
    return lo


@pytest.mark.parametrize(
    ("k0", "k1", "p"), [(0.4, 0.6, 0.3), (0.6, 0.8, 0.5), (0.2, 0.5, 0.1), (0.7, 0.5, 0.4)]
)
def test_kappa_goodness_of_fit_test_by_hand(k0: float, k1: float, p: float) -> None:
    n = _noncentrality(0.05, 0.8) / _discrepancy(k1, k0, p)
    plan = accord.sample_size_kappa(rho0=k0, rho1=k1, prevalence=p)
    assert plan.n_exact == pytest.approx(n, rel=1e-6)
    assert plan.n_items == math.ceil(n)


def test_kappa_goodness_of_fit_interval_by_hand() -> None:
    # kappaSize::CIBinary(kappa0=0.4, kappaL=0.3, kappaU=0.5, props=0.3): the smallest n at
    # which n * sum (P(0.4) - P(end))^2 / P(end) reaches qchisq(0.95, 1) = 1.959964^2 at both
    # ends (Donner & Rotondi 2010).
    critical = Z(0.975) ** 2
    n = critical / min(_discrepancy(0.4, 0.3, 0.3), _discrepancy(0.4, 0.5, 0.3))
    plan = accord.sample_size_kappa(rho=0.4, width=0.2, prevalence=0.3)
    assert plan.n_items == math.ceil(n)
    assert plan.curve.set_index("n_items")["width"][plan.n_items] <= 0.2 + 1e-9


def test_kappa_cantor_reproduces_irr_example() -> None:
    # R irr 0.84 documentation, N.cohen.kappa example output (rdrr.io):
    # N.cohen.kappa(0.5, 0.5, 0.7, 0.85) -> 96; positionally rate1 = rate2 = 0.5, k1 = 0.7
    # (true), k0 = 0.85 (null), one-sided 5%, power 80%.
    plan = accord.sample_size_kappa(rho0=0.85, rho1=0.7, prevalence=0.5, method="cantor")
    assert plan.n_items == 96
    assert plan.coefficient == "cohen_kappa"


def test_kappa_cantor_two_rates_by_hand() -> None:
    # At kappa = 0 the large-sample variance of Fleiss, Cohen & Everitt (1969) reduces to the
    # null variance n Var = (pe + pe^2 - sum_k p_k. p_.k (p_k. + p_.k)) / (1 - pe)^2; an
    # interval of width w then needs n = 4 z^2 Var / w^2 items. Raters 30% and 40% positive.
    r1, r2 = 0.3, 0.4
    pe = r1 * r2 + (1 - r1) * (1 - r2)
    terms = r1 * r2 * (r1 + r2) + (1 - r1) * (1 - r2) * (2 - r1 - r2)
    q0 = (pe + pe**2 - terms) / (1 - pe) ** 2
    plan = accord.sample_size_kappa(rho=0.0, width=0.2, prevalence=(r1, r2), method="cantor")
    assert plan.n_exact == pytest.approx(4 * Z(0.975) ** 2 * q0 / 0.04, rel=1e-9)


@pytest.mark.parametrize(
    ("k0", "k1", "p", "k", "alpha", "power", "n"),
    [
        (0.4, 0.6, 0.3, 2, 0.05, 0.8, 190.4564),
        (0.4, 0.6, 0.3, 3, 0.05, 0.8, 105.5217),
        (0.5, 0.7, 0.2, 5, 0.01, 0.9, 174.0052),
        (0.4, 0.6, (0.3, 0.3, 0.3, 0.1), 2, 0.05, 0.8, 91.84611),
        (0.4, 0.6, (0.3, 0.3, 0.4), 3, 0.05, 0.8, 58.31825),
    ],
)
def test_kappa_test_matches_kappasize(
    k0: float, k1: float, p: float | tuple[float, ...], k: int, alpha: float, power: float, n: float
) -> None:
    # R kappaSize 1.1 run in R 4.2.2 from the package's source: PowerBinary(0.4, 0.6,
    # props=0.3) (its documented example; it prints "A minimum of 191 subjects"), PowerBinary with 3
    # and 5 raters, Power4Cats(0.4, 0.6, c(.3, .3, .3, .1)) (its documented example) and
    # Power3Cats with 3 raters; $N printed to 7 digits. kappaSize finds the noncentrality by
    # bisection to 1e-5 in probability, hence the tolerance.
    plan = accord.sample_size_kappa(
        rho0=k0, rho1=k1, prevalence=p, n_raters=k, alpha=alpha, power=power
    )
    assert plan.n_exact == pytest.approx(n, rel=1e-4)
    assert plan.n_items == math.ceil(n)


@pytest.mark.parametrize(
    ("rho", "width", "p", "k", "n"),
    [(0.4, 0.2, 0.3, 2, 397), (0.6, 0.3, 0.2, 4, 97), (0.6, 0.4, (0.2, 0.3, 0.5), 3, 31)],
)
def test_kappa_interval_matches_kappasize(
    rho: float, width: float, p: float | tuple[float, ...], k: int, n: int
) -> None:
    # R kappaSize 1.1 run in R 4.2.2 from the package's source: CIBinary(kappa0=0.4,
    # kappaL=0.3, kappaU=0.5, props=0.3) (its documented example), CIBinary(0.6, 0.45, 0.75,
    # 0.2, raters=4) and CI3Cats(0.6, 0.4, 0.8, c(.2, .3, .5), raters=3): 397, 97, 31.
    plan = accord.sample_size_kappa(rho=rho, width=width, prevalence=p, n_raters=k)
    assert plan.n_items == n


@pytest.mark.parametrize(
    ("k0", "k1", "rates", "alternative", "alpha", "power", "n"),
    [
        (0.4, 0.6, (0.3, 0.4), "one-sided", 0.05, 0.8, 124),
        (0.4, 0.6, (0.3, 0.4), "two-sided", 0.05, 0.8, 158),
        (0.2, 0.5, (0.2, 0.25), "one-sided", 0.01, 0.9, 165),
    ],
)
def test_kappa_cantor_matches_irr(
    k0: float,
    k1: float,
    rates: tuple[float, float],
    alternative: str,
    alpha: float,
    power: float,
    n: int,
) -> None:
    # R irr 0.84, N.cohen.kappa(rate1, rate2, k1, k0, alpha, power, twosided) run in R 4.2.2
    # from the package's source: (0.3, 0.4, 0.6, 0.4) -> 124, twosided -> 158,
    # (0.2, 0.25, 0.5, 0.2, alpha=0.01, power=0.9) -> 165.
    plan = accord.sample_size_kappa(
        rho0=k0,
        rho1=k1,
        prevalence=rates,
        alpha=alpha,
        power=power,
        method="cantor",
        alternative=alternative,  # type: ignore[arg-type]
    )
    assert plan.n_items == n


def test_kappa_cantor_reproduces_reichenheim_examples() -> None:
    # Reichenheim (2000), "Sample size for the kappa-statistic of interrater agreement",
    # Stata Technical Bulletin 58 (sxd3, sskdlg), examples p. 44; Cantor's (1996) procedure for
    # an interval kappa +- d at 95%:
    # (1) kappa = 0, both raters 10% positive, d = 0.1: "Sample size = 384". Here Q = 1 and
    #     n = 1.959964^2 / 0.01 = 384.15: sskdlg rounds to the nearest, accord rounds up.
    first = accord.sample_size_kappa(rho=0.0, width=0.2, prevalence=0.1, method="cantor")
    assert round(first.n_exact) == 384 and first.n_items == 385
    # (2) kappa = 0.1, both 20% positive, d = 0.2: "Sample size = 114", "Value of Q = 1.182";
    second = accord.sample_size_kappa(rho=0.1, width=0.4, prevalence=0.2, method="cantor")
    assert second.n_items == 114
    assert second.n_exact * 0.2**2 / Z(0.975) ** 2 == pytest.approx(1.182, abs=5e-4)
    # (3) "the maximum sample size is 126 for a kappa of .289" (the largest Q over kappa).
    grid = np.round(np.arange(0.0, 0.6, 0.001), 3)
    needed = [
        accord.sample_size_kappa(rho=r, width=0.4, prevalence=0.2, method="cantor").n_exact
        for r in grid
    ]
    assert grid[int(np.argmax(needed))] == pytest.approx(0.289, abs=0.001)
    assert math.ceil(max(needed)) == 126


# --------------------------------------------------------------------- Krippendorff's alpha


@pytest.mark.parametrize(("alpha_min", "n_values"), [(0.8, 139), (0.667, 81)])
def test_alpha_reproduces_krippendorff_table(alpha_min: float, n_values: int) -> None:
    # Krippendorff (2019), Content Analysis, 4th ed., table of required sample sizes, as
    # quoted in the ATLAS.ti 8 Windows Inter-Coder Agreement manual ("Sample size"): four
    # equally frequent categories (P_c = 0.25), p = 0.05: 139 values for alpha_min = 0.800,
    # 81 for 0.667.
    plan = accord.sample_size_alpha(alpha_min=alpha_min, p_c=0.25, significance=0.05)
    assert plan.n_values == n_values
    assert plan.n_items == math.ceil(n_values / 2)


def test_alpha_by_hand() -> None:
    # N = 2 z^2 ((1 + a)(3 - a) / (4 (1 - a) P (1 - P)) - a), z one-sided at p = 0.01
    a, pc = 0.9, 0.1
    n = 2 * Z(0.99) ** 2 * ((1 + a) * (3 - a) / (4 * (1 - a) * pc * (1 - pc)) - a)
    plan = accord.sample_size_alpha(alpha_min=a, p_c=pc, significance=0.01)
    assert plan.n_values == math.ceil(n)
    reached = plan.curve.set_index("n_items")["significance"]
    assert reached[plan.n_items] <= 0.01 and reached.is_monotonic_decreasing


# ----------------------------------------------------------------------------- properties


@given(
    rho=st.floats(0.05, 0.9),
    k=st.integers(2, 8),
    w1=st.floats(0.05, 0.5),
    w2=st.floats(0.05, 0.5),
)
def test_icc_n_grows_as_width_shrinks(rho: float, k: int, w1: float, w2: float) -> None:
    small, large = sorted((w1, w2))
    a = accord.sample_size_icc(rho=rho, width=small, n_raters=k).n_exact
    b = accord.sample_size_icc(rho=rho, width=large, n_raters=k).n_exact
    assert a >= b


@given(p1=st.floats(0.55, 0.95), p2=st.floats(0.55, 0.95), k=st.integers(2, 6))
def test_icc_n_grows_with_power(p1: float, p2: float, k: int) -> None:
    low, high = sorted((p1, p2))
    a = accord.sample_size_icc(rho0=0.5, rho1=0.7, n_raters=k, power=low).n_exact
    b = accord.sample_size_icc(rho0=0.5, rho1=0.7, n_raters=k, power=high).n_exact
    assert b >= a


@given(p1=st.floats(0.55, 0.95), p2=st.floats(0.55, 0.95), p=st.floats(0.1, 0.9))
def test_kappa_n_grows_with_power(p1: float, p2: float, p: float) -> None:
    low, high = sorted((p1, p2))
    for method in ("goodness_of_fit", "cantor"):
        a = accord.sample_size_kappa(
            rho0=0.4,
            rho1=0.6,
            prevalence=p,
            power=low,
            method=method,  # type: ignore[arg-type]
        ).n_exact
        b = accord.sample_size_kappa(
            rho0=0.4,
            rho1=0.6,
            prevalence=p,
            power=high,
            method=method,  # type: ignore[arg-type]
        ).n_exact
        assert b >= a


@given(gap1=st.floats(0.02, 0.4), gap2=st.floats(0.02, 0.4), p=st.floats(0.1, 0.9))
def test_n_grows_as_rho1_approaches_rho0(gap1: float, gap2: float, p: float) -> None:
    near, far = sorted((gap1, gap2))
    icc = [accord.sample_size_icc(rho0=0.5, rho1=0.5 + g).n_exact for g in (near, far)]
    assert icc[0] >= icc[1]
    kappa = [
        accord.sample_size_kappa(rho0=0.4, rho1=0.4 + g / 1.5, prevalence=p).n_exact
        for g in (near, far)
    ]
    assert kappa[0] >= kappa[1]


@pytest.mark.slow
@given(w1=st.floats(0.05, 0.3), w2=st.floats(0.05, 0.3), p=st.floats(0.2, 0.8))
def test_kappa_n_grows_as_width_shrinks(w1: float, w2: float, p: float) -> None:
    small, large = sorted((w1, w2))
    a = accord.sample_size_kappa(rho=0.5, width=small, prevalence=p).n_exact
    b = accord.sample_size_kappa(rho=0.5, width=large, prevalence=p).n_exact
    assert a >= b


@given(a1=st.floats(0.5, 0.95), a2=st.floats(0.5, 0.95), pc=st.floats(0.05, 0.5))
def test_alpha_n_grows_with_alpha_min(a1: float, a2: float, pc: float) -> None:
    low, high = sorted((a1, a2))
    a = accord.sample_size_alpha(alpha_min=low, p_c=pc).n_exact
    b = accord.sample_size_alpha(alpha_min=high, p_c=pc).n_exact
    assert b >= a


# ------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: accord.sample_size_icc(rho0=0.6), "rho1= is missing"),
        (lambda: accord.sample_size_icc(), "rho0= and rho1="),
        (lambda: accord.sample_size_icc(rho0=0.6, rho1=0.8, width=0.2), "not both"),
        (lambda: accord.sample_size_icc(rho0=0.6, rho1=0.6), "must differ"),
        (lambda: accord.sample_size_icc(rho0=0.6, rho1=1.0), "'rho1' parameter"),
        (lambda: accord.sample_size_icc(rho0=0.6, rho1=0.8, n_raters=1), "'n_raters'"),
        (lambda: accord.sample_size_icc(rho0=0.6, rho1=0.8, power=1.5), "Got 1.5 instead"),
        (lambda: accord.sample_size_icc(rho=0.6, width=0.2, alternative="both"), "alternative"),
        (
            lambda: accord.sample_size_icc(rho0=0.6, rho1=0.8, assurance=0.8),
            "assurance= belongs to an interval (rho=, width=), and this plan is for a test",
        ),
        (lambda: accord.sample_size_icc(rho=0.6, width=0.2, assurance=0.5), "'assurance'"),
        (lambda: accord.sample_size_icc(rho=0.6, width=0.2, assurance=1.0), "'assurance'"),
        (
            lambda: accord.sample_size_icc(rho=0.6, width=0.2, power=0.9),
            "power= belongs to a test (rho0=, rho1=), and this plan is for an interval",
        ),
        (
            lambda: accord.sample_size_kappa(rho0=0.4, rho1=0.6, prevalence=0.3, level=0.9),
            "level= belongs to an interval",
        ),
        (lambda: accord.sample_size_kappa(rho0=0.4, rho1=0.6, prevalence=0.0), "'prevalence'"),
        (
            lambda: accord.sample_size_kappa(rho0=0.4, rho1=0.6, prevalence=0.3, method="x"),
            "'method'",
        ),
        (
            lambda: accord.sample_size_kappa(
                rho0=0.4, rho1=0.6, prevalence=0.3, n_raters=3, method="cantor"
            ),
            "two raters",
        ),
        (
            lambda: accord.sample_size_kappa(rho0=0.4, rho1=0.6, prevalence=(0.3, 0.4)),
            "summing to 1",
        ),
        (
            lambda: accord.sample_size_kappa(
                rho0=0.4, rho1=0.6, prevalence=(0.3, 0.3, 0.4), method="cantor"
            ),
            "got 3 values",
        ),
        (lambda: accord.sample_size_kappa(rho=0.1, width=0.4, prevalence=0.3), "inside (0, 1)"),
        (
            lambda: accord.sample_size_kappa(
                rho0=0.0, rho1=0.9, prevalence=(0.1, 0.9), method="cantor"
            ),
            "not reachable",
        ),
        (lambda: accord.sample_size_alpha(alpha_min=1.0, p_c=0.2), "'alpha_min'"),
        (lambda: accord.sample_size_alpha(alpha_min=0.8, p_c=0.7), "'p_c'"),
        (lambda: accord.sample_size_simulated("kappa"), "'coefficient'"),
        (lambda: accord.sample_size_simulated("icc", rho0=0.5), "needs rho="),
        (
            lambda: accord.sample_size_simulated("icc", rho=0.6, rho0=0.5, accuracy=0.8),
            "accuracy= applies to",
        ),
        (
            lambda: accord.sample_size_simulated(prevalence=0.3, rho=0.6, rho0=0.4, epsilon=0.1),
            "epsilon= applies to alt_test, not fleiss_kappa",
        ),
        (lambda: accord.sample_size_simulated(prevalence=0.3, rho0=0.5), "one rater model"),
        (
            lambda: accord.sample_size_simulated(prevalence=0.3, rho=0.6, accuracy=0.8, rho0=0.4),
            "got rho, accuracy",
        ),
        (lambda: accord.sample_size_simulated(prevalence=0.3, rho=0.6), "one of the two"),
        (
            lambda: accord.sample_size_simulated(prevalence=[0.3, 0.3], rho=0.6, rho0=0.4),
            "summing to 1",
        ),
        (
            lambda: accord.sample_size_simulated(
                prevalence=[0.5, 0.5], confusion=[[1.0, 0.0]], width=0.2
            ),
            "2 x 2 matrix",
        ),
        (
            lambda: accord.sample_size_simulated(
                "cohen_kappa", n_raters=3, prevalence=0.3, rho=0.6, rho0=0.4
            ),
            "n_raters=2",
        ),
        (
            lambda: accord.sample_size_simulated("alt_test", prevalence=0.3, accuracy=0.8),
            "judge_accuracy",
        ),
        (
            lambda: accord.sample_size_simulated(
                prevalence=0.3, rho=0.6, rho0=0.4, n_items=[1, 10]
            ),
            "'n_items'",
        ),
        (
            lambda: accord.sample_size_simulated(prevalence=0.3, rho=0.6, rho0=0.4, progress=3),
            "progress",
        ),
    ],
)
def test_bad_input_is_one_clear_line(call: object, message: str) -> None:
    with pytest.raises(InvalidInputError) as err:
        call()  # type: ignore[operator]
    text = str(err.value)
    assert message in text and "\n" not in text
    assert "np.float64" not in text


# --------------------------------------------------------------------------- simulation


def test_simulation_is_reproducible_and_reports_progress() -> None:
    seen: list[tuple[int, int | None]] = []

    def plan(progress: object = None) -> accord.SimulatedSampleSize:
        return accord.sample_size_simulated(
            "krippendorff_alpha",
            n_raters=3,
            prevalence=[0.5, 0.3, 0.2],
            accuracy=[0.9, 0.85, 0.8],
            width=0.4,
            n_items=[20, 60],
            n_simulations=20,
            seed=7,
            progress=progress,  # type: ignore[arg-type]
        )

    first = plan(lambda done, total: seen.append((done, total)))
    second = plan()
    assert first.curve.equals(second.curve)
    assert seen == [(1, 2), (2, 2)]
    widths = first.curve["mean_width"]
    assert widths.iloc[0] > widths.iloc[1]
    assert first.n_items in (20, 60, None)


def test_simulation_default_seed_gives_the_same_plan_every_run() -> None:
    # Without a seed, two runs drew different studies (100 then 75 items); the default seed
    # makes the plan a function of its inputs. seed=None still draws fresh entropy.
    args: dict[str, Any] = dict(
        n_raters=3, rho=0.6, width=0.5, n_items=[10, 20, 40], n_simulations=8
    )
    first = accord.sample_size_simulated("icc", **args)
    second = accord.sample_size_simulated("icc", **args)
    pd.testing.assert_frame_equal(first.curve, second.curve)
    pd.testing.assert_frame_equal(
        first.curve, accord.sample_size_simulated("icc", **args, seed=0).curve
    )


def test_simulation_takes_numpy_sizes_and_a_generator() -> None:
    plan = accord.sample_size_simulated(
        "icc", n_raters=3, rho=0.6, width=0.5, n_items=np.array([20, 40]), n_simulations=5,
        seed=np.random.default_rng(0),
    )  # fmt: skip
    assert plan.curve["n_items"].tolist() == [20, 40]


def test_simulation_says_when_no_size_is_enough() -> None:
    plan = accord.sample_size_simulated(
        "fleiss_kappa", prevalence=0.3, rho=0.5, width=0.05, n_items=[10, 20],
        n_simulations=10, seed=0,
    )  # fmt: skip
    assert plan.n_items is None and "n_items=" in plan.reason
    assert "no number of items" in repr(plan)


def test_simulation_plans_the_judge_test() -> None:
    # a judge as accurate as the humans passes more often with more items
    plan = accord.sample_size_simulated(
        "alt_test", n_raters=3, prevalence=[0.4, 0.3, 0.3], accuracy=0.8, judge_accuracy=0.9,
        epsilon=0.2, n_items=[40, 120], n_simulations=20, seed=3,
    )  # fmt: skip
    assert plan.goal == "power"
    assert plan.curve["power"].iloc[1] >= plan.curve["power"].iloc[0]
    assert plan.curve["power"].iloc[1] >= 0.8


@pytest.mark.slow
def test_simulation_agrees_with_the_closed_forms() -> None:
    m = 400
    # ICC test: Walter's n for 0.6 against 0.8, two ratings -> power 0.8 (MC se 0.02; the
    # approximation itself is within a few points of the exact F test)
    n = accord.sample_size_icc(rho0=0.6, rho1=0.8, n_raters=2).n_items
    sim = accord.sample_size_simulated(
        "icc", n_raters=2, rho=0.8, rho0=0.6, n_items=[n], n_simulations=m, seed=11
    )
    assert abs(sim.curve["power"].iloc[0] - 0.8) < 0.06
    # ICC interval: Bonett's n for width 0.3 around 0.5 with three ratings
    n = accord.sample_size_icc(rho=0.5, width=0.3, n_raters=3).n_items
    sim = accord.sample_size_simulated(
        "icc", n_raters=3, rho=0.5, width=0.3, n_items=[n], n_simulations=m, seed=12
    )
    assert abs(sim.curve["mean_width"].iloc[0] - 0.3) < 0.015
    # kappa test: the goodness-of-fit n (two-sided 5%) for 0.4 against 0.6, prevalence 0.3;
    # the simulated one-sided test at 2.5% of Fleiss' kappa (two raters)
    n = accord.sample_size_kappa(rho0=0.4, rho1=0.6, prevalence=0.3).n_items
    sim = accord.sample_size_simulated(
        "fleiss_kappa", prevalence=0.3, rho=0.6, rho0=0.4, alpha=0.025, n_items=[n],
        n_simulations=m, seed=13,
    )  # fmt: skip
    assert abs(sim.curve["power"].iloc[0] - 0.8) < 0.07


# -------------------------------------------------------------------------------- figure


def test_plan_figure_draws_the_curve_the_goal_and_the_plan() -> None:
    plan = accord.sample_size_icc(rho=0.7, width=0.2, n_raters=3)
    fig = accord.plan_figure(plan)
    ax = fig.axes[0]
    line = ax.get_lines()[0]
    np.testing.assert_array_equal(line.get_xdata(), plan.curve["n_items"])
    labels = ax.get_legend_handles_labels()[1]
    assert labels == ["goal: 0.2", f"plan: {plan.n_items} items"]
    ends = accord.plan_figure(accord.sample_size_kappa(rho=0.6, width=0.3, prevalence=0.3))
    assert ends.axes[0].get_ylabel() == "expected interval ends"
    with pytest.raises(InvalidInputError, match="sample_size_"):
        accord.plan_figure(accord.fleiss_kappa([[2, 0], [1, 1]]))  # type: ignore[arg-type]


def test_confusion_model_draws_labels_at_the_stated_rates() -> None:
    # the simulated raters label each true category as the confusion matrix says: with a
    # matrix that never confuses, every rater agrees and kappa is 1 in every study
    plan = accord.sample_size_simulated(
        "fleiss_kappa", n_raters=3, prevalence=[0.2, 0.3, 0.5], confusion=np.eye(3),
        width=0.5, n_items=[30], n_simulations=5, seed=4,
    )  # fmt: skip
    assert plan.curve["mean_estimate"].iloc[0] == pytest.approx(1.0)


def test_accuracy_model_gives_the_kappa_computed_by_hand() -> None:
    # two raters each right with probability a on a balanced binary scale: they agree with
    # probability a^2 + (1 - a)^2, chance agreement is 1/2, so kappa = (2a - 1)^2 = 0.64
    plan = accord.sample_size_simulated(
        "cohen_kappa", prevalence=0.5, accuracy=0.9, width=0.5, n_items=[400],
        n_simulations=40, seed=5,
    )  # fmt: skip
    assert plan.curve["mean_estimate"].iloc[0] == pytest.approx(0.64, abs=0.02)
