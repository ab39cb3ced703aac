"""Companions of NCE: Brier score, log loss, AUROC, ECE/MCE and reliability diagrams."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Never

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError, bad_parameter, warn_degenerate
from .._results import Record, check_level
from .._types import FloatArray, IntArray
from .._validate import check_choice
from ..data.scored import OutOfRange, prepare
from ..data.source import refuse_read_options
from ..stats.confidence import ConfidenceSums, ConfidenceValueCounts
from ._options import Binning

__all__ = [
    "CalibrationMetrics",
    "ReliabilityDiagram",
    "auroc_from_value_counts",
    "bin_codes",
    "calibration_from_statistics",
    "reliability_diagram",
    "reliability_from_value_counts",
    "wilson_interval",
]

WIDTH_CONVENTION = (
    "equal-width bins [k/B, (k+1)/B) on [0, 1], the last bin closed [(B-1)/B, 1]: 0.0 falls in "
    "the first bin, 1.0 in the last, and a confidence equal to an interior edge k/B in the "
    "bin that starts there"
)
MASS_CONVENTION = (
    "equal-mass bins: units sorted by confidence, and the units sharing a confidence value "
    "(a tie group) whose first sorted position r (0-based, of M) gives bin floor(B r / M); "
    "ties are never split, so a bin can be larger than M / B or empty"
)
ECE_CONVENTION = (
    "ECE = sum over non-empty bins of (n_b / M) |accuracy_b - mean confidence_b|; MCE = max of "
    "|accuracy_b - mean confidence_b| over non-empty bins; empty bins are reported as empty "
    "and excluded"
)
LOG_LOSS_CONVENTION = (
    "mean of -(y log c + (1 - y) log(1 - c)) with c clipped to [1e-7, 0.9999999] as sclite "
    "does for NCE (so NCE = 1 - M log_loss_bits / H_max exactly); scikit-learn's log_loss clips "
    "at machine epsilon instead, which differs only for confidences outside that interval"
)
BRIER_CONVENTION = "mean of (c - y)^2 with y = 1 for a correct unit (Brier 1950), unclipped c"
AUROC_CONVENTION = (
    "area under the ROC curve of confidence for correctness: P(c of a correct unit > c of an "
    "incorrect unit) + P(tie) / 2 (Mann-Whitney), as scikit-learn's roc_auc_score"
)


def _check_bins(bins: int, owner: str) -> int:
    if isinstance(bins, bool) or not isinstance(bins, int | np.integer) or bins < 1:
        raise InvalidInputError(bad_parameter(owner, "bins", "a positive integer", bins))
    if bins > 10**6:  # more bins than any data could fill, and than memory holds at 1e20
        raise InvalidInputError(bad_parameter(owner, "bins", "at most 1,000,000", bins))
    return int(bins)


def bin_codes(table: ConfidenceValueCounts, bins: int, binning: Binning) -> IntArray:
    """Bin of each distinct confidence in ``table``.

    Parameters
    ----------
    table : ConfidenceValueCounts
        ``k`` distinct values.
    bins : int
        Number of bins ``B``.
    binning : {"width", "mass"}
        See :data:`WIDTH_CONVENTION` and :data:`MASS_CONVENTION`.

    Returns
    -------
    ndarray of int64, shape (k,)
        Bin index in ``0 .. B-1`` of each distinct value (non-decreasing).
    """
    if binning == "width":
        edges = np.arange(bins + 1, dtype=np.float64) / bins  # k / B correctly rounded
        codes = np.searchsorted(edges, table.values, side="right") - 1
        out: IntArray = np.clip(codes, 0, bins - 1).astype(np.int64)
        return out
    counts = table.counts
    before = np.cumsum(counts) - counts
    total = int(counts.sum())
    mass: IntArray = (before * bins) // max(total, 1)
    return mass.astype(np.int64)


def wilson_interval(
    successes: npt.ArrayLike, trials: npt.ArrayLike, level: float = 0.95
) -> tuple[FloatArray, FloatArray]:
    """Wilson score interval for binomial proportions (NaN where ``trials`` is 0).

    .. math::

        \\frac{\\hat p + z^2 / 2n \\pm z \\sqrt{\\hat p (1 - \\hat p) / n + z^2 / 4n^2}}
        {1 + z^2 / n}

    References
    ----------
    .. [1] E. B. Wilson (1927), "Probable inference, the law of succession, and statistical
       inference", JASA 22(158), 209-212. doi:10.1080/01621459.1927.10502953
    """
    from scipy import special

    check_level(level)
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    z = float(special.ndtri(0.5 + level / 2.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        denom = 1.0 + z * z / n
        centre = (p + z * z / (2.0 * n)) / denom
        half = z * np.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n)) / denom
    low: FloatArray = np.where(n > 0, np.maximum(centre - half, 0.0), np.nan)
    high: FloatArray = np.where(n > 0, np.minimum(centre + half, 1.0), np.nan)
    return low, high


@dataclasses.dataclass(frozen=True, slots=True)
class ReliabilityDiagram(Record):
    """Data of a reliability diagram: per bin, how often units were correct vs how confident.

    Attributes
    ----------
    bins : pandas.DataFrame
        One row per bin: ``bin`` (0-based), ``low`` and ``high`` (the bin's edges for
        equal-width bins; the smallest and largest confidence in it for equal-mass bins),
        ``count``, ``n_correct``, ``mean_confidence``, ``accuracy`` (proportion correct),
        ``gap`` (``accuracy - mean_confidence``), ``ci_low`` and ``ci_high`` (Wilson interval
        for the accuracy), ``empty`` (True for a bin without units: its other statistics are
        NaN, never 0% correct).
    ece : float
        Expected calibration error over the non-empty bins.
    mce : float
        Maximum calibration error over the non-empty bins.
    n : int
        Units.
    n_bins : int
        Bins requested.
    n_empty_bins : int
        Bins without units.
    binning : str
        ``"width"`` or ``"mass"``.
    level : float
        Confidence level of the Wilson intervals.
    method : str
        The binning and ECE conventions, in words.
    """

    bins: pd.DataFrame = dataclasses.field(repr=False, compare=False)
    ece: float
    mce: float
    n: int
    n_bins: int
    n_empty_bins: int
    binning: str
    level: float
    method: str
    name: str = "reliability_diagram"


def reliability_from_value_counts(
    table: ConfidenceValueCounts,
    *,
    bins: int = 10,
    binning: Binning = "width",
    level: float = 0.95,
) -> ReliabilityDiagram:
    """Reliability diagram from value counts (possibly merged from batches).

    Parameters
    ----------
    table : ConfidenceValueCounts
    bins : int, default 10
    binning : {"width", "mass"}, default "width"
    level : float, default 0.95
        Level of the Wilson intervals.
    """
    bins = _check_bins(bins, "reliability_diagram")
    check_choice("binning", binning, ("width", "mass"), "reliability_diagram")
    code = bin_codes(table, bins, binning)
    units = table.counts
    count = np.bincount(code, weights=units, minlength=bins)
    n_correct = np.bincount(code, weights=table.n_correct, minlength=bins)
    sum_conf = np.bincount(code, weights=table.values * units, minlength=bins)
    empty = count == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_conf = np.where(empty, np.nan, sum_conf / count)
        accuracy = np.where(empty, np.nan, n_correct / count)
    if binning == "width":
        low = np.arange(bins, dtype=np.float64) / bins
        high = np.arange(1, bins + 1, dtype=np.float64) / bins
    else:
        first = np.searchsorted(code, np.arange(bins), side="left")
        last = np.searchsorted(code, np.arange(bins), side="right") - 1
        safe_first = np.minimum(first, max(code.size - 1, 0))
        safe_last = np.maximum(last, 0)
        low = np.where(empty, np.nan, table.values[safe_first] if code.size else np.nan)
        high = np.where(empty, np.nan, table.values[safe_last] if code.size else np.nan)
    ci_low, ci_high = wilson_interval(n_correct, count, level)
    gap = accuracy - mean_conf
    frame = pd.DataFrame(
        {
            "bin": np.arange(bins),
            "low": low,
            "high": high,
            "count": count.astype(np.int64),
            "n_correct": n_correct.astype(np.int64),
            "mean_confidence": mean_conf,
            "accuracy": accuracy,
            "gap": gap,
            "ci_low": ci_low,
            "ci_high": ci_high,
            "empty": empty,
        }
    )
    total = float(count.sum())
    filled = ~empty
    ece = float(np.sum(count[filled] / total * np.abs(gap[filled]))) if total else math.nan
    mce = float(np.max(np.abs(gap[filled]))) if filled.any() else math.nan
    convention = WIDTH_CONVENTION if binning == "width" else MASS_CONVENTION
    return ReliabilityDiagram(
        bins=frame,
        ece=ece,
        mce=mce,
        n=int(total),
        n_bins=bins,
        n_empty_bins=int(empty.sum()),
        binning=binning,
        level=level,
        method=f"{convention}; {ECE_CONVENTION}; Wilson score intervals at level {level}",
    )


def reliability_diagram(
    correct: npt.ArrayLike | pd.Series[Any],
    confidence: npt.ArrayLike | pd.Series[Any],
    *,
    bins: int = 10,
    binning: Binning = "width",
    level: float = 0.95,
    out_of_range: OutOfRange = "raise",
    **read_options: Never,
) -> ReliabilityDiagram:
    """Data for a reliability diagram: per confidence bin, the count, the mean confidence,
    the proportion correct and a Wilson interval for it.

    Parameters
    ----------
    correct : array_like of bool or 0/1, shape (n,)
    confidence : array_like of float in [0, 1], shape (n,)
    bins : int, default 10
        Number of bins ``B``.
    binning : {"width", "mass"}, default "width"
        ``"width"``: bins ``[k/B, (k+1)/B)`` with the last closed, so 0.0 is in the first bin
        and 1.0 in the last. ``"mass"``: the sorted confidences cut into ``B`` bins of about
        ``M / B`` units, tie groups kept whole (sclite's "sbhist" idea).
    level : float, default 0.95
        Confidence level of the Wilson intervals.
    out_of_range : {"raise", "clip"}, default "raise"
        As in :func:`normalized_cross_entropy`.

    Returns
    -------
    ReliabilityDiagram
        ``bins`` (table with ``count``, ``n_correct``, ``mean_confidence``, ``accuracy``,
        ``gap``, ``ci_low``, ``ci_high``, ``empty``), ``ece``, ``mce``.

    Notes
    -----
    Empty bins are reported as empty (``empty=True``, NaN statistics), never as 0% correct,
    and are excluded from ECE and MCE. A perfectly calibrated system has ``accuracy`` close
    to ``mean_confidence`` in every bin, within the Wilson interval.

    References
    ----------
    .. [1] M. H. DeGroot, S. E. Fienberg (1983), "The comparison and evaluation of
       forecasters", The Statistician 32(1/2), 12-22. doi:10.2307/2987588
    .. [2] E. B. Wilson (1927), JASA 22(158), 209-212. doi:10.1080/01621459.1927.10502953

    Examples
    --------
    >>> import accord
    >>> correct = [1, 1, 1, 0, 1, 1, 0, 1, 1, 0]
    >>> confidence = [0.95, 0.80, 0.60, 0.40, 0.90, 0.70, 0.20, 0.85, 1.0, 0.0]
    >>> d = accord.reliability_diagram(correct, confidence, bins=5)
    >>> print(d.bins[["bin", "count", "accuracy"]].to_string(index=False))
     bin  count  accuracy
       0      1       0.0
       1      1       0.0
       2      1       0.0
       3      2       1.0
       4      5       1.0
    >>> round(d.ece, 6)
    0.18
    """
    refuse_read_options("reliability_diagram", read_options, "scores")
    units = prepare(correct, confidence, None, out_of_range, "reliability_diagram")
    table = ConfidenceValueCounts.from_units(units)
    return reliability_from_value_counts(table, bins=bins, binning=binning, level=level)


def auroc_from_value_counts(table: ConfidenceValueCounts) -> float:
    """AUROC of confidence for correctness (ties count one half); NaN without both classes."""
    pos = table.n_correct.astype(np.float64)
    neg = table.n_incorrect.astype(np.float64)
    n_pos, n_neg = pos.sum(), neg.sum()
    if n_pos == 0 or n_neg == 0:
        return math.nan
    neg_below = np.cumsum(neg) - neg
    return float(np.sum(pos * (neg_below + 0.5 * neg)) / (n_pos * n_neg))


@dataclasses.dataclass(frozen=True, slots=True)
class CalibrationMetrics(Record):
    """Calibration and discrimination of confidence scores, every convention named.

    Attributes
    ----------
    n, n_correct : int
        Units and correct units.
    accuracy : float
        Proportion correct ``p_c``.
    mean_confidence : float
        Mean confidence (equals ``accuracy`` for a system calibrated in the large).
    brier_score : float
        Mean of ``(c - y)^2``.
    log_loss_bits, log_loss_nats : float
        Mean log loss in bits and in nats (confidences clipped as sclite does).
    auroc : float
        Area under the ROC curve of confidence for correctness (discrimination, not
        calibration); NaN when all units are correct or all incorrect.
    ece_width, mce_width : float
        Expected and maximum calibration error over equal-width bins.
    ece_mass, mce_mass : float
        The same over equal-mass bins.
    n_bins : int
        Bins ``B`` of both binnings.
    n_empty_bins_width, n_empty_bins_mass : int
        Bins without units (excluded from ECE and MCE).
    n_clipped : int
        Confidences moved by the clipping to [1e-7, 0.9999999] before the logs.
    n_out_of_range : int
        Confidences outside [0, 1] clipped to the interval (``out_of_range="clip"``).
    conventions : dict of str to str
        Each statistic's convention, in words.
    reason : str or None
        Why ``auroc`` is NaN, when it is.
    """

    n: int
    n_correct: int
    accuracy: float
    mean_confidence: float
    brier_score: float
    log_loss_bits: float
    log_loss_nats: float
    auroc: float
    ece_width: float
    mce_width: float
    ece_mass: float
    mce_mass: float
    n_bins: int
    n_empty_bins_width: int
    n_empty_bins_mass: int
    n_clipped: int
    n_out_of_range: int
    conventions: dict[str, str] = dataclasses.field(compare=False)
    reason: str | None = None
    name: str = "calibration_metrics"


def calibration_from_statistics(
    sums: ConfidenceSums, table: ConfidenceValueCounts, *, bins: int = 10
) -> CalibrationMetrics:
    """Calibration metrics from sufficient statistics (possibly merged from batches).

    Parameters
    ----------
    sums : ConfidenceSums
        Per-group sums (pooled here).
    table : ConfidenceValueCounts
        Value counts of the same units.
    bins : int, default 10
    """
    bins = _check_bins(bins, "calibration_metrics")
    total = sums.pooled()
    n = int(total.n[0])
    m = int(total.n_correct[0])
    if n != table.n:
        raise InvalidInputError(
            f"the sums ({n} units) and the value counts ({table.n} units) describe different data"
        )
    bits = -float(total.sum_log2_correct[0] + total.sum_log2_incorrect[0]) / n
    width = reliability_from_value_counts(table, bins=bins, binning="width")
    mass = reliability_from_value_counts(table, bins=bins, binning="mass")
    auroc = auroc_from_value_counts(table)
    reason = None
    if math.isnan(auroc):
        reason = (
            "AUROC is undefined: every unit is "
            + ("correct" if m == n else "incorrect")
            + ", so there is nothing to discriminate"
        )
        warn_degenerate(f"calibration_metrics: {reason}", stacklevel=4)
    return CalibrationMetrics(
        n=n,
        n_correct=m,
        accuracy=m / n,
        mean_confidence=float(np.sum(table.values * table.counts) / n),
        brier_score=float(total.sum_squared_error[0]) / n,
        log_loss_bits=bits,
        log_loss_nats=bits * math.log(2.0),
        auroc=auroc,
        ece_width=width.ece,
        mce_width=width.mce,
        ece_mass=mass.ece,
        mce_mass=mass.mce,
        n_bins=bins,
        n_empty_bins_width=width.n_empty_bins,
        n_empty_bins_mass=mass.n_empty_bins,
        n_clipped=int(total.n_clipped[0]),
        n_out_of_range=int(total.n_out_of_range[0]),
        conventions={
            "brier_score": BRIER_CONVENTION,
            "log_loss": LOG_LOSS_CONVENTION,
            "auroc": AUROC_CONVENTION,
            "width_bins": WIDTH_CONVENTION,
            "mass_bins": MASS_CONVENTION,
            "ece_mce": ECE_CONVENTION,
        },
        reason=reason,
    )
