"""Item counts as their distinct rows: the one count-pattern type.

Every item-count coefficient (Fleiss, Krippendorff, Gwet, Brennan-Prediger, percent
agreement) and every consensus score is a function of an item's row of counts, so they are
computed once per distinct row ("pattern") and weighted by how many items have it: with 10
raters and 5 categories there are at most 3,003 patterns, whatever the number of items.

A row is summarised by one integer, ``sum_c n_c * base**c`` (exact while ``base**q`` fits in
63 bits); beyond that, by a 64-bit hash whose rows are then checked against their pattern.
The memory, stream and dask engines all form their patterns here.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import InvalidInputError
from .._types import IntArray
from .counts import SPARSE_CELLS

__all__ = [
    "CountPatterns",
    "count_patterns",
    "digits",
    "distinct_keys",
    "drop_pattern",
    "index_dtype",
    "patterns_from_counts",
]

#: Cells per chunk of rows when rows are hashed or compared.
CHUNK_CELLS = 500_000

#: Key spaces up to this size are counted with one ``bincount`` (else sorted).
DENSE_KEYS = 1 << 22


def index_dtype(n: int) -> type[np.signedinteger[Any]]:
    """The smallest of int32 and int64 that holds indices below ``n`` (and -1).

    >>> index_dtype(10).__name__, index_dtype(2**40).__name__
    ('int32', 'int64')
    """
    return np.int32 if n < np.iinfo(np.int32).max else np.int64


def distinct_keys(
    keys: npt.NDArray[Any], space: int | None
) -> tuple[npt.NDArray[Any], npt.NDArray[np.signedinteger[Any]], IntArray]:
    """The distinct keys (sorted), each key's position among them, and their counts.

    ``space`` bounds the keys (all in ``[0, space)``) when known: a small space is counted
    with one ``bincount`` and a lookup table instead of a sort.

    >>> uniq, where, counts = distinct_keys(np.array([5, 2, 5, 7]), 8)
    >>> uniq.tolist(), where.tolist(), counts.tolist()
    ([2, 5, 7], [1, 0, 1, 2], [1, 2, 1])
    """
    n = int(keys.size)
    dtype = index_dtype(max(n, 1))
    if space is not None and space <= max(DENSE_KEYS, 4 * n):
        mult = np.bincount(keys.astype(np.int64, copy=False), minlength=space)
        uniq = np.flatnonzero(mult)
        lookup = np.full(space, -1, dtype=dtype)
        lookup[uniq] = np.arange(uniq.size, dtype=dtype)
        return uniq, lookup.take(keys), mult[uniq].astype(np.int64)
    uniq, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    return uniq, inverse.reshape(-1).astype(dtype), counts.astype(np.int64)


def digits(keys: npt.NDArray[Any], base: int, q: int) -> IntArray:
    """Count rows of exact keys: digit ``c`` of the key in ``base`` is the count of ``c``.

    >>> digits(np.array([2 + 1 * 3]), 3, 3).tolist()  # 2 of category 0, 1 of category 1
    [[2, 1, 0]]
    """
    powers = np.asarray(base, dtype=np.int64) ** np.arange(q, dtype=np.int64)
    rows: IntArray = (keys.astype(np.int64)[:, None] // powers[None, :]) % base
    return rows


def drop_pattern(
    index: npt.NDArray[np.signedinteger[Any]], n_patterns: int, drop: int
) -> tuple[npt.NDArray[np.signedinteger[Any]], npt.NDArray[np.bool_]]:
    """Each item's pattern once pattern ``drop`` (the empty row) is removed (its items get
    -1), and the mask of the patterns kept.

    >>> index, keep = drop_pattern(np.array([0, 1, 2, 1]), 3, 1)
    >>> index.tolist(), keep.tolist()
    ([0, -1, 1, -1], [True, False, True])
    """
    numbers = np.arange(n_patterns, dtype=index.dtype)
    renumber = numbers - (numbers > drop).astype(index.dtype)
    renumber[drop] = -1
    return renumber.take(index), numbers != drop


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class CountPatterns:
    """Item x category counts summarised by their distinct rows.

    Attributes
    ----------
    rows : int64 ndarray or sparse CSR, shape (n_patterns, q)
        The distinct count rows, sparse when they were formed from sparse counts. Formed
        from item counts (:meth:`from_counts`) an all-zero row may be among them; the
        engines' patterns (:meth:`from_keys`, :meth:`rated`) hold rated rows only.
    item_pattern : int ndarray, shape (n_items,)
        Each item's row in ``rows`` by item code; -1 for an item in no pattern (an item
        without a rating, when the empty row is left out).
    weights : int64 ndarray, shape (n_patterns,)
        Number of items with each row.

    Examples
    --------
    >>> p = CountPatterns.from_counts(np.array([[2, 0], [1, 1], [2, 0], [0, 0]]))
    >>> p.rows.tolist(), p.item_pattern.tolist(), p.weights.tolist()
    ([[0, 0], [2, 0], [1, 1]], [1, 2, 1, 0], [1, 2, 1])
    >>> r = p.rated()
    >>> r.rows.tolist(), r.item_pattern.tolist(), r.n_rated
    ([[2, 0], [1, 1]], [0, 1, 0, -1], 3)
    >>> r.item_counts(sparse=False).tolist()
    [[2, 0], [1, 1], [2, 0], [0, 0]]
    """

    rows: Any
    item_pattern: npt.NDArray[np.signedinteger[Any]]
    weights: IntArray

    @property
    def counts(self) -> Any:
        """The distinct count rows (:attr:`rows`)."""
        return self.rows

    @property
    def n_patterns(self) -> int:
        """Number of distinct rows."""
        return int(self.weights.size)

    @property
    def n_rated(self) -> int:
        """Items in a pattern (with at least one rating, for rated patterns)."""
        return int(self.weights.sum())

    @classmethod
    def from_counts(cls, counts: Any) -> CountPatterns:
        """The distinct rows of item counts (dense or sparse CSR) and each item's row.

        Each row is summarised by one integer, ``sum_c n_c b**c`` with ``b`` one more than
        the largest count, when that fits in 63 bits (distinct rows, distinct integers;
        counted with a ``bincount`` when there are few possible keys); otherwise by a
        64-bit hash with random odd multipliers, and the rows are then checked against
        their pattern (on a collision each item is its own pattern). An all-zero row is a
        pattern like any other.
        """
        n, q = counts.shape
        dtype = index_dtype(max(n, 1))
        if n == 0:
            return cls(
                np.zeros((0, q), dtype=np.int64), np.zeros(0, dtype=dtype), np.zeros(0, np.int64)
            )
        base = int(counts.max()) + 1
        if q * math.log2(base) < 63:
            mult = np.asarray(base, dtype=np.uint64) ** np.arange(q, dtype=np.uint64)
            uniq, inverse, weights = distinct_keys(row_hashes(counts, mult), base**q)
            rows: Any = digits(uniq, base, q)
            if not isinstance(counts, np.ndarray):
                from scipy import sparse as sp

                rows = sp.csr_array(rows)
            return cls(rows, inverse, weights)
        rng = np.random.default_rng(20100411)
        mult = rng.integers(0, np.iinfo(np.uint64).max, size=q, dtype=np.uint64) | np.uint64(1)
        _, first, inverse, weights = np.unique(
            row_hashes(counts, mult), return_index=True, return_inverse=True, return_counts=True
        )
        inverse = inverse.reshape(-1)
        rows = counts[first]
        if not rows_match(counts, rows, inverse):
            # each item its own pattern
            return cls(counts, np.arange(n, dtype=dtype), np.ones(n, dtype=np.int64))
        return cls(rows, inverse.astype(dtype), weights.astype(np.int64))

    @classmethod
    def from_keys(cls, keys: npt.NDArray[Any], base: int, q: int) -> CountPatterns:
        """The rated patterns of exact item keys: digit ``c`` of an item's key in ``base``
        is its count of category ``c`` (key 0, an item without a rating: no pattern)."""
        uniq, index, weights = distinct_keys(keys, base**q if q else 1)
        uniq = uniq.astype(np.int64)
        if uniq.size and uniq[0] == 0:  # items without a rating: no pattern
            uniq, weights = uniq[1:], weights[1:]
            index -= 1
        return cls(digits(uniq, base, q), index, weights)

    @classmethod
    def from_codes(
        cls, item_codes: npt.ArrayLike, label_codes: npt.ArrayLike, *, n_items: int, q: int
    ) -> CountPatterns:
        """The patterns of ratings given as aligned item and category codes.

        >>> CountPatterns.from_codes([0, 0, 1, 1], [1, 1, 1, 1], n_items=2, q=2).weights.tolist()
        [2]
        """
        item = np.asarray(item_codes, dtype=np.int64)
        label = np.asarray(label_codes, dtype=np.int64)
        counts = np.bincount(item * q + label, minlength=n_items * q).reshape(n_items, q)
        return cls.from_counts(counts)

    @classmethod
    def from_ratings(cls, ratings: Any) -> CountPatterns:
        """The patterns of the item x category counts of a :class:`~accord.Ratings`."""
        from .counts import ItemCategoryCounts

        return cls.from_counts(ItemCategoryCounts.from_ratings(ratings).counts)

    def merge(self, other: CountPatterns) -> CountPatterns:
        """The patterns of the union of the ratings behind ``self`` and ``other``.

        Both must be encoded with the same dictionaries (item codes and categories); the
        items are padded to the larger of the two. The items' counts are added, so an item
        rated in both has the sum of its rows (dense: memory for items x categories).

        >>> a = CountPatterns.from_codes([0, 1], [0, 0], n_items=2, q=2)
        >>> b = CountPatterns.from_codes([1, 2], [1, 1], n_items=3, q=2)
        >>> a.merge(b).item_counts(sparse=False).tolist()
        [[1, 0], [1, 1], [0, 1]]
        """
        mine, theirs = self.item_counts(sparse=False), other.item_counts(sparse=False)
        if mine.shape[1] != theirs.shape[1]:
            raise InvalidInputError(
                "cannot merge count patterns over different numbers of categories: "
                f"{mine.shape[1]} and {theirs.shape[1]}"
            )
        total = np.zeros((max(mine.shape[0], theirs.shape[0]), mine.shape[1]), dtype=np.int64)
        total[: mine.shape[0]] += mine
        total[: theirs.shape[0]] += theirs
        return CountPatterns.from_counts(total)

    def rated(self) -> CountPatterns:
        """The same patterns with dense int64 rows and without the all-zero row (its items
        get -1); item indices int32."""
        rows = self.rows if isinstance(self.rows, np.ndarray) else self.rows.toarray()
        rows = np.asarray(rows, dtype=np.int64)
        index, weights = self.item_pattern.astype(np.int32), self.weights
        empty = np.flatnonzero(rows.sum(axis=1) == 0)
        if empty.size:  # items without a rating: no pattern
            index, keep = drop_pattern(index, rows.shape[0], int(empty[0]))
            rows, weights = rows[keep], weights[keep]
        return CountPatterns(rows, index, weights.astype(np.int64))

    def item_counts(self, sparse: bool) -> Any:
        """The items x categories counts (dense int64, or sparse CSR), by item code."""
        rows = self.rows if isinstance(self.rows, np.ndarray) else self.rows.toarray()
        q = rows.shape[1]
        table = np.vstack([rows, np.zeros((1, q), dtype=np.int64)])
        index = np.where(self.item_pattern < 0, rows.shape[0], self.item_pattern)
        if not sparse:
            return table[index]  # fancy indexing: several times faster than take(axis=0)
        from scipy import sparse as sp

        step = max(1, SPARSE_CELLS // max(q, 1) // 10)
        blocks = [
            sp.csr_array(table[index[lo : lo + step]], dtype=np.int64)
            for lo in range(0, index.size, step)
        ]
        if not blocks:
            return sp.csr_array((0, q), dtype=np.int64)
        return sp.vstack(blocks, format="csr", dtype=np.int64)


#: :meth:`CountPatterns.from_counts` as a function.
count_patterns = CountPatterns.from_counts


def patterns_from_counts(counts: Any) -> CountPatterns | None:
    """The rated :class:`CountPatterns` of item x category counts (dense or sparse), or
    None when the rows' keys would not fit in 63 bits or summarising would not pay
    (distinct rows for more than half of the items).

    >>> p = patterns_from_counts(np.array([[1, 1], [1, 1], [2, 0], [1, 1]]))
    >>> p.rows.tolist(), p.weights.tolist()
    ([[2, 0], [1, 1]], [1, 3])
    """
    n, q = counts.shape
    if n == 0 or q * math.log2(int(counts.max()) + 1) >= 63:
        return None
    found = CountPatterns.from_counts(counts)
    if found.weights.size > n // 2:
        return None
    return found.rated()


def row_hashes(counts: Any, mult: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """``sum_c counts[i, c] * mult[c]`` modulo 2**64 of every row, shape (n_rows,)."""
    n, q = counts.shape
    if isinstance(counts, np.ndarray):
        out = np.empty(n, dtype=np.uint64)
        step = max(1, CHUNK_CELLS // max(q, 1))
        for lo in range(0, n, step):
            # a product (not a sum over the short axis, several times slower); wraps mod 2**64
            out[lo : lo + step] = counts[lo : lo + step].astype(np.uint64) @ mult
        return out
    csr = counts.tocsr()
    prod = np.asarray(csr.data).astype(np.uint64) * mult[np.asarray(csr.indices)]
    cum = np.concatenate([np.zeros(1, dtype=np.uint64), np.cumsum(prod, dtype=np.uint64)])
    indptr = np.asarray(csr.indptr)
    hashes: npt.NDArray[np.uint64] = cum[indptr[1:]] - cum[indptr[:-1]]  # wraps: still exact
    return hashes


def rows_match(counts: Any, rows: Any, inverse: IntArray) -> bool:
    """Whether every row of ``counts`` equals ``rows[inverse[i]]``."""
    n, q = counts.shape
    step = max(1, CHUNK_CELLS // max(q, 1))
    for lo in range(0, n, step):
        got = counts[lo : lo + step]
        want = rows[inverse[lo : lo + step]]
        if isinstance(got, np.ndarray):
            if not np.array_equal(got, want):
                return False
        elif (got != want).nnz:
            return False
    return True
