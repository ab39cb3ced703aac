"""The figure of a sample-size plan: what each number of items attains, and the plan.

matplotlib is imported inside (the ``report`` extra); the figure is a
:class:`matplotlib.figure.Figure` not registered with pyplot, so nothing global changes.
"""

from __future__ import annotations

import math
from typing import Any

from .._errors import InvalidInputError, require
from ..planning import SampleSize, SimulatedSampleSize
from .figures import ACCENT, GRID, INK, MUTED, SECOND

__all__ = ["plan_figure"]

#: The curve's column drawn for each goal, and its axis label.
_MEASURES = {
    "power": ("power", "power"),
    "width": ("width", "expected interval width"),
    "significance": ("significance", "significance level reached"),
}


def _target(result: SampleSize | SimulatedSampleSize) -> float | None:
    """The goal's value in the units of the curve (power, width or significance level)."""
    key = {"power": "power", "width": "width", "significance": "significance"}[result.goal]
    value = result.assumptions.get(key)
    return float(value) if isinstance(value, int | float) else None


def _ends(ax: Any, result: SampleSize | SimulatedSampleSize) -> None:
    """The expected lower and upper ends of the interval, and the goal rho +- width / 2."""
    curve = result.curve
    for end in ("lower", "upper"):
        ax.plot(curve["n_items"], curve[end], marker="o", markersize=3, color=ACCENT, lw=1.5)
    rho, half = result.assumptions["rho"], result.assumptions["width"] / 2
    ax.axhline(rho, color=MUTED, lw=0.8)
    for bound in (rho - half, rho + half):
        ax.axhline(bound, color=SECOND, lw=1, ls="--")
    ax.plot([], [], color=SECOND, lw=1, ls="--", label=f"goal: {rho:g} +- {half:g}")
    ax.set_ylabel("expected interval ends")


def plan_figure(result: SampleSize | SimulatedSampleSize, *, width: float = 6.0) -> Any:
    """A figure of the plan: the curve of power, interval width or significance against the
    number of items, the goal as a horizontal line and the planned number as a vertical one.

    Parameters
    ----------
    result : SampleSize or SimulatedSampleSize
        What :func:`accord.sample_size_icc` and its kin return.
    width : float, default 6.0
        Figure width in inches.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    InvalidInputError
        ``result`` is not a plan.

    Examples
    --------
    >>> import accord
    >>> fig = accord.plan_figure(accord.sample_size_icc(rho0=0.6, rho1=0.8, n_raters=2))
    >>> fig.axes[0].get_xlabel()
    'items'
    """
    if not isinstance(result, SampleSize | SimulatedSampleSize):
        raise InvalidInputError(
            f"plan_figure takes the result of a sample_size_* function; got {type(result).__name__}"
        )
    require("matplotlib", "report")
    from matplotlib.figure import Figure

    column, label = _MEASURES[result.goal]
    if isinstance(result, SimulatedSampleSize) and result.goal == "width":
        column = "mean_width"
    curve = result.curve
    fig = Figure(figsize=(width, width * 0.6))
    ax = fig.add_subplot()
    if "lower" in curve.columns:  # an interval planned by its two ends
        _ends(ax, result)
    else:
        ax.plot(curve["n_items"], curve[column], marker="o", markersize=3, color=ACCENT, lw=1.5)
        ax.set_ylabel(label)
    if isinstance(result, SimulatedSampleSize) and result.goal == "power":
        se = 1.96 * curve["power_se"]
        ax.fill_between(
            curve["n_items"], curve["power"] - se, curve["power"] + se, color=ACCENT, alpha=0.15
        )
    target = None if "lower" in curve.columns else _target(result)
    if target is not None and math.isfinite(target):
        ax.axhline(target, color=SECOND, lw=1, ls="--", label=f"goal: {target:g}")
    if result.n_items is not None:
        ax.axvline(result.n_items, color=INK, lw=1, label=f"plan: {result.n_items} items")
    ax.set_xlabel("items")
    ax.grid(True, color=GRID, lw=0.6)
    ax.set_title(f"{result.coefficient}, {result.n_raters} raters", color=MUTED, fontsize=10)
    ax.legend(loc="best", frameon=False)
    fig.tight_layout()
    return fig
