"""The stream engine's items x raters matrix of label codes.

Pairs need every rating of an item, and the ratings of one item may be spread over the whole
input. When ``items x raters`` cells fit in the memory limit, the stream engine keeps one small
integer per cell (the raw label code, -1 for "not rated"): one byte per cell while there are
fewer than 128 distinct labels. The matrix is filled batch by batch (one gather and one
scatter per batch in the common case); it detects (item, rater) repeats across and within
batches. At the end every statistic is counted from it in slices of items, in raw codes (the
tables are put in domain order once, at the end): rater-pair tables from joint codes of
groups of raters, rater counts from their margins, and each item's counts summarised by one
integer key whose distinct values are the item count patterns.

A sparse matrix (at most one cell in :data:`SPARSE_FILL` rated) is counted from its filled
cells, read once in item order, instead of from every cell; a sparse design is not even held
as a matrix: its ratings are kept as long codes and sorted into those cells after the last
batch (:class:`_Store`).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Iterator, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from .._types import IntArray, release_freed_memory
from ..stats import PairTables
from ..stats.pairs import ItemGroups, PairCells, sparse_pairs
from ..stats.patterns import CountPatterns, digits, drop_pattern
from ._blocks import DuplicateInfo, Statistic, dedupe, empty_pairs, long_partial, repeats_info

__all__ = ["CodeMatrix", "MatrixModes", "MatrixStatistics"]

#: Cells counted per slice when the statistics are taken from the matrix.
SLICE_CELLS = 4_000_000
#: Ratings per slice when the ratings are read from the cells of a sparse matrix (a pass of
#: EM over them: a few calls a slice, and about 60 bytes a rating of temporaries).
SLICE_RATINGS = 1_000_000
_MARK = 127  # markers written to detect repeats within a batch fit in int8
#: Cells after the matrix that take the rows of a batch without a rating (missing labels).
SCRATCH = 1 << 20
#: The statistics are counted from the filled cells (long codes, six to nine bytes each)
#: instead of every cell when at most one cell in this many holds a rating.
SPARSE_FILL = 16


def _dtype_for(n_labels: int) -> npt.DTypeLike:
    if n_labels < 127:
        return np.int8
    if n_labels < 32_767:
        return np.int16
    return np.int32


def _shifted(block: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """A slice of the matrix (items x raters, -1 = not rated) as codes + 1, raters x items,
    contiguous (0 = not rated): what every count from the matrix reads. Two bytes a cell
    while the codes fit (int8 and int16 cells), else four (65,535 labels and more, e.g.
    continuous scores).

    >>> _shifted(np.array([[70_000, -1]], dtype=np.int32)).ravel().tolist()
    [70001, 0]
    """
    dtype = np.uint16 if block.dtype.itemsize <= 2 else np.uint32
    out: npt.NDArray[Any] = np.ascontiguousarray((block + 1).T.astype(dtype))
    return out


#: How the ratings are held: ``"auto"`` keeps a sparse design's ratings as long codes and
#: moves them into a matrix if they end dense; ``"matrix"`` and ``"store"`` hold them one way.
Storage = Literal["auto", "matrix", "store"]
#: Whether the counts read the filled cells or every cell of a matrix (``"auto"``: the filled
#: cells when at most one cell in :data:`SPARSE_FILL` holds a rating).
Reading = Literal["auto", "cells", "every cell"]
#: How rater pairs are counted: column by column (while every pair's table fits in 4M
#: cells), from long codes, or the cheaper (``"auto"``).
PairMethod = Literal["auto", "columns", "long"]


@dataclasses.dataclass(frozen=True, slots=True)
class MatrixModes:
    """How a :class:`CodeMatrix` holds and counts the ratings; ``"auto"`` chooses by cost.
    Every mode gives the same numbers; the benchmark of each is in ``docs/engines.md``.

    >>> MatrixModes(pairs="long")
    MatrixModes(storage='auto', reading='auto', pairs='long')
    """

    storage: Storage = "auto"
    reading: Reading = "auto"
    pairs: PairMethod = "auto"

    @property
    def sparse_fill(self) -> int:
        """One cell in this many at most holds a rating for the counts to read the cells."""
        return {"auto": SPARSE_FILL, "cells": 0, "every cell": 1 << 62}[self.reading]


@dataclasses.dataclass(frozen=True, slots=True)
class MatrixStatistics:
    """What :meth:`CodeMatrix.statistics` counts (None: not asked for).

    Attributes
    ----------
    item_counts : ndarray (n_items, q) or sparse CSR, or None
    rater_counts : ndarray (n_raters, q) or None
    pairs : PairTables, PairCells or None
    patterns : CountPatterns or None
    """

    item_counts: Any
    rater_counts: IntArray | None
    pairs: PairTables | PairCells | None
    patterns: CountPatterns | None


#: Most cells of one joint table of a group of raters (16-bit keys).
JOINT_CELLS = 1 << 16


class _PairCounter:
    """Every rater pair's (q+1) x (q+1) table, counted slice by slice from the matrix.

    Codes are shifted by one (0 = not rated). The raters are split into groups of ``g``
    with ``(q+1)^(2g)`` at most :data:`JOINT_CELLS`; for each two groups, the joint table of
    their raters' codes is counted in one ``bincount`` of 16-bit keys, and at the end every
    pair's table is a margin of one joint table. With 10 raters and 5 categories that is 6
    counts of one key per item instead of 45 (one per pair). Without room for two raters
    per group, the pairs are counted one rater against the later ones at a time.
    """

    def __init__(self, r: int, q: int) -> None:
        self.r, self.q = r, q
        base = q + 1
        g = 1
        while base ** (2 * (g + 1)) <= JOINT_CELLS:
            g += 1
        self.grouped = g > 1
        self.groups = [list(range(lo, min(r, lo + g))) for lo in range(0, r, g)]
        n = len(self.groups)
        self.combos = [(0, 0)] if n == 1 else list(itertools.combinations(range(n), 2))
        self.joints: list[IntArray] = []
        if self.grouped:
            for i, j in self.combos:
                k = len(self.groups[i]) + (len(self.groups[j]) if j != i else 0)
                self.joints.append(np.zeros(base**k, dtype=np.int64))
        self.acc = np.zeros((r, r, base * base), dtype=np.int64)
        #: Each group's codes, slice by slice, when kept (:meth:`keep_codes`).
        self.kept: list[list[npt.NDArray[np.uint16]]] | None = None

    def keep_codes(self) -> None:
        """Keep each item's group codes (two bytes per item and group of raters) for sums
        over each item's ratings later (:meth:`group_sums`)."""
        if self.grouped:
            self.kept = [[] for _ in self.groups]

    def group_sums(self, values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64] | None:
        """Per item, the sum over its raters of ``values[rater, code + 1]`` (0 = not rated
        adds ``values[rater, 0]``), from the kept group codes: one gather per group of
        raters and slice; None when the codes were not kept."""
        if self.kept is None:
            return None
        base = self.q + 1
        tables = []
        for members in self.groups:
            # The sum of the group's values for every joint code, first rater most
            # significant (as the codes are formed).
            table = np.zeros(base ** len(members), dtype=np.float64)
            for k, a in enumerate(members):
                digit = (np.arange(table.size) // base ** (len(members) - 1 - k)) % base
                table += values[a].take(digit)
            tables.append(table)
        n = sum(int(part.size) for part in self.kept[0])
        out = np.zeros(n, dtype=np.float64)
        lo = 0
        for slices in zip(*self.kept, strict=True):  # slice by slice: small temporaries
            hi = lo + int(slices[0].size)
            part = out[lo:hi]
            for table, codes in zip(tables, slices, strict=True):
                part += table.take(codes)
            lo = hi
        return out

    def add(self, block: npt.NDArray[Any]) -> None:
        """Count the pairs of one slice of codes (items x raters, -1 = not rated)."""
        self.add_shifted(_shifted(block))

    def add_shifted(self, shifted: npt.NDArray[np.uint16]) -> None:
        """Count the pairs of one slice of codes + 1 (raters x items, 0 = not rated)."""
        if not self.grouped:
            _count_pairs_one_by_one(shifted, self.q, self.acc)
            return
        base = self.q + 1
        codes = []  # each group's raters as one code, first rater most significant
        for members in self.groups:
            code = shifted[members[0]].copy()
            for a in members[1:]:
                code *= np.uint16(base)
                code += shifted[a]
            codes.append(code)
        if self.kept is not None:
            for kept, code in zip(self.kept, codes, strict=True):
                kept.append(code)
        for (i, j), joint in zip(self.combos, self.joints, strict=True):
            if j == i:
                keys = codes[i]
            else:
                keys = codes[i] * np.uint16(base ** len(self.groups[j])) + codes[j]
            joint += np.bincount(keys, minlength=joint.size)

    def tables(self) -> IntArray:
        """The counts, shape (r, r, (q+1)^2), filled for ``a < b``."""
        if not self.grouped:
            return self.acc
        base = self.q + 1
        done = np.zeros((self.r, self.r), dtype=bool)
        for (i, j), joint in zip(self.combos, self.joints, strict=True):
            members = self.groups[i] + (self.groups[j] if j != i else [])
            k = len(members)
            table = joint.reshape((base,) * k)
            for x, y in itertools.combinations(range(k), 2):
                a, b = members[x], members[y]
                if done[a, b]:
                    continue
                done[a, b] = True
                other = tuple(axis for axis in range(k) if axis not in (x, y))
                self.acc[a, b] += table.sum(axis=other).reshape(-1)
        return self.acc


def _count_pairs_one_by_one(shifted: npt.NDArray[Any], q: int, acc: IntArray) -> None:
    """Add every rater pair's (q+1) x (q+1) table of a slice to ``acc`` (r, r, (q+1)^2).

    ``shifted`` holds the codes + 1 (raters x items, 0 = not rated). For each rater ``a``,
    the keys of all pairs ``(a, b > a)`` are formed at once (``b``'s offset, ``a``'s code,
    ``b``'s code) and counted in one ``bincount``; the keys are 16-bit when they fit, which
    halves the memory traffic.
    """
    r = shifted.shape[0]
    cells = (q + 1) * (q + 1)
    dtype = np.uint16 if (r - 1) * cells < (1 << 16) else np.int64
    shifted = shifted.astype(dtype, copy=False)
    for a in range(r - 1):
        m = r - a - 1
        offsets = (np.arange(m, dtype=dtype) * dtype(cells))[:, None]
        keys = shifted[a] * dtype(q + 1) + shifted[a + 1 :] + offsets
        acc[a, a + 1 :] += np.bincount(keys.ravel(), minlength=m * cells).reshape(m, cells)


class _Tally:
    """Item keys, rater-pair tables and rater counts of the leading items of the matrix, in
    raw label codes, counted slice by slice.

    Each item's key holds its count of each raw label as the digits of a number in base
    ``raters + 1``; the pair tables and rater counts are those of :class:`_PairCounter` (or
    per-rater counts). The tally can start while batches are still coming (items that no
    later batch touches, when the input is ordered by item): the matrix drops it if a later
    batch writes below ``upto`` or the raters, labels or cell type change.
    """

    def __init__(self, r: int, n_raw: int, *, keys: bool, pairs: bool, raters: bool) -> None:
        self.r, self.n_raw = r, n_raw
        self.with_keys = keys
        self.base = r + 1
        self.key_dtype: type[np.signedinteger[Any]] = (
            np.int32 if n_raw * math.log2(self.base) < 31 else np.int64
        )
        # Shifted raw code -> the key's part (base ** raw code); 0 = not rated adds nothing.
        self.place = np.zeros(n_raw + 1 if keys else 0, dtype=self.key_dtype)
        if keys:
            self.place[1:] = np.power(np.int64(self.base), np.arange(n_raw, dtype=np.int64))
        self.keys: list[npt.NDArray[Any]] = []
        # Small key spaces: patterns numbered as they are first seen, slice by slice (no keys
        # kept; at the end nothing is left to do). Else the keys are kept for the end.
        space = self.base**n_raw if keys else 0
        self.lookup = np.full(space, -1, dtype=np.int32) if 0 < space <= 1 << 22 else None
        self.found: list[npt.NDArray[Any]] = []  # keys of the patterns, in pattern order
        self.n_found = 0
        self.weights = np.zeros(0, dtype=np.int64)
        self.index: list[npt.NDArray[np.int32]] = []
        self.counter = _PairCounter(r, n_raw) if pairs else None
        if self.counter is not None:
            self.counter.keep_codes()
        self.rater_acc = np.zeros((r, n_raw + 1), dtype=np.int64) if raters else None
        self.upto = 0

    @staticmethod
    def fits(r: int, n_raw: int) -> bool:
        """Whether the item keys fit in 64 bits."""
        return n_raw * math.log2(r + 1) < 62

    def count(self, mat: npt.NDArray[Any], lo: int, hi: int, cells: _Cells | None = None) -> None:
        """Count items ``lo:hi`` (``lo`` is where the tally stands), from the matrix or from
        its filled ``cells`` (same slices, same numbers)."""
        assert lo == self.upto
        r = self.r
        if cells is not None:
            self._count_cells(cells, lo, hi)
            return
        for a, b in _steps(lo, hi, max(1, SLICE_CELLS // max(r, 1))):
            # raters x items, raw code + 1 (0 = not rated)
            shifted = _shifted(mat[a:b, :r])
            if self.with_keys:
                keys: npt.NDArray[Any] = np.zeros(b - a, dtype=self.key_dtype)
                for row in shifted:
                    keys += self.place.take(row)
                if self.lookup is None:
                    self.keys.append(keys)
                else:
                    self._number(keys)
            if self.counter is not None:
                self.counter.add_shifted(shifted)
            if self.rater_acc is not None:
                for j in range(r):
                    self.rater_acc[j] += np.bincount(shifted[j], minlength=self.n_raw + 1)
        self.upto = hi

    def _count_cells(self, cells: _Cells, lo: int, hi: int) -> None:
        """:meth:`count` from the filled cells: each item's key is the sum of its cells'
        places (one ``reduceat`` over the cells in item order), rater counts one
        ``bincount``. The rater counts of "not rated" (column 0) are left at 0: only the
        labels are read from them."""
        assert self.counter is None  # pairs column by column read the matrix
        width = self.n_raw + 1
        for a, b in _steps(lo, hi, max(1, SLICE_CELLS // max(self.r, 1))):
            item, rater, code = cells.rows(a, b)
            code += 1
            if self.with_keys:
                keys: npt.NDArray[Any] = np.zeros(b - a, dtype=self.key_dtype)
                if item.size:
                    starts = np.flatnonzero(np.r_[True, item[1:] != item[:-1]])
                    keys[item[starts]] = np.add.reduceat(self.place.take(code), starts)
                if self.lookup is None:
                    self.keys.append(keys)
                else:
                    self._number(keys)
            if self.rater_acc is not None:
                flat = np.bincount(rater * width + code, minlength=self.r * width)
                self.rater_acc += flat.reshape(self.r, width)
        self.upto = hi

    def _number(self, keys: npt.NDArray[Any]) -> None:
        """Pattern numbers of one slice's keys (new keys numbered in order of value)."""
        assert self.lookup is not None
        mult = np.bincount(keys, minlength=self.lookup.size)
        seen = np.flatnonzero(mult)
        new = seen[self.lookup[seen] < 0]
        if new.size:
            self.lookup[new] = np.arange(self.n_found, self.n_found + new.size, dtype=np.int32)
            self.found.append(new)
            self.n_found += int(new.size)
            self.weights = np.r_[self.weights, np.zeros(new.size, dtype=np.int64)]
        self.weights[self.lookup[seen]] += mult[seen]
        self.index.append(self.lookup.take(keys))

    def patterns(self, n_raw: int) -> CountPatterns:
        """The item patterns of the items counted (rows in raw label order)."""
        if self.lookup is None:
            keys = (
                np.concatenate(self.keys)
                if len(self.keys) > 1
                else self.keys[0]
                if self.keys
                else np.zeros(0, dtype=self.key_dtype)
            )
            return CountPatterns.from_keys(keys, self.base, n_raw)
        found = np.concatenate(self.found) if self.found else np.zeros(0, dtype=np.int64)
        index = np.concatenate(self.index) if len(self.index) > 1 else self.index[0]
        weights = self.weights
        empty = int(self.lookup[0]) if self.lookup.size else -1
        if empty >= 0:  # items without a rating (key 0): no pattern, index -1
            index, keep = drop_pattern(index, found.size, empty)
            found, weights = found[keep], weights[keep]
        return CountPatterns(digits(found, self.base, n_raw), index, weights)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _Cells:
    """The filled cells of the matrix as long codes, read row by row: items increasing,
    raters increasing within an item (the order of the cells, and of a ``bincount`` over
    them)."""

    item: npt.NDArray[Any]  # int32 (int64 from 2**31 items)
    rater: npt.NDArray[Any]  # int8, int16 or int32: the fewest bytes the raters need
    code: npt.NDArray[Any]  # raw label codes, the matrix's cell type

    def span(self, lo: int, hi: int) -> tuple[int, int]:
        """Positions of the cells of items ``lo:hi``."""
        # bounds in the items' own type: no converted copy of the items per call
        a, b = np.searchsorted(self.item, np.array((lo, hi), dtype=self.item.dtype))
        return int(a), int(b)

    def runs(self, n_items: int, size: int | None = None) -> list[tuple[int, int, int, int]]:
        """Runs ``(lo, hi, a, b)`` of whole items ``lo:hi``, cells ``a:b``, of about
        ``size`` (default :data:`FINISH_ROWS`) cells each (the temporaries of a count over
        the cells, eight bytes a cell and more, taken a run at a time)."""
        runs = _item_runs(self.code.size, n_items, size or FINISH_ROWS)
        return [(lo, hi, *self.span(lo, hi)) for lo, hi in runs]

    def rows(self, lo: int, hi: int) -> tuple[IntArray, IntArray, IntArray]:
        """Item (relative to ``lo``), rater and raw code (int64) of the cells of items
        ``lo:hi``."""
        a, b = self.span(lo, hi)
        item = self.item[a:b].astype(np.int64)
        item -= lo
        return item, self.rater[a:b].astype(np.int64), self.code[a:b].astype(np.int64)


def _item_runs(n_ratings: int, n_items: int, size: int = 0) -> list[tuple[int, int]]:
    """Item codes ``0 .. n_items - 1`` cut into runs ``(lo, hi)`` of about ``size``
    (default :data:`FINISH_ROWS`) of the ``n_ratings`` ratings each (the items spread evenly
    over the codes); one run when they are fewer.

    >>> _item_runs(10, 4), _item_runs(3 * FINISH_ROWS, 6), _item_runs(10, 4, 5)
    ([(0, 4)], [(0, 2), (2, 4), (4, 6)], [(0, 2), (2, 4)])
    """
    runs = max(1, min(-(-int(n_ratings) // (size or FINISH_ROWS)), max(n_items, 1)))
    bounds = [int(x) for x in np.linspace(0, n_items, runs + 1).round()]
    return list(itertools.pairwise(bounds))


def _rated(part: tuple[Any, Any, Any, int | None, IntArray]) -> tuple[Any, Any, Any]:
    """The item, rater and label codes of a held part's ratings (missing labels left out)."""
    item, rater, label, _, miss = part
    if not miss.size:
        return item, rater, label
    at = _rated_at(item.size, miss)
    return item[at], rater[at], label[at]


def _rated_at(size: int, miss: IntArray) -> IntArray:
    """Positions of the ``size`` rows that hold a rating (``miss``: those without one)."""
    keep = np.ones(size, dtype=bool)
    keep[miss] = False
    return np.flatnonzero(keep)


def _run_keys(run: list[tuple[Any, Any, Any]], item_shift: int, rater_shift: int) -> IntArray:
    """The sorted keys ``item << item_shift | rater << rater_shift | label`` of a run's
    ratings (the label left out when ``rater_shift`` is 0: the (item, rater) cells)."""
    out: list[IntArray] = []
    for item, rater, label in run:
        part = np.left_shift(item, item_shift, dtype=np.int64)
        part |= np.left_shift(rater, rater_shift, dtype=np.int64)
        if rater_shift:
            part |= label
        out.append(part)
    key = _joined(out, np.int64)
    del out
    key.sort()
    return key


def _repeats(key: IntArray, low_bits: int = 0) -> bool:
    """Whether sorted keys hold a value twice (their ``low_bits`` left out), compared a
    million at a time (no temporary of the keys' size).

    >>> _repeats(np.array([8, 13, 16])), _repeats(np.array([8, 13, 16]), 3)
    (False, True)
    """
    step, last = 1 << 20, key.size - 1
    for lo in range(0, last, step):
        hi = min(lo + step, last)
        if bool(((key[lo:hi] ^ key[lo + 1 : hi + 1]) >> low_bits == 0).any()):
            return True
    return False


def _joined(parts: list[npt.NDArray[Any]], dtype: npt.DTypeLike) -> npt.NDArray[Any]:
    if not parts:
        return np.zeros(0, dtype=dtype)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _steps(lo: int, hi: int, step: int) -> Iterator[tuple[int, int]]:
    for a in range(lo, hi, step):
        yield a, min(hi, a + step)


@dataclasses.dataclass(frozen=True, slots=True)
class _Plan:
    """Which statistics :meth:`CodeMatrix.statistics` counts, and how: item keys (patterns
    and item counts), pairs column by column or from long codes, item counts per cell."""

    items: bool
    patterns: bool
    pairs: bool
    raters: bool
    by_key: bool
    by_columns: bool
    long_pairs: bool
    cell_items: bool


def _long_pairs(
    block: npt.NDArray[Any], raters: Any, categories: tuple[Any, ...]
) -> PairTables | PairCells:
    """The pair tables of a slice of domain codes (items x raters, -1 = not rated), from
    its ratings as long codes."""
    it, rt = np.nonzero(block >= 0)
    part = long_partial(
        it.astype(np.int64),
        rt.astype(np.int64),
        block[it, rt].astype(np.int64),
        np.zeros(it.size, dtype=np.int64),
        n_groups=block.shape[0],
        raters=raters,
        categories=categories,
        duplicates="raise",
        statistics=("pairs",),
        sparse=False,
    )
    assert part.pair_tables is not None  # no repeats in a matrix
    return part.pair_tables


def _cell_counts(block: npt.NDArray[Any], q: int) -> IntArray:
    """Each item's counts of a slice of domain codes (items x raters, -1 = not rated)."""
    rows = block.shape[0]
    offsets = np.arange(1, rows * (q + 1), q + 1, dtype=np.int64)
    counts = np.bincount((offsets[:, None] + block).ravel(), minlength=rows * (q + 1))
    out: IntArray = counts.reshape(rows, q + 1)[:, 1:]
    return out


def _sparse_cell_counts(block: npt.NDArray[Any], q: int) -> Any:
    """:func:`_cell_counts` as a sparse CSR array, built from the rated cells only (never a
    dense slice: with many categories, e.g. continuous scores, that would not fit).

    >>> _sparse_cell_counts(np.array([[0, 0, -1], [2, -1, 0]]), 3).toarray().tolist()
    [[2, 0, 0], [1, 0, 1]]
    """
    from scipy import sparse as sp

    rows, cols = np.nonzero(block >= 0)
    codes = block[rows, cols].astype(np.int64)
    ones = np.ones(rows.size, dtype=np.int64)
    # COO input sums the repeated (item, code) entries
    return sp.csr_array((ones, (rows, codes)), shape=(block.shape[0], q), dtype=np.int64)


#: Bytes per rating held by the sparse store: its codes as read (four bytes an item code,
#: one or two a rater's and a label's) while they come in; once sorted, six to nine a cell
#: (item in four bytes, rater and label in the fewest their codes need) and, while a run of
#: items is sorted, about 17 bytes a rating of the run.
STORE_BYTES = 10
#: Ratings of the sparse store sorted into cells at once: a larger store is sorted a run of
#: items at a time, so its sort keys never take eight bytes a rating of the whole input.
FINISH_ROWS = 8_000_000
#: Batches held by the sparse store between two hand-backs of the heap's freed memory.
TRIM_PARTS = 16
#: Cells counted into the pair tables at once: a cell of an item of ``m`` ratings makes
#: ``(m - 1) / 2`` pairs, each a few int64 temporaries (on two threads), so a run of pairs
#: takes several times the bytes of a run of cells.
PAIR_ROWS = FINISH_ROWS // 2


def _narrow(codes: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """Non-negative codes in the smallest signed integer type that holds them (a batch's
    rater and label codes in one or two bytes, item codes in four while they fit).

    >>> _narrow(np.array([3, 200], dtype=np.int64)).dtype, _narrow(np.array([3])).dtype
    (dtype('int16'), dtype('int8'))
    """
    if not codes.size:
        return codes
    top = int(codes.max())
    for kind in (np.int8, np.int16, np.int32):
        if top <= np.iinfo(kind).max:
            return codes if codes.dtype.itemsize <= np.dtype(kind).itemsize else codes.astype(kind)
    return codes


class _Store:
    """The ratings of a sparse matrix as long codes, batch by batch (see
    :meth:`CodeMatrix.reserve`); :meth:`finish` sorts them into :class:`_Cells` once the
    input is read and resolves repeated (item, rater) pairs as the matrix does.

    Each batch is kept whole (its codes, its first row and where its missing labels are):
    nothing is gathered per batch; the rows without a rating sort after every cell."""

    def __init__(self) -> None:
        # (item, rater, label, first row or None when not known, positions without a rating)
        self.parts: list[tuple[Any, Any, Any, int | None, IntArray]] = []
        self.rows = 0  # rows held, missing labels included
        self.size = 0  # ratings held
        self.rows_known = True  # False once cells of a matrix (rows not kept) came in

    def add(self, item: Any, rater: Any, label: Any, row0: int | None, miss: IntArray) -> None:
        self.parts.append((_narrow(item), _narrow(rater), _narrow(label), row0, miss))
        self.rows += int(item.size)
        self.size += int(item.size - miss.size)
        if len(self.parts) % TRIM_PARTS == 0:
            # the batches' temporaries freed between the parts kept: handed back now and
            # then (at 100M realistic ratings 180 MB by the end of the read)
            release_freed_memory()

    def finish(
        self, duplicates: str, n_items: int, n_raters: int, n_labels: int
    ) -> tuple[_Cells | None, int, DuplicateInfo | None]:
        """The cells in item order, the ratings dropped as repeats, and under ``"raise"``
        the repeats found (then no cells).

        One sort of 64-bit keys (item, rater, label bits side by side: split by masks and
        shifts, not divisions) in the common case; with repeats (or keys too wide for 63
        bits), the rows decide which rating is kept, as
        :func:`~accord.engines._blocks.dedupe` does."""
        r = max(n_raters, 1)
        label_bits, rater_bits = (max(n_labels, 1) - 1).bit_length(), (r - 1).bit_length()
        if max(n_items - 1, 0).bit_length() + rater_bits + label_bits > 62:
            return self._resolve(duplicates, r)
        spans = _item_runs(self.rows, n_items)
        split = len(spans) > 1
        runs = self._split(spans) if split else [[_rated(part) for part in self.parts]]
        # every run is checked for repeats before any is let go: the ratings are all held
        # while repeats are resolved (by their order: "first" and "last"); one run's keys
        # are kept for its cells
        kept = None
        for run in runs:
            key = _run_keys(run, rater_bits + label_bits, label_bits)
            if _repeats(key, label_bits):
                if split:  # in the runs, in the order read: no row known
                    empty = np.zeros(0, np.int64)
                    self.parts = [(i, j, lab, None, empty) for run in runs for i, j, lab in run]
                return self._resolve(duplicates, r)
            kept = None if split else key
            del key
        self.parts = []
        # The cells written run after run into arrays of every rating (no run kept to be
        # joined: the runs and their join would take the cells' bytes twice).
        cells = _Cells(
            np.empty(self.size, dtype=np.int64 if n_items > 1 << 31 else np.int32),
            np.empty(self.size, dtype=_dtype_for(n_raters)),
            np.empty(self.size, dtype=_dtype_for(n_labels)),
        )
        at = 0
        for k in range(len(runs)):
            key = (
                kept
                if kept is not None
                else _run_keys(runs[k], rater_bits + label_bits, label_bits)
            )
            kept = None
            runs[k] = []
            if split:  # the run's ratings handed back as the cells grow
                release_freed_memory()
            end = at + key.size
            np.bitwise_and(key, (1 << label_bits) - 1, out=cells.code[at:end], casting="unsafe")
            key >>= label_bits  # the cells: item and rater
            np.bitwise_and(key, (1 << rater_bits) - 1, out=cells.rater[at:end], casting="unsafe")
            key >>= rater_bits
            cells.item[at:end] = key
            at = end
            del key
        return cells, 0, None

    def _split(self, spans: list[tuple[int, int]]) -> list[list[tuple[Any, Any, Any]]]:
        """The held ratings (missing labels left out) of each run of items ``spans``, each
        run's in the order they were read; the parts let go as they are split, and from then
        on no row of a rating is known. One pass over the ratings (a pass a run read every
        part again: at 100M realistic ratings, 13 runs, 26 passes)."""
        tops = np.array([hi for _, hi in spans[:-1]], dtype=np.int64)
        runs: list[list[tuple[Any, Any, Any]]] = [[] for _ in spans]
        parts, self.parts = self.parts[::-1], []
        self.rows_known = False
        while parts:  # each part let go once its ratings are copied into the runs
            item, rater, label = _rated(parts.pop())
            run = np.searchsorted(tops, item, side="right").astype(np.min_scalar_type(len(spans)))
            order = np.argsort(run, kind="stable")  # a radix sort of small integers
            cuts = np.r_[0, np.cumsum(np.bincount(run, minlength=len(spans)))]
            for k in np.flatnonzero(np.diff(cuts)):
                sel = order[cuts[k] : cuts[k + 1]]
                runs[k].append((item[sel], rater[sel], label[sel]))
            del item, rater, label, order, run
        return runs

    def _resolve(self, duplicates: str, r: int) -> tuple[_Cells | None, int, DuplicateInfo | None]:
        columns: list[list[IntArray]] = [[], [], [], []]
        for item, rater, label, row0, miss in self.parts:
            at = _rated_at(item.size, miss)
            row = np.full(at.size, -1, dtype=np.int64) if row0 is None else row0 + at
            for column, values in zip(columns, (item[at], rater[at], label[at], row), strict=True):
                column.append(np.asarray(values, dtype=np.int64))
        item, rater, label, row = (_joined(column, np.int64) for column in columns)
        self.parts = []
        key = item * r + rater
        chosen, dropped, repeats = dedupe(key, row, duplicates)
        if repeats is not None:
            info = repeats_info(*repeats, r)
            # Rows of ratings that came from a matrix are not known: not listed.
            examples = tuple(
                (i, j, tuple(x for x in rows if x >= 0)) for i, j, rows in info.examples
            )
            return None, 0, DuplicateInfo(examples, info.n_pairs)
        if chosen is None:  # no repeat
            chosen = np.arange(key.size)
        order = chosen[np.argsort(key[chosen], kind="stable")]
        wide = item.size and int(item.max()) >= 1 << 31
        cells = _Cells(
            item[order].astype(np.int64 if wide else np.int32),
            rater[order].astype(_dtype_for(r)),
            label[order],
        )
        return cells, dropped, None


def _from_cells(
    cells: _Cells,
    remap: IntArray,
    plan: _Plan,
    raters: Any,
    categories: tuple[Any, ...],
    sparse: bool,
    n_items: int,
) -> tuple[Any, PairTables | PairCells | None]:
    """:meth:`CodeMatrix._by_cells` from the filled cells: item counts per cell and the pair
    tables, a run of items at a time (the cells are in item order, raters increasing:
    already grouped by item; a run's codes widened to int64 take no more than
    :data:`FINISH_ROWS` cells' worth)."""
    q = len(categories)
    if not (plan.long_pairs or plan.cell_items):
        return None, None
    pairs: PairTables | PairCells | None = None
    kind = PairCells if sparse_pairs(len(raters), q) else PairTables
    counts: list[Any] = []
    for lo, hi, a, b in cells.runs(n_items, PAIR_ROWS if plan.long_pairs else None):
        label = remap[cells.code[a:b]]
        ok = np.flatnonzero(label >= 0)
        item, rater, label = cells.item[a:b][ok], cells.rater[a:b][ok], label[ok]
        if plan.long_pairs:
            groups = ItemGroups.from_sorted(item, rater, label)
            run = kind.from_groups(groups, raters, categories)
            pairs = run if pairs is None else pairs.merge(run)
            del groups
        if plan.cell_items:
            counts.append(_run_counts(item.astype(np.int64) - lo, label, hi - lo, q, sparse))
    release_freed_memory()  # the runs' temporaries, spread over the heaps of two threads
    if not plan.cell_items:
        return None, pairs
    if sparse:
        from scipy import sparse as sp

        return sp.vstack(counts, format="csr", dtype=np.int64), pairs
    return np.concatenate(counts) if len(counts) > 1 else counts[0], pairs


def _run_counts(item: IntArray, label: IntArray, n_items: int, q: int, sparse: bool) -> Any:
    """Counts per (item, label) of a run of items (codes from 0): dense (n_items, q), or a
    sparse CSR array."""
    if sparse:
        from scipy import sparse as sp

        ones = np.ones(item.size, dtype=np.int64)
        # COO input sums the repeated (item, label) entries
        return sp.csr_array((ones, (item, label)), shape=(n_items, q), dtype=np.int64)
    flat = np.bincount(item * q + label, minlength=n_items * q)
    return flat.reshape(n_items, q)


class CodeMatrix:
    """Items x raters label codes, growing with the dictionaries.

    Parameters
    ----------
    limit : int
        Bytes the matrix may take; :meth:`reserve` returns False beyond it.
    modes : MatrixModes, optional
        How the ratings are held and counted (default: each chosen by cost).
    """

    def __init__(self, limit: int, modes: MatrixModes = MatrixModes()) -> None:
        self.limit = limit
        self.modes = modes
        self._store: _Store | None = None
        # The cells, then SCRATCH cells where the rows of a batch without a rating (missing
        # label) are written, so a batch is written in one scatter without compressing it.
        self._buf: npt.NDArray[Any] = np.full(SCRATCH, -1, dtype=np.int8)
        self.mat: npt.NDArray[Any] = self._buf[:0].reshape(0, 0)
        self.n_items = 0
        self.n_raters = 0
        self.n_labels = 0
        self.written = 0
        # Statistics counted while batches come in (see :meth:`advance`).
        self._tally: _Tally | None = None
        self._codes: _PairCounter | None = None  # kept group codes, for :meth:`rating_sums`
        self._cells: _Cells | None = None  # the filled cells, once read (see :meth:`cells`)
        self._tally_plan: tuple[bool, bool] | None = None  # (pairs, raters) or None: off
        self._tally_dropped = False

    def plan_tally(self, *, pairs: bool, raters: bool) -> None:
        """Count item keys (and pairs, rater counts) of finished items during the input:
        see :meth:`advance`."""
        self._tally_plan = (pairs, raters)

    def _drop_tally(self) -> None:
        self._tally = None
        self._tally_dropped = True

    def advance(self, upto: int) -> None:
        """Count the items below ``upto`` (which no later batch should touch: the current
        batch's smallest item code when the input is ordered by item) a slice at a time.

        A guess: a later batch that writes below the tally drops it, and everything is
        counted at the end as without it.
        """
        if self._tally_plan is None or self._tally_dropped or self._store is not None:
            return
        step = max(1, SLICE_CELLS // max(self.n_raters, 1))
        tally = self._tally
        if tally is None:
            if upto < step or not _Tally.fits(self.n_raters, self.n_labels):
                return
            pairs, raters = self._tally_plan
            by_columns = pairs and self._pairs_by_columns(self.n_labels)
            if pairs and not by_columns:
                self._drop_tally()  # pairs are counted from long codes at the end
                return
            tally = self._tally = _Tally(
                self.n_raters,
                self.n_labels,
                keys=True,
                pairs=by_columns,
                raters=raters and not by_columns,
            )
        upto = min(upto, self.n_items)
        if upto - tally.upto >= step:
            tally.count(self.mat, tally.upto, tally.upto + (upto - tally.upto) // step * step)

    def reserve(
        self, n_items: int, n_raters: int, n_labels: int, expect_items: int = 0, rows: int = 0
    ) -> bool:
        """Make room for the codes; False when the matrix would pass the limit.

        ``expect_items`` is a guess of the final number of items: when the matrix grows, it
        grows to that many rows at once (if it fits), saving copies of the matrix. ``rows``
        (the rows read so far, this batch included) bounds the ratings: when at most one
        cell in :data:`SPARSE_FILL` could hold one, the matrix (storage ``"auto"``) keeps the
        ratings' long codes instead (:data:`STORE_BYTES` a rating, sorted into cells at
        :meth:`finish`), and keeps them from then on.
        """
        if self._store is None and self._sparse_from(n_items, n_raters, rows):
            self._to_store()
        if self._store is not None:
            self.n_items, self.n_raters, self.n_labels = n_items, n_raters, n_labels
            return rows * STORE_BYTES <= self.limit
        dtype = np.dtype(_dtype_for(n_labels))
        rows, cols = self.mat.shape
        need_rows = n_items > rows
        need_cols = n_raters > cols
        if self._tally is not None and (
            n_raters != self._tally.r or n_labels != self._tally.n_raw or need_cols
        ):
            self._drop_tally()  # new raters or labels: the tally's tables no longer fit
        self.n_labels = n_labels
        if not (need_rows or need_cols or dtype.itemsize > self.mat.dtype.itemsize):
            self.n_items, self.n_raters = n_items, n_raters
            return True
        if self._tally is not None and dtype.itemsize > self.mat.dtype.itemsize:
            self._drop_tally()
        new_rows = max(rows, n_items + n_items // 2 if need_rows else rows, 1024)
        if need_rows and expect_items > new_rows:
            new_cols_guess = max(cols, n_raters)
            if expect_items * new_cols_guess * dtype.itemsize <= self.limit:
                new_rows = expect_items
        new_cols = max(cols, n_raters + n_raters // 4 if need_cols else cols, 4)
        if new_rows * new_cols * dtype.itemsize > self.limit:
            new_rows, new_cols = max(rows, n_items), max(cols, n_raters)
            if new_rows * new_cols * dtype.itemsize > self.limit:
                return False
        self._cells = None
        buf = np.full(new_rows * new_cols + SCRATCH, -1, dtype=dtype)
        grown = buf[: new_rows * new_cols].reshape(new_rows, new_cols)
        grown[:rows, :cols] = self.mat
        self._buf, self.mat = buf, grown
        self.n_items, self.n_raters = n_items, n_raters
        return True

    def _sparse_from(self, n_items: int, n_raters: int, rows: int) -> bool:
        if self.modes.storage != "auto":
            return self.modes.storage == "store"
        return rows > 0 and rows * SPARSE_FILL <= n_items * n_raters

    def _to_store(self) -> None:
        """Hold the ratings as long codes from now on: the cells written so far move into
        the store (their rows are not known: earlier than any to come)."""
        store = _Store()
        if self.written:
            cells = self._read_cells()
            store.add(cells.item, cells.rater, cells.code, None, np.zeros(0, dtype=np.int64))
            store.rows_known = False
        self._store = store
        self._cells = None
        self._drop_tally()
        self._buf = np.zeros(0, dtype=np.int8)
        self.mat = self._buf.reshape(0, 0)

    def finish(self, duplicates: str) -> tuple[int, DuplicateInfo | None]:
        """After the last batch: the held long codes sorted into cells. Returns the ratings
        dropped as repeats, and under ``"raise"`` the repeats (as :meth:`put`)."""
        if self._store is None:
            return 0, None
        cells, dropped, repeats = self._store.finish(
            duplicates, self.n_items, self.n_raters, self.n_labels
        )
        self._cells = cells
        self.written = 0 if cells is None else int(cells.code.size)
        dense = self.written * SPARSE_FILL > self.n_items * self.n_raters
        if cells is not None and self.modes.storage == "auto" and dense:
            self._to_matrix(cells)  # dense after all (later batches filled it): a matrix
        return dropped, repeats

    def _to_matrix(self, cells: _Cells) -> None:
        """Write the held cells into a matrix, when it fits: the counts are then those of a
        matrix filled batch by batch."""
        store, self._store = self._store, None
        if not self.reserve(self.n_items, self.n_raters, self.n_labels):
            self._store = store  # too big: the counts read the cells
            return
        flat = cells.item.astype(np.int64) * self.mat.shape[1] + cells.rater
        self._buf[flat] = cells.code
        self._cells = None

    @property
    def rows_known(self) -> bool:
        """Whether the rows of every earlier rating are known (for a message on repeats)."""
        return self._store is not None and self._store.rows_known

    @property
    def nbytes(self) -> int:
        """Bytes held by the matrix (or its cells)."""
        if self._store is not None:
            return self._store.size * STORE_BYTES
        return int(self.mat.nbytes)

    # ------------------------------------------------------------------ filling
    def _within_batch_repeats(
        self, flat: IntArray, flat_view: npt.NDArray[Any]
    ) -> tuple[Any, bool]:
        """Mask of the rows that share a cell with another row of the same batch, and
        whether markers were written into the cells.

        A counting pass when the cells of the batch are close together (files ordered by
        item), else markers: each round writes ``position // 127**k % 127`` into the cells and
        reads it back; a row that reads another row's marker shares its cell. Two rows share
        every marker only if their positions are equal, so ``ceil(log_127(n))`` rounds find
        every repeat. The caller restores the cells afterwards.
        """
        n = flat.size
        lo, hi = int(flat.min()), int(flat.max())
        if hi - lo + 1 <= 8 * n:
            offsets = flat - lo
            counts = np.bincount(offsets, minlength=hi - lo + 1)
            if int(counts.max()) <= 1:
                return np.zeros(n, dtype=bool), False
            return counts[offsets] > 1, False
        positions = np.arange(n, dtype=np.int64)
        loser = np.zeros(n, dtype=bool)
        scale = 1
        while scale < n:
            marker = ((positions // scale) % _MARK).astype(flat_view.dtype)
            flat_view[flat] = marker
            loser |= flat_view[flat] != marker
            scale *= _MARK
        if not loser.any():
            return loser, True
        return np.isin(flat, flat[loser]), True

    def put_batch(
        self,
        item: npt.NDArray[Any],
        rater: npt.NDArray[Any],
        label: npt.NDArray[Any],
        miss: IntArray,
        row0: int,
        duplicates: str,
    ) -> tuple[int, DuplicateInfo | None]:
        """Write one batch of ratings: codes of every row, ``miss`` the positions of the rows
        without a rating (missing label), which are left out.

        The common case (no (item, rater) cell written twice) costs one gather, one scatter
        and a count of the filled cells of the rows the batch touches; anything else goes
        through :meth:`put`. Returns as :meth:`put`.
        """
        if self._store is not None:  # long codes; repeats are resolved at finish
            self._store.add(item, rater, label, row0, np.array(miss, dtype=np.int64))
            return 0, None
        if item.size == 0 or self._scatter(item, rater, label, miss):
            return 0, None
        at = _rated_at(item.size, miss)
        return self.put(
            item[at].astype(np.int64),
            rater[at].astype(np.int64),
            label[at].astype(np.int64),
            row0 + at,
            duplicates,
        )

    def _scatter(
        self,
        item: npt.NDArray[Any],
        rater: npt.NDArray[Any],
        label: npt.NDArray[Any],
        miss: IntArray,
    ) -> bool:
        """The common case of :meth:`put_batch`: the batch's cells are close together, none
        was rated before and no two rows share one; then the batch is written in one scatter
        and True returned. Otherwise nothing is written (False)."""
        n = int(item.size)
        cols = self.mat.shape[1]
        cells = self.mat.size
        n_miss = int(miss.size)
        i_lo, i_hi = int(item.min()), int(item.max()) + 1
        if self._tally is not None and i_lo < self._tally.upto:
            self._drop_tally()  # the input is not ordered by item: count at the end
        lo, hi = i_lo * cols, i_hi * cols
        local = hi - lo <= 8 * n
        if n_miss > SCRATCH or n_miss == n or not local:
            return False
        wide = cells + SCRATCH >= 1 << 31
        flat = np.multiply(item, cols, dtype=np.int64 if wide else np.int32)
        flat += rater
        if n_miss:
            flat[miss] = cells + np.arange(n_miss, dtype=flat.dtype)
        view = self._buf
        if int(view.take(flat).max()) >= 0:  # a cell rated by an earlier batch
            return False
        before = int(np.count_nonzero(view[lo:hi] >= 0))
        self._cells = None
        view[flat] = label
        if n_miss:
            view[cells : cells + n_miss] = -1
        if int(np.count_nonzero(view[lo:hi] >= 0)) - before != n - n_miss:
            # Two rows of the batch in one cell: undo, and sort it out row by row.
            view[flat] = -1
            return False
        self.written += n - n_miss
        return True

    def put(
        self,
        item: IntArray,
        rater: IntArray,
        label: IntArray,
        row: IntArray,
        duplicates: str,
    ) -> tuple[int, DuplicateInfo | None]:
        """Write one batch of ratings (raw label codes, no missing labels).

        Returns
        -------
        dropped : int
            Ratings dropped as repeats under ``"first"``/``"last"`` (including earlier
            ratings replaced under ``"last"``).
        repeats : DuplicateInfo or None
            Under ``"raise"``, the repeats found (the matrix is left unchanged).
        """
        if item.size == 0:
            return 0, None
        if self._tally is not None and int(item.min()) < self._tally.upto:
            self._drop_tally()
        cols = self.mat.shape[1]
        flat = item * cols + rater
        view = self._buf
        self._cells = None
        existing = view[flat]
        involved, marked = self._within_batch_repeats(flat, view)
        if marked:
            view[flat] = existing  # undo the markers
        earlier = existing >= 0
        involved = involved | earlier
        if not involved.any():
            view[flat] = label.astype(view.dtype, copy=False)
            self.written += int(flat.size)
            return 0, None
        if duplicates == "raise":
            # Rows of the batch in a repeated cell; an earlier batch's rating has no row here.
            keys = flat[involved]
            rows = row[involved]
            info = repeats_info(np.sort(keys), rows[np.argsort(keys, kind="stable")], cols)
            return 0, info
        sub = np.flatnonzero(involved)
        order = sub[np.lexsort((row[sub], flat[sub]))]
        keys = flat[order]
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        ends = np.r_[starts[1:], keys.size] - 1
        had = earlier[order[starts]]
        if duplicates == "first":
            chosen = order[starts[~had]]
            dropped = int(sub.size - chosen.size)
        else:
            chosen = order[ends]
            dropped = int(sub.size - chosen.size + had.sum())
        keep = ~involved
        keep[chosen] = True
        view[flat[keep]] = label[keep].astype(view.dtype, copy=False)
        self.written += int(keep.sum()) - int(had.sum() if duplicates == "last" else 0)
        return dropped, None

    # ---------------------------------------------------------------- counting
    def cells(self) -> _Cells | None:
        """The filled cells as long codes when the matrix is sparse (at most one cell in
        :data:`SPARSE_FILL` holds a rating), read once, a slice of items at a time; None
        otherwise (the counts then read every cell).

        With 10 ratings per item from a pool of 2,000 raters, 1 cell in 200 holds a rating:
        reading every cell once per statistic costs 200 times the ratings, the cells six to
        nine bytes per rating (9/16 of a byte per cell at most).
        """
        if self._store is not None:
            assert self._cells is not None, "finish() comes before the counts"
            return self._cells
        if self.written * self.modes.sparse_fill > self.n_items * self.n_raters:
            return None
        if self._cells is None:
            self._cells = self._read_cells()
        return self._cells

    def _read_cells(self) -> _Cells:
        """The filled cells of the matrix, a slice of items at a time."""
        cols = self.mat.shape[1]
        wide = self.n_items >= 1 << 31
        items, raters, codes = [], [], []
        for lo, hi in self._slices():
            block = self.mat[lo:hi].reshape(-1)  # whole rows: contiguous, no copy
            at = np.flatnonzero(block >= 0)
            codes.append(block[at])
            row, col = np.divmod(at, cols)
            row += lo
            items.append(row.astype(np.int64 if wide else np.int32))
            raters.append(col.astype(_dtype_for(cols)))
        joined = (
            _joined(x, dtype)
            for x, dtype in (
                (items, np.int64 if wide else np.int32),
                (raters, _dtype_for(cols)),
                (codes, self.mat.dtype),
            )
        )
        return _Cells(*joined)

    def filled(self) -> int:
        """Cells holding a rating."""
        cells = self.cells()
        if cells is not None:
            return int(cells.code.size)
        total = 0
        for lo, hi in self._slices():
            total += int(np.count_nonzero(self.mat[lo:hi, : self.n_raters] >= 0))
        return total

    def rated(self, remap: IntArray) -> tuple[IntArray, int]:
        """Kept ratings per rater, and how many items have one: what the read report needs
        when no statistic by category is asked for (no count per label)."""
        kept = np.r_[remap >= 0, False]  # a cell's raw code kept; -1 (not rated) reads False
        per_rater = np.zeros(self.n_raters, dtype=np.int64)
        items = 0
        cells = self.cells()
        if cells is not None:
            for _, _, a, b in cells.runs(self.n_items):  # runs of whole items
                ok = kept[cells.code[a:b]]
                per_rater += np.bincount(cells.rater[a:b][ok], minlength=self.n_raters)
                rated_items = cells.item[a:b][ok]
                if rated_items.size:  # in item order: count where the item changes
                    items += 1 + int(np.count_nonzero(rated_items[1:] != rated_items[:-1]))
            return per_rater, items
        for lo, hi in self._slices():
            block = kept[self.mat[lo:hi, : self.n_raters]]
            per_rater += block.sum(axis=0)
            items += int(np.count_nonzero(block.any(axis=1)))
        return per_rater, items

    def _slices(self) -> Iterator[tuple[int, int]]:
        step = max(1, SLICE_CELLS // max(self.n_raters, 1))
        for lo in range(0, self.n_items, step):
            yield lo, min(self.n_items, lo + step)

    def merge_labels(self, remap: IntArray) -> IntArray:
        """Make ``remap`` one-to-one on the labels present: raw labels that are one category
        (``"01"`` and ``"1"`` read as numbers) are rewritten in the cells as the first of
        them, and the others leave the remap (-1). Returns the remap to count with."""
        present = np.flatnonzero(remap >= 0)
        domain = remap[present]
        if int(np.bincount(domain).max(initial=0)) <= 1:  # no category read twice
            return remap
        canon = np.full(int(domain.max()) + 1, -1, dtype=np.int64)
        canon[domain[::-1]] = present[::-1]  # the first raw code of each category
        lut = np.arange(remap.size + 1, dtype=np.int64)
        lut[present] = canon[domain]
        lut[-1] = -1  # an empty cell (-1) stays empty
        cells = self._cells if self._store is not None else None
        if cells is not None:  # the held cells' codes rewritten
            self._cells = dataclasses.replace(cells, code=lut[cells.code])
        lut = lut.astype(self.mat.dtype)
        for lo, hi in self._slices() if cells is None else ():
            self.mat[lo:hi, : self.n_raters] = lut[self.mat[lo:hi, : self.n_raters]]
        if cells is None:
            self._cells = None
        self._drop_tally()  # counted before the merge: count again from the cells
        out = remap.copy()
        out[np.setdiff1d(present, canon[canon >= 0])] = -1
        return out

    def ratings(self, remap: IntArray) -> Iterator[tuple[IntArray, IntArray, IntArray, int]]:
        """(item, rater, domain label, end of slice) codes of the ratings, slice by slice:
        from the cells (a sparse matrix) in runs of whole items of about
        :data:`SLICE_RATINGS` ratings, else :data:`SLICE_CELLS` cells of the matrix at a
        time."""
        q = int(remap.max(initial=-1)) + 1
        lut = np.r_[remap, -1].astype(np.int8 if q < 127 else np.int32)
        cells = self.cells()
        if cells is not None:  # the same ratings in the same order, from the cells
            for lo, hi, _, _ in cells.runs(self.n_items, SLICE_RATINGS):
                item, rater, code = cells.rows(lo, hi)
                label = remap[code]
                ok = label >= 0
                yield item[ok] + lo, rater[ok], label[ok], hi
            return
        for lo, hi in self._slices():
            block = lut[self.mat[lo:hi, : self.n_raters]]
            it, rt = np.nonzero(block >= 0)
            label = block[it, rt].astype(np.int64)
            yield it.astype(np.int64) + lo, rt.astype(np.int64), label, hi

    def rating_sums(self, remap: IntArray, table: npt.NDArray[np.float64]) -> Any:
        """Per item code, the sum over its ratings of ``table[rater, domain label]``.

        Rater by rater: each rater's values are gathered through a row of raw codes + 1
        (``values[rater, 0]``, "not rated", is 0.0), so no long arrays of codes are formed.
        The terms of an item are added in rater order, as a ``bincount`` over the ratings in
        item-major order adds them.
        """
        r = self.n_raters
        n_raw = remap.size
        # values[rater, raw code + 1]; column 0 (not rated) stays 0.
        values = np.zeros((r, n_raw + 1), dtype=np.float64)
        rated = np.flatnonzero(remap >= 0)
        if r:
            values[:, 1 + rated] = table[:r][:, remap[rated]]
        codes = self._codes
        if codes is not None and codes.r == r and codes.q == n_raw:
            # Every item's group codes were kept when the pairs were counted: one gather
            # per group of raters instead of one per rater.
            summed = codes.group_sums(values)
            if summed is not None and summed.size == self.n_items:
                return summed
        cells = self.cells()
        if cells is not None:
            # One bincount over the cells in item order, raters increasing: each item's
            # terms added in rater order, as below ("not rated" adds 0.0 there).
            # A run of whole items at a time (each item's sum made within one run).
            out = np.zeros(self.n_items, dtype=np.float64)
            for lo, hi, a, b in cells.runs(self.n_items):
                terms = values[cells.rater[a:b], cells.code[a:b].astype(np.int64) + 1]
                item = cells.item[a:b].astype(np.int64) - lo
                out[lo:hi] = np.bincount(item, weights=terms, minlength=hi - lo)
            return out
        out = np.zeros(self.n_items, dtype=np.float64)
        for lo, hi in self._slices():
            shifted = _shifted(self.mat[lo:hi, :r])
            part = out[lo:hi]
            for j in range(r):
                part += values[j].take(shifted[j])
        return out

    def index_label_counts(self, remap: IntArray, index: IntArray, n_index: int, q: int) -> Any:
        """Ratings counted by (rater, ``index`` of their item, domain label).

        Parameters
        ----------
        remap : ndarray of int64, shape (n_raw_labels,)
            Domain code of each raw label code.
        index : ndarray of int, shape (n_items,)
            A group of each item code in ``[0, n_index)`` (-1: leave the item out), e.g.
            its count pattern.
        n_index : int
        q : int
            Number of domain categories.

        Returns
        -------
        ndarray of int64, shape (n_raters, n_index, q)
        """
        r = self.n_raters
        n_raw = int(remap.size)
        width = n_raw + 1
        size = (n_index + 1) * width  # the last group takes the items left out
        acc = np.zeros((r, size), dtype=np.int64)
        cells = self.cells()
        if cells is not None:
            for _, _, a, b in cells.runs(self.n_items):
                group = np.asarray(index, dtype=np.int64)[cells.item[a:b]]
                group = np.where(group < 0, n_index, group) * width
                flat = cells.rater[a:b].astype(np.int64) * size + group + cells.code[a:b] + 1
                acc += np.bincount(flat, minlength=r * size).reshape(r, size)
        for lo, hi in self._slices() if cells is None else ():
            shifted = _shifted(self.mat[lo:hi, :r])
            group = np.asarray(index[lo:hi], dtype=np.int64)
            group = np.where(group < 0, n_index, group) * width
            for j in range(r):
                acc[j] += np.bincount(group + shifted[j], minlength=size)
        table = acc.reshape(r, n_index + 1, width)[:, :n_index]
        present = np.flatnonzero(remap >= 0)
        out = np.zeros((r, n_index, q), dtype=np.int64)
        out[:, :, remap[present]] = table[:, :, 1 + present]
        return out

    def statistics(
        self,
        remap: IntArray,
        *,
        raters: Any,
        categories: tuple[Any, ...],
        statistics: Sequence[Statistic],
        sparse: bool,
    ) -> MatrixStatistics:
        """Item counts, rater counts, pair tables and item patterns from the matrix.

        The cells hold raw label codes; they are counted as they are (a :class:`_Tally`,
        possibly begun while the batches came in) and the tables are put in domain order at
        the end (no per-cell relabelling). Each item's counts are summarised by one integer
        key; the distinct keys are the item patterns, and dense item counts are the patterns
        gathered back to the items. When the keys would not fit in 64 bits, item counts are
        counted per cell instead (and there are no patterns); pairs are counted from long
        codes when there are too many raters or labels to count them column by column.

        Parameters
        ----------
        remap : ndarray of int64, shape (n_raw_labels,)
            Domain code of each raw label code.
        statistics : sequence of {"items", "raters", "pairs", "patterns"}

        Returns
        -------
        MatrixStatistics
            Each statistic asked for (the others None).
        """
        q = len(categories)
        n_raw = int(remap.size)
        plan = self._plan(n_raw, statistics)
        tally = self._tally_for(plan, n_raw)
        # Pairs column by column read the matrix; everything else may read the cells.
        cells = None if plan.by_columns else self.cells()
        tally.count(self.mat, tally.upto, self.n_items, cells)
        if tally.counter is not None and tally.counter.kept is not None:
            self._codes = tally.counter
        if cells is not None:
            item_counts, pairs = _from_cells(
                cells, remap, plan, raters, categories, sparse, self.n_items
            )
        else:
            item_counts, pairs = self._by_cells(remap, plan, raters, categories, sparse)
        patterns = None
        if plan.by_key:
            raw = tally.patterns(n_raw)
            present = np.flatnonzero(remap >= 0)
            rows_domain = np.zeros((raw.rows.shape[0], q), dtype=np.int64)
            rows_domain[:, remap[present]] = raw.rows[:, present]
            patterns = CountPatterns(rows_domain, raw.item_pattern, raw.weights)
            if plan.items:
                item_counts = patterns.item_counts(sparse)
        rater_counts, tables = self._from_tally(tally, remap, plan, raters, categories)
        if tables is not None:
            pairs = tables
        return MatrixStatistics(
            item_counts, rater_counts, pairs, patterns if plan.patterns else None
        )

    def _plan(self, n_raw: int, statistics: Sequence[Statistic]) -> _Plan:
        """How each statistic asked for is counted (see :meth:`statistics`)."""
        by_key = ("items" in statistics or "patterns" in statistics) and _Tally.fits(
            self.n_raters, n_raw
        )
        items = "items" in statistics or ("patterns" in statistics and not by_key)
        by_columns = "pairs" in statistics and self._pairs_by_columns(n_raw)
        return _Plan(
            items=items,
            patterns="patterns" in statistics,
            pairs="pairs" in statistics,
            raters="raters" in statistics,
            by_key=by_key,
            by_columns=by_columns,
            long_pairs="pairs" in statistics and not by_columns,
            cell_items=items and not by_key,
        )

    def _tally_for(self, plan: _Plan, n_raw: int) -> _Tally:
        """The tally begun while the batches came in, when it counted what the plan needs;
        else a new one."""
        r = self.n_raters
        tally = self._tally
        self._tally = None
        reuse = (
            tally is not None
            and not (plan.long_pairs or plan.cell_items)
            and plan.by_key
            and (tally.r, tally.n_raw) == (r, n_raw)
            and (tally.counter is not None) == plan.by_columns
            and (tally.rater_acc is not None) == (plan.raters and not plan.by_columns)
        )
        if reuse and tally is not None:
            return tally
        return _Tally(
            r,
            n_raw,
            keys=plan.by_key,
            pairs=plan.by_columns,
            raters=plan.raters and not plan.by_columns,
        )

    def _by_cells(
        self,
        remap: IntArray,
        plan: _Plan,
        raters: Any,
        categories: tuple[Any, ...],
        sparse: bool,
    ) -> tuple[Any, PairTables | PairCells | None]:
        """Item counts per cell (when the item keys would not fit) and pair tables from long
        codes (when there are too many raters or labels to count them column by column),
        slice by slice in domain codes."""
        q = len(categories)
        r = self.n_raters
        lut = np.r_[remap, -1].astype(np.int8 if q < 127 else np.int32)
        pairs: PairTables | PairCells | None = (
            empty_pairs(raters, categories) if plan.pairs else None
        )
        item_blocks: list[Any] = []
        dense_items = (
            np.zeros((self.n_items, q), dtype=np.int64) if plan.cell_items and not sparse else None
        )
        for lo, hi in self._slices() if plan.long_pairs or plan.cell_items else ():
            block = lut[self.mat[lo:hi, :r]]  # domain codes, -1 = not rated
            if plan.long_pairs and pairs is not None:
                pairs = pairs.merge(_long_pairs(block, raters, categories))
            if plan.cell_items and sparse:
                item_blocks.append(_sparse_cell_counts(block, q))
            elif plan.cell_items and dense_items is not None:
                dense_items[lo:hi] = _cell_counts(block, q)
        if not plan.cell_items:
            return None, pairs
        if not sparse:
            return dense_items, pairs
        from scipy import sparse as sp

        if not item_blocks:
            return sp.csr_array((0, q), dtype=np.int64), pairs
        return sp.vstack(item_blocks, format="csr", dtype=np.int64), pairs

    def _from_tally(
        self,
        tally: _Tally,
        remap: IntArray,
        plan: _Plan,
        raters: Any,
        categories: tuple[Any, ...],
    ) -> tuple[IntArray | None, PairTables | PairCells | None]:
        """Rater counts and (when counted column by column) pair tables from the tally, put
        in domain order."""
        q = len(categories)
        r = self.n_raters
        n_raw = int(remap.size)
        present = np.flatnonzero(remap >= 0)
        # Column of each domain code among the shifted raw codes (0 = not rated); a declared
        # category never seen reads an added column of zeros (n_raw + 1).
        cols = np.full(q, n_raw + 1, dtype=np.int64)
        cols[remap[present]] = 1 + present
        rater_acc = np.zeros((r, n_raw + 2), dtype=np.int64)
        if tally.rater_acc is not None:
            rater_acc[:, :-1] = tally.rater_acc
        pairs = None
        if tally.counter is not None:
            full = tally.counter.tables().reshape(r, r, n_raw + 1, n_raw + 1)
            if r >= 2:
                # A pair's table with "not rated" (code 0) kept holds each rater's whole
                # distribution in its margins: rater a from (a, a+1), the last from (r-2, r-1).
                rater_acc[:-1, :-1] = full[np.arange(r - 1), np.arange(1, r)].sum(axis=2)
                rater_acc[-1, :-1] = full[r - 2, r - 1].sum(axis=0)
            elif plan.raters:
                for lo, hi in self._slices():
                    shifted = _shifted(self.mat[lo:hi, :r])
                    rater_acc[0, :-1] += np.bincount(shifted[0], minlength=n_raw + 1)
            full = np.pad(full, ((0, 0), (0, 0), (0, 1), (0, 1)))
            tables = full[:, :, cols][:, :, :, cols].reshape(r * r, q, q)
            nz = np.flatnonzero(tables.any(axis=(1, 2)))
            pairs_idx = np.stack([nz // max(r, 1), nz % max(r, 1)], axis=1).astype(np.int64)
            pairs = PairTables(pairs_idx, np.ascontiguousarray(tables[nz]), raters, categories)
        rater_counts = np.ascontiguousarray(rater_acc[:, cols]) if plan.raters else None
        return rater_counts, pairs

    def _pairs_by_columns(self, q: int) -> bool:
        """Count pairs column by column (cost raters^2/2 per item) or from long codes (cost
        about 4 x the pairs of co-rating raters); the cheaper wins."""
        if self._store is not None:
            return False  # no matrix to read column by column
        r = self.n_raters
        if r * r * (q + 1) * (q + 1) > 4_000_000:
            return False  # every pair's table would not fit (whatever the mode)
        if self.modes.pairs != "auto":
            return self.modes.pairs == "columns"
        by_columns = self.n_items * r * (r - 1) // 2
        # Fewest co-rating pairs the ratings can make (equal numbers per item): when the
        # columns win even against that, the matrix need not be scanned.
        per_item = self.written / max(self.n_items, 1)
        if by_columns <= 4 * self.n_items * per_item * (per_item - 1) / 2:
            return True
        total_pairs = 0
        for lo, hi in self._slices():
            per_item = np.count_nonzero(self.mat[lo:hi, :r] >= 0, axis=1).astype(np.int64)
            total_pairs += int((per_item * (per_item - 1) // 2).sum())
        return by_columns <= 4 * total_pairs
