"""Ratings in memory from a :class:`~accord.Source`, for the presenters (which read through
the front door, never through the engines)."""

from __future__ import annotations

from typing import Any

from ..data.source import Source
from ..engines._run import ratings_in_memory

__all__ = ["ratings_of"]


def ratings_of(src: Source, owner: str) -> Any:
    """The ratings ``src`` holds or reads, as the memory engine takes them: a path read with
    :func:`accord.read_ratings` (an annotation tool's export with ``from_``), a frame with
    :meth:`accord.Ratings.from_long`, anything else as it is; errors in the words of
    ``owner``."""
    return ratings_in_memory(src.data, owner=owner, **src.read_options())
