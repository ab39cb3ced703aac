"""Benchmarking with uncertainty: the probability that a coefficient lies in each band of a
benchmark scale (Gwet 2014, ch. 6) and the band it reaches with probability 0.95."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats

import accord
from accord import Coefficient, InvalidInputError
from accord._bands import SCALES, band_name
from accord._verdict import benchmark_reading, verdict

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

# Krippendorff's canonical reliability data (4 coders, 12 units; Krippendorff 2011,
# "Computing Krippendorff's alpha-reliability", p. 3): the data set cac.raw4raters of the R
# package irrCAC.
NAN = np.nan
RAW4RATERS = np.array([[1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
                       [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
                       [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
                       [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN]]).T  # fmt: skip

# irrCAC vignette "benchmarking" (Gwet, irrCAC 1.0, vignettes/benchmarking.Rmd, the example
# of Gwet 2014, ch. 6): ac1 <- gwet.ac1.raw(cac.raw4raters)$est gives coeff.val 0.77544 and
# coeff.se 0.14295; landis.koch.bf / altman.bf / fleiss.bf(ac1$coeff.val, ac1$coeff.se)
# print these cumulative probabilities (CumProb), top band first, rounded to 5 decimals.
VIGNETTE_AC1 = (0.77544, 0.14295)
VIGNETTE_CUMPROB = {
    "landis-koch": [0.39674, 0.88336, 0.99542, 0.99997, 1.0, 1.0],
    "altman": [0.39674, 0.88336, 0.99542, 0.99997, 1.0],
    "fleiss": [0.54414, 0.99542, 1.0],
}
VIGNETTE_BANDS = {  # the band names of the vignette's tables, top first
    "landis-koch": ["almost perfect", "substantial", "moderate", "fair", "slight", "poor"],
    "altman": ["very good", "good", "moderate", "fair", "poor"],
    "fleiss": ["excellent", "intermediate to good", "poor"],
}
# The vignette retains "Moderate" (Landis & Koch, Altman) and "Intermediate to Good"
# (Fleiss): the highest band whose CumProb exceeds 0.95.
VIGNETTE_CHOICE = {
    "landis-koch": "moderate",
    "altman": "moderate",
    "fleiss": "intermediate to good",
}


def _coef(statistic: float, se: float, n_items: int = 12) -> Coefficient:
    return Coefficient("gwet_ac1", statistic, se, n_items, 4, (1, 2, 3, 4, 5), "")


@pytest.mark.parametrize("scale", sorted(VIGNETTE_CUMPROB))
def test_irrcac_vignette_probabilities(scale: str) -> None:
    bench = _coef(*VIGNETTE_AC1).benchmark(scale)
    assert [b.name for b in bench.bands] == VIGNETTE_BANDS[scale]
    assert_allclose([b.cumulative for b in bench.bands], VIGNETTE_CUMPROB[scale], atol=5e-6)
    assert bench.band == VIGNETTE_CHOICE[scale]
    assert bench.level == 0.95


def test_irrcac_vignette_from_the_ratings() -> None:
    # The same example end to end: accord's AC1 on cac.raw4raters is the vignette's 0.77544
    # (SE 0.14295) to the digits printed, so its benchmark is the vignette's to 5e-5.
    ac1 = accord.gwet_ac1(accord.Ratings.from_wide(RAW4RATERS))
    assert_allclose([ac1.statistic, ac1.standard_error], VIGNETTE_AC1, atol=5e-6)
    for scale, expected in VIGNETTE_CUMPROB.items():
        bench = ac1.benchmark(scale)
        assert_allclose([b.cumulative for b in bench.bands], expected, atol=5e-5)
        assert bench.band == VIGNETTE_CHOICE[scale]
        assert bench.point_band != bench.band  # "it cannot be qualified as substantial"


def test_probabilities_by_hand() -> None:
    # Gwet (2014, ch. 6): the band [a, b) gets (Phi((b - k)/se) - Phi((a - k)/se)) / T with
    # T = Phi((1 - k)/se) - Phi((-1 - k)/se), the normal truncated to [-1, 1].
    k, se = 0.43, 0.3
    norm = stats.norm(k, se)
    total = norm.cdf(1) - norm.cdf(-1)
    bench = _coef(k, se).benchmark("fleiss")
    expected = [
        (norm.cdf(1) - norm.cdf(0.75)) / total,
        (norm.cdf(0.75) - norm.cdf(0.4)) / total,
        (norm.cdf(0.4) - norm.cdf(-1)) / total,
    ]
    assert_allclose([b.probability for b in bench.bands], expected, rtol=1e-12)
    # Student's t with n_items - 1 df, truncated the same way
    t = stats.t(11, loc=k, scale=se)
    tt = _coef(k, se).benchmark("fleiss", distribution="t")
    assert tt.df == 11
    total_t = t.cdf(1) - t.cdf(-1)
    assert_allclose(tt.bands[0].probability, (t.cdf(1) - t.cdf(0.75)) / total_t, rtol=1e-10)


def test_alpha_below_its_smallest_acceptable_value_from_the_bootstrap() -> None:
    # Hayes & Krippendorff (2007): q = P(alpha < alpha_min), the share of bootstrap
    # estimates below alpha_min. Here the replicates are counted by hand.
    r = accord.Ratings.from_wide(RAW4RATERS)
    alpha = accord.krippendorff_alpha(r, ci="bootstrap", n_boot=500, rng=3)
    reps = np.asarray(alpha.replicates)
    bench = alpha.benchmark("krippendorff", distribution="bootstrap")
    assert bench.n_replicates == reps.size
    by_name = {b.name: b for b in bench.bands}
    assert_allclose(by_name["unacceptable"].probability, np.mean(reps < 0.667))
    assert_allclose(by_name["reliable"].probability, np.mean(reps >= 0.8))
    # any alpha_min: the lowest band of a one-edge scale
    custom = alpha.benchmark([(0.7, "acceptable")], distribution="bootstrap")
    assert custom.bands[-1].name == "below 0.7"
    assert_allclose(custom.bands[-1].probability, np.mean(reps < 0.7))


def test_perfect_agreement_is_a_point_mass() -> None:
    bench = _coef(1.0, 0.0).benchmark()
    assert bench.band == bench.point_band == "almost perfect"
    assert bench.probability == 1.0


def test_undefined_coefficient_says_why() -> None:
    bench = Coefficient("fleiss_kappa", math.nan, math.nan, 3, 2, (0,), "", reason="one category")
    out = bench.benchmark()
    assert out.band == "undefined" and "one category" in (out.reason or "")
    assert all(math.isnan(b.probability) for b in out.bands)
    no_se = _coef(0.5, math.nan).benchmark()
    assert no_se.band == "undefined" and "no standard error" in (no_se.reason or "")


def test_bad_options_are_named() -> None:
    c = _coef(0.5, 0.1)
    with pytest.raises(InvalidInputError, match=r"'scale' parameter of benchmark.*'landis'"):
        c.benchmark("landis")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="ascending lower edges"):
        c.benchmark([(0.8, "a"), (0.6, "b")])
    with pytest.raises(InvalidInputError, match="'distribution' parameter"):
        c.benchmark(distribution="gamma")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="ci='bootstrap'"):
        c.benchmark(distribution="bootstrap")
    with pytest.raises(InvalidInputError, match="not chance-corrected"):
        accord.percent_agreement([[2, 0], [1, 1]]).benchmark()


def test_frame_and_dict() -> None:
    bench = _coef(*VIGNETTE_AC1).benchmark("fleiss")
    frame = bench.to_frame()
    assert list(frame.columns) == ["band", "low", "high", "probability", "cumulative"]
    assert frame["band"].tolist() == VIGNETTE_BANDS["fleiss"]
    d = bench.to_dict()
    assert d["band"] == "intermediate to good" and len(d["bands"]) == 3
    assert "intermediate to good" in str(bench)


@settings(max_examples=200, deadline=None)
@given(
    statistic=st.floats(-1.0, 1.0),
    se=st.floats(1e-4, 2.0),
    scale=st.sampled_from(sorted(SCALES)),
    distribution=st.sampled_from(["normal", "t"]),
    level=st.floats(0.6, 0.999),
)
def test_band_table_invariants(
    statistic: float, se: float, scale: str, distribution: str, level: float
) -> None:
    bench = _coef(statistic, se).benchmark(scale, level, distribution=distribution)  # type: ignore[arg-type]
    probs = np.array([b.probability for b in bench.bands])
    cum = np.array([b.cumulative for b in bench.bands])
    assert np.all(probs >= 0)
    assert_allclose(probs.sum(), 1.0, atol=1e-9)
    assert np.all(np.diff(cum) >= -1e-12)  # monotone from the top band down
    assert_allclose(cum, np.minimum(np.cumsum(probs), 1.0), atol=1e-12)
    # the band retained is never above the estimate's own band (a symmetric distribution
    # centred on the estimate gives the bands above it at most half its mass)
    names = [b.name for b in bench.bands]
    assert names.index(bench.band) >= names.index(bench.point_band)
    assert bench.point_band == band_name(statistic, SCALES[scale])
    assert bench.probability >= level - 1e-12


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1.0, 1.0), min_size=1, max_size=50))
def test_bootstrap_shares_sum_to_one(replicates: list[float]) -> None:
    c = Coefficient(
        "krippendorff_alpha", 0.5, 0.1, 10, 3, (0, 1), "", replicates=np.asarray(replicates)
    )
    bench = c.benchmark("krippendorff", distribution="bootstrap")
    assert_allclose(sum(b.probability for b in bench.bands), 1.0)
    assert bench.n_replicates == len(replicates)


def test_verdict_reads_the_benchmark() -> None:
    # Fleiss' kappa on the diagnoses example: 0.430 (moderate on its face), standard error
    # about 0.054; P(kappa >= 0.4) is well under 0.95, P(kappa >= 0.2) above it.
    ratings = accord.read_ratings(
        EXAMPLES / "diagnoses.csv", item="patient", rater="rater", label="diagnosis"
    )
    kappa = accord.fleiss_kappa(ratings)
    norm = stats.norm(kappa.statistic, kappa.standard_error)
    total = norm.cdf(1) - norm.cdf(-1)
    assert (norm.sf(0.4) - norm.sf(1)) / total < 0.95 <= (norm.sf(0.2) - norm.sf(1)) / total
    text = verdict(kappa, 0.32, 0.54)
    assert ": fair agreement beyond chance (Landis & Koch; probability above 0.99" in text
    assert text.endswith("the estimate alone reads moderate)")
    # the lowest band: how likely the next one up is
    low = benchmark_reading(_coef(-0.05, 0.2))
    assert low is not None and low.startswith("poor agreement beyond chance (Landis & Koch;")
    assert "probability only 0.40 that the true value is at least 0.00" in low
    # an estimate above the lowest band that its uncertainty cannot lift out of it: the
    # verdict says what is not shown (kappa 0.30 with SE 0.2: P(kappa >= 0) about 0.93)
    vague = benchmark_reading(_coef(0.30, 0.2))
    assert vague is not None
    assert vague.startswith("not shown to be better than poor agreement beyond chance (")
    assert vague.endswith("; the estimate alone reads fair)")


def test_bootstrap_table_verdict_counts_the_replicates() -> None:
    from accord._verdict import table_verdict

    ratings = accord.read_ratings(
        EXAMPLES / "diagnoses.csv", item="patient", rater="rater", label="diagnosis"
    )
    table = accord.agreement(
        ratings,
        coefficients=["fleiss_kappa"],
        inference=accord.Inference(ci="bootstrap", n_boot=400, seed=5),
    )
    kappa = table.coefficients[0]
    reps = np.asarray(kappa.replicates)
    bench = kappa.benchmark(distribution="bootstrap")
    # the band retained: the highest lower edge that at least 95% of the replicates reach
    edges = [0.8, 0.6, 0.4, 0.2, 0.0]
    reached = next(e for e in edges if np.mean(reps >= e) >= 0.95)
    assert bench.threshold == reached
    assert f"at least {reached:.2f}" in table_verdict(table)
