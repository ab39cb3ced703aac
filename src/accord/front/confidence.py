"""The front door of confidence calibration: NCE and its companions from arrays or files.

:func:`normalized_cross_entropy` and :func:`calibration_metrics` take the units in memory, or
where they are stored (``source=``) with an engine: the memory engine reads the file whole;
the stream and dask engines validate each batch (stream) or partition (dask) of the
correct / confidence [/ group] columns and sum it into :class:`ConfidenceSums` and
:class:`ConfidenceValueCounts` (:mod:`accord.stats.confidence`). The partial statistics merge
(integer counts exactly, float sums up to rounding), and the estimators of
:mod:`accord.confidence` run once on the merged statistics. Memory is bounded by the
statistics: groups, and the distinct confidence values for the calibration metrics.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError, located, require
from .._validate import tidy_scalar
from ..confidence import (
    Binning,
    CalibrationMetrics,
    NormalizedCrossEntropy,
    ReliabilityDiagram,
    calibration_from_statistics,
    nce_from_sums,
    reliability_from_value_counts,
)
from ..data.encoder import typed_text
from ..data.scored import OutOfRange, prepare
from ..data.source import ENGINE_FIELDS, takes_source
from ..engines._mapreduce import Progress, frame_of, partition_files
from ..engines._pages import engine_pages_of, small_pages
from ..engines._run import Engine, check_engine, check_source
from ..engines._source import Locator
from ..engines.fold import fold_batches, fold_partitions, part_columns
from ..stats.confidence import ConfidenceSums, ConfidenceValueCounts
from ._files import batch_dataset

__all__ = [
    "calibration_metrics",
    "confidence_statistics",
    "confidence_summary",
    "normalized_cross_entropy",
]

Statistics = tuple[ConfidenceSums, ConfidenceValueCounts | None]


#: A source's columns these front doors take first (as column names, with ``source=``).
COLUMNS = ("correct", "confidence")


@engine_pages_of(
    takes_source("normalized_cross_entropy", ENGINE_FIELDS, columns=COLUMNS, data="source")
)
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
    source : path, glob, list of paths, pandas or dask DataFrame, optional
        Where the units are stored; then ``correct``, ``confidence`` (and ``groups``) are
        column names. Read whole (or a pandas frame taken as it is) with
        ``engine="memory"``, in batches with ``"stream"``
        (Parquet/CSV; memory bounded by the statistics), per partition with ``"dask"``.
    engine : {"memory", "stream", "dask"}, default "memory"
        The stream and dask engines sum each batch or partition into the mergeable
        statistics (:class:`ConfidenceSums`, :class:`ConfidenceValueCounts`) and estimate
        once: the numbers are the memory engine's (sums up to rounding).
    scheduler, progress, batch_size
        The dask engine's scheduler, the stream engine's progress callback and rows per
        batch, as in :func:`accord.agreement`.

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
    sums, _ = _statistics(
        "normalized_cross_entropy",
        (correct, confidence, groups),
        out_of_range,
        source,
        (engine, scheduler, progress, batch_size),
        table=False,
    )
    return nce_from_sums(sums)


@engine_pages_of(takes_source("calibration_metrics", ENGINE_FIELDS, columns=COLUMNS, data="source"))
def calibration_metrics(
    correct: npt.ArrayLike | pd.Series[Any],
    confidence: npt.ArrayLike | pd.Series[Any],
    *,
    bins: int = 10,
    out_of_range: OutOfRange = "raise",
    source: Any = None,
    engine: Engine = "memory",
    scheduler: Any = None,
    progress: Callable[[int, int | None], None] | None = None,
    batch_size: int = 1_000_000,
) -> CalibrationMetrics:
    """Brier score, log loss, AUROC, and ECE/MCE with equal-width and equal-mass bins.

    .. math::

        \\mathrm{Brier} = \\frac{1}{M}\\sum (c - y)^2, \\qquad
        \\mathrm{ECE} = \\sum_b \\frac{n_b}{M} \\left|\\bar y_b - \\bar c_b\\right|, \\qquad
        \\mathrm{MCE} = \\max_b \\left|\\bar y_b - \\bar c_b\\right|

    Parameters
    ----------
    correct : array_like of bool or 0/1, shape (n,)
    confidence : array_like of float in [0, 1], shape (n,)
    bins : int, default 10
        Number of bins for ECE and MCE (both binnings).
    out_of_range : {"raise", "clip"}, default "raise"
        As in :func:`normalized_cross_entropy`.
    source, engine, scheduler, progress, batch_size
        Where the units are stored and the engine that reads them, as in
        :func:`normalized_cross_entropy`.

    Returns
    -------
    CalibrationMetrics
        Every statistic, the counts behind them and ``conventions`` (each convention in words).

    Raises
    ------
    InvalidInputError
        On bad input (see :func:`normalized_cross_entropy`) or ``bins`` < 1.

    Notes
    -----
    AUROC measures discrimination (are correct units more confident?), the others
    calibration: a system can have AUROC 1 and a positive ECE (the example below). ECE depends
    on the binning and the side each bin edge is closed on; peers differ, so both binnings are
    reported and the conventions are named in ``conventions``. The log loss clips as sclite
    does for NCE so that ``NCE = 1 - M * log_loss_bits / H_max`` holds exactly.

    References
    ----------
    .. [1] G. W. Brier (1950), "Verification of forecasts expressed in terms of probability",
       Monthly Weather Review 78(1), 1-3.
       doi:10.1175/1520-0493(1950)078<0001:VOFEIT>2.0.CO;2
    .. [2] M. P. Naeini, G. F. Cooper, M. Hauskrecht (2015), "Obtaining well calibrated
       probabilities using Bayesian binning", Proc. AAAI 29, 2901-2907.
       doi:10.1609/aaai.v29i1.9602
    .. [3] J. A. Hanley, B. J. McNeil (1982), "The meaning and use of the area under a
       receiver operating characteristic (ROC) curve", Radiology 143(1), 29-36.
       doi:10.1148/radiology.143.1.7063747

    Examples
    --------
    >>> import accord
    >>> correct = [1, 1, 1, 0, 1, 1, 0, 1, 1, 0]
    >>> confidence = [0.95, 0.80, 0.60, 0.40, 0.90, 0.70, 0.20, 0.85, 1.0, 0.0]
    >>> r = accord.calibration_metrics(correct, confidence, bins=5)
    >>> r.auroc, round(r.brier_score, 6), round(r.ece_width, 6)
    (1.0, 0.0525, 0.18)
    """
    merged, counts = _statistics(
        "calibration_metrics",
        (correct, confidence, None),
        out_of_range,
        source,
        (engine, scheduler, progress, batch_size),
        table=True,
    )
    assert counts is not None
    return calibration_from_statistics(merged, counts, bins=bins)


def _statistics(
    owner: str,
    columns: tuple[Any, Any, Any],
    out_of_range: Any,
    source: Any,
    engine_options: tuple[str, Any, Callable[[int, int | None], None] | None, int],
    *,
    table: bool,
) -> Statistics:
    """The sums (and value counts when ``table``) of the units, from the arrays or the
    columns at ``source`` with the engine and its options (``engine``, ``scheduler``,
    ``progress``, ``batch_size``), checked here for every public function of this module."""
    engine, scheduler, progress, batch_size = engine_options
    correct, confidence, groups = columns
    check_engine(engine, owner)
    if engine != "memory":
        _needs_source(owner, engine, source)
        return confidence_statistics(
            source,
            engine,
            owner=owner,
            correct=correct,
            confidence=confidence,
            groups=groups,
            out_of_range=out_of_range,
            table=table,
            scheduler=scheduler,
            progress=progress,
            batch_size=batch_size,
        )
    if source is not None:
        correct, confidence, groups = _read_in_memory(
            source, owner, (correct, confidence, groups), out_of_range
        )
    units = prepare(correct, confidence, groups, out_of_range, owner)
    if not table:
        return ConfidenceSums.from_units(units), None
    # One sort tabulates the units; every sum then runs over the distinct confidences. The
    # sort keys are written once: without numpy's huge-page advice (engines/_pages.py).
    with small_pages():
        counts = ConfidenceValueCounts.from_units(units)
    return ConfidenceSums.from_value_counts(counts), counts


def _check_columns(owner: str, correct: Any, confidence: Any, groups: Any) -> list[str]:
    if not isinstance(correct, str) or not isinstance(confidence, str):
        raise InvalidInputError(
            f"{owner} with source= takes column names: correct= and confidence= must name "
            f"columns (and groups= a column, or None); got {type(correct).__name__} and "
            f"{type(confidence).__name__}"
        )
    if groups is not None and not isinstance(groups, str):
        raise InvalidInputError(
            f"{owner} with source= takes column names: groups= must name a column; got a "
            f"{type(groups).__name__}"
        )
    return [correct, confidence] + ([groups] if groups is not None else [])


def _needs_source(owner: str, engine: str, source: Any) -> None:
    if source is None:
        raise InvalidInputError(
            f"{owner}(engine={engine!r}) reads the units where they are stored: pass "
            "source= (paths, a glob or a folder) and the column names as correct= and "
            "confidence="
        )


def _read_in_memory(
    source: Any, owner: str, names: tuple[Any, Any, Any], out_of_range: Any
) -> tuple[Any, Any, Any]:
    """The columns of the files read whole, or of a data frame (memory engine with
    ``source=``). A value at fault is named by its row of the whole input and its file, as
    the stream engine names it."""
    from ..io.confidence import confidences_of
    from ..io.ratings import read_table

    correct, confidence, groups = names
    columns = _check_columns(owner, correct, confidence, groups)
    check: OutOfRange | None = "raise" if out_of_range == "raise" else None  # in row order
    if isinstance(source, pd.DataFrame):
        frame = confidences_of(source, correct, confidence, groups, check)
        return frame["correct"], frame["confidence"], frame.get("group")
    paths = [source] if isinstance(source, str | Path) else list(source)
    where, start, frames = Locator(), 0, []
    for p in paths:
        rows = read_table(p, columns)
        where.add(start, str(p))
        with located(where.part(start)):
            frames.append(confidences_of(rows, correct, confidence, groups, check, row0=start))
        start += len(rows)
    frame = pd.concat(frames, ignore_index=True)
    return frame["correct"], frame["confidence"], frame["group"] if groups is not None else None


@dataclasses.dataclass(frozen=True, slots=True)
class _UnitsSummary:
    """The sums (and value counts when ``table``) of one batch or partition of the columns
    that starts at row ``row0`` of the input (it pickles for the dask schedulers)."""

    columns: tuple[str, ...]
    out_of_range: Any
    owner: str
    table: bool

    def __call__(self, part: Any, row0: int) -> Statistics:
        arrays = part_columns(part, self.columns)
        y, c = arrays[0], arrays[1]
        groups = np.asarray(arrays[2], dtype=object) if len(arrays) == 3 else None
        rule, owner = self.out_of_range, self.owner
        if self.table:
            counts = ConfidenceValueCounts.from_batch(
                y, c, out_of_range=rule, owner=owner, row0=row0
            )
            if groups is None:
                return ConfidenceSums.from_value_counts(counts), counts
        sums = ConfidenceSums.from_batch(y, c, groups, out_of_range=rule, owner=owner, row0=row0)
        return sums, counts if self.table else None


def _merge(a: Statistics, b: Statistics) -> Statistics:
    return (
        a[0].merge(b[0]),
        None if a[1] is None or b[1] is None else a[1].merge(b[1]),
    )


def _sorted_groups(sums: ConfidenceSums, text: bool) -> ConfidenceSums:
    """Groups typed as pandas reads them (CSV text) and sorted, as the memory engine orders
    them (first appearance when the labels cannot be sorted)."""
    labels = np.empty(len(sums.groups), dtype=object)
    labels[:] = list(sums.groups)
    if text and labels.size:
        typed = typed_text(labels)
        if np.unique(typed).size == labels.size:
            labels = np.asarray(typed, dtype=object)
    values = [tidy_scalar(v) for v in labels]
    try:
        order = sorted(range(len(values)), key=lambda k: values[k])
    except TypeError:
        order = list(range(len(values)))
    idx = np.asarray(order, dtype=np.int64)
    return ConfidenceSums(
        groups=tuple(values[k] for k in order),
        n=sums.n[idx],
        n_correct=sums.n_correct[idx],
        sum_log2_correct=sums.sum_log2_correct[idx],
        sum_log2_incorrect=sums.sum_log2_incorrect[idx],
        sum_squared_error=sums.sum_squared_error[idx],
        n_clipped=sums.n_clipped[idx],
        n_out_of_range=sums.n_out_of_range[idx],
    )


def _dask_statistics(
    source: Any, summary: _UnitsSummary, scheduler: Any, progress: Progress | None
) -> Statistics:
    """The partitions folded into statistics (:func:`accord.engines.fold.fold_partitions`)."""
    frame, text, _ = frame_of(source, summary.columns, file_format=None, sep=None, blocksize=None)
    parts = frame.to_delayed()
    result = fold_partitions(
        parts, summary, _merge, scheduler=scheduler, progress=progress,
        files=partition_files(source, len(parts)),
    )  # fmt: skip
    if result is None:
        raise InvalidInputError("the input is empty: no scored units")
    sums, counts = result
    return _sorted_groups(sums, text), counts


def _stream_statistics(
    source: Any, summary: _UnitsSummary, progress: Progress | None, batch_size: int
) -> Statistics:
    """The batches of the files folded into statistics, in order
    (:func:`accord.engines.fold.fold_batches`)."""
    paths = source if isinstance(source, str | Path) else list(source)
    columns = list(summary.columns)
    dataset, files, fmt = batch_dataset(
        paths, columns, batch_size=batch_size, file_format=None, sep=None
    )
    total_rows = int(dataset.count_rows()) if fmt == "parquet" else None
    result = fold_batches(
        dataset, columns, batch_size, summary, _merge, progress=progress, total=total_rows
    )
    if result is None:
        raise InvalidInputError(f"the input is empty: {files[0]} has no rows to read")
    sums, counts = result
    return _sorted_groups(sums, fmt != "parquet"), counts


def confidence_statistics(
    source: Any,
    engine: str,
    *,
    owner: str,
    correct: Any,
    confidence: Any,
    groups: Any,
    out_of_range: Any,
    table: bool,
    scheduler: Any = None,
    progress: Callable[[int, int | None], None] | None = None,
    batch_size: int = 1_000_000,
) -> Statistics:
    """Merged sums (and value counts when ``table``) of the units at ``source``, read by the
    stream or dask engine.

    Parameters
    ----------
    source : path, glob, list of paths or dask DataFrame
        Where the units are stored.
    engine : {"stream", "dask"}
    owner : str
        The public function or command, for messages.
    correct, confidence, groups : str
        Column names (``groups`` None without groups).
    out_of_range : {"raise", "clip"}
    table : bool
        Also count the distinct confidences (:class:`ConfidenceValueCounts`).
    scheduler, progress, batch_size
        As in :func:`normalized_cross_entropy`.

    Returns
    -------
    tuple of ConfidenceSums and ConfidenceValueCounts or None
    """
    columns = _check_columns(owner, correct, confidence, groups)
    check_source(source, engine, owner)
    summary = _UnitsSummary(tuple(columns), out_of_range, owner, table)
    if engine == "dask":
        require("dask", "dask")
        return _dask_statistics(source, summary, scheduler, progress)
    if scheduler is not None:
        raise InvalidInputError(f"scheduler= applies to engine='dask'; {owner} streams here")
    return _stream_statistics(source, summary, progress, batch_size)


def confidence_summary(
    statistics: Statistics, *, bins: int, binning: Binning
) -> tuple[NormalizedCrossEntropy, CalibrationMetrics, ReliabilityDiagram]:
    """NCE, the calibration metrics and the reliability diagram of merged statistics: the
    sums give NCE, the value counts the calibration metrics and the diagram.

    Parameters
    ----------
    statistics : tuple of ConfidenceSums and ConfidenceValueCounts
        From :func:`confidence_statistics` with ``table=True``.
    bins : int
        Number of bins of the calibration metrics and the diagram.
    binning : {"width", "mass"}
        The diagram's bins: equal width or equal mass.

    Returns
    -------
    tuple of NormalizedCrossEntropy, CalibrationMetrics and ReliabilityDiagram

    Examples
    --------
    >>> correct = np.array([1, 1, 0, 1])
    >>> units = prepare(correct, np.array([0.9, 0.8, 0.3, 0.6]), None, "raise", "example")
    >>> counts = ConfidenceValueCounts.from_units(units)
    >>> nce, metrics, diagram = confidence_summary(
    ...     (ConfidenceSums.from_value_counts(counts), counts), bins=2, binning="width"
    ... )
    >>> metrics.auroc
    1.0
    """
    sums, table = statistics
    if table is None:
        raise InvalidInputError("confidence_summary needs the value counts (table=True)")
    return (
        nce_from_sums(sums),
        calibration_from_statistics(sums, table, bins=bins),
        reliability_from_value_counts(table, bins=bins, binning=binning),
    )
