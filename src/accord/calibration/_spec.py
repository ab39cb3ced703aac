"""What a panel calibration reads and how it fits: two frozen specifications, checked once.

:class:`PanelSpec` names the columns of a panel's long table and says how scores and
confidences are read from them (and what to do with missing values and repeated pairs);
:class:`FitOptions` holds the options of the fit. The front door builds both from the
arguments of :func:`accord.calibrate_panel` and hands them to whichever engine reads the data
and to the estimator, so that every path reads and fits with the same options, checked in
one place.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Literal, TypeAlias

from .._errors import InvalidInputError
from .._types import DUPLICATE_RULES, MISSING_RULES, Duplicates, Missing, RngLike
from .._validate import check_choice

__all__ = [
    "NO_ASSESSMENTS",
    "OWNER",
    "EmptyPanelError",
    "FitOptions",
    "Gauge",
    "PanelSpec",
    "RangeConvention",
    "Reliability",
    "Solver",
    "Uncertainty",
]

Gauge: TypeAlias = Literal["sum", "weighted"]
Reliability: TypeAlias = Literal["declared", "estimate"]
Uncertainty: TypeAlias = Literal["auto", "exact", "sample", "none"]
Solver: TypeAlias = Literal["auto", "full", "schur-raters", "schur-items"]
RangeConvention: TypeAlias = Literal["central95", "sd"]

OWNER = "calibrate_panel"
"""The function named in option errors."""

NO_ASSESSMENTS = "no assessments to calibrate: the input has no complete rows"


class EmptyPanelError(InvalidInputError):
    """No assessment is left to calibrate: every row lacks a score or a confidence.

    Raised for a whole input, and for one batch or partition, which the stream and dask
    engines then count as dropped rows.
    """

    def __init__(self, message: str = NO_ASSESSMENTS) -> None:
        super().__init__(message)


@dataclasses.dataclass(frozen=True, slots=True)
class PanelSpec:
    """The columns of a panel's long table and how its assessments are read from them.

    The fields are the arguments of :func:`accord.calibrate_panel` of the same names; they
    are checked when the specification is made (an option error names the option).

    Examples
    --------
    >>> spec = PanelSpec(item="item", rater="rater", score="score", score_range=["lo", "hi"])
    >>> spec.source, spec.columns
    ('range', ('item', 'rater', 'score', 'lo', 'hi'))
    >>> try:
    ...     PanelSpec(item="item", rater="rater", score="score", confidence="c", sigma="sd")
    ... except InvalidInputError as exc:
    ...     print(exc)
    give at most one of confidence, sigma, score_range and levels; got confidence and sigma
    """

    item: str
    rater: str
    score: str
    confidence: str | None = None
    sigma: str | None = None
    score_range: Sequence[str] | None = None
    levels: str | None = None
    confidence_factor: float = 1.75
    range_convention: RangeConvention = "central95"
    relative: bool | None = None
    missing: Missing = "omit"
    duplicates: Duplicates = "raise"

    def __post_init__(self) -> None:
        given = [
            name
            for name in ("confidence", "sigma", "score_range", "levels")
            if getattr(self, name) is not None
        ]
        if len(given) > 1:
            raise InvalidInputError(
                "give at most one of confidence, sigma, score_range and levels; got "
                + " and ".join(given)
            )
        check_choice("missing", self.missing, MISSING_RULES, OWNER)
        check_choice("duplicates", self.duplicates, DUPLICATE_RULES, OWNER)
        check_choice("range_convention", self.range_convention, ("central95", "sd"), OWNER)
        if self.score_range is not None:
            if isinstance(self.score_range, str) or len(self.score_range) != 2:
                raise InvalidInputError(
                    "score_range must name two columns (low, high); got " + repr(self.score_range)
                )
            object.__setattr__(self, "score_range", tuple(self.score_range))
        factor = self.confidence_factor
        if not (math.isfinite(factor) and factor > 0):
            raise InvalidInputError(
                f"confidence_factor must be positive and finite, got {factor!r}"
            )

    @property
    def source(self) -> str:
        """Where confidences come from: ``"confidence"``, ``"sigma"``, ``"range"``,
        ``"levels"`` or ``"equal"``."""
        if self.confidence is not None:
            return "confidence"
        if self.sigma is not None:
            return "sigma"
        if self.score_range is not None:
            return "range"
        return "levels" if self.levels is not None else "equal"

    @property
    def extra(self) -> tuple[str, ...]:
        """The columns the confidences are read from (none, one, or the range's two)."""
        if self.score_range is not None:
            return tuple(self.score_range)
        named = (self.confidence, self.sigma, self.levels)
        return tuple(name for name in named if name is not None)

    @property
    def columns(self) -> tuple[str, ...]:
        """Item, rater and score columns, then :attr:`extra`."""
        return (self.item, self.rater, self.score, *self.extra)

    @property
    def file_columns(self) -> list[str]:
        """:attr:`columns` without repeats, as a reader asks for them."""
        return list(dict.fromkeys(self.columns))


@dataclasses.dataclass(frozen=True, slots=True)
class FitOptions:
    """The options of the fit, as :func:`accord.calibrate_panel` documents them (checked when
    made)."""

    gauge: Gauge = "sum"
    per_component: bool = False
    reliability: Reliability = "declared"
    bias_prior: float | None = None
    uncertainty: Uncertainty = "auto"
    n_samples: int = 32
    connectivity: bool | Literal["auto"] = "auto"
    solver: Solver = "auto"
    tol: float = 1e-10
    max_iter: int = 5000
    rng: RngLike = None

    def __post_init__(self) -> None:
        check_choice("gauge", self.gauge, ("sum", "weighted"), OWNER)
        check_choice("reliability", self.reliability, ("declared", "estimate"), OWNER)
        check_choice("uncertainty", self.uncertainty, ("auto", "exact", "sample", "none"), OWNER)
        check_choice("solver", self.solver, ("auto", "full", "schur-raters", "schur-items"), OWNER)
        prior = self.bias_prior
        if prior is not None and not (math.isfinite(prior) and prior > 0):
            raise InvalidInputError(f"bias_prior must be positive and finite, got {prior!r}")
        if prior is not None and self.gauge != "sum":
            raise InvalidInputError(
                "a bias prior fixes the location itself (sum of biases 0 in every component); "
                "leave gauge='sum'"
            )
        if self.n_samples < 2:
            raise InvalidInputError(f"n_samples must be at least 2, got {self.n_samples}")
        if not (0 < self.tol < 1):
            raise InvalidInputError(f"tol must be strictly between 0 and 1, got {self.tol!r}")
