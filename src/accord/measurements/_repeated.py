"""Several pairs per subject: the bias and the variance components of the differences.

The differences ``d_ir`` of subject ``i`` (``m_i`` pairs) follow the one-way random-effects
model ``d_ir = mu + b_i + e_ir``, ``b_i ~ N(0, s_b**2)``, ``e_ir ~ N(0, s_w**2)``. Two fits:

- ``"anova"`` (Bland & Altman 2007): ``mu`` the mean of all ``N`` differences (every pair
  weighs alike), ``s_w**2`` and ``s_b**2`` from the moments of the one-way ANOVA;
- ``"reml"``: ``s_w**2`` and ``s_b**2`` by restricted maximum likelihood, ``mu`` their
  generalised least-squares mean, ``sum_i w_i dbar_i / sum_i w_i`` with ``w_i = 1 / (s_b**2
  + s_w**2 / m_i)`` (every subject weighs about alike when ``s_b`` dominates): the fit of
  lme4 ``lmer(d ~ 1 + (1 | subject))``, MethComp ``BA.est(linked = TRUE)`` and SimplyAgree
  ``agreement_limit(data_type = "nest")``.

With the same number of pairs per subject the two are equal (while the ANOVA between-subject
variance is not negative); with unequal numbers they differ.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal, get_args

import numpy as np
import numpy.typing as npt

from .._types import FloatArray, IntArray

__all__ = ["REPEATED_FITS", "RepeatedFit", "SubjectFit", "subject_fit"]

RepeatedFit = Literal["anova", "reml"]
REPEATED_FITS: tuple[str, ...] = get_args(RepeatedFit)

#: Largest share of the between-subject variance in the total searched by REML.
_SHARE_MAX = 1.0 - 1e-12
#: Points of the grid on which the REML search starts.
_GRID = 65


@dataclasses.dataclass(frozen=True, slots=True)
class SubjectFit:
    """The one-way random-effects fit of the differences by subject.

    Attributes
    ----------
    codes : ndarray of int, shape (N,)
        The subject of each pair, coded 0 .. n - 1.
    counts, means : ndarray, shape (n,)
        Pairs per subject and each subject's mean difference.
    bias : float
        The estimate of ``mu``.
    within, between : float
        The variance components ``s_w**2`` and ``s_b**2`` (NaN for ``between`` with one
        subject).
    bias_variance : float
        The variance of ``bias`` under the fitted model.
    """

    codes: IntArray
    counts: FloatArray
    means: FloatArray
    bias: float
    within: float
    between: float
    bias_variance: float


def subject_fit(d: FloatArray, subject: npt.NDArray[Any], fit: str) -> SubjectFit:
    """Fit the one-way random-effects model of ``d`` by ``subject`` (``"anova"`` or
    ``"reml"``, see the module's docstring)."""
    _, codes = np.unique(subject.astype(str), return_inverse=True)
    m = np.bincount(codes).astype(np.float64)
    means = np.bincount(codes, weights=d) / m
    ssw = float(np.sum((d - means[codes]) ** 2))
    if fit == "reml" and m.size > 1:
        return _reml(codes, m, means, ssw)
    return _anova(d, codes, m, means, ssw)


def _anova(
    d: FloatArray, codes: IntArray, m: FloatArray, means: FloatArray, ssw: float
) -> SubjectFit:
    """Bland & Altman (2007): the mean of all differences and the one-way ANOVA moments."""
    n_sub, total = m.size, float(m.sum())
    grand = float(d.mean())
    msw = ssw / (total - n_sub)
    if n_sub > 1:
        msb = float(m @ (means - grand) ** 2) / (n_sub - 1)
        divisor = (total**2 - float(m @ m)) / ((n_sub - 1) * total)
        between = max((msb - msw) / divisor, 0.0)
    else:
        between = math.nan
    bias_variance = between * float(m @ m) / total**2 + msw / total
    return SubjectFit(codes, m, means, grand, msw, between, bias_variance)


def _reml_parts(ratio: float, m: FloatArray, means: FloatArray, ssw: float) -> tuple[float, ...]:
    """At ``ratio = s_b**2 / s_w**2``: the REML deviance with ``s_w**2`` profiled out, the GLS
    mean, ``s_w**2`` and the sum of the weights ``m_i / (1 + ratio m_i)``.

    ``deviance = (N - 1) log Q + sum_i log(1 + ratio m_i) + log sum_i w_i`` with ``Q = SSW +
    sum_i w_i (dbar_i - mu)**2`` (Harville 1977), and ``s_w**2 = Q / (N - 1)``."""
    w = m / (1.0 + ratio * m)
    total_w = float(w.sum())
    mu = float(w @ means) / total_w
    q = ssw + float(w @ (means - mu) ** 2)
    n = float(m.sum())
    if q <= 0.0:
        return -math.inf, mu, 0.0, total_w
    deviance = (n - 1) * math.log(q) + float(np.log1p(ratio * m).sum()) + math.log(total_w)
    return deviance, mu, q / (n - 1), total_w


def _reml(codes: IntArray, m: FloatArray, means: FloatArray, ssw: float) -> SubjectFit:
    """The REML fit, searched over the share ``s_b**2 / (s_b**2 + s_w**2)`` in [0, 1): on a
    grid, then by Brent's method between the neighbours of the grid's best point.

    With no spread within any subject (``SSW = 0``) the REML likelihood grows without bound
    as ``s_w -> 0``: its limit is taken, ``s_w = 0`` and ``s_b**2`` the variance of the
    subjects' means (which then weigh alike)."""
    from scipy import optimize

    if ssw == 0.0:
        between = float(np.var(means, ddof=1))
        return SubjectFit(codes, m, means, float(means.mean()), 0.0, between, between / m.size)

    def deviance(share: float) -> float:
        return _reml_parts(share / (1.0 - share), m, means, ssw)[0]

    grid = np.linspace(0.0, _SHARE_MAX, _GRID)
    i = int(np.argmin([deviance(float(u)) for u in grid]))
    lo, hi = float(grid[max(i - 1, 0)]), float(grid[min(i + 1, _GRID - 1)])
    best = optimize.minimize_scalar(
        deviance, bounds=(lo, hi), method="bounded", options={"xatol": 1e-13}
    )
    share = min((float(best.x), float(grid[i])), key=deviance)
    ratio = share / (1.0 - share)
    _, mu, within, total_w = _reml_parts(ratio, m, means, ssw)
    return SubjectFit(codes, m, means, mu, within, ratio * within, within / total_w)
