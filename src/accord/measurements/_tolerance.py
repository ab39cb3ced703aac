"""Tolerance factors of the normal distribution: the exact confidence limits of a
Bland-Altman limit of agreement (Carkeet 2015).

A limit of agreement ``mean + z sd`` estimates a percentile of the differences; its exact
confidence limits are ``mean + K sd`` with ``K`` a tolerance factor, one-sided when each limit
is taken on its own and two-sided when the two limits are taken as a pair.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

from .._types import FloatArray

__all__ = ["one_sided_factor", "two_sided_factor"]

#: Gauss-Legendre nodes of the integral over the standardised sample mean.
_NODES = 160


@functools.lru_cache(maxsize=1024)
def one_sided_factor(n: int, z: float, gamma: float) -> float:
    r"""``K`` with ``P(mean + K sd >= mu + z sigma) = gamma`` for ``n`` normal observations.

    .. math:: K = t'_{\gamma}(n - 1, z \sqrt{n}) / \sqrt{n}

    the ``gamma`` quantile of the non-central t with ``n - 1`` degrees of freedom and
    non-centrality ``z sqrt(n)`` (Carkeet 2015, limits considered individually).

    >>> round(one_sided_factor(17, 1.96, 0.5), 4)
    1.9983
    """
    from scipy import stats

    if n < 2:
        return math.nan
    return float(stats.nct.ppf(gamma, n - 1, z * math.sqrt(n))) / math.sqrt(n)


def _coverage_half_width(x: FloatArray, p: float) -> FloatArray:
    """``r(x)`` with ``Phi(x + r) - Phi(x - r) = p`` for each ``x >= 0`` (Newton's method)."""
    from scipy import special

    r = np.full_like(x, float(special.ndtri(0.5 + p / 2.0))) + x
    for _ in range(60):
        f = special.ndtr(x + r) - special.ndtr(x - r) - p
        slope = np.exp(-0.5 * (x + r) ** 2) + np.exp(-0.5 * (x - r) ** 2)
        step = f / (slope / math.sqrt(2.0 * math.pi))
        r = np.maximum(r - step, 1e-12)
        if np.max(np.abs(step)) < 1e-13:
            break
    return np.asarray(r, dtype=np.float64)


@functools.lru_cache(maxsize=1024)
def two_sided_factor(n: int, z: float, gamma: float) -> float:
    r"""``K`` such that ``mean +- K sd`` holds the central ``p = Phi(z) - Phi(-z)`` of the
    population with probability ``gamma``, for ``n`` normal observations.

    The exact two-sided tolerance factor (Odeh 1978; Carkeet 2015, limits considered as a
    pair): with :math:`\nu = n - 1` and :math:`r(x)` solving
    :math:`\Phi(x + r) - \Phi(x - r) = p`,

    .. math::

        \gamma = \sqrt{\frac{2n}{\pi}} \int_0^\infty
            P\left(\chi^2_\nu > \frac{\nu\, r(x)^2}{K^2}\right) e^{-n x^2 / 2}\, dx

    solved for ``K``; the integral by Gauss-Legendre quadrature on ``[0, 10 / sqrt(n)]``.

    >>> round(two_sided_factor(17, 1.96, 0.975), 3)
    3.082
    """
    from scipy import special

    if n < 2:
        return math.nan
    nu = n - 1
    nodes, weights = np.polynomial.legendre.leggauss(_NODES)
    top = 10.0 / math.sqrt(n)
    x = (nodes + 1.0) * top / 2.0
    w = weights * top / 2.0 * np.exp(-n * x * x / 2.0) * math.sqrt(2.0 * n / math.pi)
    p = float(special.ndtr(z) - special.ndtr(-z))
    r2 = _coverage_half_width(x, p) ** 2

    def excess(k: float) -> float:
        return float(np.dot(w, special.chdtrc(nu, nu * r2 / (k * k)))) - gamma

    low, high = 1e-3, 10.0
    while excess(high) < 0.0:
        high *= 4.0
    return _increasing_root(excess, low, high)


def _increasing_root(f: Callable[[float], float], low: float, high: float) -> float:
    """The root of an increasing ``f`` with ``f(low) < 0 <= f(high)``, by bisection to 12
    significant digits (60 halvings at most; scipy's ``brentq`` would give the same digits,
    but importing ``scipy.optimize`` costs a report on measurements more than the solve).

    >>> round(_increasing_root(lambda k: k * k - 2.0, 0.0, 2.0), 12)
    1.414213562373
    """
    for _ in range(60):
        middle = 0.5 * (low + high)
        if f(middle) < 0.0:
            low = middle
        else:
            high = middle
        if high - low <= 1e-13 * high:
            break
    return 0.5 * (low + high)
