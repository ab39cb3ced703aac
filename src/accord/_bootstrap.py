"""Bootstrap intervals from replicates (percentile and BCa), and the fewest replicates they
are read from without a warning."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ._errors import AccordWarning, InvalidInputError, bad_parameter, option, warn_degenerate
from ._interval import ConfidenceInterval
from ._types import FloatArray

__all__ = [
    "MAX_REPLICATES",
    "MIN_INTERVAL_REPLICATES",
    "bootstrap_interval",
    "check_n_boot",
    "off_centre",
    "warn_few_replicates",
]

#: The fewest bootstrap replicates a percentile or BCa interval is read from without a
#: warning. Interval ends are tail quantiles of the replicates, which need far more of them
#: than a standard error does: Efron & Tibshirani (1993) advise 25 to 200 replicates for a
#: standard error and at least about 1000 for the ends of a percentile or BCa interval.
MIN_INTERVAL_REPLICATES = 1000

#: The most bootstrap replicates an option takes: far above what an interval needs (1000 to
#: 2000, Efron & Tibshirani 1993), and below what would not fit in memory or finish.
MAX_REPLICATES = 10_000_000


def warn_few_replicates(n_boot: int, *, name: str = "n_boot", stacklevel: int = 3) -> None:
    """Warn (:class:`~accord.AccordWarning`) when ``n_boot`` is positive but below
    :data:`MIN_INTERVAL_REPLICATES`: the interval's ends are then quantiles of too few
    replicates, and move with the seed. ``name`` is the option's name where it is not
    ``n_boot`` (``n_bootstrap`` of :func:`accord.rater_model`).

    References
    ----------
    Efron, B., & Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*. Chapman &
    Hall. https://doi.org/10.1201/9780429246593

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_few_replicates(5)
    ...     warn_few_replicates(2000)
    >>> len(caught), str(caught[0].message).split(":")[0]
    (1, 'only 5 bootstrap replicates (n_boot=5)')
    """
    if 0 < n_boot < MIN_INTERVAL_REPLICATES:
        warnings.warn(
            f"only {n_boot} bootstrap replicates ({option(name, n_boot)}): the ends of a "
            f"percentile or BCa interval are tail quantiles of the replicates and need at "
            f"least {MIN_INTERVAL_REPLICATES} (Efron & Tibshirani 1993); with fewer they "
            f"move with the seed. Pass {option(name, 2000)}",
            AccordWarning,
            stacklevel=stacklevel,
        )


def check_n_boot(n_boot: Any, owner: str) -> None:
    """Validate an ``n_boot`` option that may be 0 (no bootstrap): an integer >= 0; warn
    below :data:`MIN_INTERVAL_REPLICATES` (pointing at the caller of ``owner``)."""
    if (
        not isinstance(n_boot, int | np.integer)
        or isinstance(n_boot, bool)
        or not 0 <= n_boot <= MAX_REPLICATES
    ):
        need = f"an integer from 0 to {MAX_REPLICATES:,}"
        raise InvalidInputError(bad_parameter(owner, "n_boot", need, n_boot))
    warn_few_replicates(int(n_boot), stacklevel=4)


def bootstrap_interval(
    statistic: float,
    replicates: FloatArray | None,
    jackknife: FloatArray | None,
    *,
    level: float,
    method: str,
    advice: str = "",
) -> ConfidenceInterval:
    """Percentile or BCa interval (Efron & Tibshirani 1993, ch. 13-14) from replicates.

    Parameters
    ----------
    statistic : float
        The estimate on the full data.
    replicates : ndarray, shape (B,)
        Bootstrap replicates (NaN replicates are ignored).
    jackknife : ndarray, shape (n,) or None
        Leave-one-out values, needed for the BCa acceleration.
    level : float
        Confidence level.
    method : {"percentile", "bca"}
    advice : str, optional
        What to do instead, appended to the warning when no interval holds.

    Returns
    -------
    ConfidenceInterval
        NaN ends, with a :class:`~accord.DegenerateDataWarning` saying why, when the
        replicates are not spread about the estimate (:func:`off_centre`).
    """
    from scipy import special

    if replicates is None:
        raise InvalidInputError(
            f"a {method} interval needs bootstrap replicates, and this result has none: "
            "compute the coefficient with its bootstrap option (n_boot=...) first"
        )
    reps = np.asarray(replicates, dtype=float)
    reps = reps[np.isfinite(reps)]
    if reps.size == 0 or not math.isfinite(statistic):
        return ConfidenceInterval(math.nan, math.nan)
    alpha = (1.0 - level) / 2.0
    reason = off_centre(statistic, reps, level)
    if reason is not None:
        shown = {"bca": "BCa"}.get(method, method)
        warn_degenerate(f"no {shown} interval: {reason}{advice}", stacklevel=3)
        return ConfidenceInterval(math.nan, math.nan)
    probs = np.array([alpha, 1.0 - alpha])
    if method == "bca":
        if jackknife is None:
            raise InvalidInputError("a BCa interval needs the jackknife values")
        z0 = _z0(statistic, reps)
        jk = np.asarray(jackknife, dtype=float)
        jk = jk[np.isfinite(jk)]
        d = jk.mean() - jk
        denom = 6.0 * float(np.sum(d**2)) ** 1.5
        a = float(np.sum(d**3)) / denom if denom > 0 else 0.0
        z = special.ndtri(probs)
        probs = special.ndtr(z0 + (z0 + z) / (1.0 - a * (z0 + z)))
    low, high = np.quantile(reps, probs)
    return ConfidenceInterval(float(low), float(high))


def off_centre(statistic: float, replicates: FloatArray, level: float) -> str | None:
    """Why no bootstrap interval at ``level`` holds, or None: the estimate lies beyond the
    central ``level`` share of its (finite) replicates.

    When fewer than ``(1 - level) / 2`` of the replicates lie at or below the estimate (or at
    or above it), the median of the resampled statistic is more than a ``level`` interval's
    half width from the estimate: the statistic is biased by more than its spread (a mean
    over many rater pairs of a ratio on the few items each pair shares is: the bias of each
    ratio stays while the spread of the mean shrinks with the pairs). The percentile
    interval then excludes the estimate, and BCa's
    bias correction :math:`z_0` moves both of its ends towards the same extreme replicate
    (R's ``boot.ci`` warns "extreme order statistics used as endpoints"), an interval of
    width about 0 beside the estimate. Efron & Tibshirani (1993, sec. 10.6) call a bias of
    more than a quarter of the standard error a concern; this is about two or more.

    Examples
    --------
    Replicates all below the estimate, then spread about it:

    >>> import numpy as np
    >>> print(off_centre(1.0, np.linspace(0.0, 0.9, 100), 0.95))  # doctest: +ELLIPSIS
    the estimate 1 lies above 100 of the 100 bootstrap replicates (z0 = 2.58): ...
    >>> off_centre(0.5, np.linspace(0.0, 1.0, 101), 0.95) is None
    True
    """
    n = replicates.size
    need = (1.0 - level) / 2.0 * n * (1.0 - 1e-9)  # 0.025 * 1000 is 25.000000000000021
    at_or_below = int(np.count_nonzero(replicates <= statistic))
    at_or_above = int(np.count_nonzero(replicates >= statistic))
    if min(at_or_below, at_or_above) >= need:
        return None
    side, beyond = ("below", n - at_or_below) if at_or_below < need else ("above", n - at_or_above)
    return (
        f"the estimate {statistic:.6g} lies {side} {beyond:,} of the {n:,} bootstrap "
        f"replicates (z0 = {_z0(statistic, replicates):.2f}): resampling biases the statistic "
        f"by more than its spread, so neither a percentile nor a BCa interval at {level:g} "
        "holds, and the bootstrap standard error is only a rough guide"
    )


def _z0(statistic: float, replicates: FloatArray) -> float:
    """BCa's bias correction: the normal quantile of the share of replicates below the
    estimate (ties count half), kept within half a replicate of 0 and 1."""
    from scipy import special

    n = replicates.size
    prop = (np.sum(replicates < statistic) + 0.5 * np.sum(replicates == statistic)) / n
    return float(special.ndtri(min(max(prop, 0.5 / n), 1.0 - 0.5 / n)))
