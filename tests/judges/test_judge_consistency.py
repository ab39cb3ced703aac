"""judge_consistency: a judge's test-retest agreement over runs, flip rates, the humans
beside it, and the alt-test of its majority label."""

from __future__ import annotations

import math
import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

import accord
from accord import InvalidInputError
from accord.judges.consistency import judge_consistency

# Worked by hand: a judge run three times on four items flips on item 3 (a, b, a); two
# humans (h1: a b a b, h2: a b b b).
RUNS = pd.DataFrame(
    {
        "item": [1, 2, 3, 4] * 3,
        "rater": "llm",
        "trial": [1] * 4 + [2] * 4 + [3] * 4,
        "label": list("abab") + list("abbb") + list("abab"),
    }
)
HUMANS = pd.DataFrame(
    {
        "item": [1, 2, 3, 4] * 2,
        "rater": ["h1"] * 4 + ["h2"] * 4,
        "trial": 1,
        "label": list("abab") + list("abbb"),
    }
)


def _simulated(
    n_items: int = 60, n_runs: int = 4, n_humans: int = 3, seed: int = 0
) -> pd.DataFrame:
    """A judge that keeps the item's truth with probability 0.8 per run; humans 0.85."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n_items)
    rows = []
    for run in range(n_runs):
        keep = rng.random(n_items) < 0.8
        labels = np.where(keep, truth, rng.integers(0, 3, n_items))
        rows += [(i, "llm", run + 1, int(v)) for i, v in enumerate(labels)]
    for h in range(n_humans):
        keep = rng.random(n_items) < 0.85
        labels = np.where(keep, truth, rng.integers(0, 3, n_items))
        rows += [(i, f"h{h}", 1, int(v)) for i, v in enumerate(labels)]
    return pd.DataFrame(rows, columns=["item", "rater", "trial", "label"])


def test_hand_computed_alpha_and_flip_rates() -> None:
    res = judge_consistency(pd.concat([RUNS, HUMANS]), "llm")
    judge, humans = res.table.iloc[0], res.table.iloc[1]
    # Judge: N = 12 values (a: 5, b: 7); only item 3 disagrees: o_ab = o_ba = 2*1/2 = 1.
    # D_o = 2/12, D_e = 2*5*7/(12*11); alpha = 1 - D_o/D_e.
    assert judge["alpha"] == pytest.approx(1 - (2 / 12) / (70 / 132))
    # Humans: N = 8 (a: 3, b: 5); item 3 disagrees: D_o = 2/8, D_e = 30/56.
    assert humans["alpha"] == pytest.approx(1 - (2 / 8) / (30 / 56))
    assert (judge["kind"], humans["kind"]) == ("intra-rater (runs)", "inter-rater")
    assert (judge["n_runs"], humans["n_runs"], judge["n_items"]) == (3, 2, 4)
    # Item 3: labels a, b, a: 1 - (2*1 + 0)/(3*2) = 2/3 of the pairs of runs disagree.
    items = res.items.set_index("item")
    assert items.loc[3, "flip_rate"] == pytest.approx(2 / 3)
    assert items.loc[3, "majority"] == "a" and items.loc[3, "majority_share"] == pytest.approx(
        2 / 3
    )
    assert (items.loc[[1, 2, 4], "flip_rate"] == 0).all()
    assert res.items["item"].iloc[0] == 3  # the fragile item first
    assert judge["flip_rate"] == pytest.approx(1 / 4)
    assert judge["mean_pair_disagreement"] == pytest.approx((2 / 3) / 4)
    assert judge["n_fragile"] == 1 and res.fragile()["item"].tolist() == [3]
    assert math.isnan(judge["icc"])


def test_repeated_labels_with_a_trial_are_data_not_duplicates() -> None:
    # The same (item, rater) labelled three times: refused as ratings, read with a trial.
    with pytest.raises(InvalidInputError, match=r"duplicate|more than once|twice"):
        accord.Ratings.from_long(RUNS, item="item", rater="rater", label="label")
    res = judge_consistency(RUNS, "llm")
    assert res.table["n_runs"].iloc[0] == 3 and len(res.table) == 1


def test_against_krippendorff_and_statsmodels_on_the_reshaped_runs() -> None:
    data = _simulated()
    res = judge_consistency(data, "llm")
    runs = data[data["rater"] == "llm"].pivot(index="trial", columns="item", values="label")
    expected = krippendorff.alpha(
        reliability_data=runs.to_numpy(dtype=float), level_of_measurement="nominal"
    )
    assert res.table["alpha"].iloc[0] == pytest.approx(expected, rel=1e-12)
    counts, _ = aggregate_raters(runs.T.to_numpy())
    assert res.table["kappa"].iloc[0] == pytest.approx(fleiss_kappa(counts), rel=1e-12)
    humans = data[data["rater"] != "llm"].pivot(index="rater", columns="item", values="label")
    expected_h = krippendorff.alpha(
        reliability_data=humans.to_numpy(dtype=float), level_of_measurement="nominal"
    )
    assert res.table["alpha"].iloc[1] == pytest.approx(expected_h, rel=1e-12)
    # The intervals are those of accord's own estimators on the reshaped data.
    ratings = accord.Ratings.from_long(
        data[data["rater"] == "llm"], item="item", rater="trial", label="label"
    )
    ci = accord.krippendorff_alpha(ratings).confidence_interval(0.9)
    res90 = judge_consistency(data, "llm", confidence_level=0.9)
    assert res90.table["alpha_ci_low"].iloc[0] == pytest.approx(ci.low)
    assert res90.table["alpha_ci_high"].iloc[0] == pytest.approx(ci.high)


def test_flip_rate_by_brute_force() -> None:
    data = _simulated(n_items=30, n_runs=5, seed=3)
    res = judge_consistency(data, "llm")
    for item, group in data[data["rater"] == "llm"].groupby("item"):
        labels = group["label"].tolist()
        pairs = [(a, b) for i, a in enumerate(labels) for b in labels[i + 1 :]]
        expected = sum(a != b for a, b in pairs) / len(pairs)
        got = res.items.set_index("item").loc[item, "flip_rate"]
        assert got == pytest.approx(expected)


def test_scores_use_the_intrarater_icc() -> None:
    rng = np.random.default_rng(5)
    true = rng.normal(size=25)
    rows = [(i, "llm", t, float(true[i] + rng.normal(scale=0.3) + 0.1 * t))
            for t in range(3) for i in range(25)]  # fmt: skip
    rows += [(i, h, 0, float(true[i] + rng.normal(scale=0.5))) for h in "xy" for i in range(25)]
    data = pd.DataFrame(rows, columns=["item", "rater", "trial", "label"])
    res = judge_consistency(data, "llm", level="interval")
    expected = accord.intrarater_icc(data[data["rater"] == "llm"], score="label")["llm"]["ICC(A,1)"]
    assert res.table["icc"].iloc[0] == pytest.approx(expected.statistic, rel=1e-10)
    ci = expected.confidence_interval(0.95)
    assert res.table["icc_ci_low"].iloc[0] == pytest.approx(ci.low, rel=1e-10)
    assert math.isnan(res.table["kappa"].iloc[0])
    # The majority at interval level is the mean over the runs.
    means = data[data["rater"] == "llm"].groupby("item")["label"].mean()
    got = res.items.set_index("item")["majority"].sort_index()
    np.testing.assert_allclose(got.to_numpy(dtype=float), means.to_numpy())


def test_alt_test_of_the_majority_equals_alt_test_on_the_majority_ratings() -> None:
    data = _simulated(n_items=80, n_runs=5, n_humans=4, seed=7)
    # Items 0-9 judged once: not in the item table, but their label is the judge's.
    once = (data["rater"] == "llm") & (data["item"] < 10) & (data["trial"] > 1)
    data = data[~once]
    res = judge_consistency(data, "llm", epsilon=0.15)
    assert set(res.items["item"]) == set(range(10, 80))
    judge = data[data["rater"] == "llm"]
    # The modal label, ties going to the label of the earliest run among the tied.
    majority = []
    for item, group in judge.sort_values("trial").groupby("item"):
        counts = group["label"].value_counts()
        top = counts[counts == counts.max()].index
        first = next(v for v in group["label"] if v in set(top))
        majority.append((item, "llm", first))
    frame = pd.concat(
        [
            data[data["rater"] != "llm"][["item", "rater", "label"]],
            pd.DataFrame(majority, columns=["item", "rater", "label"]),
        ]
    )
    ratings = accord.Ratings.from_long(frame, item="item", rater="rater", label="label")
    expected = accord.alt_test(ratings, "llm", epsilon=0.15)
    assert res.alt_test is not None
    assert res.alt_test.winning_rate == expected.winning_rate  # type: ignore[union-attr]
    pd.testing.assert_frame_equal(res.alt_test.humans, expected.humans)  # type: ignore[union-attr]


def test_bad_input() -> None:
    with pytest.raises(InvalidInputError, match="no rows of judge 'gpt'"):
        judge_consistency(RUNS, "gpt")
    twice = pd.concat([RUNS, RUNS.iloc[:1]])
    with pytest.raises(InvalidInputError, match="trial"):
        judge_consistency(twice, "llm")
    with pytest.raises(InvalidInputError, match="'level' parameter of judge_consistency"):
        judge_consistency(RUNS, "llm", level="nominl")  # type: ignore[arg-type]
    with pytest.raises(accord.ColumnNotFoundError):
        judge_consistency(RUNS, "llm", trial="run")
    with pytest.raises(InvalidInputError, match="no rater but the judges"):
        judge_consistency(RUNS, "llm", epsilon=0.1)
    humans_twice = pd.concat([RUNS, HUMANS, HUMANS.iloc[:1].assign(trial=2)])
    with pytest.raises(InvalidInputError, match="'h1' labelled item 1 more than once"):
        judge_consistency(humans_twice, "llm")


def test_one_run_is_nan_with_a_reason() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = judge_consistency(RUNS[RUNS["trial"] == 1], "llm")
    assert math.isnan(res.table["alpha"].iloc[0]) and res.reason
    assert any(issubclass(w.category, accord.DegenerateDataWarning) for w in caught)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000), st.permutations([1, 2, 3, 4]))
def test_invariant_to_the_names_of_the_runs(seed: int, names: list[int]) -> None:
    data = _simulated(n_items=12, n_runs=4, n_humans=2, seed=seed)
    renamed = data.assign(trial=data["trial"].map(dict(zip([1, 2, 3, 4], names, strict=True))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", accord.DegenerateDataWarning)
        a, b = judge_consistency(data, "llm"), judge_consistency(renamed, "llm")
    cols = ["alpha", "kappa", "flip_rate", "mean_pair_disagreement", "n_fragile"]
    pd.testing.assert_frame_equal(a.table[cols], b.table[cols])
    assert ((a.items["flip_rate"] >= 0) & (a.items["flip_rate"] <= 1)).all()


def test_majority_over_runs_folds_each_judge_item_to_one_row() -> None:
    from accord.judges.consistency import majority_over_runs

    # Item 1: b twice, a once -> b. Item 2: a and b once each, a tie -> the label of the
    # earliest run (trial 1 holds b, listed after trial 2's a). Item 3: one run.
    rows = pd.DataFrame(
        {
            "item": [1, 1, 1, 2, 2, 3, 1, 2],
            "rater": ["llm"] * 6 + ["h1", "h1"],
            "trial": [1, 2, 3, 2, 1, 1, 1, 1],
            "label": ["a", "b", "b", "a", "b", "c", "a", "b"],
            "when": ["t1", "t2", "t3", "t5", "t4", "t6", "h", "h"],
        }
    )
    out = majority_over_runs(rows, "llm")
    judge = out[out["rater"] == "llm"].set_index("item")
    assert judge["label"].to_dict() == {1: "b", 2: "b", 3: "c"}
    # The row kept is the earliest run's: its other columns are that run's.
    assert judge["when"].to_dict() == {1: "t1", 2: "t4", 3: "t6"}
    assert out[out["rater"] == "h1"]["label"].tolist() == ["a", "b"]
    # The alt-test of judge_consistency reads the same majority labels.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", accord.DegenerateDataWarning)  # one human
        res = judge_consistency(rows, "llm")
    assert res.items.set_index("item")["majority"].to_dict() == {1: "b", 2: "b"}
    # Scores: the mean over the runs.
    scores = rows.assign(label=[1.0, 2.0, 4.0, 3.0, 5.0, 7.0, 1.0, 2.0])
    means = majority_over_runs(scores, "llm", level="interval")
    assert means[means["rater"] == "llm"]["label"].tolist() == [7 / 3, 4.0, 7.0]


def test_the_bundled_runs_are_what_their_script_writes() -> None:
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "make_judge_runs.py"
    spec = importlib.util.spec_from_file_location("make_judge_runs", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    lines, hard = module.simulate()
    bundled = accord.datasets.path("judge-runs.csv")
    assert bundled.read_text(encoding="utf-8").splitlines() == lines
    # The judge's labels flip only where the script made the item hard, or by the 3% of
    # errors on the easy ones; counted from the file.
    frame = pd.read_csv(bundled)
    judge = frame[frame["rater"] == "judge"]
    flipped = set(judge.groupby("item")["verdict"].nunique().loc[lambda n: n > 1].index)
    assert len(flipped & set(hard)) > len(flipped - set(hard))
    assert bundled.stat().st_size < 200_000
