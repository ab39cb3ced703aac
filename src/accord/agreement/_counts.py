"""The counts view: what every coefficient of item x category counts reads.

:func:`prepare` turns ratings, item x category counts or count patterns into one
:class:`CountsView`: rows of counts (count patterns), each standing for its
:class:`Multiplicity` of items (one item per row when nothing was compressed), the item terms
as a cached property (:attr:`CountsView.items`), and the rater side: the ratings themselves,
or the terms an engine computed from the rater margins (Conger's kappa). The statistics
shared by the coefficients computed on one view (the per-item pair sums under a weight
matrix, the raters x items code matrix, the rater x category counts and the rater-pair
tables) are computed once per view and kept in its cache.

:func:`accord.agreement` prepares the data once and every coefficient reads these; a
coefficient called on its own prepares its own view, so nothing is shared across calls.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from .._errors import InvalidInputError, option
from .._types import BoolArray, FloatArray, IntArray, Level
from ..data.encoder import category_values
from ..data.ratings import Ratings
from ..stats.counts import ItemCategoryCounts
from ..stats.pairs import PairTables, rater_code_rows
from ..stats.patterns import CountPatterns
from ._shared import (
    CHUNK_ITEMS,
    chunks,
    cols_dot,
    identity_weights,
    is_identity,
    is_sparse,
    rows_dot,
)
from .weights import (
    LowRankWeights,
    WeightScheme,
    agreement_weights,
    check_ordered,
    has_order,
    many_category_weights,
)

__all__ = [
    "COMPRESS_ITEMS",
    "NO_PAIRS",
    "ONE_ITEM",
    "ONE_PER_ROW",
    "SPARSE_CELLS_PER_RATING",
    "SPARSE_Q",
    "TSV",
    "CountsLike",
    "CountsView",
    "ItemTerms",
    "Multiplicity",
    "WeightsLike",
    "analytic_view",
    "cached",
    "check_bootstrap",
    "code_rows",
    "item_terms",
    "pair_sums",
    "pair_tables",
    "prepare",
    "rater_category",
    "row_sums",
    "sparse_counts",
    "weight_matrix",
]

T = TypeVar("T")

#: What the public estimators of item x category counts accept.
CountsLike = Ratings | ItemCategoryCounts | CountPatterns | npt.ArrayLike
WeightsLike = WeightScheme | npt.ArrayLike

NO_PAIRS = "no item has two or more ratings, so there is no agreement to measure"
TSV = "SE: Gwet (2014) linearisation as in irrCAC 1.4"
ONE_ITEM = "one item: no SE or interval (they need two or more items; df = 0)"

#: Item x category counts are kept sparse above this many categories when the dense matrix
#: would hold more than :data:`SPARSE_CELLS_PER_RATING` cells per rating.
SPARSE_Q = 256
SPARSE_CELLS_PER_RATING = 16

#: Counts of at least this many items (and no ratings behind them) are summarised by their
#: distinct rows for the analytic estimators (:func:`analytic_view`).
COMPRESS_ITEMS = 1_000_000


@dataclasses.dataclass(frozen=True, slots=True)
class Multiplicity:
    """The items each row of counts stands for: the one place that knows whether the rows
    are count patterns.

    Attributes
    ----------
    per_row : ndarray of float64, shape (n_rows,) or None
        Items per row (whole numbers >= 1); None when every row is one item, held as
        nothing so that no n-long array of ones is made.

    Examples
    --------
    >>> x = np.array([0.5, 1.0, 2.0])
    >>> Multiplicity(None).total(x), Multiplicity(np.array([2.0, 1.0, 3.0])).total(x)
    (3.5, 8.0)
    """

    per_row: FloatArray | None = None

    def total(self, x: FloatArray) -> float:
        """``sum_rows multiplicity * x``: the sum of ``x`` over the items."""
        if self.per_row is None:
            return float(np.sum(x))
        return float(np.dot(self.per_row, x))

    def chunked_total(self, n_rows: int, term: Callable[[slice], FloatArray]) -> float:
        """:meth:`total` of ``term(s)`` over consecutive slices ``s`` of the rows, so that
        no n-long temporary is made on one row per item."""
        return sum(self.take(s).total(term(s)) for s in chunks(n_rows))

    def times(self, x: FloatArray) -> FloatArray:
        """``x`` per item summed over each row's items: ``x * multiplicity``."""
        out: FloatArray = (
            np.asarray(x, dtype=np.float64) if self.per_row is None else x * self.per_row
        )
        return out

    def take(self, rows: Any) -> Multiplicity:
        """The multiplicity of a subset of the rows (a slice or a boolean mask)."""
        return self if self.per_row is None else Multiplicity(self.per_row[rows])

    def items(self, n_rows: int) -> int:
        """Number of items the ``n_rows`` rows stand for."""
        return n_rows if self.per_row is None else round(float(self.per_row.sum()))

    @property
    def is_unit(self) -> bool:
        """Whether every row is one item (nothing compressed)."""
        return self.per_row is None


#: One item per row (nothing compressed).
ONE_PER_ROW = Multiplicity(None)


@dataclasses.dataclass(frozen=True, slots=True)
class CountsView:
    """Item x category counts of the rated items as count patterns, and the rater side.

    Attributes
    ----------
    counts : ndarray of int64 or float64, shape (n_rows, q), or scipy sparse CSR array
        Count patterns of the items with at least one rating (every row total >= 1): the
        statistic's own integers, no float copy (operations promote to float64 a chunk at
        a time), except counts made from ratings of up to :data:`CHUNK_ITEMS` items, held
        once as float64 (exact). Sparse when there are many categories and few of them per
        item (:func:`sparse_counts`). One row per item unless ``multiplicity`` is given.
    categories : tuple
        The category domain, in order.
    n_raters : int
        Raters with a rating (for counts: the largest row total).
    level : str
        Level of measurement.
    category_values : ndarray of float64, shape (q,)
        Numeric values of the categories (positions when they are not numbers).
    ratings : Ratings or None
        The rater side as ratings (rater ids: Conger's and Light's kappas); None for counts.
    item_row : ndarray of int64, shape (n_items_in_decode_table,) or None
        With ``ratings``: the row of ``counts`` of each item code (-1 without a rating).
    conger : callable, optional
        The rater side as an engine's rater margins: ``conger(w) -> (pe_i, p, pe)``,
        Conger's chance-agreement terms computed from the rater marginals and a second pass
        over the ratings; ``pe_i`` has one value per rated item, in item-code order.
    multiplicity : ndarray of float64, shape (n_rows,) or None
        Items per row: the rows are distinct count patterns and row ``p`` stands for
        ``multiplicity[p]`` items. None: every row is one item (multiplicity 1).
    item_pattern : ndarray of int64, shape (n_items,) or None
        With ``multiplicity``: the row of each rated item, in item-code order (what
        Conger's kappa needs to pair an engine's per-item ``pe_i`` with its pattern).
    declared : bool
        False when the categories are the default 0..q-1 of an array of counts given without
        ``categories=`` (weights that depend on where 0 is are then an error).
    ordered : bool
        False when the categories' order means nothing (text labels of nominal ratings,
        sorted alphabetically; :func:`accord.agreement.weights.has_order`): weights and
        alpha's ordered levels are then an error.
    cache : dict
        Statistics shared by the coefficients computed on this view.

    Examples
    --------
    Three items, two of them alike, as two count patterns:

    >>> view = prepare(CountPatterns.from_counts(np.array([[2, 0], [1, 1], [2, 0]])))
    >>> view.counts.tolist(), view.mult.per_row.tolist(), view.items.n
    ([[2, 0], [1, 1]], [2.0, 1.0], 3)
    """

    counts: Any
    categories: tuple[Any, ...]
    n_raters: int
    level: Level
    category_values: FloatArray
    ratings: Ratings | None
    item_row: IntArray | None
    conger: Callable[[FloatArray], tuple[FloatArray, FloatArray, float]] | None = None
    multiplicity: FloatArray | None = None
    item_pattern: IntArray | None = None
    declared: bool = True
    ordered: bool = True
    cache: dict[Any, Any] = dataclasses.field(default_factory=dict, repr=False, compare=False)

    @property
    def items(self) -> ItemTerms:
        """The :class:`ItemTerms` of the view (computed once)."""
        return item_terms(self)

    @property
    def mult(self) -> Multiplicity:
        """The items per row, checked (:func:`_checked_multiplicity`; computed once)."""
        return cached(self, "multiplicity", lambda: _checked_multiplicity(self))

    @property
    def item_rows(self) -> IntArray:
        """The row of every rated item, in item order (``0..n-1`` with one row per item)."""
        if self.multiplicity is None:
            return np.arange(self.counts.shape[0])
        return _checked_item_pattern(self)


def cached(d: CountsView, key: Any, make: Callable[[], T]) -> T:
    """``make()`` once per view and key."""
    cache = d.cache
    if key not in cache:
        cache[key] = make()
    out: T = cache[key]
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class ItemTerms:
    """Per-row totals of the count patterns; ``n`` and ``n2`` count items.

    Attributes
    ----------
    counts : ndarray or scipy sparse CSR array, shape (n_rows, q)
        The counts as the view holds them (int64: no float copy; the helpers in
        :mod:`._shared` promote them chunk by chunk).
    r : ndarray of float64, shape (n_rows,)
        Ratings per row.
    two : ndarray of bool, shape (n_rows,)
        Rows with two or more ratings (pairable).
    n2 : int
        Number of pairable items.
    pi : ndarray of float64, shape (q,)
        Mean over items of each category's share of the item's ratings.
    n : int
        Number of rated items.
    mult : Multiplicity
        Items per row.
    """

    counts: Any
    r: FloatArray
    two: BoolArray
    n2: int
    pi: FloatArray
    n: int
    mult: Multiplicity = ONE_PER_ROW


def item_terms(d: CountsView) -> ItemTerms:
    """The :class:`ItemTerms` of a view (computed once)."""

    def make() -> ItemTerms:
        counts = d.counts
        rows, q = counts.shape
        r = rows_dot(counts, np.ones(q))  # exact: sums of small integers
        two = r >= 2
        mult = d.mult
        n, n2 = mult.items(rows), mult.take(two).items(int(np.count_nonzero(two)))
        with np.errstate(invalid="ignore", divide="ignore"):
            pi = cols_dot(counts, mult.times(1.0 / r)) / n if n else np.full(q, np.nan)
        return ItemTerms(counts, r, two, n2, pi, n, mult)

    return cached(d, "items", make)


def _checked_multiplicity(d: CountsView) -> Multiplicity:
    """The items per row as float64, checked.

    Raises
    ------
    ValueError
        When the multiplicities do not give one positive whole number per row of the
        counts, or a row holds no rating (an internal error: they come from
        :func:`prepare` or an engine).
    """
    wt = d.multiplicity
    if wt is None:
        return ONE_PER_ROW
    out = np.asarray(wt, dtype=np.float64)
    rows = d.counts.shape[0]
    if (
        out.shape != (rows,)
        or not np.all(out >= 1)
        or not np.all(np.isfinite(out))
        or not np.array_equal(out, np.round(out))
    ):
        raise ValueError(
            f"internal error: CountsView.multiplicity must hold one whole number >= 1 per "
            f"row of the counts ({rows} rows); got shape {out.shape}"
        )
    if rows and np.any(d.counts.sum(axis=1) < 1):
        raise ValueError("internal error: compressed counts hold a row with no rating")
    return Multiplicity(out)


def _checked_item_pattern(d: CountsView) -> IntArray:
    """The row of each rated item of a view of count patterns, checked."""
    n_items = d.items.n
    if d.item_pattern is None or d.item_pattern.shape != (n_items,):
        raise ValueError(
            "internal error: per-item terms on count patterns need CountsView.item_pattern, "
            f"the count pattern of each of the {n_items} rated items"
        )
    return d.item_pattern


def check_bootstrap(d: CountsView, ci: str, owner: str) -> None:
    """Refuse ``ci="bootstrap"`` on count patterns (the bootstrap resamples items)."""
    if ci == "bootstrap" and d.multiplicity is not None:
        raise InvalidInputError(
            f"{option('ci', 'bootstrap')} of {owner} resamples items and needs uncompressed "
            "item counts (one row per item); these counts are compressed into count patterns "
            f"with multiplicities: use {option('ci', 'analytic')}"
        )


# --------------------------------------------------------------------------- prepare


def sparse_counts(n_items: int, q: int, n_ratings: int) -> bool:
    """Whether item x category counts of this shape are kept sparse (many categories, few
    per item: an unweighted coefficient then touches only the ratings' cells)."""
    return q > SPARSE_Q and n_items * q > SPARSE_CELLS_PER_RATING * max(n_ratings, 1)


def row_sums(full: Any) -> Any:
    """Ratings per row of dense or sparse counts."""
    if is_sparse(full):
        return np.asarray(full.sum(axis=1)).ravel()
    return np.einsum("ik->i", full)  # a row sum without numpy's slow short-axis reduce


def prepare(data: Any, categories: Any = None, owner: str = "") -> CountsView:
    """The counts view of ratings, item x category counts or count patterns (a view is
    returned as it is)."""
    if isinstance(data, CountsView):
        return data
    if isinstance(data, Ratings):
        return _from_ratings(data, categories, owner)
    if isinstance(data, CountPatterns):
        return _from_patterns(data, categories)
    stat = (
        data
        if isinstance(data, ItemCategoryCounts)
        else ItemCategoryCounts.from_array(data, categories)
    )
    full = stat.counts.tocsr() if stat.is_sparse else stat.dense()
    totals = row_sums(full)
    rated = totals > 0
    counts = full if rated.all() else full[rated]
    n_raters = int(totals.max()) if counts.shape[0] * counts.shape[1] else 0
    declared = categories is not None or stat.declared
    return CountsView(
        counts,
        stat.categories,
        n_raters,
        "nominal",
        category_values(stat.categories),
        None,
        None,
        declared=declared,
    )


def _from_ratings(data: Ratings, categories: Any, owner: str) -> CountsView:
    """One row per rated item, and the ratings as the rater side."""
    if categories is not None and tuple(categories) != data.categories:
        raise InvalidInputError(
            f"categories= of {owner} applies to counts; for ratings declare the categories "
            "when building them (Ratings.from_long(..., categories=[...]))"
        )
    sparse = sparse_counts(data.n_items, data.n_categories, data.n_ratings)
    stat = ItemCategoryCounts.from_ratings(data, sparse=sparse)
    full = stat.counts if sparse else stat.dense()
    if not sparse and full.shape[0] <= CHUNK_ITEMS:
        # Our own array, small enough to hold once as float64 (exact for counts): every
        # coefficient's pass then reads it as it is, instead of converting it each time.
        full = full.astype(np.float64)
    rated = row_sums(full) > 0
    item_row = np.where(rated, np.cumsum(rated) - 1, -1).astype(np.int64)
    counts = full if rated.all() else full[rated]
    n_raters = int(np.count_nonzero(np.bincount(data.rater_codes, minlength=data.n_raters)))
    return CountsView(
        counts, data.categories, n_raters, data.level, data.category_values, data, item_row,
        ordered=has_order(data.categories, data.level, data.categories_declared),
    )  # fmt: skip


def _from_patterns(data: CountPatterns, categories: Any) -> CountsView:
    """The rated count patterns with their multiplicities (the items without a rating,
    in no pattern, are left out as they are from counts)."""
    rated = data.rated()
    stat = ItemCategoryCounts.from_array(rated.rows, categories)
    rows = stat.dense()
    index = rated.item_pattern
    n_raters = int(row_sums(rows).max()) if rows.size else 0
    return CountsView(
        rows,
        stat.categories,
        n_raters,
        "nominal",
        category_values(stat.categories),
        None,
        None,
        multiplicity=rated.weights.astype(np.float64),
        item_pattern=index[index >= 0].astype(np.int64),
        declared=categories is not None or stat.declared,
    )


def analytic_view(d: CountsView, ci: str) -> CountsView:
    """The view the analytic estimators need: large item x category counts given as counts
    (not ratings) are summarised by their distinct rows and multiplicities, once per view
    (every item-count estimator is a function of those; at 10M items of 10 raters there
    are at most 3,003 rows). Anything else, and the bootstrap (which resamples items), use
    the view as it is."""
    if (
        ci != "analytic"
        or d.multiplicity is not None
        or d.ratings is not None
        or d.conger is not None
        or d.counts.shape[0] < COMPRESS_ITEMS
        or is_sparse(d.counts)
    ):
        return d

    def make() -> CountsView:
        from ..stats.patterns import patterns_from_counts

        patterns = patterns_from_counts(d.counts)
        if patterns is None:
            return d
        return dataclasses.replace(
            d,
            counts=patterns.rows,
            multiplicity=patterns.weights.astype(np.float64),
            item_pattern=patterns.item_pattern.astype(np.int64),
            cache={},
        )

    out: CountsView = cached(d, "analytic_view", make)
    return out


def weight_matrix(weights: Any, d: CountsView, owner: str) -> tuple[Any, str]:
    """The agreement-weight matrix and its name ("custom" for an explicit matrix); None
    means unweighted (identity), as everywhere in the package. A sparse identity or a
    :class:`~accord.agreement.weights.LowRankWeights` on many categories."""
    if weights is None or (isinstance(weights, str) and weights == "identity"):
        return identity_weights(len(d.categories)), "identity"  # nothing q x q when q is large
    low_rank = many_category_weights(weights, d.categories, owner)
    if low_rank is not None:  # quadratic on many categories: nothing q x q either
        check_ordered("quadratic weights", d.categories, owner, d.ordered)
        return low_rank, str(weights)
    w = agreement_weights(
        weights, d.categories, owner=owner, declared=d.declared, ordered=d.ordered
    )
    if isinstance(weights, str):
        return w, weights
    return w, "identity" if is_identity(w) else "custom"


# --------------------------------------------------------------------------- shared statistics


def pair_sums(d: CountsView, w: Any) -> FloatArray:
    """Per row, ``sum_{a != b} w(x_a, x_b)`` over its ordered pairs of ratings:
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


def code_rows(d: CountsView) -> npt.NDArray[np.signedinteger[Any]] | None:
    """The raters x items code matrix of the ratings (``q`` = no rating), or None where it
    does not pay (:func:`accord.stats.pairs.rater_code_rows`) or there are no ratings."""
    ratings = d.ratings
    if ratings is None:
        return None
    return cached(d, "code_rows", lambda: rater_code_rows(ratings))


def rater_category(d: CountsView) -> IntArray:
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


def pair_tables(d: CountsView) -> PairTables:
    """The rater-pair contingency tables of the ratings (computed once)."""
    ratings = d.ratings
    assert ratings is not None

    def make() -> PairTables:
        rows = code_rows(d)
        if rows is not None:
            return PairTables.from_code_rows(rows, ratings.raters, ratings.categories)
        return PairTables.from_ratings(ratings)

    return cached(d, "pair_tables", make)
