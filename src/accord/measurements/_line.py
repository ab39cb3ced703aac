"""What the results of the method-comparison regressions share: the fitted line, its
residuals and the plain dict of the fields."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .._results import Result, plain_fields
from .._types import FloatArray

__all__ = ["LineFit"]


class LineFit(Result):
    """A line ``y = intercept + slope x`` fitted to the pairs ``x``, ``y``, with the
    intervals ``slope_ci`` and ``intercept_ci``; subclasses are frozen dataclasses that
    name their array fields in ``_arrays``."""

    __slots__ = ()
    _arrays: ClassVar[tuple[str, ...]] = ("x", "y")

    @property
    def fitted(self) -> FloatArray:
        """``intercept + slope x``."""
        fit: Any = self
        return np.asarray(fit.intercept + fit.slope * fit.x, dtype=np.float64)

    @property
    def residuals(self) -> FloatArray:
        """``y - fitted``."""
        fit: Any = self
        return np.asarray(fit.y - self.fitted, dtype=np.float64)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the fields (not the arrays), the intervals as ``*_ci_low`` and
        ``*_ci_high``."""
        fit: Any = self
        out = plain_fields(self, (*self._arrays, "slope_ci", "intercept_ci"))
        out.update(
            slope_ci_low=fit.slope_ci.low,
            slope_ci_high=fit.slope_ci.high,
            intercept_ci_low=fit.intercept_ci.low,
            intercept_ci_high=fit.intercept_ci.high,
        )
        return out
