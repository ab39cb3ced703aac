"""Normalized cross-entropy (NCE) of confidence scores, exactly as NIST sclite computes it."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError, warn_degenerate
from .._results import Result, to_plain
from .._types import FloatArray
from ..data.scored import OutOfRange, prepare
from ..engines._pages import engine_pages
from ..engines._run import Engine, check_engine
from ..stats.confidence import ConfidenceSums

__all__ = ["NormalizedCrossEntropy", "nce_from_sums", "normalized_cross_entropy"]

NCE_METHOD = (
    "NCE as NIST SCTK sclite computes it (compute_SCORE_nce in scores.c): "
    "(H_max + sum_correct log2 c + sum_incorrect log2(1 - c)) / H_max with "
    "H_max = -(m log2 p_c + (M - m) log2(1 - p_c)), p_c = m / M; confidences clipped to "
    "[1e-7, 0.9999999] before the logs; pooled NCE from the totals over all units"
)

_UNDEFINED = "p_c is {p}: every unit is {what}, so H_max = 0 and NCE is undefined"


@dataclasses.dataclass(frozen=True, slots=True)
class NormalizedCrossEntropy(Result):
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

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dict of every field (``groups`` as a list of row dicts)."""
        return {f.name: to_plain(getattr(self, f.name)) for f in dataclasses.fields(self)}


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
            f"normalized_cross_entropy: NCE is undefined for {sums.n_groups - defined.size} "
            "group(s) where every unit is correct or every unit is incorrect; they are left "
            "out of the mean, SD and median",
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


@engine_pages
def normalized_cross_entropy(
    correct: npt.ArrayLike | pd.Series[Any],
    confidence: npt.ArrayLike | pd.Series[Any],
    *,
    groups: npt.ArrayLike | pd.Series[Any] | str | None = None,
    out_of_range: OutOfRange = "raise",
    source: Any = None,
    engine: Engine = "memory",
    scheduler: Any = None,
    progress: Callable[[int, int | None], None] | None = None,
    batch_size: int = 1_000_000,
) -> NormalizedCrossEntropy:
    """Normalized cross-entropy of confidence scores, exactly as NIST sclite computes it.

    How much better than a constant the confidences predict correctness, in units of the
    uncertainty there is to remove:

    .. math::

        \\mathrm{NCE} = \\frac{H_{max} + \\sum_{correct} \\log_2 c
        + \\sum_{incorrect} \\log_2 (1 - c)}{H_{max}},
        \\qquad H_{max} = -\\left(m \\log_2 p_c + (M - m) \\log_2 (1 - p_c)\\right),

    with ``M`` scored units, ``m`` of them correct and ``p_c = m / M``. Equivalently
    ``NCE = 1 - M * L / H_max`` with ``L`` the mean log loss in bits.

    Parameters
    ----------
    correct : array_like of bool or 0/1, shape (n,)
        Whether each scored unit (a recognised word, an answer, a verdict) is correct.
    confidence : array_like of float, shape (n,)
        The system's confidence that the unit is correct, in [0, 1].
    groups : array_like, shape (n,), optional
        Group of each unit (speaker, system, data set): NCE is also reported per group, with
        the group's own ``p_c``, and summarised by mean, SD and median over groups.
    out_of_range : {"raise", "clip"}, default "raise"
        Confidences outside [0, 1] raise, or (``"clip"``, sclite's behaviour) are clipped to
        [0, 1] and counted in ``n_out_of_range``.
    source : path, glob, list of paths or dask DataFrame, optional
        Where the units are stored; then ``correct``, ``confidence`` (and ``groups``) are
        column names. Read whole with ``engine="memory"``, in batches with ``"stream"``
        (Parquet/CSV; memory bounded by the statistics), per partition with ``"dask"``.
    engine : {"memory", "stream", "dask"}, default "memory"
        The stream and dask engines sum each batch or partition into the mergeable
        statistics (:class:`ConfidenceSums`, :class:`ConfidenceValueCounts`) and estimate
        once: the numbers are the memory engine's (sums up to rounding).
    scheduler : str or distributed.Client, optional
        ``engine="dask"``: a scheduler name, a client or an address.
    progress : callable, optional
        ``engine="stream"``: ``progress(rows_read, total_rows_or_None)`` after each batch.
    batch_size : int, default 1_000_000
        ``engine="stream"``: rows per batch.

    Returns
    -------
    NormalizedCrossEntropy
        ``statistic`` (pooled NCE), ``groups`` (per-group table), ``mean``, ``sd``,
        ``median``, the sums behind the number and the clipping counts.

    Raises
    ------
    InvalidInputError
        On missing or non-numeric values, ``correct`` other than 0/1/true/false, lengths
        that differ, an empty input, or (``out_of_range="raise"``) a confidence outside [0, 1].

    Warns
    -----
    DegenerateDataWarning
        When ``p_c`` is 0 or 1 (overall or in some group): NCE is NaN there, with a reason.

    Notes
    -----
    The formula follows sclite's code (``compute_SCORE_nce`` in SCTK ``src/sclite/scores.c``),
    not the typeset formula of sclite's HTML documentation. Confidences are clipped to
    ``[1e-7, 0.9999999]`` before the logarithms, sclite's constants, so one confidently wrong
    unit costs at most ``-log2(1e-7) = 23.25`` bits; ``n_clipped`` counts the values moved.
    NCE is at most 1 (perfect confidences, up to the clipping), exactly 0 when every unit gets
    the constant ``p_c``, and negative when the confidences are worse than that constant.

    The pooled NCE uses the totals over all units (sclite's "Sum/Avg" row), which differs from
    the mean of the groups' NCE (sclite's "Mean" row). Where ``p_c`` is 0 or 1, ``H_max`` is 0
    and NCE is undefined: NaN with a reason (sclite prints -2147483.648 there), and the group
    is left out of the mean, SD and median.

    In sclite's alignments, correct words, substitutions and insertions are scored units;
    deletions have no hypothesis word and are not scored (see
    :func:`accord.read_sclite_sgml`).

    References
    ----------
    .. [1] NIST, "SCTK, the NIST Scoring Toolkit", sclite, ``src/sclite/scores.c``,
       https://github.com/usnistgov/SCTK
    .. [2] M. Siu, H. Gish, F. Richardson, "Improved estimation, evaluation and applications
       of confidence measures for speech recognition", Proc. Eurospeech 1997 (where the
       normalized cross-entropy was proposed).

    Examples
    --------
    Ten recognised words, seven correct (p_c = 0.7):

    >>> import accord
    >>> correct = [1, 1, 1, 0, 1, 1, 0, 1, 1, 0]
    >>> confidence = [0.95, 0.80, 0.60, 0.40, 0.90, 0.70, 0.20, 0.85, 1.0, 0.0]
    >>> r = accord.normalized_cross_entropy(correct, confidence)
    >>> round(r.statistic, 6), round(r.h_max, 6), r.n_clipped
    (0.649057, 8.812909, 2)

    The constant p_c scores exactly 0:

    >>> round(accord.normalized_cross_entropy(correct, [0.7] * 10).statistic, 12)
    0.0
    """
    owner = "normalized_cross_entropy"
    check_engine(engine, owner)
    if engine != "memory":
        if source is None:
            raise InvalidInputError(
                f"{owner}(engine={engine!r}) reads the units where they are stored: pass "
                "source= (paths, a glob or a folder) and the column names as correct= and "
                "confidence="
            )
        from ._engine import confidence_statistics

        sums, _ = confidence_statistics(
            source,
            engine,
            owner=owner,
            correct=correct,
            confidence=confidence,
            groups=groups,
            out_of_range=out_of_range,
            table=False,
            scheduler=scheduler,
            progress=progress,
            batch_size=batch_size,
        )
        return nce_from_sums(sums)
    if source is not None:
        from ._engine import read_in_memory

        correct, confidence, groups = read_in_memory(source, owner, correct, confidence, groups)
    units = prepare(correct, confidence, groups, out_of_range, owner)
    return nce_from_sums(ConfidenceSums.from_units(units))
