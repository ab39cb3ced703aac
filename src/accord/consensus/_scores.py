"""Scores of the (item, category) cells: every rating of a cell shares them.

A rating's surprisal, deviation, class and the leave-one-out modal label of its item are
functions of its label and of its item's row of counts, so they are computed once per
non-empty (item or count pattern, category) cell.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from .._types import FloatArray, IntArray
from ..stats.counts import SPARSE_CELLS
from ..stats.patterns import index_dtype
from ._cells import Cells, chunk_cells, xlogx
from .results import ConsensusReference

__all__ = [
    "EDGE",
    "TABLE_CELLS",
    "CellTables",
    "ItemStats",
    "cell_scores",
    "cell_tables",
    "deviation_classes",
    "item_stats",
    "leave_one_out_mode",
]


#: Deviations this close to a band edge count as on the edge: ``s - e`` of a rating that is
#: exactly as surprising as the average (a tie, an evenly split item) is 0 only up to rounding.
EDGE = 1e-12


class ItemStats(NamedTuple):
    """Pass 1: per-item figures from the item x category counts, shapes (n_items,).

    n : ratings; slog : sum_c n_c log2 n_c; m1 : modal count; t1 : categories at the modal count;
    k1, k1b : first and last modal category; m2 : largest count once the cell k1 is set aside.
    """

    n: FloatArray
    slog: FloatArray
    m1: IntArray
    t1: IntArray
    k1: IntArray
    k1b: IntArray
    m2: IntArray


def item_stats(cells: Cells, q: int, n_items: int) -> ItemStats:
    """Per-item statistics from the non-empty (item, category) cells sorted by key."""
    item = cells.keys // q
    cat = cells.keys % q
    cnt = cells.counts
    cntf = cnt.astype(np.float64)
    n: FloatArray = np.asarray(np.bincount(item, weights=cntf, minlength=n_items), np.float64)
    slog: FloatArray = np.asarray(
        np.bincount(item, weights=xlogx(cntf), minlength=n_items), np.float64
    )
    t1: IntArray = np.zeros(n_items, dtype=np.int64)
    m1 = np.zeros(n_items, dtype=np.int64)
    k1 = np.full(n_items, -1, dtype=np.int64)
    k1b = np.full(n_items, -1, dtype=np.int64)
    m2 = np.zeros(n_items, dtype=np.int64)
    if cnt.size:
        starts = np.flatnonzero(np.r_[True, item[1:] != item[:-1]])
        present = item[starts]
        m1[present] = np.maximum.reduceat(cnt, starts)
        is_max = cnt == m1[item]
        k1[present] = np.minimum.reduceat(np.where(is_max, cat, q), starts)
        k1b[present] = np.maximum.reduceat(np.where(is_max, cat, -1), starts)
        is_k1 = is_max & (cat == k1[item])
        m2[present] = np.maximum.reduceat(np.where(is_k1, 0, cnt), starts)
        t1 = np.bincount(item[is_max], minlength=n_items).astype(np.int64)
    return ItemStats(n, slog, m1, t1, k1, k1b, m2)


def leave_one_out_mode(label: IntArray, n_c: IntArray, st: ItemStats, item: IntArray) -> IntArray:
    """For a rating in category ``label`` of ``item`` (whose count is ``n_c``): the unique
    modal category of the item's *other* ratings, -1 when they tie or there are none.
    Shapes (n,), one entry per (item, category) cell or per rating."""
    n = st.n[item]
    m1 = st.m1[item]
    t1 = st.t1[item]
    k1 = st.k1[item]
    k1b = st.k1b[item]
    m2 = st.m2[item]
    at_max = n_c == m1
    conditions = [
        n <= 1,
        at_max & (t1 == 1) & (m1 - 1 > m2),  # still the unique mode without this rating
        at_max & (t1 == 2),  # the other tied category becomes the unique mode
        ~at_max & (t1 == 1),  # the unique mode stays
    ]
    choices = [np.full_like(label, -1), label, np.where(label == k1, k1b, k1), k1]
    out: IntArray = np.select(conditions, choices, default=-1).astype(np.int64)
    return out


def deviation_classes(d: FloatArray, bands: tuple[float, float, float]) -> npt.NDArray[np.int8]:
    """Class codes 0..3 of the deviations (``d <= b0``: 0, ..., ``d > b2``: 3); -1 for NaN."""
    cls = np.zeros(d.shape, dtype=np.int8)
    for edge in bands:  # three comparisons, vectorised over the ratings
        cls += d > edge + EDGE
    cls[np.isnan(d)] = -1
    return cls


def cell_scores(
    cells: Cells,
    st: ItemStats,
    q: int,
    reference: ConsensusReference,
    lb: float,
    band_edges: tuple[float, float, float],
) -> tuple[FloatArray, FloatArray, FloatArray, npt.NDArray[np.int8], IntArray]:
    """Pass 2 per non-empty (item, category) cell: p, surprisal, deviation, class and the
    leave-one-out modal category (every rating of a cell shares them). Shapes (n_cells,)."""
    cell_item = cells.keys // q
    n_c = cells.counts.astype(np.float64)
    n_i = st.n[cell_item]
    if reference == "all":
        p_cell = n_c / n_i
        s_cell = (np.log2(n_i) - np.log2(n_c)) / lb
        d_cell = (st.slog[cell_item] / n_i - np.log2(n_c)) / lb  # s - e, in one step
        d_cell[n_c == n_i] = 0.0  # a unanimous item: exactly 0, not 0 up to rounding
    else:
        m = n_i - 1.0
        with np.errstate(divide="ignore", invalid="ignore"):
            p_cell = (n_c - 1.0) / m
            s_cell = -np.log2(p_cell) / lb
            slog_others = st.slog[cell_item] - xlogx(n_c) + xlogx(n_c - 1.0)
            e_others = (np.log2(m) - slog_others / m) / lb
            e_others = np.where(n_c == n_i, 0.0, np.maximum(e_others, 0.0))
            d_cell = s_cell - e_others
        single = m <= 0
        p_cell[single] = np.nan
        s_cell[single] = np.nan
        d_cell[single] = np.nan
    cls_cell = deviation_classes(d_cell, band_edges)
    loo_cell = leave_one_out_mode(
        cells.keys % q, cells.counts, st, cell_item
    )  # the others' unique modal category, -1 if none
    return p_cell, s_cell, d_cell, cls_cell, loo_cell


#: (pattern, category) cells up to which the cell scores are laid out densely, so that a
#: rating's key ``pattern * q + category`` is its slot; beyond, the key is located among
#: the non-empty cells.
TABLE_CELLS = 1 << 22


class CellTables(NamedTuple):
    """Scores of the (pattern, category) cells, one slot per cell, and ``locate``, which maps
    keys ``pattern * q + category`` to slots (a function that pickles, so the tables go
    with a batch's context to wherever it is scored).

    p, surprisal, deviation : float64; cls : int8 (-1: undefined); loo1 : int64, one more
    than the leave-one-out modal category (0: none); d_code1 : int64, one more than the
    index of the deviation among the sorted distinct deviations (0: undefined). Shifted by
    one, a code needs no mask: the undefined ones are counted apart, in slot 0.
    """

    p: FloatArray
    surprisal: FloatArray
    deviation: FloatArray
    cls: npt.NDArray[np.int8]
    loo1: IntArray
    d_code1: IntArray
    locate: Callable[[IntArray], IntArray]


def cell_tables(
    counts: Any,
    st: ItemStats,
    d_values: FloatArray,
    q: int,
    reference: ConsensusReference,
    lb: float,
    bands: tuple[float, float, float],
) -> CellTables:
    """Every non-empty (pattern, category) cell scored once (:func:`cell_scores`)."""
    n_pat = int(counts.shape[0])
    cells = chunk_cells(counts, 0, n_pat, q)
    p, s, d, cls, loo = cell_scores(cells, st, q, reference, lb, bands)
    d_code1 = np.where(cls >= 0, np.searchsorted(d_values, d) + 1, 0).astype(np.int64)
    loo1 = loo + 1
    space = n_pat * q
    if space <= TABLE_CELLS:

        def spread(values: npt.NDArray[Any], fill: float) -> npt.NDArray[Any]:
            out = np.full(space, fill, dtype=values.dtype)
            out[cells.keys] = values
            return out

        return CellTables(
            spread(p, np.nan),
            spread(s, np.nan),
            spread(d, np.nan),
            spread(cls, -1),
            spread(loo1, 0),
            spread(d_code1, 0),
            _slots_are_keys,
        )
    locate: Callable[[IntArray], IntArray]
    if space <= SPARSE_CELLS:
        slot = np.full(space, -1, dtype=index_dtype(cells.keys.size))
        slot[cells.keys] = np.arange(cells.keys.size, dtype=slot.dtype)
        locate = slot.take
    else:
        locate = functools.partial(_found_among, cells.keys)
    return CellTables(p, s, d, cls, loo1, d_code1, locate)


def _found_among(keys: IntArray, wanted: IntArray) -> IntArray:
    """The slots of ``wanted`` among the sorted non-empty cells' ``keys``."""
    found: IntArray = np.searchsorted(keys, wanted)
    return found


def _slots_are_keys(keys: IntArray) -> IntArray:
    """The slots of keys in tables laid out one slot per cell: the keys themselves."""
    return keys
