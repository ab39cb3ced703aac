"""Array helpers of the coefficients on item x category counts: chunked single-threaded
products, identity weights that stay matrix-free on many categories, and rating counts.
The counts view the coefficients read is :mod:`._counts`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from .._types import FloatArray
from ..data.ratings import Ratings
from .weights import LowRankWeights

__all__ = [
    "CHUNK_ITEMS",
    "DENSE_IDENTITY_Q",
    "chunks",
    "cols_dot",
    "identity_weights",
    "is_identity",
    "is_sparse",
    "rating_counts",
    "rows_dot",
]

#: Items per chunk of the per-item computations: an (n_items, q) float temporary is made one
#: chunk at a time (40 MB at q = 5), so 10M items cost no more than 1M.
CHUNK_ITEMS = 1_000_000


def chunks(n: int, size: int | None = None) -> Iterator[slice]:
    """Consecutive slices of ``range(n)`` of at most ``size`` (default
    :data:`CHUNK_ITEMS`) items."""
    size = CHUNK_ITEMS if size is None else size
    for lo in range(0, n, size):
        yield slice(lo, min(n, lo + size))


#: Up to this many categories the identity weights are a dense q x q array; above, a sparse
#: identity (a q x q float array of 7,700 categories would take 474 MB for nothing).
DENSE_IDENTITY_Q = 256


def is_sparse(c: Any) -> bool:
    """Whether ``c`` is a scipy sparse array (item x category counts kept sparse)."""
    return not isinstance(c, np.ndarray) and hasattr(c, "tocsr")


def identity_weights(q: int) -> Any:
    """The identity agreement weights of ``q`` categories: ``np.eye(q)``, or above
    :data:`DENSE_IDENTITY_Q` categories a scipy sparse identity (``@``, ``.T`` and ``.sum()``
    behave the same; nothing q x q is allocated)."""
    if q <= DENSE_IDENTITY_Q:
        return np.eye(q)
    from scipy import sparse

    return sparse.eye_array(q, format="csr")


def is_identity(w: Any) -> bool:
    """Whether the agreement weights ``w`` are the identity (unweighted)."""
    q = w.shape[0]
    if isinstance(w, LowRankWeights):
        return False
    if is_sparse(w):
        diag = w.diagonal()
        return bool(w.nnz == q and np.all(diag == 1.0))
    return bool(np.array_equal(w, np.eye(q)))


def rows_dot(c: Any, v: FloatArray) -> FloatArray:
    """``c @ v`` for a tall (n, q) matrix (integer counts or float), single-threaded.

    A threaded BLAS call spends more on waking its threads than on this product when the
    cores are busy (10x slower on a loaded two-core machine). Integer counts are promoted to
    float64 one chunk of rows at a time; each row's value does not depend on the chunking.
    Sparse counts are multiplied as they are.
    """
    if is_sparse(c):
        sp_out: FloatArray = np.asarray(c @ np.asarray(v, dtype=np.float64), dtype=np.float64)
        return sp_out
    if c.shape[0] <= CHUNK_ITEMS:
        out: FloatArray = np.einsum("ik,k->i", np.asarray(c, dtype=np.float64), v)
        return out
    out = np.empty(c.shape[0], dtype=np.float64)
    for s in chunks(c.shape[0]):
        out[s] = np.einsum("ik,k->i", np.asarray(c[s], dtype=np.float64), v)
    return out


def cols_dot(c: Any, v: FloatArray) -> FloatArray:
    """``c.T @ v`` for a tall (n, q) matrix, single-threaded, summed by chunks of rows."""
    if is_sparse(c):
        sp_out: FloatArray = np.asarray(c.T @ np.asarray(v, dtype=np.float64), dtype=np.float64)
        return sp_out
    out: FloatArray = np.zeros(c.shape[1], dtype=np.float64)
    if c.shape[0] <= CHUNK_ITEMS:
        out = np.einsum("ik,i->k", np.asarray(c, dtype=np.float64), v)
        return out
    for s in chunks(c.shape[0]):
        out += np.einsum("ik,i->k", np.asarray(c[s], dtype=np.float64), v[s])
    return out


def rating_counts(ratings: Ratings) -> tuple[int, int, int]:
    """Items with two or more ratings, items with exactly one, and raters with a rating."""
    per_item = np.bincount(ratings.item_codes, minlength=ratings.n_items)
    n_raters = int(np.count_nonzero(np.bincount(ratings.rater_codes, minlength=ratings.n_raters)))
    return int((per_item >= 2).sum()), int((per_item == 1).sum()), n_raters
