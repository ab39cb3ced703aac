"""Measures of stacked contingency tables, shared by the two-rater and the pairwise
estimators: percent agreement, Cohen's kappa and specific agreement of each table, and the
per-item contributions to rater-pair tables that their bootstrap resamples."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._errors import InvalidInputError
from .._results import undefined_fields
from .._types import FloatArray, IntArray, RngLike
from ..data.ratings import Ratings
from ..stats.pairs import ItemGroups, PairAgreement, PairCells, PairTables
from .inference import bootstrap

__all__ = [
    "LIGHT_MIN_ITEMS",
    "cohen_pairs",
    "cohen_tables",
    "light_fields",
    "pair_features",
    "pair_mean_bootstrap",
    "pair_mean_jackknife",
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


#: Left-out pair tables formed at once by :func:`pair_mean_jackknife` (times q x q floats).
JACKKNIFE_TABLES = 200_000


def pair_mean_jackknife(
    features: Any, n_kept: int, q: int, per_pair: Callable[[FloatArray], FloatArray]
) -> FloatArray | None:
    """Leave-one-item-out values of a mean over the kept rater pairs: ``per_pair`` maps
    stacked q x q tables (m, q, q) to values (m, k), and each of the k statistics is the
    mean of its defined (finite) values over the pairs, as ``nanmean`` over the pairs of
    ``per_pair`` of the totals of :func:`pair_features` gives it.

    An item changes only the tables of the pairs that rated it (the ~m^2/2 pairs of its m
    raters): only those pairs' values are recomputed, one table without the item per
    nonzero of ``features``, so the cost follows the features' nonzeros, where taking each
    item's row from the totals and recomputing every pair costs items x pairs. The values
    are those of the full recomputation up to rounding.

    Returns the values, shape (n_items, k); None when an item fills two cells of one pair's
    table (each item gives one cell a pair when a rater rates an item once), for the caller
    to take the rows one at a time.
    """
    csr = features.tocsr()
    csr.sum_duplicates()
    qq = q * q
    total = np.asarray(csr.sum(axis=0), dtype=np.float64).reshape(n_kept, q, q)
    full = per_pair(total)
    defined = np.isfinite(full)
    item = np.repeat(np.arange(csr.shape[0]), np.diff(csr.indptr))
    pair, cell = np.divmod(csr.indices.astype(np.int64), qq)
    if pair.size > 1 and bool(((pair[1:] == pair[:-1]) & (item[1:] == item[:-1])).any()):
        return None
    n_rows, k = csr.shape[0], full.shape[1]
    sums = np.tile(np.where(defined, full, 0.0).sum(axis=0), (n_rows, 1))
    counts = np.tile(defined.sum(axis=0).astype(np.float64), (n_rows, 1))
    flat = total.reshape(n_kept, qq)
    for lo in range(0, pair.size, JACKKNIFE_TABLES):
        at = slice(lo, lo + JACKKNIFE_TABLES)
        p = pair[at]
        tables = flat[p]  # a copy: each entry's pair table, then the item's cell taken out
        tables[np.arange(p.size), cell[at]] -= csr.data[at]
        left = per_pair(tables.reshape(p.size, q, q))
        now, was = np.isfinite(left), defined[p]
        change = np.where(now, left, 0.0) - np.where(was, full[p], 0.0)
        moved = now.astype(np.float64) - was
        for j in range(k):
            sums[:, j] += np.bincount(item[at], weights=change[:, j], minlength=n_rows)
            counts[:, j] += np.bincount(item[at], weights=moved[:, j], minlength=n_rows)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: FloatArray = np.where(counts > 0, sums / np.maximum(counts, 1.0), np.nan)
    return out


def pair_mean_bootstrap(
    features: Any,
    statistic: Callable[[FloatArray], FloatArray],
    per_pair: Callable[[FloatArray], FloatArray],
    n_kept: int,
    q: int,
    *,
    n_boot: int,
    rng: RngLike,
) -> tuple[FloatArray, FloatArray | None]:
    """:func:`~accord.agreement.inference.bootstrap` of a mean over the kept rater pairs
    (``statistic`` of the totals of :func:`pair_features`, the mean of ``per_pair`` over
    the pairs): the same replicates, and the leave-one-item-out values by
    :func:`pair_mean_jackknife` (row by row only when it cannot), shaped as ``statistic``
    shapes them."""
    reps, _ = bootstrap(features, statistic, n_boot=n_boot, rng=rng, jackknife=False)
    if features.shape[0] < 2:
        return reps, None
    jk = pair_mean_jackknife(features, n_kept, q, per_pair)
    if jk is None:  # an item in two cells of a pair: row by row
        return reps, bootstrap(features, statistic, n_boot=0, rng=rng)[1]
    return reps, jk.reshape(jk.shape[0], *reps.shape[1:])


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
