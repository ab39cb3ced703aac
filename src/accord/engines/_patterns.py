"""Item counts as their distinct rows: the count patterns both engines compute from.

Every item-count coefficient (Fleiss, Krippendorff, Gwet, Brennan-Prediger, percent
agreement) and every consensus score is a function of an item's row of counts, so they are
computed once per distinct row ("pattern") and weighted by how many items have it. A row is
summarised by one integer, ``sum_c n_c * base**c`` (exact while ``base**q`` fits in 63 bits);
beyond that, by a 64-bit hash whose rows are then checked against their pattern.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from .._types import IntArray

__all__ = ["RowPatterns", "count_patterns", "digits", "distinct_keys", "index_dtype"]

#: Cells per chunk of rows when rows are hashed or compared.
CHUNK_CELLS = 500_000

#: Key spaces up to this size are counted with one ``bincount`` (else sorted).
DENSE_KEYS = 1 << 22


def index_dtype(n: int) -> type[np.signedinteger[Any]]:
    """The smallest of int32 and int64 that holds indices below ``n`` (and -1)."""
    return np.int32 if n < np.iinfo(np.int32).max else np.int64


def distinct_keys(
    keys: npt.NDArray[Any], space: int | None
) -> tuple[npt.NDArray[Any], npt.NDArray[np.signedinteger[Any]], IntArray]:
    """The distinct keys (sorted), each key's position among them, and their counts.

    ``space`` bounds the keys (all in ``[0, space)``) when known: a small space is counted
    with one ``bincount`` and a lookup table instead of a sort.
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
    """Count rows of exact keys: digit ``c`` of the key in ``base`` is the count of ``c``."""
    powers = np.asarray(base, dtype=np.int64) ** np.arange(q, dtype=np.int64)
    rows: IntArray = (keys.astype(np.int64)[:, None] // powers[None, :]) % base
    return rows


class RowPatterns(NamedTuple):
    """Item counts as distinct rows.

    counts : int64 ndarray or sparse CSR, shape (n_patterns, q)
        The distinct count rows (an empty row may be among them), sparse when the counts
        were.
    item_pattern : int ndarray, shape (n_items,)
        Each item's row in ``counts``.
    weights : int64 ndarray, shape (n_patterns,)
        Items per row.
    """

    counts: Any
    item_pattern: npt.NDArray[np.signedinteger[Any]]
    weights: IntArray


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


def count_patterns(counts: Any) -> RowPatterns:
    """The distinct rows of item counts (dense or sparse CSR) and each item's row.

    Each row is summarised by one integer, ``sum_c n_c b**c`` with ``b`` one more than the
    largest count, when that fits in 63 bits (distinct rows, distinct integers; counted with
    a ``bincount`` when there are few possible keys); otherwise by a 64-bit hash with random
    odd multipliers, and the rows are then checked against their pattern (on a collision
    each item is its own pattern).
    """
    n, q = counts.shape
    dtype = index_dtype(max(n, 1))
    if n == 0:
        return RowPatterns(
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
        return RowPatterns(rows, inverse, weights)
    rng = np.random.default_rng(20100411)
    mult = rng.integers(0, np.iinfo(np.uint64).max, size=q, dtype=np.uint64) | np.uint64(1)
    _, first, inverse, weights = np.unique(
        row_hashes(counts, mult), return_index=True, return_inverse=True, return_counts=True
    )
    inverse = inverse.reshape(-1)
    rows = counts[first]
    if not rows_match(counts, rows, inverse):
        # each item its own pattern
        return RowPatterns(counts, np.arange(n, dtype=dtype), np.ones(n, dtype=np.int64))
    return RowPatterns(rows, inverse.astype(dtype), weights.astype(np.int64))
