"""Memory pages for the large-data engines.

numpy asks the kernel to back every array of 4 MB or more with transparent huge pages
(``madvise(MADV_HUGEPAGE)``). Where the kernel compacts memory on the first touch of such an
array to find the huge pages (THP defrag set to "madvise", as on many servers and virtual
machines), a fresh array can cost milliseconds per MB before any work is done on it. The
stream and dask engines allocate their large arrays once (the code matrix, per-item keys and
tables) and touch them once, so they gain nothing from huge pages and pay the compaction.
Measured on the 2-core virtual machine of ``benchmarks/scale.py`` (100M ratings): with huge
pages advised, ``agreement(engine="stream")`` took 2.9 s, without 2.0 s; the bare read of the
same files did not change.

numpy's advice is a process-wide setting, so changing it is opt-in: after
:func:`use_small_pages` (or with the environment variable ``ACCORD_SMALL_PAGES=1`` set before
accord is imported) the engines turn the advice off while they run and restore it after
(counted so that nested and concurrent runs restore it once; it changes only how new memory
is backed, never a result). By default numpy's setting is left as it is.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any, ParamSpec, TypeVar

import numpy as np

from ..data.source import Source

__all__ = ["engine_pages", "small_pages", "use_small_pages"]

P = ParamSpec("P")
R = TypeVar("R")

_lock = threading.Lock()
_depth = 0
_previous = True
_switch = os.environ.get("ACCORD_SMALL_PAGES", "").strip().lower() in ("1", "true", "yes", "on")


def use_small_pages(on: bool = True) -> bool:
    """Let the stream and dask engines (and the large-data paths of the memory engine) turn
    numpy's huge-page advice off while they run, or (``on=False``) leave it alone, as by
    default. Returns the previous setting.

    The advice is a process-wide numpy setting: while an engine runs, every thread of the
    process allocates without it. See the module notes for when this pays.

    >>> previous = use_small_pages()
    >>> use_small_pages(previous)
    True
    """
    global _switch
    before, _switch = _switch, bool(on)
    return before


def _setter() -> Callable[[bool], bool] | None:
    for module in ("_core", "core"):
        multiarray = getattr(getattr(np, module, None), "multiarray", None)
        setter = getattr(multiarray, "_set_madvise_hugepage", None)
        if setter is not None:
            return setter  # type: ignore[no-any-return]
    return None


@contextlib.contextmanager
def small_pages() -> Iterator[None]:
    """numpy arrays allocated without the huge-page advice for the duration, when the switch
    is on (:func:`use_small_pages`); a no-op otherwise and where numpy has no such setting."""
    global _depth, _previous
    setter = _setter() if _switch else None
    if setter is None:
        yield
        return
    with _lock:
        if _depth == 0:
            _previous = bool(setter(False))
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                setter(_previous)


def engine_pages(fn: Callable[P, R]) -> Callable[P, R]:
    """Run ``fn`` under :func:`small_pages` when it is called with a large-data engine
    (``engine="stream"`` or ``"dask"``, as a keyword or the engine of the
    :class:`~accord.data.source.Source` given first) and the switch is on."""
    return engine_pages_of(None)(fn)


def engine_pages_of(
    unpack: Callable[[tuple[Any, ...], dict[str, Any]], tuple[tuple[Any, ...], dict[str, Any]]]
    | None,
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """:func:`engine_pages`, the call's arguments first given to ``unpack``
    (:func:`accord.data.source.takes_source`: a :class:`~accord.data.source.Source` given
    first made the front door's keywords), in the same frame: a warning's ``stacklevel``
    counts one wrapper."""

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        call: Callable[..., R] = fn

        @functools.wraps(fn)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            if unpack is not None:
                args, kwargs = unpack(args, kwargs)  # type: ignore[assignment]
            first = args[0] if args else None
            engine = kwargs.get("engine", first.engine if isinstance(first, Source) else "memory")
            if not _switch or engine == "memory":
                return call(*args, **kwargs)
            with small_pages():
                return call(*args, **kwargs)

        return wrapper

    return wrap
