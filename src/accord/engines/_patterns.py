"""The count patterns under the names earlier callers import them by.

The one count-pattern type is :class:`accord.stats.patterns.CountPatterns`; new code imports
it from there.
"""

from __future__ import annotations

from ..stats.patterns import CountPatterns, count_patterns, index_dtype

__all__ = ["RowPatterns", "count_patterns", "index_dtype"]

RowPatterns = CountPatterns
