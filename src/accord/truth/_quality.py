"""What a fitted rater model says about raters, items and agreement: accuracy, spammer
scores, kappa with the latent truth, the agreement the model implies, the items where one
more label would help most, and bootstrap replicates of all of them."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from .._types import FloatArray
from ._design import Design
from ._em import ROWS, Fit, ModelName, Options, Params, e_step, expected_counts, fit_em

__all__ = [
    "ROWS",
    "Replicates",
    "bootstrap",
    "bootstrap_loop",
    "confusion_of_counts",
    "entropy_bits",
    "fleiss_from_counts",
    "gold_confusion",
    "gold_onehot",
    "implied_agreement",
    "next_label_gain",
    "quality_from_counts",
    "rater_quality",
    "spammer_score",
]


def entropy_bits(p: FloatArray, axis: int = -1) -> FloatArray:
    """Shannon entropy in bits along ``axis`` (0 log 0 = 0; a value not above 0, or NaN,
    adds nothing). One temporary of the shape of ``p``.

    >>> float(entropy_bits(np.array([0.5, 0.25, 0.25, 0.0])))
    1.5
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.log2(p)
        terms *= p
    np.copyto(terms, 0.0, where=~(p > 0))
    out: FloatArray = -terms.sum(axis=axis)
    return out


def spammer_score(confusion: FloatArray) -> FloatArray:
    """Raykar & Yu (2012): ``S = 1 / (q (q - 1)) sum_{c < c'} sum_l (a_cl - a_c'l)^2``,
    0 for a rater whose label ignores the truth (all rows alike), 1 for a perfect one;
    ``(sensitivity + specificity - 1)^2`` for two classes. Shape (n_raters,)."""
    q = confusion.shape[1]
    diff = confusion[:, :, None, :] - confusion[:, None, :, :]  # (R, c, c', l)
    out: FloatArray = (diff**2).sum(axis=(1, 2, 3)) / 2 / (q * (q - 1))
    return out


def _kappa_with_truth(
    confusion: FloatArray, prevalence: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Each rater's Cohen kappa with the latent truth, and each rater's label shares."""
    po = np.einsum("c,rcc->r", prevalence, confusion)
    marginal = np.einsum("c,rcl->rl", prevalence, confusion)  # each rater's label shares
    pe = marginal @ prevalence
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa_truth = (po - pe) / (1 - pe)
    return kappa_truth, marginal


#: Raters whose pair kappas :func:`implied_agreement` forms at once (a block of
#: ``PAIR_ROWS x n_raters`` floats: 8 MB for 2,000 raters).
PAIR_ROWS = 512


def implied_agreement(confusion: FloatArray, prevalence: FloatArray) -> dict[str, Any]:
    """Each rater's Cohen kappa with the latent truth, and the mean pairwise Cohen kappa and
    the Fleiss-type kappa (pooled chance) two raters drawn from the model would reach.

    Two raters ``r, s`` agree with probability ``sum_c T_c sum_l E_r[c, l] E_s[c, l]``, the
    product of their confusion matrices flattened, one weighted by the prevalence ``T``:
    the pairs' agreements are a matrix product, formed :data:`PAIR_ROWS` raters at a time,
    and their mean needs only the raters' sums."""
    kappa_truth, marginal = _kappa_with_truth(confusion, prevalence)
    n_r, q = confusion.shape[0], confusion.shape[1]
    flat = confusion.reshape(n_r, q * q)
    weighted = (prevalence[None, :, None] * confusion).reshape(n_r, q * q)
    n_pairs = n_r * (n_r - 1) // 2
    if not n_pairs:
        return {"kappa_truth": kappa_truth, "pairwise": float("nan"), "fleiss": float("nan")}
    summed = 0.0
    for lo in range(0, n_r, PAIR_ROWS):
        hi = min(lo + PAIR_ROWS, n_r)
        chance = marginal[lo:hi] @ marginal.T
        with np.errstate(divide="ignore", invalid="ignore"):
            kappa = (weighted[lo:hi] @ flat.T - chance) / (1 - chance)
        later = np.arange(n_r)[None, :] > np.arange(lo, hi)[:, None]  # each pair once
        summed += float(np.sum(kappa, where=later))
    # the agreements of every ordered pair of raters, less each rater's with itself
    agree = float(weighted.sum(axis=0) @ flat.sum(axis=0)) - float(np.sum(weighted * flat))
    pooled = marginal.mean(axis=0)
    pe_pooled = float(pooled @ pooled)
    fleiss = (agree / 2 / n_pairs - pe_pooled) / (1 - pe_pooled) if pe_pooled < 1 else np.nan
    return {"kappa_truth": kappa_truth, "pairwise": summed / n_pairs, "fleiss": fleiss}


def fleiss_from_counts(votes: FloatArray) -> float:
    """Fleiss' kappa (1971) of item x label counts, items with two or more ratings; with
    unequal counts per item each item's agreement is weighted equally. Summed a block of
    items at a time (no temporary of the shape of ``votes``).

    >>> fleiss_from_counts(np.array([[3.0, 0.0], [0.0, 3.0], [2.0, 1.0]]))
    0.55
    """
    q = votes.shape[1]
    agree, n_kept, n_total, shares = 0.0, 0, 0.0, np.zeros(q)
    for lo in range(0, votes.shape[0], ROWS):
        v = votes[lo : lo + ROWS]
        n = v.sum(axis=1)
        keep = n >= 2
        if not keep.all():
            v, n = v[keep], n[keep]
        agree += float((((v**2).sum(axis=1) - n) / (n * (n - 1))).sum())
        n_kept += n.size
        n_total += float(n.sum())
        shares += v.sum(axis=0)
    if not n_kept:
        return float("nan")
    shares /= n_total
    pe = float(shares @ shares)
    return float((agree / n_kept - pe) / (1 - pe)) if pe < 1 else float("nan")


def rater_quality(
    design: Design, params: Params, posterior: FloatArray, prevalence: FloatArray
) -> dict[str, FloatArray]:
    """Per rater: ratings, expected accuracy on the items rated (``sum_n T[i_n, l_n] /
    n_r``), sensitivity and specificity (two classes; the second category positive),
    competence, spammer score and kappa with the latent truth; shape (n_raters,) each."""
    return quality_from_counts(expected_counts(design, posterior), params, prevalence)


def quality_from_counts(
    counts: FloatArray, params: Params, prevalence: FloatArray
) -> dict[str, FloatArray]:
    """:func:`rater_quality` from the expected counts ``N[r, c, l]`` of the posteriors."""
    n = counts.sum(axis=(1, 2))
    right = np.trace(counts, axis1=1, axis2=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        accuracy = np.where(n > 0, right / n, np.nan)
    conf = params.confusion
    out = {
        "n_ratings": n,
        "accuracy": accuracy,
        "spammer_score": spammer_score(conf),
        "kappa_truth": _kappa_with_truth(conf, prevalence)[0],
    }
    if counts.shape[1] == 2:
        out["sensitivity"] = conf[:, 1, 1]
        out["specificity"] = conf[:, 0, 0]
    if params.competence is not None:
        out["competence"] = params.competence
    for key in out:
        out[key] = np.where(n > 0, out[key], np.nan) if key != "n_ratings" else out[key]
    return out


def gold_confusion(design: Design) -> FloatArray | None:
    """Each rater's confusion matrix from the gold items alone (rows the gold label; NaN
    where the rater rated no gold item of that class), or None without gold."""
    known = design.gold >= 0
    if not known.any():
        return None
    return confusion_of_counts(expected_counts(design, gold_onehot(design.gold, design.q)))


def gold_onehot(gold: Any, q: int) -> FloatArray:
    """Each item's gold label as a row of indicators (zeros where none), (n_items, q)."""
    known = np.flatnonzero(gold >= 0)
    onehot = np.zeros((gold.size, q))
    onehot[known, gold[known]] = 1.0
    return onehot


def confusion_of_counts(counts: FloatArray) -> FloatArray:
    """Rows of ``N[r, c, l]`` as shares (NaN for an empty row)."""
    total = counts.sum(axis=2, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        out: FloatArray = np.where(total > 0, counts / total, np.nan)
    return out


def next_label_gain(
    q: int, params: Params, posterior: FloatArray, n_per_rater: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Each item's expected posterior entropy after one more label, and its reduction.

    The new label comes from the panel's average rater: the rating-weighted mean of the
    raters' confusion matrices (GLAD: the mean ability on the item's own difficulty). With
    ``E[c, l]`` that table, ``P(l) = sum_c T_c E[c, l]`` and the posterior after ``l`` is
    ``T_c E[c, l] / P(l)``; the expected entropy after is ``sum_l P(l) H(T | l)``.

    With ``J = T_c E[c, l]``, ``sum_l P(l) H(T | l) = -sum_{c,l} J log J + sum_l P(l) log
    P(l)`` (no division). One table for every item (Dawid-Skene, one-coin) splits the first
    term, ``log J = log T_c + log E[c, l]``: ``sum_c (-T_c log T_c) s_c + sum_c T_c g_c``
    with ``s_c`` the sum and ``g_c`` the entropy of row ``c`` of ``E`` over its entries
    above 0 (the terms of ``J`` above 0), so that the items cost two products with ``q x
    q`` of the table and two logarithms an entry of the posterior, not ``q`` of them.
    """
    if params.difficulty is None:
        w = n_per_rater / max(float(n_per_rater.sum()), 1e-12)
        return _gain_of_one_table(np.einsum("r,rcl->cl", w, params.confusion), posterior)
    assert params.competence is not None
    ability = float(np.average(params.competence, weights=np.maximum(n_per_rater, 1e-12)))
    skill = 1.0 / (1.0 + np.exp(-ability * np.exp(params.difficulty)))
    table = np.repeat(((1 - skill) / (q - 1))[:, None, None], q, axis=1).repeat(q, axis=2)
    table[:, np.arange(q), np.arange(q)] = skill[:, None]
    # a table an item (GLAD): label by label, arrays of shape (n_items, q), never
    # (n_items, q, q)
    expected = np.zeros(posterior.shape[0])
    for label in range(q):
        joint = posterior * table[:, :, label]  # (n, c)
        expected += entropy_bits(joint, axis=1)
        expected -= entropy_bits(joint.sum(axis=1)[:, None], axis=1)
    return expected, entropy_bits(posterior) - expected


def _gain_of_one_table(table: FloatArray, posterior: FloatArray) -> tuple[FloatArray, FloatArray]:
    """:func:`next_label_gain` when every item's next label comes from ``table`` (q, q)."""
    kept = table > 0  # NaN and 0 entries add nothing, as in entropy_bits
    with np.errstate(divide="ignore", invalid="ignore"):
        row_sum = np.where(kept, table, 0.0).sum(axis=1)
        row_entropy = -np.where(kept, table * np.log2(table), 0.0).sum(axis=1)
        terms = np.log2(posterior)  # -T log T, 0 where T is not above 0
        terms *= posterior
    np.copyto(terms, 0.0, where=~(posterior > 0))
    np.negative(terms, out=terms)
    entropy = terms.sum(axis=1)
    expected = terms @ row_sum
    del terms
    expected += posterior @ row_entropy
    expected -= entropy_bits(posterior @ table, axis=1)
    return expected, entropy - expected


@dataclasses.dataclass(frozen=True, slots=True)
class Replicates:
    """Bootstrap replicates: per rater (B, n_raters) arrays by name, the implied agreement
    (B,) by name, and each item's posterior of its fitted label (B, n_items)."""

    raters: dict[str, FloatArray]
    agreement: dict[str, FloatArray]
    items: FloatArray


def _replicate(
    design: Design, fit: Fit, model: ModelName, options: Options, rows: Any
) -> tuple[dict[str, FloatArray], dict[str, float], FloatArray]:
    start = fit.params
    if start.difficulty is not None:
        start = dataclasses.replace(start, difficulty=start.difficulty[rows])
    sub = design.take(rows)
    # plain EM steps from the fit, as the resamples refitted in blocks take them
    again = fit_em(sub, model, options, start, warn=False, accelerate=False)
    prevalence = again.posterior[sub.rated].mean(axis=0)
    quality = rater_quality(sub, again.params, again.posterior, prevalence)
    active = quality["n_ratings"] > 0  # a rater absent from the resample has no table
    implied = implied_agreement(again.params.confusion[active], prevalence)
    params = again.params
    if params.difficulty is not None:
        params = dataclasses.replace(params, difficulty=fit.params.difficulty)
    full, _ = e_step(design, params)
    label = fit.posterior.argmax(axis=1)
    return quality, implied, full[np.arange(design.n_items), label]


def bootstrap(
    design: Design,
    fit: Fit,
    model: ModelName,
    options: Options,
    n_boot: int,
    rng: np.random.Generator,
) -> Replicates:
    """Refit on ``n_boot`` resamples of the items (with replacement), each EM started from
    the fitted parameters (Dawid-Skene: a block of resamples at a time, as
    :func:`._batched.dawid_skene_replicates`; the others one at a time)."""
    if model == "dawid-skene":
        from ._batched import dawid_skene_replicates

        return Replicates(*dawid_skene_replicates(design, fit, options, n_boot, rng))
    return bootstrap_loop(design, fit, model, options, n_boot, rng)


def bootstrap_loop(
    design: Design,
    fit: Fit,
    model: ModelName,
    options: Options,
    n_boot: int,
    rng: np.random.Generator,
) -> Replicates:
    """:func:`bootstrap` one resample at a time: each resample's design, refitted."""
    raters: dict[str, list[FloatArray]] = {}
    agreement: dict[str, list[float]] = {"pairwise": [], "fleiss": []}
    items = []
    for _ in range(n_boot):
        rows = rng.integers(design.n_items, size=design.n_items)
        quality, implied, item_p = _replicate(design, fit, model, options, rows)
        for key, value in quality.items():
            raters.setdefault(key, []).append(value)
        agreement["pairwise"].append(implied["pairwise"])
        agreement["fleiss"].append(implied["fleiss"])
        items.append(item_p)
    return Replicates(
        {k: np.vstack(v) for k, v in raters.items()},
        {k: np.asarray(v) for k, v in agreement.items()},
        np.vstack(items) if items else np.empty((0, design.n_items)),
    )
