"""The per-item tables of a fitted rater model (items, review), built lean.

One row per item, so at scale (ten million items and more) these tables are most of a fit's
memory. They are built a block of items at a time, with no temporary of the shape of the
posteriors: labels are categorical (one byte a row), the ``p_<label>`` columns are the
posteriors themselves (no copy), the bootstrap bounds a fit without a bootstrap does not
have are one NaN broadcast over the rows, and the review order is one sort of two keys.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from pandas.api.extensions import ExtensionArray

from .._types import FloatArray, IntArray
from ..data.order import lexsort_order
from ._em import Params
from ._quality import ROWS, entropy_bits, next_label_gain

__all__ = ["ItemColumns", "code_dtype", "item_columns", "items_table", "review_table"]


@dataclasses.dataclass(frozen=True, slots=True)
class ItemColumns:
    """Per item: the code of the most probable label, its posterior, the entropy of the
    posterior (bits), and the expected entropy after one more label and its reduction."""

    best: npt.NDArray[np.signedinteger[Any]]
    probability: FloatArray
    entropy: FloatArray
    expected: FloatArray
    reduction: FloatArray


def code_dtype(q: int) -> Any:
    """The narrowest signed integer that holds the codes ``-1 .. q - 1``."""
    return np.int8 if q <= 127 else np.int16 if q <= 32767 else np.int32


def item_columns(params: Params, posterior: FloatArray, n_per_rater: FloatArray) -> ItemColumns:
    """The per-item columns of the tables, a block of
    :data:`~accord.truth._quality.ROWS` items at a time (the
    values are those of the whole array at once: each row is computed on its own).

    >>> post = np.array([[0.9, 0.1], [0.5, 0.5]])
    >>> params = Params(np.array([0.7, 0.3]), np.array([[[0.8, 0.2], [0.1, 0.9]]]),
    ...                 np.array([[[0.8, 0.2], [0.1, 0.9]]]))
    >>> cols = item_columns(params, post, np.array([2.0]))
    >>> cols.best.tolist(), cols.entropy.round(3).tolist()
    ([0, 0], [0.469, 1.0])
    """
    n, q = posterior.shape
    best = np.empty(n, dtype=code_dtype(q))
    probability, entropy, expected, reduction = (np.empty(n) for _ in range(4))
    for lo in range(0, n, ROWS):
        hi = min(lo + ROWS, n)
        post = posterior[lo:hi]
        top = post.argmax(axis=1)
        best[lo:hi] = top
        probability[lo:hi] = post[np.arange(hi - lo), top]
        entropy[lo:hi] = entropy_bits(post)
        part = params
        if params.difficulty is not None:
            part = dataclasses.replace(params, difficulty=params.difficulty[lo:hi])
        expected[lo:hi], reduction[lo:hi] = next_label_gain(q, part, post, n_per_rater)
    return ItemColumns(best, probability, entropy, expected, reduction)


def _labels(codes: npt.NDArray[Any], categories: tuple[Any, ...]) -> pd.Categorical:
    """Label codes as a categorical of the categories (code -1: missing)."""
    return pd.Categorical.from_codes(codes, categories=pd.Index(list(categories), dtype=object))


def items_table(
    cols: ItemColumns,
    posterior: FloatArray,
    items: npt.NDArray[Any] | ExtensionArray,
    categories: tuple[Any, ...],
    *,
    gold: IntArray,
    bounds: tuple[Any, Any],
    difficulty: FloatArray | None = None,
) -> pd.DataFrame:
    """The items table: ``item``, ``label``, ``probability`` with ``bounds`` (NaN scalars:
    no interval), ``entropy``, ``gold``, GLAD's ``difficulty``, and ``p_<label>`` (the
    columns of ``posterior``, which the table holds without a copy)."""
    n = posterior.shape[0]
    low, high = (np.broadcast_to(np.float64(b), n) if np.ndim(b) == 0 else b for b in bounds)
    front = {
        "item": items,
        "label": _labels(cols.best, categories),
        "probability": cols.probability,
        "probability_low": low,
        "probability_high": high,
        "entropy": cols.entropy,
        "gold": _labels(gold.astype(code_dtype(len(categories)), copy=False), categories),
    }
    if difficulty is not None:
        front["difficulty"] = difficulty
    names = [f"p_{c}" for c in categories]
    post = pd.DataFrame(np.ascontiguousarray(posterior), columns=names, copy=False)
    return pd.concat([pd.DataFrame(front, copy=False), post], axis=1)


def _min_rank_descending(values: FloatArray) -> IntArray:
    """Rank 1 for the largest value, ties sharing the smallest rank (pandas'
    ``rank(ascending=False, method="min")``).

    >>> _min_rank_descending(np.array([0.2, 0.9, 0.2, 0.5])).tolist()
    [3, 1, 3, 2]
    """
    neg = np.negative(values)
    # the ranks are the same whatever the order of equal values (NaNs, unequal to each
    # other, are ranked in the order given)
    order = np.argsort(neg, kind="stable" if np.isnan(neg).any() else None)
    ordered = neg[order]
    del neg
    start = np.ones(ordered.size, dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=start[1:])
    del ordered
    ranks = np.where(start, np.arange(1, start.size + 1), 0)
    np.maximum.accumulate(ranks, out=ranks)
    out = np.empty(values.size, dtype=np.int64)
    out[order] = ranks
    return out


def review_table(
    cols: ItemColumns,
    items: npt.NDArray[Any] | ExtensionArray,
    categories: tuple[Any, ...],
    gold: IntArray,
) -> pd.DataFrame:
    """The review table: the items without gold, the largest expected reduction of the
    entropy first, then the largest entropy (ties in item order), with each item's rank by
    entropy alone."""
    free = None if not np.any(gold >= 0) else np.flatnonzero(gold < 0)

    def kept(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
        return values if free is None else values[free]

    entropy = kept(cols.entropy)
    entropy_rank = _min_rank_descending(entropy)
    # stable on both keys, largest first: ascending on the negated keys
    order = lexsort_order((np.negative(entropy), np.negative(kept(cols.reduction))))
    at = order if free is None else free[order]
    frame = {
        "rank": np.arange(1, order.size + 1),
        "item": items.take(at) if isinstance(items, ExtensionArray) else np.asarray(items)[at],
        "label": _labels(cols.best[at], categories),
        "entropy": cols.entropy[at],
        "expected_entropy": cols.expected[at],
        "expected_reduction": cols.reduction[at],
        "entropy_rank": entropy_rank[order],
    }
    return pd.DataFrame(frame, copy=False)
