"""Rater-pair contingency tables, for the pairs of raters that co-rated at least one item."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import InvalidInputError
from .._results import Result
from .._types import IntArray
from ..data.ratings import Ratings
from ..data.table import ContingencyTable

__all__ = [
    "PAIR_TABLE_CELLS",
    "ItemGroups",
    "PairAgreement",
    "PairTables",
    "pair_agreement",
    "rater_code_rows",
]

#: Pairs of ratings per batch of the pair passes (bounds their memory).
CHUNK_PAIRS = 4_000_000
#: Dense accumulator (raters^2 x q^2 cells) allowed up to this size.
DENSE_CELLS = 20_000_000

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
        """Group by a counting sort on the items (each item's few raters sorted in place);
        a full sort only when an (item, rater) pair is rated twice."""
        from scipy import sparse

        n = ratings.n_ratings
        by_item = sparse.csr_array(
            (
                ratings.label_codes.astype(np.int64) + 1,
                (ratings.item_codes, ratings.rater_codes),
            ),
            shape=(ratings.n_items, ratings.n_raters),
        )
        if by_item.nnz == n:  # canonical: raters sorted within each item
            sizes = np.diff(by_item.indptr)
            item = np.repeat(np.arange(ratings.n_items, dtype=np.int64), sizes)
            rater = by_item.indices.astype(np.int64)
            label = by_item.data - 1
            ends = np.repeat(by_item.indptr[1:].astype(np.int64), sizes)
        else:
            order = np.lexsort((ratings.rater_codes, ratings.item_codes))
            item = ratings.item_codes[order].astype(np.int64)
            rater = ratings.rater_codes[order].astype(np.int64)
            label = ratings.label_codes[order].astype(np.int64)
            ends = np.searchsorted(item, item, side="right")
        return cls(item, rater, label, ends - np.arange(n) - 1)

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
        starts = np.flatnonzero(np.r_[True, item[1:] != item[:-1]]) if n else np.zeros(0, np.intp)
        sizes = np.diff(np.r_[starts, n])
        ends = np.repeat(starts + sizes, sizes).astype(np.int64)
        item, rater, label = (np.asarray(x, dtype=np.int64) for x in (item, rater, label))
        return cls(item, rater, label, ends - np.arange(n, dtype=np.int64) - 1)

    def pairs(self) -> Iterator[tuple[IntArray, IntArray]]:
        """Positions ``(left, right)`` of every pair of ratings within an item, ``left``
        first, in batches of about :data:`CHUNK_PAIRS` pairs.

        One pass per distance between the two ratings of a pair, over the ratings that have
        a partner that far: every step reads the ratings in order (no array of pairs of
        every item at once).
        """
        left = np.flatnonzero(self.rest >= 1)
        gap = 1
        lefts: list[IntArray] = []  # small passes, joined into one batch
        held = 0
        while left.size:
            for lo in range(0, left.size, CHUNK_PAIRS):
                part = left[lo : lo + CHUNK_PAIRS]
                if 4 * part.size >= CHUNK_PAIRS:
                    yield part, part + gap
                    continue
                lefts.append(part)
                lefts.append(part + gap)
                held += part.size
                if held >= CHUNK_PAIRS // 4:
                    yield _joined(lefts[::2]), _joined(lefts[1::2])
                    lefts, held = [], 0
            gap += 1
            left = left[self.rest[left] >= gap]
        if held:
            yield _joined(lefts[::2]), _joined(lefts[1::2])

    def pair_keys(self, n_raters: int) -> tuple[IntArray, IntArray]:
        """The rater pairs that co-rated an item, as increasing keys ``a * n_raters + b``
        (``a < b``), and how many items each co-rated."""
        size = n_raters * n_raters
        if size <= DENSE_CELLS:
            acc = np.zeros(size, dtype=np.int64)
            for left, right in self.pairs():
                acc += np.bincount(self.rater[left] * n_raters + self.rater[right], minlength=size)
            keys = np.flatnonzero(acc).astype(np.int64)
            return keys, acc[keys]
        parts = [
            np.unique(self.rater[left] * n_raters + self.rater[right], return_counts=True)
            for left, right in self.pairs()
        ]
        if not parts:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        return _merge_cells(parts)

    def pair_index(self, keys: IntArray, n_raters: int) -> Callable[[IntArray, IntArray], IntArray]:
        """``index(left, right)``: the position in ``keys`` of the rater pair of each pair of
        ratings (``keys`` from :meth:`pair_keys`)."""
        size = n_raters * n_raters
        if size <= DENSE_CELLS:
            lookup = np.zeros(size, dtype=np.int64)
            lookup[keys] = np.arange(keys.size)
            return lambda left, right: lookup[self.rater[left] * n_raters + self.rater[right]]
        return lambda left, right: np.searchsorted(
            keys, self.rater[left] * n_raters + self.rater[right]
        )


def _joined(parts: list[IntArray]) -> IntArray:
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _merge_cells(parts: list[tuple[IntArray, IntArray]]) -> tuple[IntArray, IntArray]:
    """Sorted distinct keys and summed counts of several ``np.unique`` results."""
    if len(parts) == 1:
        return parts[0][0].astype(np.int64), parts[0][1].astype(np.int64)
    keys = np.concatenate([k for k, _ in parts])
    counts = np.concatenate([c for _, c in parts])
    uniq, inverse = np.unique(keys, return_inverse=True)
    summed: IntArray = np.bincount(inverse, weights=counts, minlength=uniq.size).astype(np.int64)
    return uniq.astype(np.int64), summed


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

    def merge(self, other: PairTables) -> PairTables:
        """Tables of the union of the ratings (same dictionaries; each item's ratings must all
        be on one side, since pairs are formed within items)."""
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
        return cls.from_groups(ItemGroups.from_ratings(ratings), ratings.raters, ratings.categories)

    @classmethod
    def from_groups(
        cls, groups: ItemGroups, raters: Any, categories: tuple[Any, ...]
    ) -> PairTables:
        """Every co-rating pair's table from ratings grouped by item (:class:`ItemGroups`;
        ``raters`` is the decode table, its size the number of raters)."""
        q, n_r = len(categories), len(raters)
        qq = q * q
        keys, _ = groups.pair_keys(n_r)
        index = groups.pair_index(keys, n_r)
        tables = np.zeros(keys.size * qq, dtype=np.int64)
        label = groups.label
        for left, right in groups.pairs():
            cell = index(left, right) * qq + label[left] * q + label[right]
            tables += np.bincount(cell, minlength=tables.size)
        pairs = np.stack([keys // max(n_r, 1), keys % max(n_r, 1)], axis=1).astype(np.int64)
        return cls(pairs, tables.reshape(keys.size, q, q), raters, categories)


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
    groups = ItemGroups.from_ratings(ratings)
    keys, n = groups.pair_keys(n_r)
    index = groups.pair_index(keys, n_r)
    agree = np.zeros(keys.size, dtype=np.int64)
    rows = np.zeros(keys.size * q, dtype=np.int64)  # (pair, category) margins of each table
    cols = np.zeros(keys.size * q, dtype=np.int64)
    label = groups.label
    for left, right in groups.pairs():
        pair = index(left, right)
        la, lb = label[left], label[right]
        agree += np.bincount(pair[la == lb], minlength=keys.size)
        rows += np.bincount(pair * q + la, minlength=rows.size)
        cols += np.bincount(pair * q + lb, minlength=cols.size)
    chance = (rows * cols).reshape(keys.size, q).sum(axis=1).astype(np.float64)
    pairs = np.stack([keys // max(n_r, 1), keys % max(n_r, 1)], axis=1).astype(np.int64)
    return PairAgreement(pairs, n, agree, chance)
