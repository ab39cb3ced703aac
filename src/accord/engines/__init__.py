"""Engines beyond memory: the same sufficient statistics from batches and from partitions.

``stream_statistics`` reads Parquet/CSV files in batches with pyarrow; ``dask_statistics``
counts each partition of a Dask DataFrame and tree-reduces the partial statistics. Both return
a :class:`RatingStatistics` holding exactly the codes and integer counts the memory engine
computes from ``Ratings.from_long`` on the whole input, so every estimator that accepts an
:class:`~accord.ItemCategoryCounts` (or the rater counts, or the pair tables) gives the same
numbers on all three engines.

``use_small_pages()`` lets the engines turn numpy's huge-page advice off while they run (a
process-wide setting, so it is opt-in; see ``docs/engines.md``).

pyarrow and dask are imported inside the functions that use them, and the two engines'
modules on first use of their function: the memory engine's path through the front door
loads neither.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._blocks import STATISTICS, RatingStatistics
from ._pages import use_small_pages

if TYPE_CHECKING:
    from .dask import dask_statistics
    from .stream import stream_statistics

__all__ = [
    "STATISTICS",
    "RatingStatistics",
    "dask_statistics",
    "stream_statistics",
    "use_small_pages",
]


def __getattr__(name: str) -> Any:
    """``stream_statistics`` and ``dask_statistics``, imported on first use."""
    engine: Any
    if name == "stream_statistics":
        from .stream import stream_statistics as engine
    elif name == "dask_statistics":
        from .dask import dask_statistics as engine
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = engine
    return engine
