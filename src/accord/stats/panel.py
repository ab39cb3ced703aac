"""The mergeable sums of a panel's assessments: one row per (item, rater) pair.

The normal equations of panel calibration are sums over assessments, so one row per
(item, rater) pair is enough: the number of assessments, their summed confidence, the
confidence-weighted mean score and the within-pair sums of squares (weighted and unweighted,
merged with Chan's update so that no variance is formed by subtracting large sums). Partial
statistics of disjoint rows ``merge`` into the statistics of their union (codes recoded into
the union of their decode tables when those differ), which is what lets calibration run on
batches and partitions (:meth:`PanelStatistics.from_batch`, :mod:`accord.engines.fold`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._results import Result
from .._types import FloatArray, IntArray

__all__ = ["PanelStatistics"]

_SHIFT = np.int64(1 << 31)

# The per-pair arrays, in field order.
_PAIR_FIELDS = (
    "item_codes",
    "rater_codes",
    "count",
    "weight",
    "mean",
    "within",
    "raw_sum",
    "raw_within",
)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class PanelStatistics(Result):
    """Mergeable sufficient statistics of a panel: one row per (item, rater) pair.

    Attributes
    ----------
    item_codes, rater_codes : ndarray of int64, shape (P,)
        Codes of each pair into ``items`` and ``raters``.
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

    Examples
    --------
    Two raters score item 0; rater 0 scores it twice. Merging the statistics of two halves
    of the rows gives those of all of them:

    >>> import numpy as np
    >>> meta = dict(items=np.array(["a"]), raters=np.array(["x", "y"]), source="confidence",
    ...             relative=False, n_dropped=0)
    >>> first = PanelStatistics.from_codes(np.array([0, 0]), np.array([0, 1]),
    ...                                    np.array([4.0, 6.0]), np.array([1.0, 1.0]), **meta)
    >>> second = PanelStatistics.from_codes(np.array([0]), np.array([0]), np.array([2.0]),
    ...                                     np.array([3.0]), **meta)
    >>> both = first.merge(second)
    >>> both.count.tolist(), both.weight.tolist(), both.mean.tolist()
    ([2.0, 1.0], [4.0, 1.0], [2.5, 6.0])
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

    @classmethod
    def from_batch(
        cls,
        item_codes: IntArray,
        rater_codes: IntArray,
        score: FloatArray,
        confidence: FloatArray,
        *,
        items: npt.NDArray[Any],
        raters: npt.NDArray[Any],
        **meta: Any,
    ) -> PanelStatistics:
        """Statistics of one batch or partition of a larger input, with its own decode
        tables ``items`` and ``raters`` (its codes index them); :meth:`merge` recodes the
        partial statistics of the batches into the union of their decode tables.

        Examples
        --------
        >>> meta = dict(source="equal", relative=True, n_dropped=0)
        >>> one = PanelStatistics.from_batch(np.array([0, 1]), np.array([0, 0]),
        ...     np.array([1.0, 2.0]), np.ones(2), items=np.array(["a", "b"]),
        ...     raters=np.array(["x"]), **meta)
        >>> two = PanelStatistics.from_batch(np.array([0]), np.array([0]), np.array([3.0]),
        ...     np.ones(1), items=np.array(["b"]), raters=np.array(["y"]), **meta)
        >>> both = one.merge(two)
        >>> both.items.tolist(), both.raters.tolist(), both.n_pairs
        (['a', 'b'], ['x', 'y'], 3)
        """
        return cls.from_codes(
            item_codes, rater_codes, score, confidence, items=items, raters=raters, **meta
        )

    def merge(self, *others: PanelStatistics) -> PanelStatistics:
        """Pool with statistics of other rows of the same input; when their decode tables
        differ, the codes are first recoded into the union of the tables (``self``'s values
        first, then each other's new values in order)."""
        parts = _shared_codes((self, *others))
        cat = {f: np.concatenate([getattr(q, f) for q in parts]) for f in _PAIR_FIELDS}
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

    def recoded(
        self,
        item_map: IntArray,
        rater_map: IntArray,
        *,
        items: npt.NDArray[Any],
        raters: npt.NDArray[Any],
    ) -> PanelStatistics:
        """The same pairs with codes ``item_map[item_codes]`` and ``rater_map[rater_codes]``
        into the decode tables ``items`` and ``raters``."""
        return dataclasses.replace(
            self,
            item_codes=item_map[self.item_codes],
            rater_codes=rater_map[self.rater_codes],
            items=items,
            raters=raters,
        )

    def sorted_pairs(self) -> PanelStatistics:
        """The pairs in order of item code, then rater code."""
        order = np.lexsort((self.rater_codes, self.item_codes))
        return dataclasses.replace(self, **{f: getattr(self, f)[order] for f in _PAIR_FIELDS})

    def averaged(self) -> PanelStatistics:
        """One assessment per pair: the mean of the pair's scores, with the mean of its
        confidences."""
        n = self.count
        mean = self.raw_sum / n
        return dataclasses.replace(
            self,
            count=np.ones_like(n),
            weight=self.weight / n,
            mean=mean,
            within=np.zeros_like(n),
            raw_sum=mean,
            raw_within=np.zeros_like(n),
        )


def _shared_codes(parts: tuple[PanelStatistics, ...]) -> tuple[PanelStatistics, ...]:
    """The statistics recoded into the union of their decode tables (as they are when the
    tables are the same)."""
    if all(_same(p.items, parts[0].items) and _same(p.raters, parts[0].raters) for p in parts):
        return parts
    items, item_maps = _union([p.items for p in parts])
    raters, rater_maps = _union([p.raters for p in parts])
    return tuple(
        p.recoded(i, r, items=items, raters=raters)
        for p, i, r in zip(parts, item_maps, rater_maps, strict=True)
    )


def _same(a: npt.NDArray[Any], b: npt.NDArray[Any]) -> bool:
    return a is b or (a.shape == b.shape and a.dtype == b.dtype and bool(np.all(a == b)))


def _union(tables: list[npt.NDArray[Any]]) -> tuple[npt.NDArray[Any], list[IntArray]]:
    """The union of decode tables in order of first appearance, and each table's codes into
    it."""
    present = [np.asarray(t) for t in tables if t.size]
    if len({t.dtype.kind for t in present}) > 1:
        present = [t.astype(object) for t in present]
    values = pd.unique(np.concatenate(present)) if present else np.zeros(0, dtype=object)
    index = pd.Index(values, dtype=object if values.dtype == object else None)
    return values, [np.asarray(index.get_indexer(pd.Index(t)), dtype=np.int64) for t in tables]


def _sum(inv: IntArray, weights: FloatArray, minlength: int) -> FloatArray:
    return np.asarray(np.bincount(inv, weights=weights, minlength=minlength), dtype=np.float64)
