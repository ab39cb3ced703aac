"""Count tables over integer keys, the building block of both passes of a consensus.

A (group, code) table is counted by ``bincount`` when its key space is small and by sorting
the keys otherwise; tables of batches merge by addition. Items are gathered from their count
patterns a chunk at a time, so that per-item temporaries stay small however many items
there are.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from .._types import FloatArray, IntArray
from ..stats.counts import SPARSE_CELLS

__all__ = [
    "CHUNK_CELLS",
    "DENSE_CELLS",
    "Cells",
    "as_cells",
    "chunk_cells",
    "count_cells",
    "count_keys",
    "count_of",
    "dense_rows",
    "gather",
    "group_entropy",
    "h2",
    "median_from_counts",
    "merge_counts",
    "unshift",
    "xlogx",
]


def xlogx(x: FloatArray) -> FloatArray:
    """Elementwise ``x log2 x`` with ``0 log 0 = 0``, shape of ``x``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out: FloatArray = np.where(x > 0, x * np.log2(np.where(x > 0, x, 1.0)), 0.0)
    return out


def h2(x: FloatArray) -> FloatArray:
    """Binary entropy in bits, ``-x log2 x - (1 - x) log2(1 - x)``, elementwise."""
    return -xlogx(x) - xlogx(1.0 - x)


class Cells(NamedTuple):
    """Non-empty cells of a (group, code) count table.

    keys : int64 (n_cells,), sorted ``group * width + code``
    counts : int64 (n_cells,)
    dense : int64 (n_groups * width,) or None, the whole flat table when it is small
    """

    keys: IntArray
    counts: IntArray
    dense: IntArray | None


def count_cells(keys: IntArray, size: int, weights: IntArray | None = None) -> Cells:
    """Count ``keys`` in ``[0, size)``, each ``weights`` times (else once; keys may repeat):
    by ``bincount`` when ``size`` is small, else by sort."""
    if size <= SPARSE_CELLS:
        flat = np.bincount(keys, weights=weights, minlength=size).astype(np.int64, copy=False)
        nz = np.flatnonzero(flat).astype(np.int64, copy=False)
        return Cells(nz, flat[nz], flat)
    if weights is None:
        uniq, counts = np.unique(keys, return_counts=True)
    else:
        uniq, inverse = np.unique(keys, return_inverse=True)
        counts = np.bincount(inverse, weights=weights, minlength=uniq.size)
    return Cells(uniq.astype(np.int64, copy=False), counts.astype(np.int64), None)


def count_of(cells: Cells, query: IntArray) -> IntArray:
    """The count of each key in ``query`` (0 where absent), shape of ``query``."""
    if cells.dense is not None:
        out: IntArray = cells.dense[query]
        return out
    pos = np.searchsorted(cells.keys, query)
    pos_c = np.minimum(pos, max(cells.keys.size - 1, 0))
    found = (pos < cells.keys.size) & (cells.keys[pos_c] == query)
    return np.where(found, cells.counts[pos_c], 0).astype(np.int64)


def group_entropy(cells: Cells, width: int, n_groups: int) -> tuple[FloatArray, IntArray]:
    """Entropy (bits) of each group's distribution over ``width`` codes, and the number of
    non-empty codes per group. Shapes (n_groups,); NaN entropy for an empty group."""
    group = cells.keys // width
    counts = cells.counts.astype(np.float64)
    total = np.bincount(group, weights=counts, minlength=n_groups)
    slog = np.bincount(group, weights=xlogx(counts), minlength=n_groups)
    nonempty = np.bincount(group, minlength=n_groups).astype(np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = np.log2(total) - slog / total
    h = np.where(nonempty == 1, 0.0, np.maximum(h, 0.0))
    h = np.where(total > 0, h, np.nan)
    return h, nonempty


#: Dense accumulators per rater up to this many cells; beyond, sorted (key, count) pairs.
DENSE_CELLS = 20_000_000


#: (pattern, category) cells per chunk of patterns in pass 1, and (item, category) cells
#: per chunk when patterns are formed or gathered: per-cell temporaries stay at a few tens
#: of MB however many items there are.
CHUNK_CELLS = 500_000


def chunk_cells(counts: Any, lo: int, hi: int, q: int) -> Cells:
    """The non-empty (row, category) cells of rows ``lo:hi`` (keys local to the chunk)."""
    if isinstance(counts, np.ndarray):
        flat = counts[lo:hi].reshape(-1)
        nz = np.flatnonzero(flat).astype(np.int64, copy=False)
        return Cells(nz, flat[nz].astype(np.int64, copy=False), None)
    coo = counts[lo:hi].tocoo()
    keys = coo.row.astype(np.int64) * q + coo.col.astype(np.int64)
    order = np.argsort(keys, kind="stable")
    vals = np.asarray(coo.data, dtype=np.int64)[order]
    keys = keys[order]
    present = vals > 0
    return Cells(keys[present], vals[present], None)


def dense_rows(counts: Any, rows: IntArray) -> IntArray:
    """Rows of the counts as a dense int64 array."""
    if isinstance(counts, np.ndarray) and rows.size == counts.shape[0]:
        return counts.astype(np.int64, copy=False)  # every row, in order: no copy
    out = counts[rows]
    return np.asarray(out if isinstance(out, np.ndarray) else out.toarray(), dtype=np.int64)


def count_keys(keys: IntArray, size: int, weights: FloatArray | None = None) -> Any:
    """Counts of ``keys`` in ``[0, size)`` (each counted ``weights`` times, else once):
    dense, or sorted (keys, counts) when large."""
    if size <= DENSE_CELLS:
        return np.bincount(keys, weights=weights, minlength=size).astype(np.int64, copy=False)
    uniq, inverse = np.unique(keys, return_inverse=True)
    counts = np.bincount(inverse.reshape(-1), weights=weights, minlength=uniq.size)
    return uniq.astype(np.int64), counts.astype(np.int64)


def merge_counts(a: Any, b: Any) -> Any:
    """The sum of two :func:`count_keys` results."""
    if isinstance(a, np.ndarray):
        return a + b
    keys = np.concatenate([a[0], b[0]])
    counts = np.concatenate([a[1], b[1]])
    uniq, inverse = np.unique(keys, return_inverse=True)
    return uniq, np.bincount(inverse, weights=counts, minlength=uniq.size).astype(np.int64)


def as_cells(counts: Any) -> tuple[IntArray, IntArray]:
    """Sorted non-empty (keys, counts)."""
    if isinstance(counts, np.ndarray):
        nz = np.flatnonzero(counts).astype(np.int64)
        return nz, counts[nz]
    keys, vals = counts
    return keys, vals


def median_from_counts(
    keys: IntArray, counts: IntArray, n_groups: int, values: FloatArray
) -> FloatArray:
    """Median per group from counts of sorted ``group * n_values + code`` keys, ``code``
    the index of a value in the sorted distinct ``values``; NaN for an empty group."""
    n_values = max(values.size, 1)
    group = keys // n_values
    code = keys % n_values
    total = np.bincount(group, weights=counts, minlength=n_groups).astype(np.int64)
    has = total > 0
    lo = (total - 1) // 2
    hi = total // 2
    before = np.cumsum(total) - total
    cum = np.cumsum(counts)
    out = np.full(n_groups, np.nan)
    at_lo = np.searchsorted(cum, (before + lo)[has], side="right")
    at_hi = np.searchsorted(cum, (before + hi)[has], side="right")
    out[has] = (values[code[at_lo]] + values[code[at_hi]]) / 2.0
    return out


def gather(
    values: npt.NDArray[Any],
    index: npt.NDArray[np.signedinteger[Any]],
    out: npt.NDArray[Any] | None = None,
) -> Any:
    """``values[index]`` per item (index -1 reads the last entry), a chunk at a time, into
    ``out`` when given (shape of ``index``, dtype of ``values``)."""
    if out is None:
        out = np.empty(index.size, dtype=values.dtype)
    step = max(1, CHUNK_CELLS * 8)
    for lo in range(0, index.size, step):
        # "wrap": -1 reads the last entry, and the output is not buffered as with "raise"
        np.take(values, index[lo : lo + step], out=out[lo : lo + step], mode="wrap")
    return out


def unshift(keys: IntArray, counts: IntArray, width: int) -> tuple[IntArray, IntArray]:
    """Counts of keys ``g * (width + 1) + code + 1`` as counts of ``g * width + code``, the
    entries of slot 0 (no code) left out; ``keys`` sorted, and so is the result."""
    g, slot = np.divmod(keys, width + 1)
    coded = slot > 0
    out: IntArray = g[coded] * width + slot[coded] - 1
    return out, counts[coded]
