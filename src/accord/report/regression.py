"""Figures of a method-comparison regression (Passing-Bablok or Deming): the pairs with the
fitted line, the identity line and the confidence band; the residuals against the level.

Each function takes a :class:`~accord.PassingBablok` or :class:`~accord.Deming` and returns
a matplotlib ``Figure`` (drawn on ``ax`` when one is given); every number drawn is the
result's. Beyond :data:`~accord.report.measurements.MARKERS` pairs the points are binned,
as in the Bland-Altman plot.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._errors import InvalidInputError, require
from .._methods import level_pct
from .._types import FloatArray
from ..measurements.deming import Deming
from ..measurements.passing_bablok import PassingBablok
from .figures import ACCENT, MUTED, SECOND, new_figure, report_style, to_svg
from .measurements import MARKERS, _axes, _points

__all__ = ["regression_band", "regression_plot", "regression_svg", "residual_plot"]

#: Points along the x axis at which the band is drawn.
_GRID = 200


def _check(result: Any, owner: str) -> PassingBablok | Deming:
    if isinstance(result, PassingBablok | Deming):
        return result
    raise InvalidInputError(
        f"{owner} needs the result of accord.passing_bablok or accord.deming; got "
        f"{type(result).__name__}"
    )


def regression_band(result: PassingBablok | Deming, at: Any) -> tuple[FloatArray, FloatArray]:
    """The confidence band of the line at ``at``: for Deming the pointwise jackknife
    interval (:meth:`~accord.Deming.band`); for Passing-Bablok the envelope of the lines
    through the bounds of the intervals, ``a_L + b_U x`` and ``a_U + b_L x`` (NaN when an
    interval is)."""
    x0 = np.asarray(at, dtype=np.float64)
    if isinstance(result, Deming):
        return result.band(x0)
    one = result.intercept_ci.low + result.slope_ci.high * x0
    other = result.intercept_ci.high + result.slope_ci.low * x0
    return np.minimum(one, other), np.maximum(one, other)


def _name(result: PassingBablok | Deming) -> str:
    if isinstance(result, PassingBablok):
        return "Passing-Bablok"
    return "weighted Deming" if result.weighted else "Deming"


def regression_plot(
    result: PassingBablok | Deming, *, ax: Any | None = None, markers: int = MARKERS
) -> Any:
    """The pairs, the fitted line with its confidence band, and the identity line ``y = x``.

    Parameters
    ----------
    result : PassingBablok or Deming
        From :func:`accord.passing_bablok` or :func:`accord.deming`.
    ax : matplotlib Axes, optional
        Draw here; by default on a new figure.
    markers : int, default 5000
        Pairs drawn one marker each; more are binned (a 2-D histogram, rasterized).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import accord
    >>> fit = accord.passing_bablok([1.0, 2.1, 2.9, 4.2, 5.0, 6.1], [1.2, 2.0, 3.1, 4.0, 5.3, 6.0])
    >>> fig = accord.regression_plot(fit)
    >>> fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()
    ('x', 'y')
    """
    result = _check(result, "regression_plot")
    fig, ax = _axes(ax, (4.8, 4.4))
    x, y = result.x, result.y
    _points(ax, x, y, markers=markers)
    both = np.concatenate([x, y])
    lo, hi = float(both.min()), float(both.max())
    pad = 0.05 * (hi - lo or 1.0)
    ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color=MUTED, lw=1.0, label="y = x")
    grid = np.linspace(float(x.min()), float(x.max()), _GRID)
    band_lo, band_hi = regression_band(result, grid)
    if np.all(np.isfinite(band_lo)) and np.all(np.isfinite(band_hi)):
        ax.fill_between(grid, band_lo, band_hi, color=ACCENT, alpha=0.18, lw=0,
                        label=f"{level_pct(result.confidence_level)} band")  # fmt: skip
    ax.plot(grid, result.intercept + result.slope * grid, color=ACCENT, lw=1.5,
            label=f"{result.intercept:.3g} + {result.slope:.4g} x")  # fmt: skip
    ax.set_xlabel(result.first)
    ax.set_ylabel(result.second)
    ax.set_title(f"{_name(result)}: {result.second} on {result.first}")
    ax.legend(loc="upper left", fontsize="small")
    return fig


def residual_plot(
    result: PassingBablok | Deming, *, ax: Any | None = None, markers: int = MARKERS
) -> Any:
    """The residuals ``y - (intercept + slope x)`` against ``x``, with the zero line: a
    trend or a funnel says the line or the error model does not fit.

    Examples
    --------
    >>> import accord
    >>> fit = accord.deming([1.0, 2.1, 2.9, 4.2, 5.0, 6.1], [1.2, 2.0, 3.1, 4.0, 5.3, 6.0])
    >>> fig = accord.residual_plot(fit)
    >>> fig.axes[0].get_ylabel()
    'residual of y'
    """
    result = _check(result, "residual_plot")
    fig, ax = _axes(ax, (5.6, 3.4))
    _points(ax, result.x, result.residuals, markers=markers)
    ax.axhline(0.0, color=SECOND, lw=1.0)
    ax.set_xlabel(result.first)
    ax.set_ylabel(f"residual of {result.second}")
    ax.set_title(f"{_name(result)} residuals")
    return fig


def regression_svg(results: Sequence[PassingBablok | Deming], key: str) -> str:
    """The fit and the residuals of each result, side by side, under the report's style, as
    inline SVG."""
    require("matplotlib", "report")
    rows = max(1, len(results))
    with report_style(key):
        fig = new_figure(7.2, 3.2 * rows)
        axes = fig.subplots(rows, 2, squeeze=False)
        for (left, right), result in zip(axes, results, strict=False):
            regression_plot(result, ax=left)
            residual_plot(result, ax=right)
        fig.tight_layout()
        return to_svg(fig, key)
