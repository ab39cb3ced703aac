"""Measures of stacked contingency tables, shared by the two-rater and the pairwise
estimators: percent agreement, Cohen's kappa and specific agreement of each table, and the
per-item contributions to rater-pair tables that their bootstrap resamples."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._errors import InvalidInputError
from .._results import undefined_fields
from .._types import FloatArray, IntArray
from ..data.ratings import Ratings
from ..stats.pairs import ItemGroups, PairAgreement, PairCells, PairTables

__all__ = [
    "LIGHT_MIN_ITEMS",
    "cohen_pairs",
    "cohen_tables",
    "light_fields",
    "light_jackknife",
    "pair_features",
    "pair_specific",
    "percent_tables",
    "positive_index",
    "specific_ratio",
]


def specific_ratio(agree: FloatArray | float, b_plus_c: FloatArray | float) -> FloatArray:
    """``2a / (2a + b + c)`` (NaN when the denominator is 0); broadcasts."""
    a2 = 2.0 * np.asarray(agree, dtype=np.float64)
    den = a2 + np.asarray(b_plus_c, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: FloatArray = np.where(den > 0, a2 / np.where(den > 0, den, 1.0), np.nan)
    return out


def percent_tables(tables: FloatArray) -> FloatArray:
    """Observed agreement of stacked q x q tables, shape (..., q, q) -> (...)."""
    n = tables.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        out: FloatArray = np.trace(tables, axis1=-2, axis2=-1) / n
    return out


def cohen_tables(tables: FloatArray, weights: FloatArray | None = None) -> FloatArray:
    """Cohen's kappa of stacked q x q tables (NaN where chance agreement is 1), weighted by
    the q x q agreement ``weights`` when given (Cohen 1968)."""
    n = tables.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        rows = tables.sum(axis=-1) / n[..., None]
        cols = tables.sum(axis=-2) / n[..., None]
        if weights is None:
            po = np.trace(tables, axis1=-2, axis2=-1) / n
            pe = np.sum(rows * cols, axis=-1)
        else:
            po = np.sum(tables * weights, axis=(-2, -1)) / n
            pe = np.einsum("...i,ij,...j->...", rows, weights, cols)
        out: FloatArray = np.where(pe < 1.0 - 1e-12, (po - pe) / (1.0 - pe), np.nan)
    return out


def cohen_pairs(
    pairs: PairTables | PairCells | PairAgreement, min_items: int = 1
) -> tuple[FloatArray, IntArray, IntArray]:
    """Cohen's kappa of each rater pair with at least ``min_items`` co-rated items, the
    positions of those pairs, and every pair's number of co-rated items: from dense tables
    (:func:`cohen_tables`), or from each pair's trace and marginal products
    (:class:`~accord.stats.pairs.PairAgreement`), never q x q.

    >>> import accord
    >>> from accord.stats.pairs import PairCells
    >>> r = accord.Ratings.from_wide([["a", "a", "b"], ["b", "b", "b"], ["a", "a", "a"],
    ...                               ["b", "a", "b"]])
    >>> kappas, kept, n_items = cohen_pairs(PairCells.from_ratings(r))
    >>> kappas.round(4).tolist(), kept.tolist(), n_items.tolist()
    ([0.5, 0.5, 0.2], [0, 1, 2], [4, 4, 4])
    """
    if isinstance(pairs, PairTables):
        pair_items: IntArray = pairs.tables.sum(axis=(1, 2)).astype(np.int64)
        keep = np.flatnonzero(pair_items >= min_items)
        return cohen_tables(pairs.tables[keep].astype(np.float64)), keep, pair_items
    terms = pairs.agreement() if isinstance(pairs, PairCells) else pairs
    pair_items = np.asarray(terms.n, dtype=np.int64)
    keep = np.flatnonzero(pair_items >= min_items)
    n_p = pair_items[keep].astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        po = terms.agree[keep] / n_p
        pe = terms.chance[keep] / n_p**2
        kappas: FloatArray = np.where(pe < 1.0 - 1e-12, (po - pe) / (1.0 - pe), np.nan)
    return kappas, keep, pair_items


def positive_index(categories: tuple[Any, ...], positive: Any, owner: str) -> int:
    """Index of the positive category (the first one when ``positive`` is None)."""
    if positive is None:
        return 0
    matches = [
        i for i, cat in enumerate(categories) if cat == positive or str(cat) == str(positive)
    ]
    if not matches:
        raise InvalidInputError(
            f"{owner}: positive={positive!r} is not among the categories {list(categories)!r}"
        )
    return matches[0]


def pair_specific(tables: FloatArray, k: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Specific agreement of stacked q x q pair tables, shape (..., P, q, q).

    Returns the per-category values ``2 n_cc / (n_c. + n_.c)`` (shape (..., P, q)), PSA of
    category ``k`` (shape (..., P)) and NSA of ``k`` against the other categories pooled
    (shape (..., P)); NaN where a denominator is 0.
    """
    both = np.diagonal(tables, axis1=-2, axis2=-1)
    rows = tables.sum(axis=-1)
    cols = tables.sum(axis=-2)
    per_category = specific_ratio(both, rows + cols - 2.0 * both)
    a = both[..., k]
    b_plus_c = rows[..., k] + cols[..., k] - 2.0 * a
    d = tables.sum(axis=(-2, -1)) - a - b_plus_c
    return per_category, per_category[..., k], specific_ratio(d, b_plus_c)


def pair_features(ratings: Ratings, pt: PairTables, keep: IntArray) -> Any:
    """Per-item contributions to the kept pair tables: sparse (n_items, n_kept * q * q)."""
    from scipy import sparse

    q = ratings.n_categories
    qq = q * q
    n_r = ratings.n_raters
    groups = ItemGroups.from_ratings(ratings)
    pos = [np.concatenate(side) for side in zip(*groups.pairs(), strict=True)] or [
        np.zeros(0, np.int64)
    ] * 2
    ra, rb = groups.rater[pos[0]], groups.rater[pos[1]]
    label = groups.label
    pair_item = groups.item[pos[0]]
    lookup = np.full(n_r * n_r, -1, dtype=np.int64)
    kept_pairs = pt.pairs[keep]
    lookup[kept_pairs[:, 0] * n_r + kept_pairs[:, 1]] = np.arange(kept_pairs.shape[0])
    idx = lookup[ra * n_r + rb]
    ok = idx >= 0
    cols = idx[ok] * qq + label[pos[0]][ok] * q + label[pos[1]][ok]
    return sparse.csr_array(
        (np.ones(int(ok.sum())), (pair_item[ok], cols)),
        shape=(ratings.n_items, kept_pairs.shape[0] * qq),
    )


def light_jackknife(features: Any, n_kept: int, q: int) -> FloatArray | None:
    """Light's kappa with each item left out (rows of ``features``, :func:`pair_features`):
    the mean of the kept pairs' defined kappas once the item's ratings leave the tables of
    the pairs that rated it, those pairs' kappas alone recomputed (an item touches the ~m^2/2
    pairs of its m raters, not every pair: the cost of the features' nonzeros, where taking
    each item's row from the totals and recomputing every kappa costs items x pairs).

    The values are those of :func:`cohen_tables` on each left-out total, up to rounding;
    None when an item fills two cells of one pair's table (each item gives one cell a pair
    when a rater rates an item once), for the caller to take the rows one at a time.
    """
    csr = features.tocsr()
    csr.sum_duplicates()
    qq = q * q
    total = np.asarray(csr.sum(axis=0), dtype=np.float64).reshape(n_kept, q, q)
    kappa = cohen_tables(total)
    defined = np.isfinite(kappa)
    item = np.repeat(np.arange(csr.shape[0]), np.diff(csr.indptr))
    pair, cell = np.divmod(csr.indices.astype(np.int64), qq)
    if pair.size > 1 and bool(((pair[1:] == pair[:-1]) & (item[1:] == item[:-1])).any()):
        return None
    x, y = np.divmod(cell, q)
    w = np.asarray(csr.data, dtype=np.float64)
    n = total.sum(axis=(1, 2))[pair] - w
    rows, cols = total.sum(axis=2), total.sum(axis=1)
    same = (x == y).astype(np.float64)
    trace = np.trace(total, axis1=1, axis2=2)[pair] - w * same
    # sum_k (row_k - w [k = x]) (col_k - w [k = y]) over the pair's categories
    products = (rows * cols).sum(axis=1)[pair] - w * cols[pair, x] - w * rows[pair, y]
    products += w * w * same
    with np.errstate(invalid="ignore", divide="ignore"):
        po, pe = trace / n, products / (n * n)
        left = np.where(pe < 1.0 - 1e-12, (po - pe) / (1.0 - pe), np.nan)
    now = np.isfinite(left)
    was = defined[pair]
    change = np.where(now, left, 0.0) - np.where(was, kappa[pair], 0.0)
    moved = now.astype(np.int64) - was.astype(np.int64)
    rows_n = csr.shape[0]
    sums = float(kappa[defined].sum()) + np.bincount(item, weights=change, minlength=rows_n)
    counts = int(defined.sum()) + np.bincount(item, weights=moved, minlength=rows_n)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: FloatArray = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return out


#: The fewest items a rater pair must share for its Cohen's kappa to mean anything: on one
#: item the kappa is 0/0 when the two agree and 0 whatever they said when they disagree.
LIGHT_MIN_ITEMS = 2


def light_fields(
    kappas: FloatArray,
    se_note: str,
    *,
    pair_items: IntArray,
    min_items: int,
    **sizes: Any,
) -> dict[str, Any]:
    """Light's kappa, the mean of the pairs' defined kappas, with the fields of its result
    (``sizes``: ``n_items``, ``n_raters``, ``categories``, ``n_items_unpairable``).

    ``kappas``: the kappas of the pairs with ``min_items`` or more co-rated items;
    ``pair_items``: the co-rated items of every pair. The pairs left out (too few items, or
    an undefined kappa) are counted in the ``reason``; NaN with the reason, and a warning,
    when no pair has a defined kappa."""
    finite = np.isfinite(kappas)
    few = int(np.count_nonzero((pair_items >= 1) & (pair_items < min_items)))
    note = _pairs_left_out(few, int(np.count_nonzero(~finite)), min_items)
    base: dict[str, Any] = dict(
        name="light_kappa",
        bounds=(-1.0, 1.0),
        method="Light's kappa (Light 1971): mean of Cohen's kappa over rater pairs with "
        f">= {min_items} co-rated items; {se_note}",
        **sizes,
    )
    if not finite.any():
        reason = "no rater pair has a defined Cohen's kappa (" + (note or "no co-rated items") + ")"
        return undefined_fields(reason, base, stacklevel=4)
    out = dict(statistic=float(kappas[finite].mean()), standard_error=math.nan, **base)
    return out if not note else {**out, "reason": note}


def _pairs_left_out(few: int, undefined: int, min_items: int) -> str:
    """The note on the rater pairs left out of Light's kappa ('' when none is)."""
    parts = [f"{few} co-rated fewer than {min_items} items"] if few else []
    if undefined:
        parts.append(f"{undefined} used one and the same category (kappa 0/0)")
    if not parts:
        return ""
    total = few + undefined
    return f"{total} rater pair{'s' if total > 1 else ''} left out: " + ", ".join(parts)
