"""The value-count table of scored units (one sort of packed keys) and the sums read from it.

The table is checked against an independent tabulation (``np.unique`` of the correct and of
the incorrect confidences, counted apart), and the sums from the table against the sums over
the units (:meth:`ConfidenceSums.from_units`) and a direct computation with scikit-learn.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import accord
from accord.data.scored import prepare
from accord.stats.confidence import ConfidenceSums, ConfidenceValueCounts

SUM_FIELDS = (
    "n",
    "n_correct",
    "sum_log2_correct",
    "sum_log2_incorrect",
    "sum_squared_error",
    "n_clipped",
    "n_out_of_range",
)

# Confidences with ties, both ends of [0, 1], -0.0, values beside the sclite clipping bounds
# and subnormals: every case where ordering by bit pattern could go wrong.
confidences = st.one_of(
    st.sampled_from([0.0, -0.0, 1.0, 1e-7, 0.9999999, 5e-324, 1e-300, 0.5, 0.25]),
    st.floats(0.0, 1.0, allow_nan=False),
)


def _independent(correct: np.ndarray, confidence: np.ndarray) -> tuple[np.ndarray, ...]:
    values = np.unique(confidence)  # -0.0 and 0.0 are one value, as they compare equal
    pos_v, pos_n = np.unique(confidence[correct], return_counts=True)
    neg_v, neg_n = np.unique(confidence[~correct], return_counts=True)
    n_correct = np.zeros(values.size, dtype=np.int64)
    n_incorrect = np.zeros(values.size, dtype=np.int64)
    n_correct[np.searchsorted(values, pos_v)] = pos_n
    n_incorrect[np.searchsorted(values, neg_v)] = neg_n
    return values, n_correct, n_incorrect


@given(st.lists(st.tuples(st.booleans(), confidences), min_size=1, max_size=60))
def test_value_counts_match_an_independent_tabulation(units: list[tuple[bool, float]]) -> None:
    correct = np.array([u[0] for u in units], dtype=bool)
    confidence = np.array([u[1] for u in units], dtype=np.float64)
    table = ConfidenceValueCounts.from_units(prepare(correct, confidence, None, "raise", "t"))
    values, n_correct, n_incorrect = _independent(correct, confidence)
    assert_array_equal(table.values, values)
    assert not np.signbit(table.values).any()  # -0.0 tabulated as 0.0
    assert_array_equal(table.n_correct, n_correct)
    assert_array_equal(table.n_incorrect, n_incorrect)
    assert table.n == len(units)


@given(st.lists(st.tuples(st.booleans(), confidences), min_size=1, max_size=60))
def test_sums_from_the_table_equal_the_sums_over_units(units: list[tuple[bool, float]]) -> None:
    correct = np.array([u[0] for u in units], dtype=bool)
    confidence = np.array([u[1] for u in units], dtype=np.float64)
    prepared = prepare(correct, confidence, None, "raise", "t")
    direct = ConfidenceSums.from_units(prepared)
    tabled = ConfidenceSums.from_value_counts(ConfidenceValueCounts.from_units(prepared))
    for name in SUM_FIELDS:
        assert_allclose(getattr(tabled, name), getattr(direct, name), rtol=1e-12, atol=1e-12)


def test_calibration_metrics_on_many_ties_match_sklearn() -> None:
    from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score

    rng = np.random.default_rng(7)
    n = 200_000
    correct = rng.random(n) < 0.6
    confidence = np.round(np.where(correct, rng.beta(5, 2, n), rng.beta(2, 3, n)), 3)
    confidence = np.clip(confidence, 1e-3, 1 - 1e-3)  # inside the clipping: same log loss
    r = accord.calibration_metrics(correct, confidence, bins=10)
    assert_allclose(r.brier_score, brier_score_loss(correct, confidence), rtol=1e-12)
    assert_allclose(r.log_loss_nats, log_loss(correct, confidence), rtol=1e-12)
    assert_allclose(r.auroc, roc_auc_score(correct, confidence), rtol=1e-12)
    assert_allclose(r.mean_confidence, confidence.mean(), rtol=1e-12)
    assert r.n == n and r.n_correct == int(correct.sum())


def test_the_read_line_counts_one_group_in_the_singular() -> None:
    # "1724 scored units in 1 group", not "in 1 groups"; "over 4 groups", not "group(s)"
    from accord.cli._confidence import read_line

    base = {"rows": 3, "read": "rows", "units": 3, "unit": "scored units",
            "out_of_range_clipped": 0}  # fmt: skip
    one = read_line({**base, "groups": 1, "groups_are": "groups"})
    assert one.endswith("in 1 group; nothing dropped")
    assert "in 2 speakers" in read_line({**base, "groups": 2, "groups_are": "speakers"})
    assert "in 1 speaker;" in read_line({**base, "groups": 1, "groups_are": "speakers"})
