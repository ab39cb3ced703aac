"""Ratings in memory from a :class:`~accord.Source`, for the presenters (which read through
the front door, never through the engines)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from ..data.source import Source
from ..engines._run import ratings_in_memory, several_files, shared_scans

__all__ = ["ratings_at", "ratings_of", "read_once", "several_files"]


@contextlib.contextmanager
def read_once() -> Iterator[None]:
    """Within the block, the stream engine reads a source once for every front door: the
    agreement table, the consensus, the rater-pair tables and the rater model of the same
    source share one scan (which also counts what the consensus needs).

    Examples
    --------
    >>> with read_once():
    ...     pass
    """
    from .consensus import STREAM_PLAN

    with shared_scans(STREAM_PLAN):
        yield


def ratings_of(src: Source, owner: str) -> Any:
    """The ratings ``src`` holds or reads, as the memory engine takes them: a path read with
    :func:`accord.read_ratings` (an annotation tool's export with ``from_``), a frame with
    :meth:`accord.Ratings.from_long`, anything else as it is; errors in the words of
    ``owner``."""
    return ratings_in_memory(src.data, owner=owner, **src.read_options())


def ratings_at(path: Any, **options: Any) -> Any:
    """:func:`accord.read_ratings` of ``path`` with ``options``; a glob, a folder or a list of
    files is read into memory as one table (rows numbered over the files in order), as the
    stream engine reads them."""
    if several_files(path):
        return ratings_in_memory(path, owner="read_ratings", **options)
    from ..io.ratings import read_ratings

    return read_ratings(path, **options)
