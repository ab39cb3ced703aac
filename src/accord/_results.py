"""Result types shared by every coefficient.

Every coefficient returns a frozen dataclass carrying the statistic, what is needed for
inference, and the conventions used (``method``). Compute and display are separate: results
never print; presenters call :meth:`Coefficient.to_dict`.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from typing import Any, Literal, NamedTuple

import numpy as np
import pandas as pd

from ._errors import InvalidInputError
from ._types import Alternative, FloatArray

CIMethod = Literal["analytic", "percentile", "bca"]


class ConfidenceInterval(NamedTuple):
    """A confidence interval ``(low, high)``."""

    low: float
    high: float


def t_quantile(p: float, df: float) -> float:
    """Quantile of Student's t with ``df`` degrees of freedom (``inf`` gives the normal)."""
    from scipy import special

    if not math.isfinite(df):
        return float(special.ndtri(p))
    return float(special.stdtrit(df, p))


def t_sf(t: float, df: float) -> float:
    """Survival function of Student's t (``inf`` df gives the normal)."""
    from scipy import special

    if not math.isfinite(df):
        return float(special.ndtr(-t))
    return float(special.stdtr(df, -t))


def t_interval(
    statistic: float,
    standard_error: float,
    df: float,
    level: float,
    bounds: tuple[float, float] = (-1.0, 1.0),
) -> ConfidenceInterval:
    """``statistic +- t(1 - alpha/2, df) * SE``, truncated to ``bounds``.

    NaN ends when the statistic or its standard error is undefined.
    """
    check_level(level)
    if not (math.isfinite(statistic) and math.isfinite(standard_error)) or df < 1:
        return ConfidenceInterval(math.nan, math.nan)
    half = t_quantile(0.5 + level / 2.0, df) * standard_error
    return ConfidenceInterval(max(bounds[0], statistic - half), min(bounds[1], statistic + half))


def t_pvalue(
    statistic: float, standard_error: float, df: float, alternative: Alternative = "two-sided"
) -> float:
    """p-value of the test ``statistic = 0`` with a t reference on ``df`` degrees of freedom."""
    if alternative not in ("two-sided", "greater", "less"):
        raise InvalidInputError(
            "The 'alternative' parameter must be one of {'two-sided', 'greater', 'less'}. "
            f"Got {alternative!r} instead."
        )
    if not (math.isfinite(statistic) and math.isfinite(standard_error)) or df < 1:
        return math.nan
    if standard_error == 0.0:
        return 0.0 if statistic != 0.0 else math.nan
    t = statistic / standard_error
    if alternative == "two-sided":
        return min(1.0, 2.0 * t_sf(abs(t), df))
    return t_sf(t if alternative == "greater" else -t, df)


def check_level(level: float) -> None:
    """Raise unless ``0 < level < 1``."""
    if not (0.0 < level < 1.0):
        raise InvalidInputError(f"confidence level must be strictly between 0 and 1, got {level}")


def to_plain(value: Any) -> Any:
    """Convert numpy, pandas and dataclass values to plain Python for JSON and dicts."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if hasattr(value, "to_dict"):
            return value.to_dict()
        return {f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, pd.DataFrame):
        return [
            {str(k): to_plain(v) for k, v in row.items()} for row in value.to_dict(orient="records")
        ]
    if isinstance(value, pd.Series):
        return [to_plain(v) for v in value.tolist()]
    if isinstance(value, np.ndarray):
        return [to_plain(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Mapping):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [to_plain(v) for v in value]
    return value


def _nan_to_none(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: _nan_to_none(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_nan_to_none(v) for v in value]
    return value


def dumps(value: Any, *, indent: int | None = 2) -> str:
    """Serialise a result (or anything :func:`to_plain` handles) to strict JSON.

    NaN becomes ``null``; keys keep the result's field names.
    """
    return json.dumps(_nan_to_none(to_plain(value)), indent=indent, allow_nan=False)


@dataclasses.dataclass(frozen=True, slots=True)
class Coefficient:
    """A chance-corrected agreement coefficient with what is needed for inference.

    Attributes
    ----------
    name : str
        The coefficient's function name, e.g. ``"fleiss_kappa"``.
    statistic : float
        The estimate; NaN when undefined for the data (see ``reason``).
    standard_error : float
        The general (non-null) standard error; NaN where none is available.
    n_items : int
        Items that entered the estimate.
    n_raters : int
        Raters with at least one rating among those items.
    categories : tuple
        The category domain used (declared, or observed sorted values).
    method : str
        The variant, the chance model and the variance formula, in words.
    observed_agreement, chance_agreement : float
        ``p_a`` and ``p_e`` of ``(p_a - p_e) / (1 - p_e)`` (for alpha, ``1 - D_o`` and
        ``1 - D_e`` on the agreement-weight scale).
    weights : str
        Name of the weighting scheme (``"identity"`` when unweighted).
    standard_error_null : float
        Standard error under the hypothesis ``statistic = 0`` where one is classic, else NaN.
    n_items_unpairable : int
        Items with fewer than two ratings (no pair to compare).
    population_size : float
        Number of items in the population for the finite-population correction
        (``inf`` when none was applied).
    reason : str or None
        Why the statistic is NaN, when it is.
    bounds : tuple of float
        The coefficient's range; analytic intervals are truncated to it.
    replicates : ndarray or None
        Bootstrap replicates, when a bootstrap was run.
    jackknife : ndarray or None
        Leave-one-item-out values, for BCa intervals.
    """

    name: str
    statistic: float
    standard_error: float
    n_items: int
    n_raters: int
    categories: tuple[Any, ...]
    method: str
    observed_agreement: float = math.nan
    chance_agreement: float = math.nan
    weights: str = "identity"
    standard_error_null: float = math.nan
    n_items_unpairable: int = 0
    population_size: float = math.inf
    reason: str | None = None
    bounds: tuple[float, float] = (-1.0, 1.0)
    replicates: FloatArray | None = dataclasses.field(default=None, repr=False, compare=False)
    jackknife: FloatArray | None = dataclasses.field(default=None, repr=False, compare=False)

    @property
    def df(self) -> int:
        """Degrees of freedom of the t reference: ``n_items - 1``."""
        return max(self.n_items - 1, 0)

    @property
    def n_categories(self) -> int:
        """Number of categories in the domain."""
        return len(self.categories)

    @property
    def pvalue(self) -> float:
        """Two-sided p-value of ``statistic = 0`` (t reference, ``n_items - 1`` df)."""
        return self.test("two-sided")

    @property
    def ci_description(self) -> str:
        """How the interval of :meth:`to_dict` is computed, in words (its ``ci_method``).

        Results whose default interval is not the t interval override this property.
        """
        return f"t interval, {self.df} df, truncated to {list(self.bounds)}"

    def test(self, alternative: Alternative = "two-sided") -> float:
        """p-value of ``statistic = 0`` against ``alternative`` with the general SE."""
        return t_pvalue(self.statistic, self.standard_error, self.df, alternative)

    def confidence_interval(
        self, level: float = 0.95, method: CIMethod = "analytic"
    ) -> ConfidenceInterval:
        """Confidence interval for the coefficient.

        Parameters
        ----------
        level : float, default 0.95
            Confidence level, any value strictly between 0 and 1.
        method : {"analytic", "percentile", "bca"}
            ``"analytic"``: statistic +- t(1 - alpha/2, n_items - 1) * SE, truncated to
            ``bounds``. ``"percentile"`` and ``"bca"`` need bootstrap ``replicates``.
        """
        check_level(level)
        if method == "analytic":
            return t_interval(self.statistic, self.standard_error, self.df, level, self.bounds)
        if method in ("percentile", "bca"):
            from ._bootstrap import bootstrap_interval

            return bootstrap_interval(
                self.statistic, self.replicates, self.jackknife, level=level, method=method
            )
        raise InvalidInputError(
            "The 'method' parameter of confidence_interval must be one of "
            f"{{'analytic', 'percentile', 'bca'}}. Got {method!r} instead."
        )

    def to_dict(self, level: float = 0.95) -> dict[str, Any]:
        """Plain-Python dict of the result's fields plus the default interval and p-value."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name in ("replicates", "jackknife"):
                continue
            out[f.name] = to_plain(getattr(self, f.name))
        ci = self.confidence_interval(level)
        out.update(
            n_categories=self.n_categories,
            df=self.df,
            pvalue=self.pvalue,
            alternative="two-sided",
            confidence_level=level,
            ci_method=self.ci_description,
            ci_low=ci.low,
            ci_high=ci.high,
        )
        return out
