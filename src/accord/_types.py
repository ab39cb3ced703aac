"""Literal aliases and small protocols shared across accord."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, TypeAlias, TypeVar, get_args

import numpy as np
import numpy.typing as npt

from ._errors import InvalidInputError, bad_parameter

T = TypeVar("T")
R = TypeVar("R")

Level: TypeAlias = Literal["nominal", "ordinal", "interval", "ratio"]
"""Level of measurement of the labels."""

LEVELS: tuple[Level, ...] = get_args(Level)

Missing: TypeAlias = Literal["omit", "raise"]
"""What to do with a rating whose label is missing."""

MISSING_RULES: tuple[Missing, ...] = get_args(Missing)

Duplicates: TypeAlias = Literal["raise", "first", "last", "mean"]
"""What to do when one rater rated one item more than once."""

DUPLICATE_RULES: tuple[Duplicates, ...] = get_args(Duplicates)

Alternative: TypeAlias = Literal["two-sided", "greater", "less"]

IntArray: TypeAlias = npt.NDArray[np.int64]
FloatArray: TypeAlias = npt.NDArray[np.float64]
BoolArray: TypeAlias = npt.NDArray[np.bool_]

RngLike: TypeAlias = np.random.Generator | int | None
"""Anything random takes ``rng``: a Generator, a seed, or None."""


def as_generator(rng: RngLike, owner: str = "accord", keyword: str = "rng") -> np.random.Generator:
    """Return a numpy Generator from a Generator, a seed or None.

    Raises
    ------
    InvalidInputError
        A seed that is not a non-negative integer (numpy takes no negative seed), named as
        ``owner``'s ``keyword`` (``--seed`` on the command line).

    >>> as_generator(3).integers(10) == np.random.default_rng(3).integers(10)
    np.True_
    >>> as_generator(-1, "cohen_kappa")
    Traceback (most recent call last):
    ...
    accord._errors.InvalidInputError: The 'rng' parameter of cohen_kappa must be a numpy \
Generator, a non-negative integer seed or None. Got -1 instead.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is not None and (
        isinstance(rng, bool) or not isinstance(rng, int | np.integer) or rng < 0
    ):
        need = "a numpy Generator, a non-negative integer seed or None"
        raise InvalidInputError(bad_parameter(owner, keyword, need, rng))
    return np.random.default_rng(rng)


def usable_cores() -> int:
    """The CPUs this process may run on (its affinity where the system says, else all).

    >>> usable_cores() >= 1
    True
    """
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def release_freed_memory() -> None:
    """Hand the memory the C heap holds free back to the system (glibc's ``malloc_trim``;
    elsewhere nothing is done).

    A batch's arrays (a few MB each) are below glibc's threshold for mapping memory of their
    own, so they come from the heap; freed, they stay resident until the heap is trimmed.
    After a first read past its memory limit (the codes it kept while they fitted, then
    passes over ranges of items) that was 700 MB at 100M ratings, on top of what the next
    step allocates. Work run in threads (:func:`in_threads`) allocates from a heap a thread,
    which this trims too: what the threads freed is otherwise still resident when the next
    step allocates from the main heap.
    """
    import ctypes

    try:
        trim = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return
    trim(0)


def in_threads(fn: Callable[[T], R], parts: Sequence[T]) -> list[R]:
    """``[fn(part) for part in parts]``, the parts run side by side in threads when there are
    several (for work that releases the GIL: numpy's sorts, gathers and sums), the results in
    the order of ``parts``.

    >>> in_threads(lambda x: x * x, [1, 2, 3])
    [1, 4, 9]
    """
    if len(parts) <= 1:
        return [fn(part) for part in parts]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=len(parts)) as pool:
        return list(pool.map(fn, parts))
