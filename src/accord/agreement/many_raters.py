"""Chance-corrected agreement among many raters, from item x category counts.

Every coefficient has an entry point on ratings (:class:`~accord.Ratings`) and one on the
sufficient statistic (an items x categories array of counts,
:class:`~accord.stats.ItemCategoryCounts`, or its count patterns); all are read through one
counts view (:mod:`._counts`). Each chance model is one object holding its chance agreement,
item terms and bootstrap form; Krippendorff's alpha is in :mod:`.krippendorff`. Missing
ratings are missing, never a category.

The family shares one shape, :math:`(p_a - p_e)/(1 - p_e)`, and one body of inference: the
linearisation variances of Gwet (2014) as implemented by the R package irrCAC 1.4, a t
interval on ``n_items - 1`` degrees of freedom, and a bootstrap over items computed on the
counts (:mod:`accord.agreement.inference`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any, Never

import numpy as np
import pandas as pd

from .._errors import InvalidInputError
from .._results import Coefficient, undefined_fields
from .._types import Alternative, BoolArray, FloatArray, IntArray, RngLike
from ..data.ratings import Ratings
from ..data.source import refuse_read_options
from ._counts import (
    NO_PAIRS,
    ONE_ITEM,
    TSV,
    CountsLike,
    CountsView,
    ItemTerms,
    WeightsLike,
    analytic_view,
    check_bootstrap,
    code_rows,
    pair_sums,
    prepare,
    rater_category,
    weight_matrix,
)
from ._shared import chunks, cols_dot, is_identity, is_sparse, rows_dot
from .inference import (
    CIKind,
    Inference,
    SEKind,
    bootstrap,
    check_ci,
    population_factor,
)
from .krippendorff import krippendorff_alpha
from .weights import LowRankWeights

__all__ = [
    "CountsLike",
    "FleissKappa",
    "WeightsLike",
    "brennan_prediger",
    "conger_kappa",
    "conger_rater_terms",
    "fleiss_kappa",
    "gwet_ac1",
    "gwet_ac2",
    "krippendorff_alpha",
    "percent_agreement",
]

Distance = Callable[[FloatArray, FloatArray], FloatArray]

_CONGER_NEEDS_RATINGS = (
    "conger_kappa needs ratings with rater ids (Ratings), not item x category counts: "
    "counts do not say who gave which rating"
)


def _base(
    name: str, d: CountsView, n: int, n2: int, population_size: float | None, wname: str
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


def _undefined_pe_reason(d: CountsView, label: str) -> str:
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
    d: CountsView, w: FloatArray, features: bool = False
) -> tuple[FloatArray, FloatArray, float, Any]:
    """Conger's chance agreement per item (irrCAC conger.kappa.raw, vectorised).

    Returns
    -------
    pe_i : ndarray, shape (n_items,)
        Item terms of the linearised chance agreement, one per rated item (also on
        count patterns, where :attr:`CountsView.item_rows` gives each item's row).
    p : ndarray, shape (r, q)
        Each rater's category proportions.
    pe : float
    rater_features : scipy sparse array, shape (n_items, r * q)
        Rater x category indicators per item (bootstrap features).
    """
    if d.ratings is None:  # the rater side as an engine's margins
        if d.conger is None:
            raise InvalidInputError(_CONGER_NEEDS_RATINGS)
        pe_i, p, pe = d.conger(w)
        n_items = d.items.n
        if np.shape(pe_i) != (n_items,):
            raise ValueError(
                f"internal error: the engine's Conger terms have shape {np.shape(pe_i)}; "
                f"expected one per rated item ({n_items})"
            )
        return pe_i, p, pe, None
    r_obj = d.ratings
    if d.item_row is None:
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


# --------------------------------------------------------------------------- chance models


@dataclasses.dataclass(frozen=True, slots=True)
class _Chance:
    """A chance model of the family: its ``p_e`` on a counts view and its bootstrap form.

    :meth:`on_view` gives ``p_e``, its linearised item terms ``pe_i`` (one per row of the
    view; with ``by_rater``, one per item) and the extra bootstrap features (Conger's rater
    x category indicators); :meth:`on_totals` gives ``p_e`` of each bootstrap replicate
    from the item totals ``t = [sum pa_i, n2, n, sum shares, ...]`` and the category
    shares ``pi`` they give. No chance correction (percent agreement): ``p_e = 0``.
    """

    #: Chance from each rater's own marginals: reads the rater side, ``pe_i`` per item.
    by_rater: bool = False

    def on_view(self, d: CountsView, w: Any, ci: str) -> tuple[float, FloatArray, Any]:
        return 0.0, np.zeros(d.counts.shape[0]), None

    def on_totals(self, t: FloatArray, pi: FloatArray, w: Any, q: int) -> FloatArray:
        return np.zeros(t.shape[0])

    def degenerate(self, d: CountsView, label: str) -> str:
        """Why ``p_e = 1`` (or undefined) makes the coefficient 0/0."""
        return _undefined_pe_reason(d, label)


@dataclasses.dataclass(frozen=True, slots=True)
class _PooledChance(_Chance):
    """Fleiss: ``p_e = sum_kl w_kl pi_k pi_l`` from the pooled category shares."""

    def on_view(self, d: CountsView, w: Any, ci: str) -> tuple[float, FloatArray, Any]:
        it = d.items
        pi = it.pi
        return float(pi @ w @ pi), rows_dot(it.counts, (w @ pi + w.T @ pi) / 2.0) / it.r, None

    def on_totals(self, t: FloatArray, pi: FloatArray, w: Any, q: int) -> FloatArray:
        out: FloatArray = np.sum(pi * np.asarray(pi @ w), axis=1)
        return out


@dataclasses.dataclass(frozen=True, slots=True)
class _DomainChance(_Chance):
    """Gwet: ``p_e = T_w / (q (q - 1)) sum_k pi_k (1 - pi_k)`` over the category domain."""

    def on_view(self, d: CountsView, w: Any, ci: str) -> tuple[float, FloatArray, Any]:
        it = d.items
        q, pi = it.counts.shape[1], it.pi
        scale = float(w.sum()) / (q * (q - 1)) if q >= 2 else math.nan
        pe_i = scale * rows_dot(it.counts, 1.0 - pi) / it.r
        return scale * float(np.sum(pi * (1.0 - pi))), pe_i, None

    def on_totals(self, t: FloatArray, pi: FloatArray, w: Any, q: int) -> FloatArray:
        out: FloatArray = float(w.sum()) / (q * (q - 1)) * np.sum(pi * (1.0 - pi), axis=1)
        return out

    def degenerate(self, d: CountsView, label: str) -> str:
        if len(d.categories) < 2:
            return f"the category domain has one category, so {label} is undefined"
        return _undefined_pe_reason(d, label)


@dataclasses.dataclass(frozen=True, slots=True)
class _UniformChance(_Chance):
    """Brennan-Prediger: ``p_e = T_w / q^2``, uniform over the category domain."""

    def on_view(self, d: CountsView, w: Any, ci: str) -> tuple[float, FloatArray, Any]:
        q = d.counts.shape[1]
        return float(w.sum()) / q**2, np.full(d.counts.shape[0], float(w.sum()) / q**2), None

    def on_totals(self, t: FloatArray, pi: FloatArray, w: Any, q: int) -> FloatArray:
        return np.full(t.shape[0], float(w.sum()) / q**2)


@dataclasses.dataclass(frozen=True, slots=True)
class _RaterChance(_Chance):
    """Conger: ``p_e = sum_kl w_kl (pbar_k pbar_l - s2_kl / r)`` from each rater's own
    category proportions (the bootstrap features carry them per item)."""

    by_rater: bool = True

    def on_view(self, d: CountsView, w: Any, ci: str) -> tuple[float, FloatArray, Any]:
        pe_i, _, pe, feats = _conger_parts(d, w, features=ci == "bootstrap")
        return pe, pe_i, feats

    def on_totals(self, t: FloatArray, pi: FloatArray, w: Any, q: int) -> FloatArray:
        classif = t[:, 3 + q :].reshape(t.shape[0], -1, q)
        n_r = classif.shape[1]
        p = classif / classif.sum(axis=2, keepdims=True)
        pbar = p.mean(axis=1)
        if is_sparse(w) or isinstance(w, LowRankWeights):  # many categories: no q x q
            return np.array([_conger_pe(p[j], pbar[j], w) for j in range(t.shape[0])])
        outer = pbar[:, :, None] * pbar[:, None, :]
        s2 = (np.einsum("bgk,bgl->bkl", p, p) - n_r * outer) / (n_r - 1)
        out: FloatArray = np.sum(w[None] * (outer - s2 / n_r), axis=(1, 2))
        return out

    def degenerate(self, d: CountsView, label: str) -> str:
        return NO_PAIRS if d.n_raters < 2 else _undefined_pe_reason(d, label)


@dataclasses.dataclass(frozen=True, slots=True)
class _Member:
    """One member of the family: its chance model, name, name in messages, method and
    bounds."""

    chance: _Chance
    name: str
    label: str
    method: str
    bounds: tuple[float, float] = (-math.inf, 1.0)


_PERCENT_AGREEMENT = _Member(
    _Chance(),
    "percent_agreement",
    "percent agreement",
    f"percent agreement over items with two or more ratings; no chance correction; {TSV}",
    (0.0, 1.0),
)
_FLEISS_KAPPA = _Member(
    _PooledChance(),
    "fleiss_kappa",
    "kappa",
    "Fleiss' kappa (Fleiss 1971; incomplete designs and weights: Gwet 2014); "
    f"chance agreement from the pooled category proportions; {TSV}; null SE: Fleiss, "
    "Nee & Landis (1979), complete unweighted designs",
)
_GWET_AC1 = _Member(
    _DomainChance(),
    "gwet_ac1",
    "AC1",
    f"Gwet's AC1 (Gwet 2008); chance agreement from the category domain; {TSV}",
)
_GWET_AC2 = _Member(
    _DomainChance(),
    "gwet_ac2",
    "AC2",
    f"Gwet's AC2 (Gwet 2014, ch. 3): weighted AC1; {TSV}",
)
_BRENNAN_PREDIGER = _Member(
    _UniformChance(),
    "brennan_prediger",
    "the Brennan-Prediger coefficient",
    "Brennan-Prediger (1981) / Randolph free-marginal kappa: uniform chance "
    f"agreement over the category domain; {TSV}",
)
_CONGER_KAPPA = _Member(
    _RaterChance(),
    "conger_kappa",
    "kappa",
    "Conger's kappa (Conger 1980; 'exact' kappa): chance agreement from each "
    f"rater's own marginals; {TSV}",
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
    sampling: Inference = Inference(),
) -> tuple[CountsView, dict[str, Any]]:
    """The counts view and the fields of one member's result (Conger's kappa reads the
    ratings; the others the analytic view of the item counts), with the standard error
    and test of ``sampling``."""
    sampling.check(member.name)
    d = prepare(data, categories, member.name)
    if not member.chance.by_rater:
        d = analytic_view(d, ci)
    fields = _family(
        member, d, weights, population_size=population_size, ci=ci, n_boot=n_boot, rng=rng
    )

    def without_rater(sub: Ratings) -> float:
        view = prepare(sub, None, member.name)
        view = view if member.chance.by_rater else analytic_view(view, "analytic")
        out = _family(member, view, weights, population_size=None, ci="analytic", n_boot=0,
                      rng=None)  # fmt: skip
        return float(out["statistic"])

    ratings = data if isinstance(data, Ratings) else d.ratings
    fast = None
    if sampling.se != "raters" and ratings is not None and not member.chance.by_rater:
        fast = _totals_jackknife(member, d, weights)
    fields.update(sampling.fields(fields, ratings, without_rater, member.name, jackknife=fast))
    return d, fields


#: Most categories (dense q x q) and item x category cells for which the jackknife over
#: raters runs on item totals.
_TOTALS_JACKKNIFE_Q = 256
_TOTALS_JACKKNIFE_CELLS = 20_000_000


def _totals_jackknife(member: _Member, d: CountsView, weights: Any) -> FloatArray | None:
    """The coefficient without each rater (in the order of the rater codes that rated), from
    the item totals of :func:`_family_from_totals`: rater *g*'s ratings change only the
    items *g* rated, so the totals without *g* are the totals plus the change of those
    items' terms. O(ratings + raters x q), against a recomputation per rater; None where
    the counts are sparse or the categories many (then each rater is left out in turn).

    Each rating (item *i*, label *l*) leaves ``c' = c_i - e_l``: ``r' = r_i - 1`` ratings,
    pair sums ``c'W c' - r'`` with ``c'W c' = c_i W c_i - (W c_i)_l - (c_i W)_l + w_ll``,
    shares ``c'/r'`` (0 when the item is left with no rating).
    """
    it, r_obj = d.items, d.ratings
    q = it.counts.shape[1]
    dense = not is_sparse(it.counts) and it.counts.shape[0] * q <= _TOTALS_JACKKNIFE_CELLS
    if r_obj is None or d.item_row is None or not dense or q > _TOTALS_JACKKNIFE_Q:
        return None
    w_any, _ = weight_matrix(weights, d, member.name)
    w = np.asarray(w_any.toarray() if is_sparse(w_any) else w_any, dtype=np.float64)
    counts = np.asarray(it.counts, dtype=np.float64)
    r, two = it.r, it.two
    sumq = pair_sums(d, w)
    pa = np.where(two, sumq / np.where(two, r * (r - 1.0), 1.0), 0.0)
    shares = counts / r[:, None]
    totals = np.concatenate([[pa.sum(), two.sum(), float(it.n)], shares.sum(axis=0)])
    from scipy import sparse

    n_rows = counts.shape[0]
    codes = np.flatnonzero(np.bincount(r_obj.rater_codes, minlength=r_obj.n_raters))
    k = codes.size
    lookup = np.full(r_obj.n_raters, -1, dtype=np.int64)
    lookup[codes] = np.arange(k)
    cell = d.item_row[r_obj.item_codes] * q + r_obj.label_codes  # (item row, label)
    # Ratings of each rater in each (item, label) cell: every term below is one per cell.
    by_cell = sparse.csr_array(
        (np.ones(cell.size), (lookup[r_obj.rater_codes], cell)), shape=(k, n_rows * q)
    )
    left = (r - 1.0)[:, None]  # ratings left on the item, (n, 1)
    sumq_left = (sumq + r)[:, None] - (counts @ w.T + counts @ w) + np.diag(w)[None, :] - left
    two_left = left >= 2
    pa_left = np.where(two_left, sumq_left / np.where(two_left, left * (left - 1.0), 1.0), 0.0)
    head = np.empty((n_rows, q, 3))
    head[:, :, 0] = pa_left - pa[:, None]
    head[:, :, 1] = two_left.astype(np.float64) - two[:, None]
    head[:, :, 2] = (left >= 1).astype(np.float64) - 1.0  # -1 where no rating is left
    change = by_cell @ head.reshape(n_rows * q, 3)
    # Shares: sum over g's ratings of c_i (1/r' - 1/r_i) - e_l / r' (c_i / r_i when none left).
    beta = np.where(left[:, 0] >= 1, 1.0 / np.where(left[:, 0] >= 1, left[:, 0], 1.0), 0.0)
    alpha = beta - 1.0 / r
    cells = np.arange(n_rows * q)
    to_item = sparse.csr_array(
        (np.ones(n_rows * q), (cells, cells // q)), shape=(n_rows * q, n_rows)
    )
    to_label = sparse.csr_array((np.repeat(beta, q), (cells, cells % q)), shape=(n_rows * q, q))
    by_rater = (by_cell @ to_item) @ (alpha[:, None] * counts) - (by_cell @ to_label).toarray()
    t = totals[None, :] + np.column_stack([change, by_rater])
    with np.errstate(invalid="ignore", divide="ignore"):
        pi = t[:, 3:] / t[:, 2:3]
        pe = member.chance.on_totals(t, pi, w, q)
        out: FloatArray = np.where(
            (t[:, 1] > 0) & (pe < 1.0 - 1e-12), (t[:, 0] / t[:, 1] - pe) / (1.0 - pe), math.nan
        )
    return out


def _family(
    member: _Member,
    d: CountsView,
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
    name, chance = member.name, member.chance
    check_ci(ci, n_boot, name)
    check_bootstrap(d, ci, name)
    it = d.items
    q = it.counts.shape[1]
    n, r, two, n2 = it.n, it.r, it.two, it.n2
    w, wname = weight_matrix(weights, d, name)
    base = _base(name, d, n, n2, population_size, wname)
    base.update(method=member.method, bounds=member.bounds)
    f = population_factor(n, population_size)
    if n2 == 0:
        return undefined_fields(NO_PAIRS, base, stacklevel=5)

    sumq = pair_sums(d, w)
    den = np.where(two, r * (r - 1.0), 1.0)
    pa_i = np.where(two, sumq / den, 0.0)
    del den
    pa = it.mult.total(pa_i) / n2
    pe, pe_i, rater_feats = chance.on_view(d, w, ci)
    base.update(observed_agreement=pa, chance_agreement=pe)
    if not math.isfinite(pe) or pe >= 1.0 - 1e-12:
        return undefined_fields(chance.degenerate(d, member.label), base, stacklevel=5)
    kappa = (pa - pe) / (1.0 - pe)
    se = _linearised_se(d, pa_i, pe_i, pe, kappa, f, chance.by_rater) if n >= 2 else math.nan
    out: dict[str, Any] = dict(statistic=kappa, standard_error=se, **base)
    if terms:
        out["item_terms"] = _item_linearised_terms(d, pa_i, pe_i, pe, kappa, chance.by_rater)
    if n < 2:
        out["reason"] = ONE_ITEM
    if ci == "bootstrap":
        feats = _bootstrap_features(it, pa_i, rater_feats)
        stat = _family_from_totals(member, w, q)
        reps, jk = bootstrap(feats, stat, n_boot=n_boot, rng=rng)
        out.update(replicates=reps, jackknife=jk)
    return out


def _linearised_se(
    d: CountsView,
    pa_i: FloatArray,
    pe_i: FloatArray,
    pe: float,
    kappa: float,
    f: float,
    pe_per_item: bool,
) -> float:
    """Gwet's linearisation SE from the item terms (two or more items); ``pe_per_item``:
    ``pe_i`` has one term per item also on count patterns (Conger's)."""
    it = d.items
    n, n2, two = it.n, it.n2, it.two
    if pe_per_item:
        # Sum of squared item terms, a chunk of items at a time (no n-long temporaries);
        # on count patterns the pattern terms are gathered for each item.
        rows = None if it.mult.is_unit else d.item_rows
        total = 0.0
        for s in chunks(n):
            g = s if rows is None else rows[s]
            kappa_ix = _kappa_star(pa_i[g], two[g], pe_i[s], pe, kappa, n / n2)
            total += float(np.sum((kappa_ix - kappa) ** 2))
    else:  # every term a function of the row, counted once per item of the row
        total = it.mult.chunked_total(
            two.size,
            lambda s: (_kappa_star(pa_i[s], two[s], pe_i[s], pe, kappa, n / n2) - kappa) ** 2,
        )
    return math.sqrt(f / (n * (n - 1)) * total)


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
    d: CountsView, pa_i: FloatArray, pe_i: FloatArray, pe: float, kappa: float, pe_per_item: bool
) -> FloatArray:
    """The linearised term of every rated item, in item order (the terms whose spread
    :func:`_linearised_se` measures); on count patterns the pattern terms are gathered."""
    it = d.items
    rows = d.item_rows
    pe_rows = np.arange(it.n) if pe_per_item else rows
    return _kappa_star(pa_i[rows], it.two[rows], pe_i[pe_rows], pe, kappa, it.n / it.n2)


def _bootstrap_features(it: ItemTerms, pa_i: FloatArray, rater_feats: Any) -> Any:
    """Per item: ``[pa_i, pairable, 1, shares of each category, (Conger: rater x category
    indicators)]``, whose totals give every member's statistic (:func:`_family_from_totals`)."""
    counts, r = it.counts, it.r
    head = np.column_stack([pa_i, it.two.astype(float), np.ones(it.n)])
    if not is_sparse(counts) and rater_feats is None:
        return np.column_stack([head, counts / r[:, None]])
    from scipy import sparse

    shares = (
        sparse.csr_array(counts.multiply((1.0 / r)[:, None]))
        if is_sparse(counts)
        else sparse.csr_array(counts / r[:, None])
    )
    parts = [sparse.csr_array(head), shares]
    parts += [rater_feats] if rater_feats is not None else []
    return sparse.hstack(parts, format="csr")


def _family_from_totals(
    member: _Member, w: FloatArray, q: int
) -> Callable[[FloatArray], FloatArray]:
    """The statistic as a function of item totals ``[sum pa_i, n2, n, sum shares, ...]``."""

    def stat(t: FloatArray) -> FloatArray:
        pa = t[:, 0] / t[:, 1]
        pi = t[:, 3 : 3 + q] / t[:, 2:3]
        pe = member.chance.on_totals(t, pi, w, q)
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
    se: SEKind = "raters",
    rater_population_size: float | None = None,
    test_value: float = 0.0,
    alternative: Alternative = "two-sided",
    **read_options: Never,
) -> Coefficient:
    r"""Percent agreement among many raters: the share of agreeing rating pairs within items.

    .. math::

        p_a = \frac{1}{n'}\sum_{i: r_i \ge 2}
              \sum_k \frac{r_{ik}(r^\star_{ik} - 1)}{r_i (r_i - 1)},
        \quad r^\star_{ik} = \sum_l w_{kl} r_{il}

    Parameters
    ----------
    data : Ratings, ItemCategoryCounts, CountPatterns or array_like of shape (n_items, q)
        Ratings, the item x category counts, or their count patterns (distinct rows with
        the items sharing each; analytic SE only).
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
    se : {"raters", "items", "unconditional"}, default "raters"
        Which standard error (kappaetc's ``se()``). ``"raters"``: conditional on the raters
        (Gwet's linearisation over items): the answer generalises to other items rated by
        these raters. ``"items"``: conditional on the items, a jackknife over raters (Gwet
        2008): to other raters of these items. ``"unconditional"``: the two variances
        summed: to other items and other raters. The last two need ratings with rater ids
        and three or more raters; their intervals and tests use ``n_raters - 1`` df and
        the normal, as kappaetc.
    rater_population_size : float, optional
        Raters in the population, for the finite-population correction ``(1 - r/R)`` of
        the variance over raters (kappaetc's ``nraters()``). Default: infinite.
    test_value : float, default 0
        The p-value tests ``statistic = test_value`` (kappaetc's ``testvalue()``), with the
        t (or z) statistic ``(statistic - test_value) / SE``.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        The alternative hypothesis: ``"greater"`` tests H0 ``statistic <= test_value``
        (kappaetc's ``testvalue(<#)``), ``"less"`` H0 ``statistic >= test_value``.

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
    refuse_read_options("percent_agreement", read_options)
    _, fields = _estimate(
        _PERCENT_AGREEMENT,
        data,
        categories,
        weights,
        population_size,
        ci,
        n_boot,
        rng,
        Inference(
            se=se,
            rater_population_size=rater_population_size,
            test_value=test_value,
            alternative=alternative,
        ),
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


def _per_category(d: CountsView) -> pd.DataFrame:
    it = d.items
    counts, r, two = it.counts, it.r, it.two
    if not it.n2:
        return pd.DataFrame(
            {"category": list(d.categories), "proportion": math.nan, "kappa": math.nan}
        )
    pi = it.pi
    # Mean over pairable items of r_ik (r_i - r_ik) / (r_i (r_i - 1)), one category at a time.
    inv_pairs = it.mult.times(np.where(two, 1.0 / np.where(two, r * (r - 1.0), 1.0), 0.0))
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
    # A category of all or none of the ratings (to round-off: patterns sum in another order)
    # has kappa 0/0.
    kappa_k = np.where((pi > 1e-12) & (pi < 1.0 - 1e-12), kappa_k, math.nan)
    return pd.DataFrame({"category": list(d.categories), "proportion": pi, "kappa": kappa_k})


def _fleiss_null_se(d: CountsView, f: float) -> float:
    """SE under kappa = 0 (Fleiss, Nee & Landis 1979), complete unweighted designs only."""
    it = d.items
    counts, r = it.counts, it.r
    n = it.n
    if n == 0:
        return math.nan
    m = float(r[0])
    if not (np.all(r == m) and m >= 2):
        return math.nan
    totals = cols_dot(counts, it.mult.times(np.ones(counts.shape[0])))
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
    se: SEKind = "raters",
    rater_population_size: float | None = None,
    test_value: float = 0.0,
    alternative: Alternative = "two-sided",
    **read_options: Never,
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
    data : Ratings, ItemCategoryCounts, CountPatterns or array_like of shape (n_items, q)
        Ratings, the item x category counts, or their count patterns (distinct rows with
        the items sharing each; analytic SE only).
    weights : str, array_like of shape (q, q) or None, default "identity"
        Agreement weights for the weighted kappa (Gwet 2014, ch. 3). None: unweighted.
    categories, population_size, ci, n_boot, rng, se, rater_population_size, test_value, alternative
        Category names (for counts), the population sizes, the intervals, the standard
        error and the test, as in :func:`percent_agreement`.

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
    refuse_read_options("fleiss_kappa", read_options)
    d, fields = _estimate(
        _FLEISS_KAPPA,
        data,
        categories,
        weights,
        population_size,
        ci,
        n_boot,
        rng,
        Inference(
            se=se,
            rater_population_size=rater_population_size,
            test_value=test_value,
            alternative=alternative,
        ),
    )
    if fields["weights"] == "identity" and math.isfinite(fields["statistic"]):
        n = d.items.n
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
    se: SEKind = "raters",
    rater_population_size: float | None = None,
    test_value: float = 0.0,
    alternative: Alternative = "two-sided",
    **read_options: Never,
) -> Coefficient:
    r"""Gwet's AC1: chance agreement from the propensity to classify at random.

    .. math::

        AC_1 = \frac{p_a - p_e}{1 - p_e}, \quad
        p_e = \frac{1}{q - 1}\sum_k \pi_k (1 - \pi_k)

    with :math:`p_a` and :math:`\pi_k` as in :func:`fleiss_kappa` and *q* the number of
    categories in the domain (declared, else observed).

    Parameters
    ----------
    data : Ratings, ItemCategoryCounts, CountPatterns or array_like of shape (n_items, q)
        Ratings, the item x category counts, or their count patterns (distinct rows with
        the items sharing each; analytic SE only).
    categories, population_size, ci, n_boot, rng, se, rater_population_size, test_value, alternative
        Category names (for counts), the population sizes, the intervals, the standard
        error and the test, as in :func:`percent_agreement`.

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
    refuse_read_options("gwet_ac1", read_options)
    _, fields = _estimate(
        _GWET_AC1,
        data,
        categories,
        "identity",
        population_size,
        ci,
        n_boot,
        rng,
        Inference(
            se=se,
            rater_population_size=rater_population_size,
            test_value=test_value,
            alternative=alternative,
        ),
    )
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
    se: SEKind = "raters",
    rater_population_size: float | None = None,
    test_value: float = 0.0,
    alternative: Alternative = "two-sided",
    **read_options: Never,
) -> Coefficient:
    r"""Gwet's AC2: the weighted AC1 for ordered categories.

    .. math::

        AC_2 = \frac{p_a - p_e}{1 - p_e}, \quad
        p_e = \frac{T_w}{q (q - 1)}\sum_k \pi_k (1 - \pi_k), \quad T_w = \sum_{k,l} w_{kl}

    Parameters
    ----------
    data : Ratings, ItemCategoryCounts, CountPatterns or array_like of shape (n_items, q)
        Ratings, the item x category counts, or their count patterns (distinct rows with
        the items sharing each; analytic SE only).
    weights : str, array_like of shape (q, q) or None, default "quadratic"
        Agreement weights (Gwet 2014, ch. 3). None: unweighted.
    categories, population_size, ci, n_boot, rng, se, rater_population_size, test_value, alternative
        Category names (for counts), the population sizes, the intervals, the standard
        error and the test, as in :func:`percent_agreement`.

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
    refuse_read_options("gwet_ac2", read_options)
    _, fields = _estimate(
        _GWET_AC2,
        data,
        categories,
        weights,
        population_size,
        ci,
        n_boot,
        rng,
        Inference(
            se=se,
            rater_population_size=rater_population_size,
            test_value=test_value,
            alternative=alternative,
        ),
    )
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
    se: SEKind = "raters",
    rater_population_size: float | None = None,
    test_value: float = 0.0,
    alternative: Alternative = "two-sided",
    **read_options: Never,
) -> Coefficient:
    r"""Brennan-Prediger coefficient (Bennett's S, Randolph's free-marginal kappa).

    .. math::

        BP = \frac{p_a - p_e}{1 - p_e}, \quad p_e = \frac{T_w}{q^2},
        \quad T_w = \sum_{k,l} w_{kl}

    Parameters
    ----------
    data : Ratings, ItemCategoryCounts, CountPatterns or array_like of shape (n_items, q)
        Ratings, the item x category counts, or their count patterns (distinct rows with
        the items sharing each; analytic SE only).
    weights : str, array_like of shape (q, q) or None, default "identity"
        Agreement weights (Gwet 2014, ch. 3). None: unweighted.
    categories, population_size, ci, n_boot, rng, se, rater_population_size, test_value, alternative
        Category names (for counts), the population sizes, the intervals, the standard
        error and the test, as in :func:`percent_agreement`.

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
    refuse_read_options("brennan_prediger", read_options)
    _, fields = _estimate(
        _BRENNAN_PREDIGER,
        data,
        categories,
        weights,
        population_size,
        ci,
        n_boot,
        rng,
        Inference(
            se=se,
            rater_population_size=rater_population_size,
            test_value=test_value,
            alternative=alternative,
        ),
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
    se: SEKind = "raters",
    rater_population_size: float | None = None,
    test_value: float = 0.0,
    alternative: Alternative = "two-sided",
    **read_options: Never,
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
    se, rater_population_size, test_value, alternative
        The standard error and the test, as in :func:`percent_agreement`.

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
    refuse_read_options("conger_kappa", read_options)
    if not isinstance(data, Ratings | CountsView):  # a counts view: agreement()'s, shared
        raise InvalidInputError(_CONGER_NEEDS_RATINGS)
    _, fields = _estimate(
        _CONGER_KAPPA,
        data,
        None,
        weights,
        population_size,
        ci,
        n_boot,
        rng,
        Inference(
            se=se,
            rater_population_size=rater_population_size,
            test_value=test_value,
            alternative=alternative,
        ),
    )
    return Coefficient(**fields)
