"""The options of a consensus analysis, checked once for every path."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

from .._errors import InvalidInputError, bad_choice
from .results import MISSING_CATEGORY, ConsensusMissing, ConsensusReference

__all__ = ["Options", "check_bands", "check_choices", "method_text"]


def check_choices(reference: object, missing: object) -> None:
    """The house option error unless ``reference`` and ``missing`` are in their domains."""
    for name, value, allowed in (
        ("reference", reference, ("all", "others")),
        ("missing", missing, ("omit", "category")),
    ):
        if value not in allowed:
            raise InvalidInputError(bad_choice("consensus", name, allowed, value))


def check_bands(bands: Sequence[float]) -> tuple[float, float, float]:
    """The three band edges as floats, finite and strictly increasing."""
    try:
        values = tuple(float(b) for b in bands)
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"bands must be three increasing numbers (the upper edges of good, acceptable and "
            f"poor, in units of base); got {bands!r}"
        ) from None
    if len(values) != 3 or not all(math.isfinite(v) for v in values):
        raise InvalidInputError(
            f"bands must be three finite numbers (the upper edges of good, acceptable and "
            f"poor); got {bands!r}"
        )
    if not values[0] < values[1] < values[2]:
        raise InvalidInputError(f"bands must be strictly increasing; got {bands!r}")
    return values[0], values[1], values[2]


@dataclasses.dataclass(frozen=True, slots=True)
class Options:
    """The conventions of an analysis (see :func:`accord.consensus`).

    ``bands`` are the checked band edges; ``lb`` is ``log2(base)``, the bits per unit of
    ``base`` (1.0 for bits), by which every entropy and surprisal in bits is divided.
    """

    reference: ConsensusReference
    missing: ConsensusMissing
    bands: tuple[float, float, float]
    base: Any
    lb: float
    ordinal: bool

    @classmethod
    def checked(
        cls,
        *,
        reference: ConsensusReference,
        missing: ConsensusMissing,
        bands: Sequence[float],
        base: float,
        ordinal: bool,
    ) -> Options:
        """The options, or a one-line error naming the one at fault (bands, then base)."""
        band_edges = check_bands(bands)
        try:
            lb = math.log2(float(base))  # bits per unit of base; 1.0 for bits
        except (TypeError, ValueError):
            lb = math.nan
        if not (math.isfinite(lb) and lb > 0):
            raise InvalidInputError(f"base must be a number greater than 1; got {base!r}")
        return cls(reference, missing, band_edges, base, lb, ordinal)


def method_text(options: Options, note: str) -> str:
    """The conventions used, in words (``note`` appended)."""
    bands = options.bands
    return (
        f"entropy and surprisal in base {options.base:g} (Simon 2010); p from "
        + (
            "all ratings of the item"
            if options.reference == "all"
            else "the other ratings of the item (leave-one-out)"
        )
        + "; "
        + (
            "assignments without a label omitted"
            if options.missing == "omit"
            else f"assignments without a label scored as the category {MISSING_CATEGORY!r}"
        )
        + f"; classes good <= {bands[0]:g} < acceptable <= {bands[1]:g} < poor <= "
        f"{bands[2]:g} < very poor on the deviation; raters against the unique "
        "leave-one-out modal label (Cohen's kappa, informational agreement)" + note
    )
