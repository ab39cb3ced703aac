"""Normalized cross-entropy (NCE) of confidence scores, exactly as NIST sclite computes it."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import warn_degenerate
from .._results import Record
from .._types import FloatArray
from .._validate import counted
from ..stats.confidence import ConfidenceSums

__all__ = ["NormalizedCrossEntropy", "nce_from_sums"]

NCE_METHOD = (
    "NCE as NIST SCTK sclite computes it (compute_SCORE_nce in scores.c): "
    "(H_max + sum_correct log2 c + sum_incorrect log2(1 - c)) / H_max with "
    "H_max = -(m log2 p_c + (M - m) log2(1 - p_c)), p_c = m / M; confidences clipped to "
    "[1e-7, 0.9999999] before the logs; pooled NCE from the totals over all units"
)

_UNDEFINED = "p_c is {p}: every unit is {what}, so H_max = 0 and NCE is undefined"


@dataclasses.dataclass(frozen=True, slots=True)
class NormalizedCrossEntropy(Record):
    """Normalized cross-entropy of confidence scores, pooled and per group.

    Attributes
    ----------
    statistic : float
        Pooled NCE over all units (from the totals, not the mean of the groups); NaN when
        ``p_correct`` is 0 or 1.
    n : int
        Scored units ``M``.
    n_correct : int
        Correct units ``m``.
    p_correct : float
        ``p_c = m / M``.
    h_max : float
        ``H_max = -(m log2 p_c + (M - m) log2(1 - p_c))`` in bits (``M`` times the binary
        entropy of ``p_c``).
    sum_log2_correct, sum_log2_incorrect : float
        :math:`\\sum_{correct}\\log_2 c` and :math:`\\sum_{incorrect}\\log_2(1 - c)` after
        clipping.
    log_loss_bits : float
        Mean log loss in bits: ``-(sum_log2_correct + sum_log2_incorrect) / M``; so
        ``statistic = 1 - M * log_loss_bits / h_max``.
    groups : pandas.DataFrame
        One row per group: ``group``, ``n``, ``n_correct``, ``p_correct`` (p_c), ``h_max``
        (H_max), ``nce``, ``n_clipped``, ``n_out_of_range``, ``reason`` (why ``nce`` is NaN).
        Without groups, a single row ``"all"``.
    mean, sd, median : float
        Mean, sample standard deviation (``n - 1``) and median of the groups' NCE, over the
        groups where it is defined (sclite's Mean, S.D. and Median rows). ``sd`` is NaN with
        fewer than two such groups.
    n_groups : int
        Number of groups.
    n_groups_defined : int
        Groups with a defined NCE (those that enter ``mean``, ``sd`` and ``median``).
    n_clipped : int
        Confidences below ``1e-7`` or above ``0.9999999`` moved by the clipping before the logs.
    n_out_of_range : int
        Confidences outside [0, 1] clipped to the interval (only with ``out_of_range="clip"``).
    method : str
        The variant and its conventions, in words.
    reason : str or None
        Why ``statistic`` is NaN, when it is.
    """

    statistic: float
    n: int
    n_correct: int
    p_correct: float
    h_max: float
    sum_log2_correct: float
    sum_log2_incorrect: float
    log_loss_bits: float
    groups: pd.DataFrame = dataclasses.field(repr=False, compare=False)
    mean: float
    sd: float
    median: float
    n_groups: int
    n_groups_defined: int
    n_clipped: int
    n_out_of_range: int
    method: str = NCE_METHOD
    reason: str | None = None
    name: str = "normalized_cross_entropy"


def _h_max(n: FloatArray, m: FloatArray) -> FloatArray:
    """``-(m log2 p + (n - m) log2(1 - p))`` with ``p = m / n``; NaN where ``p`` is 0 or 1."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p = m / n
        h = -(m * np.log2(p) + (n - m) * np.log2(1.0 - p))
    out: FloatArray = np.where((m > 0) & (m < n), h, np.nan)
    return out


def _reasons(n: npt.NDArray[np.int64], m: npt.NDArray[np.int64]) -> list[str | None]:
    out: list[str | None] = []
    for total, correct in zip(n.tolist(), m.tolist(), strict=True):
        if correct == total:
            out.append(_UNDEFINED.format(p=1, what="correct"))
        elif correct == 0:
            out.append(_UNDEFINED.format(p=0, what="incorrect"))
        else:
            out.append(None)
    return out


def nce_from_sums(sums: ConfidenceSums) -> NormalizedCrossEntropy:
    """NCE from per-group sums (the estimator behind :func:`normalized_cross_entropy`).

    Parameters
    ----------
    sums : ConfidenceSums
        Per-group sums, possibly merged from batches.

    Returns
    -------
    NormalizedCrossEntropy
    """
    n = sums.n.astype(np.float64)
    m = sums.n_correct.astype(np.float64)
    h = _h_max(n, m)
    with np.errstate(invalid="ignore"):
        nce = (h + sums.sum_log2_correct + sums.sum_log2_incorrect) / h
    reasons = _reasons(sums.n, sums.n_correct)
    table = pd.DataFrame(
        {
            "group": list(sums.groups),
            "n": sums.n,
            "n_correct": sums.n_correct,
            "p_correct": m / n,
            "h_max": h,
            "nce": nce,
            "n_clipped": sums.n_clipped,
            "n_out_of_range": sums.n_out_of_range,
            "reason": reasons,
        }
    )
    total = sums.pooled()
    tn, tm = float(total.n[0]), float(total.n_correct[0])
    th = float(_h_max(np.array([tn]), np.array([tm]))[0])
    s_c = float(total.sum_log2_correct[0])
    s_i = float(total.sum_log2_incorrect[0])
    pooled_reason = _reasons(total.n, total.n_correct)[0]
    statistic = math.nan if pooled_reason else (th + s_c + s_i) / th
    defined = nce[np.isfinite(nce)]
    mean = float(defined.mean()) if defined.size else math.nan
    sd = float(defined.std(ddof=1)) if defined.size > 1 else math.nan
    median = float(np.median(defined)) if defined.size else math.nan
    if pooled_reason:
        warn_degenerate(f"normalized_cross_entropy: {pooled_reason}", stacklevel=4)
    elif sums.n_groups > 1 and defined.size < sums.n_groups:
        warn_degenerate(
            f"normalized_cross_entropy: NCE is undefined for "
            f"{counted(sums.n_groups - defined.size, 'group')} where every unit is correct or "
            "every unit is incorrect; they are left out of the mean, SD and median",
            stacklevel=4,
        )
    return NormalizedCrossEntropy(
        statistic=statistic,
        n=int(tn),
        n_correct=int(tm),
        p_correct=tm / tn,
        h_max=th,
        sum_log2_correct=s_c,
        sum_log2_incorrect=s_i,
        log_loss_bits=-(s_c + s_i) / tn,
        groups=table,
        mean=mean,
        sd=sd,
        median=median,
        n_groups=sums.n_groups,
        n_groups_defined=int(defined.size),
        n_clipped=int(total.n_clipped[0]),
        n_out_of_range=int(total.n_out_of_range[0]),
        reason=pooled_reason,
    )
