"""Bias tests of pairwise judges: position bias, length bias, self-preference; the exact
intervals and tests against statsmodels and scipy."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

import accord
from accord import InvalidInputError
from accord.judges.bias import (
    binomial_test,
    clopper_pearson,
    length_bias,
    logistic_fit,
    position_bias,
    self_preference,
)

MT_BENCH = accord.datasets.path("mt-bench-pairwise.jsonl")


def _log() -> pd.DataFrame:
    return pd.read_json(MT_BENCH, lines=True)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 60), st.integers(1, 60), st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_clopper_pearson_and_binomial_test_against_statsmodels_and_scipy(
    k: int, n: int, level: float
) -> None:
    k = min(k, n)
    low, high = clopper_pearson(k, n, level)
    exp_low, exp_high = proportion_confint(k, n, alpha=1 - level, method="beta")
    assert float(low) == pytest.approx(exp_low, abs=1e-12)
    assert float(high) == pytest.approx(exp_high, abs=1e-12)
    assert float(binomial_test(k, n)) == pytest.approx(binomtest(k, n).pvalue, rel=1e-12)


def _swapped_log(verdicts: list[tuple[str, str]]) -> pd.DataFrame:
    """Pairs of x vs y, one per question, judged in both orders: (verdict with x first,
    verdict with y first), each 'x', 'y' or 'tie'."""
    rows = []
    for q, (forward, backward) in enumerate(verdicts):
        code = {"x": "model_a", "y": "model_b", "tie": "tie"}
        rows.append((q, "x", "y", "llm", code[forward]))
        back = {"x": "model_b", "y": "model_a", "tie": "tie"}
        rows.append((q, "y", "x", "llm", back[backward]))
    return pd.DataFrame(rows, columns=["question_id", "model_a", "model_b", "judge", "winner"])


def test_position_bias_counted_by_hand_and_mcnemar_against_statsmodels() -> None:
    # 5 consistent (3 x, 2 y), 4 favour the first both times (x then y), 1 the second,
    # 1 with a tie on one side.
    verdicts = ([("x", "x")] * 3 + [("y", "y")] * 2 + [("x", "y")] * 4 + [("y", "x")]
                + [("x", "tie")])  # fmt: skip
    row = position_bias(_swapped_log(verdicts)).table.iloc[0]
    assert row["n_judgments"] == 22 and row["n_decisive"] == 21
    # First wins: x first and x preferred (3 + 4 + 1), y first and y preferred (2 + 4).
    assert row["first_wins"] == 14
    assert row["first_win_rate"] == pytest.approx(14 / 21)
    assert row["first_win_rate_pvalue"] == pytest.approx(binomtest(14, 21).pvalue)
    assert (row["swapped_pairs"], row["flips"]) == (11, 6)
    assert row["flip_rate"] == pytest.approx(6 / 11)
    assert (row["favours_first"], row["favours_second"]) == (4, 1)
    # McNemar on the 2 x 2 of decisive swapped pairs: rows the verdict with x first,
    # columns with y first.
    table = np.array([[3, 4], [1, 2]])
    assert row["mcnemar_pvalue"] == pytest.approx(mcnemar(table, exact=True).pvalue)
    assert row["mcnemar_odds_ratio"] == pytest.approx(4.0)
    low, high = proportion_confint(4, 5, alpha=0.05, method="beta")
    assert row["mcnemar_ci_low"] == pytest.approx(low / (1 - low))
    assert row["mcnemar_ci_high"] == pytest.approx(high / (1 - high))


def test_flip_rate_is_one_minus_the_position_consistency() -> None:
    log = _log()
    bias = position_bias(log).table.set_index("judge")
    pc = accord.pairwise_preference_agreement(log, n_boot=0).judges.set_index("judge")
    np.testing.assert_allclose(bias["flip_rate"], 1 - pc.loc[bias.index, "position_consistency"])
    assert (bias["favours_first"] == pc.loc[bias.index, "favours_first"]).all()


def test_the_bundled_mt_bench_log() -> None:
    # 75 FastChat records (3 errors left out) become 147 judgments; records where both
    # games name model_1 then model_2 favour the first position both times: 16.
    bias = position_bias(_log()).table
    assert bias["n_judgments"].sum() == 147
    assert bias["favours_first"].sum() == 16 and bias["favours_second"].sum() == 2


def test_length_bias_win_rate_by_brute_force_and_logit_against_statsmodels() -> None:
    log = _log()
    res = length_bias(log).table.set_index("judge")
    for name, rows in log.groupby("judge"):
        decisive = rows[~rows["winner"].str.startswith("tie")]
        first_won = (decisive["winner"] == "model_a").to_numpy()
        diff = (decisive["length_a"] - decisive["length_b"]).to_numpy(dtype=float)
        longer = sum(bool(f) == (d > 0) for f, d in zip(first_won, diff, strict=True) if d != 0)
        assert res.loc[name, "longer_wins"] == longer
        assert res.loc[name, "n_decisive"] == int((diff != 0).sum())
        fit = sm.Logit(first_won.astype(float), sm.add_constant(diff)).fit(disp=0)
        assert res.loc[name, "intercept"] == pytest.approx(fit.params[0], rel=1e-8)
        assert res.loc[name, "slope"] == pytest.approx(fit.params[1], rel=1e-8)
        assert res.loc[name, "slope_se"] == pytest.approx(fit.bse[1], rel=1e-6)
        ci = fit.conf_int(alpha=0.05)
        assert res.loc[name, "slope_ci_low"] == pytest.approx(ci[1, 0], rel=1e-6)
        assert res.loc[name, "slope_ci_high"] == pytest.approx(ci[1, 1], rel=1e-6)
        assert res.loc[name, "slope_pvalue"] == pytest.approx(fit.pvalues[1], rel=1e-6)
        expected = proportion_confint(longer, int((diff != 0).sum()), method="beta")
        assert res.loc[name, "longer_win_rate_ci_low"] == pytest.approx(expected[0])


def test_logistic_fit_separation_is_nan_with_a_reason() -> None:
    x = np.array([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0])
    fit = logistic_fit(x, (x > 0).astype(float))
    assert math.isnan(fit["slope"]) and "separation" in fit["reason"]
    assert "both verdicts" in logistic_fit(x, np.ones(6))["reason"]


def test_length_bias_bad_lengths() -> None:
    log = _log()
    with pytest.raises(accord.ColumnNotFoundError):
        length_bias(log.drop(columns="length_b"))
    log["length_a"] = log["length_a"].astype(object)
    log.loc[4, "length_a"] = "long"
    with pytest.raises(InvalidInputError, match=r"'length_a' must hold a number.*row 5"):
        length_bias(log)


def test_self_preference_by_hand() -> None:
    # gpt-4 against llama on four questions; the judge 'gpt-4-judge' always prefers
    # gpt-4, the human prefers it on questions 0 and 1 only.
    rows = []
    for q in range(4):
        rows.append((q, "gpt-4", "llama", "gpt-4-judge", "model_a"))
        rows.append((q, "llama", "gpt-4", "gpt-4-judge", "model_b"))
        rows.append((q, "gpt-4", "llama", "human", "model_a" if q < 2 else "model_b"))
    rows.append((9, "llama", "alpaca", "gpt-4-judge", "model_a"))  # no own model: ignored
    log = pd.DataFrame(rows, columns=["question_id", "model_a", "model_b", "judge", "winner"])
    res = self_preference(log, "gpt-4-judge", "gpt-4")
    assert (res.n_decisive, res.own_wins, res.own_win_rate) == (8, 8, 1.0)
    assert res.pvalue == pytest.approx(binomtest(8, 8).pvalue)
    # Matched: each of the 8 judge judgments with the one human judgment of its item:
    # only the judge prefers gpt-4 on questions 2 and 3 (2 x 2 pairs), never only the human.
    assert (res.n_matched, res.judge_only, res.other_only) == (8, 4, 0)
    assert res.difference == pytest.approx(4 / 8)
    assert res.mcnemar_pvalue == pytest.approx(mcnemar([[4, 4], [0, 0]], exact=True).pvalue)
    with pytest.raises(InvalidInputError, match=r"judge_name"):
        self_preference(log, "nobody", "gpt-4")


def test_position_bias_on_a_polars_frame_equals_pandas() -> None:
    pl = pytest.importorskip("polars")
    log = _log()
    a = position_bias(log).table
    b = position_bias(pl.from_pandas(log)).table
    pd.testing.assert_frame_equal(a, b)


@settings(max_examples=10, deadline=None)
@given(st.lists(st.sampled_from(["x", "y", "tie"]), min_size=4, max_size=16), st.data())
def test_position_bias_is_invariant_to_the_names_of_the_models(
    forward: list[str], data: st.DataObject
) -> None:
    backward = data.draw(st.lists(st.sampled_from(["x", "y", "tie"]), min_size=len(forward),
                                  max_size=len(forward)))  # fmt: skip
    log = _swapped_log(list(zip(forward, backward, strict=True)))
    renamed = log.replace({"model_a": {"x": "zeta", "y": "alpha"},
                           "model_b": {"x": "zeta", "y": "alpha"}})  # fmt: skip
    a, b = position_bias(log).table, position_bias(renamed).table
    pd.testing.assert_frame_equal(a, b)
    row = a.iloc[0]
    # Every flip of a decisive pair favours one position: the two counts and the ties'
    # flips add up to the flips.
    assert row["favours_first"] + row["favours_second"] <= row["flips"]
    assert 0 <= row["first_win_rate_ci_low"] <= row["first_win_rate_ci_high"] <= 1 or (
        row["n_decisive"] == 0
    )
