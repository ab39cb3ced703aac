"""Observed information of the Dawid-Skene model by Louis's (1982) formula, and the standard
errors of the raters' accuracies it gives by the delta method.

The parameters are the free coordinates of the prevalence and of each row of each confusion
matrix: in every simplex the largest cell is the one written as one minus the others (the
interval does not depend on which cell that is, the change between two choices being linear;
the largest keeps the arithmetic away from the zeros). With ``s_ic`` the score of item ``i``'s
complete-data log-likelihood were its label ``c``, and ``T_ic`` its posterior, Louis's formula
reads

    I = sum_i sum_c T_ic H_ic - sum_i (sum_c T_ic s_ic s_ic' - sbar_i sbar_i'),

``H_ic`` the complete-data information (block diagonal: the expected counts over the squared
cells) and ``sbar_i = sum_c T_ic s_ic`` the score of the observed log-likelihood. A rater's
accuracy ``sum_n T[i_n, l_n] / n_r`` moves with the posteriors, ``dT_ic = T_ic (s_ic -
sbar_i)``, which gives its gradient; gold items (their posteriors clamped) hold it fixed.

With a pseudo-count ``s`` in the M step (``smoothing=``) the fit is the maximum of the
log-likelihood plus ``s sum_{r,c,k} log E_rck`` (the mode under a Dirichlet prior), and the
information is that of this penalised log-likelihood: ``s / E^2`` joins each confusion
row's block of the complete-data information (the Laplace approximation of the posterior).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._types import FloatArray, IntArray
from ._design import Design
from ._em import Params, expected_counts

__all__ = ["MAX_INFORMATION_PARAMETERS", "accuracy_standard_errors", "information_parameters"]

#: Free parameters up to which the observed information is formed and inverted: a dense
#: p x p matrix (128 MB at 4,000) and a solve of order p^3 (a few seconds at 4,000).
MAX_INFORMATION_PARAMETERS = 4_000


def information_parameters(n_raters: int, q: int, one_coin: bool = False) -> int:
    """Free parameters of the Dawid-Skene model: ``q - 1`` for the prevalence and ``q - 1``
    for each row of each rater's confusion matrix (one skill a rater for the one coin)."""
    return int((n_raters if one_coin else n_raters * q * (q - 1)) + q - 1)


Indices = tuple[IntArray, IntArray, int]


def _free_indices(params: Params, one_coin: bool) -> Indices:
    """The coordinate of each prevalence cell (q,) and of each rater's parameters (each
    confusion cell (R, q, q), or each one-coin skill (R,)), -1 for the largest cell of each
    simplex, and the number of coordinates."""
    prior, confusion = params.prior, params.confusion
    q, n_raters = prior.size, confusion.shape[0]
    idx_pi = np.full(q, -1, dtype=np.int64)
    free = np.arange(q) != int(np.argmax(prior))
    idx_pi[free] = np.arange(q - 1)
    if one_coin:
        return idx_pi, q - 1 + np.arange(n_raters, dtype=np.int64), q - 1 + n_raters
    ref = confusion.argmax(axis=2)  # (R, q)
    keep = np.arange(q)[None, None, :] != ref[:, :, None]
    idx_e = np.full(confusion.shape, -1, dtype=np.int64)
    idx_e[keep] = q - 1 + np.arange(int(keep.sum()))
    return idx_pi, idx_e, q - 1 + int(keep.sum())


Triplets = tuple[list[IntArray], list[IntArray], list[FloatArray]]


def _prior_scores(design: Design, prior: FloatArray, idx_pi: IntArray, out: Triplets) -> None:
    """d log pi_c / d pi_k = [k == c] / pi_c - [c == ref] / pi_ref, for every item."""
    q, n = design.q, design.n_items
    ref_pi = int(np.flatnonzero(idx_pi < 0)[0])
    for c in range(q):
        ks = np.flatnonzero(idx_pi >= 0) if c == ref_pi else np.array([c])
        sign = -1.0 if c == ref_pi else 1.0
        for k in ks:
            out[0].append(np.arange(n) * q + c)
            out[1].append(np.full(n, idx_pi[k]))
            out[2].append(np.full(n, sign / prior[c]))


def _confusion_scores(design: Design, e: FloatArray, idx_e: IntArray, out: Triplets) -> None:
    """d (w log E[r,c,l]) / d E[r,c,k] = w ([k == l] / E[r,c,l] - [l == ref] / E[r,c,ref])."""
    i, r, lab, w = design.item, design.rater, design.label, design.weight
    q = design.q
    for c in range(q):
        ref = idx_e[r, c, lab] < 0
        for k in range(q):
            col = idx_e[r, c, k]
            own = (lab == k) & ~ref
            hit = (col >= 0) & (own | ref)
            value = np.where(own, w / e[r, c, lab], -w / e[r, c, lab])
            out[0].append(i[hit] * q + c)
            out[1].append(col[hit])
            out[2].append(value[hit])


def _skill_scores(design: Design, skill: FloatArray, idx_s: IntArray, out: Triplets) -> None:
    """One coin: log E[r,c,l] is log s_r when l == c, else log (1 - s_r) - log (q - 1), so
    its derivative in s_r is 1 / s_r or -1 / (1 - s_r)."""
    i, r, lab, w = design.item, design.rater, design.label, design.weight
    for c in range(design.q):
        out[0].append(i * design.q + c)
        out[1].append(idx_s[r])
        out[2].append(np.where(lab == c, w / skill[r], -w / (1.0 - skill[r])))


def _scores(design: Design, params: Params, idx: Indices, one_coin: bool) -> Any:
    """The complete-data scores ``s_ic`` as a sparse matrix, row ``i * q + c``, shape
    (n_items * q, p)."""
    from scipy import sparse

    idx_pi, idx_r, p = idx
    out: Triplets = ([], [], [])
    _prior_scores(design, params.prior, idx_pi, out)
    if one_coin:
        assert params.competence is not None
        _skill_scores(design, params.competence, idx_r, out)
    else:
        _confusion_scores(design, params.confusion, idx_r, out)
    rows, cols, vals = (np.concatenate(part) for part in out)
    shape = (design.n_items * design.q, p)
    return sparse.coo_matrix((vals, (rows, cols)), shape=shape).tocsr()


def _complete_information(
    design: Design,
    params: Params,
    posterior: FloatArray,
    idx: Indices,
    smoothing: float,
) -> FloatArray:
    """``sum_i sum_c T_ic H_ic``: the expected complete-data information, shape (p, p), with
    the curvature of the Dirichlet pseudo-counts ``smoothing`` in every confusion row."""
    idx_pi, idx_r, p = idx
    out = np.zeros((p, p))
    t = posterior[design.rated].sum(axis=0)
    _simplex_block(out, t, params.prior, idx_pi)
    counts = expected_counts(design, posterior) + smoothing
    if idx_r.ndim == 1:  # one coin: right and wrong are a two-cell simplex of s_r
        skill = params.competence
        assert skill is not None
        right = np.trace(counts, axis1=1, axis2=2)
        wrong = counts.sum(axis=(1, 2)) - right
        out[idx_r, idx_r] += right / skill**2 + wrong / (1.0 - skill) ** 2
        return out
    for r in range(design.n_raters):
        for c in range(design.q):
            _simplex_block(out, counts[r, c], params.confusion[r, c], idx_r[r, c])
    return out


def _simplex_block(out: FloatArray, n: FloatArray, prob: FloatArray, idx: IntArray) -> None:
    """Add the information of ``sum_k n_k log prob_k`` in the free coordinates ``idx`` of
    the simplex: ``n_k / prob_k^2`` on the diagonal, ``n_ref / prob_ref^2`` everywhere."""
    free = idx >= 0
    ref = int(np.flatnonzero(~free)[0])
    at = idx[free]
    out[np.ix_(at, at)] += n[ref] / prob[ref] ** 2
    out[at, at] += n[free] / prob[free] ** 2


def accuracy_standard_errors(
    design: Design,
    params: Params,
    posterior: FloatArray,
    smoothing: float = 0.0,
    one_coin: bool = False,
) -> FloatArray:
    """The standard error of each rater's accuracy (``sum_n T[i_n, l_n] / n_r``) from the
    observed information of the Dawid-Skene model at ``params`` (Louis 1982) by the delta
    method, shape (n_raters,); NaN where the information cannot be inverted or the rater
    has no rating. With ``smoothing`` (the pseudo-count of the M step, whose fit maximises
    the log-likelihood plus ``smoothing * sum log E``) it is the information of that
    penalised log-likelihood: the pseudo-counts add their curvature to the complete-data
    information and nothing to the scores' covariance, being no data. ``one_coin``: the
    parameters are each rater's skill ``s_r`` (``E[r, c, c] = s_r``, the rest of the row
    ``(1 - s_r) / (q - 1)``) instead of its confusion cells."""
    from scipy import sparse

    q, n = design.q, design.n_items
    idx = _free_indices(params, one_coin)
    scores = _scores(design, params, idx, one_coin)
    t = np.where(design.rated[:, None], posterior, 0.0)
    spread = sparse.csr_matrix(
        (t.ravel(), (np.repeat(np.arange(n), q), np.arange(n * q))), shape=(n, n * q)
    )
    mean = (spread @ scores).tocsr()  # (n, p), sparse: sbar_i touches its raters' cells
    weighted = scores.multiply(t.ravel()[:, None]).tocsr()
    covariance = np.asarray((scores.T @ weighted).todense()) - (mean.T @ mean).toarray()
    info = _complete_information(design, params, posterior, idx, smoothing) - covariance
    # gradient of each accuracy: sum over the rater's ratings of w T_il (s_il - sbar_i) / n_r
    i, r, lab, w = design.item, design.rater, design.label, design.weight
    n_r = np.bincount(r, weights=w, minlength=design.n_raters)
    free = design.gold[i] < 0
    coef = np.where(free, w * posterior[i, lab], 0.0) / np.where(n_r > 0, n_r, 1.0)[r]
    pick = sparse.csr_matrix((coef, (r, i * q + lab)), shape=(design.n_raters, n * q))
    grad = np.asarray((pick @ scores).todense())
    grad -= (sparse.csr_matrix((coef, (r, i)), shape=(design.n_raters, n)) @ mean).toarray()
    try:
        solved = np.linalg.solve(info, grad.T)
    except np.linalg.LinAlgError:
        return np.full(design.n_raters, np.nan)
    var = np.einsum("rp,pr->r", grad, solved)
    ok = (n_r > 0) & np.isfinite(var) & (var >= 0)
    return np.where(ok, np.sqrt(np.where(ok, var, 0.0)), np.nan)
