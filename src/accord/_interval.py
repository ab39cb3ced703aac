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
