"""The figure of a sample-size plan: what each number of items attains, and the plan.

matplotlib is imported inside (the ``report`` extra); the figure is a
:class:`matplotlib.figure.Figure` not registered with pyplot, so nothing global changes.
"""

from __future__ import annotations

import math
from typing import Any

from .._errors import InvalidInputError, require
from ..planning import SampleSize, SimulatedSampleSize
from .figures import ACCENT, GRID, INK, MUTED, SECOND, new_figure

__all__ = ["d_study_figure", "plan_figure"]

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
    column, label = _MEASURES[result.goal]
    if isinstance(result, SimulatedSampleSize) and result.goal == "width":
        column = "mean_width"
    curve = result.curve
    fig = new_figure(width, width * 0.6)
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


def d_study_figure(
    d: Any, *, coefficient: str = "phi", target: float | None = 0.8, width: float = 6.0
) -> Any:
    """A figure of a D-study: the coefficient against the number of levels of its first
    facet, one line per number of levels of the second, and the goal as a horizontal line.

    Parameters
    ----------
    d : DStudy
        What :func:`accord.d_study` returns.
    coefficient : {"phi", "g_coefficient"}, default "phi"
    target : float or None, default 0.8
    width : float, default 6.0
        Figure width in inches.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import accord
    >>> from accord.agreement.gtheory import g_study_from_components
    >>> g = g_study_from_components("p x r x o", dict(p=0.8, r=0.04, o=0.02, pr=0.19,
    ...                             po=0.31, ro=0.0, pro=0.32))
    >>> fig = d_study_figure(accord.d_study(g, {"r": range(1, 7), "o": [1, 2, 3]}))
    >>> fig.axes[0].get_xlabel(), len(fig.axes[0].get_lines())
    ('levels of r', 4)
    """
    table = getattr(d, "table", None)
    if table is None or coefficient not in ("phi", "g_coefficient"):
        raise InvalidInputError(
            "d_study_figure takes the result of d_study and coefficient 'phi' or "
            f"'g_coefficient'; got {type(d).__name__} and {coefficient!r}"
        )
    require("matplotlib", "report")
    facets = list(d.facets)
    fig = new_figure(width, width * 0.6)
    ax = fig.add_subplot()
    x = f"n_{facets[0]}"
    groups = table.groupby(f"n_{facets[1]}") if len(facets) > 1 else [(None, table)]
    colours = [ACCENT, SECOND, INK, MUTED]
    for k, (level, rows) in enumerate(groups):
        label = None if level is None else f"{int(level)} levels of {facets[1]}"
        ax.plot(rows[x], rows[coefficient], marker="o", markersize=3, lw=1.5,
                color=colours[k % len(colours)], label=label)  # fmt: skip
    if target is not None:
        ax.axhline(target, color=MUTED, lw=1, ls="--", label=f"goal: {target:g}")
    ax.set_xlabel(f"levels of {facets[0]}")
    ax.set_ylabel("Phi" if coefficient == "phi" else "E rho^2")
    ax.set_ylim(0, 1)
    ax.grid(True, color=GRID, lw=0.6)
    ax.set_title(f"D-study of {d.design}", color=MUTED, fontsize=10)
    ax.legend(loc="lower right", frameon=False)
    fig.tight_layout()
    return fig
