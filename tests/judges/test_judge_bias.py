"""Bias tests of pairwise judges: position bias, length bias, self-preference; the exact
intervals and tests against statsmodels and scipy."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import krippendorff
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

JUDGE_PAIRS = accord.datasets.path("judge-pairs.jsonl")
RUNS = accord.datasets.path("judge-pair-runs.csv")


def _log() -> pd.DataFrame:
    return pd.read_json(JUDGE_PAIRS, lines=True)


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


def _simulated_pairs() -> tuple[list[dict[str, object]], list[str], list[int]]:
    """What ``benchmarks/make_judge_pairs.py`` writes, run from its source."""
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "make_judge_pairs.py"
    spec = importlib.util.spec_from_file_location("make_judge_pairs", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    records, runs, blind = module.simulate()
    return records, runs, blind


def test_the_bundled_simulated_log_is_what_its_script_writes() -> None:
    records, runs, _ = _simulated_pairs()
    lines = JUDGE_PAIRS.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == records
    assert RUNS.read_text(encoding="utf-8").splitlines() == runs


def _by_question(log: pd.DataFrame) -> pd.DataFrame:
    """Per question, the model preferred with model-x shown first and with model-y first."""
    named = log.assign(
        preferred=np.select(
            [log["winner"] == "model_a", log["winner"] == "model_b"],
            [log["model_a"], log["model_b"]],
            "tie",
        ),
        order=np.where(log["model_a"] == "model-x", "x_first", "y_first"),
    )
    return named.pivot(index="question_id", columns="order", values="preferred")


def test_the_bundled_simulated_log_counted_by_hand() -> None:
    # The numbers docs/judge-bias.md states, counted from the raw file and tested with
    # scipy and statsmodels.
    log = _log()
    row = position_bias(log).table.set_index("judge").loc["judge-model"]
    decisive = log[log["winner"] != "tie"]
    assert (len(log), len(decisive)) == (152, 131)
    first = int((decisive["winner"] == "model_a").sum())
    assert first == row["first_wins"] == 80
    assert row["first_win_rate_pvalue"] == pytest.approx(binomtest(80, 131).pvalue)
    low, high = proportion_confint(80, 131, alpha=0.05, method="beta")
    assert (row["first_win_rate_ci_low"], row["first_win_rate_ci_high"]) == pytest.approx(
        (low, high)
    )
    wide = _by_question(log)
    flips = wide["x_first"] != wide["y_first"]
    favours_first = (wide["x_first"] == "model-x") & (wide["y_first"] == "model-y")
    favours_second = (wide["x_first"] == "model-y") & (wide["y_first"] == "model-x")
    assert (len(wide), int(flips.sum())) == (76, 34)
    assert (int(favours_first.sum()), int(favours_second.sum())) == (15, 2)
    assert (row["swapped_pairs"], row["flips"]) == (76, 34)
    assert (row["favours_first"], row["favours_second"]) == (15, 2)
    both_x = int(((wide["x_first"] == "model-x") & (wide["y_first"] == "model-x")).sum())
    both_y = int(((wide["x_first"] == "model-y") & (wide["y_first"] == "model-y")).sum())
    table = np.array([[both_x, 15], [2, both_y]])
    assert row["mcnemar_pvalue"] == pytest.approx(mcnemar(table, exact=True).pvalue)
    assert round(float(row["mcnemar_pvalue"]), 4) == 0.0023
    # Length: the longer answer won 83 of the 131 decisive verdicts, shown first in 66.
    longer_first = decisive["length_a"] > decisive["length_b"]
    longer = int(((decisive["winner"] == "model_a") == longer_first).sum())
    assert (longer, int(longer_first.sum())) == (83, 66)
    assert round(binomtest(83, 131).pvalue, 4) == 0.0028
    diff = (decisive["length_a"] - decisive["length_b"]).to_numpy(dtype=float)
    won = (decisive["winner"] == "model_a").to_numpy(dtype=float)
    fit = sm.Logit(won, sm.add_constant(diff)).fit(disp=0)
    assert round(math.exp(fit.params[1] * diff.std(ddof=1)), 2) == 1.86
    assert round(float(fit.pvalues[1]), 4) == 0.0022


def test_the_built_in_position_bias_is_found() -> None:
    # Every pair the simulated judge judged blind (the first answer preferred in both orders)
    # is a flip that favours the first position; the judge's noise adds the rest.
    wide = _by_question(_log())
    favours_first = set(wide.index[(wide["x_first"] == "model-x") & (wide["y_first"] == "model-y")])
    _, _, blind = _simulated_pairs()
    assert set(blind) <= favours_first
    # A quarter of 76 questions, 19 in expectation (binomial sd 3.8).
    assert 10 <= len(blind) <= 28


def test_the_bundled_runs_against_krippendorff() -> None:
    runs = pd.read_csv(RUNS)
    res = accord.judge_consistency(runs, "judge-model", item="question_id", rater="judge",
                                   label="preferred", trial="order")  # fmt: skip
    wide = runs.pivot(index="order", columns="question_id", values="preferred")
    codes = {"model-x": 0.0, "model-y": 1.0, "tie": 2.0}
    data = wide.apply(lambda c: c.map(codes)).to_numpy(dtype=float)
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    row = res.table.iloc[0]
    assert row["alpha"] == pytest.approx(expected, rel=1e-12)
    assert round(float(expected), 3) == 0.27
    changed = int((wide.iloc[0] != wide.iloc[1]).sum())
    assert changed == row["n_fragile"] == 34 and row["n_items"] == 76
    assert row["flip_rate"] == pytest.approx(34 / 76)


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


def test_position_test_is_mcnemar_where_pairs_are_judged_in_both_orders() -> None:
    # Both orders judged: the paired test, McNemar's exact test on the 4 against 1
    # discordant pairs, as statsmodels' mcnemar(exact=True) and as scipy's binomtest on
    # the discordant pairs (the exact conditional binomial test).
    verdicts = ([("x", "x")] * 3 + [("y", "y")] * 2 + [("x", "y")] * 4 + [("y", "x")]
                + [("x", "tie")])  # fmt: skip
    bias = position_bias(_swapped_log(verdicts))
    row = bias.table.iloc[0]
    paired = mcnemar(np.array([[3, 4], [1, 2]]), exact=True).pvalue
    assert row["position_test"] == "mcnemar_exact"
    assert row["position_pvalue"] == pytest.approx(paired)
    assert row["position_pvalue"] == pytest.approx(binomtest(4, 5).pvalue)
    # The unpaired test on the 22 judgments differs: it is not the answer here.
    assert row["first_win_rate_pvalue"] == pytest.approx(binomtest(14, 21).pvalue)
    assert not np.isclose(row["position_pvalue"], row["first_win_rate_pvalue"])
    assert "McNemar's exact test on pairs judged in both orders" in bias._headline()


def test_position_test_is_the_unpaired_binomial_when_no_pair_is_swapped() -> None:
    # Each item judged in one order only: 7 of 9 decisive judgments prefer the first.
    rows = [(q, "x", "y", "llm", "model_a" if q < 7 else "model_b") for q in range(9)]
    rows.append((9, "x", "y", "llm", "tie"))
    log = pd.DataFrame(rows, columns=["question_id", "model_a", "model_b", "judge", "winner"])
    bias = position_bias(log)
    row = bias.table.iloc[0]
    assert row["position_test"] == "binomial_unpaired"
    assert row["n_swapped"] == 0
    assert row["position_pvalue"] == pytest.approx(binomtest(7, 9).pvalue)
    assert "exact binomial test, no pair judged in both orders" in bias._headline()


def test_position_test_with_no_discordant_pair_has_p_one_as_statsmodels() -> None:
    # Every pair keeps its verdict in both orders (3 x, 2 y): no discordant pair, and the
    # exact conditional test gives p = 1, as statsmodels' mcnemar(exact=True) on the table.
    bias = position_bias(_swapped_log([("x", "x")] * 3 + [("y", "y")] * 2))
    row = bias.table.iloc[0]
    expected = mcnemar(np.array([[3, 0], [0, 2]]), exact=True).pvalue
    assert row["position_test"] == "mcnemar_exact"
    assert (row["favours_first"], row["favours_second"]) == (0, 0)
    assert row["mcnemar_pvalue"] == pytest.approx(expected) == 1.0
    assert row["position_pvalue"] == pytest.approx(expected)
    assert math.isnan(row["mcnemar_odds_ratio"])


def test_self_preference_with_no_discordant_pair_has_p_one_as_statsmodels() -> None:
    # The judge and the human agree on every matched item (both prefer gpt-4 on 0 and 1,
    # llama on 2 and 3): no discordant pair, so McNemar's exact test gives 1 (statsmodels).
    rows = []
    for q in range(4):
        win = "model_a" if q < 2 else "model_b"
        rows.append((q, "gpt-4", "llama", "gpt-4-judge", win))
        rows.append((q, "gpt-4", "llama", "human", win))
    log = pd.DataFrame(rows, columns=["question_id", "model_a", "model_b", "judge", "winner"])
    res = self_preference(log, "gpt-4-judge", "gpt-4")
    assert (res.n_matched, res.judge_only, res.other_only) == (4, 0, 0)
    assert res.mcnemar_pvalue == mcnemar([[2, 0], [0, 2]], exact=True).pvalue == 1.0
    assert math.isnan(res.odds_ratio)


def _lengths_log(verdicts: list[tuple[str, str]], unpaired: int = 0) -> pd.DataFrame:
    """:func:`_swapped_log` with x's answer the longer (2,000 against 1,000 characters), and
    ``unpaired`` more questions judged once, x first, x preferred."""
    log = _swapped_log(verdicts)
    extra = [(len(verdicts) + q, "x", "y", "llm", "model_a") for q in range(unpaired)]
    log = pd.concat([log, pd.DataFrame(extra, columns=log.columns)], ignore_index=True)
    x_first = log["model_a"] == "x"
    return log.assign(
        length_a=np.where(x_first, 2000, 1000), length_b=np.where(x_first, 1000, 2000)
    )


def test_length_test_is_mcnemar_on_pairs_judged_in_both_orders_as_statsmodels() -> None:
    # x (the longer) preferred in both orders 5 times, y (the shorter) twice; the first
    # position both times 4 times (x then y), the second once; one pair with a tie; and 6
    # questions judged once (x first, x preferred), which the paired test leaves out.
    verdicts = ([("x", "x")] * 5 + [("y", "y")] * 2 + [("x", "y")] * 4 + [("y", "x")]
                + [("x", "tie")])  # fmt: skip
    bias = length_bias(_lengths_log(verdicts, unpaired=6))
    row = bias.table.iloc[0]
    # The 2 x 2 table of the pairs with both verdicts decisive: rows "the first answer won"
    # with the longer shown first (x first), columns the same with the longer shown second
    # (y first). First both times: 4 (x then y); longer both times: x, x -> first won, then
    # second won: 5; shorter both times: 2; second both times: 1.
    table = np.array([[4, 5], [2, 1]])
    expected = mcnemar(table, exact=True).pvalue
    assert (row["length_pairs"], row["longer_both"], row["shorter_both"]) == (12, 5, 2)
    assert row["length_test"] == "mcnemar_exact"
    assert row["length_mcnemar_pvalue"] == pytest.approx(expected, rel=1e-12)
    assert row["length_pvalue"] == pytest.approx(binomtest(5, 7).pvalue, rel=1e-12)
    assert row["length_mcnemar_odds_ratio"] == pytest.approx(5 / 2)
    low, high = proportion_confint(5, 7, alpha=0.05, method="beta")
    assert row["length_mcnemar_ci_low"] == pytest.approx(low / (1 - low))
    assert row["length_mcnemar_ci_high"] == pytest.approx(high / (1 - high))
    # The unpaired binomial test on every decisive judgment differs: longer wins
    # 5*2 + 4 + 1 + 1 (the tie's other side, x first, x won) + 6 of 12*2 + 1 + 6 = 31.
    assert (row["longer_wins"], row["n_decisive"]) == (22, 31)
    assert row["longer_win_rate_pvalue"] == pytest.approx(binomtest(22, 31).pvalue)
    assert not np.isclose(row["length_pvalue"], row["longer_win_rate_pvalue"])
    assert "McNemar's exact test on pairs judged in both orders" in bias._headline()


def test_length_test_is_the_unpaired_binomial_when_no_pair_is_swapped() -> None:
    bias = length_bias(_lengths_log([], unpaired=8).iloc[:8].assign(
        winner=["model_a"] * 6 + ["model_b"] * 2))  # fmt: skip
    row = bias.table.iloc[0]
    assert row["length_test"] == "binomial_unpaired" and row["length_pairs"] == 0
    assert row["length_pvalue"] == pytest.approx(binomtest(6, 8).pvalue)
    assert "exact binomial test, no pair judged in both orders" in bias._headline()


def test_length_test_on_the_bundled_log_counted_by_hand_as_statsmodels() -> None:
    # Each question of the simulated log is judged once in each order: the 2 x 2 table of
    # "the first answer won" with the longer answer first against second, counted here.
    log = _log()
    table = np.zeros((2, 2), dtype=int)
    for _, part in log.groupby("question_id"):
        if (part["winner"] == "tie").any() or part["length_a"].iloc[0] == part["length_b"].iloc[0]:
            continue
        longer_first = part[part["length_a"] > part["length_b"]].iloc[0]
        longer_second = part[part["length_a"] < part["length_b"]].iloc[0]
        table[
            int(longer_first["winner"] != "model_a"), int(longer_second["winner"] != "model_a")
        ] += 1
    row = length_bias(log).table.iloc[0]
    assert (row["longer_both"], row["shorter_both"]) == (table[0, 1], table[1, 0])
    assert row["length_pairs"] == table.sum()
    assert row["length_pvalue"] == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-12)
