"""The alternative annotator test (Calderon, Reichart & Dror 2025, ACL, arXiv:2501.10970).

Sources of the expected values: the paper's definition worked by hand on a small panel below
(every indicator, d, t, p, the winning rate and rho), an independent per-item loop written
from the paper's definition, and scipy for the t / Wilcoxon p-values and the
Benjamini-Yekutieli step (``scipy.stats.false_discovery_control(method="by")``).
"""

from __future__ import annotations

import io
import math
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats

import accord
from accord import InvalidInputError
from accord.judges import benjamini_yekutieli

from .._cli import cli_json


def _ratings(rows: list[tuple[object, object, object]], **kw: object) -> accord.Ratings:
    frame = pd.DataFrame(rows, columns=["item", "rater", "label"])
    return accord.Ratings.from_long(frame, item="item", rater="rater", label="label", **kw)


# A panel worked by hand: three humans (h1, h2, h3) and a judge J on six items.
#
#   item  h1 h2 h3  J
#   1     a  a  a   a
#   2     a  a  b   a
#   3     b  b  b   a
#   4     a  b  b   b
#   5     b  a  a   a
#   6     a  a  b   b
PANEL = {
    1: ("a", "a", "a", "a"),
    2: ("a", "a", "b", "a"),
    3: ("b", "b", "b", "a"),
    4: ("a", "b", "b", "b"),
    5: ("b", "a", "a", "a"),
    6: ("a", "a", "b", "b"),
}


def _panel_ratings() -> accord.Ratings:
    rows = [
        (item, rater, label)
        for item, labels in PANEL.items()
        for rater, label in zip(("h1", "h2", "h3", "J"), labels, strict=True)
    ]
    return _ratings(rows)


# Leave h1 out: the remaining humans are h2, h3; accuracy = share of them equal to the label.
#   item 1: h1 a -> 2/2, J a -> 2/2: W_h1 = 1, W_J = 1, d = 0
#   item 2: h1 a -> 1/2, J a -> 1/2: 1, 1, d = 0
#   item 3: h1 b -> 2/2, J a -> 0/2: W_h1 = 1, W_J = 0, d = 1
#   item 4: h1 a -> 0/2, J b -> 2/2: 0, 1, d = -1
#   item 5: h1 b -> 0/2, J a -> 2/2: 0, 1, d = -1
#   item 6: h1 a -> 1/2, J b -> 1/2: 1, 1, d = 0
# Leave h2 out (remaining h1, h3):
#   1: a 2/2 vs a 2/2: 1, 1, 0;  2: a 1/2 vs a 1/2: 1, 1, 0;  3: b 2/2 vs a 0/2: 1, 0, 1
#   4: b 1/2 vs b 1/2: 1, 1, 0;  5: a 1/2 vs a 1/2: 1, 1, 0;  6: a 1/2 vs b 1/2: 1, 1, 0
# Leave h3 out (remaining h1, h2):
#   1: a 2/2 vs a 2/2: 1, 1, 0;  2: b 0/2 vs a 2/2: 0, 1, -1; 3: b 2/2 vs a 0/2: 1, 0, 1
#   4: b 1/2 vs b 1/2: 1, 1, 0;  5: a 1/2 vs a 1/2: 1, 1, 0;  6: b 0/2 vs b 0/2: 1, 1, 0
HAND = {
    "h1": {"w_h": [1, 1, 1, 0, 0, 1], "w_j": [1, 1, 0, 1, 1, 1]},
    "h2": {"w_h": [1, 1, 1, 1, 1, 1], "w_j": [1, 1, 0, 1, 1, 1]},
    "h3": {"w_h": [1, 0, 1, 1, 1, 1], "w_j": [1, 1, 0, 1, 1, 1]},
}


def _hand_t(d: list[int], epsilon: float) -> tuple[float, float]:
    """t = (mean(d) - epsilon) / (sd(d) / sqrt(n)), p = P(T_{n-1} <= t)."""
    n = len(d)
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
    t = (mean - epsilon) / (sd / math.sqrt(n))
    return t, float(stats.t.cdf(t, n - 1))


def test_hand_worked_panel() -> None:
    res = accord.alt_test(_panel_ratings(), "J", epsilon=0.2, min_items_per_rater=6)
    assert isinstance(res, accord.AltTest)
    table = res.humans.set_index("human")
    pvalues = []
    for human, hand in HAND.items():
        d = [a - b for a, b in zip(hand["w_h"], hand["w_j"], strict=True)]
        assert table.loc[human, "n_items"] == 6
        assert table.loc[human, "human_wins"] == pytest.approx(np.mean(hand["w_h"]))
        assert table.loc[human, "judge_wins"] == pytest.approx(np.mean(hand["w_j"]))
        assert table.loc[human, "mean_difference"] == pytest.approx(np.mean(d))
        t, p = _hand_t(d, 0.2)
        assert table.loc[human, "statistic"] == pytest.approx(t, rel=1e-12)
        assert table.loc[human, "pvalue"] == pytest.approx(p, rel=1e-10)
        pvalues.append(p)
    # h1: d = (0,0,1,-1,-1,0): mean -1/6, sd sqrt(2.8333 / 5) = 0.75277,
    # t = -0.36667 / 0.30732 = -1.1931
    assert table.loc["h1", "statistic"] == pytest.approx(-1.19312, abs=1e-5)
    # BY over three humans: H_3 = 11/6; thresholds k * 0.05 / (3 * 11/6) = 0.00909 k.
    harmonic = 1 + 1 / 2 + 1 / 3
    sorted_p = sorted(pvalues)
    k = max(
        (i + 1 for i, p in enumerate(sorted_p) if p <= (i + 1) / 3 * 0.05 / harmonic), default=0
    )
    assert int(table["rejected"].sum()) == k
    assert res.winning_rate == pytest.approx(k / 3)
    assert res.passed == (k / 3 >= 0.5)
    rho = np.mean([np.mean(h["w_j"]) for h in HAND.values()])
    assert res.advantage_probability == pytest.approx(rho)  # (5/6 + 5/6 + 5/6) / 3
    assert res.n_items == 6 and res.n_humans == 3
    assert "epsilon = 0.2" in repr(res)


def _loop_alt_test(
    frame: pd.DataFrame, judge: str, epsilon: float, min_raters: int, min_items: int
) -> tuple[float, float, dict[str, float]]:
    """The procedure as the paper states it, one item and one human at a time."""
    humans: dict[str, dict[object, object]] = {}
    llm: dict[object, object] = {}
    for item, rater, label in frame.itertuples(index=False):
        if rater == judge:
            llm[item] = label
        else:
            humans.setdefault(rater, {})[item] = label
    raters_of: dict[object, list[str]] = {}
    for h, labels in humans.items():
        for item in labels:
            raters_of.setdefault(item, []).append(h)
    keep = {i for i, hs in raters_of.items() if len(hs) >= min_raters and i in llm}
    pvalues, rhos, pvals_by_h = [], [], {}
    for h in sorted(humans):
        items = [i for i in humans[h] if i in keep]
        if len(items) < min_items:
            continue
        wj, wh = [], []
        for i in items:
            others = [humans[o][i] for o in raters_of[i] if o != h]
            hs = np.mean([humans[h][i] == o for o in others])
            js = np.mean([llm[i] == o for o in others])
            wj.append(1 if js >= hs else 0)
            wh.append(1 if hs >= js else 0)
        d = np.array(wh, float) - np.array(wj, float)
        # The authors' code: scipy's t test, whose limit for a d without variance is p = 0
        # below epsilon and p = 1 above it (NaN, never rejected, for a d equal to epsilon).
        p = float(stats.ttest_1samp(d, epsilon, alternative="less").pvalue)
        pvalues.append(p)
        pvals_by_h[h] = p
        rhos.append(float(np.mean(wj)))
    rejected = benjamini_yekutieli(pvalues, 0.05)
    return float(rejected.sum() / len(pvalues)), float(np.mean(rhos)), pvals_by_h


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), epsilon=st.sampled_from([0.0, 0.1, 0.15, 0.2, 0.5]))
@example(seed=20706, epsilon=0.1)  # d has no variance for a human on this panel
def test_matches_the_procedure_item_by_item(seed: int, epsilon: float) -> None:
    rng = random.Random(seed)
    rows = []
    for item in range(40):
        truth = rng.choice("abc")
        for h in ("h1", "h2", "h3", "h4"):
            if rng.random() < 0.85:
                rows.append((item, h, truth if rng.random() < 0.7 else rng.choice("abc")))
        if rng.random() < 0.95:
            rows.append((item, "judge", truth if rng.random() < 0.8 else rng.choice("abc")))
    frame = pd.DataFrame(rows, columns=["item", "rater", "label"])
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wr, rho, pvals = _loop_alt_test(frame, "judge", epsilon, 2, 20)
        res = accord.alt_test(_ratings(rows), "judge", epsilon=epsilon, min_items_per_rater=20)
    assert isinstance(res, accord.AltTest)
    tested = res.humans[res.humans["tested"]].set_index("human")
    assert set(tested.index) == set(pvals)
    for h, p in pvals.items():
        if math.isnan(p):  # d = epsilon on every item: accord says p = 1 (cannot reject)
            assert tested.loc[h, "pvalue"] == 1.0
        else:
            assert tested.loc[h, "pvalue"] == pytest.approx(p, rel=1e-9, abs=1e-15)
    assert res.winning_rate == pytest.approx(wr)
    assert res.advantage_probability == pytest.approx(rho)


@settings(max_examples=60, deadline=None)
@given(
    p=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30),
    q=st.sampled_from([0.01, 0.05, 0.1, 0.25]),
)
def test_benjamini_yekutieli_matches_scipy(p: list[float], q: float) -> None:
    adjusted = stats.false_discovery_control(np.asarray(p), method="by")
    ours = benjamini_yekutieli(p, q)
    # The step-up rule and the adjusted p-values reject the same hypotheses (up to rounding
    # at the threshold itself).
    clear = np.abs(adjusted - q) > 1e-12
    assert (ours[clear] == (adjusted <= q)[clear]).all()


def test_wilcoxon_pvalue_matches_scipy() -> None:
    res = accord.alt_test(
        _panel_ratings(), "J", epsilon=0.2, min_items_per_rater=6, test="wilcoxon"
    )
    assert isinstance(res, accord.AltTest)
    table = res.humans.set_index("human")
    for human, hand in HAND.items():
        d = np.subtract(hand["w_h"], hand["w_j"]).astype(float)
        expected = stats.wilcoxon(d - 0.2, alternative="less")
        assert table.loc[human, "pvalue"] == pytest.approx(expected.pvalue)
        assert table.loc[human, "statistic"] == pytest.approx(expected.statistic)


def test_judge_copying_a_human_ties_that_human_everywhere() -> None:
    rows = [
        (i, r, lab)
        for i, labels in PANEL.items()
        for r, lab in zip(("h1", "h2", "h3"), labels[:3], strict=True)
    ]
    rows += [(i, "copy", labels[1]) for i, labels in PANEL.items()]  # copies h2
    res = accord.alt_test(_ratings(rows), "copy", epsilon=0.1, min_items_per_rater=6)
    assert isinstance(res, accord.AltTest)
    row = res.humans.set_index("human").loc["h2"]
    assert row["judge_wins"] == 1.0 and row["human_wins"] == 1.0 and row["mean_difference"] == 0
    # d is 0 on every item, below epsilon: the limit of t is -inf, p = 0, said so.
    # scipy (the authors' code): stats.ttest_1samp(np.zeros(6), 0.1, alternative="less")
    # gives statistic -inf, pvalue 0.0.
    assert row["statistic"] == -math.inf and row["pvalue"] == 0.0
    assert "below epsilon" in row["reason"]


def _agreeing_panel(judge: str) -> list[tuple[object, object, object]]:
    """30 binary items: h1-h3 give the item's label, h4 the other one, the judge copies
    h1 (``judge="copy"``) or gives the other label (``judge="contrary"``)."""
    rows: list[tuple[object, object, object]] = []
    for item in range(30):
        label, other = ("yes", "no") if item % 3 else ("no", "yes")
        rows += [(item, h, label) for h in ("h1", "h2", "h3")] + [(item, "h4", other)]
        rows.append((item, judge, label if judge == "copy" else other))
    return rows


def test_a_judge_that_ties_or_beats_every_human_on_every_item_wins() -> None:
    # Leave h1, h2 or h3 out: the judge ties them on every item (d = 0); leave h4 out: the
    # judge beats h4 on every item (d = -1). The authors' code (Calderon et al. 2025,
    # github.com/nitaytech/AltTest, alt_test_example.ipynb) runs
    # scipy.stats.ttest_1samp(d, 0.2, alternative="less"), which gives p = 0.0 for both,
    # so BY rejects all four: winning rate 1.0, rho 1.0, passed. test="wilcoxon" gives the
    # same: stats.wilcoxon(np.full(30, -0.2), alternative="less").pvalue = 2.16e-8.
    r = _ratings(_agreeing_panel("copy"))
    for test in ("t", "wilcoxon"):
        res = accord.alt_test(r, "copy", epsilon=0.2, test=test)  # type: ignore[arg-type]
        assert isinstance(res, accord.AltTest)
        assert res.winning_rate == 1.0 and res.passed and res.advantage_probability == 1.0
    res = accord.alt_test(r, "copy", epsilon=0.2)
    assert isinstance(res, accord.AltTest)
    table = res.humans.set_index("human")
    assert list(table["mean_difference"]) == [0.0, 0.0, 0.0, -1.0]
    assert (table["pvalue"] == 0.0).all() and (table["statistic"] == -math.inf).all()
    assert table.loc["h4", "reason"] == "d = -1 on every item, below epsilon: t = -inf, p = 0"


def test_a_constant_d_at_or_above_epsilon_cannot_reject() -> None:
    # The judge loses to h1-h3 on every item (d = 1) and ties h4 (both 0 of 3): d = 0.
    # scipy: ttest_1samp(np.ones(30), 0.2, alternative="less") gives t = inf, p = 1.0;
    # for d = 0 = epsilon it gives NaN (never rejected): accord says p = 1.
    res = accord.alt_test(_ratings(_agreeing_panel("contrary")), "contrary", epsilon=0.0)
    assert isinstance(res, accord.AltTest)
    table = res.humans.set_index("human")
    assert list(table["mean_difference"]) == [1.0, 1.0, 1.0, 0.0]
    assert (table["pvalue"] == 1.0).all() and not table["rejected"].any()
    assert table.loc["h1", "statistic"] == math.inf and math.isnan(table.loc["h4", "statistic"])
    assert "not below epsilon: p = 1" in table.loc["h4", "reason"]
    assert res.winning_rate == 0.0 and not res.passed


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_relabelling_and_reordering_change_nothing(seed: int) -> None:
    rng = np.random.default_rng(seed)
    rows = [
        (item, rater, label)
        for item, labels in PANEL.items()
        for rater, label in zip(("h1", "h2", "h3", "J"), labels, strict=True)
    ] * 1
    base = accord.alt_test(_ratings(rows), "J", epsilon=0.2, min_items_per_rater=6)
    mapping = {"a": "zeta", "b": "alpha"}
    shuffled = [rows[i] for i in rng.permutation(len(rows))]
    moved = [(f"item-{i * 7 % 13}", r, mapping[lab]) for i, r, lab in shuffled]
    other = accord.alt_test(_ratings(moved), "J", epsilon=0.2, min_items_per_rater=6)
    assert isinstance(base, accord.AltTest) and isinstance(other, accord.AltTest)
    cols = ["human", "n_items", "judge_wins", "human_wins", "statistic", "pvalue", "rejected"]
    pd.testing.assert_frame_equal(
        base.humans[cols].sort_values("human").reset_index(drop=True),
        other.humans[cols].sort_values("human").reset_index(drop=True),
    )


def test_neg_rmse_compares_root_mean_squared_differences() -> None:
    # Scores 1..5; leave h1 out on item 1: remaining (4, 5); h1 = 3 -> RMSE sqrt((1+4)/2),
    # the judge 4 -> sqrt((0+1)/2): the judge is closer, W_J = 1, W_h1 = 0.
    rows = [(1, "h1", 3), (1, "h2", 4), (1, "h3", 5), (1, "J", 4)]
    rows += [(2, "h1", 2), (2, "h2", 2), (2, "h3", 2), (2, "J", 5)]
    r = _ratings(rows, level="interval")
    res = accord.alt_test(r, "J", epsilon=0.1, scoring="neg_rmse", min_items_per_rater=2)

    def neg_rmse(label: float, others: list[float]) -> float:
        return -math.sqrt(sum((label - o) ** 2 for o in others) / len(others))

    custom = accord.alt_test(r, "J", epsilon=0.1, scoring=neg_rmse, min_items_per_rater=2)
    assert isinstance(res, accord.AltTest) and isinstance(custom, accord.AltTest)
    h1 = res.humans.set_index("human").loc["h1"]
    assert (h1["judge_wins"], h1["human_wins"]) == (0.5, 0.5)  # item 1 judge, item 2 h1
    cols = ["judge_wins", "human_wins"]
    pd.testing.assert_frame_equal(res.humans[cols], custom.humans[cols])
    assert custom.scoring == "neg_rmse"


def test_several_judges_are_ranked_by_advantage_probability() -> None:
    rows = [
        (i, r, lab)
        for i, labels in PANEL.items()
        for r, lab in zip(("h1", "h2", "h3"), labels[:3], strict=True)
    ]
    rows += [(i, "good", labels[1]) for i, labels in PANEL.items()]
    rows += [(i, "bad", "b" if labels[1] == "a" else "a") for i, labels in PANEL.items()]
    res = accord.alt_test(_ratings(rows), ["bad", "good"], epsilon=0.2, min_items_per_rater=6)
    assert isinstance(res, accord.AltTestRanking)
    assert list(res.table["judge"]) == ["good", "bad"]
    assert res.tests[0].advantage_probability > res.tests[1].advantage_probability
    # The judges are not in each other's panel.
    assert set(res.tests[0].humans["human"]) == {"h1", "h2", "h3"}


def test_humans_with_too_few_items_are_listed_not_tested() -> None:
    res = accord.alt_test(_panel_ratings(), "J", epsilon=0.2)  # default 30 items
    assert isinstance(res, accord.AltTest)
    assert not res.humans["tested"].any() and res.n_humans == 0
    assert math.isnan(res.winning_rate) and not res.passed
    assert res.humans["reason"].str.contains("fewer than min_items_per_rater=30").all()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"epsilon": 1.5}, "'epsilon' parameter of alt_test must be a number in [0, 1)"),
        ({"epsilon": 0.1, "q": 0}, "'q' parameter of alt_test"),
        ({"epsilon": 0.1, "test": "z"}, "'test' parameter of alt_test must be one of"),
        ({"epsilon": 0.1, "scoring": "f1"}, "'scoring' parameter of alt_test must be one of"),
        ({"epsilon": 0.1, "min_raters_per_item": 1}, "an integer >= 2"),
        ({"epsilon": 0.1, "scoring": "neg_rmse"}, "neg_rmse' needs numeric labels"),
    ],
)
def test_bad_options_are_one_line_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidInputError, match=None) as err:
        accord.alt_test(_panel_ratings(), "J", **kwargs)  # type: ignore[arg-type]
    assert message in str(err.value) and "\n" not in str(err.value)


def test_unknown_judge_names_the_raters() -> None:
    with pytest.raises(InvalidInputError, match=r"judge 'gpt' is not a rater .*'h1'"):
        accord.alt_test(_panel_ratings(), "gpt", epsilon=0.1)


# ---------------------------------------------------------------------------- accord judge

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "diagnoses.csv"
JUDGE = [
    "judge",
    str(EXAMPLE),
    "--item",
    "patient",
    "--rater",
    "rater",
    "--label",
    "diagnosis",
    "--epsilon",
    "0.15",
    "--min-items-per-rater",
    "20",
]


def test_cli_json_is_the_library_result() -> None:
    from typer.testing import CliRunner

    from accord.cli import app

    res = CliRunner().invoke(app, [*JUDGE, "--judge", "rater6", "--format", "json"])
    assert res.exit_code == 0, res.output
    payload = cli_json(res.output)
    expected = accord.alt_test(
        accord.datasets.load_diagnoses(), "rater6", epsilon=0.15, min_items_per_rater=20
    )
    assert isinstance(expected, accord.AltTest)
    assert payload["advantage_probability"] == pytest.approx(expected.advantage_probability)
    assert payload["epsilon"] == 0.15 and payload["judge"] == "rater6"
    assert [h["human"] for h in payload["humans"]] == list(expected.humans["human"])


def test_cli_table_and_csv_show_epsilon_and_every_human() -> None:
    from typer.testing import CliRunner

    from accord.cli import app

    runner = CliRunner()
    table = runner.invoke(app, [*JUDGE, "--judge", "rater5", "--judge", "rater6"])
    assert table.exit_code == 0, table.output
    assert "epsilon = 0.15" in table.output and "ranked by advantage probability" in table.output
    csv = runner.invoke(app, [*JUDGE, "--judge", "rater6", "--format", "csv"])
    assert csv.exit_code == 0
    frame = pd.read_csv(io.StringIO(csv.output))
    assert sorted(frame["human"]) == ["rater1", "rater2", "rater3", "rater4", "rater5"]
    assert (frame["epsilon"] == 0.15).all()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--judge", "gpt"], "judge 'gpt' is not a rater"),
        (["--judge", "rater6", "--epsilon", "2"], "--epsilon must be a number in [0, 1)"),
        (["--judge", "rater6", "--test", "z"], "--test must be one of t, wilcoxon"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(extra: list[str], message: str) -> None:
    from typer.testing import CliRunner

    from accord.cli import app

    res = CliRunner().invoke(app, [*JUDGE, *extra])
    assert res.exit_code == 2
    assert message in res.output and "Traceback" not in res.output
