"""Sufficient statistics: sums over ratings that merge.

Each statistic is built from a :class:`~accord.Ratings` (or from codes), and ``a.merge(b)``
of the statistics of two disjoint sets of ratings (encoded with the same dictionaries) equals
the statistic of their union. This is what lets the same estimators run in memory, on
streamed batches and on Dask partitions.
"""

from __future__ import annotations

from .counts import CategoryCounts, ItemCategoryCounts, RaterCategoryCounts
from .pairs import PairTables
from .patterns import CountPatterns
from .scores import ScoreCells

__all__ = [
    "CategoryCounts",
    "CountPatterns",
    "ItemCategoryCounts",
    "PairTables",
    "RaterCategoryCounts",
    "ScoreCells",
]
