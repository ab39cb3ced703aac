"""The aggregation step of panel calibration, batch by batch (``engine="stream"``).

The normal equations of :func:`accord.calibrate_panel` are sums over assessments, so one row
per (item, rater) pair is enough: the number of assessments, their summed confidence, the
confidence-weighted mean score and the within-pair sums of squares (weighted and unweighted,
merged with Chan's update so that no variance is formed by subtracting large sums). Files are
read with pyarrow in batches; item and rater codes stay consistent across batches
(:class:`accord.engines._encode.GrowingDictionary`), and partial statistics are merged as they
grow, so memory is bounded by the number of distinct pairs, not of rows.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import DroppedDataWarning, InvalidInputError
from .._results import Result
from .._types import FloatArray, IntArray, Missing

__all__ = ["PanelStatistics", "panel_statistics"]

_SHIFT = np.int64(1 << 31)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class PanelStatistics(Result):
    """Mergeable sufficient statistics of a panel: one row per (item, rater) pair.

    Attributes
    ----------
    item_codes, rater_codes : ndarray of int64, shape (P,)
        Codes of each pair (into ``items`` and ``raters``; codes shared by every partial
        statistic of one input).
    count : ndarray, shape (P,)
        Assessments of the pair.
    weight : ndarray, shape (P,)
        Summed confidence ``sum c``.
    mean : ndarray, shape (P,)
        Confidence-weighted mean score ``sum c s / sum c``.
    within : ndarray, shape (P,)
        ``sum c (s - mean)^2`` over the pair's assessments.
    raw_sum : ndarray, shape (P,)
        ``sum s``.
    raw_within : ndarray, shape (P,)
        ``sum (s - raw_sum / count)^2``.
    items, raters : ndarray
        Decode tables (sorted as :func:`accord.calibrate_panel` sorts them once complete).
    source : str
        Where the confidences came from (``"confidence"``, ``"sigma"``, ...).
    relative : bool
        Whether the confidences are relative.
    n_dropped : int
        Rows dropped for a missing score or confidence.
    """

    item_codes: IntArray
    rater_codes: IntArray
    count: FloatArray
    weight: FloatArray
    mean: FloatArray
    within: FloatArray
    raw_sum: FloatArray
    raw_within: FloatArray
    items: npt.NDArray[Any]
    raters: npt.NDArray[Any]
    source: str
    relative: bool
    n_dropped: int

    @property
    def n_pairs(self) -> int:
        return int(self.item_codes.size)

    @property
    def n_assessments(self) -> int:
        return round(float(self.count.sum()))

    @classmethod
    def from_codes(
        cls,
        item_codes: IntArray,
        rater_codes: IntArray,
        score: FloatArray,
        confidence: FloatArray,
        **meta: Any,
    ) -> PanelStatistics:
        """Statistics of per-assessment arrays (shape (E,)) with shared codes."""
        keys = item_codes.astype(np.int64) * _SHIFT + rater_codes.astype(np.int64)
        uniq, inv = np.unique(keys, return_inverse=True)
        p = uniq.size
        n = np.bincount(inv, minlength=p).astype(np.float64)
        w = _sum(inv, confidence, minlength=p)
        m = _sum(inv, confidence * score, minlength=p) / w
        d = score - m[inv]
        within = _sum(inv, confidence * d * d, minlength=p)
        raw = _sum(inv, score, minlength=p)
        d = score - (raw / n)[inv]
        raw_within = _sum(inv, d * d, minlength=p)
        return cls(uniq // _SHIFT, uniq % _SHIFT, n, w, m, within, raw, raw_within, **meta)

    def merge(self, *others: PanelStatistics) -> PanelStatistics:
        """Pool with statistics of other rows of the same input (same codes)."""
        parts = (self, *others)
        cat = {
            f: np.concatenate([getattr(q, f) for q in parts])
            for f in (
                "item_codes",
                "rater_codes",
                "count",
                "weight",
                "mean",
                "within",
                "raw_sum",
                "raw_within",
            )
        }
        keys = cat["item_codes"] * _SHIFT + cat["rater_codes"]
        uniq, inv = np.unique(keys, return_inverse=True)
        p = uniq.size
        n = _sum(inv, cat["count"], minlength=p)
        w = _sum(inv, cat["weight"], minlength=p)
        m = _sum(inv, cat["weight"] * cat["mean"], minlength=p) / w
        d = cat["mean"] - m[inv]
        within = _sum(inv, cat["within"] + cat["weight"] * d * d, minlength=p)
        raw = _sum(inv, cat["raw_sum"], minlength=p)
        d = cat["raw_sum"] / cat["count"] - (raw / n)[inv]
        raw_within = _sum(inv, cat["raw_within"] + cat["count"] * d * d, minlength=p)
        last = parts[-1]
        return PanelStatistics(
            uniq // _SHIFT,
            uniq % _SHIFT,
            n,
            w,
            m,
            within,
            raw,
            raw_within,
            items=last.items,
            raters=last.raters,
            source=last.source,
            relative=last.relative,
            n_dropped=sum(q.n_dropped for q in parts),
        )


def _sum(inv: IntArray, weights: FloatArray, minlength: int) -> FloatArray:
    return np.asarray(np.bincount(inv, weights=weights, minlength=minlength), dtype=np.float64)


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

    References
    ----------
    .. [1] MacKay, R. S., Kenna, R., Low, R. J. and Parker, S. (2017). Calibration with
       confidence: a principled method for panel assessment. Royal Society Open Science 4,
       160760. doi:10.1098/rsos.160760

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
    import pyarrow as pa

    from ..engines._encode import GrowingDictionary
    from ..engines._mapreduce import batches as _batches
    from ..engines._source import Locator, dataset_of, resolve_files
    from .panel import _read_panel

    if batch_size < 1:
        raise InvalidInputError(f"batch_size must be a positive number of rows; got {batch_size}")
    files, fmt = resolve_files(source, file_format)
    extra = [
        c
        for c in (confidence, sigma, levels, *(score_range or ()))
        if c is not None and isinstance(c, str)
    ]
    columns = list(dict.fromkeys([item, rater, score, *extra]))
    block_bytes = int(min(max(batch_size * 16, 1 << 12), 1 << 28))
    dataset = dataset_of(files, fmt, columns, sep=sep, block_bytes=block_bytes)
    items, raters = GrowingDictionary(), GrowingDictionary()
    merged: PanelStatistics | None = None
    pending: list[PanelStatistics] = []
    pending_rows = 0
    n_dropped = 0
    meta: dict[str, Any] = {}
    for row0, batch in _batches(dataset, columns, batch_size, Locator(), 0):
        frame = batch.to_pandas()
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", DroppedDataWarning)
                panel = _read_panel(
                    frame,
                    item=item,
                    rater=rater,
                    score=score,
                    confidence=confidence,
                    sigma=sigma,
                    score_range=score_range,
                    levels=levels,
                    confidence_factor=confidence_factor,
                    range_convention=range_convention,  # type: ignore[arg-type]
                    relative=relative,
                    missing=missing,
                )
        except InvalidInputError as exc:
            if missing == "omit" and str(exc).startswith("no assessments"):
                n_dropped += batch.num_rows
                continue
            raise InvalidInputError(
                f"{exc} [row numbers count from row {row0 + 1} of the input, where this batch "
                "starts]"
            ) from None
        del caught
        n_dropped += panel.n_dropped
        item_map = items.encode(pa.array(panel.items), row0)
        rater_map = raters.encode(pa.array(panel.raters), row0)
        meta = {"source": panel.source, "relative": panel.relative}
        part = PanelStatistics.from_codes(
            item_map[panel.item_codes],
            rater_map[panel.rater_codes],
            panel.score,
            panel.confidence,
            items=np.zeros(0),
            raters=np.zeros(0),
            n_dropped=0,
            **meta,
        )
        pending.append(part)
        pending_rows += part.n_pairs
        if merged is None or pending_rows > 2 * merged.n_pairs:
            merged = pending[0].merge(*pending[1:]) if merged is None else merged.merge(*pending)
            pending, pending_rows = [], 0
    if merged is None:
        raise InvalidInputError("no assessments to calibrate: the input has no complete rows")
    if pending:
        merged = merged.merge(*pending)
    if n_dropped:
        warnings.warn(
            f"calibrate_panel dropped {n_dropped} rows with a missing score or confidence",
            DroppedDataWarning,
            stacklevel=3,
        )
    return finish(
        merged,
        items.values(),
        raters.values(),
        text=fmt != "parquet",
        item=item,
        rater=rater,
        n_dropped=n_dropped,
    )


def finish(
    merged: PanelStatistics,
    item_values: npt.NDArray[Any],
    rater_values: npt.NDArray[Any],
    *,
    text: bool,
    item: str,
    rater: str,
    n_dropped: int,
) -> PanelStatistics:
    """Sort the codes and decode tables as the memory engine sorts them.

    ``item_values`` and ``rater_values`` are the decode tables of ``merged``'s codes, in any
    order; ``text`` says that they are CSV cells, typed here from their distinct values as
    pandas types a column read whole.
    """
    from ..engines._encode import infer_text
    from .panel import _factorize

    decoded = []
    for values, column in ((item_values, item), (rater_values, rater)):
        if text and values.size:
            typed = infer_text(values)
            if np.unique(typed).size == values.size:
                values = typed
        positions = np.arange(values.size, dtype=np.int64)
        if values.dtype.kind in "OUS":
            values = np.asarray(values, dtype=object)
        decoded.append(_factorize(values, positions, column))
    (item_rank, item_decode), (rater_rank, rater_decode) = decoded
    ic = item_rank[merged.item_codes]
    rc = rater_rank[merged.rater_codes]
    order = np.lexsort((rc, ic))
    return PanelStatistics(
        ic[order],
        rc[order],
        merged.count[order],
        merged.weight[order],
        merged.mean[order],
        merged.within[order],
        merged.raw_sum[order],
        merged.raw_within[order],
        items=item_decode,
        raters=rater_decode,
        source=merged.source,
        relative=merged.relative,
        n_dropped=n_dropped,
    )
