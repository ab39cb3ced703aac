"""REML fit of the two-way mixed model of repeated measurements by several methods, from the
sums of each (subject, method) cell: any number of replicates per cell, none in some.

``y_ijl = mu_j + a_i + c_ij + e_ijl``: subject ``i``, method ``j`` (fixed means ``mu_j``),
replicate ``l``; ``a_i ~ N(0, s_a)``, ``c_ij ~ N(0, s_ab)``, ``e_ijl ~ N(0, s_e)``. With
``theta = (s_a / s_e, s_ab / s_e)`` a subject's covariance is ``s_e (I + t_ab blockdiag(J) +
t_a J)``, whose inverse and determinant follow from the cells' counts ``m_ij`` (Woodbury):
``w_ij = 1 / (1 + t_ab m_ij)``, ``g_i = sum_j m_ij w_ij``, ``log det = sum_j log(1 + t_ab
m_ij) + log(1 + t_a g_i)``. The REML deviance with ``s_e`` profiled out (Harville 1977) is
``(N - k) log Q + sum_i log det_i + log det(X' V^-1 X)``, ``Q`` the generalised residual sum
of squares; it is minimised over ``theta >= 0``.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from .._types import FloatArray

__all__ = ["CellSums", "TwoWayFit", "cell_sums", "two_way_reml"]

#: Largest variance ratio searched (a subject variance 10^8 times the replicates').
_RATIO_MAX = 1e8
#: Step of the central differences of the deviance, on the ``log1p(theta)`` scale.
_STEP = 1e-6


@dataclasses.dataclass(frozen=True, slots=True)
class CellSums:
    """Per (subject, method) cell: the count, sum and sum of squares of its measurements."""

    count: FloatArray
    total: FloatArray
    squares: FloatArray


@dataclasses.dataclass(frozen=True, slots=True)
class TwoWayFit:
    """The REML estimates: the method means with their covariance, and the components."""

    means: FloatArray
    means_cov: FloatArray
    between_subjects: float
    subject_method: float
    within: float


def cell_sums(y: FloatArray, subject: np.ndarray, method: np.ndarray, n: int, k: int) -> CellSums:
    """The cells' sums from the measurements and their codes (``0 .. n - 1``, ``0 .. k - 1``)."""
    flat = subject * k + method

    def total(weights: FloatArray | None) -> FloatArray:
        return np.bincount(flat, weights=weights, minlength=n * k).reshape(n, k).astype(float)

    return CellSums(total(None), total(y), total(y * y))


def _parts(theta: FloatArray, cells: CellSums) -> tuple[float, FloatArray, FloatArray, float]:
    """At ``theta``: the deviance, the GLS means, ``(X' V^-1 X)^-1`` (per unit of ``s_e``)
    and ``s_e``."""
    t_a, t_ab = float(theta[0]), float(theta[1])
    m, s = cells.count, cells.total
    w = 1.0 / (1.0 + t_ab * m)
    a, b = m * w, s * w
    g = a.sum(axis=1)
    shrink = t_a / (1.0 + t_a * g)
    xvx = np.diag(a.sum(axis=0)) - (a * shrink[:, None]).T @ a
    xvy = b.sum(axis=0) - (a * (shrink * b.sum(axis=1))[:, None]).sum(axis=0)
    yvy = float((cells.squares - t_ab * w * s * s).sum() - (shrink * b.sum(axis=1) ** 2).sum())
    inv = np.linalg.inv(xvx)
    means = inv @ xvy
    n_obs, k = float(m.sum()), xvx.shape[0]
    q = yvy - float(xvy @ means)
    logdet = float(np.log1p(t_ab * m).sum() + np.log1p(t_a * g).sum())
    sign, logdet_x = np.linalg.slogdet(xvx)
    if q <= 0.0 or sign <= 0:
        return math.inf, means, inv, 0.0
    deviance = (n_obs - k) * math.log(q) + logdet + float(logdet_x)
    return deviance, means, inv, q / (n_obs - k)


def two_way_reml(cells: CellSums, start: tuple[float, float], warm: bool = False) -> TwoWayFit:
    """The REML fit, searched over ``theta`` in ``[0, 1e8]^2`` from ``start`` and (unless
    ``warm``: a start known to be close) from the boundary points, by L-BFGS-B on
    ``log1p(theta)`` with central-difference gradients, the best of the starts kept."""
    from scipy import optimize

    def deviance(u: FloatArray) -> float:
        return _parts(np.expm1(np.asarray(u)), cells)[0]

    top = math.log1p(_RATIO_MAX)

    def gradient(u: FloatArray) -> FloatArray:  # central differences, inside the bounds
        out = np.empty(2)
        for d in range(2):
            step = np.zeros(2)
            step[d] = _STEP
            hi, lo = np.minimum(u + step, top), np.maximum(u - step, 0.0)
            out[d] = (deviance(hi) - deviance(lo)) / (hi[d] - lo[d])
        return out

    starts = [np.log1p(np.maximum(np.asarray(start, dtype=float), 0.0))]
    if not warm:
        starts += [np.array([np.log1p(max(start[0], 1.0)), 0.0]), np.array([0.0, 0.0])]
    options = {"ftol": 1e-12 if warm else 1e-15, "gtol": 1e-9}
    best = min(
        (optimize.minimize(deviance, u0, jac=gradient, method="L-BFGS-B",
                           bounds=[(0.0, top)] * 2, options=options)
         for u0 in starts),
        key=lambda r: float(r.fun),
    )  # fmt: skip
    u = best.x
    theta = np.expm1(np.asarray(u))
    _, means, inv, s_e = _parts(theta, cells)
    return TwoWayFit(means, inv * s_e, float(theta[0]) * s_e, float(theta[1]) * s_e, s_e)
