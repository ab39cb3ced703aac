"""judge_agreement (the judge beside the humans) and marginal_homogeneity (Stuart-Maxwell,
Bhapkar, McNemar)."""

from __future__ import annotations

import io
import math
import warnings
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.contingency_tables import SquareTable, mcnemar

import accord
from accord import InvalidInputError
from accord.agreement import inference
from tests.judges.test_judges import EXAMPLE as DIAGNOSES
from tests.judges.test_judges import JUDGE as ALT_TEST_ARGS

from .._cli import cli_json

# A panel worked by hand: three humans and a judge on four items.
#            item 1  2  3  4
PANEL = {
    "ann": list("abab"),
    "bob": list("abbb"),
    "cy": list("bbaa"),
    "llm": list("abab"),  # the judge copies ann
}


def _ratings(panel: dict[str, list[object]], **kwargs: object) -> accord.Ratings:
    rows = [
        (item, rater, label)
        for rater, labels in panel.items()
        for item, label in enumerate(labels, start=1)
        if label is not None
    ]
    frame = pd.DataFrame(rows, columns=["item", "rater", "label"])
    return accord.Ratings.from_long(frame, item="item", rater="rater", label="label", **kwargs)


def _quiet(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# ------------------------------------------------------------------ the hand-worked panel


def test_pairwise_kappas_by_hand() -> None:
    res = accord.judge_agreement(_ratings(PANEL), "llm", n_boot=200, rng=0)
    # By hand: kappa = (po - pe) / (1 - pe) from each pair's 2 x 2 table.
    # ann-bob: agree on 3 of 4; marginals ann (1/2, 1/2), bob (1/4, 3/4): pe = 1/2 -> 0.5.
    # ann-cy: agree on 2 of 4; marginals (1/2, 1/2) both: pe = 1/2 -> 0.
    # bob-cy: agree on 1 of 4; bob (1/4, 3/4), cy (1/2, 1/2): pe = 1/2 -> -0.5.
    # The judge copies ann: llm-ann 1, llm-bob 0.5, llm-cy 0.
    by_pair = {
        (a, b): k for a, b, k in res.pairs[["rater_a", "rater_b", "kappa"]].itertuples(False)
    }
    hand = {
        ("ann", "bob"): 0.5,
        ("ann", "cy"): 0.0,
        ("bob", "cy"): -0.5,
        ("llm", "ann"): 1.0,
        ("llm", "bob"): 0.5,
        ("llm", "cy"): 0.0,
    }
    assert by_pair == pytest.approx(hand, abs=1e-12)
    for (a, b), kappa in by_pair.items():  # the peer: sklearn
        assert kappa == pytest.approx(cohen_kappa_score(PANEL[a], PANEL[b]), abs=1e-12)
    assert res.judge_human == pytest.approx((1.0 + 0.5 + 0.0) / 3)
    assert res.human_human == pytest.approx((0.5 + 0.0 - 0.5) / 3)
    assert res.difference == pytest.approx(0.5)
    assert res.humans["human_kappa"].tolist() == pytest.approx([0.25, 0.0, -0.25])
    assert res.n_items == 4 and res.n_items_left_out == 0 and res.weights == "identity"


def test_weighted_at_ordinal_level_against_sklearn() -> None:
    rng = np.random.default_rng(3)
    panel = {name: rng.integers(1, 5, 40).tolist() for name in ("h1", "h2", "h3", "judge")}
    r = _ratings(panel, level="ordinal", categories=[1, 2, 3, 4])
    res = accord.judge_agreement(r, "judge", n_boot=0)
    assert res.weights == "quadratic"
    for a, b, kappa in res.pairs[["rater_a", "rater_b", "kappa"]].itertuples(False):
        peer = cohen_kappa_score(panel[a], panel[b], weights="quadratic")
        assert kappa == pytest.approx(peer, rel=1e-10)
    linear = accord.judge_agreement(r, "judge", weights="linear", n_boot=0)
    peer = np.mean(
        [
            cohen_kappa_score(panel["judge"], panel[h], weights="linear")
            for h in panel
            if h != "judge"
        ]
    )
    assert linear.judge_human == pytest.approx(peer, rel=1e-10)
    # alpha at the ratings' level, as krippendorff_alpha gives it on the humans
    humans = r.subset(r.rater_codes != list(r.raters).index("judge"))
    assert res.alpha == pytest.approx(accord.krippendorff_alpha(humans).statistic, rel=1e-12)
    assert res.alpha_level == "ordinal"


def _weighted_kappa_by_hand(a: list[int], b: list[int], w: np.ndarray) -> float:
    """Cohen's weighted kappa from its definition: (po - pe) / (1 - pe), both weighted."""
    q = w.shape[0]
    table = np.zeros((q, q))
    for i, j in zip(a, b, strict=True):
        table[i - 1, j - 1] += 1
    p = table / table.sum()
    po = float((w * p).sum())
    pe = float((w * np.outer(p.sum(1), p.sum(0))).sum())
    return (po - pe) / (1 - pe)


def test_power_and_circular_weights_as_agreement_takes_them() -> None:
    # Warrens (2014): power:1 is linear, power:2 quadratic (sklearn); Warrens & Pratiwi
    # (2016): circular:u weighs neighbours on the circle of 4 categories u, the rest 0.
    rng = np.random.default_rng(11)
    panel = {name: rng.integers(1, 5, 40).tolist() for name in ("h1", "h2", "h3", "judge")}
    r = _ratings(panel, level="ordinal", categories=[1, 2, 3, 4])
    for scheme, peer_weights in (("power:1", "linear"), ("power:2", "quadratic")):
        res = accord.judge_agreement(r, "judge", weights=scheme, n_boot=0)
        peer = np.mean([cohen_kappa_score(panel["judge"], panel[h], weights=peer_weights)
                        for h in ("h1", "h2", "h3")])  # fmt: skip
        assert res.weights == scheme
        assert res.judge_human == pytest.approx(peer, rel=1e-10)
    u = 0.5
    w = np.array([[1, u, 0, u], [u, 1, u, 0], [0, u, 1, u], [u, 0, u, 1]])
    res = accord.judge_agreement(r, "judge", weights="circular:0.5", n_boot=0)
    by_hand = np.mean([_weighted_kappa_by_hand(panel["judge"], panel[h], w)
                       for h in ("h1", "h2", "h3")])  # fmt: skip
    assert res.judge_human == pytest.approx(by_hand, rel=1e-10)
    assert res.weights == "circular:0.5"
    with pytest.raises(InvalidInputError, match="circular weights of judge_agreement must be"):
        accord.judge_agreement(r, "judge", weights="circular:1.5", n_boot=0)
    with pytest.raises(InvalidInputError, match="'weights' parameter of judge_agreement"):
        accord.judge_agreement(r, "judge", weights="power", n_boot=0)


def test_bootstrap_interval_contains_estimate_and_is_reproducible() -> None:
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 3, 60)
    panel = {
        name: np.where(rng.random(60) < 0.7, truth, rng.integers(0, 3, 60)).tolist()
        for name in ("h1", "h2", "h3", "h4", "judge")
    }
    r = _ratings(panel)
    a = accord.judge_agreement(r, "judge", n_boot=300, rng=11)
    b = accord.judge_agreement(r, "judge", n_boot=300, rng=11)
    c = accord.judge_agreement(r, "judge", n_boot=300, rng=12)
    for value, ci in (
        (a.judge_human, a.judge_human_interval),
        (a.human_human, a.human_human_interval),
        (a.difference, a.difference_interval),
    ):
        assert ci.low <= value <= ci.high
    assert a.difference_interval == b.difference_interval
    assert a.humans.equals(b.humans)
    assert a.difference_interval != c.difference_interval
    changes = a.humans
    assert np.all(changes["alpha_change_low"] <= changes["alpha_change"])
    assert np.all(changes["alpha_change"] <= changes["alpha_change_high"])


def test_judge_in_a_seat_is_the_alpha_of_that_panel() -> None:
    r = _ratings(PANEL)
    res = accord.judge_agreement(r, "llm", n_boot=0)
    # bob's seat taken by the judge: the humans ann, llm (as bob), cy
    seated = _ratings({"ann": PANEL["ann"], "bob": PANEL["llm"], "cy": PANEL["cy"]})
    humans = _ratings({k: v for k, v in PANEL.items() if k != "llm"})
    row = res.humans.set_index("human").loc["bob"]
    alpha = accord.krippendorff_alpha(seated).statistic
    assert row["alpha_with_judge"] == pytest.approx(alpha, rel=1e-12)
    assert row["alpha_change"] == pytest.approx(alpha - accord.krippendorff_alpha(humans).statistic)
    assert row["fleiss_with_judge"] == pytest.approx(accord.fleiss_kappa(seated).statistic)
    assert res.fleiss_kappa == pytest.approx(accord.fleiss_kappa(humans).statistic)
    assert math.isnan(row["alpha_change_low"])  # n_boot=0: no interval


def test_consensus_ties_are_left_out_and_gold() -> None:
    panel = {
        "h1": list("aabbc"),
        "h2": list("abbbc"),
        "h3": [None, "b", "a", "c", "c"],  # item 1: a, a; item 2: a, b, b
        "h4": [None, "a", None, None, "b"],  # item 2: a, b, b, a -> tied; item 5: c, c, c, b
        "judge": list("abbca"),
    }
    r = _ratings(panel)
    res = accord.judge_agreement(r, "judge", n_boot=0, gold={1: "a", 2: "b", 3: "a", 5: "c"})
    # majority: item 1 a, item 2 tied (a, b, b, a), item 3 b (b, b, a), item 4 b (b, b, c),
    # item 5 c: the judge says a, -, b, c, a -> 3 of 4 items left after the tie... by hand:
    # item 1 a=a, item 3 b=b, item 4 b!=c, item 5 c!=a: accuracy 2/4.
    con = res.consensus
    assert con.n_items == 4 and con.n_left_out == 1
    assert con.accuracy == pytest.approx(0.5)
    expected = pd.DataFrame(
        [[1, 0, 0], [0, 1, 1], [1, 0, 0]], index=list("abc"), columns=list("abc")
    )
    assert np.array_equal(con.confusion.to_numpy(), expected.to_numpy())
    # gold: items 1 a=a, 2 b=b, 3 a!=b, 5 c!=a; item 4 has none
    assert res.gold is not None
    assert res.gold.n_items == 4 and res.gold.n_left_out == 1
    assert res.gold.accuracy == pytest.approx(0.5)
    assert res.to_dict()["gold"]["confusion"]["categories"] == ["a", "b", "c"]


def test_items_without_two_humans_are_left_out() -> None:
    panel = dict(PANEL)
    panel = {k: [*v, "a"] for k, v in panel.items()}
    panel["bob"][-1] = None
    panel["cy"][-1] = None  # item 5: ann and the judge only
    res = accord.judge_agreement(_ratings(panel), "llm", n_boot=0)
    assert res.n_items == 4 and res.n_items_left_out == 1
    assert res.difference == pytest.approx(0.5)


# ------------------------------------------------------------------------------ properties

_PANELS = st.integers(5, 25).flatmap(
    lambda n: st.lists(
        st.lists(st.sampled_from("xyz"), min_size=n, max_size=n), min_size=3, max_size=4
    )
)


@settings(max_examples=25, deadline=None)
@given(_PANELS, st.integers(0, 3))
def test_judge_copying_a_human_agrees_as_that_human(columns: list[list[str]], which: int) -> None:
    assume(len({v for col in columns for v in col}) >= 2)
    panel = {f"h{i}": col for i, col in enumerate(columns)}
    copied = f"h{which % len(columns)}"
    panel["judge"] = list(panel[copied])
    res = _quiet(accord.judge_agreement, _ratings(panel), "judge", n_boot=50, rng=0)
    pairs = res.pairs
    human_pairs = {
        frozenset((a, b)): k
        for a, b, k in pairs.loc[
            pairs["kind"] == "human-human", ["rater_a", "rater_b", "kappa"]
        ].itertuples(False)
    }
    for h, kappa in zip(res.humans["human"], res.humans["judge_kappa"], strict=True):
        if h == copied:
            assert math.isnan(kappa) or kappa == pytest.approx(1.0, abs=1e-12)
        else:
            expected = human_pairs[frozenset((copied, h))]
            assert kappa == pytest.approx(expected, abs=1e-12, nan_ok=True)
    row = res.humans.set_index("human").loc[copied]
    if math.isfinite(row["alpha_change"]):
        assert row["alpha_change"] == pytest.approx(0.0, abs=1e-12)
        if math.isfinite(row["alpha_change_low"]):
            assert row["alpha_change_low"] == pytest.approx(0.0, abs=1e-12)
            assert row["alpha_change_high"] == pytest.approx(0.0, abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(_PANELS, st.permutations(["p", "q", "r"]))
def test_relabelling_nominal_labels_changes_nothing(
    columns: list[list[str]], names: list[str]
) -> None:
    assume(len({v for col in columns for v in col}) >= 2)
    panel = {f"h{i}": col for i, col in enumerate(columns)}
    panel["judge"] = list(reversed(columns[0]))
    rename = dict(zip("xyz", names, strict=True))
    renamed = {k: [rename[v] for v in col] for k, col in panel.items()}
    a = _quiet(accord.judge_agreement, _ratings(panel), "judge", n_boot=50, rng=5)
    b = _quiet(accord.judge_agreement, _ratings(renamed), "judge", n_boot=50, rng=5)
    for field in ("judge_human", "human_human", "difference", "alpha", "fleiss_kappa"):
        assert getattr(b, field) == pytest.approx(getattr(a, field), abs=1e-12, nan_ok=True)
    for field in ("judge_human_interval", "difference_interval"):
        assert tuple(getattr(b, field)) == pytest.approx(
            tuple(getattr(a, field)), abs=1e-12, nan_ok=True
        )
    cols = ["judge_kappa", "human_kappa", "alpha_change", "alpha_change_low", "alpha_change_high"]
    assert np.allclose(b.humans[cols], a.humans[cols], atol=1e-12, equal_nan=True)
    assert b.consensus.accuracy == pytest.approx(a.consensus.accuracy, nan_ok=True)
    assert b.consensus.homogeneity.statistic == pytest.approx(
        a.consensus.homogeneity.statistic, rel=1e-9, nan_ok=True
    )


# ------------------------------------------------------------------------------ bad input


def test_bad_input() -> None:
    r = _ratings(PANEL)
    with pytest.raises(InvalidInputError, match="judge 'gpt' is not a rater"):
        accord.judge_agreement(r, "gpt")
    with pytest.raises(InvalidInputError, match="at least two humans"):
        accord.judge_agreement(r, "llm", humans=["ann"])
    with pytest.raises(InvalidInputError, match="'weights' parameter of judge_agreement"):
        accord.judge_agreement(r, "llm", weights="quadratc")
    with pytest.raises(InvalidInputError, match="'n_boot' parameter of judge_agreement"):
        accord.judge_agreement(r, "llm", n_boot=-1)
    with pytest.raises(InvalidInputError, match="'confidence_level' parameter"):
        accord.judge_agreement(r, "llm", confidence_level=95)
    with pytest.raises(InvalidInputError, match="at least two categories"):
        accord.judge_agreement(_ratings({k: ["a"] * 3 for k in "xyz"}), "z")
    with pytest.raises(InvalidInputError, match="gold: label 'z' of item 1"):
        accord.judge_agreement(r, "llm", gold={1: "z"})
    lonely = _ratings({"a": ["x", "y", None], "b": ["x", None, "y"], "j": [None, "y", "y"]})
    with pytest.raises(InvalidInputError, match="no item is rated by judge 'j' and at least two"):
        accord.judge_agreement(lonely, "j")


# ------------------------------------------------------------------- marginal homogeneity

TABLES = [
    [[20, 3, 4], [5, 30, 2], [9, 1, 12]],
    [[10, 2, 0, 1], [4, 15, 3, 0], [1, 5, 8, 2], [0, 1, 6, 9]],
    [[31, 8], [2, 40]],
]


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("method", ["stuart_maxwell", "bhapkar"])
def test_marginal_homogeneity_against_statsmodels(table: list[list[int]], method: str) -> None:
    res = accord.marginal_homogeneity(table, method=method)
    peer = SquareTable(np.asarray(table), shift_zeros=False).homogeneity(method=method)
    assert res.statistic == pytest.approx(peer.statistic, rel=1e-10)
    assert res.pvalue == pytest.approx(peer.pvalue, rel=1e-9)
    assert res.df == peer.df


@pytest.mark.parametrize("b, c", [(8, 2), (3, 12), (5, 5), (1, 0)])
def test_mcnemar_against_statsmodels(b: int, c: int) -> None:
    table = [[30, b], [c, 25]]
    asym = accord.marginal_homogeneity(table)
    peer = mcnemar(np.asarray(table), exact=False, correction=False)
    assert asym.method == "mcnemar"
    assert asym.statistic == pytest.approx(peer.statistic, rel=1e-12)
    assert asym.pvalue == pytest.approx(peer.pvalue, rel=1e-10)
    assert asym.statistic == pytest.approx((b - c) ** 2 / (b + c))  # by hand
    exact = accord.marginal_homogeneity(table, exact=True)
    peer_exact = mcnemar(np.asarray(table), exact=True)
    assert exact.method == "mcnemar_exact"
    assert exact.statistic == peer_exact.statistic
    assert exact.pvalue == pytest.approx(peer_exact.pvalue, rel=1e-10)
    assert asym.differences.tolist() == [c - b, b - c]  # column minus row marginal


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 5).flatmap(
        lambda q: st.lists(st.integers(1, 30), min_size=q * q, max_size=q * q)
    )
)
def test_stuart_maxwell_random_tables(cells: list[int]) -> None:
    q = round(len(cells) ** 0.5)
    table = np.asarray(cells).reshape(q, q)
    res = accord.marginal_homogeneity(table)
    peer = SquareTable(table, shift_zeros=False).homogeneity()
    assert res.statistic == pytest.approx(peer.statistic, rel=1e-8, abs=1e-10)
    # the test is symmetric in the two raters
    assert accord.marginal_homogeneity(table.T).statistic == pytest.approx(
        res.statistic, rel=1e-8, abs=1e-10
    )


def test_marginal_homogeneity_edge_cases() -> None:
    with pytest.warns(accord.DegenerateDataWarning, match="never disagree"):
        res = accord.marginal_homogeneity([[5, 0], [0, 7]])
    assert math.isnan(res.statistic) and res.reason
    # an unused category is left out: a 3 x 3 table with an empty third category is 2 x 2
    res = accord.marginal_homogeneity([[30, 8, 0], [2, 25, 0], [0, 0, 0]])
    assert res.categories == (0, 1) and res.method == "mcnemar" and res.df == 1
    with pytest.raises(InvalidInputError, match="'method' parameter of marginal_homogeneity"):
        accord.marginal_homogeneity(TABLES[0], method="stuart")
    with pytest.raises(InvalidInputError, match="exact=True is McNemar's test of two categories"):
        accord.marginal_homogeneity(TABLES[0], exact=True)
    labels = accord.marginal_homogeneity(["a", "b", "b", "a"], ["a", "a", "b", "b"])
    assert labels.n == 4 and labels.statistic == pytest.approx(0.0)


# irrCAC's data set cont3x3abstractors (tests/reference/many_raters.json, "abstractors").
ABSTRACTORS = [[13, 0, 0], [0, 20, 7], [0, 4, 56]]


def test_a_category_used_only_on_the_diagonal_is_left_out() -> None:
    # The first category is given only when both abstractors agree: it adds 0 to d and a
    # zero row and column to V. Dropped (Maxwell 1970), the test is on rank(V) = 1 df and
    # is McNemar's on the other two categories, by hand (7 - 4)^2 / 11 = 0.81818,
    # p = P(chi2_1 > 0.81818) = 0.36571; statsmodels on that 2 x 2 block:
    # SquareTable([[20, 7], [4, 56]]).homogeneity() -> 0.8181818, df 1, p 0.3657123.
    res = accord.marginal_homogeneity(ABSTRACTORS)
    assert res.statistic == pytest.approx(9 / 11, rel=1e-12) and res.df == 1
    assert res.pvalue == pytest.approx(0.3657122963, rel=1e-8)
    assert res.reason is None and res.left_out == (0,) and res.categories == (0, 1, 2)
    assert "p = 0.3657; left out: 0 (diagonal only)" in repr(res)
    assert list(res.to_dict()["left_out"]) == [0]
    # Bhapkar keeps all n = 100 items: W = SM / (1 - SM / n) (Bhapkar 1966; the identity
    # holds for every table) = 0.81818 / (1 - 0.0081818) = 0.82493. statsmodels on the
    # 87 items of the 2 x 2 block gives 0.82595: it conditions on the dropped items.
    bhapkar = accord.marginal_homogeneity(ABSTRACTORS, method="bhapkar")
    assert bhapkar.statistic == pytest.approx((9 / 11) / (1 - 9 / 11 / 100), rel=1e-12)
    assert bhapkar.df == 1 and bhapkar.left_out == (0,)
    # Where nothing is left out, the same identity against the statsmodels values above.
    methods = ("stuart_maxwell", "bhapkar")
    sm, bh = (accord.marginal_homogeneity(TABLES[0], method=m) for m in methods)
    assert bh.statistic == pytest.approx(sm.statistic / (1 - sm.statistic / 86), rel=1e-10)
    assert sm.left_out == ()


# ------------------------------------------------------------------------------ CLI

JUDGE = [*ALT_TEST_ARGS, "--n-boot", "100", "--seed", "3"]  # accord judge on the diagnoses


def _diagnoses() -> accord.Ratings:
    return accord.read_ratings(str(DIAGNOSES), item="patient", rater="rater", label="diagnosis")


def test_cli_agreement_json_adds_a_key_and_keeps_the_others() -> None:

    from typer.testing import CliRunner

    from accord.cli import app

    runner = CliRunner()
    plain = cli_json(runner.invoke(app, [*JUDGE, "--judge", "rater6", "--format", "json"]).stdout)
    res = runner.invoke(app, [*JUDGE, "--judge", "rater6", "--agreement", "--format", "json"])
    assert res.exit_code == 0, res.output
    payload = cli_json(res.stdout)
    assert set(payload) == {*plain, "agreement"}
    assert {k: payload[k] for k in plain} == plain
    expected = accord.judge_agreement(_diagnoses(), "rater6", n_boot=100, rng=3)
    got = payload["agreement"]
    assert got["judge_human"] == pytest.approx(expected.judge_human, rel=1e-12)
    assert got["difference_interval"] == pytest.approx(list(expected.difference_interval))
    assert got["consensus"]["accuracy"] == pytest.approx(expected.consensus.accuracy)


def test_cli_agreement_with_several_judges_keeps_judges_out_of_the_panel() -> None:

    from typer.testing import CliRunner

    from accord.cli import app

    argv = [*JUDGE, "--judge", "rater5", "--judge", "rater6", "--agreement", "--format", "json"]
    res = CliRunner().invoke(app, argv)
    assert res.exit_code == 0, res.output
    agreement = cli_json(res.stdout)["agreement"]
    assert set(agreement) == {"rater5", "rater6"}
    humans = [row["human"] for row in agreement["rater6"]["humans"]]
    assert humans == ["rater1", "rater2", "rater3", "rater4"]  # rater5 is a judge too


def test_cli_agreement_table_and_csv() -> None:
    from typer.testing import CliRunner

    from accord.cli import app

    runner = CliRunner()
    table = runner.invoke(app, [*JUDGE, "--judge", "rater6", "--agreement"], env={"COLUMNS": "250"})
    assert table.exit_code == 0, table.output
    assert "rater6 beside the humans" in table.output and "Confusion matrix" in table.output
    assert "judge vs consensus: accuracy" in table.output
    csv = runner.invoke(app, [*JUDGE, "--judge", "rater6", "--agreement", "--format", "csv"])
    frame = pd.read_csv(io.StringIO(csv.stdout))
    expected = accord.judge_agreement(_diagnoses(), "rater6", n_boot=100, rng=3).humans
    assert list(frame["judge_kappa"]) == pytest.approx(list(expected["judge_kappa"]), rel=1e-9)
    assert "agreement_n_items" in frame and "judge_wins" in frame


def test_cli_report_judge(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from accord.cli import app

    base = [
        "report",
        str(DIAGNOSES),
        "--item",
        "patient",
        "--rater",
        "rater",
        "--label",
        "diagnosis",
        "-o",
        str(tmp_path / "page.html"),
    ]
    runner = CliRunner()
    res = runner.invoke(app, [*base, "--judge", "rater6", "--epsilon", "0.15"])
    assert res.exit_code == 0, res.output
    assert "judge" in res.output
    assert "Can the judge replace a rater?" in (tmp_path / "page.html").read_text()
    bad = runner.invoke(app, [*base, "--judge", "rater6"])
    assert bad.exit_code == 2 and "--judge needs --epsilon (" in bad.output
    bad = runner.invoke(app, [*base, "--judge", "gpt", "--epsilon", "0.1"])
    assert bad.exit_code == 2 and "judge 'gpt' is not a rater" in bad.output
    assert "Traceback" not in bad.output


# ------------------------------------------------------------------------------ report


@pytest.fixture(scope="module")
def judge_page() -> Any:
    return accord.report(
        str(DIAGNOSES),
        item="patient",
        rater="rater",
        label="diagnosis",
        judge=accord.Judge("rater6", epsilon=0.15),
        progress=False,
        inference=accord.Inference(n_boot=200),
    )


def test_report_section_numbers_come_from_the_results(judge_page: Any) -> None:
    from markupsafe import escape

    html = judge_page.html
    assert "judge" in judge_page.sections
    r = _diagnoses()
    test = accord.alt_test(r, "rater6", epsilon=0.15)
    beside = accord.judge_agreement(r, "rater6", n_boot=200, rng=0)
    verdict = "passes" if test.passed else "does not pass"
    assert f"rater6 {verdict} the alternative annotator test at epsilon = 0.15" in html
    assert f"{beside.judge_human:.3f}" in html and f"{beside.human_human:.3f}" in html
    ci = beside.difference_interval
    assert f"{ci.low:.3f} to {ci.high:.3f}" in html
    assert str(escape(f"accuracy {100 * beside.consensus.accuracy:.1f}%")) in html
    assert "Alternative annotator test" in html and "Calderon" in html


def test_report_judge_needs_epsilon_and_labels() -> None:
    frame = _diagnoses().to_pandas()
    with pytest.raises(InvalidInputError, match="needs epsilon"):
        accord.report(frame, item="item", rater="rater", label="label", judge="rater6")
    with pytest.raises(InvalidInputError, match="give the judge too"):
        accord.report(
            frame, item="item", rater="rater", label="label", judge=accord.Judge(epsilon=0.1)
        )


@pytest.mark.slow
def test_report_judge_section_in_headless_chromium(tmp_path: Path, judge_page: Any) -> None:
    from tests._browser import BrowserUnavailable, screenshot_dir, visit

    path = judge_page.write(tmp_path / "judge.html")
    try:
        seen = visit(path, selectors=("h2", "#judge td", "#judge svg"))
    except BrowserUnavailable as exc:
        pytest.fail(f"the browser test needs Chromium: {exc}")
    shot = screenshot_dir() / "report-judge-1280.png"
    shot.write_bytes(seen.screenshot)
    print(f"screenshot: {shot}")  # shown with pytest -s / -rP
    assert seen.errors == [] and seen.requests == []
    assert "Can the judge replace a rater?" in seen.texts["h2"]
    assert "rater1" in seen.texts["#judge td"]
    assert len(seen.texts["#judge svg"]) >= 1  # the confusion matrix, parsed as SVG


def test_judge_in_a_seat_at_interval_level() -> None:
    panel = {
        "h1": [1.0, 2.0, 3.0, 4.0, 2.0, 5.0],
        "h2": [1.0, 3.0, 3.0, 5.0, 2.0, 4.0],
        "h3": [2.0, 2.0, 4.0, 4.0, None, 5.0],
        "judge": [1.0, 2.0, 5.0, 4.0, 3.0, 5.0],
    }
    r = _ratings(panel, level="interval")
    res = accord.judge_agreement(r, "judge", n_boot=0)
    seated = _ratings(
        {"h1": panel["h1"], "h2": panel["h2"], "h3": panel["judge"]}, level="interval"
    )
    # the judge takes h3's seat on the items h3 rated only (item 5 stays without it)
    seated = seated.subset(~((seated.item_codes == 4) & (seated.rater_codes == 2)))
    row = res.humans.set_index("human").loc["h3"]
    expected = accord.krippendorff_alpha(seated, level="interval").statistic
    assert row["alpha_with_judge"] == pytest.approx(expected, rel=1e-12)
    assert res.weights == "quadratic" and res.alpha_level == "interval"


def test_report_judge_against_gold() -> None:
    frame = pd.read_csv(str(DIAGNOSES))
    gold = frame[frame["rater"] == "rater1"].set_index("patient")["diagnosis"]
    frame["gold"] = frame["patient"].map(gold)
    page = accord.report(
        frame,
        item="patient",
        rater="rater",
        label="diagnosis",
        gold="gold",
        judge=accord.Judge("rater6", epsilon=0.15),
        progress=False,
        inference=accord.Inference(n_boot=50),
    )
    r = _diagnoses()
    expected = accord.judge_agreement(r, "rater6", n_boot=0, gold=gold)
    assert expected.gold is not None
    assert f"Against the gold labels: accuracy {100 * expected.gold.accuracy:.1f}%" in page.html


def test_no_majority_anywhere_is_nan_with_the_reason() -> None:
    # two humans who never agree: every item's mode is tied, so no item has a majority label
    panel = {"h1": list("abab"), "h2": list("baba"), "judge": list("aabb")}
    res = _quiet(accord.judge_agreement, _ratings(panel), "judge", n_boot=0)
    con = res.consensus
    assert con.n_items == 0 and con.n_left_out == 4
    assert math.isnan(con.accuracy) and math.isnan(con.homogeneity.statistic)
    assert "no item has a consensus label" in con.note
    assert con.homogeneity.reason == "no item has a consensus label"
    assert res.judge_human == pytest.approx(0.0)  # kappa 0 with each human, by hand
    assert res.human_human == pytest.approx(-1.0)


# ------------------------------------------------- the bootstrap, against replicate by replicate


def _resampling_panel(level: str) -> tuple[dict[str, list[object]], list[int]]:
    """Three humans (some missing ratings) and a judge on 24 items, labels 1-3; the item
    positions every statistic keeps (the judge's and >= 2 humans')."""
    rng = np.random.default_rng(20)
    truth = rng.integers(1, 4, 24)
    panel: dict[str, list[object]] = {}
    for name in ("ann", "bob", "cy", "judge"):
        labels = np.where(rng.random(24) < 0.7, truth, rng.integers(1, 4, 24))
        gone = rng.random(24) < (0.0 if name == "judge" else 0.15)
        panel[name] = [None if g else int(v) for v, g in zip(labels, gone, strict=True)]
    panel["judge"][3] = None  # an item the judge did not rate
    humans = ("ann", "bob", "cy")
    kept = [
        i
        for i in range(24)
        if panel["judge"][i] is not None and sum(panel[h][i] is not None for h in humans) >= 2
    ]
    return panel, kept


def _slow_means(panel: dict[str, list[object]], idx: np.ndarray, level: str) -> list[float]:
    """Mean judge-human and human-human kappa (scikit-learn) on the resampled items."""
    raters = ["ann", "bob", "cy", "judge"]
    weights = None if level == "nominal" else "quadratic"
    kappas: dict[bool, list[float]] = {True: [], False: []}
    for a in range(4):
        for b in range(a + 1, 4):
            x, y = panel[raters[a]], panel[raters[b]]
            both = [i for i in idx if x[i] is not None and y[i] is not None]
            k = _quiet(
                cohen_kappa_score,
                [x[i] for i in both],
                [y[i] for i in both],
                labels=[1, 2, 3],
                weights=weights,
            )
            kappas[raters[b] == "judge"].append(k)
    jh, hh = float(np.nanmean(kappas[True])), float(np.nanmean(kappas[False]))
    return [jh, hh, jh - hh]


def _slow_alphas(panel: dict[str, list[object]], idx: np.ndarray, level: str) -> list[float]:
    """Alpha (the krippendorff package) of the humans, then with the judge in each human's
    seat (the judge's labels on that human's items), on the resampled items."""
    humans = ["ann", "bob", "cy"]
    judge = panel["judge"]
    panels = [[panel[h] for h in humans]] + [
        [
            [judge[i] if panel[h][i] is not None else None for i in range(24)]
            if h == seat
            else panel[h]
            for h in humans
        ]
        for seat in humans
    ]
    out = []
    for rows in panels:
        data = [[np.nan if row[i] is None else row[i] for i in idx] for row in rows]
        out.append(float(krippendorff.alpha(np.asarray(data, float), level_of_measurement=level)))
    return out


def _slow_replicates(
    panel: dict[str, list[object]], kept: list[int], level: str, n_boot: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Replicate by replicate: item indices ``gen.integers(0, n, size=n)`` over the kept
    items, then every statistic computed afresh on the resampled items."""
    gen = np.random.default_rng(seed)
    means, alphas = [], []
    for _ in range(n_boot):
        idx = np.asarray(kept)[gen.integers(0, len(kept), size=len(kept))]
        means.append(_slow_means(panel, idx, level))
        alphas.append(_slow_alphas(panel, idx, level))
    return np.asarray(means), np.asarray(alphas)


def _percentile_ends(replicates: np.ndarray) -> tuple[float, float]:
    """The 2.5% and 97.5% quantiles of the finite replicates (a 95% percentile interval)."""
    finite = replicates[np.isfinite(replicates)]
    low, high = np.quantile(finite, [0.025, 0.975])
    return float(low), float(high)


@pytest.mark.parametrize("level", ["nominal", "ordinal"])
@pytest.mark.parametrize("chunk_cells", [None, 50])
def test_bootstrap_equals_replicate_by_replicate_resampling(
    level: str, chunk_cells: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The intervals of judge_agreement are percentile intervals of replicates drawn as item
    # indices, one gen.integers(0, n, size=n) per replicate: the same intervals (to 1e-12)
    # as computing each replicate on its resampled items with sklearn and krippendorff,
    # whatever the chunk of replicates drawn at once.
    if chunk_cells is not None:
        monkeypatch.setattr(inference, "CHUNK_CELLS", chunk_cells)
    panel, kept = _resampling_panel(level)
    r = _ratings(panel, level=level)
    kept = [int(i) - 1 for i in r.items if int(i) - 1 in kept]  # in the order of r.items
    res = _quiet(accord.judge_agreement, r, "judge", n_boot=40, rng=9)  # few replicates
    means, alphas = _slow_replicates(panel, kept, level, 40, 9)
    assert res.n_items == len(kept)
    for j, ci in enumerate(
        (res.judge_human_interval, res.human_human_interval, res.difference_interval)
    ):
        expected = _percentile_ends(means[:, j])
        assert (ci.low, ci.high) == pytest.approx(expected, abs=1e-12)
    for h, row in enumerate(res.humans.itertuples()):
        change = alphas[:, h + 1] - alphas[:, 0]
        expected = _percentile_ends(change)
        assert (row.alpha_change_low, row.alpha_change_high) == pytest.approx(expected, abs=1e-12)


def test_categories_in_groups_never_confused_test_each_group() -> None:
    # {a, b} are confused only with each other, {c, d} only with each other: the marginal
    # differences of each group sum to 0, V has rank 2 (not 3), and Stuart-Maxwell is the
    # sum of the groups' McNemar statistics, by hand (5 - 2)^2 / 7 + (6 - 1)^2 / 7 = 34 / 7
    # on 2 df, p = exp(-34 / 14) (chi-square with 2 df: P(X > x) = exp(-x / 2)).
    table = [[10, 5, 0, 0], [2, 8, 0, 0], [0, 0, 7, 6], [0, 0, 1, 9]]
    res = accord.marginal_homogeneity(table)
    assert res.statistic == pytest.approx(34 / 7, rel=1e-12) and res.df == 2
    assert res.pvalue == pytest.approx(math.exp(-34 / 14), rel=1e-12)
    assert res.reason is None
    # Bhapkar keeps the identity W = SM / (1 - SM / n) (Sherman-Morrison), n = 48
    bh = accord.marginal_homogeneity(table, method="bhapkar")
    assert bh.statistic == pytest.approx((34 / 7) / (1 - 34 / 7 / 48), rel=1e-12)
    assert bh.df == 2
    # relabelling the categories (groups interleaved) gives the same test
    order = [0, 2, 1, 3]
    shuffled = np.asarray(table)[np.ix_(order, order)]
    assert accord.marginal_homogeneity(shuffled).statistic == pytest.approx(34 / 7, rel=1e-12)
