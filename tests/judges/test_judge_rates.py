"""Judge-corrected rates: Rogan-Gladen, the matrix method, prediction-powered inference.

Sources: hand computations of the published formulas (Rogan & Gladen 1978; Greenland 1988's
delta variance), a numerical Jacobian of the estimator for the matrix method's delta variance,
judgy 0.1.0 (``judgy.estimate_success_rate``) for the Rogan-Gladen point estimate, and
ppi-python 0.2.3 (``ppi_py.ppi_mean_pointestimate`` / ``ppi_mean_ci``) run side by side for
PPI and PPI++.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import accord
from accord import DegenerateDataWarning, InvalidInputError
from accord.judges.corrected import labels_to_halve


def _judged(rng: np.random.Generator, n: int, big_n: int, prevalence: float, se: float, sp: float):
    """Seeded labelled pairs and unlabelled judge labels from a judge with ``se``, ``sp``."""
    truth = rng.random(n + big_n) < prevalence
    flip = np.where(truth, rng.random(n + big_n) > se, rng.random(n + big_n) > sp)
    judge = truth ^ flip
    return truth[:n].astype(int), judge[:n].astype(int), judge[n:].astype(int)


# ----------------------------------------------------------------------------- Rogan-Gladen


def test_rogan_gladen_by_hand() -> None:
    # Labelled: 40 human positives (judge 36 positive), 60 negatives (judge 48 negative);
    # unlabelled: 300 of 1000 judged positive. sens 0.9, spec 0.8, q 0.3, J 0.7.
    human = [1] * 40 + [0] * 60
    judge = [1] * 36 + [0] * 4 + [0] * 48 + [1] * 12
    unlabelled = [1] * 300 + [0] * 700
    r = accord.corrected_rate(human, judge, unlabelled)
    p = (0.3 + 0.8 - 1) / 0.7  # Rogan & Gladen (1978), eq. 1
    assert_allclose(r.estimate, p)
    # Greenland (1988): [q(1-q)/N + p^2 se(1-se)/n1 + (1-p)^2 sp(1-sp)/n0] / J^2
    var_u = 0.3 * 0.7 / 1000 / 0.49
    var_l = (p**2 * 0.9 * 0.1 / 40 + (1 - p) ** 2 * 0.8 * 0.2 / 60) / 0.49
    assert_allclose(r.standard_error, math.sqrt(var_u + var_l))
    assert_allclose((r.unlabelled_variance, r.labelled_variance), (var_u, var_l))
    z = 1.959963984540054
    assert_allclose((r.low, r.high), (p - z * r.standard_error, p + z * r.standard_error))
    assert (r.sensitivity, r.specificity, r.raw_rate) == pytest.approx((0.9, 0.8, 0.3))
    assert (r.n_labelled, r.n_unlabelled, r.n_positive) == (100, 1000, 40)
    assert not r.degenerate and not r.clipped and r.reason == ""


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rogan_gladen_point_estimate_matches_judgy(seed: int) -> None:
    judgy = pytest.importorskip("judgy")
    human, judge, unlabelled = _judged(np.random.default_rng(seed), 80, 500, 0.6, 0.85, 0.75)
    np.random.seed(seed)  # noqa: NPY002 (judgy draws from numpy's global generator)
    theirs = judgy.estimate_success_rate(human, judge, unlabelled, bootstrap_iterations=50)[0]
    assert_allclose(accord.corrected_rate(human, judge, unlabelled).estimate, theirs)


def test_readme_example_of_judgy() -> None:
    # judgy's README: sens = spec = 3/4, q = 5/8, so (0.625 + 0.75 - 1) / 0.5 = 0.75.
    r = accord.corrected_rate(
        [1, 1, 0, 0, 1, 0, 1, 0], [1, 0, 0, 1, 1, 0, 1, 0], [1, 1, 0, 1, 0, 1, 0, 1]
    )
    assert r.estimate == pytest.approx(0.75)
    assert (r.low, r.high) == (0.0, 1.0)


def test_positive_label_and_strings() -> None:
    human = ["pass", "pass", "fail", "fail", "pass"]
    judge = ["pass", "fail", "fail", "pass", "pass"]
    unlab = ["pass", "fail", "pass"]
    r = accord.corrected_rate(human, judge, unlab, positive="pass")
    numeric = accord.corrected_rate([1, 1, 0, 0, 1], [1, 0, 0, 1, 1], [1, 0, 1])
    assert r.label == "pass"
    assert_allclose(r.unclipped, numeric.unclipped)
    with pytest.raises(InvalidInputError, match="positive="):
        accord.corrected_rate(human, judge, unlab)
    with pytest.raises(InvalidInputError, match="'positive' parameter"):
        accord.corrected_rate(human, judge, unlab, positive="maybe")


def test_no_better_than_chance_is_flagged() -> None:
    human = [1, 1, 0, 0]
    judge = [1, 0, 1, 0]  # sens = spec = 0.5
    with pytest.warns(DegenerateDataWarning, match="no better than chance"):
        r = accord.corrected_rate(human, judge, [1, 0, 1])
    assert r.degenerate and math.isnan(r.estimate) and math.isnan(r.low)
    assert "no better than chance" in r.reason
    with pytest.warns(DegenerateDataWarning, match="never gave"):
        r = accord.corrected_rate([0, 0, 0], [0, 1, 0], [1, 0])
    assert r.degenerate and math.isnan(r.sensitivity)
    with pytest.warns(DegenerateDataWarning, match="always gave 1 .* specificity is undefined"):
        r = accord.corrected_rate([1, 1, 1], [0, 1, 1], [1, 0])
    assert r.degenerate and math.isnan(r.specificity) and math.isnan(r.standard_error)


def test_clipped_estimate() -> None:
    # sens 1, spec 0.75, q = 0.1: (0.1 + 0.75 - 1) / 0.75 < 0, clipped to 0.
    r = accord.corrected_rate([1, 1, 0, 0, 0, 0], [1, 1, 1, 0, 0, 0][:6], [1] + [0] * 9)
    assert r.unclipped < 0 and r.estimate == 0.0 and r.clipped
    assert r.low == 0.0 and "clipped" in r.reason


def test_bad_input() -> None:
    with pytest.raises(InvalidInputError, match="same items"):
        accord.corrected_rate([1, 0], [1], [1])
    with pytest.raises(InvalidInputError, match="unlabelled has missing labels in row 2"):
        accord.corrected_rate([1, 0], [1, 0], [1.0, float("nan")])
    with pytest.raises(InvalidInputError, match="no rate is left to correct"):
        accord.corrected_rate([1, 0], [1, 0], [])
    with pytest.raises(InvalidInputError, match="'interval' parameter"):
        accord.corrected_rate([1, 0], [1, 0], [1], interval="wald")
    with pytest.raises(InvalidInputError, match="'n_boot' parameter"):
        accord.corrected_rate([1, 0], [1, 0], [1], interval="bootstrap", n_boot=0)
    with pytest.raises(InvalidInputError, match="not one of the categories"):
        accord.corrected_rate([1, 0], [1, 2], [1], categories=[0, 1])


def test_bootstrap_is_seeded_and_near_the_delta_interval() -> None:
    human, judge, unlab = _judged(np.random.default_rng(5), 2000, 20000, 0.4, 0.9, 0.85)
    delta = accord.corrected_rate(human, judge, unlab)
    boot = accord.corrected_rate(human, judge, unlab, interval="bootstrap", n_boot=2000)
    again = accord.corrected_rate(human, judge, unlab, interval="bootstrap", n_boot=2000)
    assert (boot.low, boot.high) == (again.low, again.high)
    assert boot.estimate == delta.estimate and boot.n_boot == 2000
    # With 2000 labelled items the estimator is near normal: the intervals nearly agree.
    assert_allclose((boot.low, boot.high), (delta.low, delta.high), atol=0.006)


def test_bootstrap_resamples_the_unlabelled_items_too() -> None:
    # Labelled set large, unlabelled small: the unlabelled sampling error dominates, and a
    # bootstrap that held q fixed (judgy's) would give a far narrower interval.
    human, judge, unlab = _judged(np.random.default_rng(6), 20000, 100, 0.5, 0.9, 0.9)
    boot = accord.corrected_rate(human, judge, unlab, interval="bootstrap")
    delta = accord.corrected_rate(human, judge, unlab)
    assert delta.unlabelled_variance > 10 * delta.labelled_variance
    assert boot.high - boot.low == pytest.approx(delta.high - delta.low, rel=0.1)


def test_labels_to_halve_halves_the_width() -> None:
    human, judge, unlab = _judged(np.random.default_rng(7), 200, 100000, 0.3, 0.9, 0.8)
    counts = accord.JudgeCounts.from_labels(human, judge, unlab)
    r = accord.corrected_rate_from_counts(counts)
    m = r.labels_to_halve
    assert m is not None and m > 0
    scale = (r.n_labelled + m) / r.n_labelled  # m more items in the same mix
    bigger = accord.JudgeCounts(counts.confusion * scale, counts.unlabelled, counts.categories)
    assert_allclose(
        accord.corrected_rate_from_counts(bigger).standard_error, r.standard_error / 2, rtol=0.01
    )
    assert labels_to_halve(1.0, 1.0, 10) is None  # unlabelled share too big: no labels do it


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=1, max_size=30),
    st.lists(st.integers(0, 2), min_size=1, max_size=30),
    st.integers(0, 40),
)
def test_counts_merge_equals_whole(pairs, unlab, cut) -> None:
    human = [h for h, _ in pairs]
    judge = [j for _, j in pairs]
    cats = [0, 1, 2]
    whole = accord.JudgeCounts.from_labels(human, judge, unlab, categories=cats)
    a = accord.JudgeCounts.from_labels(human[:cut], judge[:cut], unlab[:cut], categories=cats)
    b = accord.JudgeCounts.from_labels(human[cut:], judge[cut:], unlab[cut:], categories=cats)
    merged = a.merge(b)
    assert (merged.confusion == whole.confusion).all()
    assert (merged.unlabelled == whole.unlabelled).all()


# ----------------------------------------------------------------------------- matrix method


def test_two_labels_matrix_method_is_rogan_gladen() -> None:
    human, judge, unlab = _judged(np.random.default_rng(3), 150, 2000, 0.35, 0.8, 0.9)
    rate = accord.corrected_rate(human, judge, unlab)
    dist = accord.corrected_distribution(human, judge, unlab).table.set_index("label")
    assert_allclose(dist.loc[1, "unclipped"], rate.unclipped)
    assert_allclose(dist.loc[1, "standard_error"], rate.standard_error)
    assert_allclose(dist.loc[0, "standard_error"], rate.standard_error)


def _pi(cells: np.ndarray, shares: np.ndarray) -> np.ndarray:
    """The matrix-method estimate, written independently: solve M^T pi = q."""
    m = cells / cells.sum(axis=1, keepdims=True)
    return np.linalg.solve(m.T, shares)


def test_matrix_delta_variance_against_a_numerical_jacobian() -> None:
    # The delta method by finite differences: the estimate as a function of the row
    # proportions of M and of the shares q, each row an independent multinomial.
    rng = np.random.default_rng(11)
    truth = rng.choice(3, size=3000, p=[0.5, 0.3, 0.2])
    noise = np.array([[0.8, 0.15, 0.05], [0.1, 0.8, 0.1], [0.1, 0.2, 0.7]])
    judged = np.array([rng.choice(3, p=noise[t]) for t in truth])
    human, judge, unlab = truth[:300], judged[:300], judged[300:]
    dist = accord.corrected_distribution(human, judge, unlab)
    counts = accord.JudgeCounts.from_labels(human, judge, unlab)
    rows = counts.confusion / counts.confusion.sum(axis=1, keepdims=True)
    shares = counts.unlabelled / counts.n_unlabelled
    params = np.concatenate([rows.ravel(), shares])
    cov = np.zeros((12, 12))
    for t in range(3):
        n_t = counts.confusion[t].sum()
        cov[3 * t : 3 * t + 3, 3 * t : 3 * t + 3] = (
            np.diag(rows[t]) - np.outer(rows[t], rows[t])
        ) / n_t
    cov[9:, 9:] = (np.diag(shares) - np.outer(shares, shares)) / counts.n_unlabelled
    h = 1e-6
    jac = np.empty((3, 12))
    for k in range(12):
        up, down = params.copy(), params.copy()
        up[k] += h
        down[k] -= h
        jac[:, k] = (_pi(up[:9].reshape(3, 3), up[9:]) - _pi(down[:9].reshape(3, 3), down[9:])) / (
            2 * h
        )
    se = np.sqrt(np.diag(jac @ cov @ jac.T))
    assert_allclose(dist.table["standard_error"], se, rtol=1e-5)
    assert_allclose(dist.table["unclipped"], _pi(counts.confusion.astype(float), shares))
    assert dist.table["estimate"].sum() == pytest.approx(1.0)
    assert dist.condition_number < 10 and not dist.degenerate


def test_singular_and_ill_conditioned_matrices_are_flagged() -> None:
    # The judge says "a" whatever the human said: M has two equal rows (singular).
    with pytest.warns(DegenerateDataWarning, match="singular"):
        d = accord.corrected_distribution(["a", "b", "a", "b"], ["a", "a", "a", "a"], ["a", "b"])
    assert d.degenerate and d.table["estimate"].isna().all()
    # Nearly equal rows: estimated, but flagged.
    human = ["a"] * 1000 + ["b"] * 1000
    judge = ["a"] * 501 + ["b"] * 499 + ["a"] * 500 + ["b"] * 500
    with pytest.warns(DegenerateDataWarning, match="ill-conditioned"):
        d = accord.corrected_distribution(human, judge, ["a", "b"] * 10)
    assert not d.degenerate and d.condition_number > 1e3 and "ill-conditioned" in d.reason


def test_distribution_bootstrap_is_seeded() -> None:
    rng = np.random.default_rng(4)
    truth = rng.choice(3, size=600)
    judged = np.where(rng.random(600) < 0.8, truth, rng.choice(3, size=600))
    a = accord.corrected_distribution(truth[:200], judged[:200], judged[200:], interval="bootstrap")
    b = accord.corrected_distribution(truth[:200], judged[:200], judged[200:], interval="bootstrap")
    assert a.table.equals(b.table)
    assert (a.table["low"] <= a.table["estimate"]).all()
    assert (a.table["estimate"] <= a.table["high"]).all()


# ----------------------------------------------------------------------------- PPI and PPI++


def _scores(seed: int, n: int = 120, big_n: int = 3000):
    rng = np.random.default_rng(seed)
    y = rng.normal(0.6, 1.0, n + big_n)
    f = 0.7 * y + rng.normal(0.2, 0.6, n + big_n)
    return y[:n], f[:n], f[n:]


@pytest.mark.parametrize("lam", [None, 1.0, 0.0, 0.4])
@pytest.mark.parametrize("kind", ["scores", "binary"])
def test_ppi_matches_ppi_python(lam: float | None, kind: str) -> None:
    ppi_py = pytest.importorskip("ppi_py")
    if kind == "scores":
        y, f, u = _scores(1)
    else:
        y, f, u = (
            np.asarray(a, dtype=float)
            for a in _judged(np.random.default_rng(2), 150, 4000, 0.4, 0.85, 0.8)
        )
    ours = accord.prediction_powered_mean(y, f, u, lam=lam, confidence_level=0.9)
    point = ppi_py.ppi_mean_pointestimate(y, f, u, lam=lam)
    low, high = ppi_py.ppi_mean_ci(y, f, u, alpha=0.1, lam=lam)
    assert_allclose(ours.estimate, np.squeeze(point), rtol=1e-10)
    assert_allclose((ours.low, ours.high), (np.squeeze(low), np.squeeze(high)), rtol=1e-10)
    assert ours.tuned is (lam is None)


def test_ppi_plus_plus_lambda_is_the_published_optimum() -> None:
    # PPI++ (Angelopoulos, Duchi & Zrnic 2023), mean estimation: lambda* = Cov(Y, f) /
    # ((1 + n/N) Var(f)), clipped to [0, 1]; the point estimate with that lambda is
    # ppi-python's with lam=None.
    y, f, u = _scores(8)
    n, big_n = y.size, u.size
    lam = np.mean((y - y.mean()) * (f - f.mean())) / (
        (1 + n / big_n) * np.var(np.concatenate([f, u]), ddof=1)
    )
    r = accord.prediction_powered_mean(y, f, u)
    assert_allclose(r.lam, np.clip(lam, 0, 1))
    assert r.standard_error <= accord.prediction_powered_mean(y, f, u, lam=1).standard_error
    assert r.standard_error <= r.classical_standard_error
    classical = accord.prediction_powered_mean(y, f, u, lam=0)
    assert_allclose(classical.estimate, y.mean())
    assert_allclose(classical.standard_error, y.std() / math.sqrt(n))


def test_ppi_difference_matches_ppi_python_on_differences() -> None:
    ppi_py = pytest.importorskip("ppi_py")
    ya, fa, ua = _scores(3)
    yb, fb, ub = _scores(4)
    ours = accord.prediction_powered_difference(ya, yb, fa, fb, ua, ub)
    low, high = ppi_py.ppi_mean_ci(ya - yb, fa - fb, ua - ub, alpha=0.05)
    point = ppi_py.ppi_mean_pointestimate(ya - yb, fa - fb, ua - ub)
    assert ours.what == "difference"
    assert_allclose((ours.estimate, ours.low, ours.high), np.squeeze([point, low, high]))
    with pytest.raises(InvalidInputError, match="labels_a and labels_b"):
        accord.prediction_powered_difference(ya, yb[:-1], fa, fb, ua, ub)


def test_ppi_from_counts_equals_ppi_from_labels() -> None:
    human, judge, unlab = _judged(np.random.default_rng(9), 90, 900, 0.5, 0.8, 0.8)
    counts = accord.JudgeCounts.from_labels(human, judge, unlab)
    from_counts = accord.prediction_powered_mean_from_moments(
        accord.PredictionMoments.from_counts(counts, 1)
    )
    direct = accord.prediction_powered_mean(human, judge, unlab)
    assert_allclose(
        (from_counts.estimate, from_counts.standard_error, from_counts.lam),
        (direct.estimate, direct.standard_error, direct.lam),
    )
    half = accord.PredictionMoments.from_arrays(human[:40], judge[:40], unlab[:400])
    rest = accord.PredictionMoments.from_arrays(human[40:], judge[40:], unlab[400:])
    assert_allclose(
        accord.prediction_powered_mean_from_moments(half.merge(rest)).estimate, direct.estimate
    )


def test_ppi_bad_and_degenerate_input() -> None:
    with pytest.raises(InvalidInputError, match="row 2"):
        accord.prediction_powered_mean([1, 0], [1, np.nan], [1])
    with pytest.raises(InvalidInputError, match="at least 2 labelled"):
        accord.prediction_powered_mean([1], [1], [1])
    with pytest.raises(InvalidInputError, match="'lam' parameter"):
        accord.prediction_powered_mean([1, 0], [1, 0], [1], lam="auto")  # type: ignore[arg-type]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = accord.prediction_powered_mean([1, 0, 1], [1, 1, 1], [1, 1])
    assert r.lam == 0.0 and "constant" in r.reason
    assert any(issubclass(w.category, DegenerateDataWarning) for w in caught)


def test_methods_text_cites_the_sources() -> None:
    human, judge, unlab = _judged(np.random.default_rng(10), 100, 1000, 0.5, 0.9, 0.8)
    rg = accord.corrected_rate(human, judge, unlab).methods_text()
    assert "Rogan" in rg and "10.1093/oxfordjournals.aje.a112510" in rg
    assert "100 items were also labelled by a human" in rg
    ppi = accord.prediction_powered_mean(human, judge, unlab).methods_text("markdown")
    assert "10.1126/science.adi6000" in ppi and "2311.01453" in ppi
    dist = accord.corrected_distribution(human, judge, unlab).methods_text()
    assert "confusion matrix" in dist and "Buonaccorsi" in dist
    assert accord.corrected_rate(human, judge, unlab).to_dict()["label"] == 1


# ----------------------------------------------------------------------------- on ratings


def test_judge_rates_on_ratings_is_the_estimators_on_the_majority(examples) -> None:
    # The human label of an item is the annotators' majority (pandas' mode, ties left out),
    # computed here independently of accord; items only the judge rated are the judged set.
    frame = pd.read_csv(examples / "pandalm-judged.csv")
    humans = frame[frame["rater"] != "gpt-3.5-turbo"]
    judge = frame[frame["rater"] == "gpt-3.5-turbo"].set_index("item")["preference"]
    modes = humans.groupby("item")["preference"].agg(lambda s: tuple(s.mode()))
    majority = modes[modes.map(len) == 1].map(lambda m: m[0])
    both = majority.index.intersection(judge.index)
    only = judge.index.difference(humans["item"].unique())
    ratings = accord.read_ratings(
        examples / "pandalm-judged.csv", item="item", rater="rater", label="preference"
    )
    r = accord.judge_rates(ratings, "gpt-3.5-turbo", positive="second")
    direct = accord.corrected_rate(
        majority[both].to_numpy(), judge[both].to_numpy(), judge[only].to_numpy(), positive="second"
    )
    assert (r.n_labelled, r.n_unlabelled) == (both.size, only.size)
    assert r.n_tied == int((modes.map(len) > 1).sum())
    assert_allclose((r.corrected.estimate, r.corrected.low), (direct.estimate, direct.low))
    y = (majority[both] == "second").to_numpy(float)
    f = (judge[both] == "second").to_numpy(float)
    u = (judge[only] == "second").to_numpy(float)
    assert_allclose(r.ppi[0].estimate, accord.prediction_powered_mean(y, f, u).estimate)
    assert "Rogan-Gladen" in r.methods_text() and "prediction-powered" in r.methods_text()


def test_judge_rates_refuses_an_unknown_judge(examples) -> None:
    ratings = accord.read_ratings(
        examples / "pandalm-judged.csv", item="item", rater="rater", label="preference"
    )
    with pytest.raises(InvalidInputError, match="judge 'gpt-4' is not a rater"):
        accord.judge_rates(ratings, "gpt-4")


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.permutations(["x", "y", "z"]))
def test_relabelling_and_item_order_change_nothing(seed: int, names: list[str]) -> None:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, 400)
    judged = np.where(rng.random(400) < 0.85, truth, rng.integers(0, 3, 400))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        base = accord.corrected_distribution(truth[:100], judged[:100], judged[100:]).table
        renamed = np.array(names)
        order = rng.permutation(100)
        other = accord.corrected_distribution(
            renamed[truth[:100]][order], renamed[judged[:100]][order], renamed[judged[100:]][::-1]
        ).table.set_index("label")
    for code, name in enumerate(names):
        assert_allclose(
            other.loc[name, ["unclipped", "standard_error"]].to_numpy(float),
            base.loc[code, ["unclipped", "standard_error"]].to_numpy(float),
            equal_nan=True,
        )
    assert ((base["estimate"] >= 0) & (base["estimate"] <= 1) | base["estimate"].isna()).all()
    assert ((base["low"] >= 0) & (base["high"] <= 1) | base["low"].isna()).all()


def test_declared_categories_keep_their_order() -> None:
    counts = accord.JudgeCounts.from_labels(["b", "a"], ["b", "b"], ["a"], categories=["b", "a"])
    assert counts.categories == ("b", "a")
    assert counts.confusion.tolist() == [[1, 0], [1, 0]]
    assert counts.unlabelled.tolist() == [0, 1]


# ----------------------------------------------------------------------------- streamed


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_streamed_counts_equal_the_counts_in_memory(tmp_path, suffix: str) -> None:
    human, judge, unlab = _judged(np.random.default_rng(12), 60, 500, 0.5, 0.8, 0.7)
    log = pd.DataFrame(
        {
            "verdict": np.concatenate([judge, unlab]),
            "checked": pd.array(list(human) + [None] * unlab.size, dtype="Int64"),
        }
    ).sample(frac=1.0, random_state=1)  # labelled and judged-only rows interleaved
    path = tmp_path / f"log.{suffix}"
    log.to_csv(path, index=False) if suffix == "csv" else log.to_parquet(path, index=False)
    streamed = accord.judge_counts(
        path, judge="verdict", human="checked", categories=[0, 1], batch_size=37
    )
    whole = accord.JudgeCounts.from_labels(human, judge, unlab)
    assert (streamed.confusion == whole.confusion).all()
    assert (streamed.unlabelled == whole.unlabelled).all()
    assert_allclose(
        accord.corrected_rate_from_counts(streamed).high,
        accord.corrected_rate(human, judge, unlab).high,
    )


def test_streamed_counts_name_the_row_of_an_empty_verdict(tmp_path) -> None:
    path = tmp_path / "log.csv"
    pd.DataFrame({"verdict": pd.array([1, 0, 1, None, 1], dtype="Int64")}).to_csv(path, index=False)
    with pytest.raises(InvalidInputError, match="'verdict' is empty in row 4"):
        accord.judge_counts(path, judge="verdict", categories=[0, 1], batch_size=2)
    with pytest.raises(InvalidInputError, match="not one of the categories"):
        accord.judge_counts(path, judge="verdict", categories=[5, 6], batch_size=2)


def test_no_item_for_the_judge_alone_says_why_there_is_no_rate() -> None:
    # every item the judge labelled has human labels: the corrected rate has nothing to
    # correct, in words the command line reads too (was "needs the judge's labels on
    # unlabelled items; got none")
    frame = pd.DataFrame({"item": np.repeat(np.arange(6), 2), "rater": ["h", "judge"] * 6,
                          "label": [0, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1]})  # fmt: skip
    ratings = accord.Ratings.from_long(frame, item="item", rater="rater", label="label")
    with pytest.raises(accord.InvalidInputError) as caught:
        accord.judge_rates(ratings, judge="judge")
    assert str(caught.value) == (
        "corrected_rate: every item the judge labelled has a human label too, so no "
        "rate is left to correct (the corrected rate is the judge's on the items no human "
        "labelled; here 6 labelled items, no other)"
    )
