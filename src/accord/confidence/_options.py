"""The options of the confidence estimators, and their check."""

from __future__ import annotations

from typing import Literal, TypeAlias

from .._errors import InvalidInputError, bad_choice

__all__ = ["Binning", "RecalibrationMethod", "check_choice"]

Binning: TypeAlias = Literal["width", "mass"]
"""Equal-width bins on [0, 1] or equal-mass bins cut from the sorted confidences."""

RecalibrationMethod: TypeAlias = Literal["bins", "isotonic"]
"""Binned recalibration (each bin's observed proportion correct) or isotonic regression."""


def check_choice(name: str, value: object, allowed: tuple[object, ...], owner: str) -> None:
    """Raise the house error for an option outside ``allowed``."""
    if value not in allowed:
        raise InvalidInputError(bad_choice(owner, name, allowed, value))
