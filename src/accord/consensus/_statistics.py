"""Consensus from the engines' statistics: by count pattern, no ratings kept.

Every per-rating quantity of :func:`accord.consensus` (surprisal, deviation, class, the
leave-one-out modal label, the ordinal surprisal and deviation) is a function of the rating's
label and of its item's *count row*, the item's counts per category; the comparison with a
gold label adds the item's gold label. So the work is done per distinct count row, a
*pattern* (with 10 raters and 5 categories there are at most 3,003 of them, however many
items there are):

1. Pass 1 is the item x category counts, as distinct rows and each item's row (the
   engine's count patterns, or those of the item counts). The per-item statistics
   (ratings, modal counts, modes, entropy, ordinal entropy) and the distinct deviations are
   computed once per pattern (:class:`PatternConsensus`).
2. Pass 2 counts the ratings by (rater, group, label), the group being the item's pattern
   (with a gold label, the pair (pattern, gold label)). Every per-rater sum (ratings,
   ratings with a defined deviation, deviations, surprisals, class counts, the counts per
   distinct deviation behind the median, the rater x label x leave-one-out consensus and
   rater x label x gold tables, ordinal deviations) is a weighted sum over the cells of this
   table, each (group, label) cell scored once by the formulas applied in memory to each
   rating: the memory numbers up to the order of float sums. When the table would be large
   (very many patterns, or many raters), pass 2 takes each rating's (group, label) cell
   instead, batch by batch, and sums the same quantities; the sums merge
   (:meth:`PatternConsensus.sums_from_pass`). A cell's scores are then looked up in tables
   of every (pattern, category) cell scored once (:data:`TABLE_SLOTS` of them at most),
   else scored where the rating is read.
3. The items table gathers each item's columns from its pattern's values.

The per-rating table is not produced.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol, TypeAlias

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._types import IntArray
from ..data.ratings import ReadReport
from ..stats.counts import SPARSE_CELLS, ItemCategoryCounts
from ..stats.patterns import CountPatterns, count_patterns, index_dtype
from ._assemble import ItemColumns, RaterSums, assemble, empty_ratings_table
from ._cells import CHUNK_CELLS, Cells, as_cells, count_keys, dense_rows, gather, merge_counts
from ._items import PatternStats, item_columns, pattern_stats
from ._options import Options
from ._ordinal import ordinal_scores
from ._pairs import pair_agreement_from_counts
from ._scores import CellTables, cell_scores, cell_tables
from .gold import gold_codes
from .results import Consensus

__all__ = [
    "GROUP_CELLS",
    "RATINGS_PER_CALL",
    "CountRows",
    "PatternConsensus",
    "RatingPass",
    "batch_sums",
    "merge_sums",
]

#: Cells (or ratings) scored per call in pass 2 (longer runs are split).
RATINGS_PER_CALL = 200_000

#: Largest (rater, group, label) table pass 2 counts; beyond, each rating is scored.
GROUP_CELLS = 4_000_000

#: Most (pattern, category) slots whose scores pass 2 computes once and looks up (about
#: 41 bytes a slot, 11 MB, carried by the context of every batch); beyond, each entry's
#: cell is scored where it is read.
TABLE_SLOTS = 1 << 18


CountRows: TypeAlias = CountPatterns
"""Item counts as their distinct rows (count patterns): ``rows`` (n_patterns, q), each
item's row ``item_pattern`` (-1: no rating), ``weights`` (items per row)."""


class RatingPass(Protocol):
    """Another pass over the encoded ratings (codes of the statistics, missing labels left
    out): ``merge`` of ``fn(context, item, rater, label)`` over the batches, None when no
    rating is read. ``fn``, ``merge`` and ``context`` pickle (module-level), so the batches
    may be scored where they are."""

    def map_reduce(
        self,
        fn: Callable[[Any, IntArray, IntArray, IntArray], Any],
        context: Any,
        merge: Callable[[Any, Any], Any],
    ) -> Any: ...


class BatchContext(NamedTuple):
    """What scoring a batch of (rater, group, label) entries needs from pass 1."""

    q: int
    n_raters: int
    rows: Any
    ps: PatternStats
    options: Options
    n_values: int
    group_pattern: IntArray | None
    group_gold: IntArray | None
    item_group: npt.NDArray[np.signedinteger[Any]] | None = None
    tables: CellTables | None = None


class Groups(NamedTuple):
    """Items grouped by (pattern, gold label): each item's group (-1: no rating), each
    group's pattern and gold code (None without gold: the groups are the patterns)."""

    item_group: npt.NDArray[np.signedinteger[Any]]
    n_groups: int
    pattern: IntArray | None
    gold: IntArray | None


def _cell_counts(counts: Any, row: IntArray, label: IntArray) -> IntArray:
    """``counts[row, label]`` of each entry (dense or sparse counts)."""
    if isinstance(counts, np.ndarray):
        return counts[row, label].astype(np.int64, copy=False)
    return np.asarray(counts[row, label], dtype=np.int64).reshape(-1)


def _group_index(
    item_pattern: npt.NDArray[np.signedinteger[Any]], gold_code: IntArray, n_patterns: int, q: int
) -> Groups:
    """Groups of the items by (pattern, gold label): each item's group (-1 for an item
    without a rating) and each group's pattern and gold code (-1: no gold label)."""
    width = q + 1
    space = n_patterns * width  # the key ``space`` stands for the items without a rating
    n = item_pattern.size
    key = np.empty(n, dtype=np.int64)
    step = max(1, CHUNK_CELLS)
    for lo in range(0, n, step):
        p = item_pattern[lo : lo + step].astype(np.int64)
        k = p * width + gold_code[lo : lo + step] + 1
        k[p < 0] = space
        key[lo : lo + step] = k
    if space <= max(1 << 22, 4 * n):
        used = np.flatnonzero(np.bincount(key, minlength=space + 1)[:space])
        lookup = np.full(space + 1, -1, dtype=index_dtype(used.size))
        lookup[used] = np.arange(used.size, dtype=lookup.dtype)
        index = lookup.take(key)
    else:
        used, inverse = np.unique(key, return_inverse=True)
        inverse = inverse.reshape(-1)
        if used.size and used[-1] == space:
            used = used[:-1]
            inverse[inverse == used.size] = -1
        index = inverse.astype(index_dtype(used.size))
    used = used.astype(np.int64)
    return Groups(index, int(used.size), used // width, used % width - 1)


def _weighted(values: Any, weight: Any) -> Any:
    return values if weight is None else values * weight


def _scores(ctx: BatchContext, pattern: IntArray, label: IntArray) -> tuple[Any, ...]:
    """Each entry's surprisal, deviation, class, leave-one-out mode (-1: none) and the
    index of its deviation among the distinct ones, those of its (pattern, label) cell: read
    from the cell tables when the context has them, else scored entry by entry."""
    q = ctx.q
    tables = ctx.tables
    if tables is not None:
        at = tables.locate(pattern * q + label)
        loo = tables.loo1.take(at)
        loo -= 1
        code = tables.d_code1.take(at)
        code -= 1
        return tables.surprisal.take(at), tables.deviation.take(at), tables.cls.take(at), loo, code
    opts = ctx.options
    cells = Cells(pattern * q + label, _cell_counts(ctx.rows, pattern, label), None)
    _, sur, dev, cls, loo = cell_scores(cells, ctx.ps.st, q, opts.reference, opts.lb, opts.bands)
    code = np.searchsorted(ctx.ps.d_values, dev)  # read only where the deviation is defined
    return sur, dev, cls, loo, code


def _entry_sums(
    ctx: BatchContext, rater: IntArray, group: IntArray, label: IntArray, w: Any
) -> dict[str, Any]:
    """The sums of one run of entries (see :func:`_sums`)."""
    q, n_r, opts = ctx.q, ctx.n_raters, ctx.options
    pattern = group if ctx.group_pattern is None else ctx.group_pattern[group]
    sur, dev, cls, loo, code = _scores(ctx, pattern, label)
    defined = cls >= 0
    r_def = rater[defined]
    w_def = None if w is None else w[defined]
    out: dict[str, Any] = {
        "n": count_keys(rater, n_r, w),
        "n_def": count_keys(r_def, n_r, w_def),
        "dev": np.bincount(r_def, weights=_weighted(dev[defined], w_def), minlength=n_r),
        "sur": np.bincount(r_def, weights=_weighted(sur[defined], w_def), minlength=n_r),
        "cls": count_keys(r_def * 4 + cls[defined], n_r * 4, w_def),
        "median": count_keys(r_def * ctx.n_values + code[defined], n_r * ctx.n_values, w_def),
    }
    has = loo >= 0
    out["cons"] = count_keys(
        (rater[has] * q + label[has]) * q + loo[has], n_r * q * q, None if w is None else w[has]
    )
    if opts.ordinal:
        rows, local = np.unique(pattern, return_inverse=True)
        res = ordinal_scores(
            dense_rows(ctx.rows, rows), local.reshape(-1), label, opts.reference, opts.lb
        )
        od = res.surprisal - res.entropy
        ok = ~np.isnan(od)
        w_ok = None if w is None else w[ok]
        out["od"] = np.bincount(rater[ok], weights=_weighted(od[ok], w_ok), minlength=n_r)
        out["od_n"] = count_keys(rater[ok], n_r, w_ok)
    if ctx.group_gold is not None:
        g = ctx.group_gold[group]
        has_g = g >= 0
        out["gold"] = count_keys(
            (rater[has_g] * q + label[has_g]) * q + g[has_g],
            n_r * q * q,
            None if w is None else w[has_g],
        )
    return out


def _sums(
    ctx: BatchContext,
    rater: IntArray,
    group: IntArray,
    label: IntArray,
    weight: IntArray | None,
) -> dict[str, Any]:
    """Per-rater sums over (rater, group, label) entries, each standing for ``weight``
    ratings (one when None). Each entry's surprisal, deviation, class and leave-one-out mode
    are those of its (pattern, category) cell, computed from the per-pattern statistics of
    pass 1 by the formulas applied in memory to each rating (the same numbers)."""
    if rater.size > RATINGS_PER_CALL:  # bound the per-entry temporaries
        out_all: dict[str, Any] | None = None
        for lo in range(0, rater.size, RATINGS_PER_CALL):
            s = slice(lo, lo + RATINGS_PER_CALL)
            part = _sums(ctx, rater[s], group[s], label[s], None if weight is None else weight[s])
            out_all = part if out_all is None else merge_sums(out_all, part)
        assert out_all is not None
        return out_all
    return _entry_sums(
        ctx,
        rater.astype(np.int64, copy=False),
        group.astype(np.int64, copy=False),
        label.astype(np.int64, copy=False),
        None if weight is None else weight.astype(np.float64),
    )


def batch_sums(ctx: BatchContext, item: IntArray, rater: IntArray, label: IntArray) -> Any:
    """Per-rater sums of one batch of ratings, each scored by its item's group."""
    assert ctx.item_group is not None
    return _sums(ctx, rater, ctx.item_group[item], label, None)


def merge_sums(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """The sums of two batches."""
    out: dict[str, Any] = {}
    for key, value in a.items():
        if key in ("median", "cons", "gold"):
            out[key] = merge_counts(value, b[key])
        else:
            out[key] = value + b[key]
    return out


def _rater_sums(sums: dict[str, Any], n_raters: int, q: int) -> RaterSums:
    median_keys, median_counts = as_cells(sums["median"])
    return RaterSums(
        n=sums["n"],
        n_def=sums["n_def"].astype(np.float64),
        dev=sums["dev"],
        sur=sums["sur"],
        classes=sums["cls"].reshape(n_raters, 4),
        median_keys=median_keys,
        median_counts=median_counts,
        consensus=pair_agreement_from_counts(sums["cons"], n_raters, q),
        gold=pair_agreement_from_counts(sums["gold"], n_raters, q) if "gold" in sums else None,
        od=sums.get("od"),
        od_n=sums.get("od_n"),
    )


class PatternConsensus:
    """Pass 1 of a consensus from count patterns, and the steps that finish it.

    Build it with :meth:`from_statistics`; then sum the raters' figures with
    :meth:`sums_from_table` (the ratings counted by (rater, group, label) over
    :attr:`groups`, when :attr:`counts_by_group`) or :meth:`sums_from_pass` (rating by
    rating), and make the result with :meth:`result`.

    Examples
    --------
    >>> import numpy as np
    >>> from accord.consensus import Options, PatternConsensus
    >>> from accord.stats import ItemCategoryCounts
    >>> opts = Options.checked(
    ...     reference="all", missing="omit", bands=(0, 1, 2), base=2, ordinal=False)
    >>> counts = ItemCategoryCounts(np.array([[4, 2, 1, 1]]), ("A", "B", "C", "D"))
    >>> plan = PatternConsensus.from_statistics(
    ...     counts, None, n_raters=8, items=np.array([0]), options=opts)
    >>> by_group = np.zeros((8, 1, 4), dtype=np.int64)  # rater, group, label
    >>> for rater, label in enumerate([0, 0, 0, 0, 1, 1, 2, 3]):
    ...     by_group[rater, 0, label] = 1
    >>> c = plan.result(plan.sums_from_table(by_group), raters=np.arange(8), report=None)
    >>> float(c.items["entropy"].iloc[0]), c.raters["mean_deviation"].round(2).tolist()[:3]
    (1.75, [1.25, 1.25, 0.25])
    """

    def __init__(
        self,
        patterns: Any,
        item_counts: ItemCategoryCounts | None,
        ps: PatternStats,
        groups: Groups,
        gold_code: IntArray | None,
        *,
        n_raters: int,
        categories: tuple[Any, ...],
        items: npt.NDArray[Any],
        options: Options,
    ) -> None:
        self.patterns = patterns
        self.item_counts = item_counts
        self.ps = ps
        self.groups: Groups | None = groups
        self.gold_code = gold_code
        self.n_raters = n_raters
        self.categories = categories
        self.items = items
        self.options = options

    @classmethod
    def from_statistics(
        cls,
        item_counts: ItemCategoryCounts | None,
        patterns: CountRows | None,
        *,
        n_raters: int,
        items: npt.NDArray[Any],
        options: Options,
        categories: Sequence[Any] | None = None,
        gold: Mapping[Any, Any] | pd.Series | Sequence[Any] | Any | None = None,
    ) -> PatternConsensus:
        """Pass 1 from the item x category counts or their count patterns (the patterns
        when given; the counts are then the result's, else they are formed from the
        patterns). ``items`` are the item ids by code; ``categories`` default to the
        counts'."""
        if patterns is None:
            assert item_counts is not None
            patterns = count_patterns(item_counts.counts)
        if categories is None:
            assert item_counts is not None
            categories = item_counts.categories
        cats = tuple(categories)
        q = len(cats)
        rows = patterns.rows
        n_patterns = int(rows.shape[0])
        ps = pattern_stats(rows, n_raters, options, ordinal=options.ordinal)
        gold_code = None if gold is None else gold_codes(gold, items, cats)
        if gold_code is not None:
            groups = _group_index(patterns.item_pattern, gold_code, n_patterns, q)
        else:
            groups = Groups(patterns.item_pattern, n_patterns, None, None)
        return cls(
            patterns,
            item_counts,
            ps,
            groups,
            gold_code,
            n_raters=n_raters,
            categories=cats,
            items=items,
            options=options,
        )

    def _context(self) -> BatchContext:
        assert self.groups is not None
        q, rows = len(self.categories), self.patterns.rows
        tables = None
        if int(rows.shape[0]) * q <= TABLE_SLOTS:  # every cell scored once, then looked up
            opts, ps = self.options, self.ps
            tables = cell_tables(rows, ps.st, ps.d_values, q, opts.reference, opts.lb, opts.bands)
        return BatchContext(
            q=len(self.categories),
            n_raters=self.n_raters,
            rows=self.patterns.rows,
            ps=self.ps,
            options=self.options,
            n_values=max(self.ps.d_values.size, 1),
            group_pattern=self.groups.pattern,
            group_gold=self.groups.gold,
            tables=tables,
        )

    @property
    def counts_by_group(self) -> bool:
        """Whether pass 2 counts the ratings by (rater, group, label) (else it scores each
        rating: the table would be large)."""
        assert self.groups is not None
        return self.n_raters * self.groups.n_groups * len(self.categories) <= GROUP_CELLS

    def sums_from_table(self, table: IntArray) -> RaterSums:
        """The raters' sums from the (n_raters, n_groups, q) counts of the ratings."""
        _, n_groups, q = table.shape
        flat = table.reshape(-1)
        nz = np.flatnonzero(flat)
        weight = flat[nz]
        rater, rest = np.divmod(nz, n_groups * q)
        group, label = np.divmod(rest, q)
        sums = _sums(self._context(), rater, group, label, weight)
        return _rater_sums(sums, self.n_raters, q)

    def sums_from_pass(self, ratings: RatingPass) -> RaterSums:
        """The raters' sums from another pass over the ratings, rating by rating."""
        assert self.groups is not None
        ctx = self._context()._replace(item_group=self.groups.item_group)
        sums = ratings.map_reduce(batch_sums, ctx, merge_sums)
        if sums is None:  # no rating read
            empty_codes = np.zeros(0, dtype=np.int64)
            sums = _sums(ctx, empty_codes, empty_codes, empty_codes, None)
        return _rater_sums(sums, self.n_raters, len(self.categories))

    def _count_columns(self) -> IntArray | None:
        """The items' counts gathered from their patterns into the columns of an items x
        categories array in column-major order (the table's columns are views of it, not
        copies); None when they would be large (sparse counts)."""
        q, n_items = len(self.categories), int(self.items.size)
        if n_items * q > SPARSE_CELLS:
            return None
        rows = self.patterns.rows
        everyone = np.arange(int(rows.shape[0]))
        by_category = np.ascontiguousarray(
            np.vstack([dense_rows(rows, everyone), np.zeros((1, q), np.int64)]).T,
            dtype=np.int64,
        )
        columns = np.empty((n_items, q), dtype=np.int64, order="F")
        for c in range(q):
            gather(by_category[c], self.patterns.item_pattern, out=columns[:, c])
        return columns

    def _item_columns(self) -> tuple[ItemColumns, ItemCategoryCounts]:
        """The items' columns, gathered from their patterns, and the result's item counts
        (the given ones, else the count columns, or sparse counts from the patterns)."""
        item_pattern = self.patterns.item_pattern
        st, entropy, contested_rank = item_columns(self.ps, self.patterns.weights, item_pattern)
        ordinal = self.ps.ordinal_entropy
        columns = self._count_columns()
        counts = self.item_counts
        if counts is None and columns is not None:
            # The items table's count columns are the result's item counts (one array;
            # read-only, so that a change to the table copies rather than changes them).
            columns.flags.writeable = False
            counts = ItemCategoryCounts(columns, self.categories)
        elif counts is None:
            counts = ItemCategoryCounts(self.patterns.item_counts(sparse=True), self.categories)
        cols = ItemColumns(
            st,
            entropy,
            contested_rank,
            None if ordinal is None else gather(ordinal, item_pattern),
            columns,
            self.gold_code,
        )
        return cols, counts

    def result(
        self,
        sums: RaterSums,
        *,
        raters: npt.NDArray[Any],
        report: ReadReport | None,
        note: str = "",
    ) -> Consensus:
        """The :class:`~accord.consensus.Consensus` (its per-rating table empty): the
        items' columns gathered from their patterns, the raters' from ``sums``."""
        self.groups = None  # the group index is no longer needed
        cols, counts = self._item_columns()
        self.patterns = None
        return assemble(
            sums,
            cols,
            raters=raters,
            items=self.items,
            categories=self.categories,
            d_values=self.ps.d_values,
            counts=counts,
            ratings_table=empty_ratings_table(),
            options=self.options,
            note=note,
            report=report,
            copy_items=False,  # the statistics' decode table: the result's own
        )
