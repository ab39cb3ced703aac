"""Observed-information intervals of the raters' accuracies (rater_model(...,
interval="observed-information")): Louis's (1982) formula against the finite-difference
Hessian of the Dawid-Skene marginal log-likelihood, computed here from the counts
n[i, r, l] with its own parametrization (the last cell of each simplex written as one minus
the others), and the delta method with a finite-difference gradient of the accuracy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.special import logsumexp
from scipy.stats import norm

import accord
from accord import InvalidInputError

from .test_rater_models import draw


def _counts(ratings: accord.Ratings) -> np.ndarray:
    n = np.zeros((ratings.n_items, ratings.n_raters, ratings.n_categories))
    np.add.at(n, (ratings.item_codes, ratings.rater_codes, ratings.label_codes), 1.0)
    return n


def _unpack(theta: np.ndarray, n_raters: int, q: int) -> tuple[np.ndarray, np.ndarray]:
    pi = np.append(theta[: q - 1], 1 - theta[: q - 1].sum())
    free = theta[q - 1 :].reshape(n_raters, q, q - 1)
    e = np.concatenate([free, 1 - free.sum(axis=2, keepdims=True)], axis=2)
    return pi, e


def _joint(theta: np.ndarray, n: np.ndarray) -> np.ndarray:
    """log P(ratings of i, true label c), shape (n_items, q)."""
    pi, e = _unpack(theta, n.shape[1], n.shape[2])
    return np.log(pi)[None, :] + np.einsum("irl,rcl->ic", n, np.log(e))


def _log_likelihood(
    theta: np.ndarray, n: np.ndarray, gold: np.ndarray, smoothing: float = 0.0
) -> float:
    """Gold items (gold >= 0) enter with their known label: log P(ratings, label); a
    pseudo-count adds ``smoothing * sum log E`` (the log of a Dirichlet prior on each
    confusion row, up to a constant), the objective whose maximum the smoothed M step finds."""
    joint = _joint(theta, n)
    known = gold >= 0
    penalty = smoothing * np.log(_unpack(theta, n.shape[1], n.shape[2])[1]).sum()
    return float(logsumexp(joint[~known], axis=1).sum() + joint[known, gold[known]].sum() + penalty)


def _accuracy(theta: np.ndarray, n: np.ndarray, gold: np.ndarray) -> np.ndarray:
    joint = _joint(theta, n)
    post = np.exp(joint - logsumexp(joint, axis=1, keepdims=True))
    known = np.flatnonzero(gold >= 0)
    post[known] = np.eye(n.shape[2])[gold[known]]
    return np.einsum("irl,il->r", n, post) / n.sum(axis=(0, 2))


def _hessian(f, x: np.ndarray, h: float = 1e-5) -> np.ndarray:
    p = x.size
    out = np.zeros((p, p))
    step = np.eye(p) * h
    for a in range(p):
        for b in range(a, p):
            out[a, b] = out[b, a] = (
                f(x + step[a] + step[b]) - f(x + step[a] - step[b])
                - f(x - step[a] + step[b]) + f(x - step[a] - step[b])
            ) / (4 * h * h)  # fmt: skip
    return out


def _jacobian(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    return np.column_stack([(f(x + d) - f(x - d)) / (2 * h) for d in np.eye(x.size) * h])


@pytest.mark.parametrize(
    ("n_raters", "q", "seed", "n_gold", "smoothing"),
    [(3, 2, 23, 0, 0.0), (4, 3, 31, 0, 0.0), (3, 2, 23, 40, 0.0), (3, 2, 23, 0, 0.5),
     (4, 3, 31, 20, 2.0)],
)  # fmt: skip
def test_standard_errors_match_the_finite_difference_hessian(
    n_raters, q, seed, n_gold, smoothing
) -> None:
    ratings, _, truth = draw("dawid-skene", 300, n_raters, q, seed=seed, density=0.9)
    gold = np.full(ratings.n_items, -1)
    gold[:n_gold] = truth[ratings.items[:n_gold].astype(int)]
    known = {ratings.items[i]: int(gold[i]) for i in range(n_gold)}
    fit = accord.rater_model(ratings, interval="observed-information", n_bootstrap=0,
                             tol=1e-14, max_iter=5000, level=0.9, gold=known or None,
                             smoothing=smoothing)  # fmt: skip
    assert fit.n_gold == n_gold
    n = _counts(ratings)
    theta = np.concatenate([fit.prevalence[: q - 1], fit.confusion[:, :, : q - 1].ravel()])
    # the fit is the maximum of the (penalised) objective: its gradient vanishes there
    score = _jacobian(lambda t: np.array([_log_likelihood(t, n, gold, smoothing)]), theta)
    assert np.abs(score).max() < 1e-3
    hess = _hessian(lambda t: _log_likelihood(t, n, gold, smoothing), theta)
    grad = _jacobian(lambda t: _accuracy(t, n, gold), theta)
    expected = np.sqrt(np.einsum("rp,pr->r", grad, np.linalg.solve(-hess, grad.T)))
    raters = fit.raters
    assert_allclose(raters["accuracy"], _accuracy(theta, n, gold), rtol=1e-7)
    assert_allclose(raters["accuracy_se"], expected, rtol=1e-4)
    z = norm.ppf(0.95)
    assert_allclose(raters["accuracy_low"], raters["accuracy"] - z * expected, rtol=1e-4)
    assert_allclose(raters["accuracy_high"], raters["accuracy"] + z * expected, rtol=1e-4)
    assert fit.interval == "observed-information"


def _one_coin_theta_to_e(theta: np.ndarray, n_raters: int, q: int) -> np.ndarray:
    """The one-coin parameters [pi_1..pi_{q-1}, s_1..s_R] as the general ones (pi free
    cells, then each confusion row's first q - 1 cells)."""
    skill = theta[q - 1 :]
    e = np.repeat(((1 - skill) / (q - 1))[:, None, None], q, 1).repeat(q, 2)
    e[:, np.arange(q), np.arange(q)] = skill[:, None]
    return np.concatenate([theta[: q - 1], e[:, :, : q - 1].ravel()])


@pytest.mark.parametrize(("n_raters", "q", "seed", "n_gold"), [(4, 3, 7, 0), (3, 2, 11, 30)])
def test_one_coin_standard_errors_match_the_finite_difference_hessian(
    n_raters, q, seed, n_gold
) -> None:
    ratings, _, truth = draw("one-coin", 300, n_raters, q, seed=seed, density=0.9)
    known = {ratings.items[i]: int(truth[int(ratings.items[i])]) for i in range(n_gold)}
    gold = np.full(ratings.n_items, -1)
    gold[:n_gold] = [known[ratings.items[i]] for i in range(n_gold)]
    fit = accord.rater_model(ratings, model="one-coin", interval="observed-information",
                             n_bootstrap=0, tol=1e-14, max_iter=5000,
                             gold=known or None)  # fmt: skip
    n = _counts(ratings)
    theta = np.concatenate([fit.prevalence[: q - 1], fit.confusion[:, 0, 0]])
    general = lambda t: _one_coin_theta_to_e(t, n_raters, q)  # noqa: E731
    hess = _hessian(lambda t: _log_likelihood(general(t), n, gold), theta)
    grad = _jacobian(lambda t: _accuracy(general(t), n, gold), theta)
    expected = np.sqrt(np.einsum("rp,pr->r", grad, np.linalg.solve(-hess, grad.T)))
    assert_allclose(fit.raters["accuracy_se"], expected, rtol=1e-4)
    assert np.all(fit.raters["accuracy_low"] < fit.raters["accuracy"])


def test_the_other_intervals_still_come_from_the_bootstrap() -> None:
    ratings, _, _ = draw("dawid-skene", 100, 3, 2, seed=23, density=0.9)
    with warnings.catch_warnings():  # 30 resamples (fewer than an interval needs) suffice here
        warnings.simplefilter("ignore", accord.AccordWarning)
        info = accord.rater_model(ratings, interval="observed-information", n_bootstrap=30,
                                  rng=2)  # fmt: skip
        boot = accord.rater_model(ratings, n_bootstrap=30, rng=2)
    assert_allclose(info.raters["kappa_truth_low"], boot.raters["kappa_truth_low"])
    assert_allclose(info.items["probability_low"], boot.items["probability_low"])
    assert not np.allclose(info.raters["accuracy_low"], boot.raters["accuracy_low"])
    assert "accuracy_se" not in boot.raters
    text = info.methods_text()
    assert "Wald intervals (95%) from the observed information" in text and "Louis" in text
    assert "The other intervals (95%) are percentile intervals of 30 bootstrap" in text


@pytest.mark.parametrize("model", ["mace", "glad"])
def test_observed_information_needs_the_dawid_skene_likelihood(model) -> None:
    ratings, _, _ = draw("dawid-skene", 30, 3, 2, seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(InvalidInputError, match="needs model='dawid-skene' or 'one-coin'"):
            accord.rater_model(ratings, interval="observed-information", n_bootstrap=0,
                               model=model)  # fmt: skip
    with pytest.raises(InvalidInputError, match="'interval' parameter of rater_model"):
        accord.rater_model(ratings, interval="wald", n_bootstrap=0)


def test_observed_information_refuses_more_parameters_than_it_forms() -> None:
    # 201 raters in 5 categories: 201 * 5 * 4 + 4 = 4,024 free parameters, over the 4,000 the
    # dense information matrix is formed for (2,000 raters would ask 12.8 GB for it).
    from accord.truth.model import MAX_INFORMATION_PARAMETERS

    assert MAX_INFORMATION_PARAMETERS == 4_000
    rng = np.random.default_rng(2)
    ratings = accord.Ratings.from_arrays(
        np.repeat(np.arange(400), 3), np.arange(1200) % 201, rng.integers(0, 5, 1200)
    )
    assert ratings.n_raters == 201 and ratings.n_categories == 5
    with pytest.raises(InvalidInputError, match=r"4,024 parameters \(201 raters in 5 categ"):
        accord.rater_model(ratings, interval="observed-information", n_bootstrap=0)
