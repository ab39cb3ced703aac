"""Tests of accord.confidence: NCE, calibration metrics, reliability diagrams, recalibration."""

from __future__ import annotations

import contextlib
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import accord
from accord.confidence import (
    ConfidenceSums,
    ConfidenceValueCounts,
    calibration_from_statistics,
    nce_from_sums,
    reliability_from_value_counts,
    wilson_interval,
)
from accord.confidence._calibration import bin_codes
from accord.data.scored import prepare

REFERENCE = json.loads(
    (Path(__file__).parents[1] / "reference" / "confidence.json").read_text(encoding="utf-8")
)
SPEC = REFERENCE["spec_vector"]
Y = np.array(SPEC["correct"], dtype=bool)
C = np.array(SPEC["confidence"])


def _units(correct, confidence, groups=None, out_of_range="raise"):
    return prepare(correct, confidence, groups, out_of_range, "test")


# ------------------------------------------------------- NCE: a hand-checked vector


def test_spec_vector_reproduces():
    # source: tests/reference/confidence.json "spec_vector" (computed from sclite's NCE formula)
    r = accord.normalized_cross_entropy(Y, C)
    assert_allclose(r.p_correct, SPEC["p_correct"], rtol=1e-12)
    assert_allclose(r.h_max, SPEC["h_max"], atol=5e-7)
    assert_allclose(r.sum_log2_correct, SPEC["sum_log2_correct"], atol=5e-7)
    assert_allclose(r.sum_log2_incorrect, SPEC["sum_log2_incorrect"], atol=5e-7)
    assert_allclose(r.statistic, SPEC["nce"], atol=5e-7)
    assert round(r.statistic, 3) == 0.649  # what sclite prints
    assert r.n == 10 and r.n_correct == 7
    assert r.n_clipped == 2  # 1.0 and 0.0 moved to 0.9999999 and 1e-7
    assert r.reason is None


def test_spec_vector_hand_computation():
    # hand computation from the formula, independent of the library's code path
    p = 0.7
    h_max = -(7 * math.log2(p) + 3 * math.log2(1 - p))
    s_c = sum(math.log2(min(c, 0.9999999)) for c in (0.95, 0.80, 0.60, 0.90, 0.70, 0.85, 1.0))
    s_i = sum(math.log2(1 - max(c, 1e-7)) for c in (0.40, 0.20, 0.0))
    r = accord.normalized_cross_entropy(Y, C)
    assert_allclose(r.statistic, (h_max + s_c + s_i) / h_max, rtol=1e-13)


@pytest.mark.parametrize("variant", SPEC["variants"], ids=lambda v: v["change"])
def test_spec_variants(variant):
    # source: tests/reference/confidence.json "variants"
    c = C.copy()
    if variant["change"].startswith("last confidence 1.0"):
        c[-1] = 1.0
    elif variant["change"] == "all confidences 0.7":
        c[:] = 0.7
    else:
        c[:] = 0.5
    r = accord.normalized_cross_entropy(Y, c)
    assert_allclose(r.statistic, variant["nce"], atol=5e-7)


def test_all_half_is_one_minus_m_over_hmax():
    # hand: sum of log2(0.5) over 10 units is -10, so NCE = 1 - 10 / H_max
    r = accord.normalized_cross_entropy(Y, np.full(10, 0.5))
    assert_allclose(r.statistic, 1 - 10 / r.h_max, rtol=1e-14)


# ---------------------------------------------------------------- NCE properties

units_strategy = st.integers(min_value=2, max_value=60).flatmap(
    lambda n: st.tuples(
        st.lists(st.booleans(), min_size=n, max_size=n),
        st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=n, max_size=n),
        st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n),
    )
)


@given(units_strategy)
def test_nce_equals_one_minus_m_log_loss_over_hmax(data):
    y, c, _ = data
    y = np.array(y)
    c = np.array(c)
    if y.all() or not y.any():
        return
    clipped = np.clip(c, 1e-7, 0.9999999)
    log_loss_bits = -np.mean(np.where(y, np.log2(clipped), np.log2(1 - clipped)))
    p = y.mean()
    h_max = -y.size * (p * math.log2(p) + (1 - p) * math.log2(1 - p))
    r = accord.normalized_cross_entropy(y, c)
    assert_allclose(r.statistic, 1 - y.size * log_loss_bits / h_max, rtol=1e-9, atol=1e-9)
    assert_allclose(r.log_loss_bits, log_loss_bits, rtol=1e-12)
    assert r.statistic <= 1.0


@given(st.lists(st.booleans(), min_size=2, max_size=80))
def test_constant_p_c_gives_zero(y):
    y = np.array(y)
    if y.all() or not y.any():
        return
    r = accord.normalized_cross_entropy(y, np.full(y.size, y.mean()))
    assert_allclose(r.statistic, 0.0, atol=1e-12)


@given(units_strategy, st.randoms(use_true_random=False))
def test_nce_invariant_to_unit_order(data, random):
    y, c, g = data
    order = list(range(len(y)))
    random.shuffle(order)
    with _quiet():
        a = accord.normalized_cross_entropy(y, c, groups=g)
        b = accord.normalized_cross_entropy(
            [y[i] for i in order], [c[i] for i in order], groups=[g[i] for i in order]
        )
    assert_allclose(a.statistic, b.statistic, rtol=1e-9, atol=1e-12, equal_nan=True)
    pd.testing.assert_frame_equal(a.groups, b.groups, rtol=1e-9, atol=1e-12)


@contextlib.contextmanager
def _quiet():
    """Silence DegenerateDataWarning where random data may have one class in a group."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", accord.DegenerateDataWarning)
        yield


# ---------------------------------------------------------------- mergeable statistics


@given(units_strategy, st.integers(min_value=0, max_value=2**32 - 1))
def test_merge_of_halves_equals_whole(data, seed):
    y, c, g = (np.array(v) for v in data)
    rng = np.random.default_rng(seed)
    part = rng.random(y.size) < 0.5
    if part.all() or not part.any():
        part[0] = not part[0]
    whole = ConfidenceSums.from_units(_units(y, c, g))
    left = ConfidenceSums.from_units(_units(y[part], c[part], g[part]))
    right = ConfidenceSums.from_units(_units(y[~part], c[~part], g[~part]))
    merged = left.merge(right)
    order = [merged.groups.index(label) for label in whole.groups]
    assert sorted(merged.groups) == sorted(whole.groups)
    for name in ("n", "n_correct", "n_clipped", "n_out_of_range"):
        assert_array_equal(getattr(merged, name)[order], getattr(whole, name))  # exact
    for name in ("sum_log2_correct", "sum_log2_incorrect", "sum_squared_error"):
        assert_allclose(getattr(merged, name)[order], getattr(whole, name), rtol=1e-12, atol=1e-9)

    t_whole = ConfidenceValueCounts.from_units(_units(y, c))
    t_merged = ConfidenceValueCounts.from_units(_units(y[part], c[part])).merge(
        ConfidenceValueCounts.from_units(_units(y[~part], c[~part]))
    )
    assert_array_equal(t_merged.values, t_whole.values)
    assert_array_equal(t_merged.n_correct, t_whole.n_correct)
    assert_array_equal(t_merged.n_incorrect, t_whole.n_incorrect)

    with _quiet():
        a = calibration_from_statistics(whole, t_whole, bins=4)
        b = calibration_from_statistics(merged, t_merged, bins=4)
        na = nce_from_sums(whole)
        nb = nce_from_sums(merged)
    for name in ("brier_score", "log_loss_bits", "auroc", "ece_width", "ece_mass", "mce_mass"):
        assert_allclose(getattr(a, name), getattr(b, name), rtol=1e-9, atol=1e-12, equal_nan=True)
    assert_allclose(na.statistic, nb.statistic, rtol=1e-9, atol=1e-12, equal_nan=True)


def test_merge_rejects_other_types():
    sums = ConfidenceSums.from_units(_units(Y, C))
    with pytest.raises(accord.InvalidInputError, match="cannot merge"):
        sums.merge(ConfidenceValueCounts.from_units(_units(Y, C)))  # type: ignore[arg-type]


# ---------------------------------------------------------------- groups and degenerate data


def test_groups_table_and_summary():
    g = np.array(["x"] * 5 + ["y"] * 5)
    r = accord.normalized_cross_entropy(Y, C, groups=g)
    per = [accord.normalized_cross_entropy(Y[g == k], C[g == k]).statistic for k in "xy"]
    assert list(r.groups["group"]) == ["x", "y"]
    assert_allclose(r.groups["nce"], per, rtol=1e-13)
    assert_allclose(r.mean, np.mean(per), rtol=1e-13)
    assert_allclose(r.sd, np.std(per, ddof=1), rtol=1e-13)
    assert_allclose(r.median, np.median(per), rtol=1e-13)
    # the pooled NCE comes from the totals, not the mean of the groups
    assert_allclose(r.statistic, SPEC["nce"], atol=5e-7)
    assert not math.isclose(r.statistic, r.mean)


def test_all_correct_is_nan_with_reason():
    with pytest.warns(accord.DegenerateDataWarning, match="undefined"):
        r = accord.normalized_cross_entropy([1, 1, 1], [0.9, 0.8, 0.7])
    assert math.isnan(r.statistic)
    assert "p_c is 1" in r.reason
    assert math.isnan(r.h_max)


def test_degenerate_group_left_out_of_summary():
    y = [1, 1, 1, 0, 1, 0]
    c = [0.9, 0.8, 0.7, 0.2, 0.6, 0.3]
    g = ["all-right", "all-right", "mixed", "mixed", "mixed2", "mixed2"]
    with pytest.warns(accord.DegenerateDataWarning, match="1 group"):
        r = accord.normalized_cross_entropy(y, c, groups=g)
    row = r.groups.set_index("group")
    assert math.isnan(row.loc["all-right", "nce"])
    assert "every unit is correct" in row.loc["all-right", "reason"]
    assert r.n_groups == 3 and r.n_groups_defined == 2
    assert_allclose(r.mean, row[["nce"]].dropna()["nce"].mean())
    assert math.isfinite(r.statistic)


# ---------------------------------------------------------------- bad input


def test_out_of_range_raises_naming_row_and_value():
    with pytest.raises(
        accord.InvalidInputError, match=r"found 1\.2 at row 2; pass out_of_range='clip'"
    ):
        accord.normalized_cross_entropy([1, 0], [0.5, 1.2])


def test_out_of_range_clip_counts():
    r = accord.normalized_cross_entropy([1, 0, 1], [1.5, -0.25, 0.5], out_of_range="clip")
    assert r.n_out_of_range == 2
    # clipped to 1 and 0, then to sclite's [1e-7, 0.9999999] before the logs
    assert r.n_clipped == 2
    p = 2 / 3
    h_max = -(2 * math.log2(p) + math.log2(1 - p))
    expected = (h_max + math.log2(0.9999999) + math.log2(1 - 1e-7) + math.log2(0.5)) / h_max
    assert_allclose(r.statistic, expected, rtol=1e-12)


@pytest.mark.parametrize(
    ("correct", "confidence", "message"),
    [
        ([1, 2], [0.5, 0.5], r"correct must be 0/1 or true/false; found 2 at row 2"),
        (["yes", "maybe"], [0.5, 0.5], r"found 'maybe' at row 2"),
        ([1, None], [0.5, 0.5], r"correct: missing value at row 2"),
        ([1, 0], [0.5, float("nan")], r"confidence: missing value at row 2"),
        ([1, 0], ["0.5", "high"], r"confidence must be numbers; found 'high' at row 2"),
        ([1, 0, 1], [0.5, 0.5], r"correct has 3 values and confidence has 2"),
        ([], [], r"empty"),
    ],
)
def test_bad_input_messages(correct, confidence, message):
    with pytest.raises(accord.InvalidInputError, match=message):
        accord.normalized_cross_entropy(correct, confidence)


def test_bad_options_follow_the_template():
    with pytest.raises(accord.InvalidInputError, match=r"The 'out_of_range' parameter of"):
        accord.normalized_cross_entropy(Y, C, out_of_range="ignore")  # type: ignore[arg-type]
    with pytest.raises(accord.InvalidInputError, match=r"The 'binning' parameter of"):
        accord.reliability_diagram(Y, C, binning="quantile")  # type: ignore[arg-type]
    with pytest.raises(accord.InvalidInputError, match=r"The 'bins' parameter of"):
        accord.calibration_metrics(Y, C, bins=0)
    with pytest.raises(accord.InvalidInputError, match=r"The 'method' parameter of"):
        accord.recalibrate(Y, C, method="platt")  # type: ignore[arg-type]
    with pytest.raises(accord.InvalidInputError, match=r"The 'folds' parameter of"):
        accord.recalibrate(Y, C, folds=1)


def test_groups_must_align_and_be_present():
    with pytest.raises(accord.InvalidInputError, match="groups has 2 values"):
        accord.normalized_cross_entropy(Y, C, groups=["a", "b"])
    with pytest.raises(accord.InvalidInputError, match="groups: missing value at row 3"):
        accord.normalized_cross_entropy([1, 0, 1], [0.5] * 3, groups=["a", "b", None])


# ---------------------------------------------------------------- companions


def test_calibration_metrics_on_spec_vector_by_hand():
    r = accord.calibration_metrics(Y, C, bins=5)
    # hand: squared errors .0025 .04 .16 .16 .01 .09 .04 .0225 0 0 sum to .525
    assert_allclose(r.brier_score, 0.0525, rtol=1e-12)
    # every correct unit (>= .6) outranks every incorrect one (<= .4): AUROC 1 by definition
    assert r.auroc == 1.0
    # hand, 5 equal-width bins [0,.2) [.2,.4) [.4,.6) [.6,.8) [.8,1]: counts 1 1 1 2 5,
    # |acc - conf| = 0, .2, .4, .35, .1 -> ECE = (0 + .2 + .4 + .7 + .5) / 10 = .18, MCE .4
    assert_allclose(r.ece_width, 0.18, rtol=1e-12)
    assert_allclose(r.mce_width, 0.4, rtol=1e-12)
    # hand, 5 equal-mass bins of 2 sorted units: {0,.2} {.4,.6} {.7,.8} {.85,.9} {.95,1}
    # |acc - conf| = .1, 0, .25, .125, .025 -> ECE = 2 (.5) / 10 = .1, MCE .25
    assert_allclose(r.ece_mass, 0.1, rtol=1e-12)
    assert_allclose(r.mce_mass, 0.25, rtol=1e-12)
    assert_allclose(r.log_loss_nats, r.log_loss_bits * math.log(2), rtol=1e-15)
    assert set(r.conventions) >= {"brier_score", "log_loss", "auroc", "width_bins", "mass_bins"}


def test_companions_match_scikit_learn():
    from sklearn import metrics

    rng = np.random.default_rng(7)
    y = rng.random(3000) < 0.6
    c = np.clip(np.where(y, rng.beta(4, 2, 3000), rng.beta(2, 3, 3000)), 1e-6, 1 - 1e-6)
    c[:50] = np.clip(np.round(c[:50], 1), 0.1, 0.9)  # some ties
    r = accord.calibration_metrics(y, c)
    # peer: sklearn.metrics.brier_score_loss(y, c), log_loss(y, c), roc_auc_score(y, c)
    assert_allclose(r.brier_score, metrics.brier_score_loss(y, c), rtol=1e-12)
    assert_allclose(r.log_loss_nats, metrics.log_loss(y, c), rtol=1e-12)
    assert_allclose(r.auroc, metrics.roc_auc_score(y, c), rtol=1e-12)


def test_wilson_interval_matches_statsmodels():
    from statsmodels.stats import proportion

    k = np.array([0, 3, 7, 10, 55])
    n = np.array([10, 10, 10, 10, 60])
    low, high = wilson_interval(k, n, 0.9)
    # peer: statsmodels proportion_confint(k, n, alpha=0.1, method="wilson")
    ref_low, ref_high = proportion.proportion_confint(k, n, alpha=0.1, method="wilson")
    assert_allclose(low, ref_low, rtol=1e-10, atol=1e-12)
    assert_allclose(high, ref_high, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("bins", [3, 5, 7, 10])
def test_width_bin_edges(bins):
    edges = [k / bins for k in range(bins)]
    values = np.array([0.0, 1.0, *edges[1:], *(np.nextafter(e, 0.0) for e in edges[1:])])
    table = ConfidenceValueCounts(
        np.sort(values), np.ones(values.size, np.int64), np.zeros(values.size, np.int64)
    )
    code = dict(zip(table.values.tolist(), bin_codes(table, bins, "width").tolist(), strict=True))
    assert code[0.0] == 0  # 0.0 in the first bin
    assert code[1.0] == bins - 1  # 1.0 in the (closed) last bin
    for k, edge in enumerate(edges[1:], start=1):
        assert code[edge] == k  # an interior edge starts its bin: [a, b)
        assert code[float(np.nextafter(edge, 0.0))] == k - 1


def test_interior_edges_with_decimal_literals():
    d = accord.reliability_diagram([1, 1, 0, 0, 1], [0.2, 0.4, 0.6, 0.8, 1.0], bins=5)
    assert d.bins["count"].tolist() == [0, 1, 1, 1, 2]
    assert bool(d.bins.loc[0, "empty"])


def test_empty_bins_reported_as_empty():
    d = accord.reliability_diagram([1, 0, 1, 1], [0.91, 0.95, 0.99, 1.0], bins=10)
    assert d.n_empty_bins == 9
    empty = d.bins[d.bins["empty"]]
    assert len(empty) == 9
    assert empty["count"].eq(0).all()
    assert empty["accuracy"].isna().all()  # not 0% correct
    assert empty["mean_confidence"].isna().all() and empty["ci_low"].isna().all()
    # hand: one bin, accuracy 3/4, mean confidence .9625 -> ECE = MCE = .2125
    assert_allclose(d.ece, 0.2125, rtol=1e-12)
    assert_allclose(d.mce, 0.2125, rtol=1e-12)


def test_mass_bins_keep_ties_whole():
    d = accord.reliability_diagram([1, 0, 1, 0, 1, 1], [0.5] * 5 + [0.9], bins=3, binning="mass")
    # the 5 tied units start at position 0 -> bin 0; the last at position 5 -> floor(3*5/6) = 2
    assert d.bins["count"].tolist() == [5, 0, 1]
    assert d.bins["empty"].tolist() == [False, True, False]
    assert_allclose(d.bins.loc[0, "low"], 0.5)
    assert math.isnan(d.bins.loc[1, "low"])


def test_reliability_from_merged_value_counts():
    a = ConfidenceValueCounts.from_units(_units(Y[:4], C[:4]))
    b = ConfidenceValueCounts.from_units(_units(Y[4:], C[4:]))
    merged = reliability_from_value_counts(a.merge(b), bins=5)
    direct = accord.reliability_diagram(Y, C, bins=5)
    pd.testing.assert_frame_equal(merged.bins, direct.bins)


def test_auroc_undefined_with_one_class():
    with pytest.warns(accord.DegenerateDataWarning, match="AUROC"):
        r = accord.calibration_metrics([1, 1], [0.3, 0.9])
    assert math.isnan(r.auroc) and "correct" in r.reason


def test_results_serialise_to_json():
    from accord._results import dumps

    for result in (
        accord.normalized_cross_entropy(Y, C, groups=["a"] * 5 + ["b"] * 5),
        accord.calibration_metrics(Y, C),
        accord.reliability_diagram(Y, C),
        accord.recalibrate(Y, C, folds=2, rng=0),
    ):
        payload = json.loads(dumps(result))
        assert payload["name"] == result.name


# ---------------------------------------------------------------- recalibration


@pytest.mark.parametrize("method", ["bins", "isotonic"])
def test_recalibration_of_pure_noise_stays_near_zero(method):
    rng = np.random.default_rng(2024)
    n = 20_000
    y = rng.random(n) < 0.7
    noise = rng.random(n)  # carries no information about correctness
    r = accord.recalibrate(y, noise, method=method, rng=3)
    assert r.before.statistic < -0.5  # uniform noise is far worse than the constant p_c
    # cross-fitted: after recalibration close to 0 and not above it (an in-sample fit would
    # show a spurious gain)
    assert -0.02 < r.after.statistic < 0.002
    assert r.improvement > 0


def test_recalibration_helps_informative_but_timid_confidences():
    rng = np.random.default_rng(5)
    n = 8000
    y = rng.random(n) < 0.6
    c = np.where(y, rng.uniform(0.45, 0.75, n), rng.uniform(0.25, 0.55, n))
    for method in ("bins", "isotonic"):
        r = accord.recalibrate(y, c, method=method, rng=1, groups=np.arange(n) % 2)
        assert r.after.statistic > r.before.statistic + 0.1
        assert r.recalibrated.shape == (n,)
        assert set(np.unique(r.folds)) == set(range(5))


def test_folds_use_only_other_folds():
    # a unit's recalibrated confidence must come from a map fitted without its fold
    rng = np.random.default_rng(11)
    y = rng.random(400) < 0.5
    c = rng.random(400)
    r = accord.recalibrate(y, c, method="bins", bins=4, folds=4, rng=0)
    for k in range(4):
        held = r.folds == k
        train = ConfidenceValueCounts.from_units(_units(y[~held], c[~held]))
        from accord.confidence import fit_calibration_map

        mapping = fit_calibration_map(train, method="bins", bins=4, binning="width")
        assert_allclose(r.recalibrated[held], mapping(c[held]))


def test_binned_map_is_each_bins_proportion_correct():
    y = np.array([0, 1, 1, 1, 0, 0, 1, 1])
    c = np.array([0.1, 0.2, 0.3, 0.45, 0.6, 0.7, 0.9, 0.95])
    r = accord.recalibrate(y, c, bins=2, folds=2, rng=0)
    # hand: bin [0, .5) holds 4 units, 3 correct -> .75; bin [.5, 1] holds 4, 2 correct -> .5
    assert_allclose(r.mapping([0.0, 0.49, 0.5, 1.0]), [0.75, 0.75, 0.5, 0.5])


def test_isotonic_map_matches_scikit_learn():
    from sklearn import isotonic

    rng = np.random.default_rng(9)
    y = rng.random(500) < 0.5
    c = np.round(
        np.clip(np.where(y, rng.normal(0.6, 0.2, 500), rng.normal(0.4, 0.2, 500)), 0, 1), 2
    )
    r = accord.recalibrate(y, c, method="isotonic", folds=2, rng=0)
    # peer: sklearn IsotonicRegression(out_of_bounds="clip").fit(c, y).predict(grid)
    peer = isotonic.IsotonicRegression(out_of_bounds="clip").fit(c, y.astype(float))
    grid = np.linspace(0, 1, 201)
    assert_allclose(r.mapping(grid), peer.predict(grid), rtol=1e-10, atol=1e-12)


def test_one_group_sums_by_hand() -> None:
    # y = [1, 0, 1, 0], c = [0.8, 0.3, 0, 1]: log2 of the probability given to what
    # happened, with sclite's clipping to [1e-7, 0.9999999] (two values moved).
    from accord.stats.confidence import ConfidenceSums

    units = prepare([1, 0, 1, 0], [0.8, 0.3, 0.0, 1.0], None, "raise", "test")
    s = ConfidenceSums.from_units(units)
    assert s.n.tolist() == [4] and s.n_correct.tolist() == [2] and s.n_clipped.tolist() == [2]
    assert math.isclose(s.sum_log2_correct[0], math.log2(0.8) + math.log2(1e-7), rel_tol=1e-15)
    assert math.isclose(
        s.sum_log2_incorrect[0], math.log2(0.7) + math.log2(1 - 0.9999999), rel_tol=1e-12
    )
    assert math.isclose(s.sum_squared_error[0], 0.04 + 0.09 + 1.0 + 1.0, rel_tol=1e-15)


@given(
    st.lists(
        st.tuples(
            st.booleans(),
            st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 1.0, 1e-8, 0.99999999])),
        ),
        min_size=2,
        max_size=60,
    )
)
def test_one_group_sums_equal_the_grouped_computation(units: list[tuple[bool, float]]) -> None:
    # The one-group shortcut (sums and dot products) equals the per-group bincounts pooled.
    from accord.stats.confidence import ConfidenceSums

    y = [u[0] for u in units]
    c = [u[1] for u in units]
    one = ConfidenceSums.from_units(prepare(y, c, None, "raise", "test"))
    groups = ["a" if k % 2 else "b" for k in range(len(units))]
    pooled = ConfidenceSums.from_units(prepare(y, c, groups, "raise", "test")).pooled()
    for field in ("n", "n_correct", "n_clipped", "n_out_of_range"):
        assert getattr(one, field).tolist() == getattr(pooled, field).tolist(), field
    for field in ("sum_log2_correct", "sum_log2_incorrect", "sum_squared_error"):
        assert_allclose(getattr(one, field), getattr(pooled, field), rtol=1e-12, atol=1e-9)


def test_source_may_be_a_data_frame_in_memory() -> None:
    """``source=`` a pandas frame: its columns are read as a file's would be."""
    frame = pd.DataFrame({"ok": ["yes", "no", "yes", "no"], "p": [0.9, 0.2, 0.6, 0.3]})
    # hand computation: Brier = (0.1^2 + 0.2^2 + 0.4^2 + 0.3^2) / 4 = 0.075
    metrics = accord.calibration_metrics("ok", "p", source=frame)
    assert metrics.brier_score == pytest.approx(0.075, abs=1e-12)
    nce = accord.normalized_cross_entropy("ok", "p", source=frame)
    assert (
        nce.statistic
        == accord.normalized_cross_entropy([1, 0, 1, 0], [0.9, 0.2, 0.6, 0.3]).statistic
    )
    with pytest.raises(accord.InvalidInputError, match=r"column 'conf' not found; .*'ok', 'p'"):
        accord.normalized_cross_entropy("ok", "conf", source=frame)


def test_results_json_writes_no_infinity_strings():
    """An infinite field is ``null`` in strict JSON (no ``"Infinity"`` string a reader would
    take for text), as in the command line's envelope."""
    from accord._results import dumps

    payload = json.loads(dumps({"upper": float("inf"), "lower": float("-inf"), "x": [1.5]}))
    assert payload == {"upper": None, "lower": None, "x": [1.5]}
