"""Rater models (accord.rater_model): Dawid-Skene, one-coin, MACE, GLAD.

Sources: Dawid & Skene's (1979) anaesthesia data (45 patients, 5 raters, the first assessing
each patient three times; tests/reference/rater_models), fitted by crowd-kit side by side and
by an independent transcription of the paper's EM (recorded); crowd-kit 1.x
(``crowdkit.aggregation``) run side by side on data drawn from each model's generative
process; hand computations in the tests.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import accord
from accord import InvalidInputError, Ratings, rater_model, rater_model_from_counts

#: Dawid & Skene's (1979) anaesthesia data: 45 patients graded 1-4 by five anaesthetists,
#: observer 1 three times (repeated assessments, counted as they count n_il^k), the others
#: once; 315 rows. The copy of R's rater package (provenance in anaesthesia_fit.json).
ANAESTHESIA = Path(__file__).parents[1] / "reference" / "rater_models" / "anaesthesia.csv"


def anaesthesia_counts() -> np.ndarray:
    """The n[i, r, l] (45 patients x 5 raters x 4 grades) of Dawid & Skene's data."""
    frame = pd.read_csv(ANAESTHESIA)
    counts = np.zeros((45, 5, 4))
    np.add.at(counts, (frame["patient"] - 1, frame["observer"] - 1, frame["grade"] - 1), 1)
    return counts


def anaesthesia_frame() -> pd.DataFrame:
    """The data as crowd-kit reads it: repeated assessments as repeated rows."""
    frame = pd.read_csv(ANAESTHESIA)
    return frame.rename(columns={"patient": "task", "observer": "worker", "grade": "label"})


def draw(model: str, n_items: int, n_raters: int, q: int, seed: int, density: float = 0.7):
    """Ratings from a model's generative process, as (Ratings, crowd-kit frame, truth).
    Codes are renumbered in order of first appearance, the order crowd-kit's MACE and GLAD
    assume when they align their tables (they mix pd.factorize and sorted group-bys)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(q, size=n_items)
    item = np.repeat(np.arange(n_items), n_raters)
    rater = np.tile(np.arange(n_raters), n_items)
    keep = rng.random(item.size) < density
    item, rater = item[keep], rater[keep]
    if model == "glad":
        alpha = rng.normal(1.0, 1.0, n_raters)
        beta = rng.normal(1.0, 1.0, n_items)
        right = 1 / (1 + np.exp(-alpha[rater] * np.exp(beta[item])))
        probs = np.repeat(((1 - right) / (q - 1))[:, None], q, axis=1)
        probs[np.arange(item.size), truth[item]] = right
    else:
        if model == "dawid-skene":
            conf = rng.dirichlet(np.ones(q), size=(n_raters, q)) * 0.5 + 0.5 * np.eye(q)
        elif model == "one-coin":
            s = rng.uniform(0.4, 0.9, n_raters)
            conf = np.repeat(((1 - s) / (q - 1))[:, None, None], q, 1).repeat(q, 2)
            conf[:, np.arange(q), np.arange(q)] = s[:, None]
        else:  # mace
            theta = rng.uniform(0.2, 0.9, n_raters)
            xi = rng.dirichlet(np.ones(q), size=n_raters)
            conf = np.repeat(((1 - theta)[:, None] * xi)[:, None, :], q, axis=1)
            conf[:, np.arange(q), np.arange(q)] += theta[:, None]
        probs = conf[rater, truth[item]]
    label = (rng.random(item.size)[:, None] > probs.cumsum(axis=1)).sum(axis=1)
    label = np.minimum(label, q - 1)
    rater = pd.factorize(rater)[0]
    label = pd.factorize(label)[0]
    truth = truth  # the truth keeps the original codes; tests compare fits with fits
    frame = pd.DataFrame({"task": item, "worker": rater, "label": label})
    ratings = Ratings.from_arrays(item, rater, label)
    return ratings, frame, truth


def crowdkit_posteriors(probas: pd.DataFrame, q: int) -> np.ndarray:
    return probas.sort_index()[list(range(q))].to_numpy()


# ------------------------------------------------------------ Dawid & Skene's data


@pytest.mark.slow
def test_repeated_assessments_against_crowdkit():
    from crowdkit.aggregation import DawidSkene

    fit = rater_model_from_counts(
        anaesthesia_counts(), categories=[1, 2, 3, 4], items=range(1, 46), n_bootstrap=0, tol=1e-14
    )
    # crowd-kit: DawidSkene(n_iter=300, tol=-inf).fit(frame) (tol=-inf: no early stop at a dip
    # of its ELBO), the repeated assessments of rater 1 as repeated rows (counted, as Dawid &
    # Skene count n_il^k)
    ds = DawidSkene(n_iter=300, tol=-np.inf)
    probas = ds.fit_predict_proba(anaesthesia_frame())
    assert_allclose(fit.items[["p_1", "p_2", "p_3", "p_4"]].to_numpy(),
                    probas.sort_index()[[1, 2, 3, 4]].to_numpy(), atol=1e-6)  # fmt: skip
    assert_allclose(fit.prevalence, ds.priors_.sort_index().to_numpy(), atol=1e-6)
    errors = ds.errors_  # index (worker, observed), columns true: our transpose
    for r in range(5):
        table = errors.loc[r + 1].reindex([1, 2, 3, 4]).fillna(0.0)[[1, 2, 3, 4]].to_numpy()
        assert_allclose(fit.confusion[r], table.T, atol=1e-6)
    assert fit.converged and fit.n_ratings == 315


def test_dawid_skene_1979_anaesthesia_fit() -> None:
    # tests/reference/rater_models/anaesthesia_fit.json: dallascard/dawid_skene, the paper's
    # EM from its start (each patient's share of each grade), run to a 1e-13 step; values to
    # 6 decimals. The class probabilities are (0.40, 0.42, 0.11, 0.07) to two decimals.
    ref = json.loads((ANAESTHESIA.parent / "anaesthesia_fit.json").read_text())
    fit = rater_model_from_counts(
        anaesthesia_counts(), categories=[1, 2, 3, 4], items=range(1, 46), n_bootstrap=0, tol=1e-14
    )
    assert_allclose(fit.prevalence, ref["class_marginals"], atol=1e-6)
    assert_allclose(fit.confusion, ref["error_rates"], atol=1e-6)
    assert fit.prevalence.round(2).tolist() == [0.40, 0.42, 0.11, 0.07]
    # observer 1's repeated assessments are counted: 3 x 45 ratings
    assert fit.raters["n_ratings"].tolist() == [135, 45, 45, 45, 45]


# ------------------------------------------------------------ crowd-kit side by side


@pytest.mark.slow
def test_dawid_skene_matches_crowdkit_with_and_without_gold():
    from crowdkit.aggregation import DawidSkene

    ratings, frame, truth = draw("dawid-skene", 120, 6, 3, seed=1)
    fit = rater_model(ratings, n_bootstrap=0, tol=1e-14)
    ds = DawidSkene(n_iter=300, tol=-np.inf)  # crowd-kit DawidSkene, run to its fixed point
    assert_allclose(fit.items[["p_0", "p_1", "p_2"]].to_numpy(),
                    crowdkit_posteriors(ds.fit_predict_proba(frame), 3), atol=1e-5)  # fmt: skip
    gold = pd.Series(truth[:40], index=np.arange(40))
    with_gold = rater_model(ratings, gold=gold, n_bootstrap=0, tol=1e-14)
    ds_gold = DawidSkene(n_iter=300, tol=-np.inf).fit_predict_proba(frame, gold)
    assert_allclose(with_gold.items[["p_0", "p_1", "p_2"]].to_numpy(),
                    crowdkit_posteriors(ds_gold, 3), atol=1e-5)  # fmt: skip
    posts = with_gold.items[["p_0", "p_1", "p_2"]].to_numpy()[:40]
    assert_allclose(posts, np.eye(3)[truth[:40]])  # gold clamps


@pytest.mark.slow
def test_one_coin_matches_crowdkit_at_the_fixed_point():
    from crowdkit.aggregation import OneCoinDawidSkene

    ratings, frame, _ = draw("one-coin", 120, 5, 3, seed=2)
    fit = rater_model(ratings, model="one-coin", n_bootstrap=0, tol=1e-16, max_iter=5000)
    # crowd-kit stops at the first fall of its ELBO (which is not monotone for one-coin):
    # tol=-inf runs its 300 iterations to the fixed point
    oc = OneCoinDawidSkene(n_iter=300, tol=-np.inf)
    assert_allclose(fit.items[["p_0", "p_1", "p_2"]].to_numpy(),
                    crowdkit_posteriors(oc.fit_predict_proba(frame), 3), atol=1e-5)  # fmt: skip
    assert_allclose(fit.raters["competence"], oc.skills_.sort_index().to_numpy(), atol=1e-5)
    assert_allclose(fit.raters["accuracy"], fit.raters["competence"], atol=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["vb", "em"])
def test_mace_matches_crowdkit(method):
    from crowdkit.aggregation import MACE

    ratings, frame, _ = draw("mace", 150, 6, 3, seed=3)
    fit = rater_model(ratings, model="mace", mace_method=method, n_bootstrap=0, tol=1e-13,
                      max_iter=3000)  # fmt: skip
    # crowd-kit MACE(n_iter=400, n_restarts=1, method=...): its own random start, the same
    # optimum on these data
    mace = MACE(n_iter=400, n_restarts=1, method=method)
    assert_allclose(fit.items[["p_0", "p_1", "p_2"]].to_numpy(),
                    crowdkit_posteriors(mace.fit_predict_proba(frame), 3), atol=1e-6)  # fmt: skip
    if method == "em":  # EM: crowd-kit's spamming_[:, 1] is the competence itself
        assert_allclose(fit.raters["competence"], mace.spamming_[:, 1], atol=1e-6)
    else:  # VB: crowd-kit keeps exp(digamma) weights; we report the posterior mean of theta
        assert np.all(np.abs(fit.raters["competence"] - mace.spamming_[:, 1]) < 0.05)


@pytest.mark.slow
@pytest.mark.parametrize("q", [2, 3])
def test_glad_matches_crowdkit(q):
    from crowdkit.aggregation import GLAD

    ratings, frame, _ = draw("glad", 60, 5, q, seed=4)
    fit = rater_model(ratings, model="glad", n_bootstrap=0, tol=1e-12, max_iter=500)
    # crowd-kit GLAD(n_iter=200, tol=-inf): run to the fixed point (its stopping rule fires
    # at the first fall of Q); its M step stops CG at tol 1e-4, hence the looser tolerance
    glad = GLAD(n_iter=100, tol=-np.inf, silent=True)
    cols = [f"p_{k}" for k in range(q)]
    assert_allclose(fit.items[cols].to_numpy(),
                    crowdkit_posteriors(glad.fit_predict_proba(frame), q), atol=2e-3)  # fmt: skip
    assert_allclose(fit.raters["competence"], glad.alphas_.sort_index().to_numpy(), atol=5e-3)
    assert_allclose(fit.items["difficulty"], np.exp(-glad.betas_.sort_index().to_numpy()),
                    rtol=2e-2)  # fmt: skip


# ------------------------------------------------------------ hand computations


def test_spammer_score_and_kappa_with_truth_by_hand():
    ratings, _, _ = draw("dawid-skene", 80, 4, 2, seed=5)
    fit = rater_model(ratings, n_bootstrap=0)
    sens, spec = fit.raters["sensitivity"], fit.raters["specificity"]
    # Raykar & Yu (2012), binary case: S = (sensitivity + specificity - 1)^2
    assert_allclose(fit.raters["spammer_score"], (sens + spec - 1) ** 2)
    # kappa with the latent truth: p_o = sum_c pi_c E[c,c], p_e = sum_l pi_l sum_c pi_c E[c,l]
    pi, e = fit.prevalence, fit.confusion
    po = pi[0] * e[:, 0, 0] + pi[1] * e[:, 1, 1]
    q1 = pi[0] * e[:, 0, 1] + pi[1] * e[:, 1, 1]
    pe = pi[0] * (1 - q1) + pi[1] * q1
    assert_allclose(fit.raters["kappa_truth"], (po - pe) / (1 - pe))


def test_observed_fleiss_is_fleiss_kappa():
    ratings, _, _ = draw("dawid-skene", 60, 5, 3, seed=6, density=1.0)
    fit = rater_model(ratings, n_bootstrap=0)
    assert_allclose(fit.reliability.observed_fleiss_kappa, accord.fleiss_kappa(ratings).statistic)


def test_perfect_raters_imply_kappa_one_and_a_spammer_scores_zero():
    n = np.zeros((6, 3, 2))
    n[:3, :, 0] = 1
    n[3:, :, 1] = 1
    fit = rater_model_from_counts(n, n_bootstrap=0)
    assert_allclose(fit.reliability.expected_pairwise_kappa, 1.0, atol=1e-8)
    assert_allclose(fit.raters["spammer_score"], 1.0, atol=1e-8)
    from accord.truth._quality import spammer_score

    same_rows = np.array([[[0.3, 0.7], [0.3, 0.7]]])
    assert_allclose(spammer_score(same_rows), [0.0])


def test_gold_only_confusion_by_hand():
    # 4 items, gold on items 0 (label 0) and 1 (label 1); rater 0 says 0, 0; rater 1 says 0, 1
    n = np.zeros((4, 2, 2))
    n[0, 0, 0] = n[1, 0, 0] = n[0, 1, 0] = n[1, 1, 1] = 1
    n[2, :, 1] = n[3, :, 0] = 1
    fit = rater_model_from_counts(n, gold={0: 0, 1: 1}, n_bootstrap=0)
    assert_allclose(fit.gold_confusion[0], [[1.0, 0.0], [1.0, 0.0]])
    assert_allclose(fit.gold_confusion[1], [[1.0, 0.0], [0.0, 1.0]])
    assert fit.raters["gold_accuracy"].tolist() == [0.5, 1.0]
    assert fit.n_gold == 2 and set(fit.review["item"]) == {2, 3}


def test_next_label_gain_by_hand():
    # one item with posterior (0.5, 0.5), the average rater right with 0.8: a new label
    # moves the posterior to (0.8, 0.2) either way, so H after = H(0.8) and the gain 1 - H(0.8)
    from accord.truth._em import Params
    from accord.truth._quality import next_label_gain

    table = np.array([[[0.8, 0.2], [0.2, 0.8]]])
    params = Params(np.array([0.5, 0.5]), table, table)
    expected, gain = next_label_gain(2, params, np.array([[0.5, 0.5]]), np.array([3.0]))
    h = -(0.8 * np.log2(0.8) + 0.2 * np.log2(0.2))
    assert_allclose(expected, [h])
    assert_allclose(gain, [1 - h])


# ------------------------------------------------------------ behaviour


def test_warns_naming_the_model_at_the_iteration_limit():
    ratings, _, _ = draw("dawid-skene", 50, 4, 3, seed=7)
    with pytest.warns(accord.AccordWarning, match="dawid-skene: EM stopped at max_iter=2") as w:
        fit = rater_model(ratings, max_iter=2, n_bootstrap=0)
    assert not fit.converged and fit.n_iter == 2
    assert {r.filename for r in w} == {__file__}  # the warning points at the user's call


def test_log_likelihood_path_rises():
    ratings, _, _ = draw("dawid-skene", 100, 5, 3, seed=8)
    for model in ("dawid-skene", "one-coin"):
        path = np.diff(rater_model(ratings, model=model, n_bootstrap=0).log_likelihood)
        assert np.all(path > -1e-8)


def test_bootstrap_is_seeded_and_covers_the_estimate():
    ratings, _, _ = draw("dawid-skene", 80, 4, 2, seed=9)
    a = rater_model(ratings, n_bootstrap=30, rng=3)
    b = rater_model(ratings, n_bootstrap=30, rng=3)
    pd.testing.assert_frame_equal(a.raters, b.raters)
    r = a.raters
    assert np.all(r["accuracy_low"] <= r["accuracy_high"])
    assert np.isfinite(a.reliability.expected_fleiss_low)
    assert a.items["probability_low"].between(0, 1).all()


def test_few_resamples_warn_naming_n_bootstrap_and_the_default_does_not():
    # The project's convention (accord._bootstrap.warn_few_replicates, Efron & Tibshirani
    # 1993): a percentile interval read from fewer than 1000 replicates warns.
    ratings, _, _ = draw("dawid-skene", 30, 3, 2, seed=9)
    few = r"only 30 bootstrap replicates \(n_bootstrap=30\)"
    with pytest.warns(accord.AccordWarning, match=few) as w:
        rater_model(ratings, n_bootstrap=30)
    with pytest.warns(accord.AccordWarning, match=few) as w_frame:
        rater_model(ratings.to_pandas(), item="item", rater="rater", label="label",
                    n_bootstrap=30)  # fmt: skip
    with pytest.warns(accord.AccordWarning, match=few) as w_counts:
        rater_model_from_counts(np.ones((4, 3, 2)), n_bootstrap=30)
    # Each warning points at the user's call, not into accord (whichever door was used).
    assert {r.filename for r in [*w, *w_frame, *w_counts]} == {__file__}
    with warnings.catch_warnings():
        warnings.simplefilter("error", accord.AccordWarning)
        fit = rater_model(ratings, model="one-coin")
    assert fit.n_bootstrap == 1000


@pytest.mark.parametrize("model", ["dawid-skene", "one-coin", "mace", "glad"])
def test_em_stops_only_once_the_posteriors_settle(model):
    # The documented criterion: at convergence, one more EM iteration moves no posterior by
    # more than sqrt(tol) (besides the log-likelihood gaining less than tol per rating).
    from accord.truth._design import design_from_codes
    from accord.truth._em import Options, e_step, fit_em, m_step

    ratings, _, _ = draw(model, 60, 4, 3, seed=12)
    design = design_from_codes(
        ratings.item_codes, ratings.rater_codes, ratings.label_codes, n_items=ratings.n_items,
        n_raters=ratings.n_raters, q=ratings.n_categories,
        gold=np.full(ratings.n_items, -1, dtype=np.int64),
    )  # fmt: skip
    tol = 1e-6
    options = Options(tol=tol, max_iter=2000)
    fit = fit_em(design, model, options)
    assert fit.converged
    again, _ = e_step(design, m_step(design, fit.posterior, model, options, fit.params))
    assert np.max(np.abs(again - fit.posterior)) <= np.sqrt(tol)


def test_tables_and_methods_text():
    ratings, _, _ = draw("mace", 40, 4, 3, seed=10)
    fit = rater_model(ratings, model="mace", n_bootstrap=0)
    assert list(fit.to_frame("items").columns[:3]) == ["item", "label", "probability"]
    assert fit.next_items(5)["rank"].tolist() == [1, 2, 3, 4, 5]
    by_entropy = fit.review.sort_values("entropy", ascending=False)
    assert by_entropy["entropy_rank"].iloc[0] == 1
    assert fit.confusion_frame(0).shape == (3, 3)
    text = fit.methods_text()
    assert "MACE" in text and "Hovy" in text and f"{fit.n_iter} iterations" in text
    from accord._results import dumps

    assert dumps(fit)  # JSON-able


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"model": "ds"}, "'model' parameter of rater_model must be one of"),
        ({"tol": 0}, "'tol' parameter of rater_model must be a positive number"),
        ({"max_iter": 0}, "'max_iter' parameter of rater_model must be an integer >= 1"),
        ({"gold": {0: "zzz"}}, "gold: label 'zzz' is not among the categories"),
        ({"gold": {"nope": 0}}, "gold: no item of the ratings has a gold label"),
    ],
)
def test_bad_options(options, match):
    ratings, _, _ = draw("dawid-skene", 10, 3, 2, seed=11)
    with pytest.raises(InvalidInputError, match=match):
        rater_model(ratings, n_bootstrap=0, **options)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), model=st.sampled_from(["dawid-skene", "one-coin", "mace"]))
def test_relabelling_and_rater_order_do_not_change_the_fit(seed, model):
    rng = np.random.default_rng(seed)
    n = rng.integers(0, 2, size=(12, 4, 3)).astype(float)
    n[:, :, 2] = 0
    n[n.sum(axis=2) == 0, 2] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        base = rater_model_from_counts(n, model=model, n_bootstrap=0, max_iter=200)
        swapped = rater_model_from_counts(n[:, ::-1, ::-1], model=model, n_bootstrap=0,
                                          max_iter=200)  # fmt: skip
    post = base.items[["p_0", "p_1", "p_2"]].to_numpy()
    post_swapped = swapped.items[["p_2", "p_1", "p_0"]].to_numpy()
    assert_allclose(post, post_swapped, atol=1e-6)
    assert np.all(base.review["expected_reduction"] >= -1e-12)


def test_anaesthesia_class_probabilities():
    # the counts path equals the long-table path (whose prevalence crowd-kit reproduces above)
    from crowdkit.aggregation import DawidSkene

    fit = rater_model_from_counts(anaesthesia_counts(), categories=[1, 2, 3, 4], n_bootstrap=0)
    ds = DawidSkene(n_iter=300, tol=-np.inf)
    ds.fit_predict_proba(anaesthesia_frame())
    assert_allclose(fit.prevalence, ds.priors_.sort_index().to_numpy(), atol=1e-6)
    assert fit.raters["n_ratings"].tolist() == [135, 45, 45, 45, 45]


def test_raters_per_item_by_hand():
    # perfect raters: every aggregate is right; one rater of accuracy a: a majority of one
    # is right with probability a (Monte-Carlo error of 4000 items x 20 studies ~ 0.002)
    n = np.zeros((40, 4, 2))
    n[:20, :, 0] = 1
    n[20:, :, 1] = 1
    perfect = accord.raters_per_item(rater_model_from_counts(n, n_bootstrap=0), raters=(1, 2))
    assert perfect.table["accuracy"].tolist() == [1.0, 1.0]
    ratings, _, _ = draw("one-coin", 200, 5, 3, seed=12, density=1.0)
    fit = rater_model(ratings, model="one-coin", n_bootstrap=0)
    plan = accord.raters_per_item(fit, raters=(1, 3), n_items=4000, n_simulations=20)
    expected = float(np.average(fit.raters["competence"], weights=fit.raters["n_ratings"]))
    assert abs(plan.table["accuracy_majority"].iloc[0] - expected) < 0.01
    assert plan.table["accuracy"].iloc[1] > plan.table["accuracy"].iloc[0]
    assert np.isnan(plan.table["fleiss_width"].iloc[0]) and plan.table["fleiss_width"].iloc[1] > 0


@pytest.mark.slow
def test_bundled_pandalm_matches_crowdkit():
    from crowdkit.aggregation import DawidSkene

    frame = pd.read_csv(Path(__file__).parents[2] / "examples" / "pandalm.csv")
    ratings = Ratings.from_long(frame, item="item", rater="rater", label="preference")
    fit = rater_model(ratings, n_bootstrap=0, tol=1e-16, max_iter=5000)
    # crowd-kit DawidSkene(n_iter=300, tol=-inf) on the same long table (task, worker, label)
    answers = frame.rename(columns={"item": "task", "rater": "worker", "preference": "label"})
    ds = DawidSkene(n_iter=300, tol=-np.inf)
    probas = ds.fit_predict_proba(answers).sort_index()[["first", "second", "tie"]]
    assert_allclose(fit.items[["p_first", "p_second", "p_tie"]].to_numpy(), probas.to_numpy(),
                    atol=1e-5)  # fmt: skip


def test_figures_draw_the_results_numbers():
    ratings, _, _ = draw("dawid-skene", 60, 4, 3, seed=13)
    fit = rater_model(ratings, n_bootstrap=20)
    ax = accord.rater_quality_plot(fit).axes[0]
    drawn = sorted(ax.lines[0].get_xdata().tolist())
    assert_allclose(drawn, sorted(fit.raters["accuracy"]))
    grid = accord.confusion_grid(fit, columns=2)
    assert len(grid.axes) == 4
    assert_allclose(grid.axes[1].images[0].get_array(), fit.confusion[1])
    with pytest.raises(InvalidInputError, match="rater_quality_plot takes a RaterModel"):
        accord.rater_quality_plot(fit.raters)


def test_a_rater_without_ratings_changes_no_implied_agreement():
    ratings, _, _ = draw("dawid-skene", 50, 4, 3, seed=14, density=1.0)
    counts = np.zeros((50, 5, 3))
    counts[ratings.item_codes, ratings.rater_codes, ratings.label_codes] = 1
    with_idle = rater_model_from_counts(counts, n_bootstrap=0)
    without = rater_model_from_counts(counts[:, :4], n_bootstrap=0)
    assert_allclose(with_idle.reliability.expected_pairwise_kappa,
                    without.reliability.expected_pairwise_kappa)  # fmt: skip
    assert np.isnan(with_idle.raters["accuracy"].iloc[4])


@pytest.mark.parametrize("q", [2, 3, 5, 7, 8, 11])
def test_e_step_row_reductions_are_numpys_to_the_last_bit(q: int) -> None:
    # The E step normalises its logits a column at a time; the maxima and the sums must be
    # numpy's own row reductions exactly (same posteriors, same EM path).
    from accord.truth._em import _row_max, _row_sum

    x = np.random.default_rng(q).normal(0.0, 3.0, (20_000, q))
    assert np.array_equal(_row_max(x), x.max(axis=1, keepdims=True))
    e = np.exp(x - x.max(axis=1, keepdims=True))
    assert np.array_equal(_row_sum(e), e.sum(axis=1, keepdims=True))


# ------------------------------------------------------------ SQUAREM


def _fits(ratings: Ratings, model: str, **options: object) -> tuple[object, object]:
    """The fit with SQUAREM's steps, and the one of plain EM."""
    from accord.truth import _em

    fast = rater_model(ratings, model=model, n_bootstrap=0, **options)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_em, "ACCELERATED", frozenset())
        plain = rater_model(ratings, model=model, n_bootstrap=0, **options)
    return fast, plain


@pytest.mark.parametrize("model", ["dawid-skene", "one-coin"])
def test_squarem_reaches_the_fixed_point_of_em_in_fewer_steps(model: str) -> None:
    # 80 raters with 24 ratings each: plain EM crawls (73 and 103 steps)
    ratings, _, _ = draw(model, 400, 80, 3, seed=1, density=0.06)
    fast, plain = _fits(ratings, model)
    assert fast.converged and plain.converged
    assert fast.n_iter < plain.n_iter
    assert np.all(np.diff(fast.log_likelihood) >= 0)  # a step is kept only if it gains
    # run to a tight tolerance both ways: the same fixed point
    fast_end, fixed = _fits(ratings, model, tol=1e-14, max_iter=20_000)
    assert fast_end.converged and fixed.converged and fast_end.n_iter < fixed.n_iter
    assert_allclose(fast_end.raters["accuracy"], fixed.raters["accuracy"], rtol=0, atol=1e-8)
    # at the default tolerance, no farther from it than plain EM stops

    def off(fit: object) -> float:
        return float(np.max(np.abs(fit.raters["accuracy"] - fixed.raters["accuracy"])))

    assert off(fast) <= off(plain)
    assert "SQUAREM steps after 10 plain ones" in fast.method


def test_a_fit_that_settles_in_ten_steps_is_plain_em() -> None:
    from accord.truth._em import PLAIN_STEPS

    # 30 raters of 90% of the items: plain EM settles at its 10th step, the last before a jump
    ratings, _, _ = draw("dawid-skene", 300, 30, 3, seed=1, density=0.9)
    fast, plain = _fits(ratings, "dawid-skene")
    assert plain.n_iter == PLAIN_STEPS
    assert fast.log_likelihood == plain.log_likelihood
    assert_allclose(fast.items.filter(like="p_"), plain.items.filter(like="p_"), rtol=0, atol=0)
