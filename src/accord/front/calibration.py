"""The front door of panel calibration: :func:`calibrate_panel` and :func:`panel_statistics`.

Here the engine is chosen. The arguments become a :class:`~accord.calibration._spec.PanelSpec`
(what to read) and :class:`~accord.calibration._spec.FitOptions` (how to fit), checked once.
``engine="memory"`` reads the table whole; ``"stream"`` reads Parquet/CSV files in batches with
pyarrow and ``"dask"`` reads the partitions of a Dask DataFrame; both fold each batch or
partition into :class:`~accord.PanelStatistics` (one row per (item, rater) pair) and merge
them. The estimator then fits the assessments, or the merged statistics.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np
import numpy.typing as npt

from .._errors import DroppedDataWarning, InvalidInputError, option, require
from .._types import Duplicates, Missing, RngLike
from .._validate import SHOW, counted
from ..calibration._input import (
    MISSING_REASON,
    factorize_ids,
    pair_name,
    read_panel,
    repeated_pairs_error,
)
from ..calibration._spec import (
    OWNER,
    EmptyPanelError,
    FitOptions,
    Gauge,
    PanelSpec,
    RangeConvention,
    Reliability,
    Solver,
    Uncertainty,
)
from ..calibration.panel import (
    PanelCalibration,
    calibrate_assessments,
    calibrate_panel_from_statistics,
)
from ..data.encoder import typed_ids
from ..data.source import Source, as_source
from ..engines._mapreduce import frame_of, partition_files
from ..engines._pages import engine_pages
from ..engines._run import check_engine
from ..engines.fold import fold_batches, fold_partitions
from ..stats.panel import PanelStatistics
from ._files import batch_dataset

__all__ = ["calibrate_panel", "panel_statistics"]


#: The fields of a Source that calibrate_panel reads (the columns of the panel's long table,
#: how its file reads and the engine).
SOURCE_FIELDS = ("item", "rater", "score", "missing", "duplicates", "na_values", "sep",
                 "encoding", "file_format", "engine", "scheduler", "batch_size",
                 "progress")  # fmt: skip


@engine_pages
def calibrate_panel(
    data: Source | Any,
    *,
    confidence: str | None = None,
    sigma: str | None = None,
    score_range: Sequence[str] | None = None,
    levels: str | None = None,
    confidence_factor: float = 1.75,
    range_convention: RangeConvention = "central95",
    relative: bool | None = None,
    gauge: Gauge = "sum",
    per_component: bool = False,
    reliability: Reliability = "declared",
    bias_prior: float | None = None,
    uncertainty: Uncertainty = "auto",
    n_samples: int = 32,
    connectivity: bool | Literal["auto"] = "auto",
    solver: Solver = "auto",
    tol: float = 1e-10,
    max_iter: int = 5000,
    rng: RngLike = None,
    **read_options: Any,
) -> PanelCalibration:
    """Calibrate a panel: item values and rater biases, with confidence (MacKay et al. 2017).

    Each rater ``a`` scores some items ``o``; the model is

    .. math::

        s_{ao} = v_o + b_a + \\sigma_{ao}\\,\\varepsilon, \\qquad
        \\varepsilon \\sim N(0, 1), \\qquad c_{ao} = 1 / \\sigma_{ao}^2,

    and the estimates minimise :math:`\\sum_{(a,o)} c_{ao} (s_{ao} - v_o - b_a)^2` subject to a
    gauge (by default :math:`\\sum_a b_a = 0`). They solve the normal equations

    .. math::

        C_o v_o + \\sum_a c_{ao} b_a = \\sum_a c_{ao} s_{ao}, \\qquad
        \\sum_o c_{ao} v_o + C_a b_a = \\sum_o c_{ao} s_{ao},

    which have a unique solution in the gauge if and only if the rater-item graph is connected.

    Parameters
    ----------
    data : Source, DataFrame or path
        A :class:`~accord.Source` (:func:`accord.source`), or what it holds: a long table,
        one row per assessment (pandas, polars, pyarrow, DuckDB; anything narwhals reads),
        or a CSV/TSV, Parquet or JSON Lines file of one (with ``engine="stream"`` or
        ``"dask"`` a glob, a folder or a list of files too; with ``"dask"`` a Dask
        DataFrame).
    confidence : str, optional
        Column of confidences ``c > 0`` (inverse variances, absolute by default).
    sigma : str, optional
        Column of standard deviations ``sigma > 0``; ``c = 1 / sigma^2``.
    score_range : pair of str, optional
        Columns ``(low, high)`` of a range given with each score; see ``range_convention``.
    levels : str, optional
        Column of confidence levels H, M, L (or high, medium, low, any case), mapped to
        ``c = confidence_factor^2, 1, confidence_factor^-2``.
    confidence_factor : float, default 1.75
        The ratio of standard deviations between adjacent levels.
    range_convention : {"central95", "sd"}, default "central95"
        ``"central95"``: the range is a central 95% interval, ``sigma = (high - low) / 3.92``;
        ``"sd"``: the range is plus or minus one standard deviation, ``sigma = (high - low) / 2``.
    relative : bool, optional
        Whether confidences are relative (known up to a common factor): variances are then
        scaled by ``R / dof``. Default: True for ``levels`` and for no confidences at all, False
        for ``confidence``, ``sigma`` and ``score_range``.
    gauge : {"sum", "weighted"}, default "sum"
        ``"sum"``: ``sum_a b_a = 0``; ``"weighted"``: ``sum_a C_a b_a = 0``. The gauge shifts all
        values by one constant (per component), never their differences.
    per_component : bool, default False
        For a disconnected design: calibrate each component with its own gauge (values are
        comparable only within a component) instead of raising.
    reliability : {"declared", "estimate"}, default "declared"
        ``"estimate"``: multiply each rater's declared confidences by a precision estimated from
        their residuals, iterating to a fixed point (see Notes); variances are then absolute.
    bias_prior : float, optional
        Standard deviation ``tau`` (score units) of a Gaussian prior ``b ~ N(0, tau^2)`` on the
        biases. It shrinks biases that the design cannot pin down, keeps weakly connected panels
        from amplifying noise and links disconnected ones. With relative confidences the noise
        scale is first estimated as ``R / dof`` of the fit without the prior.
    uncertainty : {"auto", "exact", "sample", "none"}, default "auto"
        Posterior standard deviations: ``"exact"`` inverts the Schur complement on the smaller
        side (dense, ``m x m``); ``"sample"`` perturbs and re-solves ``n_samples`` times;
        ``"auto"`` is exact when the smaller side has at most 2000 members and the work is
        moderate, else sampled; ``"none"`` skips them (sd, leverage and misfit are NaN).
    n_samples : int, default 32
        Draws for ``uncertainty="sample"`` (sd relative error about ``1 / sqrt(2 n_samples)``).
    connectivity : bool or "auto", default "auto"
        Compute the algebraic connectivity (a Lanczos eigenvalue: hundreds of sparse products
        on a large panel, about 2 s at 5M rater-item pairs on one core); False leaves it NaN.
        ``"auto"`` computes it up to 1M rater-item pairs (``FIEDLER_LIMIT``) and leaves it NaN
        above. Components are always found.
    solver : {"auto", "full", "schur-raters", "schur-items"}, default "auto"
        Conjugate gradients on the full normal equations, or on the Schur complement on raters
        (items eliminated) or on items. ``"auto"`` uses a Schur complement when one side has at
        most a quarter as many members as the other.
    tol : float, default 1e-10
        Relative residual at which conjugate gradients stop.
    max_iter : int, default 5000
        Iterations before :class:`~accord.ConvergenceError`.
    rng : numpy.random.Generator, int or None
        Randomness for ``uncertainty="sample"``.
    **read_options
        The fields of :class:`~accord.Source` that a panel reads, as :func:`accord.source`
        takes them (``calibrate_panel(x, item="i", ...)`` is
        ``calibrate_panel(source(x, item="i", ...))``; a field set that a panel does not read
        is an error naming it):
    item, rater, score : str
        Columns of item ids, rater ids and numeric scores (required).
    missing : {"omit", "raise"}, default "omit"
        Rows with a missing score or confidence: dropped (with a ``DroppedDataWarning``), or an
        error.
    duplicates : {"raise", "first", "last", "mean"}, default "raise"
        A rater who scored one item more than once, as :class:`accord.Ratings` treats a
        repeated rating: ``"raise"`` names the pairs and their rows; ``"first"`` / ``"last"``
        keep the pair's first / last row in input order (memory engine only: the stream and
        dask engines do not keep the order); ``"mean"`` keeps one assessment with the mean
        of the pair's scores and the mean of its confidences. The resolved rows are counted
        in ``report``.
    engine : {"memory", "stream", "dask"}, default "memory"
        ``"stream"``: ``data`` is a path, glob or list of Parquet/CSV files, read in batches of
        ``batch_size`` rows with pyarrow and aggregated to one row per (item, rater) pair
        (:func:`accord.panel_statistics`). ``"dask"``: ``data`` is a Dask DataFrame, or
        Parquet/CSV files read with ``dask.dataframe``; each partition is aggregated the same
        way and the partial statistics are tree-reduced. Either way the values, biases, sds and
        fit are those of the memory engine. ``residuals`` then has one row per pair, with its
        count ``n`` (1: ``duplicates`` leaves one assessment per pair).
    scheduler : str, distributed.Client or None
        ``engine="dask"``: ``None`` for dask's default (the active ``distributed.Client`` if
        there is one), a scheduler name (``"threads"``, ``"processes"``, ``"synchronous"``), a
        ``distributed.Client``, or a scheduler address such as ``"tcp://10.0.0.5:8786"``.
    batch_size : int, default 1_000_000
        Rows per batch for ``engine="stream"``.
    na_values, sep, encoding, file_format
        How a file reads, as in :func:`accord.read_ratings`: the spellings of a missing cell
        and the text encoding (memory engine), the CSV separator and a format override.
    progress : callable, optional
        ``progress(rows_read, total_or_None)`` after each batch (``engine="stream"``).

    Returns
    -------
    PanelCalibration
        Values and biases tables, per-assessment residuals, connectivity and fit; see
        :class:`PanelCalibration` for every field.

    Raises
    ------
    InvalidInputError
        A missing column; a score that is not a number (the row is named); a confidence or
        sigma that is not positive; an unknown level; a disconnected design (the components
        are named) without ``per_component`` or ``bias_prior``; ``dof < 1``; a repeated
        (item, rater) pair with ``duplicates="raise"`` (a
        :class:`~accord.DuplicateRatingError`).
    ConvergenceError
        Conjugate gradients (or the reliability reweighting) did not converge.

    Notes
    -----
    *Uncertainty.* The posterior covariance (flat prior on values and biases, Gaussian noise)
    is the inverse of the normal matrix restricted to the gauge, i.e. the top-left block of the
    inverse of the matrix bordered with the gauge row. ``1 / sqrt(C_o)`` is only a lower bound
    for the sd of ``v_o``. With relative confidences the covariance is multiplied by
    ``R / dof``, ``dof = E - n_items - n_raters + n_components``. With equal confidences the
    estimates are Fisher's intra-block analysis of an incomplete block design (Yates 1940):
    raters are blocks, items treatments.

    *Perturb and solve.* For ``uncertainty="sample"``, each draw puts ``N(0, C_ao)`` noise on
    every rater-item pair and solves the Schur complement of the smaller side (to a relative
    residual of 1e-6); the result is an exact posterior draw of that side around its mean.
    The other side's variances (and every fitted value's) are the exact conditional variance
    plus the sampled part propagated from the kept side (Rao-Blackwellised), so they are far
    more accurate than the kept side's, whose sds have relative error about
    ``1 / sqrt(2 n_samples)``. Draws run on threads, each with its own generator seeded from
    ``rng``.

    *Estimated reliability* (``reliability="estimate"``), in the spirit of model PG1 of Piech
    et al. (2013): each rater's precision multiplier is
    ``w_a = (n_a f + nu_0) / (sum_o c_ao r_ao^2 + nu_0 s_0^2)`` with ``f = dof / E`` the
    average residual degrees of freedom per assessment, ``s_0^2`` the panel's ``R / dof`` from
    the declared fit and ``nu_0 = 2`` pseudo-assessments of prior weight; the fit and the
    multipliers are iterated until no multiplier moves by more than 1e-8 (relative). The
    reported sds treat the multipliers as known.

    *Residuals.* ``leverage = c Var(v_o + b_a)`` in units of ``1/c``; a rater's
    ``expected_chi2`` is the sum of ``1 - leverage`` over their assessments. Misfit p-values
    treat a rater's residuals as independent, which they are not quite: use them to rank raters
    for a look, not as tests.

    References
    ----------
    .. [1] MacKay, R. S., Kenna, R., Low, R. J. and Parker, S. (2017). Calibration with
       confidence: a principled method for panel assessment. Royal Society Open Science 4,
       160760. doi:10.1098/rsos.160760
    .. [2] Yates, F. (1940). The recovery of inter-block information in balanced incomplete
       block designs. Annals of Eugenics 10, 317-325. doi:10.1111/j.1469-1809.1940.tb02257.x
    .. [3] Piech, C., Huang, J., Chen, Z., Do, C., Ng, A. and Koller, D. (2013). Tuned models
       of peer assessment in MOOCs. Proceedings of Educational Data Mining 2013.
       arXiv:1307.2579

    Examples
    --------
    A small chain: rater A scores items 1-3, rater B items 2-4, and B is two
    points more generous. Plain means are biased at the ends of the chain; calibration is not.

    >>> import pandas as pd, accord
    >>> frame = pd.DataFrame({
    ...     "item": ["O1", "O2", "O3", "O2", "O3", "O4"],
    ...     "rater": ["A", "A", "A", "B", "B", "B"],
    ...     "score": [4, 5, 6, 7, 8, 9],
    ...     "c": [1.0] * 6})
    >>> result = accord.calibrate_panel(frame, item="item", rater="rater", score="score",
    ...                                 confidence="c")
    >>> result.values[["item", "value", "sd", "plain_mean"]].round(4)
      item  value      sd  plain_mean
    0   O1    5.0  1.1180         4.0
    1   O2    6.0  0.7071         6.0
    2   O3    7.0  0.7071         7.0
    3   O4    8.0  1.1180         9.0
    >>> result.biases["bias"].round(4).tolist()
    [-1.0, 1.0]
    """
    src = _panel_source(data, read_options)
    options = FitOptions(
        gauge=gauge,
        per_component=per_component,
        reliability=reliability,
        bias_prior=bias_prior,
        uncertainty=uncertainty,
        n_samples=n_samples,
        connectivity=connectivity,
        solver=solver,
        tol=tol,
        max_iter=max_iter,
        rng=rng,
    )
    spec = PanelSpec(
        item=cast(str, src.item),
        rater=cast(str, src.rater),
        score=src.scores[0],
        confidence=confidence,
        sigma=sigma,
        score_range=score_range,
        levels=levels,
        confidence_factor=confidence_factor,
        range_convention=range_convention,
        relative=relative,
        missing=src.missing,
        duplicates=src.duplicates,
    )
    engine, file_format, sep = src.engine, src.file_format, src.sep
    if engine == "memory":
        return calibrate_assessments(read_panel(_in_memory(src, spec), spec), options)
    if engine == "stream":
        stats = _stream_statistics(
            src.data,
            spec,
            batch_size=src.batch_size,
            file_format=file_format,
            sep=sep,
            progress=src.progress if callable(src.progress) else None,
        )
    else:
        stats = _dask_statistics(
            src.data, spec, scheduler=src.scheduler, file_format=file_format, sep=sep
        )
    n_rows = stats.n_assessments + stats.n_dropped
    reasons = {MISSING_REASON: stats.n_dropped} if stats.n_dropped else {}
    stats, resolved = _one_per_pair(stats, spec.duplicates, engine)
    reasons.update(resolved)
    return calibrate_panel_from_statistics(stats, options, n_rows=n_rows, reasons=reasons)


def _panel_source(data: Any, read_options: dict[str, Any]) -> Source:
    """The :class:`~accord.Source` of a panel, checked: the columns named, one score
    column, no field a panel does not read, the options of a file with a file only."""
    src = as_source(data, OWNER, **read_options)
    check_engine(src.engine, OWNER)
    refused = [name for name in src.given() if name not in SOURCE_FIELDS]
    if refused:
        takes = ", ".join(f"{n}=" for n in SOURCE_FIELDS)
        raise InvalidInputError(f"{OWNER} does not read a source's {refused[0]}=; it takes {takes}")
    absent = [name for name in ("item", "rater") if getattr(src, name) is None]
    absent += ["score"] if not src.scores else []
    if absent:
        raise InvalidInputError(
            f"{OWNER} needs the columns {', '.join(f'{n}=' for n in absent)} of the panel's "
            "long table (one row per assessment)"
        )
    if len(src.scores) > 1:
        raise InvalidInputError(
            f"{OWNER} calibrates one score column at a time; got score={list(src.scores)}"
        )
    if src.scheduler is not None and src.engine != "dask":
        raise InvalidInputError(
            f"scheduler applies to engine='dask'; got engine={src.engine!r} with a scheduler"
        )
    memory_only = [n for n in ("na_values", "encoding") if getattr(src, n) is not None]
    if memory_only and src.engine != "memory":
        raise InvalidInputError(
            f"{memory_only[0]}= applies to engine='memory'; engine={src.engine!r} reads "
            "UTF-8 files whose empty cells are missing"
        )
    return src


def _in_memory(src: Source, spec: PanelSpec) -> Any:
    """The data of ``src`` as a table: a path's columns of ``spec`` read whole (as its
    ``na_values``, ``sep``, ``encoding`` and ``file_format`` say), anything else as it is."""
    from ..io.ratings import read_table

    files = {n: getattr(src, n) for n in ("file_format", "sep", "encoding")}
    if not isinstance(src.data, str | Path):
        given = [n for n, v in {**files, "na_values": src.na_values}.items() if v is not None]
        if given:
            raise InvalidInputError(f"{given[0]}= applies to a file; {OWNER} got a table")
        return src.data
    return read_table(src.data, spec.file_columns, na_values=src.na_values, **files)


def _one_per_pair(
    stats: PanelStatistics, duplicates: Duplicates, engine: str
) -> tuple[PanelStatistics, dict[str, int]]:
    """Apply the ``duplicates`` policy to merged per-pair statistics: the statistics with
    one assessment per pair, and the reason for the rows resolved with their count."""
    repeated = np.flatnonzero(stats.count > 1)
    if repeated.size == 0:
        return stats, {}
    n_pairs = int(repeated.size)
    if duplicates == "raise":
        codes = list(zip(stats.item_codes[repeated], stats.rater_codes[repeated], strict=True))
        named = [
            f"{pair_name(stats.items, stats.raters, int(i), int(r))} {int(n)} times"
            for (i, r), n in zip(codes[:SHOW], stats.count[repeated], strict=False)
        ]
        remedy = (
            f"{option('duplicates', 'mean')} to resolve (or "
            f"{option('duplicates', 'first', 'last')} with {option('engine', 'memory')})"
        )
        raise repeated_pairs_error(n_pairs, named, remedy)
    if duplicates in ("first", "last"):
        raise InvalidInputError(
            f"{option('duplicates', duplicates)} keeps one row of each repeated (item, rater) "
            f"pair by its place in the input, which {option('engine', engine)} does not keep "
            f"({n_pairs} pairs are scored more than once): use {option('engine', 'memory')}, "
            f"or {option('duplicates', 'mean')}"
        )
    n = stats.count
    return stats.averaged(), {"duplicate (item, rater): averaged": round(float(n.sum() - n.size))}


# --------------------------------------------------------------------------- stream


def panel_statistics(
    source: Any,
    *,
    item: str,
    rater: str,
    score: str,
    confidence: str | None = None,
    sigma: str | None = None,
    score_range: Sequence[str] | None = None,
    levels: str | None = None,
    confidence_factor: float = 1.75,
    range_convention: str = "central95",
    relative: bool | None = None,
    missing: Missing = "omit",
    batch_size: int = 1_000_000,
    file_format: str | None = None,
    sep: str | None = None,
) -> PanelStatistics:
    """The per-pair statistics of a panel in Parquet/CSV files, read in batches.

    Every batch is validated and converted exactly as :func:`accord.calibrate_panel` converts
    a whole table (the options mean the same); item and rater ids keep one code across
    batches. The result's codes and decode tables are sorted as the memory engine sorts them,
    so :func:`accord.calibrate_panel` gives the same numbers from it.

    Parameters
    ----------
    source : path, glob or list of paths
        Parquet or CSV/TSV files, one row per assessment.
    item, rater, score : str
        Columns of item ids, rater ids and numeric scores.
    confidence, sigma, score_range, levels : optional
        Where the confidences come from, as in :func:`accord.calibrate_panel`.
    confidence_factor, range_convention, relative, missing
        As in :func:`accord.calibrate_panel`.
    batch_size : int, default 1_000_000
        Rows per batch.
    file_format : {"parquet", "csv", "tsv"}, optional
        Overrides the format guessed from the suffix.
    sep : str, optional
        Field separator for CSV/TSV.

    Returns
    -------
    PanelStatistics
        One row per (item, rater) pair: counts, summed confidences, weighted means and
        within-pair sums of squares, with the decode tables; partial statistics ``merge``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import pandas as pd
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> pd.DataFrame({"item": [1, 2, 3, 2, 3, 4], "rater": list("AAABBB"),
    ...               "score": [4, 5, 6, 7, 8, 9]}).to_parquet(d / "p.parquet")
    >>> stats = panel_statistics(d / "p.parquet", item="item", rater="rater", score="score",
    ...                          batch_size=4)
    >>> stats.n_pairs, stats.n_assessments, stats.weight.tolist()
    (6, 6, [1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    """
    spec = PanelSpec(
        item=item,
        rater=rater,
        score=score,
        confidence=confidence,
        sigma=sigma,
        score_range=score_range,
        levels=levels,
        confidence_factor=confidence_factor,
        range_convention=cast(RangeConvention, range_convention),
        relative=relative,
        missing=missing,
    )
    return _stream_statistics(
        source, spec, batch_size=batch_size, file_format=file_format, sep=sep, stacklevel=4
    )


def _stream_statistics(
    source: Any,
    spec: PanelSpec,
    *,
    batch_size: int,
    file_format: str | None,
    sep: str | None,
    stacklevel: int = 5,
    progress: Callable[[int, int | None], None] | None = None,
) -> PanelStatistics:
    """The batches of the files folded into statistics (:func:`accord.engines.fold.fold_batches`):
    memory bounded by the number of distinct pairs, not of rows."""
    columns = spec.file_columns
    dataset, _, fmt = batch_dataset(
        source, columns, batch_size=batch_size, file_format=file_format, sep=sep
    )
    total = fold_batches(
        dataset, columns, batch_size, _PanelSummary(spec), _merge, progress=progress
    )
    return _finish(total, fmt != "parquet", spec, stacklevel)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _Partial:
    """The statistics of some batches or partitions (None when no row was complete) and
    the rows they dropped."""

    stats: PanelStatistics | None
    n_dropped: int


@dataclasses.dataclass(frozen=True, slots=True)
class _PanelSummary:
    """The statistics of one batch or partition that starts at row ``row0`` of the input,
    with its own decode tables (it pickles for the dask schedulers)."""

    spec: PanelSpec

    def __call__(self, part: Any, row0: int) -> _Partial:
        frame = part.to_pandas() if hasattr(part, "num_rows") else part
        try:
            panel = read_panel(frame, self.spec, batch=True, row0=row0)
        except EmptyPanelError:
            return _Partial(None, len(frame))
        stats = PanelStatistics.from_batch(
            panel.item_codes,
            panel.rater_codes,
            panel.score,
            panel.confidence,
            items=panel.items,
            raters=panel.raters,
            source=panel.source,
            relative=panel.relative,
            n_dropped=0,
        )
        return _Partial(stats, panel.n_dropped)


def _merge(a: _Partial, b: _Partial) -> _Partial:
    """Two partials pooled (decode tables unioned by :meth:`PanelStatistics.merge`)."""
    if a.stats is None or b.stats is None:
        return _Partial(a.stats if b.stats is None else b.stats, a.n_dropped + b.n_dropped)
    return _Partial(a.stats.merge(b.stats), a.n_dropped + b.n_dropped)


def _finish(
    total: _Partial | None, text: bool, spec: PanelSpec, stacklevel: int
) -> PanelStatistics:
    """The merged statistics sorted as the memory engine sorts them, after a warning of the
    rows dropped (``stacklevel`` frames up from the caller of this function)."""
    if total is None or total.stats is None:
        raise EmptyPanelError
    _warn_dropped(total.n_dropped, stacklevel + 1)
    stats = total.stats
    items, raters = np.asarray(stats.items), np.asarray(stats.raters)
    return _sorted_like_memory(stats, items, raters, text, spec, total.n_dropped)


def _warn_dropped(n_dropped: int, stacklevel: int) -> None:
    """Warn of the rows dropped, at the user's call (``stacklevel`` frames up from here)."""
    if n_dropped:
        warnings.warn(
            f"calibrate_panel dropped {counted(n_dropped, 'row')} with a missing score or "
            "confidence",
            DroppedDataWarning,
            stacklevel=stacklevel,
        )


def _sorted_like_memory(
    merged: PanelStatistics,
    item_values: npt.NDArray[Any],
    rater_values: npt.NDArray[Any],
    text: bool,
    spec: PanelSpec,
    n_dropped: int,
) -> PanelStatistics:
    """The codes and decode tables sorted as the memory engine sorts them.

    ``item_values`` and ``rater_values`` are the decode tables of ``merged``'s codes, in any
    order; ``text`` says that they are CSV cells, typed here from their distinct values as
    pandas types a column read whole.
    """
    decoded = []
    for values, column in ((item_values, spec.item), (rater_values, spec.rater)):
        if text and values.size:
            values = typed_ids(values)
        if values.dtype.kind in "OUS":
            values = np.asarray(values, dtype=object)
        decoded.append(factorize_ids(values, np.arange(values.size, dtype=np.int64), column))
    (item_rank, items), (rater_rank, raters) = decoded
    recoded = merged.recoded(item_rank, rater_rank, items=items, raters=raters)
    return dataclasses.replace(recoded.sorted_pairs(), n_dropped=n_dropped)


# --------------------------------------------------------------------------- dask


def _dask_statistics(
    data: Any, spec: PanelSpec, *, scheduler: Any, file_format: str | None, sep: str | None
) -> PanelStatistics:
    """The partitions folded into statistics (:func:`accord.engines.fold.fold_partitions`):
    each with its own decode tables, tree-reduced; an error names rows of the whole input."""
    require("dask", "dask")
    frame, text = _dask_frame(data, spec, file_format=file_format, sep=sep)
    parts = frame.to_delayed()
    files = partition_files(data, len(parts), file_format)
    total = fold_partitions(parts, _PanelSummary(spec), _merge, scheduler=scheduler, files=files)
    return _finish(total, text, spec, 5)


def _dask_frame(
    data: Any, spec: PanelSpec, *, file_format: str | None, sep: str | None
) -> tuple[Any, bool]:
    """A dask DataFrame of the spec's columns, and whether its cells are CSV text."""
    dd: Any = require("dask.dataframe", "dask")
    paths = isinstance(data, str | Path) or (
        isinstance(data, Sequence) and not isinstance(data, str | bytes)
    )
    if not paths and not isinstance(data, dd.DataFrame):
        raise InvalidInputError(
            f"{OWNER}(engine='dask') takes a dask DataFrame, a path, a glob or a list of "
            f"paths; got a {type(data).__name__}"
        )
    columns = cast(Any, tuple(spec.file_columns))
    frame, text, _ = frame_of(data, columns, file_format=file_format, sep=sep, blocksize=None)
    return frame, text
