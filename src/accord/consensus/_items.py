"""Pass 1 by count pattern: each distinct row of item counts is scored once.

The per-item figures (ratings, modal counts, modes, entropy, ordinal entropy) and the sorted
distinct deviations are computed per pattern, a chunk of patterns at a time; the items'
columns are then gathered from their patterns' values.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._types import FloatArray, IntArray
from ._cells import CHUNK_CELLS, chunk_cells, dense_rows, gather
from ._options import Options
from ._ordinal import ordinal_scores
from ._scores import ItemStats, cell_scores, item_stats

__all__ = ["PatternStats", "item_columns", "pattern_ranks", "pattern_stats"]


class PatternStats(NamedTuple):
    """Pass 1, per pattern: arrays of shape (n_patterns + 1,), the last entry that of an
    item without a rating (so that an item's pattern -1 reads it)."""

    st: ItemStats
    entropy: FloatArray
    ordinal_entropy: FloatArray | None
    d_values: FloatArray


def pattern_stats(counts: Any, n_raters: int, options: Options, *, ordinal: bool) -> PatternStats:
    """Per-pattern statistics, entropies (the ordinal entropy too when ``ordinal``) and the
    sorted distinct deviations under ``options``, a chunk of patterns at a time (no per-cell
    table is kept)."""
    reference, lb, bands = options.reference, options.lb, options.bands
    n_pat, q = counts.shape
    size = n_pat + 1
    nf = np.zeros(size)
    slog = np.zeros(size)
    # Modal counts (at most one rating per item and rater) and category codes in the
    # smallest integers that hold them.
    small_n = np.int16 if n_raters < np.iinfo(np.int16).max else np.int64
    small_q = np.int8 if q < np.iinfo(np.int8).max else np.int64
    ints = [np.zeros(size, dtype=small_n) for _ in range(3)] + [
        np.full(size, -1, dtype=small_q) for _ in range(2)
    ]
    entropy = np.full(size, np.nan)
    ordinal_entropy = np.full(size, np.nan) if ordinal else None
    distinct: list[FloatArray] = []
    step = max(1, CHUNK_CELLS // max(q, 1))
    for lo in range(0, n_pat, step):
        hi = min(n_pat, lo + step)
        part = chunk_cells(counts, lo, hi, q)
        sc = item_stats(part, q, hi - lo)
        nf[lo:hi], slog[lo:hi] = sc.n, sc.slog
        for target, value in zip(ints, (sc.m1, sc.t1, sc.m2, sc.k1, sc.k1b), strict=True):
            target[lo:hi] = value
        with np.errstate(divide="ignore", invalid="ignore"):
            h = np.log2(sc.n) - sc.slog / sc.n
        h = np.where(sc.m1 == sc.n, 0.0, np.maximum(h, 0.0)) / lb
        h[sc.n == 0] = np.nan
        entropy[lo:hi] = h
        _, _, d_part, cls_part, _ = cell_scores(part, sc, q, reference, lb, bands)
        distinct.append(np.asarray(pd.unique(d_part[cls_part >= 0]), dtype=np.float64))
        if ordinal_entropy is not None:
            res = ordinal_scores(
                dense_rows(counts, np.arange(lo, hi)), part.keys // q, part.keys % q, reference, lb
            )
            ordinal_entropy[lo:hi] = res.item_entropy
    m1, t1, m2, k1, k1b = ints
    st = ItemStats(nf, slog, m1, t1, k1, k1b, m2)
    d_values = np.unique(np.concatenate(distinct)) if distinct else np.zeros(0)
    return PatternStats(st, entropy, ordinal_entropy, d_values)


def pattern_ranks(entropy: FloatArray, weights: IntArray) -> tuple[IntArray, npt.NDArray[np.bool_]]:
    """Each pattern's ``contested_rank``: 1 + the number of items with a strictly higher
    entropy (pandas' ``rank(method="min", ascending=False)`` over the items), and whether it
    is missing (NaN entropy). ``entropy`` has the shape of :class:`PatternStats`' arrays,
    ``weights`` one entry less (no items read the last entry)."""
    w = np.r_[weights, 0].astype(np.float64)
    ok = ~np.isnan(entropy) & (w > 0)
    values, inverse = np.unique(entropy[ok], return_inverse=True)
    per_value = np.bincount(inverse.reshape(-1), weights=w[ok], minlength=values.size)
    above = (per_value.sum() - np.cumsum(per_value)).astype(np.int64)
    rank = np.zeros(entropy.size, dtype=np.int64)
    rank[ok] = 1 + above[inverse.reshape(-1)]
    return rank, ~ok


def item_columns(
    ps: Any, weights: npt.NDArray[Any], item_pattern: npt.NDArray[np.signedinteger[Any]]
) -> tuple[ItemStats, FloatArray, Any]:
    """The items' statistics, entropies and contested ranks, gathered from their count
    patterns' (``ps``: the per-pattern statistics; ``weights``: items per pattern)."""
    st_p = ps.st
    unused = np.zeros(0, dtype=np.int64)
    st = ItemStats(
        gather(st_p.n.astype(np.int64), item_pattern),
        np.zeros(0),
        gather(st_p.m1, item_pattern),
        gather(st_p.t1.astype(np.int64), item_pattern),
        gather(st_p.k1, item_pattern),
        unused,
        unused,
    )
    rank, no_rank = pattern_ranks(ps.entropy, weights)
    contested_rank = pd.arrays.IntegerArray(
        gather(rank, item_pattern), gather(no_rank, item_pattern)
    )
    return st, gather(ps.entropy, item_pattern), contested_rank
