"""Chance-corrected agreement among many raters, from item x category counts.

Every coefficient has an entry point on ratings (:class:`~accord.Ratings`) and one on the
sufficient statistic (an items x categories array of counts, or
:class:`~accord.stats.ItemCategoryCounts`). Missing ratings are missing, never a category.

The family shares one shape, :math:`(p_a - p_e)/(1 - p_e)`, and one body of inference: the
linearisation variances of Gwet (2014) as implemented by the R package irrCAC 1.4, a t
interval on ``n_items - 1`` degrees of freedom, and a bootstrap over items computed on the
counts (:mod:`accord.agreement.inference`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError, option
from .._results import Coefficient, undefined_fields
from .._types import BoolArray, FloatArray, IntArray, Level, RngLike
from ..data.encoder import category_values
from ..data.ratings import Ratings
from ..stats.counts import ItemCategoryCounts
from ._shared import (
    CHUNK_ITEMS,
    ItemTerms,
    _Data,
    cached,
    chunks,
    code_rows,
    cols_dot,
    identity_weights,
    is_identity,
    is_sparse,
    item_terms,
    pair_sums,
    rater_category,
    rows_dot,
)
from .inference import CIKind, bootstrap, check_ci, population_factor
from .set_distances import SetDistance, SetDistanceMetric, pair_distance_sums, set_distance
from .weights import (
    DENSE_WEIGHT_CELLS,
    LowRankWeights,
    ManyCategoriesError,
    WeightScheme,
    agreement_weights,
    check_ordered,
    has_order,
    many_category_weights,
)

__all__ = [
    "FleissKappa",
    "brennan_prediger",
    "conger_kappa",
    "conger_rater_terms",
    "fleiss_kappa",
    "gwet_ac1",
    "gwet_ac2",
    "krippendorff_alpha",
    "percent_agreement",
]

CountsLike = Ratings | ItemCategoryCounts | npt.ArrayLike
WeightsLike = WeightScheme | npt.ArrayLike
Distance = Callable[[FloatArray, FloatArray], FloatArray]
_Kind = Literal["percent", "fleiss", "gwet", "bp", "conger"]

_NO_PAIRS = "no item has two or more ratings, so there is no agreement to measure"
_TSV = "SE: Gwet (2014) linearisation as in irrCAC 1.4"
_ONE_ITEM = "one item: no SE or interval (they need two or more items; df = 0)"
_CONGER_NEEDS_RATINGS = (
    "conger_kappa needs ratings with rater ids (Ratings), not item x category counts: "
    "counts do not say who gave which rating"
)


#: Item x category counts are kept sparse above this many categories when the dense matrix
#: would hold more than :data:`SPARSE_CELLS_PER_RATING` cells per rating.
SPARSE_Q = 256
SPARSE_CELLS_PER_RATING = 16


def _sparse_counts(n_items: int, q: int, n_ratings: int) -> bool:
    """Whether item x category counts of this shape are kept sparse (many categories, few
    per item: an unweighted coefficient then touches only the ratings' cells)."""
    return q > SPARSE_Q and n_items * q > SPARSE_CELLS_PER_RATING * max(n_ratings, 1)


def row_sums(full: Any) -> Any:
    """Ratings per row of dense or sparse counts."""
    if is_sparse(full):
        return np.asarray(full.sum(axis=1)).ravel()
    return np.einsum("ik->i", full)  # a row sum without numpy's slow short-axis reduce


def _prepare(data: Any, categories: Any = None, owner: str = "") -> _Data:
    """Item x category counts (rated items only) from ratings or counts."""
    if isinstance(data, _Data):
        return data
    if isinstance(data, Ratings):
        if categories is not None and tuple(categories) != data.categories:
            raise InvalidInputError(
                f"categories= of {owner} applies to counts; for ratings declare the categories "
                "when building them (Ratings.from_long(..., categories=[...]))"
            )
        sparse = _sparse_counts(data.n_items, data.n_categories, data.n_ratings)
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
        return _Data(
            counts, data.categories, n_raters, data.level, data.category_values, data, item_row,
            ordered=has_order(data.categories, data.level, data.categories_declared),
        )  # fmt: skip
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
    return _Data(
        counts,
        stat.categories,
        n_raters,
        "nominal",
        category_values(stat.categories),
        None,
        None,
        declared=declared,
    )


def _compress(d: _Data) -> _Data:
    """The same data as distinct count patterns with their multiplicities.

    Parameters
    ----------
    d : _Data
        Prepared data, one row per rated item (``weights`` None); compressed data is
        returned as it is.

    Returns
    -------
    _Data
        ``counts`` the distinct rows of ``d.counts`` (same dtype, sorted), ``weights`` the
        items per row (float64), ``item_pattern`` the row of each item (int64); categories,
        raters, level, category values and ``conger`` carried over; ``ratings`` and
        ``item_row`` None (rater ids do not survive the compression).
    """
    if d.weights is not None:
        return d
    counts = np.asarray(d.counts)
    if counts.shape[0] == 0:
        patterns, inverse, mult = counts, np.zeros(0, np.int64), np.zeros(0, np.int64)
    else:
        patterns, inverse, mult = np.unique(counts, axis=0, return_inverse=True, return_counts=True)
    return _Data(
        patterns,
        d.categories,
        d.n_raters,
        d.level,
        d.category_values,
        None,
        None,
        d.conger,
        weights=np.asarray(mult, dtype=np.float64),
        item_pattern=np.asarray(inverse, dtype=np.int64).reshape(-1),
        declared=d.declared,
        ordered=d.ordered,
    )


#: Counts of at least this many items (and no ratings behind them) are summarised by their
#: distinct rows for the analytic estimators (:func:`_analytic_view`).
COMPRESS_ITEMS = 1_000_000


def _analytic_view(d: _Data, ci: str) -> _Data:
    """The data the analytic estimators need: large item x category counts given as counts
    (not ratings) are summarised by their distinct rows and multiplicities, once per data
    (every item-count estimator is a function of those; at 10M items of 10 raters there
    are at most 3,003 rows). Anything else, and the bootstrap (which resamples items), use
    the data as it is."""
    if (
        ci != "analytic"
        or d.weights is not None
        or d.ratings is not None
        or d.conger is not None
        or d.counts.shape[0] < COMPRESS_ITEMS
        or is_sparse(d.counts)
    ):
        return d

    def make() -> _Data:
        from ..stats.patterns import patterns_from_counts

        patterns = patterns_from_counts(d.counts)
        if patterns is None:
            return d
        return dataclasses.replace(
            d,
            counts=patterns.rows,
            weights=patterns.weights.astype(np.float64),
            item_pattern=patterns.item_pattern.astype(np.int64),
            cache={},
        )

    out: _Data = cached(d, "analytic_view", make)
    return out


def _weight_matrix(weights: Any, d: _Data, owner: str) -> tuple[Any, str]:
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


def _base(
    name: str, d: _Data, n: int, n2: int, population_size: float | None, wname: str
) -> dict[str, Any]:
    return dict(
        name=name,
        n_items=n,
        n_raters=d.n_raters,
        categories=d.categories,
        n_items_unpairable=n - n2,
        population_size=math.inf if population_size is None else float(population_size),
        weights=wname,
    )


def _undefined_pe_reason(d: _Data, label: str) -> str:
    used = int(np.count_nonzero(np.asarray(d.counts.sum(axis=0)).ravel()))
    if used <= 1:
        return (
            f"every rating is in one category: chance agreement is 1 and {label} is 0/0 (undefined)"
        )
    return f"chance agreement is 1, so {label} is 0/0 (undefined)"


# --------------------------------------------------------------------------- the family


def _conger_pe(p: FloatArray, pbar: FloatArray, w: Any) -> float:
    """Conger's chance agreement ``sum_kl w_kl (pbar_k pbar_l - s2_kl / r)`` from the raters'
    category proportions ``p`` (r, q); unweighted, only the diagonal of ``s2`` (no q x q)."""
    n_r = p.shape[0]
    if n_r < 2:
        return math.nan
    if is_identity(w):
        s2_diag = (np.einsum("gk,gk->k", p, p) - n_r * pbar**2) / (n_r - 1)
        return float(np.sum(pbar**2 - s2_diag / n_r))
    if isinstance(w, LowRankWeights):  # sum_kl w_kl s2_kl from the raters' own p_g W p_g
        centre = float(pbar @ (w @ pbar))
        spread = (float(w.quadratic_form(p, p).sum()) - n_r * centre) / (n_r - 1)
        return float(centre - spread / n_r)
    s2 = (p.T @ p - n_r * np.outer(pbar, pbar)) / (n_r - 1)
    return float(np.sum(w * (np.outer(pbar, pbar) - s2 / n_r)))


def conger_rater_terms(
    by_rater: IntArray, w: Any, n: int
) -> tuple[BoolArray, FloatArray, float, FloatArray, FloatArray]:
    """Conger's terms from the rater x category counts ``by_rater`` over ``n`` rated items.

    Returns
    -------
    present : ndarray of bool, shape (n_rater_codes,)
        The raters with a rating.
    p : ndarray, shape (r, q)
        Each rater's category proportions.
    pe : float
        Chance agreement (NaN with fewer than two raters).
    coef, b : ndarray, shapes (r, q) and (r,)
        Item ``i``'s term is ``sum b + sum over its ratings (g, l) of coef[g, l]``, with
        ``coef[g, l] = (n / n_g) (a[g, l] - b[g])``.
    """
    present = by_rater.sum(axis=1) > 0
    n_r = int(present.sum())
    classif = by_rater[present].astype(float)
    n_g = classif.sum(axis=1)
    p = classif / n_g[:, None]
    pbar = p.mean(axis=0)
    pe = _conger_pe(p, pbar, w)
    c = n_r * pbar[None, :] - p  # (r, q)
    a = np.asarray(c @ w)  # a[g, l] = sum_k c[g, k] w[k, l]
    b = np.sum(c * np.asarray(p @ w.T), axis=1)  # b[g] = sum_k c[g, k] (W p_g)_k
    coef = (n / n_g)[:, None] * (a - b[:, None])
    return present, p, pe, coef, b


def _conger_parts(
    d: _Data, w: FloatArray, features: bool = False
) -> tuple[FloatArray, FloatArray, float, Any]:
    """Conger's chance agreement per item (irrCAC conger.kappa.raw, vectorised).

    Returns
    -------
    pe_i : ndarray, shape (n_items,)
        Item terms of the linearised chance agreement, one per rated item (also on
        compressed data, where ``d.item_pattern`` gives each item's row).
    p : ndarray, shape (r, q)
        Each rater's category proportions.
    pe : float
    rater_features : scipy sparse array, shape (n_items, r * q)
        Rater x category indicators per item (bootstrap features).
    """
    if d.weights is not None:
        # Compressed data: the engine's per-item terms, paired with patterns by the caller.
        if d.conger is None:
            raise InvalidInputError(_CONGER_NEEDS_RATINGS)
        n_items = item_terms(d).n
        if d.item_pattern is None or d.item_pattern.shape != (n_items,):
            raise ValueError(
                "internal error: Conger's kappa on compressed counts needs _Data.item_pattern, "
                f"the count pattern of each of the {n_items} rated items"
            )
        pe_i, p, pe = d.conger(w)
        if np.shape(pe_i) != (n_items,):
            raise ValueError(
                f"internal error: the engine's Conger terms have shape {np.shape(pe_i)}; "
                f"expected one per rated item ({n_items})"
            )
        return pe_i, p, pe, None
    if d.ratings is None and d.conger is not None:
        pe_i, p, pe = d.conger(w)
        return pe_i, p, pe, None
    r_obj = d.ratings
    if r_obj is None or d.item_row is None:
        raise InvalidInputError(_CONGER_NEEDS_RATINGS)
    n, q = d.counts.shape
    code_mat = None if features else code_rows(d)
    present, p, pe, coef, b = conger_rater_terms(rater_category(d), w, n)
    n_r = int(present.sum())
    if code_mat is not None:
        # One gather per rater over the raters x items code matrix (q = no rating: 0).
        lookup = np.zeros((n_r, q + 1))
        lookup[:, :q] = coef
        lam_all = np.zeros(code_mat.shape[1])
        for g, row in enumerate(code_mat[present]):
            lam_all += lookup[g].take(row)
        lam = (lam_all if n == lam_all.size else lam_all[d.item_row >= 0]) + b.sum()
        pe_i = lam / (n_r * (n_r - 1)) if n_r >= 2 else np.full(n, math.nan)
        return pe_i, p, pe, None
    rater = (np.cumsum(present) - 1)[r_obj.rater_codes]
    rows = d.item_row[r_obj.item_codes]
    labels = r_obj.label_codes
    contrib = coef[rater, labels]
    lam = np.bincount(rows, weights=contrib, minlength=n) + b.sum()
    pe_i = lam / (n_r * (n_r - 1)) if n_r >= 2 else np.full(n, math.nan)
    feats = None
    if features:
        from scipy import sparse

        feats = sparse.csr_array(
            (np.ones(rows.size), (rows, rater * q + labels)), shape=(n, n_r * q), dtype=np.float64
        )
    return pe_i, p, pe, feats


@dataclasses.dataclass(frozen=True, slots=True)
class _Member:
    """One member of the family: its chance term, name, name in messages and method."""

    kind: _Kind
    name: str
    label: str
    method: str


_PERCENT_AGREEMENT = _Member(
    "percent",
    "percent_agreement",
    "percent agreement",
    f"percent agreement over items with two or more ratings; no chance correction; {_TSV}",
)
_FLEISS_KAPPA = _Member(
    "fleiss",
    "fleiss_kappa",
    "kappa",
    "Fleiss' kappa (Fleiss 1971; incomplete designs and weights: Gwet 2014); "
    f"chance agreement from the pooled category proportions; {_TSV}; null SE: Fleiss, "
    "Nee & Landis (1979), complete unweighted designs",
)
_GWET_AC1 = _Member(
    "gwet",
    "gwet_ac1",
    "AC1",
    f"Gwet's AC1 (Gwet 2008); chance agreement from the category domain; {_TSV}",
)
_GWET_AC2 = _Member(
    "gwet",
    "gwet_ac2",
    "AC2",
    f"Gwet's AC2 (Gwet 2014, ch. 3): weighted AC1; {_TSV}",
)
_BRENNAN_PREDIGER = _Member(
    "bp",
    "brennan_prediger",
    "the Brennan-Prediger coefficient",
    "Brennan-Prediger (1981) / Randolph free-marginal kappa: uniform chance "
    f"agreement over the category domain; {_TSV}",
)
_CONGER_KAPPA = _Member(
    "conger",
    "conger_kappa",
    "kappa",
    "Conger's kappa (Conger 1980; 'exact' kappa): chance agreement from each "
    f"rater's own marginals; {_TSV}",
)


def _estimate(
    member: _Member,
    data: Any,
    categories: Any,
    weights: Any,
    population_size: float | None,
    ci: CIKind,
    n_boot: int,
    rng: RngLike,
) -> tuple[_Data, dict[str, Any]]:
    """The prepared data and the fields of one member's result (Conger's kappa reads the
    ratings; the others the analytic view of the item counts)."""
    d = _prepare(data, categories, member.name)
    if member.kind != "conger":
        d = _analytic_view(d, ci)
    fields = _family(
        member, d, weights, population_size=population_size, ci=ci, n_boot=n_boot, rng=rng
    )
    return d, fields


def _family(
    member: _Member,
    d: _Data,
    weights: Any,
    *,
    population_size: float | None,
    ci: CIKind,
    n_boot: int,
    rng: RngLike,
    terms: bool = False,
) -> dict[str, Any]:
    """Statistic, general SE and bootstrap of one member of the (p_a - p_e)/(1 - p_e) family
    (``terms``: also ``item_terms``, the linearised term of every rated item).

    Follows irrCAC 1.4 (``pa.coeff.raw``, ``fleiss.kappa.raw``, ``gwet.ac1.raw``,
    ``bp.coeff.raw``, ``conger.kappa.raw``): observed agreement over items with two or more
    ratings, chance agreement over all rated items, and the item-level linearisation
    ``kappa_i* = kappa_i - 2 (1 - kappa) (pe_i - pe) / (1 - pe)``.
    """
    kind, name, label = member.kind, member.name, member.label
    check_ci(ci, n_boot, name)
    _check_bootstrap(d, ci, name)
    it = item_terms(d)
    q = it.counts.shape[1]
    n, wt = it.n, it.weights  # items; items per row (None: one)
    w, wname = _weight_matrix(weights, d, name)
    r, two, n2 = it.r, it.two, it.n2
    base = _base(name, d, n, n2, population_size, wname)
    base["method"] = member.method
    f = population_factor(n, population_size)
    if kind == "percent":
        base["bounds"] = (0.0, 1.0)
    else:
        base["bounds"] = (-math.inf, 1.0)
    if n2 == 0:
        return undefined_fields(_NO_PAIRS, base, stacklevel=5)

    sumq = pair_sums(d, w)
    den = np.where(two, r * (r - 1.0), 1.0)
    pa_i = np.where(two, sumq / den, 0.0)
    del den
    pa = float(pa_i.sum() / n2) if wt is None else float(np.dot(wt, pa_i) / n2)
    pe, pe_i, conger_feats = _chance(kind, d, w, ci)
    base.update(observed_agreement=pa, chance_agreement=pe)
    if not math.isfinite(pe) or pe >= 1.0 - 1e-12:
        if kind == "gwet" and q < 2:
            reason = f"the category domain has one category, so {label} is undefined"
        elif kind == "conger" and d.n_raters < 2:
            reason = _NO_PAIRS
        else:
            reason = _undefined_pe_reason(d, label)
        return undefined_fields(reason, base, stacklevel=5)
    kappa = (pa - pe) / (1.0 - pe)
    se = _linearised_se(d, pa_i, pe_i, pe, kappa, f, kind == "conger") if n >= 2 else math.nan
    out: dict[str, Any] = dict(statistic=kappa, standard_error=se, **base)
    if terms:
        out["item_terms"] = _item_linearised_terms(d, pa_i, pe_i, pe, kappa, kind == "conger")
    if n < 2:
        out["reason"] = _ONE_ITEM
    if ci == "bootstrap":
        feats = _bootstrap_features(it, pa_i, conger_feats)
        stat = _family_from_totals(kind, w, q)
        reps, jk = bootstrap(feats, stat, n_boot=n_boot, rng=rng)
        out.update(replicates=reps, jackknife=jk)
    return out


def _chance(kind: _Kind, d: _Data, w: Any, ci: str) -> tuple[float, FloatArray, Any]:
    """The member's chance agreement ``pe``, its item terms ``pe_i`` (per row; Conger's: per
    item) and, for Conger's bootstrap, the rater x category features of each item."""
    it = item_terms(d)
    counts, r, pi = it.counts, it.r, it.pi
    n_rows, q = counts.shape
    t_w = float(w.sum())
    if kind == "percent":
        return 0.0, np.zeros(n_rows), None
    if kind == "fleiss":
        return float(pi @ w @ pi), rows_dot(counts, (w @ pi + w.T @ pi) / 2.0) / r, None
    if kind == "gwet":
        scale = t_w / (q * (q - 1)) if q >= 2 else math.nan
        return scale * float(np.sum(pi * (1.0 - pi))), scale * rows_dot(counts, 1.0 - pi) / r, None
    if kind == "bp":
        return t_w / q**2, np.full(n_rows, t_w / q**2), None
    pe_i, _, pe, feats = _conger_parts(d, w, features=ci == "bootstrap")
    return pe, pe_i, feats


def _linearised_se(
    d: _Data,
    pa_i: FloatArray,
    pe_i: FloatArray,
    pe: float,
    kappa: float,
    f: float,
    pe_per_item: bool,
) -> float:
    """Gwet's linearisation SE from the item terms (two or more items); ``pe_per_item``:
    ``pe_i`` has one term per item also on compressed data (Conger's)."""
    it = item_terms(d)
    n, n2, two, wt = it.n, it.n2, it.two, it.weights
    if wt is None or pe_per_item:
        # Sum of squared item terms, a chunk of items at a time (no n-long temporaries).
        # On compressed data Conger's pe_i is per item: the pattern terms are gathered.
        rows = None if wt is None else d.item_pattern
        total = 0.0
        for s in chunks(n):
            g = s if rows is None else rows[s]
            kappa_ix = _kappa_star(pa_i[g], two[g], pe_i[s], pe, kappa, n / n2)
            total += float(np.sum((kappa_ix - kappa) ** 2))
        return math.sqrt(f / (n * (n - 1)) * total)
    # Compressed data: every term is a function of the pattern, weighted by its items.
    kappa_ix = _kappa_star(pa_i, two, pe_i, pe, kappa, n / n2)
    return math.sqrt(f / (n * (n - 1)) * float(np.dot(wt, (kappa_ix - kappa) ** 2)))


def _kappa_star(
    pa_i: FloatArray, two: Any, pe_i: FloatArray, pe: float, kappa: float, scale: float
) -> FloatArray:
    """Gwet's item-level linearisation ``kappa_i* = kappa_i - 2 (1 - kappa) (pe_i - pe) /
    (1 - pe)``, ``kappa_i = scale (pa_i - pe [r_i >= 2]) / (1 - pe)`` with ``scale = n / n'``;
    the terms average to ``kappa`` over the items."""
    kappa_i = scale * (pa_i - pe * two) / (1.0 - pe)
    out: FloatArray = kappa_i - 2.0 * (1.0 - kappa) * (pe_i - pe) / (1.0 - pe)
    return out


def _item_linearised_terms(
    d: _Data, pa_i: FloatArray, pe_i: FloatArray, pe: float, kappa: float, pe_per_item: bool
) -> FloatArray:
    """The linearised term of every rated item, in item order (the terms whose spread
    :func:`_linearised_se` measures); on compressed data the pattern terms are gathered."""
    it = item_terms(d)
    rows = np.arange(it.n) if it.weights is None else d.item_pattern
    pe_rows = np.arange(it.n) if pe_per_item else rows
    return _kappa_star(pa_i[rows], it.two[rows], pe_i[pe_rows], pe, kappa, it.n / it.n2)


def _bootstrap_features(it: ItemTerms, pa_i: FloatArray, conger_feats: Any) -> Any:
    """Per item: ``[pa_i, pairable, 1, shares of each category, (Conger: rater x category
    indicators)]``, whose totals give every member's statistic (:func:`_family_from_totals`)."""
    counts, r = it.counts, it.r
    head = np.column_stack([pa_i, it.two.astype(float), np.ones(it.n)])
    if not is_sparse(counts) and conger_feats is None:
        return np.column_stack([head, counts / r[:, None]])
    from scipy import sparse

    shares = (
        sparse.csr_array(counts.multiply((1.0 / r)[:, None]))
        if is_sparse(counts)
        else sparse.csr_array(counts / r[:, None])
    )
    parts = [sparse.csr_array(head), shares]
    parts += [conger_feats] if conger_feats is not None else []
    return sparse.hstack(parts, format="csr")


def _check_bootstrap(d: _Data, ci: str, owner: str) -> None:
    """Refuse ``ci="bootstrap"`` on compressed counts (the bootstrap resamples items)."""
    if ci == "bootstrap" and d.weights is not None:
        raise InvalidInputError(
            f"ci='bootstrap' of {owner} resamples items and needs uncompressed item counts "
            "(one row per item); these counts are compressed into count patterns with "
            "multiplicities: use ci='analytic'"
        )


def _family_from_totals(kind: _Kind, w: FloatArray, q: int) -> Callable[[FloatArray], FloatArray]:
    """The statistic as a function of item totals ``[sum pa_i, n2, n, sum shares, ...]``."""
    t_w = float(w.sum())

    def stat(t: FloatArray) -> FloatArray:
        pa = t[:, 0] / t[:, 1]
        if kind == "percent":
            out: FloatArray = pa
            return out
        pi = t[:, 3 : 3 + q] / t[:, 2:3]
        if kind == "fleiss":
            pe = np.sum(pi * np.asarray(pi @ w), axis=1)
        elif kind == "gwet":
            pe = t_w / (q * (q - 1)) * np.sum(pi * (1.0 - pi), axis=1)
        elif kind == "bp":
            pe = np.full(t.shape[0], t_w / q**2)
        else:
            classif = t[:, 3 + q :].reshape(t.shape[0], -1, q)
            n_r = classif.shape[1]
            p = classif / classif.sum(axis=2, keepdims=True)
            pbar = p.mean(axis=1)
            if is_sparse(w) or isinstance(w, LowRankWeights):  # many categories: no q x q
                pe = np.array([_conger_pe(p[j], pbar[j], w) for j in range(t.shape[0])])
            else:
                outer = pbar[:, :, None] * pbar[:, None, :]
                s2 = (np.einsum("bgk,bgl->bkl", p, p) - n_r * outer) / (n_r - 1)
                pe = np.sum(w[None] * (outer - s2 / n_r), axis=(1, 2))
        res: FloatArray = (pa - pe) / (1.0 - pe)
        return res

    return stat


# --------------------------------------------------------------------------- public API


def percent_agreement(
    data: CountsLike,
    *,
    weights: WeightsLike | None = "identity",
    categories: Any = None,
    population_size: float | None = None,
    ci: CIKind = "analytic",
    n_boot: int = 2000,
    rng: RngLike = None,
) -> Coefficient:
    r"""Percent agreement among many raters: the share of agreeing rating pairs within items.

    .. math::

        p_a = \frac{1}{n'}\sum_{i: r_i \ge 2}
              \sum_k \frac{r_{ik}(r^\star_{ik} - 1)}{r_i (r_i - 1)},
        \quad r^\star_{ik} = \sum_l w_{kl} r_{il}

    Parameters
    ----------
    data : Ratings, ItemCategoryCounts or array_like of shape (n_items, q)
        Ratings, or the item x category counts.
    weights : str, array_like of shape (q, q) or None, default "identity"
        Agreement weights (:func:`~accord.agreement.weights.agreement_weights`).
        None: unweighted.
    categories : sequence, optional
        Category names (the domain, in order) for an array of counts.
    population_size : float, optional
        Number of items in the population, for Gwet's finite-population correction
        ``(1 - n/N)`` of the variance. Default: infinite.
    ci : {"analytic", "bootstrap"}, default "analytic"
        ``"bootstrap"`` also resamples items ``n_boot`` times (on the counts) and stores the
        replicates, for ``confidence_interval(method="percentile" | "bca")``.
    n_boot : int, default 2000
        Bootstrap replicates.
    rng : Generator, int or None
        Random source of the bootstrap.

    Returns
    -------
    Coefficient
        ``statistic`` (p_a), ``standard_error`` (Gwet 2014 / irrCAC ``pa.coeff.raw``), the
        interval on [0, 1], and the fields of :class:`~accord.Coefficient`.

    Notes
    -----
    Items with one rating hold no pair; they are counted in ``n_items_unpairable`` and enter
    the variance with a zero term, as in irrCAC.

    References
    ----------
    .. [1] Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed., ch. 2 and 5.
       Advanced Analytics.

    Examples
    --------
    irrCAC's ``distrib.6raters`` (15 items, 6 raters, 5 categories):

    >>> counts = [[0,0,0,6,0],[0,3,0,0,3],[0,1,4,0,1],[0,0,0,0,6],[0,3,0,3,0],[2,0,4,0,0],
    ...           [0,0,4,0,2],[2,0,3,1,0],[2,0,0,4,0],[0,0,0,0,6],[1,0,0,5,0],[1,1,0,4,0],
    ...           [0,3,3,0,0],[1,0,0,5,0],[0,2,0,3,1]]
    >>> res = percent_agreement(counts)
    >>> round(res.statistic, 7), round(res.standard_error, 8)
    (0.5511111, 0.06649714)
    """
    _, fields = _estimate(
        _PERCENT_AGREEMENT, data, categories, weights, population_size, ci, n_boot, rng
    )
    return Coefficient(**fields)


@dataclasses.dataclass(frozen=True, slots=True)
class FleissKappa(Coefficient):
    """Fleiss' kappa with the per-category kappas.

    Attributes
    ----------
    per_category : pandas.DataFrame
        One row per category: ``category``, ``proportion`` (pi_k, the mean share of the
        category in an item's ratings) and ``kappa`` (Fleiss 1971, eq. 16: the kappa of the
        category against all others, unweighted; NaN when the category is never or always
        used).
    """

    per_category: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)


def _per_category(d: _Data) -> pd.DataFrame:
    it = item_terms(d)
    counts, r, two = it.counts, it.r, it.two
    if not it.n2:
        return pd.DataFrame(
            {"category": list(d.categories), "proportion": math.nan, "kappa": math.nan}
        )
    pi = it.pi
    # Mean over pairable items of r_ik (r_i - r_ik) / (r_i (r_i - 1)), one category at a time.
    inv_pairs = np.where(two, 1.0 / np.where(two, r * (r - 1.0), 1.0), 0.0)
    if it.weights is not None:
        inv_pairs = inv_pairs * it.weights  # items per pattern
    disagree = np.zeros(counts.shape[1])
    if is_sparse(counts):  # r_ik (r_i - r_ik) on the ratings' cells only
        c = counts.astype(np.float64)
        disagree += cols_dot(c.multiply(r[:, None]) - c.multiply(c), inv_pairs)
    else:
        for s in chunks(counts.shape[0]):  # (items, q) float temporaries one chunk at a time
            c = np.asarray(counts[s], dtype=np.float64)
            disagree += cols_dot(c, r[s] * inv_pairs[s])
            disagree -= np.einsum("ik,ik,i->k", c, c, inv_pairs[s])
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa_k = 1.0 - (disagree / it.n2) / (pi * (1.0 - pi))
    kappa_k = np.where((pi > 0) & (pi < 1), kappa_k, math.nan)
    return pd.DataFrame({"category": list(d.categories), "proportion": pi, "kappa": kappa_k})


def _fleiss_null_se(d: _Data, f: float) -> float:
    """SE under kappa = 0 (Fleiss, Nee & Landis 1979), complete unweighted designs only."""
    it = item_terms(d)
    counts, r = it.counts, it.r
    n = it.n
    if n == 0:
        return math.nan
    m = float(r[0])
    if not (np.all(r == m) and m >= 2):
        return math.nan
    totals = cols_dot(counts, np.ones(counts.shape[0]) if it.weights is None else it.weights)
    pi = totals / (n * m)
    pq = pi * (1.0 - pi)
    s = float(pq.sum())
    inner = s**2 - float(np.sum(pq * (1.0 - 2.0 * pi)))
    if s <= 0 or inner < 0:
        return math.nan
    return math.sqrt(2.0) / (s * math.sqrt(n * m * (m - 1))) * math.sqrt(inner) * math.sqrt(f)


def fleiss_kappa(
    data: CountsLike,
    *,
    weights: WeightsLike | None = "identity",
    categories: Any = None,
    population_size: float | None = None,
    ci: CIKind = "analytic",
    n_boot: int = 2000,
    rng: RngLike = None,
) -> FleissKappa:
    r"""Fleiss' kappa for many raters, on complete or incomplete designs.

    .. math::

        \kappa = \frac{p_a - p_e}{1 - p_e}, \quad
        p_a = \frac{1}{n'}\sum_{i: r_i \ge 2}
              \sum_k \frac{r_{ik}(r^\star_{ik} - 1)}{r_i (r_i - 1)},
        \quad p_e = \sum_{k,l} w_{kl}\,\pi_k \pi_l, \quad
        \pi_k = \frac{1}{n}\sum_i \frac{r_{ik}}{r_i}

    with :math:`r_{ik}` the ratings of item *i* in category *k*, :math:`r_i` the ratings of
    item *i*, :math:`r^\star_{ik} = \sum_l w_{kl} r_{il}`, *n* the items with a rating and
    *n'* those with two or more.

    Parameters
    ----------
    data : Ratings, ItemCategoryCounts or array_like of shape (n_items, q)
        Ratings, or the item x category counts.
    weights : str, array_like of shape (q, q) or None, default "identity"
        Agreement weights for the weighted kappa (Gwet 2014, ch. 3). None: unweighted.
    categories, population_size, ci, n_boot, rng
        Category names (for counts), the population size and the intervals, as in
        :func:`percent_agreement`.

    Returns
    -------
    FleissKappa
        ``statistic``, ``standard_error`` (general, Gwet 2014 / irrCAC 1.4),
        ``standard_error_null`` (under kappa = 0, Fleiss, Nee & Landis 1979; complete
        unweighted designs only, else NaN), ``observed_agreement`` (p_a),
        ``chance_agreement`` (p_e), ``per_category`` (unweighted), and the fields of
        :class:`~accord.Coefficient`.

    Notes
    -----
    With the same number of ratings per item this is Fleiss (1971). For incomplete designs
    it is the generalisation of Gwet (2014, ch. 5), as in irrCAC: observed agreement over
    items with two or more ratings, chance agreement over all rated items. When every rating
    is in one category, p_e = 1 and kappa is undefined: NaN with a reason and a
    :class:`~accord.DegenerateDataWarning`. With two raters it equals Scott's pi.

    References
    ----------
    .. [1] Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
       Psychological Bulletin, 76(5), 378-382. https://doi.org/10.1037/h0031619
    .. [2] Fleiss, J. L., Nee, J. C. M., & Landis, J. R. (1979). Large sample variance of
       kappa in the case of different sets of raters. Psychological Bulletin, 86(5), 974-977.
       https://doi.org/10.1037/0033-2909.86.5.974
    .. [3] Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed. Advanced
       Analytics.

    Examples
    --------
    The Wikipedia example (10 items, 14 raters, 5 categories):

    >>> counts = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
    ...           [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
    ...           [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    >>> res = fleiss_kappa(counts)
    >>> round(res.statistic, 6), round(res.standard_error, 6)
    (0.209931, 0.092371)
    """
    d, fields = _estimate(
        _FLEISS_KAPPA, data, categories, weights, population_size, ci, n_boot, rng
    )
    if fields["weights"] == "identity" and math.isfinite(fields["statistic"]):
        n = item_terms(d).n
        fields["standard_error_null"] = _fleiss_null_se(d, population_factor(n, population_size))
    return FleissKappa(per_category=_per_category(d), **fields)


def gwet_ac1(
    data: CountsLike,
    *,
    categories: Any = None,
    population_size: float | None = None,
    ci: CIKind = "analytic",
    n_boot: int = 2000,
    rng: RngLike = None,
) -> Coefficient:
    r"""Gwet's AC1: chance agreement from the propensity to classify at random.

    .. math::

        AC_1 = \frac{p_a - p_e}{1 - p_e}, \quad
        p_e = \frac{1}{q - 1}\sum_k \pi_k (1 - \pi_k)

    with :math:`p_a` and :math:`\pi_k` as in :func:`fleiss_kappa` and *q* the number of
    categories in the domain (declared, else observed).

    Parameters
    ----------
    data : Ratings, ItemCategoryCounts or array_like of shape (n_items, q)
        Ratings, or the item x category counts.
    categories, population_size, ci, n_boot, rng
        Category names (for counts), the population size and the intervals, as in
        :func:`percent_agreement`.

    Returns
    -------
    Coefficient
        ``statistic``, ``standard_error`` (Gwet 2008 / irrCAC 1.4 ``gwet.ac1.raw``),
        ``observed_agreement``, ``chance_agreement`` and the fields of
        :class:`~accord.Coefficient`.

    Notes
    -----
    The category domain (``q``) enters the chance term, so declare unused categories.
    With one category in the domain AC1 is undefined (NaN with a reason).

    References
    ----------
    .. [1] Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the
       presence of high agreement. British Journal of Mathematical and Statistical
       Psychology, 61(1), 29-48. https://doi.org/10.1348/000711006X126600
    .. [2] Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed. Advanced
       Analytics.

    Examples
    --------
    >>> counts = [[0,0,0,6,0],[0,3,0,0,3],[0,1,4,0,1],[0,0,0,0,6],[0,3,0,3,0],[2,0,4,0,0],
    ...           [0,0,4,0,2],[2,0,3,1,0],[2,0,0,4,0],[0,0,0,0,6],[1,0,0,5,0],[1,1,0,4,0],
    ...           [0,3,3,0,0],[1,0,0,5,0],[0,2,0,3,1]]
    >>> res = gwet_ac1(counts)
    >>> round(res.statistic, 7), round(res.standard_error, 8)
    (0.4448007, 0.08418757)
    """
    _, fields = _estimate(_GWET_AC1, data, categories, "identity", population_size, ci, n_boot, rng)
    return Coefficient(**fields)


def gwet_ac2(
    data: CountsLike,
    *,
    weights: WeightsLike | None = "quadratic",
    categories: Any = None,
    population_size: float | None = None,
    ci: CIKind = "analytic",
    n_boot: int = 2000,
    rng: RngLike = None,
) -> Coefficient:
    r"""Gwet's AC2: the weighted AC1 for ordered categories.

    .. math::

        AC_2 = \frac{p_a - p_e}{1 - p_e}, \quad
        p_e = \frac{T_w}{q (q - 1)}\sum_k \pi_k (1 - \pi_k), \quad T_w = \sum_{k,l} w_{kl}

    Parameters
    ----------
    data : Ratings, ItemCategoryCounts or array_like of shape (n_items, q)
        Ratings, or the item x category counts.
    weights : str, array_like of shape (q, q) or None, default "quadratic"
        Agreement weights (Gwet 2014, ch. 3). None: unweighted.
    categories, population_size, ci, n_boot, rng
        Category names (for counts), the population size and the intervals, as in
        :func:`percent_agreement`.

    Returns
    -------
    Coefficient
        As :func:`gwet_ac1`, with the weights (irrCAC 1.4 ``gwet.ac1.raw`` given weights).

    Notes
    -----
    As for AC1, the category domain (``q``) enters the chance term, so declare unused
    categories; with one category in the domain AC2 is undefined (NaN with a reason).

    References
    ----------
    .. [1] Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed., ch. 3. Advanced
       Analytics.

    Examples
    --------
    irrCAC's ``cont3x3abstractors`` as two raters' ratings (quadratic weights):

    >>> import accord, numpy as np
    >>> table = np.array([[13, 0, 0], [0, 20, 7], [0, 4, 56]])
    >>> x, y = np.nonzero(table)
    >>> pairs = np.repeat(np.c_[x, y], table[x, y], axis=0)
    >>> r = accord.Ratings.from_wide(pairs + 1)
    >>> round(gwet_ac2(r).statistic, 7)
    0.9402369
    """
    _, fields = _estimate(_GWET_AC2, data, categories, weights, population_size, ci, n_boot, rng)
    return Coefficient(**fields)


def brennan_prediger(
    data: CountsLike,
    *,
    weights: WeightsLike | None = "identity",
    categories: Any = None,
    population_size: float | None = None,
    ci: CIKind = "analytic",
    n_boot: int = 2000,
    rng: RngLike = None,
) -> Coefficient:
    r"""Brennan-Prediger coefficient (Bennett's S, Randolph's free-marginal kappa).

    .. math::

        BP = \frac{p_a - p_e}{1 - p_e}, \quad p_e = \frac{T_w}{q^2},
        \quad T_w = \sum_{k,l} w_{kl}

    Parameters
    ----------
    data : Ratings, ItemCategoryCounts or array_like of shape (n_items, q)
        Ratings, or the item x category counts.
    weights : str, array_like of shape (q, q) or None, default "identity"
        Agreement weights (Gwet 2014, ch. 3). None: unweighted.
    categories, population_size, ci, n_boot, rng
        Category names (for counts), the population size and the intervals, as in
        :func:`percent_agreement`.

    Returns
    -------
    Coefficient
        ``statistic``, ``standard_error`` (irrCAC 1.4 ``bp.coeff.raw``) and the fields of
        :class:`~accord.Coefficient`.

    Notes
    -----
    The chance term depends only on the number of categories ``q`` in the domain: declare
    the categories the raters could use. With one category it is undefined.

    References
    ----------
    .. [1] Brennan, R. L., & Prediger, D. J. (1981). Coefficient kappa: some uses, misuses,
       and alternatives. Educational and Psychological Measurement, 41(3), 687-699.
       https://doi.org/10.1177/001316448104100307
    .. [2] Randolph, J. J. (2005). Free-marginal multirater kappa. Joensuu Learning and
       Instruction Symposium.

    Examples
    --------
    >>> round(brennan_prediger([[6, 1, 0], [0, 7, 0]]).statistic, 6)
    0.785714
    """
    _, fields = _estimate(
        _BRENNAN_PREDIGER, data, categories, weights, population_size, ci, n_boot, rng
    )
    return Coefficient(**fields)


def conger_kappa(
    data: Ratings,
    *,
    weights: WeightsLike | None = "identity",
    population_size: float | None = None,
    ci: CIKind = "analytic",
    n_boot: int = 2000,
    rng: RngLike = None,
) -> Coefficient:
    r"""Conger's kappa: Cohen's kappa generalised to many raters.

    .. math::

        \kappa_C = \frac{p_a - p_e}{1 - p_e}, \quad
        p_e = \sum_{k,l} w_{kl}\left(\bar p_k \bar p_l - \frac{s^2_{kl}}{r}\right)

    with :math:`p_{gk}` the share of rater *g*'s ratings in category *k*,
    :math:`\bar p_k` its mean over the *r* raters and :math:`s^2_{kl}` their covariance.

    Parameters
    ----------
    data : Ratings
        Ratings with rater ids (counts do not say who rated what).
    weights : str, array_like of shape (q, q) or None, default "identity"
        Agreement weights (Gwet 2014, ch. 3). None: unweighted.
    population_size : float, optional
        Number of items in the population (finite-population correction).
    ci : {"analytic", "bootstrap"}, default "analytic"
    n_boot : int, default 2000
    rng : Generator, int or None

    Returns
    -------
    Coefficient
        ``statistic``, ``standard_error`` (irrCAC 1.4 ``conger.kappa.raw``, vectorised) and
        the fields of :class:`~accord.Coefficient`.

    Notes
    -----
    With two raters it equals Cohen's kappa. On incomplete designs each rater's marginals
    come from the items that rater rated (irrCAC's convention).

    References
    ----------
    .. [1] Conger, A. J. (1980). Integration and generalization of kappas for multiple
       raters. Psychological Bulletin, 88(2), 322-328. https://doi.org/10.1037/0033-2909.88.2.322

    Examples
    --------
    Gwet (2014), Table 3.5 (11 items, 2 raters, one rating missing each):

    >>> import accord
    >>> rows = [["A",None],["B","C"],["C","C"],["C","C"],["B","B"],["B",None],["A","A"],
    ...         ["A","B"],["B","B"],["B","B"],[None,"C"]]
    >>> r = accord.Ratings.from_wide(rows, level="ordinal", categories=["A", "B", "C"])
    >>> res = conger_kappa(r, weights="quadratic")
    >>> round(res.statistic, 5), round(res.standard_error, 5)
    (0.77723, 0.19546)
    """
    if not isinstance(data, Ratings | _Data):
        raise InvalidInputError(_CONGER_NEEDS_RATINGS)
    _, fields = _estimate(_CONGER_KAPPA, data, None, weights, population_size, ci, n_boot, rng)
    return Coefficient(**fields)


# --------------------------------------------------------------------------- Krippendorff


def _krippendorff_delta(level: str, values: FloatArray, totals: FloatArray) -> FloatArray:
    """Krippendorff's squared difference ``delta^2[c, k]`` for a level of measurement.

    Parameters
    ----------
    level : {"nominal", "ordinal", "interval", "ratio"}
    values : ndarray, shape (q,)
        Numeric values of the categories (interval, ratio).
    totals : ndarray, shape (q,)
        Pairable values per category ``n_c`` (ordinal: rank-frequency metric).
    """
    q = values.size
    if level == "nominal":
        out: FloatArray = 1.0 - np.eye(q)
        return out
    x = _ordinal_positions(totals) if level == "ordinal" else values
    diff = x[:, None] - x[None, :]
    if level in ("ordinal", "interval"):
        sq: FloatArray = diff**2
        return sq
    s = values[:, None] + values[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        rat: FloatArray = np.where(s != 0, (diff / np.where(s != 0, s, 1.0)) ** 2, 0.0)
    return rat


def _ordinal_positions(totals: FloatArray) -> FloatArray:
    """Krippendorff's ordinal metric as positions: ``delta_ck = (R_k - R_c)^2`` with
    ``R_c = sum_{g <= c} n_g - n_c / 2`` (cumulative counts of the sorted values)."""
    out: FloatArray = np.cumsum(totals) - totals / 2.0
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class _AlphaParts:
    """Per pairable item terms of Gwet's alpha linearisation (irrCAC 1.4 krippen.alpha.raw).

    m : ratings per item; sumq : sum_{a != b} w(x_a, x_b); pe_num : counts_i . pi_w;
    weights : items per row on compressed data (rows are count patterns), else None.
    """

    m: FloatArray
    sumq: FloatArray
    pe_num: FloatArray
    pe: float
    undefined: bool
    weights: FloatArray | None = None


def _alpha_parts_matrix(d: _Data, w: FloatArray) -> _AlphaParts:
    """The item terms of the pairable items under agreement weights ``w``, from the shared
    item counts (:func:`._shared.item_terms`, :func:`._shared.pair_sums`)."""
    it = item_terms(d)
    counts, keep = it.counts, it.two
    wt = it.weights
    if wt is not None:  # compressed data: count patterns, each standing for wt items
        m = it.r[keep]
        pi = cols_dot(counts, keep * wt) / float(np.dot(wt[keep], m))
        pe = float(pi @ w @ pi)
        sumq = pair_sums(d, w)[keep]
        pe_num = rows_dot(counts, (w @ pi + w.T @ pi) / 2.0)[keep]
        return _AlphaParts(m, sumq, pe_num, pe, False, wt[keep])
    every = it.n2 == keep.size
    m = it.r if every else it.r[keep]
    big_n = float(m.sum())
    pi = cols_dot(counts, keep.astype(np.float64)) / big_n
    pe = float(pi @ w @ pi)
    sumq = pair_sums(d, w)
    pe_num = rows_dot(counts, (w @ pi + w.T @ pi) / 2.0)
    if not every:
        sumq, pe_num = sumq[keep], pe_num[keep]
    return _AlphaParts(m, sumq, pe_num, pe, False)


def _alpha_parts_sets(d: _Data, metric: SetDistanceMetric) -> _AlphaParts:
    r"""The terms of :func:`_alpha_parts_matrix` under a set distance on many distinct sets,
    without their q x q distances: with :math:`w_{kl} = 1 - \delta_{kl} / \delta_{max}`,
    each item's :math:`\sum_{kl} c_k c_l w_{kl} = r^2 - \sum_{k \ne l} c_k c_l
    \delta_{kl} / \delta_{max}` reads only the pairs of sets within the item, and
    :math:`\delta_{max}` and :math:`W \pi` come from blocks of distances between the sets
    used (:meth:`~accord.agreement.set_distances.SetDistanceMetric.sums`)."""
    it = item_terms(d)
    counts, keep, wt = it.counts, it.two, it.weights
    m = it.r[keep]
    if wt is None:
        pi = cols_dot(counts, keep.astype(np.float64)) / float(m.sum())
    else:
        pi = cols_dot(counts, keep * wt) / float(np.dot(wt[keep], m))
    dmax, delta_pi = metric.sums(pi, np.flatnonzero(pi > 0))
    total = float(pi.sum())
    within = np.zeros(counts.shape[0])
    w_pi = np.full(pi.size, total)
    if dmax > 0:
        w_pi -= delta_pi / dmax
        within = pair_distance_sums(counts, metric) / dmax
    r = it.r.astype(np.float64)
    sumq = (r * r - within - r)[keep]
    pe_num = rows_dot(counts, w_pi)[keep]
    return _AlphaParts(m, sumq, pe_num, float(pi @ w_pi), False, None if wt is None else wt[keep])


def _many_sets(distance: Any, q: int) -> bool:
    """Whether alpha with a set distance takes the path without q x q distances."""
    return isinstance(distance, SetDistanceMetric) and q * q > DENSE_WEIGHT_CELLS


def _alpha_parts_sums(
    m: FloatArray,
    s1: FloatArray,
    s2: FloatArray,
    dmax: float,
    weights: FloatArray | None = None,
) -> _AlphaParts:
    """The same terms for the squared-difference metric from per-item sums (no V x V);
    ``weights``: items per row when the rows are count patterns."""
    if weights is None:
        big_n = float(m.sum())
        q1 = float(s1.sum()) / big_n
        q2 = float(s2.sum()) / big_n
    else:
        big_n = float(np.dot(weights, m))
        q1 = float(np.dot(weights, s1)) / big_n
        q2 = float(np.dot(weights, s2)) / big_n
    if dmax <= 0:
        return _AlphaParts(m, m, m, 1.0, True, weights)
    d_i = 2.0 * (m * s2 - s1**2)
    sumq = m**2 - m - d_i / dmax
    pe = 1.0 - 2.0 * (q2 - q1**2) / dmax
    pe_num = m - (s2 - 2.0 * s1 * q1 + m * q2) / dmax
    return _AlphaParts(m, sumq, pe_num, pe, False, weights)


def _alpha_finish(
    parts: _AlphaParts, n_rated: int, f_pop: float
) -> tuple[float, float, float, float]:
    """alpha, its SE, p_a and p_e from the item terms (irrCAC 1.4 formulas).

    p_a = (1 - 1/N) p_a' + 1/N, p_a' = sum_i sumq_i / (rbar (m_i - 1)) / n; the variance
    uses the item term ``pa_i = sumq_i / (rbar (m_i - 1)) - p_a' (m_i - rbar) / rbar``, the
    linearisation of p_a' (a ratio of two means) about its own value, so that the terms
    average to p_a' and the variance is the delta method's.
    """
    n, big_n, paprime = _alpha_sizes(parts)
    pe = parts.pe
    pa = (1.0 - 1.0 / big_n) * paprime + 1.0 / big_n
    alpha = (pa - pe) / (1.0 - pe)
    alpha_p = (paprime - pe) / (1.0 - pe)
    se = math.nan
    if n >= 2 and parts.weights is not None:
        k_wx = _alpha_star(parts, slice(None), paprime, big_n / n)
        dev = float(np.dot(parts.weights, (k_wx - alpha_p) ** 2))
        se = math.sqrt(f_pop / (n * (n - 1)) * dev)
    elif n >= 2:
        total = 0.0
        for s in chunks(n):  # item terms a chunk of items at a time
            total += float(np.sum((_alpha_star(parts, s, paprime, big_n / n) - alpha_p) ** 2))
        se = math.sqrt(f_pop / (n * (n - 1)) * total)
    return alpha, se, pa, pe


def _alpha_sizes(parts: _AlphaParts) -> tuple[int, float, float]:
    """Pairable items ``n``, pairable ratings ``N`` and ``p_a'`` (the mean of the item
    agreements ``sumq_i / (rbar (m_i - 1))``)."""
    m, wt = parts.m, parts.weights
    if wt is None:
        n, big_n = m.size, float(m.sum())
    else:  # rows are count patterns standing for wt items each
        n, big_n = round(float(wt.sum())), float(np.dot(wt, m))
    a_i = parts.sumq / (big_n / n * (m - 1.0))
    paprime = (float(a_i.sum()) if wt is None else float(np.dot(wt, a_i))) / n
    return n, big_n, paprime


def _alpha_star(parts: _AlphaParts, s: slice, paprime: float, rbar: float) -> FloatArray:
    """Gwet's linearised terms of ``alpha' = (p_a' - p_e) / (1 - p_e)`` of the rows ``s``
    (``rbar``: mean ratings per pairable item): ``k_i* = k_i - 2 (1 - alpha') (pe_i - pe) /
    (1 - pe)``, which average to alpha'."""
    m = parts.m[s]
    pe = parts.pe
    alpha_p = (paprime - pe) / (1.0 - pe)
    pa_i = parts.sumq[s] / (rbar * (m - 1.0)) - paprime * (m - rbar) / rbar
    k_i = (pa_i - pe) / (1.0 - pe)
    pe_i = parts.pe_num[s] / rbar - pe * (m - rbar) / rbar
    out: FloatArray = k_i - 2.0 * (1.0 - alpha_p) * (pe_i - pe) / (1.0 - pe)
    return out


def _item_sums(
    d: _Data, x: FloatArray, keep: npt.NDArray[np.bool_]
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Per pairable item: ratings, sum and sum of squares of the category scale ``x``."""
    if (
        d.ratings is not None
        and d.item_row is not None
        and d.weights is None
        and d.counts.shape[1] > 64
    ):
        r_obj = d.ratings
        rows = d.item_row[r_obj.item_codes]
        v = x[r_obj.label_codes]
        n = d.counts.shape[0]
        m = np.bincount(rows, minlength=n).astype(np.float64)
        b1: FloatArray = np.bincount(rows, weights=v, minlength=n).astype(np.float64)
        b2: FloatArray = np.bincount(rows, weights=v * v, minlength=n).astype(np.float64)
        return m[keep], b1[keep], b2[keep]
    it = item_terms(d)
    s1 = rows_dot(it.counts, x)
    s2 = rows_dot(it.counts, x * x)
    if it.weights is None and it.n2 == keep.size and keep is it.two:
        return it.r, s1, s2
    return it.r[keep], s1[keep], s2[keep]


def krippendorff_alpha(
    data: CountsLike,
    *,
    level: Level | None = None,
    weights: WeightsLike | None = None,
    distance: Distance | SetDistance | None = None,
    categories: Any = None,
    population_size: float | None = None,
    ci: CIKind = "analytic",
    n_boot: int = 2000,
    rng: RngLike = None,
) -> Coefficient:
    r"""Krippendorff's alpha, from the coincidences of the pairable items.

    .. math::

        \alpha = 1 - \frac{D_o}{D_e}, \quad
        D_o = \frac{1}{N}\sum_{c,k} o_{ck}\,\delta^2_{ck}, \quad
        D_e = \frac{1}{N(N-1)}\sum_{c,k} n_c n_k\,\delta^2_{ck},

    with coincidences :math:`o_{ck} = \sum_i r_{ic}(r_{ik} - [c = k])/(r_i - 1)` over items
    with two or more ratings, :math:`n_c = \sum_k o_{ck}` and :math:`N = \sum_c n_c`.

    Parameters
    ----------
    data : Ratings, ItemCategoryCounts or array_like of shape (n_items, q)
        Ratings, or the item x category counts.
    level : {"nominal", "ordinal", "interval", "ratio"}, optional
        The metric :math:`\delta^2`. Default: the level of the ratings (nominal for counts).
        Ordinal is Krippendorff's rank-frequency metric (not Gwet's ordinal weights);
        interval and ratio use the categories' numeric values.
    weights : str or array_like of shape (q, q), optional
        Gwet's agreement weights instead of a level: :math:`\delta^2 = 1 - w`
        (``"quadratic"`` gives the interval metric on the category scale).
    distance : callable or {"masi", "jaccard"}, optional
        A user metric: ``distance(x, y)`` returns :math:`\delta^2` for arrays of category
        values ``x`` and ``y`` (broadcast to q x q); >= 0 with zeros on the diagonal.
        For set-valued ratings (``multi_label=True``), ``"masi"`` or ``"jaccard"``: the
        distance between two raters' sets of labels (:doc:`/multi-label`). Without it,
        each distinct set is a category of its own (nominal: sets agree only when equal).
    categories : sequence, optional
        Category names (values, at interval/ratio level) for an array of counts.
    population_size : float, optional
        Items in the population (finite-population correction of the variance).
    ci : {"analytic", "bootstrap"}, default "analytic"
    n_boot : int, default 2000
    rng : Generator, int or None

    Returns
    -------
    Coefficient
        ``statistic``; ``standard_error`` (Gwet 2014 linearisation as in irrCAC 1.4
        ``krippen.alpha.raw``); ``observed_agreement`` and ``chance_agreement`` are irrCAC's
        p_a and p_e on the agreement scale ``w = 1 - delta^2 / max delta^2``, so that
        alpha = (p_a - p_e)/(1 - p_e); ``weights`` names the metric; ``n_items`` counts the
        pairable items.

    Notes
    -----
    Items with fewer than two ratings are not pairable and do not enter alpha; they are
    counted in ``n_items_unpairable``. ``[["A", "B"], ["B", "A"]]`` gives alpha = -0.5,
    not a bug: alpha compares disagreement within items with disagreement among all
    pairable values, and among four values (two A, two B) drawn without replacement a
    random pair disagrees with probability 2/3, not 1; observed disagreement 1 against an
    expected 2/3 gives 1 - 1/(2/3) = -0.5. When all pairable values are in one category,
    D_e = 0 and alpha is undefined (NaN with a reason).

    At interval level (and ordinal, through the rank positions
    :math:`R_c = \sum_{g \le c} n_g - n_c/2`, for which
    :math:`\delta^2_{ck} = (R_k - R_c)^2`) alpha and its SE come from per-item sums of
    values and squares, in O(N) memory: no V x V matrix for continuous scores.

    The SE is the linearisation of Gwet (2014) as irrCAC computes it since its 2021 revision
    (R irrCAC 1.2 and later): the item term centres on :math:`p_a'`, which makes it the
    delta-method variance of :math:`p_a'` as a ratio of two means (irrCAC 1.0 and the Python
    port 0.4.4 centre on :math:`p_a`, a difference of order 1/N). The t interval uses the
    pairable items (two or more ratings) for its degrees of freedom, as the variance does.
    For the ordinal metric the weights depend on the marginals; the SE treats them as fixed,
    the bootstrap does not.

    References
    ----------
    .. [1] Krippendorff, K. (2004). Content Analysis: An Introduction to Its Methodology,
       2nd ed. Sage.
    .. [2] Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability.
       https://repository.upenn.edu/asc_papers/43
    .. [3] Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed., ch. 2 and 5.
       Advanced Analytics.

    Examples
    --------
    The Wikipedia example (3 coders, 15 units; rows are coders):

    >>> import numpy as np, accord
    >>> nan = np.nan
    >>> coders = [[nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
    ...           [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
    ...           [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4]]
    >>> r = accord.Ratings.from_wide(np.array(coders).T)
    >>> round(krippendorff_alpha(r).statistic, 6)
    0.691358
    >>> round(krippendorff_alpha(r, level="interval").statistic, 6)
    0.810845
    """
    check_ci(ci, n_boot, "krippendorff_alpha")
    if isinstance(distance, str):  # a distance between sets of labels
        distance = set_distance(data, distance, level=level, weights=weights)
    if (
        isinstance(data, Ratings)
        and data.n_categories > _MANY_VALUES
        and weights is None
        and distance is None
        and (level or data.level) in ("interval", "ordinal")
    ):
        ordered = has_order(data.categories, data.level, data.categories_declared)
        _check_alpha_level(level or data.level, data.categories, ordered)
        return _alpha_many_values(
            data,
            level or data.level,
            population_size,
            ci,
            n_boot,
            rng,
        )
    d = _prepare(data, categories, "krippendorff_alpha")
    d = _analytic_view(d, ci)
    lvl = _alpha_metric(d, data, level, weights, distance)
    if weights is None and distance is None:
        _check_alpha_level(lvl, d.categories, d.ordered)
    _check_bootstrap(d, ci, "krippendorff_alpha")
    q = len(d.categories)
    if ci == "bootstrap" and _many_sets(distance, q):
        raise ManyCategoriesError(
            f"krippendorff_alpha: a bootstrap of alpha with the {lvl} distance on {q:,} "
            f"distinct sets of labels would need their {q:,} x {q:,} distances; "
            f"{option('ci', 'analytic')} gives alpha and its SE without them"
        )
    it = item_terms(d)
    pairable = it.two
    base = _alpha_base(lvl, d, it.n, it.n2, population_size, ", coincidences over pairable items")
    if it.n2 == 0:
        return Coefficient(**undefined_fields(_NO_PAIRS, base))
    parts, w = _alpha_parts(d, lvl, weights, distance)
    out = _alpha_fields(parts, it.n, population_factor(it.n, population_size), base)
    if ci == "bootstrap" and "observed_agreement" in out:  # alpha is defined
        reps, jk = _alpha_bootstrap(d, pairable, lvl, w, n_boot, rng)
        out.update(replicates=reps, jackknife=jk)
    return Coefficient(**out)


def _check_alpha_level(lvl: str, categories: tuple[Any, ...], ordered: bool) -> None:
    """Alpha at an ordered level (ordinal, interval, ratio) reads distances on the scale:
    refused on text labels in an order nobody declared (:func:`check_ordered`)."""
    if lvl != "nominal":
        check_ordered(f"alpha's {lvl} distances", categories, "krippendorff_alpha", ordered)


def _alpha_parts(
    d: _Data, lvl: str, weights: Any, distance: Distance | None
) -> tuple[_AlphaParts, FloatArray | None]:
    """The item terms of alpha under its metric over the pairable items (some pairable),
    and the agreement weights (None: the squared-difference metric, from per-item sums)."""
    it = item_terms(d)
    pairable = it.two
    # Pairable values per category (on compressed data, items per pattern).
    totals = cols_dot(
        it.counts, pairable.astype(np.float64) if it.weights is None else pairable * it.weights
    )
    if lvl in ("interval", "ordinal") and weights is None and distance is None:
        x = _ordinal_positions(totals) if lvl == "ordinal" else d.category_values
        x, dmax = _centred(x, totals)
        m_i, s1, s2 = _item_sums(d, x, pairable)
        parts = _alpha_parts_sums(
            m_i, s1, s2, dmax, None if it.weights is None else it.weights[pairable]
        )
        return parts, None
    if _many_sets(distance, len(d.categories)):
        assert isinstance(distance, SetDistanceMetric)
        parts = _alpha_parts_sets(d, distance)
        return dataclasses.replace(parts, undefined=parts.pe >= 1.0 - 1e-12), None
    w = _alpha_weights(d, lvl, weights, distance, totals)
    parts = _alpha_parts_matrix(d, w)
    return dataclasses.replace(parts, undefined=parts.pe >= 1.0 - 1e-12), w


def _alpha_metric(
    d: _Data, data: Any, level: Level | None, weights: Any, distance: Distance | None
) -> str:
    """The name of alpha's metric: the level, the weights' name, or "distance"."""
    if sum(x is not None for x in (level, weights, distance)) > 1:
        raise InvalidInputError(
            "krippendorff_alpha takes one of level=, weights= or distance=, not several"
        )
    if weights is not None:
        return weights if isinstance(weights, str) else "custom"
    if distance is not None:
        return str(getattr(distance, "metric", "distance"))
    lvl = d.level if level is None else level
    if lvl not in ("nominal", "ordinal", "interval", "ratio"):
        raise InvalidInputError(
            "The 'level' parameter of krippendorff_alpha must be one of "
            f"{{'nominal', 'ordinal', 'interval', 'ratio'}}. Got {lvl!r} instead."
        )
    if lvl in ("interval", "ratio") and isinstance(data, Ratings):
        _check_numeric(lvl, data.categories)
    return lvl


def _check_numeric(lvl: str, categories: tuple[Any, ...]) -> None:
    try:
        np.asarray(categories, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"level={lvl!r} needs numeric labels; the categories are {categories!r}"
        ) from None


def _alpha_base(
    lvl: str, d: Any, n_rated: int, n_pair: int, population_size: float | None, how: str
) -> dict[str, Any]:
    """The fields of an alpha result other than its numbers."""
    return dict(
        name="krippendorff_alpha",
        n_items=n_pair,
        n_raters=d.n_raters,
        categories=d.categories,
        n_items_unpairable=n_rated - n_pair,
        weights=lvl,
        bounds=(-math.inf, 1.0),
        method=f"Krippendorff's alpha, {lvl} metric"
        + (" (Krippendorff's rank-frequency ordinal metric)" if lvl == "ordinal" else "")
        + f"{how}; {_TSV} (krippen.alpha.raw)",
        population_size=math.inf if population_size is None else float(population_size),
    )


def _centred(x: FloatArray, totals: FloatArray) -> tuple[FloatArray, float]:
    """Category values centred on their mean over the pairable values and divided by the
    range of the used ones, and the largest squared difference among those (1, or 0 when
    one value is used).

    Alpha's squared-difference metric is scale invariant (each distance is divided by the
    largest), so dividing by the range changes no result; it keeps the squares finite and
    apart from 0 for scores as large as 1e200 or as small as 1e-300.

    >>> x, dmax = _centred(np.array([1e200, 3e200, 5e200]), np.array([1.0, 1.0, 2.0]))
    >>> x.tolist(), dmax
    ([-0.625, -0.125, 0.375], 1.0)
    """
    used = totals > 0
    size = float(np.max(np.abs(x[used])))
    if size > 0:  # first to about 1, so that the sums below cannot overflow
        x = x / size
    x = x - float(np.sum(x * totals) / totals.sum())
    span = float(x[used].max() - x[used].min())
    if span <= 0:
        return x, 0.0
    return x / span, 1.0


def _check_dense_metric(lvl: str, q: int) -> None:
    """Refuse a metric that needs its q x q distances when they would not fit in
    :data:`~accord.agreement.weights.DENSE_WEIGHT_CELLS` cells."""
    if q * q > DENSE_WEIGHT_CELLS:
        raise ManyCategoriesError(
            f"krippendorff_alpha: the {lvl} metric on {q:,} categories would need a "
            f"{q:,} x {q:,} matrix of distances; alpha with "
            f"{option('level', 'interval', 'ordinal')} is computed without one"
        )


def _alpha_weights(
    d: _Data, lvl: str, weights: Any, distance: Distance | None, totals: FloatArray
) -> Any:
    """Agreement weights ``w = 1 - delta^2 / max delta^2`` of alpha's metric (a
    :class:`~accord.agreement.weights.LowRankWeights` for quadratic weights on many
    categories)."""
    if weights is not None:
        return _weight_matrix(weights, d, "krippendorff_alpha")[0]
    scale = d.category_values
    q = scale.size
    if distance is not None:
        delta = np.asarray(distance(scale[:, None], scale[None, :]), dtype=np.float64)
        if delta.shape != (q, q) or not np.all(np.isfinite(delta)) or np.any(delta < 0):
            raise InvalidInputError(
                "distance(x, y) must return finite values >= 0 of shape (q, q) for "
                f"q = {q} categories; got shape {delta.shape}"
            )
        if np.any(np.diag(delta) != 0):
            raise InvalidInputError("distance(x, x) must be 0 for every category")
    elif lvl == "nominal":  # delta = 1 - I, so w = I: nothing q x q when q is large
        out: FloatArray = identity_weights(q)
        return out
    else:
        _check_dense_metric(lvl, q)
        delta = _krippendorff_delta(lvl, scale, totals)
    used = totals > 0
    dmax = float(delta[np.ix_(used, used)].max()) if used.any() else 0.0
    w: FloatArray = 1.0 - delta / dmax if dmax > 0 else np.ones((q, q))
    return w


def _alpha_fields(
    parts: _AlphaParts, n_rated: int, f_pop: float, base: dict[str, Any]
) -> dict[str, Any]:
    """Alpha, its SE, p_a and p_e from the item terms, or NaN with the reason (and a
    warning) when every pairable rating is in one category."""
    if parts.undefined or parts.pe >= 1.0 - 1e-12:
        reason = (
            "all pairable ratings are in one category: expected disagreement is 0 and alpha "
            "is 0/0 (undefined)"
        )
        return undefined_fields(reason, base, stacklevel=4)
    alpha, se, pa, pe = _alpha_finish(parts, n_rated, f_pop)
    out: dict[str, Any] = dict(
        statistic=alpha, standard_error=se, observed_agreement=pa, chance_agreement=pe, **base
    )
    if base["n_items"] < 2:
        out["reason"] = _ONE_ITEM
    return out


#: Above this many distinct values, interval/ordinal alpha on ratings skips item x category counts.
_MANY_VALUES = 512


def _alpha_many_values(
    r: Ratings,
    lvl: Level,
    population_size: float | None,
    ci: CIKind,
    n_boot: int,
    rng: RngLike,
) -> Coefficient:
    """Interval or ordinal alpha on many distinct values, from per-rating sums only: O(N)
    memory, no items x values counts and no values x values matrix."""
    if lvl == "interval":
        _check_numeric(lvl, r.categories)
    m_all = np.bincount(r.item_codes, minlength=r.n_items).astype(np.float64)
    pairable_item = m_all >= 2
    n_rated = int(np.count_nonzero(m_all))
    n_pair = int(pairable_item.sum())
    n_raters = int(np.count_nonzero(np.bincount(r.rater_codes, minlength=r.n_raters)))
    base = _alpha_base(
        lvl,
        _RaterView(n_raters, r.categories),
        n_rated,
        n_pair,
        population_size,
        ", from per-item sums of values and squares (no V x V matrix)",
    )
    if n_pair == 0:
        return Coefficient(**undefined_fields(_NO_PAIRS, base, stacklevel=4))
    keep = pairable_item[r.item_codes]
    totals = np.bincount(r.label_codes[keep], minlength=r.n_categories).astype(np.float64)
    x = _ordinal_positions(totals) if lvl == "ordinal" else r.category_values
    x, dmax = _centred(x, totals)
    v = x[r.label_codes]
    s1: FloatArray = np.bincount(r.item_codes, weights=v, minlength=r.n_items).astype(float)
    s2: FloatArray = np.bincount(r.item_codes, weights=v * v, minlength=r.n_items).astype(float)
    s1, s2 = s1[pairable_item], s2[pairable_item]
    m_i = m_all[pairable_item]
    parts = _alpha_parts_sums(m_i, s1, s2, dmax)
    out = _alpha_fields(parts, n_rated, population_factor(n_rated, population_size), base)
    if ci == "bootstrap" and "observed_agreement" in out:  # alpha is defined
        feats = np.column_stack([2.0 * (m_i * s2 - s1**2) / (m_i - 1.0), m_i, s1, s2])
        reps, jk = bootstrap(feats, _alpha_from_sums, n_boot=n_boot, rng=rng)
        out.update(replicates=reps, jackknife=jk)
    return Coefficient(**out)


@dataclasses.dataclass(frozen=True, slots=True)
class _RaterView:
    """The raters and categories an alpha result reports (ratings without counts)."""

    n_raters: int
    categories: tuple[Any, ...]


def _alpha_from_sums(t: FloatArray) -> FloatArray:
    """Squared-difference alpha from totals ``[sum D_i/(m_i-1), N, sum x, sum x^2]``."""
    big_n = t[:, 1]
    d_o = t[:, 0] / big_n
    d_e = 2.0 * (big_n * t[:, 3] - t[:, 2] ** 2) / (big_n * (big_n - 1.0))
    res: FloatArray = 1.0 - d_o / d_e
    return res


def _alpha_bootstrap(
    d: _Data,
    pairable: npt.NDArray[np.bool_],
    lvl: str,
    w: FloatArray | None,
    n_boot: int,
    rng: RngLike,
) -> tuple[FloatArray, FloatArray | None]:
    """Bootstrap of alpha over pairable items, on per-item totals."""
    pc = d.counts[pairable]
    if w is not None:
        # Fixed weights: alpha from [sum sumq/(m-1), N, counts].
        m = row_sums(pc).astype(np.float64)
        sumq = pair_sums(d, w)[pairable]
        if is_sparse(pc):
            from scipy import sparse

            head = sparse.csr_array(np.column_stack([sumq / (m - 1.0), m]))
            feats: Any = sparse.hstack([head, pc.astype(np.float64)], format="csr")
        else:
            feats = np.column_stack([sumq / (m - 1.0), m, pc])

        def stat_fixed(t: FloatArray) -> FloatArray:
            big_n = t[:, 1]
            pa = (1.0 - 1.0 / big_n) * t[:, 0] / big_n + 1.0 / big_n
            pi = t[:, 2:] / big_n[:, None]
            pe = np.sum(pi * np.asarray(pi @ w), axis=1)
            res: FloatArray = (pa - pe) / (1.0 - pe)
            return res

        return bootstrap(feats, stat_fixed, n_boot=n_boot, rng=rng)
    m = row_sums(pc)
    q = pc.shape[1]
    if lvl == "interval" or q > 64:
        # Interval (and ordinal with many values, on the full-data positions): D_o and D_e
        # from per-item sums.
        totals = np.asarray(pc.sum(axis=0)).ravel()
        x = _ordinal_positions(totals) if lvl == "ordinal" else d.category_values
        x = x - float(np.sum(x * totals) / totals.sum())
        m_i, s1, s2 = _item_sums(d, x, pairable)
        feats = np.column_stack([2.0 * (m_i * s2 - s1**2) / (m_i - 1.0), m_i, s1, s2])
        return bootstrap(feats, _alpha_from_sums, n_boot=n_boot, rng=rng)
    # Ordinal with few categories: coincidences, metric recomputed per replicate.
    coinc = (pc[:, :, None] * pc[:, None, :] - pc[:, :, None] * np.eye(q)[None]) / (m - 1.0)[
        :, None, None
    ]
    feats = coinc.reshape(pc.shape[0], q * q)

    def stat_ord(t: FloatArray) -> FloatArray:
        o = t.reshape(-1, q, q)
        n_c = o.sum(axis=2)
        big_n = n_c.sum(axis=1)
        pos = np.cumsum(n_c, axis=1) - n_c / 2.0
        delta = (pos[:, :, None] - pos[:, None, :]) ** 2
        d_o = np.sum(o * delta, axis=(1, 2)) / big_n
        d_e = np.einsum("bk,bkl,bl->b", n_c, delta, n_c) / (big_n * (big_n - 1.0))
        res: FloatArray = 1.0 - d_o / d_e
        return res

    return bootstrap(feats, stat_ord, n_boot=n_boot, rng=rng)
