"""Literal aliases and small protocols shared across accord."""

from __future__ import annotations

from typing import Literal, TypeAlias, get_args

import numpy as np
import numpy.typing as npt

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


def as_generator(rng: RngLike) -> np.random.Generator:
    """Return a numpy Generator from a Generator, a seed or None."""
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(rng)
