"""Agreement coefficients from count statistics (what the stream and dask engines compute).

Fleiss, Krippendorff (every level), Gwet AC1/AC2, Brennan-Prediger and percent agreement
are functions of the item x category counts; Conger's kappa adds the rater marginals for its
statistic and one more pass over the ratings for the item terms of its standard error
(:class:`ItemSums`, given by the caller); Light's kappa is a function of the rater-pair
tables. Each is computed by the same code as on :class:`~accord.Ratings`, so the numbers
agree with the memory engine.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Protocol, cast

import numpy as np

from .._results import Coefficient
from .._types import FloatArray, IntArray
from ..stats.counts import ItemCategoryCounts, RaterCategoryCounts
from ..stats.pairs import PairTables
from ..stats.patterns import CountPatterns
from ._shared import _Data
from ._tables import cohen_tables, light_fields
from .many_raters import conger_rater_terms, row_sums

__all__ = [
    "LIGHT_NO_ANALYTIC_SE_ENGINE",
    "CountPatterns",
    "CountStatistics",
    "ItemSums",
    "data_from_statistics",
    "light_from_statistics",
]

#: Light's kappa has no analytic SE; its bootstrap resamples items with their ratings, which
#: the stream and dask engines do not keep.
LIGHT_NO_ANALYTIC_SE_ENGINE = (
    "no analytic SE: a bootstrap interval (ci='bootstrap') needs the memory engine"
)


class CountStatistics(Protocol):
    """The sufficient statistics of a set of ratings that the coefficients read."""

    @property
    def item_counts(self) -> ItemCategoryCounts | None: ...
    @property
    def rater_counts(self) -> RaterCategoryCounts | None: ...
    @property
    def pair_tables(self) -> PairTables | None: ...
    @property
    def item_patterns(self) -> Any: ...
    @property
    def categories(self) -> tuple[Any, ...]: ...
    @property
    def level(self) -> Any: ...


class ItemSums(Protocol):
    """One more pass over the ratings: per item code, the sum over the item's ratings of
    ``table[rater code, label code]`` (``table`` of shape (n_rater_codes, q))."""

    def __call__(self, table: FloatArray) -> FloatArray: ...


def _category_values(categories: tuple[Any, ...]) -> FloatArray:
    """As :attr:`accord.Ratings.category_values`: the values if numbers, else positions."""
    try:
        vals = np.asarray(categories, dtype=np.float64)
    except (TypeError, ValueError):
        return np.arange(len(categories), dtype=np.float64)
    if vals.ndim != 1 or not np.all(np.isfinite(vals)):
        return np.arange(len(categories), dtype=np.float64)
    return vals


def _conger_terms(
    w: FloatArray,
    *,
    rater_counts: IntArray,
    item_row: IntArray | None,
    n: int,
    item_sums: ItemSums,
) -> tuple[FloatArray, FloatArray, float]:
    """Conger's chance agreement per item, as ``many_raters._conger_parts`` computes it on
    ratings: the rater marginals give ``p`` and ``pe``; a pass over the ratings sums each
    item's terms ``(n / n_g) (a[g, label] - b[g])``."""
    present, p, pe, k, b = conger_rater_terms(rater_counts, w, n)
    n_r = int(present.sum())
    table = np.zeros((rater_counts.shape[0], k.shape[1]), dtype=np.float64)
    table[present] = k
    by_code = item_sums(table)  # per item code; codes past the last rated one may be absent
    lam = np.zeros(n if item_row is None else item_row.size, dtype=np.float64)
    lam[: by_code.size] += by_code
    if item_row is not None:
        lam = lam[item_row >= 0]
    lam += b.sum()
    if n_r < 2:
        return np.full(n, math.nan), p, pe
    lam /= n_r * (n_r - 1)  # in place: pe_i
    return lam, p, pe


def data_from_statistics(
    stats: CountStatistics,
    item_sums: ItemSums | None,
    *,
    patterns: CountPatterns | None = None,
) -> _Data:
    """The estimators' view of count statistics (what ``_prepare`` gives on ratings).

    With item patterns (``stats.item_patterns``, else ``patterns``), the estimators get the
    distinct count rows and their multiplicities (a few thousand rows however many items);
    else the item counts as they are (int64, no float copy). With ``item_sums``, Conger's
    kappa can be computed too.
    """
    assert stats.rater_counts is not None
    raters = stats.rater_counts.dense()
    n_raters = int(np.count_nonzero(raters.sum(axis=1)))
    if stats.item_patterns is not None:
        patterns = stats.item_patterns
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
        # Sparse counts stay sparse, as in memory: with many categories (continuous scores)
        # the dense table would not fit.
        ic = stats.item_counts
        full = ic.counts.tocsr() if ic.is_sparse else ic.dense()
        rated = row_sums(full) > 0
        every = bool(rated.all())
        counts = full if every else full[rated]
        n = int(counts.shape[0])
        weights, per_item = None, None
    conger = None
    if item_sums is not None:
        item_row = None if every else np.where(rated, np.cumsum(rated) - 1, -1).astype(np.int64)
        conger = functools.partial(
            _conger_terms,
            rater_counts=raters,
            item_row=item_row,  # None: item code = row
            n=n,
            item_sums=item_sums,
        )
    return _Data(
        counts,
        stats.categories,
        n_raters,
        stats.level,
        _category_values(stats.categories),
        None,
        None,
        conger,
        weights=weights,
        item_pattern=per_item,
    )


def _items_by_total(stats: CountStatistics) -> tuple[int, int]:
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


def light_from_statistics(stats: CountStatistics, *, min_items: int = 1) -> Coefficient:
    """Light's kappa from the rater-pair tables, as :func:`accord.light_kappa` with
    ``ci="analytic"`` computes it on ratings."""
    assert stats.pair_tables is not None and stats.rater_counts is not None
    pt = stats.pair_tables
    n_items_pair = pt.tables.sum(axis=(1, 2))
    keep = n_items_pair >= min_items
    kappas = cohen_tables(pt.tables[keep].astype(np.float64))
    pairable, single = _items_by_total(stats)
    out = light_fields(
        kappas,
        "no analytic SE (use ci='bootstrap')",
        min_items=min_items,
        n_items=pairable,
        n_raters=int(np.count_nonzero(stats.rater_counts.totals())),
        categories=stats.categories,
        n_items_unpairable=single,
    )
    if "reason" not in out:
        out["reason"] = LIGHT_NO_ANALYTIC_SE_ENGINE
    return Coefficient(**out)
