"""REML variance components of any random-effects design, grouped by the object's pattern.

The model is ``y = mu + sum_e u_e + residual`` with one random effect per effect of the design
but the highest (confounded with the residual), ``u_e ~ N(0, g_e s2)`` and residual variance
``s2``. The effects containing the object of measurement (``p``, ``pr``, ``po``, ...) form a
block for each object (``b`` positions: its levels within one object); the others (``r``,
``o``, ``ro``, ...) and the intercept are the ``w`` columns of ``W``. Henderson's mixed-model
equations are solved by eliminating each object's block exactly, as
:mod:`accord.agreement.icc_mixed` does for the items of the two-way model. An object's
block matrices ``Z_p'Z_p`` and ``Z_p'W`` depend only on which cells it has scores in (its
pattern), so the sums over objects are sums over the distinct patterns of the counts of the
objects, ``sum t_p`` and ``sum t_p t_p'`` (``t_p = Z_p'y``): a complete design has one
pattern, 5% missing cells of a 10 x 2 design a few thousand, whatever the number of objects.
With ``L = diag(sqrt g)``, the profiled REML deviance (Bates et al. 2015, eq. 34-41) is::

    d(g) = (N - 1) log Q + sum_p log|L Z_p'Z_p L + I| + log|S~|
    S~ = L_W (W'W - sum_p B_p' A_p^-1 B_p) L_W + diag(0, I),   A_p^-1 = L (L Z_p'Z_p L + I)^-1 L
    Q = y'y - sum_p t_p' A_p^-1 t_p - h' S^-1 h,   h = W'y - sum_p B_p' A_p^-1 t_p

minimised over ``sqrt g >= 0`` by L-BFGS-B (lme4's parameterisation, its bounds at 0).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math

import numpy as np
import pandas as pd

from .._errors import InvalidInputError
from .._types import FloatArray, IntArray
from .gtheory_design import CodedScores, Effect

__all__ = [
    "PatternSums",
    "REMLComponents",
    "deviance",
    "deviance_gradient",
    "deviance_in_variances",
    "fit_components",
    "gradient_in_variances",
    "pattern_sums",
]


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class PatternSums:
    """The sums REML needs, one row per pattern of an object's cells.

    Attributes
    ----------
    block_effect, w_effect : ndarray of int, shapes (b,), (w,)
        Index (into the random effects) of each block position and each column of ``W``
        (-1: the intercept).
    n_pattern : ndarray, shape (P,)
        Objects with each pattern.
    zz, zw : ndarray, shapes (P, b, b), (P, b, w)
        ``Z_p'Z_p`` and ``Z_p'W`` of an object with each pattern.
    t1, t2 : ndarray, shapes (P, b), (P, b, b)
        ``sum t_p`` and ``sum t_p t_p'`` over its objects.
    ww, wy, yy : ndarray (w, w), ndarray (w,), float
        ``W'W``, ``W'y``, ``y'y`` (scores centred and scaled).
    n_scores : int
    scale : float
        The variance the scores were divided by.
    """

    block_effect: IntArray
    w_effect: IntArray
    n_pattern: FloatArray
    zz: FloatArray
    zw: FloatArray
    t1: FloatArray
    t2: FloatArray
    ww: FloatArray
    wy: FloatArray
    yy: float
    n_scores: int
    scale: float


def _positions(
    scores: CodedScores, effects: tuple[Effect, ...]
) -> tuple[list[IntArray], list[IntArray], IntArray, IntArray]:
    """Per score: its block positions (|B| arrays of N) and W columns (1 + |C| arrays of N);
    the effect of each block position and W column. Block effects are those containing the
    object."""
    design = scores.design
    obj = design.object
    above = design.parents[obj] | {obj}
    pos_cols, block_of, offset = [], [], 0
    w_cols, w_of, w_off = [np.zeros(scores.n_scores, dtype=np.int64)], [-1], 1
    for k, e in enumerate(effects):
        if obj in e.facets:
            rest = [f for f in e.facets if f not in above]
            idx = np.zeros(scores.n_scores, dtype=np.int64)
            size = 1
            for f in rest:
                n_f = scores.per_parent[f] if design.parents[f] & above else scores.levels[f]
                code = scores.local[f] if design.parents[f] & above else scores.codes[f]
                idx, size = idx * n_f + code, size * n_f
            pos_cols.append(offset + idx)
            block_of += [k] * size
            offset += size
        else:
            codes, n_levels = scores.effect_codes(e.facets)
            w_cols.append(w_off + codes)
            w_of += [k] * n_levels
            w_off += n_levels
    return (
        pos_cols,
        w_cols,
        np.asarray(block_of, dtype=np.int64),
        np.asarray(w_of, dtype=np.int64),
    )


def _patterns(obj: IntArray, cell: IntArray, n_obj: int, n_cells: int) -> tuple[IntArray, IntArray]:
    """Pattern id of each object (objects with the same multiset of cells share one) and
    a representative object of each pattern.

    Two hashes of each object's cells, sums of fixed random integers below 2^40 per cell
    (exact in float64 up to 2^13 scores per object): distinct multisets share both with
    probability about 2^-80.
    """
    rng = np.random.default_rng(20011)  # fixed: a hash, not a sample
    keys = rng.integers(1, 2**40, size=(2, n_cells)).astype(np.float64)
    h1 = np.bincount(obj, weights=keys[0][cell], minlength=n_obj)
    h2 = np.bincount(obj, weights=keys[1][cell], minlength=n_obj)
    c1, u1 = pd.factorize(h1)
    c2, _ = pd.factorize(h2)
    pattern, uniq = pd.factorize(c1.astype(np.int64) * (len(u1) + 1) + c2)
    first = np.full(len(uniq), n_obj, dtype=np.int64)
    np.minimum.at(first, pattern, np.arange(n_obj))
    return pattern.astype(np.int64), first


def _group_sum(pattern: IntArray, n_pat: int, values: FloatArray) -> FloatArray:
    """Sums of the rows of ``values`` (shape (n_obj, k)) by pattern: shape (n_pat, k)."""
    from scipy import sparse

    n_obj = pattern.size
    onehot = sparse.csr_matrix((np.ones(n_obj), (pattern, np.arange(n_obj))), shape=(n_pat, n_obj))
    out: FloatArray = np.asarray(onehot @ values)
    return out


def _cell_matrices(
    pos: list[IntArray], wcol: list[IntArray], b: int, w: int
) -> tuple[IntArray, FloatArray, FloatArray]:
    """Each score's cell, and each cell's block-position and W-column indicators."""
    key = np.zeros(pos[0].size, dtype=np.int64)
    for col in pos:
        key = key * b + col
    for col in wcol[1:]:  # the first: the intercept's, 0 for every score
        key = key * w + col
    cell, uniq = pd.factorize(key)
    n_cells = len(uniq)
    first = np.full(n_cells, cell.size, dtype=np.int64)
    np.minimum.at(first, cell, np.arange(cell.size))
    eb = np.zeros((n_cells, b))
    ew = np.zeros((n_cells, w))
    rows = np.arange(n_cells)
    for col in pos:
        eb[rows, col[first]] = 1.0
    for col in wcol:
        ew[rows, col[first]] = 1.0
    return cell.astype(np.int64, copy=False), eb, ew


def pattern_sums(scores: CodedScores, effects: tuple[Effect, ...]) -> PatternSums:
    """The sums of :class:`PatternSums` from coded scores; ``effects``: the random effects."""
    pos, wcol, block_of, w_of = _positions(scores, effects)
    sd = float(np.std(scores.y))
    scale = sd * sd if sd > 0 else 1.0
    y = (scores.y - float(np.mean(scores.y))) / math.sqrt(scale)
    b, w = block_of.size, w_of.size
    obj, n_obj = scores.codes[scores.design.object], scores.levels[scores.design.object]
    cell, eb, ew = _cell_matrices(pos, wcol, b, w)
    n_cells = eb.shape[0]
    pattern, rep = _patterns(obj, cell, n_obj, n_cells)
    n_pat = rep.size
    is_rep = np.zeros(n_obj, dtype=bool)
    is_rep[rep] = True
    mask = is_rep[obj]
    counts = (
        np.bincount(pattern[obj[mask]] * n_cells + cell[mask], minlength=n_pat * n_cells)
        .reshape(n_pat, n_cells)
        .astype(np.float64)
    )
    t = np.zeros((n_obj, b))
    for col in pos:
        t += np.bincount(obj * b + col, weights=y, minlength=n_obj * b).reshape(n_obj, b)
    # sum t_p t_p' by pattern, a column of blocks at a time (not an (objects, b, b) array)
    t2 = np.stack([_group_sum(pattern, n_pat, t * t[:, [j]]) for j in range(b)], axis=2)
    total = np.bincount(cell, minlength=n_cells).astype(np.float64)
    cell_y = np.bincount(cell, weights=y, minlength=n_cells)
    return PatternSums(
        block_effect=block_of,
        w_effect=w_of,
        n_pattern=np.bincount(pattern, minlength=n_pat).astype(np.float64),
        zz=np.einsum("pc,cb,cd->pbd", counts, eb, eb, optimize=True),
        zw=np.einsum("pc,cb,cd->pbd", counts, eb, ew, optimize=True),
        t1=_group_sum(pattern, n_pat, t),
        t2=t2.reshape(n_pat, b, b),
        ww=(ew * total[:, None]).T @ ew,
        wy=ew.T @ cell_y,
        yy=float(y @ y),
        n_scores=int(y.size),
        scale=scale,
    )


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _Evaluation:
    """The profiled REML deviance at ``theta`` and the two sums its gradient is made of, per
    random effect ``k`` (on the spherical scale ``u_k = theta_k b_k``, ``C~ = M~^-1`` the
    inverse of the scaled mixed-model matrix): ``levels_k - tr C~_kk`` and ``|u_k|^2``."""

    deviance: float
    q: float
    free_trace: FloatArray
    u_squared: FloatArray


def _by_effect(effect: IntArray, values: FloatArray, k: int) -> FloatArray:
    """Sums of ``values`` by effect (entries of effect -1, the intercept, left out)."""
    keep = effect >= 0
    out: FloatArray = np.bincount(effect[keep], weights=values[keep], minlength=k).astype(
        np.float64
    )
    return out


def _gradient_sums(
    sums: PatternSums, parts: tuple[FloatArray, ...], k: int
) -> tuple[FloatArray, FloatArray]:
    """``levels_k - tr C~_kk`` and ``|u_k|^2`` per effect from the blocks of one evaluation.

    With ``X_p = A~_p^-1 B~_p`` and ``G = L_W S~^-1 L_W`` the objects' diagonal blocks of
    ``C~`` are ``A~_p^-1 + X_p S~^-1 X_p'``, their modes ``A~_p^-1 L t_p - X_p u_W``
    (``u_W = S~^-1 h``): the sums over the objects of a pattern need only ``sum t_p`` and
    ``sum t_p t_p'``."""
    inv, x, lt1, lt2, lw, s_inv, u_w = parts
    n = sums.n_pattern
    g = lw[:, None] * s_inv * lw[None, :]
    xgx = np.einsum("pbi,pbi->pb", x @ g, x)
    c = x @ (lw * u_w)  # X_p u_W, shape (P, b)
    block_free = n @ (1.0 - np.diagonal(inv, 0, 1, 2) - xgx)
    at = np.einsum("pij,pj->pi", inv, lt1)
    quad = np.einsum("pij,pjk,pik->pi", inv, lt2, inv, optimize=True)
    block_u = np.sum(quad - 2.0 * at * c + n[:, None] * c * c, axis=0)
    free = _by_effect(sums.block_effect, block_free, k)
    free += _by_effect(sums.w_effect, 1.0 - np.diag(s_inv), k)
    u2 = _by_effect(sums.block_effect, block_u, k)
    u2 += _by_effect(sums.w_effect, u_w * u_w, k)
    return free, u2


def _evaluate(sums: PatternSums, theta: FloatArray, gradient: bool = False) -> _Evaluation:
    """The profiled REML deviance and ``Q`` at relative standard deviations ``theta`` (one
    per random effect), with the sums of its gradient when ``gradient``."""
    k = theta.size
    none = np.full(k, np.nan)
    lb = theta[sums.block_effect]
    lw = np.where(sums.w_effect >= 0, theta[np.maximum(sums.w_effect, 0)], 1.0)
    b = lb.size
    a = lb[:, None] * sums.zz * lb[None, :] + np.eye(b)
    chol = np.linalg.cholesky(a)
    logdet_a = 2.0 * float(np.sum(sums.n_pattern[:, None] * np.log(np.diagonal(chol, 0, 1, 2))))
    lzw = lb[None, :, None] * sums.zw
    lt2 = lb[None, :, None] * sums.t2 * lb[None, None, :]
    # A~ >= I is well conditioned: its inverse, then stacked small products (numpy's own
    # loops; a threaded BLAS call of these sizes stalls on a busy machine)
    inv: FloatArray = np.linalg.inv(a).astype(np.float64, copy=False)
    x = inv @ lzw  # A~^-1 L Z'W
    lt1 = lb[None, :] * sums.t1
    bab = np.einsum("p,pij->ij", sums.n_pattern, np.swapaxes(lzw, 1, 2) @ x)
    bat = np.einsum("pbi,pb->i", x, lt1)
    tat = float(np.einsum("pij,pji->", inv, lt2))
    s = lw[:, None] * (sums.ww - bab) * lw[None, :]
    s += np.diag(np.where(sums.w_effect >= 0, 1.0, 0.0))
    h = lw * (sums.wy - bat)
    try:
        cs = np.linalg.cholesky(s)
    except np.linalg.LinAlgError:
        return _Evaluation(math.inf, math.nan, none, none)
    z = np.linalg.solve(cs, h)
    q = sums.yy - tat - float(z @ z)
    if not q > 1e-12 * sums.yy:
        return _Evaluation(math.inf, q, none, none)
    logdet_s = 2.0 * float(np.sum(np.log(np.diag(cs))))
    dev = (sums.n_scores - 1) * math.log(q) + logdet_a + logdet_s
    if not gradient:
        return _Evaluation(dev, q, none, none)
    cs_inv = np.linalg.inv(cs)
    s_inv = cs_inv.T @ cs_inv
    parts: tuple[FloatArray, ...] = (inv, x, lt1, lt2, lw, s_inv, cs_inv.T @ z)
    return _Evaluation(dev, q, *_gradient_sums(sums, parts, k))


def deviance(sums: PatternSums, theta: FloatArray) -> tuple[float, float]:
    """The profiled REML deviance and ``Q`` at relative standard deviations ``theta``
    (one per random effect)."""
    e = _evaluate(sums, theta)
    return e.deviance, e.q


def deviance_gradient(sums: PatternSums, theta: FloatArray) -> tuple[float, FloatArray]:
    """The profiled REML deviance at ``theta`` and its gradient in ``theta``.

    With ``g_k = theta_k^2``, ``d log|M~| / d g_k = (levels_k - tr C~_kk) / g_k`` and
    ``dQ / d g_k = -|u_k|^2 / g_k`` (Bates et al. 2015, sec. 3.6; Harville 1977, eq. 4.6 on
    the spherical scale), so ``dd / d theta_k = 2 (levels_k - tr C~_kk - (N - 1) |u_k|^2 /
    Q) / theta_k``: 0 at ``theta_k = 0``, where the deviance is even in ``theta_k``."""
    e = _evaluate(sums, theta, gradient=True)
    if not math.isfinite(e.deviance):
        return e.deviance, np.zeros(theta.size)
    bracket = e.free_trace - (sums.n_scores - 1) * e.u_squared / e.q
    grad = np.divide(2.0 * bracket, theta, out=np.zeros(theta.size), where=theta > 0)
    return e.deviance, grad


@dataclasses.dataclass(frozen=True, slots=True)
class REMLComponents:
    """REML variance components in the scores' units.

    Attributes
    ----------
    variances : ndarray, shape (K + 1,)
        One per effect, the residual last.
    deviance : float
    converged : bool
    n_patterns : int
        Distinct patterns of the objects' cells.
    n_evaluations : int
        Deviance evaluations of the last search.
    covariance : ndarray, shape (K + 1, K + 1)
        Inverse of the observed information of the REML log-likelihood in the variances
        (scores' units squared); NaN rows and columns for components at the boundary 0.
    """

    variances: FloatArray
    deviance: float
    converged: bool
    n_patterns: int
    n_evaluations: int
    covariance: FloatArray


def deviance_in_variances(sums: PatternSums, v: FloatArray) -> float:
    """The REML deviance (less ``(N - 1) log 2 pi``) at variances ``v`` (residual last), on
    the scale of the centred and scaled scores: ``ld(theta) + (N - 1) log s2 + Q(theta)/s2``
    with ``theta = sqrt(v / s2)`` (Bates et al. 2015, eq. 41 before profiling ``s2``)."""
    s2 = float(v[-1])
    if not s2 > 0 or np.any(v[:-1] < 0):
        return math.inf
    dev, q = deviance(sums, np.sqrt(v[:-1] / s2))
    n1 = sums.n_scores - 1
    if not math.isfinite(dev):
        return math.inf
    return dev - n1 * math.log(q) + n1 * math.log(s2) + q / s2


def gradient_in_variances(sums: PatternSums, v: FloatArray) -> FloatArray:
    """The gradient of :func:`deviance_in_variances` in ``v`` (residual last):
    ``(levels_k - tr C~_kk - |u_k|^2 / s2) / v_k`` and, for ``s2``, ``(N - 1 - sum_k (levels_k
    - tr C~_kk) + sum_k |u_k|^2 / s2 - Q / s2) / s2`` (the chain rule through ``g = v / s2``
    of :func:`deviance_gradient`'s sums); 0 for a component at 0."""
    s2 = float(v[-1])
    e = _evaluate(sums, np.sqrt(np.maximum(v[:-1], 0.0) / s2), gradient=True)
    if not math.isfinite(e.deviance):
        return np.full(v.size, np.nan)
    top = e.free_trace - e.u_squared / s2
    out = np.zeros(v.size)
    np.divide(top, v[:-1], out=out[:-1], where=v[:-1] > 0)
    out[-1] = (sums.n_scores - 1 - float(np.sum(top)) - e.q / s2) / s2
    return out


def _observed_covariance(sums: PatternSums, v: FloatArray) -> FloatArray:
    """Inverse of half the Hessian of :func:`deviance_in_variances` at ``v`` over the components
    away from 0, by central differences of its analytic gradient (steps of 1e-4 of each
    component, ``2k`` gradients); NaN elsewhere."""
    free = np.flatnonzero(v > 1e-6 * float(v.sum()))
    hess = np.zeros((free.size, free.size))
    for i, f in enumerate(free):
        step = np.zeros(v.size)
        step[f] = 1e-4 * v[f]
        diff = gradient_in_variances(sums, v + step) - gradient_in_variances(sums, v - step)
        hess[:, i] = diff[free] / (2.0 * step[f])
    out = np.full((v.size, v.size), np.nan)
    with contextlib.suppress(np.linalg.LinAlgError):  # NaN: the caller names them
        out[np.ix_(free, free)] = np.linalg.inv((hess + hess.T) / 4.0)
    return out


def fit_components(
    scores: CodedScores, effects: tuple[Effect, ...], start: FloatArray | None = None
) -> REMLComponents:
    """Fit the random effects ``effects`` (the design's but the residual) by REML."""
    from scipy.optimize import minimize

    if scores.n_scores <= len(effects) + 1:
        raise InvalidInputError(
            f"REML needs more scores than variance components; got {scores.n_scores} scores "
            f"for {len(effects) + 1} components"
        )
    sums = pattern_sums(scores, effects)

    def f(th: FloatArray) -> tuple[float, FloatArray]:
        return deviance_gradient(sums, th)

    x0 = np.full(len(effects), 0.5) if start is None else np.sqrt(start)
    opts = {"maxiter": 2000}
    bounds = [(0.0, None)] * len(effects)
    best = minimize(f, x0, jac=True, method="L-BFGS-B", bounds=bounds, options=opts)
    for _ in range(0 if best.success else 2):  # restart from where it stopped
        again = minimize(f, best.x, jac=True, method="L-BFGS-B", bounds=bounds, options=opts)
        if again.fun >= best.fun - 1e-10:
            break
        best = again
    dev, q = deviance(sums, best.x)
    n_eval = int(best.nfev)
    s2 = q / (sums.n_scores - 1) * sums.scale
    variances = np.concatenate([best.x**2 * s2, [s2]])
    cov = _observed_covariance(sums, variances / sums.scale) * sums.scale**2
    return REMLComponents(variances, dev, bool(best.success), int(sums.n_pattern.size), n_eval, cov)
