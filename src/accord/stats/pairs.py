"""Rater-pair contingency tables, for the pairs of raters that co-rated at least one item."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import InvalidInputError
from .._results import Result
from .._types import IntArray, in_threads, release_freed_memory, usable_cores
from ..data.ratings import Ratings
from ..data.table import ContingencyTable

__all__ = [
    "PAIR_TABLE_CELLS",
    "ItemGroups",
    "PairAgreement",
    "PairCells",
    "PairTables",
    "pair_agreement",
    "pair_statistic",
    "rater_code_rows",
    "rater_pair_counts",
    "sparse_pairs",
]

#: Pairs of ratings per batch of the pair passes (bounds their memory).
CHUNK_PAIRS = 4_000_000
#: Ratings from which the rater pairs' tables and cells (:meth:`ItemGroups.pair_tables`,
#: :meth:`PairCells.from_groups`) are counted in runs of items, side by side on threads.
SPLIT = 1_000_000
#: Most cells of the rater pairs' dense tables in which :meth:`PairCells.from_groups`
#: counts the pairs of ratings (32 MB; few pairs, as when each rater works beside a few
#: others); beyond, each batch's cells are sorted and summed.
COUNTED_CELLS = 4_000_000
#: Dense accumulator (raters^2 x q^2 cells) allowed up to this size.
DENSE_CELLS = 20_000_000

#: Bits of the packed codes of :meth:`ItemGroups.pair_codes` (a sum of two stays in int64).
_PACKED_BITS = 62

#: Above this many cells (rater pairs x q x q), unweighted pairwise statistics come from
#: :func:`pair_agreement` (memory proportional to the ratings) instead of dense tables.
PAIR_TABLE_CELLS = 20_000_000


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class ItemGroups:
    """The ratings grouped by item, raters in increasing order within each item.

    Attributes
    ----------
    item, rater, label : ndarray, shape (n_ratings,)
        Codes of the ratings in that order.
    rest : ndarray of int64, shape (n_ratings,)
        How many ratings of the same item follow each one.
    """

    item: IntArray
    rater: IntArray
    label: IntArray
    rest: IntArray

    @classmethod
    def from_ratings(cls, ratings: Ratings) -> ItemGroups:
        """Group by one sort of the packed codes (item, rater and label in bit fields);
        a stable sort on (item, rater) when an (item, rater) pair is rated twice (or the
        fields do not fit 63 bits).

        >>> import accord
        >>> r = accord.Ratings.from_wide([["y", "n"], ["n", None], ["y", "y"]])
        >>> g = ItemGroups.from_ratings(r)
        >>> g.item.tolist(), g.rater.tolist(), g.rest.tolist()
        ([0, 0, 1, 2, 2], [0, 1, 0, 0, 1], [1, 0, 0, 1, 0])
        """
        item, rater, label = (
            np.asarray(c, dtype=np.int64)
            for c in (ratings.item_codes, ratings.rater_codes, ratings.label_codes)
        )
        rater_bits = max(ratings.n_raters - 1, 1).bit_length()
        label_bits = max(ratings.n_categories - 1, 1).bit_length()
        low = rater_bits + label_bits
        if max(ratings.n_items - 1, 1).bit_length() + low <= 63:
            packed = item << low  # the fields set in place: no temporary per field
            packed |= rater << label_bits
            packed |= label
            packed.sort()
            cell = packed >> label_bits  # (item, rater)
            if not np.any(cell[1:] == cell[:-1]):  # each (item, rater) once
                item = packed >> low
                cell &= (1 << rater_bits) - 1  # the rater
                packed &= (1 << label_bits) - 1  # the label
                return cls.from_sorted(item, cell, packed)
        order = np.lexsort((rater, item))
        item, rater, label = item[order], rater[order], label[order]
        ends = np.searchsorted(item, item, side="right")
        return cls(item, rater, label, ends - np.arange(item.size) - 1)

    @classmethod
    def from_sorted(cls, item: IntArray, rater: IntArray, label: IntArray) -> ItemGroups:
        """Group ratings already in item order, raters increasing within each item (each
        (item, rater) once), such as the filled cells of an items x raters matrix read row
        by row.

        >>> g = ItemGroups.from_sorted(np.array([0, 0, 2]), np.array([1, 3, 0]), np.arange(3))
        >>> g.rest.tolist()
        [1, 0, 0]
        """
        n = int(item.size)
        first = np.ones(n, dtype=bool)
        np.not_equal(item[1:], item[:-1], out=first[1:])
        starts = np.flatnonzero(first).astype(np.int64)
        del first
        sizes = np.diff(np.r_[starts, n])
        rest = np.repeat(starts + sizes, sizes)  # each rating's end of its item, then in place
        rest -= np.arange(n, dtype=np.int64)
        rest -= 1
        item, rater, label = (np.asarray(x, dtype=np.int64) for x in (item, rater, label))
        return cls(item, rater, label, rest)

    def split(self, parts: int) -> list[ItemGroups]:
        """The groups in up to ``parts`` runs of whole items, of about equal numbers of
        ratings (no empty run).

        >>> none = np.zeros(5, int)
        >>> g = ItemGroups.from_sorted(np.array([0, 0, 1, 2, 2]), none, none)
        >>> [p.item.tolist() for p in g.split(2)]
        [[0, 0], [1, 2, 2]]
        >>> len(g.split(1)), len(ItemGroups.from_sorted(*[np.zeros(0, int)] * 3).split(2))
        (1, 1)
        """
        n = int(self.item.size)
        parts = max(1, min(parts, n))
        cuts = [0]
        for j in range(1, parts):
            at = j * n // parts  # moved on to the first rating of an item
            at += int(self.rest[at - 1]) if at > cuts[-1] else 0
            cuts.append(min(max(at, cuts[-1]), n))
        cuts.append(n)
        return [
            ItemGroups(self.item[a:b], self.rater[a:b], self.label[a:b], self.rest[a:b])
            for a, b in itertools.pairwise(cuts)
            if b > a or n == 0
        ]

    def pairs(self) -> Iterator[tuple[IntArray, IntArray]]:
        """Positions ``(left, right)`` of every pair of ratings within an item, ``left``
        first, in batches of about :data:`CHUNK_PAIRS` pairs (:meth:`pair_sums` of the
        packed positions)."""
        n = int(self.rest.size)
        position = np.arange(n, dtype=np.int64)
        for packed in self.pair_sums(position * n, position):
            left, right = np.divmod(packed, n)
            yield left, right

    def pair_sums(
        self, left: IntArray, right: IntArray, batch: int | None = None
    ) -> Iterator[IntArray]:
        """``left[i] + right[j]`` for every pair of ratings ``i < j`` within an item, in
        batches of about ``batch`` pairs (default :data:`CHUNK_PAIRS`; their order
        unspecified).

        One pass per distance between the two ratings of a pair. While most ratings have a
        partner that far, the pass adds the two shifted arrays and keeps the pairs within
        an item (no gathers); once few do, it gathers at the positions of those that do.
        """
        n, rest = int(self.rest.size), self.rest
        size = CHUNK_PAIRS if batch is None else max(1, batch)
        held: list[IntArray] = []  # small batches, joined into one
        n_held = 0
        pos: IntArray | None = None  # the ratings with a partner `gap` ahead, once few
        gap = 1
        while True:
            if pos is None:
                near = rest[: max(n - gap, 0)] >= gap
                count = int(np.count_nonzero(near))
                if 4 * count < near.size:
                    pos = np.flatnonzero(near)
            else:
                pos = pos[rest[pos] >= gap]
                count = int(pos.size)
            if count == 0:
                break
            for lo in range(0, n - gap if pos is None else count, size):
                if pos is None:
                    hi = min(lo + size, n - gap)
                    part = (left[lo:hi] + right[lo + gap : hi + gap])[near[lo:hi]]
                else:
                    at = pos[lo : lo + size]
                    part = left[at] + right[at + gap]
                if 4 * part.size >= size:
                    yield part
                    continue
                held.append(part)
                n_held += part.size
                if 4 * n_held >= size:
                    yield _joined(held)
                    held, n_held = [], 0
            gap += 1
        if n_held:
            yield _joined(held)

    def pair_codes(
        self, n_raters: int, q: int, batch: int | None = None
    ) -> Iterator[tuple[IntArray, IntArray]]:
        """Batches ``(key, cell)`` of about ``batch`` pairs (as :meth:`pair_sums`) over every
        pair of ratings ``(i, j)`` within an item, ``i`` first: the rater pair
        ``key = rater[i] * n_raters + rater[j]`` and the label pair
        ``cell = label[i] * q + label[j]``.

        Both come from one sum of packed codes (the rater pair above the bits of the label
        pair) where they fit 63 bits, else from two.
        """
        shift = max(q * q - 1, 1).bit_length()
        if n_raters * n_raters < 2 ** (_PACKED_BITS - shift):
            packed_left = self.rater * n_raters  # in place: one array per side
            packed_left <<= shift
            packed_left += self.label * q
            packed_right = self.rater << shift
            packed_right += self.label
            low = (1 << shift) - 1
            for packed in self.pair_sums(packed_left, packed_right, batch):
                key = packed >> shift
                packed &= low  # a new array each batch: its low bits in place
                yield key, packed
            return
        yield from zip(
            self.pair_sums(self.rater * n_raters, self.rater, batch),
            self.pair_sums(self.label * q, self.label, batch),
            strict=True,
        )

    def pair_keys(self, n_raters: int, batch: int | None = None) -> IntArray:
        """The rater pairs that co-rated an item, as increasing keys ``a * n_raters + b``
        (``a < b``), from batches of about ``batch`` pairs (as :meth:`pair_sums`)."""
        size = n_raters * n_raters
        sums = self.pair_sums(self.rater * n_raters, self.rater, batch)
        if size <= DENSE_CELLS:
            seen = np.zeros(size, dtype=bool)
            for keys in sums:
                seen[keys] = True
            return np.flatnonzero(seen).astype(np.int64)
        parts = [np.unique(keys) for keys in sums]
        return np.unique(np.concatenate(parts)).astype(np.int64) if parts else np.zeros(0, np.int64)

    def pair_index(self, keys: IntArray, n_raters: int) -> Callable[[IntArray], IntArray]:
        """``index(key)``: the position in ``keys`` (from :meth:`pair_keys`) of each rater
        pair key."""
        size = n_raters * n_raters
        if size <= DENSE_CELLS:
            lookup = np.zeros(size, dtype=np.int64)
            lookup[keys] = np.arange(keys.size)
            return lambda key: lookup[key]
        return lambda key: np.searchsorted(keys, key)

    def pair_tables(
        self, n_raters: int, q: int, max_cells: int | None = None
    ) -> tuple[IntArray, IntArray] | None:
        """The co-rating rater pairs' keys (as :meth:`pair_keys`) and their q x q tables,
        shape (n_pairs, q, q): one ``bincount`` per batch of pairs of ratings. None as soon
        as the tables would hold over ``max_cells`` cells.

        From :data:`SPLIT` ratings, runs of whole items (:meth:`split`) are counted side by
        side, one a core the process may use, and their tables summed pair by pair (the
        same tables; each run holds its own while it counts, from batches of pairs as many
        times smaller as there are runs, so that the pairs in flight take what one run's
        would).
        """
        runs = self.split(usable_cores() if self.item.size >= SPLIT else 1)
        if len(runs) == 1:
            return self._run_tables(n_raters, q, max_cells)
        batch = CHUNK_PAIRS // len(runs)
        parts = in_threads(lambda run: run._run_tables(n_raters, q, max_cells, batch), runs)
        summed = _summed_tables(parts, q, max_cells)
        release_freed_memory()  # the runs' temporaries, spread over the heaps of the threads
        return summed

    def _run_tables(
        self, n_raters: int, q: int, max_cells: int | None, batch: int | None = None
    ) -> tuple[IntArray, IntArray] | None:
        """:meth:`pair_tables` of one run. Under :data:`DENSE_CELLS` rater pairs, one pass:
        each rater pair is numbered when first met and the tables put in key order at the
        end. Above, the sorted keys first (:meth:`pair_keys`)."""
        qq = q * q
        if n_raters * n_raters > DENSE_CELLS:
            keys = self.pair_keys(n_raters, batch)
            if max_cells is not None and keys.size * qq > max_cells:
                return None
            index = self.pair_index(keys, n_raters)
            tables = np.zeros(keys.size * qq, dtype=np.int64)
            for key, cell in self.pair_codes(n_raters, q, batch):
                cell += index(key) * qq
                tables += np.bincount(cell, minlength=tables.size)
            return keys, tables.reshape(keys.size, q, q)
        numbers = _Numbering(n_raters * n_raters)
        tables = np.zeros(0, dtype=np.int64)
        for key, cell in self.pair_codes(n_raters, q, batch):
            number = numbers(key)
            number *= qq
            cell += number
            if max_cells is not None and numbers.count * qq > max_cells:
                return None
            counts = np.bincount(cell, minlength=numbers.count * qq)
            if counts.size > tables.size:  # pairs met for the first time
                tables = np.concatenate([tables, np.zeros(counts.size - tables.size, np.int64)])
            tables += counts
        keys = numbers.keys()
        order = np.argsort(keys)
        return keys[order], tables.reshape(keys.size, q, q)[order]


def _summed_tables(
    parts: list[tuple[IntArray, IntArray] | None], q: int, max_cells: int | None
) -> tuple[IntArray, IntArray] | None:
    """The keys and tables of several runs (each as :meth:`ItemGroups.pair_tables` gives
    them) summed pair by pair; None when a run's, or the sum's, would pass ``max_cells``."""
    counted = [part for part in parts if part is not None]
    if len(counted) < len(parts):
        return None
    keys = np.unique(np.concatenate([k for k, _ in counted]))
    if max_cells is not None and keys.size * q * q > max_cells:
        return None
    tables = np.zeros((keys.size, q, q), dtype=np.int64)
    for run_keys, run_tables in counted:
        tables[np.searchsorted(keys, run_keys)] += run_tables  # a run names a pair once
    return keys, tables


class _Numbering:
    """Numbers ``0, 1, ...`` for keys below ``size``, in the order they are first met (a
    dense lookup)."""

    def __init__(self, size: int) -> None:
        self.lookup = np.full(size, -1, dtype=np.int64)
        self.met: list[IntArray] = []
        self.count = 0

    def __call__(self, key: IntArray) -> IntArray:
        """The numbers of ``key``, numbering the keys not met before."""
        number: IntArray | None = None
        new = key
        if self.count:  # the first call numbers every key
            number = self.lookup[key]
            miss = number < 0
            if not np.any(miss):
                return number
            new = key[miss]
        if 64 * new.size < self.lookup.size:  # few: sorted
            fresh = np.unique(new)
        else:  # many: marked in a dense array
            mark = np.zeros(self.lookup.size, dtype=bool)
            mark[new] = True
            fresh = np.flatnonzero(mark)
        self.lookup[fresh] = np.arange(self.count, self.count + fresh.size)
        self.count += int(fresh.size)
        self.met.append(fresh)
        if number is not None and 4 * new.size < key.size:  # a few new: fill them in
            number[miss] = self.lookup[new]
            return number
        result: IntArray = self.lookup[key]
        return result

    def keys(self) -> IntArray:
        """The keys met, in the order of their numbers."""
        return np.concatenate(self.met).astype(np.int64) if self.met else np.zeros(0, np.int64)


def _joined(parts: list[IntArray]) -> IntArray:
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


#: Per-pair overhead of the code-row path, in item-equivalents (one bincount call).
_CALL_COST = 5_000


def rater_code_rows(
    ratings: Ratings, *, check_cost: bool = True
) -> npt.NDArray[np.signedinteger[Any]] | None:
    """Raters x items matrix of label codes, ``q`` where a rater did not rate an item.

    The smallest integer type that holds ``q`` (int8 for up to 126 categories). Returns
    None for fewer than two raters, a sparse design (over four cells per rating), when an
    (item, rater) pair is rated twice (a :class:`~accord.Ratings` built by its constructors
    never has one), and with ``check_cost`` when the per-pair passes would cost more than
    expanding the pairs of ratings (many raters on few items, or small data).
    """
    n_i, n_r, q = ratings.n_items, ratings.n_raters, ratings.n_categories
    big_n = ratings.n_ratings
    cells = n_i * n_r
    if n_r < 2 or n_i == 0 or big_n == 0 or cells > 4 * big_n + 1_000_000:
        return None
    # Row path: one bincount over the items per rater pair. Pair expansion: one row per
    # co-rated pair of ratings, at least N^2/n_i - N of them, each some 20 times dearer.
    pair_passes = n_r * (n_r - 1) // 2 * (n_i + _CALL_COST)
    if check_cost and pair_passes > 10 * (big_n * big_n / n_i - big_n):
        return None
    dtype: np.dtype[Any] = np.dtype(np.int8 if q < 127 else np.int16 if q < 32767 else np.int32)
    flat = np.full(cells, q, dtype=dtype)
    flat[ratings.rater_codes * n_i + ratings.item_codes] = ratings.label_codes
    if int(np.count_nonzero(flat != q)) != big_n:
        return None
    rows: npt.NDArray[np.signedinteger[Any]] = flat.reshape(n_r, n_i)
    return rows


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class PairTables(Result):
    """Contingency tables of every rater pair that co-rated an item.

    Attributes
    ----------
    pairs : ndarray of int64, shape (n_pairs, 2)
        Rater codes ``(a, b)`` with ``a < b``, sorted.
    tables : ndarray of int64, shape (n_pairs, q, q)
        ``tables[p, x, y]`` = items that rater ``a`` labelled ``x`` and rater ``b`` labelled
        ``y``.
    raters : ndarray of object
        The rater decode table.
    categories : tuple
        The category domain.

    Examples
    --------
    >>> import accord
    >>> r = accord.Ratings.from_wide([["y", "y", "n"], ["n", "n", "n"]])
    >>> pt = PairTables.from_ratings(r)
    >>> pt.pairs.tolist()
    [[0, 1], [0, 2], [1, 2]]
    >>> pt.table(0, 2).counts.tolist()
    [[1.0, 0.0], [1.0, 0.0]]
    """

    pairs: IntArray
    tables: IntArray
    raters: Any
    categories: tuple[Any, ...]

    @property
    def n_pairs(self) -> int:
        """Number of rater pairs that co-rated at least one item."""
        return int(self.pairs.shape[0])

    def table(self, a: int, b: int) -> ContingencyTable:
        """The :class:`~accord.ContingencyTable` of raters with codes ``a`` and ``b``."""
        lo, hi = (a, b) if a < b else (b, a)
        hit = np.flatnonzero((self.pairs[:, 0] == lo) & (self.pairs[:, 1] == hi))
        if hit.size == 0:
            raise InvalidInputError(
                f"raters {self.raters[a]!r} and {self.raters[b]!r} rated no item in common"
            )
        counts = self.tables[hit[0]]
        if a > b:
            counts = counts.T
        return ContingencyTable(
            counts, self.categories, raters=(str(self.raters[a]), str(self.raters[b]))
        )

    def merge(self, other: PairTables | PairCells) -> PairTables | PairCells:
        """Tables of the union of the ratings (same dictionaries; each item's ratings must all
        be on one side, since pairs are formed within items); filled cells
        (:class:`PairCells`) when ``other`` holds its cells."""
        if isinstance(other, PairCells):
            return other.merge(self)
        if other.categories != self.categories:
            raise InvalidInputError("cannot merge pair tables over different category domains")
        n_raters = max(len(self.raters), len(other.raters))
        raters = self.raters if len(self.raters) >= len(other.raters) else other.raters
        keys = np.r_[
            self.pairs[:, 0] * n_raters + self.pairs[:, 1],
            other.pairs[:, 0] * n_raters + other.pairs[:, 1],
        ]
        stacked = np.concatenate([self.tables, other.tables])
        uniq, inv = np.unique(keys, return_inverse=True)
        q = len(self.categories)
        tables = np.zeros((uniq.size, q, q), dtype=np.int64)
        np.add.at(tables, inv, stacked)
        pairs = np.stack([uniq // n_raters, uniq % n_raters], axis=1).astype(np.int64)
        return PairTables(pairs, tables, raters, self.categories)

    def equals(self, other: PairTables) -> bool:
        """Exact equality of pairs, tables and categories."""
        return (
            self.categories == other.categories
            and np.array_equal(self.pairs, other.pairs)
            and np.array_equal(self.tables, other.tables)
        )

    @classmethod
    def from_code_rows(
        cls,
        rows: npt.NDArray[np.signedinteger[Any]],
        raters: Any,
        categories: tuple[Any, ...],
    ) -> PairTables:
        """Every co-rating pair's table from a raters x items code matrix (``q`` = no rating).

        One ``bincount`` over the items per pair of raters (:func:`rater_code_rows`).
        """
        n_r = int(rows.shape[0])
        q = len(categories)
        width = q + 1
        rated = np.flatnonzero((rows != q).any(axis=1))
        keys: list[int] = []
        tables: list[IntArray] = []
        for i, a in enumerate(rated[:-1]):
            row_a = rows[a].astype(np.intp) * width
            for b in rated[i + 1 :]:
                full = np.bincount(row_a + rows[b], minlength=width * width)
                table = full.reshape(width, width)[:q, :q]
                if table.any():
                    keys.append(int(a) * n_r + int(b))
                    tables.append(table)
        key_arr = np.asarray(keys, dtype=np.int64)
        pairs = np.stack([key_arr // max(n_r, 1), key_arr % max(n_r, 1)], axis=1)
        stacked = (
            np.stack(tables).astype(np.int64, copy=False)
            if tables
            else np.zeros((0, q, q), np.int64)
        )
        return cls(pairs.astype(np.int64), np.ascontiguousarray(stacked), raters, categories)

    @classmethod
    def from_ratings(cls, ratings: Ratings) -> PairTables:
        """Build every co-rating pair's table: from the raters x items code matrix when the
        design is dense enough (:func:`rater_code_rows`), else by expanding the pairs of
        ratings within items (chunked)."""
        rows = rater_code_rows(ratings)
        if rows is not None:
            return cls.from_code_rows(rows, ratings.raters, ratings.categories)
        return cls._from_pair_expansion(ratings)

    @classmethod
    def _from_pair_expansion(cls, ratings: Ratings) -> PairTables:
        """Every co-rating pair's table from the pairs of ratings within items, in batches
        (:meth:`ItemGroups.pairs`): one cell per rater pair that co-rated and label pair."""
        counted, _ = rater_pair_counts(ratings)
        assert counted is not None  # no cap on the cells
        keys, tables = counted
        n_r = ratings.n_raters
        return cls(_key_pairs(keys, n_r), tables, ratings.raters, ratings.categories)

    @classmethod
    def from_groups(
        cls, groups: ItemGroups, raters: Any, categories: tuple[Any, ...]
    ) -> PairTables:
        """Every co-rating pair's table from ratings grouped by item (:class:`ItemGroups`;
        ``raters`` is the decode table, its size the number of raters)."""
        n_r = len(raters)
        counted = groups.pair_tables(n_r, len(categories))
        assert counted is not None  # no cap on the cells
        keys, tables = counted
        return cls(_key_pairs(keys, n_r), tables, raters, categories)


def _key_pairs(keys: IntArray, n_raters: int) -> IntArray:
    """Rater codes ``(a, b)`` of the keys ``a * n_raters + b``, shape (n_keys, 2)."""
    return np.stack([keys // max(n_raters, 1), keys % max(n_raters, 1)], axis=1).astype(np.int64)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class PairAgreement:
    """What unweighted agreement of each rater pair needs, without its q x q table.

    Attributes
    ----------
    pairs : ndarray of int64, shape (n_pairs, 2)
        Rater codes ``(a, b)`` with ``a < b`` of the pairs that co-rated an item, sorted.
    n : ndarray of int64, shape (n_pairs,)
        Items both raters rated (the table's total).
    agree : ndarray of int64, shape (n_pairs,)
        Of those, items they gave the same label (the table's trace).
    chance : ndarray of float64, shape (n_pairs,)
        ``sum_k R_k C_k``: the products of the two raters' category counts on their common
        items (the table's row and column sums), so that chance agreement is
        ``chance / n**2``.
    """

    pairs: IntArray
    n: IntArray
    agree: IntArray
    chance: npt.NDArray[np.float64]


def pair_agreement(ratings: Ratings) -> PairAgreement:
    """The trace, total and marginal products of every co-rating pair's table: memory
    follows the rater pairs that co-rated times the categories (the two margins of each
    table), never q x q per rater pair, so many categories cost nothing extra.

    The pairs of ratings within items are visited in batches (:meth:`ItemGroups.pairs`) and
    counted by rater pair with ``bincount``: the co-rated items ``n``, those with the same
    label ``agree``, and the margins ``R[p, k]`` (items rater ``a`` of pair ``p`` labelled
    ``k``) and ``C[p, k]`` (rater ``b``), so that ``chance[p] = sum_k R[p, k] C[p, k]``.

    Examples
    --------
    >>> import accord
    >>> r = accord.Ratings.from_wide([["y", "y", "n"], ["n", "n", "n"]])
    >>> pa = pair_agreement(r)
    >>> pa.pairs.tolist(), pa.n.tolist(), pa.agree.tolist(), pa.chance.tolist()
    ([[0, 1], [0, 2], [1, 2]], [2, 2, 2], [2, 1, 1], [2.0, 2.0, 2.0])
    """
    q, n_r = ratings.n_categories, ratings.n_raters
    counted, groups = rater_pair_counts(ratings, max_cells=CHUNK_PAIRS)
    if counted is not None:  # tables no larger than a batch of pairs (or counted before)
        keys, tables = counted
        n = tables.sum(axis=(1, 2))
        agree = np.trace(tables, axis1=1, axis2=2)
        rows, cols = tables.sum(axis=2), tables.sum(axis=1)
    else:
        assert groups is not None
        keys = groups.pair_keys(n_r)
        n, agree, rows, cols = _pair_margins(groups, keys, n_r, q)
    chance = (rows * cols).sum(axis=1).astype(np.float64)
    return PairAgreement(_key_pairs(keys, n_r), n, agree, chance)


#: Rater-pair tables of at most this many cells are kept with the ratings they were counted
#: from (:attr:`Ratings.derived`): Light's kappa in the agreement table and the pairwise
#: tables count the same pairs of ratings.
KEPT_CELLS = CHUNK_PAIRS


def rater_pair_counts(
    ratings: Ratings, max_cells: int | None = None
) -> tuple[tuple[IntArray, IntArray] | None, ItemGroups | None]:
    """The co-rating rater pairs' keys and q x q tables of ``ratings``
    (:meth:`ItemGroups.pair_tables`; None beyond ``max_cells`` cells), and the groups they
    were counted from (None when the tables were counted before: those of at most
    :data:`KEPT_CELLS` cells are kept with the ratings)."""
    kept = ratings.derived.get("rater_pair_tables")
    if kept is not None:  # copies: what a caller does with its arrays leaves these alone
        return (kept[0].copy(), kept[1].copy()), None
    groups = ItemGroups.from_ratings(ratings)
    counted = groups.pair_tables(ratings.n_raters, ratings.n_categories, max_cells)
    if counted is not None and counted[1].size <= KEPT_CELLS:
        ratings.derived["rater_pair_tables"] = (counted[0].copy(), counted[1].copy())
    return counted, groups


def _pair_margins(
    groups: ItemGroups, keys: IntArray, n_r: int, q: int
) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Per rater pair (``keys``): co-rated items, those with the same label, and the two
    raters' category counts on them, shape (n_pairs, q) each, without the q x q tables."""
    index = groups.pair_index(keys, n_r)
    n = np.zeros(keys.size, dtype=np.int64)
    agree = np.zeros(keys.size, dtype=np.int64)
    rows = np.zeros(keys.size * q, dtype=np.int64)  # (pair, category) margins of each table
    cols = np.zeros(keys.size * q, dtype=np.int64)
    for key, cell in groups.pair_codes(n_r, q):
        pair = index(key)
        la, lb = np.divmod(cell, q)
        n += np.bincount(pair, minlength=keys.size)
        agree += np.bincount(pair[la == lb], minlength=keys.size)
        pair *= q
        rows += np.bincount(pair + la, minlength=rows.size)
        cols += np.bincount(pair + lb, minlength=cols.size)
    return n, agree, rows.reshape(keys.size, q), cols.reshape(keys.size, q)


def sparse_pairs(n_raters: int, q: int) -> bool:
    """Whether the rater pairs' tables are held as their filled cells (:class:`PairCells`):
    when dense tables for every pair of raters would hold over :data:`PAIR_TABLE_CELLS`
    cells (many categories, as continuous scores or free-text labels make).

    >>> sparse_pairs(3, 5), sparse_pairs(2, 100_000)
    (False, True)
    """
    return n_raters * (n_raters - 1) // 2 * q * q > PAIR_TABLE_CELLS


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class PairCells(Result):
    """The rater-pair contingency tables of :class:`PairTables` held as their filled cells:
    memory follows the distinct (rater pair, label pair) combinations met, never q x q.

    Attributes
    ----------
    pairs : ndarray of int64, shape (n_pairs, 2)
        Rater codes ``(a, b)`` with ``a < b`` of the pairs that co-rated an item, sorted.
    pair, x, y, count : ndarray of int64, shape (n_cells,)
        Cell ``j`` of pair ``pairs[pair[j]]``: ``count[j]`` items that rater ``a`` labelled
        ``x[j]`` and rater ``b`` labelled ``y[j]`` (sorted by pair, x, y; no zero counts).
    raters : ndarray of object
        The rater decode table.
    categories : tuple
        The category domain.

    Examples
    --------
    >>> import accord
    >>> r = accord.Ratings.from_wide([["y", "y", "n"], ["n", "n", "n"]])
    >>> pc = PairCells.from_ratings(r)
    >>> pc.pairs.tolist(), pc.count.tolist()
    ([[0, 1], [0, 2], [1, 2]], [1, 1, 1, 1, 1, 1])
    >>> pc.agreement().agree.tolist()
    [2, 1, 1]
    """

    pairs: IntArray
    pair: IntArray
    x: IntArray
    y: IntArray
    count: IntArray
    raters: Any
    categories: tuple[Any, ...]

    @property
    def n_pairs(self) -> int:
        """Number of rater pairs that co-rated at least one item."""
        return int(self.pairs.shape[0])

    @classmethod
    def from_ratings(cls, ratings: Ratings) -> PairCells:
        """The filled cells of every co-rating pair's table, from the pairs of ratings
        within items (in batches, :meth:`ItemGroups.pair_codes`)."""
        return cls.from_groups(ItemGroups.from_ratings(ratings), ratings.raters, ratings.categories)

    @classmethod
    def from_groups(cls, groups: ItemGroups, raters: Any, categories: tuple[Any, ...]) -> PairCells:
        """The filled cells from ratings grouped by item (:class:`ItemGroups`): counted in
        the pairs' dense tables while those hold at most :data:`COUNTED_CELLS` cells (a
        ``bincount`` a batch), else by sorting each batch's cells. The tables are tried only
        where the pairs are numbered as they are met (raters^2 within :data:`DENSE_CELLS`),
        which gives up on the first batch of too many pairs; with more raters they would
        first pass over every pair for its key, a pass the sort would then make again."""
        n_r, q = len(raters), len(categories)
        numbered = n_r * n_r <= DENSE_CELLS
        dense = groups.pair_tables(n_r, q, max_cells=COUNTED_CELLS) if numbered else None
        if dense is not None:
            keys, tables = dense
            return cls.from_tables(PairTables(_key_pairs(keys, n_r), tables, raters, categories))

        def counted(run: ItemGroups) -> list[tuple[IntArray, IntArray, IntArray, IntArray]]:
            return [
                _cell_counts(key, *np.divmod(cell, q), np.ones(key.size, np.int64))
                for key, cell in run.pair_codes(n_r, q)
            ]

        # runs of whole items side by side (numpy's sums and sorts release the GIL); the
        # cells of every run are summed at the end, so the tables are the same
        runs = in_threads(counted, groups.split(usable_cores() if groups.item.size >= SPLIT else 1))
        return _from_keyed([part for run in runs for part in run], n_r, raters, categories)

    @classmethod
    def from_tables(cls, tables: PairTables) -> PairCells:
        """The filled cells of dense :class:`PairTables`."""
        p, x, y = np.nonzero(tables.tables)
        return cls(
            tables.pairs,
            p.astype(np.int64),
            x.astype(np.int64),
            y.astype(np.int64),
            tables.tables[p, x, y].astype(np.int64),
            tables.raters,
            tables.categories,
        )

    def keys(self, n_raters: int) -> IntArray:
        """The rater pair key ``a * n_raters + b`` of every cell."""
        out: IntArray = self.pairs[self.pair, 0] * n_raters + self.pairs[self.pair, 1]
        return out

    def merge(self, other: PairTables | PairCells) -> PairCells:
        """Cells of the union of the ratings (as :meth:`PairTables.merge`)."""
        if other.categories != self.categories:
            raise InvalidInputError("cannot merge pair tables over different category domains")
        if isinstance(other, PairTables):
            other = PairCells.from_tables(other)
        n_r = max(len(self.raters), len(other.raters))
        raters = self.raters if len(self.raters) >= len(other.raters) else other.raters
        parts = [(c.keys(n_r), c.x, c.y, c.count) for c in (self, other)]
        return _from_keyed(parts, n_r, raters, self.categories)

    def agreement(self) -> PairAgreement:
        """Each pair's co-rated items, same-label items and marginal products
        (:class:`PairAgreement`), from the cells alone."""
        n_p, q = self.n_pairs, len(self.categories)
        n = np.bincount(self.pair, weights=self.count, minlength=n_p).astype(np.int64)
        same = self.x == self.y
        agree = np.bincount(self.pair[same], weights=self.count[same], minlength=n_p)
        rows_key, rows = _summed(self.pair * q + self.x, self.count)
        cols_key, cols = _summed(self.pair * q + self.y, self.count)
        common, i, j = np.intersect1d(rows_key, cols_key, assume_unique=True, return_indices=True)
        chance = np.asarray(
            np.bincount(common // max(q, 1), weights=rows[i] * cols[j], minlength=n_p),
            dtype=np.float64,
        )
        return PairAgreement(self.pairs, n, agree.astype(np.int64), chance)


def _summed(key: IntArray, count: IntArray) -> tuple[IntArray, IntArray]:
    """The distinct ``key`` values (sorted) and the ``count`` summed over each."""
    uniq, inverse = np.unique(key, return_inverse=True)
    return uniq, np.bincount(inverse.reshape(-1), weights=count, minlength=uniq.size).astype(
        np.int64
    )


def _cell_counts(
    key: IntArray, x: IntArray, y: IntArray, count: IntArray
) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """The distinct ``(key, x, y)`` cells, sorted, with their counts summed.

    With ``x`` and ``y`` in ``0 .. q-1``, the cells are numbered ``(key * q + x) * q + y``
    and sorted as one integer (several times faster than a sort on three keys; the same
    order), unless the number would pass int64.
    """
    if key.size == 0:
        return key, x, y, count
    q = int(max(x.max(), y.max())) + 1
    top = int(key.max())
    if int(key.min()) >= 0 and int(min(x.min(), y.min())) >= 0 and top < (1 << 62) // (q * q):
        cell = key.astype(np.int64) * (q * q) + x * q + y
        ones = bool(np.all(count == 1))  # one count a pair: a sort of the numbers alone
        order = None if ones else np.argsort(cell)
        cell = np.sort(cell) if order is None else cell[order]
        start = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]])
        counts = (
            np.diff(np.r_[start, cell.size]).astype(count.dtype, copy=False)
            if order is None
            else np.add.reduceat(count[order], start)
        )
        rest, y_kept = np.divmod(cell[start], q)
        key_kept, x_kept = np.divmod(rest, q)
        return (
            key_kept.astype(key.dtype, copy=False),
            x_kept.astype(x.dtype, copy=False),
            y_kept.astype(y.dtype, copy=False),
            counts,
        )
    order = np.lexsort((y, x, key))
    key, x, y, count = key[order], x[order], y[order], count[order]
    start = np.flatnonzero(
        np.r_[True, (key[1:] != key[:-1]) | (x[1:] != x[:-1]) | (y[1:] != y[:-1])]
    )
    return key[start], x[start], y[start], np.add.reduceat(count, start)


def _from_keyed(
    parts: list[tuple[IntArray, IntArray, IntArray, IntArray]],
    n_raters: int,
    raters: Any,
    categories: tuple[Any, ...],
) -> PairCells:
    """:class:`PairCells` from batches of cells keyed by rater pair ``a * n_raters + b``."""
    empty = np.zeros(0, np.int64)
    joined = [np.concatenate([p[k] for p in parts]) if parts else empty for k in range(4)]
    key, x, y, count = _cell_counts(*(a.astype(np.int64, copy=False) for a in joined))
    uniq, pair = np.unique(key, return_inverse=True)
    return PairCells(
        _key_pairs(uniq, n_raters), pair.reshape(-1).astype(np.int64), x, y, count, raters,
        categories,
    )  # fmt: skip


def pair_statistic(ratings: Ratings) -> PairTables | PairCells:
    """The rater pairs' tables of ``ratings``: dense :class:`PairTables`, or their filled
    cells (:class:`PairCells`) when dense tables would be too large (:func:`sparse_pairs`)."""
    if sparse_pairs(ratings.n_raters, ratings.n_categories):
        return PairCells.from_ratings(ratings)
    return PairTables.from_ratings(ratings)
