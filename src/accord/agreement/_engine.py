"""Agreement coefficients from an engine's statistics (stream and dask engines).

Fleiss, Krippendorff (every level), Gwet AC1/AC2, Brennan-Prediger and percent agreement
are functions of the item x category counts; Conger's kappa adds the rater marginals for its
statistic and one more pass over the ratings for the item terms of its standard error;
Light's kappa is a function of the rater-pair tables. Each is computed by the same code as
on :class:`~accord.Ratings`, so the numbers agree with the memory engine.
"""

from __future__ import annotations

import functools
import math
from typing import Any, cast

import numpy as np

from .._errors import warn_degenerate
from .._results import Coefficient
from .._types import FloatArray, IntArray
from ..engines._blocks import RatingStatistics
from ..engines._run import Rescan
from ..stats.patterns import patterns_from_counts
from . import many_raters as mr
from .pairwise import _cohen_tables

__all__ = ["data_from_statistics", "light_from_statistics"]

#: Light's kappa has no analytic SE; its bootstrap resamples items with their ratings, which
#: the stream and dask engines do not keep.
LIGHT_NO_ANALYTIC_SE_ENGINE = (
    "no analytic SE: a bootstrap interval (ci='bootstrap') needs the memory engine"
)


def _category_values(categories: tuple[Any, ...]) -> FloatArray:
    """As :attr:`accord.Ratings.category_values`: the values if numbers, else positions."""
    try:
        vals = np.asarray(categories, dtype=np.float64)
    except (TypeError, ValueError):
        return np.arange(len(categories), dtype=np.float64)
    if vals.ndim != 1 or not np.all(np.isfinite(vals)):
        return np.arange(len(categories), dtype=np.float64)
    return vals


#: Sums over a range of item rows: (first row, sums of rows first, first + 1, ...).
_Segments = list[tuple[int, FloatArray]]


def _conger_pass(
    context: tuple[IntArray | None, IntArray, FloatArray, int],
    item: IntArray,
    rater: IntArray,
    label: IntArray,
) -> _Segments:
    """Per rated item, the sum over its ratings of ``K[rater, label]`` (one batch), over the
    range of item rows the batch touches only (a slice of the code matrix holds a slice of
    the items: no array as long as all the items per batch)."""
    item_row, rater_row, k, _ = context
    rows = item if item_row is None else item_row[item]
    if rows.size == 0:
        return []
    lo = int(rows.min())
    hi = int(rows.max()) + 1
    sums = np.bincount(rows - lo, weights=k[rater_row[rater], label], minlength=hi - lo)
    return [(lo, np.asarray(sums, dtype=np.float64))]


def _add(a: _Segments, b: _Segments) -> _Segments:
    """Both lists of segments; summed into one segment once they overlap much (batches
    whose items are spread over the whole range, as the dask engine's partitions are)."""
    parts = a + b
    if not parts:
        return parts
    lo = min(p[0] for p in parts)
    hi = max(p[0] + p[1].size for p in parts)
    if sum(p[1].size for p in parts) <= 2 * (hi - lo):
        return parts
    out = np.zeros(hi - lo, dtype=np.float64)
    for start, sums in parts:
        out[start - lo : start - lo + sums.size] += sums
    return [(lo, out)]


def _conger_terms(
    w: FloatArray,
    *,
    rater_counts: IntArray,
    item_row: IntArray | None,
    n: int,
    rescan: Rescan,
) -> tuple[FloatArray, FloatArray, float]:
    """Conger's chance agreement per item, as ``many_raters._conger_parts`` computes it on
    ratings: the rater marginals give ``p`` and ``pe``; a pass over the ratings sums each
    item's terms ``(n / n_g) (a[g, label] - b[g])``."""
    present = rater_counts.sum(axis=1) > 0
    rater_row = (np.cumsum(present) - 1).astype(np.int64)
    n_r = int(present.sum())
    classif = rater_counts[present].astype(float)
    n_g = classif.sum(axis=1)
    p = classif / n_g[:, None]
    pbar = p.mean(axis=0)
    if n_r >= 2:
        s2 = (p.T @ p - n_r * np.outer(pbar, pbar)) / (n_r - 1)
        pe = float(np.sum(w * (np.outer(pbar, pbar) - s2 / n_r)))
    else:
        pe = math.nan
    c = n_r * pbar[None, :] - p
    a = c @ w
    b = np.sum(c * (p @ w.T), axis=1)
    k = (n / n_g)[:, None] * (a - b[:, None])
    lam = np.zeros(n)
    # The stream engine's code matrix sums each item's terms column by column.
    rating_sums = getattr(rescan, "rating_sums", None)
    by_code = None
    if rating_sums is not None:
        table = np.zeros((rater_counts.shape[0], k.shape[1]), dtype=np.float64)
        table[present] = k
        by_code = rating_sums(table)
    if by_code is not None:
        lam += by_code if item_row is None else by_code[item_row >= 0]
    else:
        segments = rescan.map_reduce(_conger_pass, (item_row, rater_row, k, n), _add)
        for start, sums in segments or []:
            lam[start : start + sums.size] += sums
    lam += b.sum()
    if n_r < 2:
        return np.full(n, math.nan), p, pe
    lam /= n_r * (n_r - 1)  # in place: pe_i
    return lam, p, pe


def data_from_statistics(
    stats: RatingStatistics, rescan: Rescan | None, *, compress: bool = False
) -> Any:
    """The estimators' view of an engine's statistics (what ``_prepare`` gives on ratings).

    With item patterns (the stream engine's, or made from the item counts when
    ``compress``), the estimators get the distinct count rows and their multiplicities (a
    few thousand rows however many items); else the item counts as they are (int64, no
    float copy). With ``rescan``, Conger's kappa can be computed too.
    """
    assert stats.rater_counts is not None
    raters = stats.rater_counts.dense()
    n_raters = int(np.count_nonzero(raters.sum(axis=1)))
    patterns = stats.item_patterns
    if patterns is None and compress and stats.item_counts is not None:
        patterns = patterns_from_counts(stats.item_counts.counts)
    if patterns is not None:
        item_pattern = patterns.item_pattern
        rated = item_pattern >= 0
        every = bool(rated.all())
        n = patterns.n_rated
        counts = patterns.rows
        weights: FloatArray | None = patterns.weights.astype(np.float64)
        # int32 indices (any integer dtype indexes): no int64 copy of 10M entries
        per_item = cast(IntArray, item_pattern if every else item_pattern[rated])
    else:
        assert stats.item_counts is not None
        full = stats.item_counts.dense()
        rated = full.sum(axis=1) > 0
        every = bool(rated.all())
        counts = full if every else full[rated]
        n = int(counts.shape[0])
        weights, per_item = None, None
    conger = None
    if rescan is not None:
        item_row = None if every else np.where(rated, np.cumsum(rated) - 1, -1).astype(np.int64)
        conger = functools.partial(
            _conger_terms,
            rater_counts=raters,
            item_row=item_row,  # None: item code = row
            n=n,
            rescan=rescan,
        )
    return mr._Data(
        counts,
        stats.categories,
        n_raters,
        stats.level,  # type: ignore[arg-type]
        _category_values(stats.categories),
        None,
        None,
        conger,
        weights=weights,
        item_pattern=per_item,
    )


def _items_by_total(stats: RatingStatistics) -> tuple[int, int]:
    """Items with two or more ratings, and items with exactly one."""
    patterns = stats.item_patterns
    if patterns is not None:
        totals = patterns.rows.sum(axis=1)
        return (
            int(patterns.weights[totals >= 2].sum()),
            int(patterns.weights[totals == 1].sum()),
        )
    assert stats.item_counts is not None
    per_item = stats.item_counts.totals()
    return int((per_item >= 2).sum()), int((per_item == 1).sum())


def light_from_statistics(stats: RatingStatistics, *, min_items: int = 1) -> Coefficient:
    """Light's kappa from the rater-pair tables, as :func:`accord.light_kappa` with
    ``ci="analytic"`` computes it on ratings."""
    assert stats.pair_tables is not None and stats.rater_counts is not None
    pt = stats.pair_tables
    n_items_pair = pt.tables.sum(axis=(1, 2))
    keep = n_items_pair >= min_items
    kappas = _cohen_tables(pt.tables[keep].astype(np.float64))
    pairable, single = _items_by_total(stats)
    base: dict[str, Any] = dict(
        name="light_kappa",
        n_items=pairable,
        n_raters=int(np.count_nonzero(stats.rater_counts.totals())),
        categories=stats.categories,
        n_items_unpairable=single,
        bounds=(-1.0, 1.0),
        method="Light's kappa (Light 1971): mean of Cohen's kappa over rater pairs with "
        f">= {min_items} co-rated items; no analytic SE (use ci='bootstrap')",
    )
    finite = np.isfinite(kappas)
    if not finite.any():
        reason = (
            "no rater pair has a defined Cohen's kappa (no co-rated items, or every pair "
            "used one category)"
        )
        warn_degenerate(reason)
        return Coefficient(statistic=math.nan, standard_error=math.nan, reason=reason, **base)
    return Coefficient(
        statistic=float(kappas[finite].mean()),
        standard_error=math.nan,
        reason=LIGHT_NO_ANALYTIC_SE_ENGINE,
        **base,
    )
