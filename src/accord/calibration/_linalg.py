"""Linear algebra of panel calibration: the normal equations, their solvers and inverses.

The panel's normal equations are

.. math::

    \\begin{pmatrix} D_o & C^T \\\\ C & D_a + p I \\end{pmatrix}
    \\begin{pmatrix} v \\\\ b \\end{pmatrix} =
    \\begin{pmatrix} r_o \\\\ r_a \\end{pmatrix}

with ``C`` the raters x items matrix of confidences (duplicates summed), ``D_o = diag(C_o)``,
``D_a = diag(C_a)`` and ``p`` the precision of an optional Gaussian prior on the biases. Without
a prior the matrix is a signed weighted Laplacian of the bipartite rater-item graph: singular,
with one null vector ``(1, -1)`` per connected component, and the right-hand side is always
consistent.

Everything here works on one "small side" ``Y`` (kept) and one "large side" ``X`` (eliminated):
``B`` is the ``Y x X`` block of confidences, ``S = D_Y - B D_X^{-1} B^T`` the Schur complement,
``W = D_X^{-1} B^T`` (``X x Y``). Given ``y``, the posterior of ``x`` is
``N(D_X^{-1}(r_X - B^T y), D_X^{-1})``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from .._errors import ConvergenceError
from .._types import FloatArray, IntArray, in_threads, usable_cores

Side = Literal["raters", "items"]

_EXACT_CHUNK = 1 << 22  # doubles per dense chunk of W @ Sigma (32 MiB)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class PanelSystem:
    """The sparse normal equations of one panel.

    Attributes
    ----------
    C : scipy.sparse.csr_matrix, shape (n_raters, n_items)
        Summed confidences of every rater-item pair.
    CT : scipy.sparse.csr_matrix, shape (n_items, n_raters)
        Its transpose, stored row-major for fast products.
    item_weight : ndarray, shape (n_items,)
        ``C_o``, the total confidence of each item.
    rater_weight : ndarray, shape (n_raters,)
        ``C_a``, the total confidence of each rater.
    prior_precision : float
        ``p`` added to the diagonal of the rater block (0 without a bias prior).
    """

    C: Any
    CT: Any
    item_weight: FloatArray
    rater_weight: FloatArray
    prior_precision: float

    @property
    def n_items(self) -> int:
        return int(self.item_weight.size)

    @property
    def n_raters(self) -> int:
        return int(self.rater_weight.size)

    @property
    def rater_diagonal(self) -> FloatArray:
        """``C_a + p``."""
        return self.rater_weight + self.prior_precision


def build_system(
    item_codes: IntArray,
    rater_codes: IntArray,
    confidence: FloatArray,
    n_items: int,
    n_raters: int,
    prior_precision: float = 0.0,
) -> PanelSystem:
    """Assemble :class:`PanelSystem` from per-assessment codes and confidences (shape (E,))."""
    from scipy import sparse

    C = sparse.csr_matrix(
        (confidence, (rater_codes, item_codes)), shape=(n_raters, n_items), dtype=np.float64
    )
    C.sum_duplicates()
    CT = C.T.tocsr()
    item_weight = wsum(item_codes, confidence, n_items)
    rater_weight = wsum(rater_codes, confidence, n_raters)
    return PanelSystem(C, CT, item_weight, rater_weight, float(prior_precision))


def right_hand_side(
    item_codes: IntArray,
    rater_codes: IntArray,
    weighted: FloatArray,
    n_items: int,
    n_raters: int,
) -> tuple[FloatArray, FloatArray]:
    """``(r_o, r_a)``: sums of ``weighted`` (shape (E,), e.g. ``c * s``) per item and per rater."""
    return wsum(item_codes, weighted, n_items), wsum(rater_codes, weighted, n_raters)


def wsum(codes: IntArray, weights: FloatArray, n: int) -> FloatArray:
    """Sums of ``weights`` per code, shape (n,)."""
    return np.asarray(np.bincount(codes, weights=weights, minlength=n), dtype=np.float64)


# --------------------------------------------------------------------------- conjugate gradients


def pcg(
    apply: Callable[[FloatArray], FloatArray],
    inverse_diagonal: FloatArray,
    rhs: FloatArray,
    *,
    tol: float,
    max_iter: int,
) -> tuple[FloatArray, int, float]:
    """Jacobi-preconditioned conjugate gradients for one or several right-hand sides.

    Parameters
    ----------
    apply : callable
        ``x -> A x`` for a symmetric positive semi-definite ``A``; ``x`` has shape (n,) or (n, k).
    inverse_diagonal : ndarray, shape (n,)
        ``1 / diag(A)``.
    rhs : ndarray, shape (n,) or (n, k)
        Right-hand sides in the range of ``A`` (consistent systems).
    tol : float
        Stop when every column's residual norm is at most ``tol`` times its right-hand side's.
    max_iter : int
        Raise :class:`~accord.ConvergenceError` after this many iterations.

    Returns
    -------
    x : ndarray, like ``rhs``
    iterations : int
    relative_residual : float
        Largest ``||rhs - A x|| / ||rhs||`` over the columns, recomputed from ``x``.
    """
    one = rhs.ndim == 1
    b = rhs[:, None] if one else rhs
    m = inverse_diagonal[:, None]
    x = np.zeros_like(b)
    bnorm = np.sqrt(np.einsum("ij,ij->j", b, b))
    target = tol * bnorm
    r = b.copy()
    iterations = 0
    if np.all(bnorm == 0.0):
        return (x[:, 0] if one else x), 0, 0.0
    z = m * r
    p = z.copy()
    rz = np.einsum("ij,ij->j", r, z)
    converged = False
    for iterations in range(1, max_iter + 1):  # noqa: B007
        q = apply(p)
        pq = np.einsum("ij,ij->j", p, q)
        alpha = np.divide(rz, pq, out=np.zeros_like(rz), where=pq > 0)
        x += alpha * p
        r -= alpha * q
        rnorm = np.sqrt(np.einsum("ij,ij->j", r, r))
        if np.all(rnorm <= target):
            converged = True
            break
        z = m * r
        rz_new = np.einsum("ij,ij->j", r, z)
        beta = np.divide(rz_new, rz, out=np.zeros_like(rz), where=rz > 0)
        p *= beta
        p += z
        rz = rz_new
    true_r = b - apply(x)
    rel = np.sqrt(np.einsum("ij,ij->j", true_r, true_r)) / np.where(bnorm > 0, bnorm, 1.0)
    worst = float(rel.max())
    if not converged:
        raise ConvergenceError(
            f"conjugate gradients did not converge in {max_iter} iterations (relative residual "
            f"{worst:.3g}, tolerance {tol:g}); raise max_iter or loosen tol, or check the design's "
            "connectivity (algebraic_connectivity near 0 makes the system ill-conditioned)"
        )
    return (x[:, 0] if one else x), iterations, worst


def solve(
    system: PanelSystem,
    r_items: FloatArray,
    r_raters: FloatArray,
    *,
    method: Literal["full", "schur-raters", "schur-items"],
    tol: float,
    max_iter: int,
) -> tuple[FloatArray, FloatArray, int, float]:
    """Solve the normal equations (any solution; the caller fixes the gauge).

    ``r_items`` (n_items[, k]) and ``r_raters`` (n_raters[, k]) are the right-hand sides.
    Returns ``(v, b, iterations, relative_residual)``.
    """
    d_o = system.item_weight
    d_a = system.rater_diagonal
    C, CT = system.C, system.CT
    if method == "full":
        n_o = system.n_items

        def apply_full(x: FloatArray) -> FloatArray:
            v, b = x[:n_o], x[n_o:]
            return np.concatenate([d_o[:, None] * v + CT @ b, C @ v + d_a[:, None] * b])

        rhs = np.concatenate([_col(r_items), _col(r_raters)])
        inv = 1.0 / np.concatenate([d_o, d_a])
        x, it, rel = pcg(apply_full, inv, rhs, tol=tol, max_iter=max_iter)
        v, b = x[:n_o], x[n_o:]
    else:
        if method == "schur-raters":
            B, BT, d_y, d_x, r_y, r_x = C, CT, d_a, d_o, _col(r_raters), _col(r_items)
        else:
            B, BT, d_y, d_x, r_y, r_x = CT, C, d_o, d_a, _col(r_items), _col(r_raters)
        inv_x = (1.0 / d_x)[:, None]

        def apply_schur(y: FloatArray) -> FloatArray:
            return np.asarray(d_y[:, None] * y - B @ (inv_x * (BT @ y)))

        moved = B @ (inv_x * r_x)
        rhs = _cancelled(r_y - moved, r_y, moved)
        inv_s = _schur_inverse_diagonal(B, d_y, d_x)
        y, it, rel = pcg(apply_schur, inv_s, rhs, tol=tol, max_iter=max_iter)
        x = inv_x * (r_x - BT @ y)
        v, b = (x, y) if method == "schur-raters" else (y, x)
    if r_items.ndim == 1:
        v, b = v[:, 0], b[:, 0]
    return v, b, it, rel


def _cancelled(rhs: FloatArray, a: FloatArray, b: FloatArray) -> FloatArray:
    """``rhs = a - b`` with each column that is round-off of that difference set to 0.

    The Schur complement is singular (constant on each connected component), and its
    right-hand side lies in its range up to round-off; where the two terms cancel to within
    round-off (every score 0, say) that round-off is all there is, outside the range, and
    conjugate gradients could not reduce it: the solution is 0.
    """
    scale = np.sqrt(np.einsum("ij,ij->j", a, a)) + np.sqrt(np.einsum("ij,ij->j", b, b))
    size = np.sqrt(np.einsum("ij,ij->j", rhs, rhs))
    noise = size <= 64 * np.finfo(np.float64).eps * scale
    if np.any(noise):
        rhs = rhs.copy()
        rhs[:, noise] = 0.0
    return rhs


def _schur_inverse_diagonal(B: Any, d_y: FloatArray, d_x: FloatArray) -> FloatArray:
    """``1 / diag(S)`` of ``S = D_Y - B D_X^{-1} B^T`` (0 where the diagonal is not positive),
    the Jacobi preconditioner of the Schur complement."""
    schur_diag = d_y - _squared(B) @ (1.0 / d_x)
    out: FloatArray = np.divide(
        1.0, schur_diag, out=np.zeros_like(schur_diag), where=schur_diag > 0
    )
    return out


def _squared(B: Any) -> Any:
    """The CSR matrix with every stored entry squared (same structure, no re-indexing)."""
    from scipy import sparse

    return sparse.csr_matrix((B.data * B.data, B.indices, B.indptr), shape=B.shape)


def _col(a: FloatArray) -> FloatArray:
    return a[:, None] if a.ndim == 1 else a


# --------------------------------------------------------------------------- gauge


def gauge_weights(
    rater_weight: FloatArray, rater_component: IntArray, n_components: int, gauge: str
) -> FloatArray:
    """``h``: per-rater weights of the gauge, normalised to sum to 1 in every component.

    The gauge ``sum_a g_a b_a = 0`` (per component) is applied as ``v + t, b - t`` with
    ``t = h^T b`` on that component.
    """
    g = np.ones_like(rater_weight) if gauge == "sum" else rater_weight.copy()
    totals = np.bincount(rater_component, weights=g, minlength=n_components)
    return np.asarray(g / totals[rater_component])


def apply_gauge(
    v: FloatArray,
    b: FloatArray,
    h: FloatArray,
    item_component: IntArray,
    rater_component: IntArray,
    n_components: int,
) -> tuple[FloatArray, FloatArray]:
    """Shift ``(v + t, b - t)`` per component so that ``sum_a h_a b_a = 0`` (1-D or 2-D)."""
    from scipy import sparse

    P = sparse.csr_matrix((h, (rater_component, np.arange(h.size))), shape=(n_components, h.size))
    t = P @ b
    return v + t[item_component], b - t[rater_component]


# --------------------------------------------------------------------------- the two sides


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Layout:
    """Where each item, rater and assessment sits: the component of every item and rater
    (``n_components`` of them) and the item and rater code of every assessment (shape (E,)),
    whose fitted variances are returned."""

    item_component: IntArray
    rater_component: IntArray
    n_components: int
    item_codes: IntArray
    rater_codes: IntArray


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _Sides:
    """The kept side ``Y`` and the eliminated side ``X`` of the normal equations.

    ``B`` is the ``Y x X`` block of confidences (``BT`` its transpose), ``d_y`` and ``d_x``
    the diagonals, ``comp_y`` and ``comp_x`` the component of each member, ``ye`` and ``xe``
    the codes of every assessment on each side.
    """

    B: Any
    BT: Any
    d_y: FloatArray
    d_x: FloatArray
    comp_y: IntArray
    comp_x: IntArray
    ye: IntArray
    xe: IntArray


def _sides(system: PanelSystem, side: Side, layout: Layout) -> _Sides:
    """The blocks of ``system`` with ``side`` kept."""
    if side == "raters":
        return _Sides(
            system.C,
            system.CT,
            system.rater_diagonal,
            system.item_weight,
            layout.rater_component,
            layout.item_component,
            layout.rater_codes,
            layout.item_codes,
        )
    return _Sides(
        system.CT,
        system.C,
        system.item_weight,
        system.rater_diagonal,
        layout.item_component,
        layout.rater_component,
        layout.item_codes,
        layout.rater_codes,
    )


def _as_items_raters(
    side: Side, var_y: FloatArray, var_x: FloatArray, var_fitted: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Variances of the kept and eliminated sides as (items, raters, fitted), clipped at 0."""
    var_items, var_raters = (var_x, var_y) if side == "raters" else (var_y, var_x)
    return (
        np.maximum(var_items, 0.0),
        np.maximum(var_raters, 0.0),
        np.maximum(var_fitted, 0.0),
    )


# --------------------------------------------------------------------------- exact inverse


def exact_variances(
    system: PanelSystem,
    *,
    side: Side,
    h: FloatArray | None,
    layout: Layout,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Exact posterior variances (units of 1/c) through the Schur complement on ``side``.

    Parameters
    ----------
    h : ndarray, shape (n_raters,), or None
        Gauge weights from :func:`gauge_weights`; None when a bias prior fixes the location
        (the covariance is then the plain inverse of the normal matrix).

    Returns
    -------
    var_items : ndarray, shape (n_items,)
    var_raters : ndarray, shape (n_raters,)
    var_fitted : ndarray, shape (E,)
        ``Var(v_o + b_a)`` of every assessment (gauge invariant), for leverages.

    Notes
    -----
    Without a prior, ``Sigma = S^+ = (S + U U^T)^{-1} - U U^T`` with ``U`` the normalised
    component indicators on ``Y`` (the null space of the Laplacian ``S``): the covariance in the
    gauge "the ``Y`` values sum to zero in each component". It is then moved to the requested
    gauge by the exact linear map ``(v + t, b - t)``. With a prior ``Sigma = S^{-1}``.
    """
    sides = _sides(system, side, layout)
    n_components = layout.n_components
    inv_dx = 1.0 / sides.d_x
    Sigma = _schur_covariance(sides, inv_dx, h, n_components)
    W, wsw, cross = _propagated(sides, inv_dx, Sigma)
    diag = np.diag(Sigma).copy()
    var_fitted = inv_dx[sides.xe] + wsw[sides.xe] - 2.0 * cross + diag[sides.ye]
    comp_y, comp_x = sides.comp_y, sides.comp_x
    if h is None:
        var_y, var_x = diag, inv_dx + wsw
    elif side == "raters":
        sh = Sigma @ h
        q = np.bincount(comp_y, weights=h * sh, minlength=n_components)
        var_y = diag - 2.0 * sh + q[comp_y]
        var_x = inv_dx + wsw - 2.0 * (W @ sh) + q[comp_x]
    else:
        u = np.asarray(sides.B @ (h * inv_dx))
        su = Sigma @ u
        t = np.bincount(comp_y, weights=u * su, minlength=n_components) + np.bincount(
            comp_x, weights=h * h * inv_dx, minlength=n_components
        )
        var_y = diag - 2.0 * su + t[comp_y]
        var_x = inv_dx + wsw - 2.0 * (W @ su) - 2.0 * h * inv_dx + t[comp_x]
    return _as_items_raters(side, var_y, var_x, var_fitted)


def _schur_covariance(
    sides: _Sides, inv_dx: FloatArray, h: FloatArray | None, n_components: int
) -> FloatArray:
    """``Sigma``, shape (m, m): ``S^{-1}`` with a prior, else ``S^+`` (see
    :func:`exact_variances`)."""
    from scipy import sparse

    B, d_y, comp_y = sides.B, sides.d_y, sides.comp_y
    m = d_y.size
    S = np.diag(d_y) - (B @ sparse.diags(inv_dx) @ B.T).toarray()
    S = 0.5 * (S + S.T)
    if h is None:
        Sigma = np.linalg.inv(S)
    else:
        sizes = np.bincount(comp_y, minlength=n_components).astype(np.float64)
        U = np.zeros((m, n_components))
        U[np.arange(m), comp_y] = 1.0 / np.sqrt(sizes[comp_y])
        UU = U @ U.T
        Sigma = np.linalg.inv(S + UU) - UU
    return np.asarray(0.5 * (Sigma + Sigma.T))


def _propagated(
    sides: _Sides, inv_dx: FloatArray, Sigma: FloatArray
) -> tuple[Any, FloatArray, FloatArray]:
    """``W = D_X^{-1} B^T`` (X x Y), ``diag(W Sigma W^T)`` (shape (n_x,)) and
    ``(W Sigma)[x_e, y_e]`` of every assessment, in dense chunks of ``W Sigma``."""
    from scipy import sparse

    ye, xe = sides.ye, sides.xe
    m = sides.d_y.size
    W = (sparse.diags(inv_dx) @ sides.B.T).tocsr()  # X x Y
    n_x = sides.d_x.size
    wsw = np.empty(n_x)
    cross = np.empty(ye.size)  # (W Sigma)[x_e, y_e]
    order = np.argsort(xe, kind="stable")
    xs = xe[order]
    rows = max(1, _EXACT_CHUNK // max(m, 1))
    for r0 in range(0, n_x, rows):
        r1 = min(n_x, r0 + rows)
        Wc = W[r0:r1]
        WS = np.asarray(Wc @ Sigma)
        wsw[r0:r1] = np.asarray(Wc.multiply(WS).sum(axis=1)).ravel()
        lo, hi = np.searchsorted(xs, [r0, r1])
        idx = order[lo:hi]
        cross[idx] = WS[xe[idx] - r0, ye[idx]]
    return W, wsw, cross


# --------------------------------------------------------------------------- perturb and solve


def sampled_variances(
    system: PanelSystem,
    *,
    method: Literal["full", "schur-raters", "schur-items"],
    h: FloatArray | None,
    layout: Layout,
    confidence: FloatArray | None = None,
    n_samples: int,
    rng: np.random.Generator,
    tol: float,
    max_iter: int,
    workers: int | None = None,
) -> tuple[FloatArray, FloatArray, FloatArray, int, float]:
    """Posterior variances by perturb-and-solve on a Schur complement (units of 1/c).

    Each draw puts ``N(0, C_ao)`` noise on every rater-item pair's summed confidence (and
    ``N(0, p)`` on every rater's prior), which gives the Schur right-hand side ``g ~ N(0, S)``;
    solving ``S dy = g`` gives an exact posterior draw of the kept side ``Y`` (minus its mean).
    The eliminated side is never sampled: given ``y`` it is ``N(D_X^{-1}(r_X - B^T y),
    D_X^{-1})``, so its variance is ``1 / d_x`` exactly plus the sampled variance of
    ``W y`` (Rao-Blackwellised; the same for every fitted ``v_o + b_a``). The gauge
    ``(v + t, b - t)`` is a linear function of ``y`` and the eliminated side's own noise, and
    is applied in closed form.

    ``Y`` is the side the solver eliminates to (``method``), else the smaller side. Draws are
    independent single-vector solves, spread over ``workers`` threads (sparse products release
    the interpreter lock); draw ``j`` uses its own generator spawned from ``rng``, so results do
    not depend on the number of threads. ``layout`` holds the assessments whose fitted
    variances are returned; ``confidence`` is unused (the noise is put
    on the summed confidences of the pairs).

    Returns ``(var_items, var_raters, var_fitted, iterations, relative_residual)``: the most
    iterations of any draw and the largest relative residual ``||g - S dy|| / ||g||``.
    """
    del confidence
    side: Side
    if method == "schur-raters":
        side = "raters"
    elif method == "schur-items":
        side = "items"
    else:
        side = "raters" if system.n_raters <= system.n_items else "items"
    sides = _sides(system, side, layout)
    rater_component, n_components = layout.rater_component, layout.n_components
    keys = rng.integers(0, np.iinfo(np.int64).max, size=(n_samples, 2))
    draws = _PosteriorDraws(system, sides, side, keys, tol=tol, max_iter=max_iter)
    gauge = None
    if h is not None:
        gauge = _gauge_matrix(h, rater_component, n_components)
    shares = _shares(n_samples, workers)
    parts = in_threads(lambda js: draws.accumulate(js, gauge), shares)
    sum_y = np.sum([q[0] for q in parts], axis=0)
    sum_x = np.sum([q[1] for q in parts], axis=0)
    sum_f = np.sum([q[2] for q in parts], axis=0)
    inv_x = draws.inv_x
    var_y = sum_y / n_samples
    var_x = inv_x + sum_x / n_samples
    var_f = inv_x[sides.xe] + sum_f / n_samples
    if h is not None and side == "items":
        # the eliminated raters' own noise enters the gauge shift t = h^T b
        q = np.bincount(rater_component, weights=h * h * inv_x, minlength=n_components)
        var_y = var_y + q[sides.comp_y]
        var_x = var_x - 2.0 * h * inv_x + q[sides.comp_x]
    iterations = max(q[3] for q in parts)
    residual = max(q[4] for q in parts)
    return (*_as_items_raters(side, var_y, var_x, var_f), iterations, residual)


def _gauge_matrix(h: FloatArray, rater_component: IntArray, n_components: int) -> Any:
    """The components x raters matrix of gauge weights: ``t = P @ b``."""
    from scipy import sparse

    n_a = h.size
    return sparse.csr_matrix((h, (rater_component, np.arange(n_a))), shape=(n_components, n_a))


def _shares(n_samples: int, workers: int | None) -> list[list[int]]:
    """The draws of each thread (at most 8, at most the CPUs this process may use)."""
    if workers is None:
        workers = usable_cores()
    workers = max(1, min(workers, n_samples, 8))
    return [list(range(w, n_samples, workers)) for w in range(workers)]


class _PosteriorDraws:
    """Posterior draws of the kept side by perturb-and-solve (see :func:`sampled_variances`)."""

    def __init__(
        self,
        system: PanelSystem,
        sides: _Sides,
        side: Side,
        keys: npt.NDArray[np.int64],
        *,
        tol: float,
        max_iter: int,
    ) -> None:
        from scipy import sparse

        C = system.C
        n_o, n_a = system.n_items, system.n_raters
        root = np.sqrt(C.data)
        self.nnz = nnz = int(C.nnz)
        # noise per pair -> sums per rater (rows of C) and per item (columns of C)
        G_a = sparse.csr_matrix((root, np.arange(nnz), C.indptr), shape=(n_a, nnz))
        G_o = sparse.csc_matrix((root, C.indices, np.arange(nnz + 1)), shape=(n_o, nnz))
        self.G_y, self.G_x = (G_a, G_o) if side == "raters" else (G_o, G_a)
        self.sides, self.side, self.keys = sides, side, keys
        self.prior, self.n_raters = system.prior_precision, n_a
        self.inv_x = 1.0 / sides.d_x
        self.inv_s = _schur_inverse_diagonal(sides.B, sides.d_y, sides.d_x)
        self.tol, self.max_iter = tol, max_iter

    def _apply_schur(self, y: FloatArray) -> FloatArray:
        s, y1 = self.sides, y[:, 0]
        return np.asarray(s.d_y * y1 - s.B @ (self.inv_x * (s.BT @ y1)))[:, None]

    def draw(self, j: int) -> tuple[FloatArray, FloatArray, int, float]:
        """One posterior draw: (dy, u = W dy) and the solver's iterations and residual."""
        seed = np.random.SeedSequence(self.keys[j].tolist())
        gen = np.random.Generator(np.random.SFC64(seed))
        z = gen.standard_normal(self.nnz)
        g_y = np.asarray(self.G_y @ z)
        g_x = np.asarray(self.G_x @ z)
        if self.prior > 0:
            prior_noise = np.sqrt(self.prior) * gen.standard_normal(self.n_raters)
            if self.side == "raters":
                g_y += prior_noise
            else:
                g_x += prior_noise
        g = g_y - self.sides.B @ (self.inv_x * g_x)
        dy, it, rel = pcg(
            self._apply_schur, self.inv_s, g[:, None], tol=self.tol, max_iter=self.max_iter
        )
        dy = dy[:, 0]
        return dy, self.inv_x * (self.sides.BT @ dy), it, rel

    def accumulate(
        self, js: list[int], gauge: Any
    ) -> tuple[FloatArray, FloatArray, FloatArray, int, float]:
        """Sums of squares of draws ``js`` (kept side, eliminated side, fitted values, in the
        gauge ``t = gauge @ b`` when given), the most iterations and the largest residual."""
        s = self.sides
        acc_y, acc_x, acc_f = np.zeros(s.d_y.size), np.zeros(s.d_x.size), np.zeros(s.ye.size)
        worst_it, worst_rel = 0, 0.0
        for j in js:
            dy, u, it, rel = self.draw(j)
            worst_it, worst_rel = max(worst_it, it), max(worst_rel, rel)
            f = dy[s.ye] - u[s.xe]
            acc_f += f * f
            if gauge is None:
                ty, tx = dy, u
            else:
                t = gauge @ (dy if self.side == "raters" else u)
                ty, tx = dy - t[s.comp_y], u - t[s.comp_x]
            acc_y += ty * ty
            acc_x += tx * tx
        return acc_y, acc_x, acc_f, worst_it, worst_rel


# --------------------------------------------------------------------------- connectivity


def components(
    item_codes: IntArray | None,
    rater_codes: IntArray | None,
    n_items: int,
    n_raters: int,
    *,
    pattern: Any = None,
) -> tuple[int, IntArray, IntArray]:
    """Connected components of the bipartite rater-item graph.

    The graph is given by per-assessment codes, or by ``pattern``: any items x raters CSR
    matrix with an entry for every assessed pair (such as :attr:`PanelSystem.CT`), whose
    index arrays are then used as they are (no copy of the edges, no sort).

    Returns ``(n_components, item_component, rater_component)``; components are numbered by
    decreasing size (items + raters), ties by first appearance (items first, then raters).
    """
    from scipy import sparse
    from scipy.sparse import csgraph

    n = n_items + n_raters
    if pattern is None:
        assert item_codes is not None and rater_codes is not None
        pattern = sparse.csr_matrix(
            (np.ones(item_codes.size, dtype=np.int8), (item_codes, rater_codes)),
            shape=(n_items, n_raters),
        )
    # One triangle of the adjacency matrix: item o -> node n_items + a. Weak connectivity of
    # this directed graph is connectivity of the undirected one.
    indptr = np.concatenate(
        [pattern.indptr, np.full(n_raters, pattern.indptr[-1], dtype=pattern.indptr.dtype)]
    )
    graph = sparse.csr_matrix(
        (np.ones(pattern.indices.size), pattern.indices + n_items, indptr), shape=(n, n)
    )
    k, labels = csgraph.connected_components(graph, directed=True, connection="weak")
    sizes = np.bincount(labels, minlength=k)
    # first appearance of every label (labels usually come numbered in that order already)
    running = np.maximum.accumulate(labels)
    if labels[0] == 0 and bool(np.all(labels[1:] <= running[:-1] + 1)):
        rank = np.argsort(-sizes, kind="stable")
    else:
        _, first = np.unique(labels, return_index=True)
        rank = np.lexsort((first, -sizes))
    relabel = np.empty(k, dtype=np.int64)
    relabel[rank] = np.arange(k)
    labels = relabel[labels]
    return int(k), labels[:n_items].astype(np.int64), labels[n_items:].astype(np.int64)


def algebraic_connectivity(
    system: PanelSystem, n_components: int, *, dense_limit: int = 1500
) -> float:
    """Second-smallest eigenvalue of the normalised Laplacian of the confidence-weighted graph.

    Uses the bipartite structure: the normalised adjacency ``M = D_a^{-1/2} C D_o^{-1/2}`` has
    singular values ``1 = s_1 >= s_2 >= ...`` and the Laplacian's eigenvalues are ``1 -+ s_i``
    (and 1), so ``lambda_2 = 1 - s_2``. 0 for a disconnected graph. The Gram matrix of the
    smaller side (minus the known top singular pair) is decomposed densely up to
    ``dense_limit`` members, else by Lanczos (``eigsh``, relative tolerance 1e-6 on ``s_2^2``).
    """
    from scipy import sparse

    if n_components > 1:
        return 0.0
    n_o, n_a = system.n_items, system.n_raters
    if n_o + n_a <= 2:
        return 2.0
    if min(n_o, n_a) == 1:
        return 1.0
    da = np.sqrt(system.rater_weight)
    do = np.sqrt(system.item_weight)
    M = (sparse.diags(1.0 / da) @ system.C @ sparse.diags(1.0 / do)).tocsr()
    if n_a > n_o:
        M, top = M.T.tocsr(), do
    else:
        top = da
    MT = M.T.tocsr()
    m = M.shape[0]
    u = top / np.linalg.norm(top)
    if m <= dense_limit:
        G = (M @ MT).toarray()
        G -= np.outer(u, u)
        s2sq = float(np.linalg.eigvalsh(0.5 * (G + G.T))[-1])
    else:
        from scipy.sparse.linalg import LinearOperator, eigsh

        def gram(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
            x = np.asarray(x).reshape(-1)
            return np.asarray(M @ (MT @ x) - u * (u @ x))

        op = LinearOperator((m, m), matvec=gram, dtype=np.float64)
        start = np.random.default_rng(0).standard_normal(m)
        vals = eigsh(op, k=1, which="LA", tol=1e-6, v0=start, return_eigenvectors=False)
        s2sq = float(vals[0])
    return float(1.0 - np.sqrt(min(max(s2sq, 0.0), 1.0)))
