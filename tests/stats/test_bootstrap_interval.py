"""Bootstrap intervals refused when the replicates are not spread about the estimate."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from accord import DegenerateDataWarning
from accord._bootstrap import bootstrap_interval, off_centre


def test_ties_at_a_bound_count_on_both_sides() -> None:
    # kappa 1 with every replicate 1, a rate 0 with 60% of its replicates 0: the estimate is
    # at the edge of the replicates but among them, and the intervals are the quantiles.
    assert off_centre(1.0, np.ones(200), 0.95) is None
    zeros = np.r_[np.zeros(120), np.linspace(0.01, 0.2, 80)]
    assert off_centre(0.0, zeros, 0.95) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateDataWarning)
        ci = bootstrap_interval(0.0, zeros, None, level=0.95, method="percentile")
    assert (ci.low, ci.high) == pytest.approx(tuple(np.quantile(zeros, [0.025, 0.975])))


def test_counts_by_hand() -> None:
    # 1,000 replicates 1..1000; an estimate of 975.5 has 25 at or above it (2.5%: kept),
    # one of 976.5 has 24 (refused at 95%; kept at 96%, which asks for 2%, 20, on each side).
    reps = np.arange(1.0, 1001.0)
    assert off_centre(975.5, reps, 0.95) is None
    said = off_centre(976.5, reps, 0.95)
    assert said is not None and "lies above 976 of the 1,000 bootstrap replicates" in said
    assert off_centre(976.5, reps, 0.96) is None
    low = off_centre(24.5, reps, 0.95)  # 24 at or below: the estimate below the other 976
    assert low is not None and "lies below 976 of the 1,000" in low
    # z0 as BCa computes it: the normal quantile of 976 / 1000
    assert "(z0 = 1.98)" in said


def test_refused_interval_is_nan_with_the_reason_and_advice() -> None:
    reps = np.linspace(0.0, 0.9, 500)
    with pytest.warns(DegenerateDataWarning, match=r"^no BCa interval: the estimate 1 .*; try x"):
        ci = bootstrap_interval(1.0, reps, reps[:50], level=0.95, method="bca", advice="; try x")
    assert math.isnan(ci.low) and math.isnan(ci.high)


@given(
    st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=300),
    st.floats(0.5, 0.99),
)
def test_an_estimate_at_the_median_is_never_refused(values: list[float], level: float) -> None:
    # At the median of the replicates at least half lie on each side (ties on both).
    reps = np.asarray(values)
    assert off_centre(float(np.median(reps)), reps, level) is None or reps.size % 2 == 0
    assert off_centre(float(np.sort(reps)[(reps.size - 1) // 2]), reps, level) is None


@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=300), st.floats(0.5, 0.99))
def test_an_estimate_beyond_every_replicate_is_refused(values: list[float], level: float) -> None:
    reps = np.asarray(values)
    assert off_centre(float(reps.max()) + 1.0, reps, level) is not None
    assert off_centre(float(reps.min()) - 1.0, reps, level) is not None
