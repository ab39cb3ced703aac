"""Confidence intervals: the interval type, t-based intervals and p-values.

The foundation of every result's ``confidence_interval`` (:mod:`accord._results`) and of the
bootstrap intervals (:mod:`accord._bootstrap`).
"""

from __future__ import annotations

import math
import numbers
from typing import Literal, NamedTuple

from ._errors import InvalidInputError, bad_parameter
from ._types import Alternative

__all__ = [
    "CIMethod",
    "ConfidenceInterval",
    "check_confidence_level",
    "check_level",
    "chi2_quantile",
    "chi2_sf",
    "f_quantile",
    "f_sf",
    "t_interval",
    "t_pvalue",
    "t_quantile",
    "t_sf",
]

CIMethod = Literal["analytic", "percentile", "bca"]


class ConfidenceInterval(NamedTuple):
    """A confidence interval ``(low, high)``."""

    low: float
    high: float


def t_quantile(p: float, df: float) -> float:
    """Quantile of Student's t with ``df`` degrees of freedom (``inf`` gives the normal)."""
    from scipy import special

    if not math.isfinite(df):
        return float(special.ndtri(p))
    return float(special.stdtrit(df, p))


def t_sf(t: float, df: float) -> float:
    """Survival function of Student's t (``inf`` df gives the normal)."""
    from scipy import special

    if not math.isfinite(df):
        return float(special.ndtr(-t))
    return float(special.stdtr(df, -t))


# The F and chi-square tails and quantiles below are those of ``scipy.stats.f`` and
# ``scipy.stats.chi2`` (the same scipy.special functions, the same answers at the ends of
# the support and for invalid degrees of freedom), without importing scipy.stats: loading
# its distributions takes most of a second, longer than the coefficients of a small file.


def f_sf(x: float, dfn: float, dfd: float) -> float:
    """Survival function of the F distribution with ``(dfn, dfd)`` degrees of freedom
    (``scipy.stats.f.sf``).

    With 2 numerator degrees of freedom the tail is ``(1 + 2x/dfd) ** (-dfd/2)``:
    ``1.6 ** -5`` here.

    >>> round(f_sf(3.0, 2, 10), 6)
    0.095367
    """
    from scipy import special

    if not (dfn > 0 and dfd > 0) or math.isnan(x):
        return math.nan
    if x <= 0.0:
        return 1.0
    return 0.0 if x == math.inf else float(special.fdtrc(dfn, dfd, x))


def f_quantile(p: float, dfn: float, dfd: float) -> float:
    """Quantile of the F distribution with ``(dfn, dfd)`` degrees of freedom
    (``scipy.stats.f.ppf``); 4.10 in the 5% table of F.

    >>> round(f_quantile(0.95, 2, 10), 6)
    4.102821
    """
    from scipy import special

    if not (dfn > 0 and dfd > 0 and 0.0 <= p <= 1.0):
        return math.nan
    if p in (0.0, 1.0):
        return 0.0 if p == 0.0 else math.inf
    return float(special.fdtri(dfn, dfd, p))


def chi2_sf(x: float, df: float) -> float:
    """Survival function of the chi-square distribution with ``df`` degrees of freedom
    (``scipy.stats.chi2.sf``).

    >>> round(chi2_sf(3.841459, 1), 6)
    0.05
    """
    from scipy import special

    if not df > 0 or math.isnan(x):
        return math.nan
    if x <= 0.0:
        return 1.0
    return 0.0 if x == math.inf else float(special.chdtrc(df, x))


def chi2_quantile(p: float, df: float) -> float:
    """Quantile of the chi-square distribution with ``df`` degrees of freedom
    (``scipy.stats.chi2.ppf``).

    >>> round(chi2_quantile(0.95, 1), 6)
    3.841459
    """
    from scipy import special

    if not (df > 0 and 0.0 <= p <= 1.0):
        return math.nan
    if p in (0.0, 1.0):
        return 0.0 if p == 0.0 else math.inf
    return float(2 * special.gammaincinv(df / 2, p))


def t_interval(
    statistic: float,
    standard_error: float,
    df: float,
    level: float,
    bounds: tuple[float, float] = (-1.0, 1.0),
) -> ConfidenceInterval:
    """``statistic +- t(1 - alpha/2, df) * SE``, truncated to ``bounds``.

    NaN ends when the statistic or its standard error is undefined.
    """
    check_level(level)
    if not (math.isfinite(statistic) and math.isfinite(standard_error)) or df < 1:
        return ConfidenceInterval(math.nan, math.nan)
    half = t_quantile(0.5 + level / 2.0, df) * standard_error
    return ConfidenceInterval(max(bounds[0], statistic - half), min(bounds[1], statistic + half))


def t_pvalue(
    statistic: float, standard_error: float, df: float, alternative: Alternative = "two-sided"
) -> float:
    """p-value of the test ``statistic = 0`` with a t reference on ``df`` degrees of freedom."""
    if alternative not in ("two-sided", "greater", "less"):
        raise InvalidInputError(
            "The 'alternative' parameter must be one of {'two-sided', 'greater', 'less'}. "
            f"Got {alternative!r} instead."
        )
    if not (math.isfinite(statistic) and math.isfinite(standard_error)) or df < 1:
        return math.nan
    if standard_error == 0.0:
        return 0.0 if statistic != 0.0 else math.nan
    t = statistic / standard_error
    if alternative == "two-sided":
        return min(1.0, 2.0 * t_sf(abs(t), df))
    return t_sf(t if alternative == "greater" else -t, df)


def check_level(level: float) -> None:
    """Raise unless ``0 < level < 1``."""
    if not (0.0 < level < 1.0):
        raise InvalidInputError(f"confidence level must be strictly between 0 and 1, got {level}")


def check_confidence_level(value: object, owner: str) -> float:
    """``owner``'s ``confidence_level`` keyword as a float, checked: a real number strictly
    between 0 and 1 (not a bool), else the message of :func:`accord._errors.bad_parameter`.

    >>> check_confidence_level(0.9, "judge_agreement")
    0.9
    >>> check_confidence_level(95, "judge_agreement")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    accord._errors.InvalidInputError: The 'confidence_level' parameter ... Got 95 instead.
    """
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        level = float(value)
        if 0.0 < level < 1.0:
            return level
    raise InvalidInputError(
        bad_parameter(owner, "confidence_level", "strictly between 0 and 1", value)
    )
