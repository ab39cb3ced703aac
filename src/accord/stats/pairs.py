"""Rater-pair contingency tables, for the pairs of raters that co-rated at least one item."""

from __future__ import annotations

import dataclasses
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
    "PairAgreement",
    "PairTables",
    "pair_agreement",
    "pairs_within_items",
    "rater_code_rows",
]

#: Pair rows generated per chunk of items (bounds the memory of the pair expansion).
CHUNK_PAIRS = 4_000_000
#: Dense accumulator (raters^2 x q^2 cells) allowed up to this size.
DENSE_CELLS = 20_000_000

#: Above this many cells (rater pairs x q x q), unweighted pairwise statistics come from
#: :func:`pair_agreement` (memory proportional to the ratings) instead of dense tables.
PAIR_TABLE_CELLS = 20_000_000


def pairs_within_items(
    rater: IntArray, label: IntArray, starts: IntArray, sizes: IntArray, offset: int
) -> tuple[IntArray, IntArray, IntArray]:
    """All within-item pairs (a, b) with a before b, for ratings sorted by (item, rater).

    Parameters
    ----------
    rater, label : ndarray, shape (n,)
        Codes of the ratings of the chunk, sorted by item then rater.
    starts, sizes : ndarray, shape (items,)
        Start (relative to ``offset``) and size of each item's run.

    Returns
    -------
    rater_a, rater_b : ndarray, shape (pairs,)
        Rater codes of each pair (``rater_a < rater_b``).
    positions : ndarray, shape (2, pairs)
        Positions of the two ratings of each pair within the chunk.
    """
    n = int(sizes.sum())
    ends = np.repeat(starts - offset + sizes, sizes)
    pos = np.arange(n)
    n_partners = ends - 1 - pos
    total = int(n_partners.sum())
    left = np.repeat(pos, n_partners)
    first_of = np.repeat(np.cumsum(n_partners) - n_partners, n_partners)
    right = left + 1 + (np.arange(total) - first_of)
    return rater[left], rater[right], np.stack([left, right])


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
        """Every co-rating pair's table in vectorised passes over items (chunked)."""
        q = ratings.n_categories
        n_r = ratings.n_raters
        qq = q * q
        order = np.lexsort((ratings.rater_codes, ratings.item_codes))
        item = ratings.item_codes[order]
        rater = ratings.rater_codes[order]
        label = ratings.label_codes[order]
        if item.size == 0:
            return cls(
                np.zeros((0, 2), np.int64),
                np.zeros((0, q, q), np.int64),
                ratings.raters,
                ratings.categories,
            )
        starts = np.flatnonzero(np.r_[True, item[1:] != item[:-1]])
        sizes = np.diff(np.r_[starts, item.size])
        pair_counts = sizes * (sizes - 1) // 2
        cum = np.cumsum(pair_counts)
        dense = n_r * n_r * qq <= DENSE_CELLS
        acc = np.zeros(n_r * n_r * qq if dense else 0, dtype=np.int64)
        keys_parts: list[IntArray] = []
        counts_parts: list[IntArray] = []
        lo = 0
        n_items = starts.size
        while lo < n_items:
            base = int(cum[lo - 1]) if lo else 0
            hi = int(np.searchsorted(cum, base + CHUNK_PAIRS, side="right"))
            hi = max(hi, lo + 1)
            s = starts[lo:hi]
            z = sizes[lo:hi]
            a0 = int(s[0])
            a1 = int(s[-1] + z[-1])
            ra, rb, pos = pairs_within_items(rater[a0:a1], label[a0:a1], s, z, a0)
            lab = label[a0:a1]
            key = (ra * n_r + rb) * qq + lab[pos[0]] * q + lab[pos[1]]
            if dense:
                acc += np.bincount(key, minlength=acc.size)
            else:
                u, c = np.unique(key, return_counts=True)
                keys_parts.append(u)
                counts_parts.append(c)
            lo = hi
        if dense:
            nz_pairs = np.flatnonzero(acc.reshape(n_r * n_r, qq).any(axis=1))
            tables = acc.reshape(n_r * n_r, q, q)[nz_pairs]
            pair_keys = nz_pairs
        else:
            allk = np.concatenate(keys_parts)
            allc = np.concatenate(counts_parts)
            uk, inv = np.unique(allk, return_inverse=True)
            summed = np.bincount(inv, weights=allc).astype(np.int64)
            pk, pinv = np.unique(uk // qq, return_inverse=True)
            tables = np.zeros((pk.size, qq), dtype=np.int64)
            tables[pinv, uk % qq] = summed
            tables = tables.reshape(pk.size, q, q)
            pair_keys = pk
        pairs = np.stack([pair_keys // n_r, pair_keys % n_r], axis=1).astype(np.int64)
        return cls(pairs, np.ascontiguousarray(tables), ratings.raters, ratings.categories)


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
    """The trace, total and marginal products of every co-rating pair's table, from the
    pairs of ratings within items (chunked): memory follows the pairs of ratings, never
    q x q per rater pair, so many categories cost nothing extra.

    Examples
    --------
    >>> import accord
    >>> r = accord.Ratings.from_wide([["y", "y", "n"], ["n", "n", "n"]])
    >>> pa = pair_agreement(r)
    >>> pa.pairs.tolist(), pa.n.tolist(), pa.agree.tolist(), pa.chance.tolist()
    ([[0, 1], [0, 2], [1, 2]], [2, 2, 2], [2, 1, 1], [2.0, 2.0, 2.0])
    """
    q = ratings.n_categories
    n_r = ratings.n_raters
    order = np.lexsort((ratings.rater_codes, ratings.item_codes))
    item = ratings.item_codes[order]
    rater = ratings.rater_codes[order]
    label = ratings.label_codes[order]
    empty = np.zeros(0, np.int64)
    if item.size == 0:
        return PairAgreement(np.zeros((0, 2), np.int64), empty, empty, np.zeros(0))
    starts = np.flatnonzero(np.r_[True, item[1:] != item[:-1]])
    sizes = np.diff(np.r_[starts, item.size])
    cum = np.cumsum(sizes * (sizes - 1) // 2)
    size = n_r * n_r
    n = np.zeros(size, np.int64)
    agree = np.zeros(size, np.int64)
    row_parts: list[tuple[IntArray, IntArray]] = []
    col_parts: list[tuple[IntArray, IntArray]] = []
    lo = 0
    while lo < starts.size:
        base = int(cum[lo - 1]) if lo else 0
        hi = max(int(np.searchsorted(cum, base + CHUNK_PAIRS, side="right")), lo + 1)
        s, z = starts[lo:hi], sizes[lo:hi]
        a0, a1 = int(s[0]), int(s[-1] + z[-1])
        ra, rb, pos = pairs_within_items(rater[a0:a1], label[a0:a1], s, z, a0)
        lab = label[a0:a1]
        la, lb = lab[pos[0]], lab[pos[1]]
        key = ra.astype(np.int64) * n_r + rb
        n += np.bincount(key, minlength=size)
        agree += np.bincount(key[la == lb], minlength=size)
        # (pair, category) cells of the two margins: as many as the pairs of ratings.
        row_parts.append(np.unique(key * q + la, return_counts=True))
        col_parts.append(np.unique(key * q + lb, return_counts=True))
        lo = hi
    row_keys, row_counts = _merge_cells(row_parts)
    col_keys, col_counts = _merge_cells(col_parts)
    common, i_row, i_col = np.intersect1d(row_keys, col_keys, assume_unique=True,
                                          return_indices=True)  # fmt: skip
    chance = np.asarray(
        np.bincount(
            common // q,
            weights=row_counts[i_row].astype(np.float64) * col_counts[i_col],
            minlength=size,
        ),
        dtype=np.float64,
    )
    used = np.flatnonzero(n)
    pairs = np.stack([used // n_r, used % n_r], axis=1).astype(np.int64)
    return PairAgreement(pairs, n[used], agree[used], chance[used])


def _merge_cells(parts: list[tuple[IntArray, IntArray]]) -> tuple[IntArray, IntArray]:
    """Sorted distinct keys and summed counts of several ``np.unique`` results."""
    if len(parts) == 1:
        return parts[0]
    keys = np.concatenate([k for k, _ in parts])
    counts = np.concatenate([c for _, c in parts])
    uniq, inverse = np.unique(keys, return_inverse=True)
    summed: IntArray = np.bincount(inverse, weights=counts, minlength=uniq.size).astype(np.int64)
    return uniq, summed
