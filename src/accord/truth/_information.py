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


def information_parameters(n_raters: int, q: int) -> int:
    """Free parameters of the Dawid-Skene model: ``q - 1`` for the prevalence and ``q - 1``
    for each row of each rater's confusion matrix."""
    return int(n_raters * q * (q - 1) + q - 1)


def _free_indices(prior: FloatArray, confusion: FloatArray) -> tuple[IntArray, IntArray, int]:
    """The coordinate of each prevalence cell (q,) and each confusion cell (R, q, q), -1 for
    the largest cell of each simplex, and the number of coordinates."""
    q = prior.size
    idx_pi = np.full(q, -1, dtype=np.int64)
    free = np.arange(q) != int(np.argmax(prior))
    idx_pi[free] = np.arange(q - 1)
    ref = confusion.argmax(axis=2)  # (R, q)
    keep = np.arange(q)[None, None, :] != ref[:, :, None]
    idx_e = np.full(confusion.shape, -1, dtype=np.int64)
    idx_e[keep] = q - 1 + np.arange(int(keep.sum()))
    return idx_pi, idx_e, q - 1 + int(keep.sum())


def _scores(design: Design, params: Params, idx_pi: IntArray, idx_e: IntArray, p: int) -> Any:
    """The complete-data scores ``s_ic`` as a sparse matrix, row ``i * q + c``, shape
    (n_items * q, p)."""
    from scipy import sparse

    q, pi, e = design.q, params.prior, params.confusion
    rows, cols, vals = [], [], []
    ref_pi = int(np.flatnonzero(idx_pi < 0)[0])
    for c in range(q):  # d log pi_c / d pi_k = [k == c] / pi_c - [c == ref] / pi_ref
        ks = np.flatnonzero(idx_pi >= 0) if c == ref_pi else np.array([c])
        sign = -1.0 if c == ref_pi else 1.0
        for k in ks:
            rows.append(np.arange(design.n_items) * q + c)
            cols.append(np.full(design.n_items, idx_pi[k]))
            vals.append(np.full(design.n_items, sign / pi[c]))
    # d (w log E[r,c,l]) / d E[r,c,k] = w ([k == l] / E[r,c,l] - [l == ref] / E[r,c,ref])
    i, r, lab, w = design.item, design.rater, design.label, design.weight
    for c in range(q):
        ref = idx_e[r, c, lab] < 0
        for k in range(q):
            col = idx_e[r, c, k]
            own = (lab == k) & ~ref
            hit = (col >= 0) & (own | ref)
            value = np.where(own, w / e[r, c, lab], -w / e[r, c, lab])
            rows.append(i[hit] * q + c)
            cols.append(col[hit])
            vals.append(value[hit])
    shape = (design.n_items * q, p)
    matrix = sparse.coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                               shape=shape)  # fmt: skip
    return matrix.tocsr()


def _complete_information(
    design: Design, params: Params, posterior: FloatArray, idx: tuple[IntArray, IntArray, int]
) -> FloatArray:
    """``sum_i sum_c T_ic H_ic``: the expected complete-data information, shape (p, p)."""
    idx_pi, idx_e, p = idx
    out = np.zeros((p, p))
    t = posterior[design.rated].sum(axis=0)
    _simplex_block(out, t, params.prior, idx_pi)
    counts = expected_counts(design, posterior)
    for r in range(design.n_raters):
        for c in range(design.q):
            _simplex_block(out, counts[r, c], params.confusion[r, c], idx_e[r, c])
    return out


def _simplex_block(out: FloatArray, n: FloatArray, prob: FloatArray, idx: IntArray) -> None:
    """Add the information of ``sum_k n_k log prob_k`` in the free coordinates ``idx`` of
    the simplex: ``n_k / prob_k^2`` on the diagonal, ``n_ref / prob_ref^2`` everywhere."""
    free = idx >= 0
    ref = int(np.flatnonzero(~free)[0])
    at = idx[free]
    out[np.ix_(at, at)] += n[ref] / prob[ref] ** 2
    out[at, at] += n[free] / prob[free] ** 2


def accuracy_standard_errors(design: Design, params: Params, posterior: FloatArray) -> FloatArray:
    """The standard error of each rater's accuracy (``sum_n T[i_n, l_n] / n_r``) from the
    observed information of the Dawid-Skene model at ``params`` (Louis 1982) by the delta
    method, shape (n_raters,); NaN where the information cannot be inverted or the rater
    has no rating."""
    from scipy import sparse

    q, n = design.q, design.n_items
    idx = _free_indices(params.prior, params.confusion)
    scores = _scores(design, params, *idx)
    t = np.where(design.rated[:, None], posterior, 0.0)
    spread = sparse.csr_matrix(
        (t.ravel(), (np.repeat(np.arange(n), q), np.arange(n * q))), shape=(n, n * q)
    )
    mean = (spread @ scores).tocsr()  # (n, p), sparse: sbar_i touches its raters' cells
    weighted = scores.multiply(t.ravel()[:, None]).tocsr()
    covariance = np.asarray((scores.T @ weighted).todense()) - (mean.T @ mean).toarray()
    info = _complete_information(design, params, posterior, idx) - covariance
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
