"""The options of the confidence estimators."""

from __future__ import annotations

from typing import Literal, TypeAlias

__all__ = ["Binning", "RecalibrationMethod"]

Binning: TypeAlias = Literal["width", "mass"]
"""Equal-width bins on [0, 1] or equal-mass bins cut from the sorted confidences."""

RecalibrationMethod: TypeAlias = Literal["bins", "isotonic"]
"""Binned recalibration (each bin's observed proportion correct) or isotonic regression."""
