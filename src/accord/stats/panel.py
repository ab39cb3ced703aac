"""The mergeable sums of a panel's assessments: one row per (item, rater) pair.

The normal equations of panel calibration are sums over assessments, so one row per
(item, rater) pair is enough: the number of assessments, their summed confidence, the
confidence-weighted mean score and the within-pair sums of squares (weighted and unweighted,
merged with Chan's update so that no variance is formed by subtracting large sums). Partial
statistics of disjoint rows with shared codes ``merge`` into the statistics of their union,
which is what lets calibration run on batches and partitions.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import numpy.typing as npt

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

    def merge(self, *others: PanelStatistics) -> PanelStatistics:
        """Pool with statistics of other rows of the same input (same codes)."""
        parts = (self, *others)
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


def _sum(inv: IntArray, weights: FloatArray, minlength: int) -> FloatArray:
    return np.asarray(np.bincount(inv, weights=weights, minlength=minlength), dtype=np.float64)
