"""The stream engine's items x raters matrix of label codes.

Pairs need every rating of an item, and the ratings of one item may be spread over the whole
input. When ``items x raters`` cells fit in the memory limit, the stream engine keeps one small
integer per cell (the raw label code, -1 for "not rated"): one byte per cell while there are
fewer than 128 distinct labels. The matrix is filled batch by batch; it detects (item, rater)
repeats across and within batches, and at the end every statistic is counted from it in
slices of items.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._types import IntArray
from ..stats import PairTables
from ._blocks import DuplicateInfo, empty_pairs, long_partial, repeats_info

__all__ = ["CodeMatrix"]

#: Cells counted per slice when the statistics are taken from the matrix.
SLICE_CELLS = 4_000_000
_MARK = 127  # markers written to detect repeats within a batch fit in int8


def _dtype_for(n_labels: int) -> npt.DTypeLike:
    if n_labels < 127:
        return np.int8
    if n_labels < 32_767:
        return np.int16
    return np.int32


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

    def add(self, block: npt.NDArray[Any]) -> None:
        """Count the pairs of one slice of domain codes (-1 = not rated)."""
        if not self.grouped:
            _count_pairs_one_by_one(block, self.q, self.acc)
            return
        base = self.q + 1
        shifted = np.ascontiguousarray((block + 1).T.astype(np.uint16))  # raters x items
        codes = []  # each group's raters as one code, first rater most significant
        for members in self.groups:
            code = shifted[members[0]].copy()
            for a in members[1:]:
                code *= np.uint16(base)
                code += shifted[a]
            codes.append(code)
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


def _count_pairs_one_by_one(block: npt.NDArray[Any], q: int, acc: IntArray) -> None:
    """Add every rater pair's (q+1) x (q+1) table of a slice to ``acc`` (r, r, (q+1)^2).

    For each rater ``a``, the keys of all pairs ``(a, b > a)`` are formed at once (``b``'s
    offset, ``a``'s code, ``b``'s code) and counted in one ``bincount``; the keys are 16-bit
    when they fit, which halves the memory traffic.
    """
    r = block.shape[1]
    cells = (q + 1) * (q + 1)
    dtype = np.uint16 if (r - 1) * cells < (1 << 16) else np.int64
    shifted = np.ascontiguousarray((block + 1).T.astype(dtype))  # raters x items
    for a in range(r - 1):
        m = r - a - 1
        offsets = (np.arange(m, dtype=dtype) * dtype(cells))[:, None]
        keys = shifted[a] * dtype(q + 1) + shifted[a + 1 :] + offsets
        acc[a, a + 1 :] += np.bincount(keys.ravel(), minlength=m * cells).reshape(m, cells)


class CodeMatrix:
    """Items x raters label codes, growing with the dictionaries.

    Parameters
    ----------
    limit : int
        Bytes the matrix may take; :meth:`reserve` returns False beyond it.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.mat: npt.NDArray[Any] = np.full((0, 0), -1, dtype=np.int8)
        self.n_items = 0
        self.n_raters = 0
        self.written = 0

    def reserve(self, n_items: int, n_raters: int, n_labels: int, expect_items: int = 0) -> bool:
        """Make room for the codes; False when the matrix would pass the limit.

        ``expect_items`` is a guess of the final number of items: when the matrix grows, it
        grows to that many rows at once (if it fits), saving copies of the matrix.
        """
        dtype = np.dtype(_dtype_for(n_labels))
        rows, cols = self.mat.shape
        need_rows = n_items > rows
        need_cols = n_raters > cols
        if not (need_rows or need_cols or dtype.itemsize > self.mat.dtype.itemsize):
            self.n_items, self.n_raters = n_items, n_raters
            return True
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
        grown = np.full((new_rows, new_cols), -1, dtype=dtype)
        grown[:rows, :cols] = self.mat
        self.mat = grown
        self.n_items, self.n_raters = n_items, n_raters
        return True

    @property
    def nbytes(self) -> int:
        """Bytes held by the matrix."""
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
        cols = self.mat.shape[1]
        flat = item * cols + rater
        view = self.mat.reshape(-1)
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
    def filled(self) -> int:
        """Cells holding a rating."""
        total = 0
        for lo, hi in self._slices():
            total += int(np.count_nonzero(self.mat[lo:hi, : self.n_raters] >= 0))
        return total

    def _slices(self) -> Iterator[tuple[int, int]]:
        step = max(1, SLICE_CELLS // max(self.n_raters, 1))
        for lo in range(0, self.n_items, step):
            yield lo, min(self.n_items, lo + step)

    def ratings(self, remap: IntArray) -> Iterator[tuple[IntArray, IntArray, IntArray, int]]:
        """(item, rater, domain label, end of slice) codes of the ratings, slice by slice."""
        q = int(remap.max(initial=-1)) + 1
        lut = np.r_[remap, -1].astype(np.int8 if q < 127 else np.int32)
        for lo, hi in self._slices():
            block = lut[self.mat[lo:hi, : self.n_raters]]
            it, rt = np.nonzero(block >= 0)
            label = block[it, rt].astype(np.int64)
            yield it.astype(np.int64) + lo, rt.astype(np.int64), label, hi

    def rating_sums(self, remap: IntArray, table: npt.NDArray[np.float64]) -> Any:
        """Per item code, the sum over its ratings of ``table[rater, domain label]``.

        Column by column: each rater's values are gathered through a row of raw codes (the
        matrix's own small integers; "not rated" reads an added 0.0), so no long arrays of
        codes are formed. The terms of an item are added in rater order, as a ``bincount``
        over the ratings in item-major order adds them.
        """
        r = self.n_raters
        n_raw = remap.size
        # values[rater, raw code]; the last column (raw code -1, "not rated") stays 0.
        values = np.zeros((r, n_raw + 1), dtype=np.float64)
        rated = remap >= 0
        if r:
            values[:, :n_raw][:, rated] = table[:r][:, remap[rated]]
        out = np.zeros(self.n_items, dtype=np.float64)
        for lo, hi in self._slices():
            block = self.mat[lo:hi, :r]
            part = out[lo:hi]
            for j in range(r):
                part += values[j][block[:, j]]
        return out

    def statistics(
        self,
        remap: IntArray,
        *,
        raters: Any,
        categories: tuple[Any, ...],
        statistics: Sequence[str],
        sparse: bool,
    ) -> tuple[Any, IntArray | None, PairTables | None]:
        """Item counts, rater counts and pair tables from the matrix.

        Parameters
        ----------
        remap : ndarray of int64, shape (n_raw_labels,)
            Domain code of each raw label code.

        Returns
        -------
        item_counts : ndarray (n_items, q) or sparse CSR, or None
        rater_counts : ndarray (n_raters, q) or None
        pair_tables : PairTables or None
        """
        q = len(categories)
        r = self.n_raters
        # Raw code -> domain code, indexed by the matrix's own small integers (-1, "not
        # rated", reads the last entry and stays -1): no int64 copy of the matrix.
        lut = np.r_[remap, -1].astype(np.int8 if q < 127 else np.int32)
        item_blocks: list[Any] = []
        # Dense item counts are written in place (no list of blocks to concatenate).
        dense_items = (
            np.zeros((self.n_items, q), dtype=np.int64)
            if "items" in statistics and not sparse
            else None
        )
        rater_acc = np.zeros(r * (q + 1), dtype=np.int64)
        want_pairs = "pairs" in statistics
        by_columns = want_pairs and self._pairs_by_columns(q)
        counter = _PairCounter(r, q) if by_columns else None
        pairs: PairTables | None = empty_pairs(raters, categories) if want_pairs else None
        for lo, hi in self._slices():
            block = lut[self.mat[lo:hi, :r]]  # domain codes, -1 = not rated
            rows = hi - lo
            if "items" in statistics:
                base = np.arange(1, rows * (q + 1), q + 1, dtype=np.int64)
                keys = (base[:, None] + block).ravel()
                counts = np.bincount(keys, minlength=rows * (q + 1)).reshape(rows, q + 1)[:, 1:]
                if sparse:
                    from scipy import sparse as sp

                    item_blocks.append(sp.csr_array(counts, dtype=np.int64))
                elif dense_items is not None:
                    dense_items[lo:hi] = counts
            if "raters" in statistics and counter is None:
                base = np.arange(1, r * (q + 1), q + 1, dtype=np.int64)
                rater_acc += np.bincount((base[None, :] + block).ravel(), minlength=r * (q + 1))
            if counter is not None:
                counter.add(block)
            elif want_pairs and pairs is not None:
                it, rt = np.nonzero(block >= 0)
                part = long_partial(
                    it.astype(np.int64),
                    rt.astype(np.int64),
                    block[it, rt].astype(np.int64),
                    np.zeros(it.size, dtype=np.int64),
                    n_groups=rows,
                    raters=raters,
                    categories=categories,
                    duplicates="raise",
                    statistics=("pairs",),
                    sparse=False,
                )
                assert part.pair_tables is not None  # no repeats in a matrix
                pairs = pairs.merge(part.pair_tables)
        pair_acc = counter.tables() if counter is not None else None
        item_counts: Any = None
        if "items" in statistics:
            if sparse:
                from scipy import sparse as sp

                item_counts = (
                    sp.vstack(item_blocks, format="csr", dtype=np.int64)
                    if item_blocks
                    else sp.csr_array((0, q), dtype=np.int64)
                )
            else:
                item_counts = dense_items
        if pair_acc is not None and "raters" in statistics and r >= 2:
            # A pair's table with "not rated" (code 0) kept holds each rater's whole
            # distribution in its margins: rater a from (a, a+1), the last from (r-2, r-1).
            full = pair_acc.reshape(r, r, q + 1, q + 1)
            margins = rater_acc.reshape(r, q + 1)  # a view: fills rater_acc
            margins[:-1] = full[np.arange(r - 1), np.arange(1, r)].sum(axis=2)
            margins[-1] = full[r - 2, r - 1].sum(axis=0)
        elif pair_acc is not None and "raters" in statistics:
            for lo, hi in self._slices():
                block = lut[self.mat[lo:hi, :r]]
                base = np.arange(1, r * (q + 1), q + 1, dtype=np.int64)
                rater_acc += np.bincount((base[None, :] + block).ravel(), minlength=r * (q + 1))
        rater_counts = rater_acc.reshape(r, q + 1)[:, 1:].copy() if "raters" in statistics else None
        if pair_acc is not None:
            tables = pair_acc.reshape(r, r, q + 1, q + 1)[:, :, 1:, 1:].reshape(r * r, q, q)
            nz = np.flatnonzero(tables.any(axis=(1, 2)))
            pairs_idx = np.stack([nz // max(r, 1), nz % max(r, 1)], axis=1).astype(np.int64)
            pairs = PairTables(pairs_idx, np.ascontiguousarray(tables[nz]), raters, categories)
        return item_counts, rater_counts, pairs

    #: Force the pair method (None: choose by cost); tests set it to check both.
    pair_method: str | None = None

    def _pairs_by_columns(self, q: int) -> bool:
        """Count pairs column by column (cost raters^2/2 per item) or from long codes (cost
        about 4 x the pairs of co-rating raters); the cheaper wins."""
        if self.pair_method is not None:
            return self.pair_method == "columns"
        r = self.n_raters
        if r * r * (q + 1) * (q + 1) > 4_000_000:
            return False
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
