"""Specific agreement among many raters: mean over rater pairs and pooled (Uebersax).

Expected numbers come from tests/reference/two_raters.json (sources cited
there), from the two-rater ``specific_agreement`` (itself checked against published values and
scikit-learn in test_specific.py), or from hand computations written out in the tests.
"""

from __future__ import annotations

import json
import math
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import accord
from accord import (
    DegenerateDataWarning,
    InvalidInputError,
    ItemCategoryCounts,
    PairTables,
    Ratings,
    pairwise_agreement,
    pairwise_specific_agreement,
    pooled_specific_agreement,
    specific_agreement,
)
from accord._results import dumps

from ..strategies import long_ratings, ratings_of

REFERENCE = json.loads(
    (Path(__file__).parents[1] / "reference" / "two_raters.json").read_text(encoding="utf-8")
)
SPEC = REFERENCE["specific_agreement_many"]

# A hand-worked case: 5 items, raters R1-R3, categories a, b, c, two ratings missing.
HAND = pd.DataFrame(
    [
        ("i1", "R1", "a"), ("i1", "R2", "a"), ("i1", "R3", "b"),
        ("i2", "R1", "b"), ("i2", "R2", "b"), ("i2", "R3", "b"),
        ("i3", "R1", "a"), ("i3", "R2", "c"),
        ("i4", "R1", "c"), ("i4", "R3", "c"),
        ("i5", "R1", "a"), ("i5", "R2", "a"), ("i5", "R3", "a"),
    ],
    columns=["item", "rater", "label"],
)  # fmt: skip


def _hand() -> Ratings:
    return Ratings.from_long(HAND, item="item", rater="rater", label="label")


def _spec_ratings() -> Ratings:
    return Ratings.from_wide(SPEC["ratings"])


def _two_rater_ratings(table: list[list[int]]) -> tuple[Ratings, np.ndarray, np.ndarray]:
    counts = np.asarray(table, dtype=int)
    rows, cols = np.nonzero(counts)
    reps = counts[rows, cols]
    x, y = np.repeat(rows, reps), np.repeat(cols, reps)
    return Ratings.from_wide(np.stack([x, y], axis=1)), x, y


# ------------------------------------------------------------ the reference vector


def test_spec_vector_mean_over_pairs() -> None:
    # Hripcsak & Rothschild (2005): average pairwise F1 = PSA.
    res = pairwise_specific_agreement(_spec_ratings(), positive=1, n_boot=0)
    assert_allclose(res.pairs["specific_agreement"], SPEC["pair_psa"], atol=SPEC["atol"])
    assert_allclose(res.statistic, SPEC["mean_pair_psa"], atol=SPEC["atol"])
    assert res.n_pairs == res.n_pairs_defined == 3
    # Population SD over the three pair values 6/9, 10/14, 8/13, computed here exactly.
    vals = [Fraction(6, 9), Fraction(10, 14), Fraction(8, 13)]
    mean = sum(vals) / 3
    assert_allclose(res.sd_over_pairs, math.sqrt(sum((v - mean) ** 2 for v in vals) / 3))


def test_spec_vector_pooled() -> None:
    # Uebersax pooled specific agreement (tests/reference/two_raters.json).
    res = pooled_specific_agreement(_spec_ratings(), positive=1)
    assert_allclose(res.statistic, SPEC["pooled_psa"], atol=SPEC["atol"])
    assert_allclose(res.negative_agreement, SPEC["pooled_nsa"], atol=SPEC["atol"])
    # Hand: items' counts of 1 are 3,3,2,1,3,2,1,2,1,0 with n_i = 3, so
    # sum n(n-1) = 24 and sum n(n_i - 1) = 2 * 18 = 36.
    assert (res.agreeing_pairs, res.positive_pairs) == (24.0, 36.0)


def test_spec_vector_from_item_counts_and_pair_tables() -> None:
    # The same data as item x category counts (pooled) and as rater-pair tables (mean).
    r = _spec_ratings()
    counts = ItemCategoryCounts.from_ratings(r)
    pooled = pooled_specific_agreement(counts, positive=1)
    assert_allclose(pooled.statistic, SPEC["pooled_psa"], atol=SPEC["atol"])
    pooled_array = pooled_specific_agreement(counts.dense(), positive=1)
    assert_allclose(pooled_array.statistic, pooled.statistic)
    pw = pairwise_agreement(PairTables.from_ratings(r), measure="specific_agreement", positive=1)
    assert_allclose(pw.pairs["statistic"], SPEC["pair_psa"], atol=SPEC["atol"])
    assert_allclose(pw.mean, SPEC["mean_pair_psa"], atol=SPEC["atol"])


# -------------------------------------------------------------- a hand computation


def test_hand_computation_mean_over_pairs() -> None:
    # Pair tables on co-rated items (positive "a"), written out by hand:
    #   R1-R2 items 1,2,3,5: a=2 b=1 c=0 d=1 -> PSA 4/5, NSA 2/3
    #   R1-R3 items 1,2,4,5: a=1 b=1 c=0 d=2 -> PSA 2/3, NSA 4/5
    #   R2-R3 items 1,2,5:   a=1 b=1 c=0 d=1 -> PSA 2/3, NSA 2/3
    res = pairwise_specific_agreement(_hand(), positive="a", n_boot=0)
    assert res.pairs[["a", "b", "c", "d"]].to_numpy().tolist() == [
        [2, 1, 0, 1],
        [1, 1, 0, 2],
        [1, 1, 0, 1],
    ]
    assert_allclose(res.pairs["specific_agreement"], [4 / 5, 2 / 3, 2 / 3])
    assert_allclose(res.pairs["negative_agreement"], [2 / 3, 4 / 5, 2 / 3])
    assert_allclose(res.statistic, 32 / 45)  # (4/5 + 2/3 + 2/3) / 3
    assert_allclose(res.sd_over_pairs, math.sqrt(8) / 45)  # deviations 4/45, -2/45, -2/45
    assert_allclose(res.negative_agreement, 32 / 45)
    assert res.pairs["n_items"].tolist() == [4, 4, 3]
    # Per category, 2 n_cc / (n_c. + n_.c) per pair:
    #   b: R1-R2 2/2, R1-R3 2/3, R2-R3 2/3 -> mean 7/9
    #   c: R1-R2 0/1, R1-R3 2/2, R2-R3 undefined (no c) -> mean 1/2 over 2 pairs, SD 1/2
    cat = res.per_category.set_index("category")
    assert_allclose(cat.loc["b", "mean"], 7 / 9)
    assert_allclose(cat.loc["c", "mean"], 0.5)
    assert_allclose(cat.loc["c", "sd_over_pairs"], 0.5)
    assert cat["n_pairs"].tolist() == [3, 3, 2]
    assert res.n_items == 5 and res.n_raters == 3
    assert_allclose(res.matrix.loc["R1", "R2"], 4 / 5)
    assert math.isnan(res.matrix.loc["R2", "R2"])


def test_hand_computation_pooled() -> None:
    # Item counts (a, b, c): i1 (2,1,0), i2 (0,3,0), i3 (1,0,1), i4 (0,0,2), i5 (3,0,0).
    res = pooled_specific_agreement(_hand(), positive="a")
    cat = res.per_category.set_index("category")
    # a: sum n(n-1) = 2+6 = 8; sum n(n_i-1) = 2*2 + 1*1 + 3*2 = 11
    # b: 6 / (1*2 + 3*2) = 6/8;  c: 2 / (1*1 + 2*1) = 2/3
    assert_allclose(cat["specific_agreement"], [8 / 11, 6 / 8, 2 / 3])
    assert_allclose(res.statistic, 8 / 11)
    # NSA: other counts 1,3,1,2,0 -> sum m(m-1) = 6+2 = 8; sum m(n_i-1) = 2+6+1+2 = 11
    assert_allclose(res.negative_agreement, 8 / 11)
    assert_allclose(res.observed_agreement, 16 / 22)  # (8+6+2) / (11+8+3)
    # Delta method: residuals x - R y of items 1, 3, 5 are -10/11, -8/11, 18/11, so
    # Var = (100 + 64 + 324) / 121 / 11^2.
    assert_allclose(res.standard_error, math.sqrt(488) / 121)
    # Pooled = ratio of the sums over pairs of 2a and 2a + b + c (pair tables above).
    assert_allclose(res.statistic, (4 + 2 + 2) / (5 + 3 + 3))


# ------------------------------------------------------------------ two raters


@pytest.mark.parametrize(
    "table",
    [
        [[40, 5], [10, 45]],  # the spec's two-rater vector (two-raters.md)
        [[46, 0, 0], [6, 32, 6], [0, 0, 10]],  # Artstein & Poesio (2008), 3 categories
    ],
)
def test_two_raters_both_estimands_are_specific_agreement(table: list[list[int]]) -> None:
    r, x, y = _two_rater_ratings(table)
    two = specific_agreement(x, y)
    mean = pairwise_specific_agreement(r, n_boot=0)
    pooled = pooled_specific_agreement(r)
    for res in (mean, pooled):
        assert_allclose(res.statistic, two.statistic)
        assert_allclose(res.negative_agreement, two.negative_agreement)
    assert_allclose(mean.per_category["mean"], two.per_category["specific_agreement"])
    assert_allclose(
        pooled.per_category["specific_agreement"], two.per_category["specific_agreement"]
    )
    # The pooled delta-method SE reduces to Graham & Bull's, and so does its Wilson interval.
    assert_allclose(pooled.standard_error, two.standard_error)
    assert_allclose(pooled.negative_standard_error, two.negative_standard_error)
    assert_allclose(pooled.per_category["standard_error"], two.per_category["standard_error"])
    assert_allclose(pooled.confidence_interval(), two.confidence_interval())
    assert_allclose(
        pooled.confidence_interval(which="negative"), two.confidence_interval(which="negative")
    )
    assert mean.sd_over_pairs == 0.0 and mean.n_pairs == 1


# ----------------------------------------------------------------- properties


def _quiet(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        return fn(*args, **kwargs)


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


@given(long_ratings(max_items=10, max_raters=5, max_categories=3), st.randoms())
def test_invariant_to_rater_and_item_order(frame: pd.DataFrame, rnd: object) -> None:
    raters = sorted(frame["rater"].unique())
    items = sorted(frame["item"].unique())
    perm_r = dict(zip(raters, rnd.sample(raters, len(raters)), strict=True))  # type: ignore[attr-defined]
    perm_i = dict(zip(items, rnd.sample(items, len(items)), strict=True))  # type: ignore[attr-defined]
    shuffled = frame.assign(rater=frame["rater"].map(perm_r), item=frame["item"].map(perm_i))
    shuffled = shuffled.sample(frac=1.0, random_state=0)
    r0, r1 = ratings_of(frame), ratings_of(shuffled)
    for fn in (pairwise_specific_agreement, pooled_specific_agreement):
        kw = {"n_boot": 0}
        a, b = _quiet(fn, r0, **kw), _quiet(fn, r1, **kw)
        assert _same(a.statistic, b.statistic)
        assert _same(a.negative_agreement, b.negative_agreement)
    a, b = (
        _quiet(pairwise_specific_agreement, r0, n_boot=0),
        _quiet(pairwise_specific_agreement, r1, n_boot=0),
    )
    assert _same(a.sd_over_pairs, b.sd_over_pairs)


@given(long_ratings(max_items=10, max_raters=5, max_categories=4))
def test_bounds_and_pooled_is_ratio_of_pair_sums(frame: pd.DataFrame) -> None:
    r = ratings_of(frame)
    mean = _quiet(pairwise_specific_agreement, r, n_boot=0)
    pooled = _quiet(pooled_specific_agreement, r)
    for v in (
        mean.statistic,
        mean.negative_agreement,
        mean.sd_over_pairs,
        pooled.statistic,
        pooled.negative_agreement,
        *mean.per_category["mean"],
        *pooled.per_category["specific_agreement"],
    ):
        assert math.isnan(v) or 0.0 <= v <= 1.0
    # Pooled PSA = sum over rater pairs of 2a / sum of (2a + b + c), from the pair tables.
    pairs = mean.pairs
    num = float((2 * pairs["a"]).sum())
    den = float((2 * pairs["a"] + pairs["b"] + pairs["c"]).sum())
    assert _same(pooled.statistic, num / den if den > 0 else math.nan)
    # The mean over pairs lies between the smallest and the largest pair value.
    vals = pairs["specific_agreement"].dropna()
    if len(vals):
        assert vals.min() - 1e-12 <= mean.statistic <= vals.max() + 1e-12


@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=1, max_size=30))
def test_pooled_for_two_raters_is_psa(pairs: list[tuple[int, int]]) -> None:
    x = np.array([p[0] for p in pairs])
    y = np.array([p[1] for p in pairs])
    r = Ratings.from_wide(np.stack([x, y], axis=1), categories=[0, 1, 2])
    for positive in (0, 1, 2):
        two = _quiet(specific_agreement, x, y, positive=positive, categories=[0, 1, 2])
        pooled = _quiet(pooled_specific_agreement, r, positive=positive)
        mean = _quiet(pairwise_specific_agreement, r, positive=positive, n_boot=0)
        assert _same(pooled.statistic, two.statistic)
        assert _same(mean.statistic, two.statistic)
        assert _same(pooled.negative_agreement, two.negative_agreement)
        assert _same(pooled.standard_error, two.standard_error)


# ------------------------------------------------------------------- inference


def _pooled_definition(counts: np.ndarray, w: np.ndarray, k: int) -> float:
    """Pooled PSA of category k with item weights w, straight from the definition."""
    n = counts.sum(axis=1)
    return float((w * counts[:, k] * (counts[:, k] - 1)).sum() / (w * counts[:, k] * (n - 1)).sum())


def test_pooled_standard_error_is_the_delta_method() -> None:
    # Delta method = sum over items of the squared derivatives of the estimator with respect
    # to each item's weight (numerical central differences of the definition).
    rng = np.random.default_rng(3)
    counts = rng.multinomial(4, [0.5, 0.3, 0.2], size=40)
    res = pooled_specific_agreement(counts, positive=0)
    h = 1e-6
    grads = []
    for i in range(counts.shape[0]):
        up, down = np.ones(counts.shape[0]), np.ones(counts.shape[0])
        up[i] += h
        down[i] -= h
        grads.append(
            (_pooled_definition(counts, up, 0) - _pooled_definition(counts, down, 0)) / (2 * h)
        )
    assert_allclose(res.standard_error, math.sqrt(np.sum(np.square(grads))), rtol=1e-6)


def test_pooled_bootstrap_matches_a_loop_over_resamples() -> None:
    # inference.bootstrap draws multinomial multiplicities over the pairable items; redo the
    # same draws by hand and recompute the statistic from the resampled counts.
    r = _spec_ratings()
    counts = ItemCategoryCounts.from_ratings(r).dense()
    counts = counts[counts.sum(axis=1) >= 2]
    res = pooled_specific_agreement(r, positive=1, n_boot=25, rng=7)
    gen = np.random.default_rng(7)
    mult = gen.multinomial(counts.shape[0], np.full(counts.shape[0], 1 / counts.shape[0]), 25)
    expected = [_pooled_definition(counts, m.astype(float), 1) for m in mult]
    assert_allclose(res.replicates, expected)
    assert res.n_boot == 25 and "bootstrap" in res.method
    lo, hi = res.confidence_interval(method="percentile")
    assert 0.0 <= lo <= res.statistic <= hi <= 1.0


def test_mean_bootstrap_matches_a_loop_over_resamples() -> None:
    r = _hand()
    res = pairwise_specific_agreement(r, positive="a", n_boot=20, rng=11)
    gen = np.random.default_rng(11)
    n = 5  # all five items have two or more ratings
    mult = gen.multinomial(n, np.full(n, 1 / n), 20)
    items = [f"i{j}" for j in range(1, 6)]
    for b, m in enumerate(mult):
        parts = []
        for j, times in enumerate(m):
            for t in range(times):
                part = HAND[HAND["item"] == items[j]].assign(item=f"{items[j]}-{t}")
                parts.append(part)
        boot = Ratings.from_long(
            pd.concat(parts), item="item", rater="rater", label="label", categories=["a", "b", "c"]
        )
        again = _quiet(pairwise_specific_agreement, boot, positive="a", n_boot=0)
        assert _same(res.replicates[b], again.statistic)
        assert _same(res.negative_replicates[b], again.negative_agreement)
    assert_allclose(res.standard_error, np.nanstd(res.replicates, ddof=1))
    lo, hi = res.confidence_interval()
    assert 0.0 <= lo <= hi <= 1.0
    assert res.to_dict()["ci_method"].startswith("bootstrap BCa")


def test_same_seed_same_replicates() -> None:
    r = _spec_ratings()
    a = pairwise_specific_agreement(r, positive=1, n_boot=50, rng=5)
    b = pairwise_specific_agreement(r, positive=1, n_boot=50, rng=5)
    assert_allclose(a.replicates, b.replicates)


# ---------------------------------------------------- pairwise_agreement measure


def test_pairwise_agreement_measure_matches_the_two_rater_function() -> None:
    r = _hand()
    fast = pairwise_agreement(r, measure="specific_agreement", positive="a")

    def psa_a(table: accord.ContingencyTable) -> float:
        return specific_agreement(table, positive="a").statistic

    loop = pairwise_agreement(r, measure=psa_a)  # one two-rater call per pair
    assert_allclose(fast.pairs["statistic"], loop.pairs["statistic"])
    assert fast.measure == "specific_agreement"
    dedicated = pairwise_specific_agreement(r, positive="a", n_boot=0)
    assert_allclose(fast.mean, dedicated.statistic)
    # pairwise_agreement's sd is the sample SD (ddof=1), the dedicated one ddof=0.
    m = dedicated.n_pairs_defined
    assert_allclose(dedicated.sd_over_pairs, fast.sd * math.sqrt((m - 1) / m))
    assert_allclose(fast.matrix.to_numpy(), dedicated.matrix.to_numpy())


def test_pairwise_agreement_positive_only_with_specific_agreement() -> None:
    with pytest.raises(InvalidInputError, match="'positive' parameter of pairwise_agreement"):
        pairwise_agreement(_hand(), measure="cohen_kappa", positive="a")
    with pytest.raises(InvalidInputError, match="not among the categories"):
        pairwise_agreement(_hand(), measure="specific_agreement", positive="z")


# ------------------------------------------------------------ degenerate, errors


def test_no_positive_rating_is_nan_with_reason() -> None:
    r = Ratings.from_wide([["n", "n", "n"], ["n", "n", "n"]], categories=["y", "n"])
    with pytest.warns(DegenerateDataWarning):
        mean = pairwise_specific_agreement(r, positive="y", n_boot=0)
    with pytest.warns(DegenerateDataWarning):
        pooled = pooled_specific_agreement(r, positive="y")
    assert math.isnan(mean.statistic) and mean.reason
    assert math.isnan(pooled.statistic) and pooled.reason
    assert mean.negative_agreement == 1.0 and pooled.negative_agreement == 1.0
    assert math.isnan(pooled.confidence_interval(which="negative").low)  # Var 0 at NSA = 1


def test_options_are_checked() -> None:
    r = _hand()
    with pytest.raises(InvalidInputError, match="not among the categories"):
        pooled_specific_agreement(r, positive="z")
    with pytest.raises(InvalidInputError, match="'n_boot' parameter"):
        pairwise_specific_agreement(r, n_boot=-1)
    with pytest.raises(InvalidInputError, match="'min_items' parameter"):
        pairwise_specific_agreement(r, min_items=0)
    with pytest.raises(InvalidInputError, match="needs ratings with rater ids"):
        pairwise_specific_agreement(np.array([[2, 1], [0, 3]]))  # type: ignore[arg-type]
    res = pooled_specific_agreement(r)
    with pytest.raises(InvalidInputError, match="'method' parameter"):
        res.confidence_interval(method="exact")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="'which' parameter"):
        res.confidence_interval(which="both")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="bootstrap replicates"):
        res.confidence_interval(method="bca")


def test_min_items_drops_pairs() -> None:
    res = pairwise_specific_agreement(_hand(), positive="a", min_items=4, n_boot=0)
    assert res.n_pairs == 2  # R2-R3 co-rated only 3 items (see the hand computation)
    assert_allclose(res.statistic, (4 / 5 + 2 / 3) / 2)


def test_results_serialise_to_json() -> None:
    r = _spec_ratings()
    mean = pairwise_specific_agreement(r, positive=1, n_boot=30, rng=0)
    pooled = pooled_specific_agreement(r, positive=1, n_boot=30, rng=0)
    for res in (mean, pooled):
        d = json.loads(dumps(res))
        assert d["name"] in ("pairwise_specific_agreement", "pooled_specific_agreement")
        assert d["positive"] == 1 and "ci_low" in d and "negative_ci_low" in d
    assert json.loads(dumps(mean))["raters"] == ["0", "1", "2"]


def _pool_design(n_items: int, seed: int = 0) -> Ratings:
    """:func:`_pool_frame` as ratings."""
    return Ratings.from_long(_pool_frame(n_items, seed), item="item", rater="rater", label="label")


def _pool_frame(n_items: int, seed: int = 0) -> pd.DataFrame:
    """Ten ratings an item from a pool of 2,000 raters (rater ``offset + 200 s`` in slot
    ``s``), five labels, each rating the item's true label with probability 0.7 and a
    uniform label otherwise: every pair of raters that meet has P(both c) = 0.2 * 0.76^2 +
    0.8 * 0.06^2 = 0.1184 and P(c) = 0.2, so its PSA tends to 2 * 0.1184 / 0.4 = 0.592."""
    rng = np.random.default_rng(seed)
    item = np.repeat(np.arange(n_items), 10)
    rater = (rng.integers(0, 2000, n_items)[item] + np.tile(np.arange(10), n_items) * 200) % 2000
    truth = rng.integers(0, 5, n_items)[item]
    label = np.where(rng.random(item.size) < 0.7, truth, rng.integers(0, 5, item.size))
    return pd.DataFrame({"item": item, "rater": rater, "label": label})


def test_mean_over_pairs_has_no_interval_when_resampling_biases_it() -> None:
    # About 10 items a pair (2,000 items, 45 pairs an item, 9,000 pairs): the mean of the
    # pairs' PSAs sits far below their limit 0.592, its replicates further below still. A
    # replicate-count rule, checked here on the replicates themselves: with fewer than 2.5%
    # of them at or above the estimate, neither the percentile interval (which misses the
    # estimate) nor BCa (both ends at the largest replicates) holds: NaN, with the counts.
    r = _pool_design(2000)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = pairwise_specific_agreement(r, positive=0, n_boot=2000, rng=0)
        ci = res.confidence_interval(0.95)
        pct = res.confidence_interval(0.95, method="percentile")
    reps = res.replicates
    at_or_above = int(np.count_nonzero(reps >= res.statistic))
    assert at_or_above < 0.025 * reps.size  # the design is as described
    assert np.quantile(reps, 0.975) < res.statistic  # the percentile ends miss the estimate
    assert res.statistic < 0.592 - 5 * res.standard_error  # and the estimate misses 0.592
    assert math.isnan(ci.low) and math.isnan(ci.high)
    assert math.isnan(pct.low) and math.isnan(pct.high)
    assert res.per_category[["ci_low", "ci_high"]].isna().all().all()
    said = [str(w.message) for w in caught if issubclass(w.category, DegenerateDataWarning)]
    counts = f"lies above {reps.size - at_or_above:,} of the {reps.size:,} bootstrap replicates"
    assert any(m.startswith("no BCa interval: the estimate") and counts in m for m in said)
    assert any(m.startswith("per_category, categories 0, 1, 2, 3, 4: no BCa") for m in said)
    assert all("pooled_specific_agreement" in m for m in said)
    # the advice holds: the ratio of sums covers the pairs' limit
    pooled = pooled_specific_agreement(r, positive=0).confidence_interval(0.95)
    assert pooled.low < 0.592 < pooled.high


def test_mean_over_pairs_interval_where_pairs_share_many_items() -> None:
    # Three raters of every item: the replicates spread about the estimate and both
    # intervals are finite and hold it.
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 2, 300)
    wide = np.column_stack(
        [np.where(rng.random(300) < 0.8, truth, rng.integers(0, 2, 300)) for _ in range(3)]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateDataWarning)
        res = pairwise_specific_agreement(Ratings.from_wide(wide), positive=1, rng=0)
        for method in ("bca", "percentile"):
            ci = res.confidence_interval(0.95, method=method)
            assert ci.low < res.statistic < ci.high


def test_agreement_table_says_why_a_bootstrap_interval_is_missing(tmp_path: Path) -> None:
    # Light's kappa is a mean over pairs of kappas on about 10 shared items: its replicates
    # all fall below it (counted here), so its row has no interval and says why, in the
    # table, its JSON and the command line's note; Fleiss' kappa, from the items' totals,
    # keeps its interval and has no reason.
    from typer.testing import CliRunner

    from accord.cli import app

    from .._cli import cli_json

    r = _pool_design(2000)
    table = accord.agreement(r, coefficients=["fleiss_kappa", "light_kappa"], ci="bootstrap", rng=0)
    rows = {row["name"]: row for row in table.rows()}
    light = next(c for c in table.coefficients if c.name == "light_kappa")
    beyond = int(np.count_nonzero(light.replicates < light.statistic))
    assert beyond > 0.975 * light.replicates.size
    assert math.isnan(rows["light_kappa"]["ci_low"]) and math.isnan(rows["light_kappa"]["ci_high"])
    # after Light's own reason (the pairs it left out)
    said = rows["light_kappa"]["reason"].split("; ")
    assert said[0].endswith("(kappa 0/0)")
    assert said[1].startswith(
        f"no BCa interval: the estimate {light.statistic:.6g} lies above {beyond:,} of the"
    )
    assert math.isfinite(rows["fleiss_kappa"]["ci_low"]) and not rows["fleiss_kappa"]["reason"]
    # the command line, on the same ratings written out
    path = tmp_path / "r.csv"
    _pool_frame(2000).to_csv(path, index=False)
    args = ["agree", str(path), "--item", "item", "--rater", "rater", "--label", "label"]
    args += ["--ci", "bootstrap", "--coefficients", "fleiss_kappa,light_kappa", "--seed", "0"]
    out = cli_json(CliRunner().invoke(app, [*args, "--format", "json"]).stdout)
    light_json = next(c for c in out["coefficients"] if c["name"] == "light_kappa")
    assert light_json["ci_low"] is None and "no BCa interval" in light_json["reason"]
    shown = CliRunner().invoke(app, args, env={"COLUMNS": "200"}).stdout
    assert "no BCa interval: the estimate" in shown
