"""The dask engine's count: ratings exchanged by blocks of items, one packed integer a rating.

Each partition's labelled ratings are split by block of item codes (block ``b`` holds the
items ``b * width .. (b + 1) * width - 1``) and each rating packed into one integer,
``((item - b * width) * n_raters + rater) * q + label`` (four bytes a rating while that
fits, else eight). Block ``b`` gathers its pieces from every partition: it holds every
rating of its items, so it finds a repeated (item, rater) pair by sorting its integers, and
counts its items, its raters and its rater pairs on its own. Blocks cover disjoint items:
their item counts are stacked, their rater counts and pair tables added. Only the blocks'
counts travel after that, never a rating.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import numpy.typing as npt

from .._types import IntArray
from ..data.encoder import n_distinct
from ..stats.counts import ItemCategoryCounts
from ..stats.pairs import PairCells, PairTables
from ._blocks import LongPartial, code_pairs

__all__ = [
    "BlockPlan",
    "Counts",
    "block_counts",
    "merge_counts",
    "merge_pairs",
    "pieces_of",
    "stacked",
]

_SHOW = 5


@dataclasses.dataclass(frozen=True, slots=True)
class BlockPlan:
    """How ratings are split into blocks of items and packed (module level and frozen: it
    pickles for the schedulers).

    >>> plan = BlockPlan.of(n_items=10, n_raters=3, q=2, n_blocks=4)
    >>> plan.width, plan.dtype, plan.starts().tolist()
    (3, dtype('uint32'), [0, 3, 6, 9])
    """

    n_items: int
    n_raters: int
    q: int
    n_blocks: int
    width: int
    dtype: np.dtype[Any]

    @classmethod
    def of(cls, *, n_items: int, n_raters: int, q: int, n_blocks: int) -> BlockPlan | None:
        """The plan, or None when a packed rating would not fit in 63 bits."""
        width = max(-(-n_items // max(n_blocks, 1)), 1)
        top = width * max(n_raters, 1) * max(q, 1)
        if top >= 1 << 63:
            return None
        dtype = np.dtype(np.uint32) if top < 1 << 32 else np.dtype(np.int64)
        return cls(n_items, max(n_raters, 1), max(q, 1), n_blocks, width, dtype)

    def starts(self) -> IntArray:
        """The first item code of each block."""
        return np.arange(self.n_blocks, dtype=np.int64) * self.width

    def size(self, block: int) -> int:
        """Items in ``block``."""
        return max(0, min(self.width, self.n_items - block * self.width))


def pieces_of(
    item: IntArray, rater: IntArray, label: IntArray, plan: BlockPlan
) -> tuple[npt.NDArray[Any], ...]:
    """One partition's labelled ratings as one packed integer each, split by block.

    >>> plan = BlockPlan.of(n_items=4, n_raters=2, q=3, n_blocks=2)
    >>> [p.tolist() for p in pieces_of(np.array([3, 0, 1]), np.array([1, 0, 1]),
    ...                                np.array([2, 1, 0]), plan)]
    [[1, 9], [11]]
    """
    block = item // plan.width
    key = ((item - block * plan.width) * plan.n_raters + rater) * plan.q + label
    small = block.astype(np.uint8 if plan.n_blocks <= 256 else np.int32)
    order = np.argsort(small, kind="stable")  # a radix sort for one byte
    cuts = np.cumsum(np.bincount(block, minlength=plan.n_blocks))[:-1]
    return tuple(np.split(key[order].astype(plan.dtype), cuts))


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Counts:
    """The counts of one block of items or of several merged: item counts by block (first
    item code, sparse counts), the rest added; ``repeated``: a repeated (item, rater) pair
    was found (the counts are then left out)."""

    blocks: tuple[tuple[int, Any], ...]
    stats: LongPartial | None
    missing: int
    missing_rows: IntArray
    repeated: bool = False


def block_counts(
    pieces: list[npt.NDArray[Any]],
    missing: list[tuple[int, IntArray]],
    block: int,
    plan: BlockPlan,
    context: tuple[Any, tuple[Any, ...], tuple[str, ...]],
) -> Counts:
    """The counts of block ``block`` from its pieces of every partition; ``missing``: the
    missing labels (how many, the first rows) of some partitions, counted with this block;
    ``context``: the rater decode table, the categories and the statistics asked for."""
    raters, categories, statistics = context
    rows = [r for _, r in missing]
    lost = (sum(n for n, _ in missing), np.sort(np.concatenate(rows))[:_SHOW] if rows else
            np.zeros(0, np.int64))  # fmt: skip
    key = np.sort(np.concatenate(pieces)) if pieces else np.zeros(0, plan.dtype)
    cell = key // plan.q
    if cell.size > 1 and bool((cell[1:] == cell[:-1]).any()):
        return Counts((), None, *lost, repeated=True)
    item, rater = (a.astype(np.int64) for a in np.divmod(cell, plan.n_raters))
    label = (key % plan.q).astype(np.int64)
    size = plan.size(block)
    counts = ItemCategoryCounts.from_codes(
        item, label, n_groups=size, categories=categories, sparse=True
    ).counts
    if "raters" in statistics:
        q = len(categories)
        by_rater = np.bincount(rater * q + label, minlength=len(raters) * q)
        rater_counts = by_rater.reshape(len(raters), q)
    else:  # what the read report needs: ratings per rater
        rater_counts = np.bincount(rater, minlength=len(raters))[:, None]
    pairs = None
    if "pairs" in statistics:
        pairs = code_pairs(item, rater, label, raters, categories, size)
    rated = None if "items" in statistics else n_distinct(item, size)
    stats = LongPartial(None, rater_counts, pairs, int(key.size), 0, None, rated)
    blocks = ((block * plan.width, counts),) if "items" in statistics else ()
    return Counts(blocks, stats, *lost)


def merge_counts(a: Counts, b: Counts) -> Counts:
    """Two blocks' counts together (disjoint items)."""
    rows = np.sort(np.r_[a.missing_rows, b.missing_rows])[:_SHOW]
    missing = a.missing + b.missing
    if a.stats is None or b.stats is None:
        return Counts((), None, missing, rows, repeated=True)
    left, right = (dataclasses.replace(s, pair_tables=None) for s in (a.stats, b.stats))
    stats = left.merge(right)
    if a.stats.pair_tables is not None and b.stats.pair_tables is not None:
        pairs = merge_pairs(a.stats.pair_tables, b.stats.pair_tables)
        stats = dataclasses.replace(stats, pair_tables=pairs)
    return Counts(a.blocks + b.blocks, stats, missing, rows)


def merge_pairs(a: PairTables | PairCells, b: PairTables | PairCells) -> PairTables | PairCells:
    """The rater-pair tables of two blocks (as their ``merge``). Filled cells, sorted in
    each block, are numbered as one integer and merged by a stable sort of the two runs
    (linear: no sort of the cells again).

    >>> import accord
    >>> r = accord.Ratings.from_wide([["y", "y", None], ["n", "n", "n"], ["y", "n", "n"]])
    >>> parts = [PairCells.from_ratings(r.subset(r.item_codes == k)) for k in range(3)]
    >>> merged = merge_pairs(merge_pairs(parts[0], parts[1]), parts[2])
    >>> whole = PairCells.from_ratings(r)
    >>> all(np.array_equal(getattr(merged, f), getattr(whole, f))
    ...     for f in ("pairs", "pair", "x", "y", "count"))
    True
    """
    n_r, q = len(a.raters), len(a.categories)
    if not (isinstance(a, PairCells) and isinstance(b, PairCells)):
        return a.merge(b)
    if len(b.raters) != n_r or n_r * n_r * q * q >= 1 << 62 or not b.count.size:
        return a.merge(b)
    if not a.count.size:
        return b
    cell = np.concatenate([(c.keys(n_r) * q + c.x) * q + c.y for c in (a, b)])
    order = np.argsort(cell, kind="stable")
    cell = cell[order]
    start = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]])
    count = np.add.reduceat(np.concatenate([a.count, b.count])[order], start)
    rest, y = np.divmod(cell[start], q)
    key, x = np.divmod(rest, q)
    new = np.r_[True, key[1:] != key[:-1]]
    first = key[new]
    pairs = np.stack([first // n_r, first % n_r], axis=1).astype(np.int64)
    pair = (np.cumsum(new) - 1).astype(np.int64)
    return PairCells(pairs, pair, x, y, count.astype(np.int64), a.raters, a.categories)


def stacked(counts: Counts, n_items: int, q: int) -> Any:
    """The item counts of every block, stacked in the order of the item codes."""
    from scipy import sparse

    if not counts.blocks:
        return sparse.csr_array((n_items, q), dtype=np.int64)
    blocks = [c for _, c in sorted(counts.blocks, key=lambda b: b[0])]
    return sparse.csr_array(sparse.vstack(blocks, format="csr"), dtype=np.int64)
