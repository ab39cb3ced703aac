"""Agreement coefficients from count statistics (what the stream and dask engines compute).

Fleiss, Krippendorff (every level), Gwet AC1/AC2, Brennan-Prediger and percent agreement
are functions of the item x category counts; Conger's kappa adds the rater marginals for its
statistic and one more pass over the ratings for the item terms of its standard error
(:class:`ItemSums`, given by the caller); Light's kappa is a function of the rater-pair
tables. Each is computed by the same code as on :class:`~accord.Ratings`, so the numbers
agree with the memory engine.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any, Protocol, cast

import numpy as np

from .._errors import InvalidInputError, hint
from .._methods import StudyDesign
from .._results import Coefficient
from .._types import FloatArray, IntArray
from ..data.encoder import category_values
from ..stats.counts import ItemCategoryCounts, RaterCategoryCounts
from ..stats.pairs import PairCells, PairTables
from ..stats.patterns import CountPatterns
from ..stats.scores import ScoreCells
from ._counts import CountsView, row_sums
from ._tables import LIGHT_MIN_ITEMS, cohen_pairs, light_fields
from .many_raters import conger_rater_terms
from .weights import has_order

__all__ = [
    "CountPatterns",
    "CountStatistics",
    "ItemSums",
    "cells_design",
    "cohen_from_statistics",
    "data_from_statistics",
    "has_counts",
    "light_from_statistics",
    "light_no_analytic_se_engine",
    "study_design",
]


#: Light's kappa has no analytic SE; its bootstrap resamples items with their ratings, which
#: the stream and dask engines do not keep.
def light_no_analytic_se_engine() -> str:
    """The note of Light's kappa from an engine's statistics, in the caller's words."""
    return (
        "no analytic SE: a bootstrap interval"
        + hint(" ({})", "ci", "bootstrap")
        + (" needs the memory engine")
    )


class CountStatistics(Protocol):
    """The sufficient statistics of a set of ratings that the coefficients read."""

    @property
    def item_counts(self) -> ItemCategoryCounts | None: ...
    @property
    def rater_counts(self) -> RaterCategoryCounts | None: ...
    @property
    def pair_tables(self) -> PairTables | PairCells | None: ...
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
) -> CountsView:
    """The estimators' view of count statistics (what ``_counts.prepare`` gives on ratings).

    With item patterns (``stats.item_patterns``, else ``patterns``), the estimators get the
    distinct count rows and their multiplicities (a few thousand rows however many items);
    else the item counts as they are (int64, no float copy). With ``item_sums``, Conger's
    kappa can be computed too.

    Raises
    ------
    InvalidInputError
        Statistics without the item counts (or patterns) or the rater counts.
    """
    if stats.rater_counts is None or not has_counts(stats, patterns):
        raise InvalidInputError(
            "the coefficients from counts need the item and rater counts "
            "(statistics=('items', 'raters'))"
        )
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
    return CountsView(
        counts,
        stats.categories,
        n_raters,
        stats.level,
        category_values(stats.categories),
        None,
        None,
        conger,
        multiplicity=weights,
        item_pattern=per_item,
        ordered=has_order(
            stats.categories, stats.level, getattr(stats, "categories_declared", True)
        ),
    )


def has_counts(stats: CountStatistics, patterns: CountPatterns | None = None) -> bool:
    """Whether the statistics hold the item counts, as counts or as their patterns."""
    return not (stats.item_counts is None and stats.item_patterns is None and patterns is None)


def study_design(
    per_item: FloatArray,
    times: FloatArray | None,
    *,
    n_raters: int,
    n_categories: int,
    level: str,
) -> StudyDesign:
    """Items, raters and ratings per item (rated items only) from each item's (or count
    pattern's) number of ratings, ``times`` the items of each pattern (None: one each)."""
    times = np.ones(per_item.size) if times is None else np.asarray(times, dtype=np.float64)
    rated = per_item > 0
    return StudyDesign(
        n_items=round(float(times[rated].sum())),
        n_raters=int(n_raters),
        n_ratings=round(float(per_item @ times)),
        min_ratings=int(per_item[rated].min()) if rated.any() else 0,
        max_ratings=int(per_item[rated].max()) if rated.any() else 0,
        n_incomplete=round(float(times[rated & (per_item < n_raters)].sum())),
        n_categories=n_categories,
        level=level,
    )


def cells_design(scores: ScoreCells, categories: tuple[Any, ...], level: str) -> StudyDesign:
    """:func:`study_design` of the scored cells (the ICC's statistic): the design the item
    and rater counts give, without counting by category.

    >>> cells = ScoreCells.from_codes(np.array([0, 0, 2]), np.array([0, 1, 0]),
    ...                               np.array([1.5, 2.0, 3.0]), n_items=3)
    >>> d = cells_design(cells, (1.5, 2.0, 3.0), "interval")
    >>> d.n_items, d.n_raters, d.n_ratings, d.n_incomplete
    (2, 2, 3, 1)
    """
    per_item = np.zeros(scores.n_items, dtype=np.float64)
    per_rater = np.zeros(scores.n_raters, dtype=np.int64)
    for items, raters, _ in scores.parts:
        per_item += np.bincount(items, minlength=scores.n_items)
        per_rater += np.bincount(raters, minlength=scores.n_raters)
    return study_design(
        per_item,
        None,
        n_raters=int(np.count_nonzero(per_rater)),
        n_categories=len(categories),
        level=str(level),
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


def cohen_from_statistics(stats: CountStatistics, **options: Any) -> list[Coefficient]:
    """Cohen's kappa of two raters on categories from their one pair table (and its
    quadratic-weighted form on an ordinal scale): the rows the memory engine's table opens
    with (``summary._cohen_rows``), so that every engine's table has the same rows. Empty
    for other data and when kappa cannot be computed (the other rows say why). ``options``:
    ``population_size``, ``test_value``, ``alternative`` of :func:`accord.cohen_kappa`.
    """
    from .._errors import AccordError
    from .two_raters import cohen_kappa, cohen_kappa_cells

    pairs, counts = stats.pair_tables, stats.rater_counts
    if pairs is None or counts is None or stats.level not in ("nominal", "ordinal"):
        return []
    if np.count_nonzero(counts.totals()) != 2 or pairs.n_pairs != 1:
        return []
    a, b = (int(code) for code in pairs.pairs[0])
    _, single = _items_by_total(stats)  # items one rater rated: unpairable
    forms: list[str | None] = [None] if stats.level == "nominal" else [None, "quadratic"]
    try:
        if isinstance(pairs, PairTables):
            table = pairs.table(a, b)
            out = [cohen_kappa(table, weights=w, **options) for w in forms]
        else:  # filled cells only (many categories): the unweighted form, as on ratings
            raters = (str(pairs.raters[a]), str(pairs.raters[b]))
            out = [cohen_kappa_cells(pairs.x, pairs.y, pairs.count, stats.categories, raters,
                                     population_size=options.get("population_size"))]  # fmt: skip
            test = {k: options[k] for k in ("test_value", "alternative") if k in options}
            out = [dataclasses.replace(out[0], **test)]
    except AccordError:
        return []
    return [dataclasses.replace(c, n_items_unpairable=single) for c in out]


def light_from_statistics(
    stats: CountStatistics, *, min_items: int = LIGHT_MIN_ITEMS
) -> Coefficient:
    """Light's kappa from the rater-pair tables, as :func:`accord.light_kappa` with
    ``ci="analytic"`` computes it on ratings."""
    assert stats.pair_tables is not None and stats.rater_counts is not None
    kappas, _, n_items_pair = cohen_pairs(stats.pair_tables, min_items)
    pairable, single = _items_by_total(stats)
    out = light_fields(
        kappas,
        "no analytic SE",
        pair_items=n_items_pair,
        min_items=min_items,
        n_items=pairable,
        n_raters=int(np.count_nonzero(stats.rater_counts.totals())),
        categories=stats.categories,
        n_items_unpairable=single,
    )
    if not math.isnan(out["statistic"]):
        out["reason"] = "; ".join(filter(None, (light_no_analytic_se_engine(), out.get("reason"))))
    return Coefficient(**out)
