"""Sufficient statistics shared by the coefficients computed on one prepared data set.

:func:`accord.agreement` prepares the data once (``many_raters._prepare``) and every
coefficient it computes reads these from the prepared data's cache instead of recomputing
them: the per-item totals and category shares, the pairwise agreement of each item under a
weight matrix, the raters x items code matrix, the rater x category counts (Conger's kappa)
and the rater-pair tables (Light's kappa). A coefficient called on its own prepares its own
data, so nothing is shared across calls.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from .._types import BoolArray, FloatArray, IntArray, Level
from ..data.ratings import Ratings
from ..stats.pairs import PairTables, rater_code_rows
from .weights import LowRankWeights

__all__ = [
    "CHUNK_ITEMS",
    "DENSE_IDENTITY_Q",
    "ItemTerms",
    "chunks",
    "code_rows",
    "cols_dot",
    "identity_weights",
    "is_identity",
    "is_sparse",
    "item_terms",
    "item_weights",
    "pair_sums",
    "pair_tables",
    "rater_category",
    "rating_counts",
    "rows_dot",
]

T = TypeVar("T")

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


@dataclasses.dataclass(frozen=True, slots=True)
class _Data:
    """Item x category counts of the rated items, and what they came from.

    Attributes
    ----------
    counts : ndarray of int64 or float64, shape (n_items, q), or scipy sparse CSR array
        Counts of the items with at least one rating: the statistic's own integers, no
        float copy (operations promote to float64 a chunk at a time), except counts made
        from ratings of up to :data:`CHUNK_ITEMS` items, held once as float64
        (exact) so that no coefficient converts them again. Sparse when there are
        many categories and few of them per item (:func:`.many_raters._sparse_counts`): memory then
        follows the ratings, not items x categories.
    item_row : ndarray of int64, shape (n_items_in_decode_table,) or None
        Row of ``counts`` of each item code of ``ratings`` (-1 when the item has no rating).
    conger : callable, optional
        ``conger(w) -> (pe_i, p, pe)``: Conger's chance-agreement terms computed by an engine
        from rater marginals and a second pass over the ratings (when ``ratings`` is None);
        ``pe_i`` has one value per rated item, in item-code order.
    weights : ndarray of float64, shape (n_rows,) or None
        Compressed data: ``counts`` holds distinct count patterns (every row total >= 1) and
        row ``p`` stands for ``weights[p]`` items (whole numbers >= 1); the number of items
        is ``weights.sum()``. None: every row of ``counts`` is one item.
    item_pattern : ndarray of int64, shape (n_items,) or None
        With ``weights``: the row of ``counts`` of each rated item, in item-code order (what
        Conger's kappa needs to pair an engine's per-item ``pe_i`` with its pattern).
    declared : bool
        False when the categories are the default 0..q-1 of an array of counts given without
        ``categories=`` (weights that depend on where 0 is are then an error).
    ordered : bool
        False when the categories' order means nothing (text labels of nominal ratings,
        sorted alphabetically; :func:`accord.agreement.weights.has_order`): weights and
        alpha's ordered levels are then an error.
    cache : dict
        Statistics shared by the coefficients computed on this data (this module).
    """

    counts: Any
    categories: tuple[Any, ...]
    n_raters: int
    level: Level
    category_values: FloatArray
    ratings: Ratings | None
    item_row: IntArray | None
    conger: Callable[[FloatArray], tuple[FloatArray, FloatArray, float]] | None = None
    weights: FloatArray | None = None
    item_pattern: IntArray | None = None
    declared: bool = True
    ordered: bool = True
    cache: dict[Any, Any] = dataclasses.field(default_factory=dict, repr=False, compare=False)


def cached(d: _Data, key: Any, make: Callable[[], T]) -> T:
    """``make()`` once per prepared data and key."""
    cache = d.cache
    if key not in cache:
        cache[key] = make()
    out: T = cache[key]
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class ItemTerms:
    """Per-item totals of the rated items.

    With compressed data (``_Data.weights`` set) the rows are the distinct count patterns
    and every per-row array below is per pattern; ``n`` and ``n2`` count items (weighted).

    Attributes
    ----------
    counts : ndarray or scipy sparse CSR array, shape (n_rows, q)
        The item x category counts as the data holds them (int64: no float copy; the
        helpers here promote them chunk by chunk).
    r : ndarray of float64, shape (n_rows,)
        Ratings per item (per row).
    two : ndarray of bool, shape (n_rows,)
        Items (rows) with two or more ratings (pairable).
    n2 : int
        Number of pairable items.
    pi : ndarray of float64, shape (q,)
        Mean over items of each category's share of the item's ratings.
    n : int
        Number of rated items (``n_rows`` without weights, else the sum of the weights).
    weights : ndarray of float64, shape (n_rows,) or None
        Items per row (``_Data.weights``); None when every row is one item.
    """

    counts: Any
    r: FloatArray
    two: BoolArray
    n2: int
    pi: FloatArray
    n: int
    weights: FloatArray | None = None


def item_terms(d: _Data) -> ItemTerms:
    """The :class:`ItemTerms` of prepared data (computed once)."""

    def make() -> ItemTerms:
        counts = d.counts
        rows, q = counts.shape
        r = rows_dot(counts, np.ones(q))  # exact: sums of small integers
        two = r >= 2
        wt = item_weights(d)
        if wt is None:
            n, n2 = rows, int(np.count_nonzero(two))
            with np.errstate(invalid="ignore", divide="ignore"):
                pi = cols_dot(counts, 1.0 / r) / n if n else np.full(q, np.nan)
        else:
            n, n2 = round(float(wt.sum())), round(float(wt[two].sum()))
            with np.errstate(invalid="ignore", divide="ignore"):
                pi = cols_dot(counts, wt / r) / n if n else np.full(q, np.nan)
        return ItemTerms(counts, r, two, n2, pi, n, wt)

    return cached(d, "items", make)


def item_weights(d: _Data) -> FloatArray | None:
    """The items per row of compressed data (``_Data.weights``) as float64, checked, or None.

    Raises
    ------
    ValueError
        When the weights do not give one positive whole number per row of the counts (an
        internal error: the weights come from :func:`.many_raters._compress` or an engine).
    """
    wt = d.weights
    if wt is None:
        return None
    out = np.asarray(wt, dtype=np.float64)
    rows = d.counts.shape[0]
    if (
        out.shape != (rows,)
        or not np.all(out >= 1)
        or not np.all(np.isfinite(out))
        or not np.array_equal(out, np.round(out))
    ):
        raise ValueError(
            f"internal error: _Data.weights must hold one whole number >= 1 per row of the "
            f"counts ({rows} rows); got shape {out.shape}"
        )
    if rows and np.any(d.counts.sum(axis=1) < 1):
        raise ValueError("internal error: compressed counts hold a row with no rating")
    return out


def pair_sums(d: _Data, w: Any) -> FloatArray:
    """Per item, ``sum_{a != b} w(x_a, x_b)`` over its ordered pairs of ratings:
    ``sum_k r_ik (r*_ik - 1)`` with ``r*_ik = sum_l w_kl r_il`` (computed once per ``w``)."""

    identity = is_identity(w)

    def make() -> FloatArray:
        it = item_terms(d)
        counts = it.counts
        out: FloatArray = np.empty(counts.shape[0], dtype=np.float64)
        if isinstance(w, LowRankWeights):  # sum_j (C U)_ij (C V)_ij: nothing q x q
            out[:] = w.quadratic_form(counts, counts) - it.r
            return out
        if is_sparse(counts):  # only the ratings' cells: sum_k r_ik (W r_i)_k
            if identity:
                sq = counts.multiply(counts).sum(axis=1)
                out[:] = np.asarray(sq, dtype=np.float64).ravel() - it.r
                return out
            dense_w = w.toarray() if is_sparse(w) else w
            for s in chunks(counts.shape[0], 20_000):  # (chunk, q) float temporaries
                c = counts[s]
                prod = np.asarray(c.multiply(np.asarray(c @ dense_w.T)).sum(axis=1))
                out[s] = prod.ravel() - it.r[s]
            return out
        for s in chunks(counts.shape[0]):
            c = np.asarray(counts[s], dtype=np.float64)
            weighted = c if identity else np.einsum("il,kl->ik", c, w)
            out[s] = np.einsum("ik,ik->i", c, weighted) - it.r[s]
        return out

    key = (
        ("identity", w.shape)
        if identity
        else (w.shape, w.key if isinstance(w, LowRankWeights) else np.asarray(w).tobytes())
    )
    return cached(d, ("pair_sums", key), make)


def code_rows(d: _Data) -> npt.NDArray[np.signedinteger[Any]] | None:
    """The raters x items code matrix of the ratings (``q`` = no rating), or None where it
    does not pay (:func:`accord.stats.pairs.rater_code_rows`) or there are no ratings."""
    ratings = d.ratings
    if ratings is None:
        return None
    return cached(d, "code_rows", lambda: rater_code_rows(ratings))


def rater_category(d: _Data) -> IntArray:
    """Rater x category counts over the rater decode table, shape (n_raters, q)."""
    ratings = d.ratings
    assert ratings is not None

    def make() -> IntArray:
        q = ratings.n_categories
        rows = code_rows(d)
        if rows is not None:
            out: IntArray = np.stack(
                [np.bincount(row, minlength=q + 1)[:q] for row in rows]
            ).astype(np.int64, copy=False)
            return out
        flat = np.bincount(
            ratings.rater_codes * q + ratings.label_codes, minlength=ratings.n_raters * q
        )
        counts: IntArray = flat.reshape(ratings.n_raters, q).astype(np.int64, copy=False)
        return counts

    return cached(d, "rater_category", make)


def pair_tables(d: _Data) -> PairTables:
    """The rater-pair contingency tables of the ratings (computed once)."""
    ratings = d.ratings
    assert ratings is not None

    def make() -> PairTables:
        rows = code_rows(d)
        if rows is not None:
            return PairTables.from_code_rows(rows, ratings.raters, ratings.categories)
        return PairTables.from_ratings(ratings)

    return cached(d, "pair_tables", make)


def rating_counts(ratings: Ratings) -> tuple[int, int, int]:
    """Items with two or more ratings, items with exactly one, and raters with a rating."""
    per_item = np.bincount(ratings.item_codes, minlength=ratings.n_items)
    n_raters = int(np.count_nonzero(np.bincount(ratings.rater_codes, minlength=ratings.n_raters)))
    return int((per_item >= 2).sum()), int((per_item == 1).sum()), n_raters
