"""Bootstrap intervals from replicates (percentile and BCa)."""

from __future__ import annotations

import math

import numpy as np

from ._errors import InvalidInputError
from ._interval import ConfidenceInterval
from ._types import FloatArray


def bootstrap_interval(
    statistic: float,
    replicates: FloatArray | None,
    jackknife: FloatArray | None,
    *,
    level: float,
    method: str,
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
    probs = np.array([alpha, 1.0 - alpha])
    if method == "bca":
        if jackknife is None:
            raise InvalidInputError("a BCa interval needs the jackknife values")
        prop = (np.sum(reps < statistic) + 0.5 * np.sum(reps == statistic)) / reps.size
        prop = min(max(prop, 0.5 / reps.size), 1.0 - 0.5 / reps.size)
        z0 = float(special.ndtri(prop))
        jk = np.asarray(jackknife, dtype=float)
        jk = jk[np.isfinite(jk)]
        d = jk.mean() - jk
        denom = 6.0 * float(np.sum(d**2)) ** 1.5
        a = float(np.sum(d**3)) / denom if denom > 0 else 0.0
        z = special.ndtri(probs)
        probs = special.ndtr(z0 + (z0 + z) / (1.0 - a * (z0 + z)))
    low, high = np.quantile(reps, probs)
    return ConfidenceInterval(float(low), float(high))
