"""Figures of a method comparison: the Bland-Altman plot and the concordance scatter.

Each function takes a result of :mod:`accord.measurements` and returns a matplotlib
``Figure`` (drawn on ``ax`` when one is given); the numbers drawn are the result's. matplotlib
is the ``report`` extra, imported inside the functions.

Up to :data:`MARKERS` pairs are drawn one marker each; beyond that the pairs are drawn as a
2-D histogram (:func:`binned`), rasterized, so that the cost of a figure, and of the SVG of a
report, does not grow with the data: a vector marker per pair would make a page of 1M
scores weigh more than 100 MB.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._errors import InvalidInputError, require
from .._methods import level_pct
from ..measurements import BlandAltman, ConcordanceCorrelation, MethodComparison
from ..measurements.limits import LimitsMethod
from .figures import ACCENT, INK, MUTED, SECOND, new_figure, report_style, to_svg

__all__ = [
    "MARKERS",
    "binned",
    "binned_counts",
    "bland_altman_plot",
    "bland_altman_svg",
    "concordance_plot",
    "one_pair",
]

#: Pairs drawn one marker each; more are drawn as a 2-D histogram.
MARKERS = 5_000
#: Bins along each axis of the 2-D histogram.
BINS = 80


def _axes(ax: Any | None, size: tuple[float, float]) -> tuple[Any, Any]:
    """``(figure, axes)``: those of ``ax``, or a new figure (not registered with pyplot)."""
    require("matplotlib", "report")
    if ax is not None:
        return ax.figure, ax
    fig = new_figure(*size)
    return fig, fig.add_subplot(1, 1, 1)


def binned(result: BlandAltman, markers: int = MARKERS) -> bool:
    """Whether the plots of ``result`` draw its pairs as a 2-D histogram: more than
    ``markers`` of them."""
    return result.n_pairs > markers


def _edges(values: Any, log: bool) -> Any:
    """:data:`BINS` bins over the range of ``values``: equal widths (the edges of
    ``numpy.histogram2d``), or on a log axis equal ratios."""
    lo, hi = float(values.min()), float(values.max())
    if log:
        return np.geomspace(lo, max(hi, lo * 1.01), BINS + 1)
    if lo == hi:  # one value: a bin of width one around it, as numpy does
        lo, hi = lo - 0.5, hi + 0.5
    return np.linspace(lo, hi, BINS + 1)


def _bin_of(values: Any, edges: Any, log: bool) -> Any:
    """The bin of each value among ``edges`` (``0 .. BINS - 1``; the last holds its right
    edge), as ``numpy.histogram2d`` bins them: the position computed, then moved by one bin
    where rounding put it on the wrong side of an edge (numpy's ``histogram`` does the
    same); a multiplication a value, not a search among the edges."""
    at, lo, hi = values, edges[0], edges[-1]
    if log:
        at, lo, hi = np.log(at), np.log(lo), np.log(hi)
    with np.errstate(over="ignore", divide="ignore"):
        scale = BINS / (hi - lo)
    if not 0.0 < scale < math.inf:  # a range beyond the floats' (or within one ulp): search
        found = np.searchsorted(edges, values, side="right") - 1
        return np.clip(found, 0, BINS - 1)
    index = ((at - lo) * scale).astype(np.intp)
    np.clip(index, 0, BINS - 1, out=index)
    index -= values < edges[index]
    index += (values >= edges[index + 1]) & (index < BINS - 1)
    return index


def binned_counts(x: Any, y: Any, *, log_y: bool = False) -> tuple[Any, Any, Any]:
    """The points ``(x, y)`` counted in :data:`BINS` x :data:`BINS` bins over their range
    (the y bins log-spaced with ``log_y``, for positive ``y``): the counts (x along the
    first axis) and the edges, the counts those of ``numpy.histogram2d``.

    >>> counts, xe, ye = binned_counts(np.array([0.0, 0.5, 1.0]), np.array([2.0, 2.0, 3.0]))
    >>> int(counts.sum()), int(counts[0, 0]), int(counts[-1, -1]), float(xe[-1])
    (3, 1, 1, 1.0)
    """
    xe, ye = _edges(x, False), _edges(y, log_y)
    cells = _bin_of(x, xe, False) * BINS + _bin_of(y, ye, log_y)
    counts = np.bincount(cells, minlength=BINS * BINS).reshape(BINS, BINS)
    return counts, xe, ye


def _points(ax: Any, x: Any, y: Any, *, markers: int, log_y: bool = False) -> None:
    """The points ``(x, y)``: a marker each, or beyond ``markers`` points a 2-D histogram of
    :data:`BINS` bins an axis (log-spaced on a log axis), shaded by the points in each bin,
    empty bins left blank, rasterized (one image, whatever the number of points)."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.size <= markers:
        ax.scatter(x, y, s=16, color=INK, alpha=0.75, lw=0)
        return
    keep = np.isfinite(x) & np.isfinite(y)
    if log_y:
        keep &= y > 0
    if not keep.all():
        x, y = x[keep], y[keep]
    if not x.size:
        return
    counts, xe, ye = binned_counts(x, y, log_y=log_y)
    shade = np.ma.masked_less(counts.T, 1)  # empty bins blank (matplotlib's hist2d cmin=1)
    if log_y:  # bins of equal ratios: a mesh of quadrilaterals
        ax.pcolormesh(xe, ye, shade, cmap="Greys", rasterized=True)
        return
    # Equal widths: one image (no mesh of 6,400 paths for the legend's placement to walk)
    ax.pcolorfast(xe, ye, shade, cmap="Greys", rasterized=True)


def _band(ax: Any, value: float, low: float, high: float, color: str, label: str) -> None:
    """A horizontal line at ``value`` with its interval shaded, when finite."""
    if math.isfinite(low) and math.isfinite(high):
        ax.axhspan(low, high, color=color, alpha=0.15, lw=0)
    ax.axhline(value, color=color, lw=1.2, ls="-" if "bias" in label else "--", label=label)


def one_pair(result: Any, owner: str) -> BlandAltman:
    """The Bland-Altman analysis of the one pair a figure draws: ``result`` itself, or the
    only pair of a comparison of ratings; anything else is a one-line error saying what to
    pass.

    >>> import accord
    >>> r = accord.Ratings.from_wide([[1.0, 1.2], [2.0, 2.1], [3.0, 2.7]], level="interval")
    >>> one_pair(accord.bland_altman(r), "bland_altman_plot").n_pairs
    3
    """
    if isinstance(result, BlandAltman):
        return result
    if isinstance(result, MethodComparison) and len(result.limits) == 1:
        return result.limits[0]
    if isinstance(result, MethodComparison):
        pairs = ", ".join(f"{ba.first} - {ba.second}" for ba in result.limits[:3])
        raise InvalidInputError(
            f"{owner} draws one pair; the comparison holds {len(result.limits)} ({pairs}"
            f"{', ...' if len(result.limits) > 3 else ''}): pass one of its .limits, e.g. "
            f"{owner}(comparison.limits[0])"
        )
    raise InvalidInputError(
        f"{owner} needs the result of accord.bland_altman; got {type(result).__name__}"
    )


def bland_altman_plot(
    result: BlandAltman | MethodComparison,
    *,
    level: float = 0.95,
    limits_method: LimitsMethod | None = None,
    ax: Any | None = None,
    markers: int = MARKERS,
) -> Any:
    """The Bland-Altman plot: each pair's difference against its mean, with the bias and the
    limits of agreement, their intervals shaded.

    Parameters
    ----------
    result : BlandAltman or MethodComparison
        From :func:`accord.bland_altman`: the analysis of two methods, or the comparison of
        ratings when it holds one pair (with several, pass one of ``comparison.limits``).
    level : float, default 0.95
        Level of the shaded intervals.
    limits_method : str, optional
        The limits' interval (see :meth:`accord.BlandAltman.limits_interval`; by default
        ``"exact"``, or ``"mover"`` with repeated pairs per subject).
    ax : matplotlib Axes, optional
        Draw here; by default on a new figure.
    markers : int, default 5000
        Pairs drawn one marker each; more are drawn as a 2-D histogram of 80 x 80 bins,
        shaded by the pairs in each bin and rasterized (:func:`binned`).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    MissingDependencyError
        matplotlib is not installed (``pip install 'accord[report]'``).

    Examples
    --------
    >>> import accord
    >>> ba = accord.bland_altman([10.0, 12.1, 9.5, 14.0, 11.2], [10.4, 11.8, 9.9, 13.1, 11.0])
    >>> fig = accord.bland_altman_plot(ba)
    >>> fig.axes[0].get_xlabel()
    'mean of x and y'
    """
    result = one_pair(result, "bland_altman_plot")
    fig, ax = _axes(ax, (6.4, 4.2))
    log_y = result.scale == "ratio"
    _points(ax, result.means, result.differences, markers=markers, log_y=log_y)
    bias = result.confidence_interval(level)
    low, up = result.limits_interval(level, limits_method)
    pct = level_pct(level)
    _band(ax, result.bias, bias.low, bias.high, ACCENT, f"bias {result.bias:.4g}")
    _band(ax, result.lower, low.low, low.high, SECOND, f"limits {result.lower:.4g}")
    _band(ax, result.upper, up.low, up.high, SECOND, f"and {result.upper:.4g}")
    identity = 1.0 if result.scale == "ratio" else 0.0
    ax.axhline(identity, color=MUTED, lw=0.6)
    what = {
        "difference": f"{result.first} - {result.second}",
        "ratio": f"{result.first} / {result.second}",
        "percent": f"{result.first} - {result.second} (% of mean)",
    }[result.scale]
    if result.scale == "ratio":
        ax.set_yscale("log")
    ax.set_xlabel(f"mean of {result.first} and {result.second}")
    ax.set_ylabel(what)
    ax.set_title(f"{result.first} vs {result.second} (shaded: {pct} intervals)")
    ax.legend(loc="best", fontsize="small")
    return fig


def concordance_plot(
    result: BlandAltman | MethodComparison,
    concordance: ConcordanceCorrelation | None = None,
    *,
    ax: Any = None,
    markers: int = MARKERS,
) -> Any:
    """The pairs of two methods, one against the other, with the identity line ``y = x``.

    Parameters
    ----------
    result : BlandAltman
        From :func:`accord.bland_altman` (it holds the pairs).
    concordance : ConcordanceCorrelation, optional
        Its CCC goes in the title (:func:`accord.concordance_correlation` of the same pairs).
    ax : matplotlib Axes, optional
        Draw here; by default on a new figure.
    markers : int, default 5000
        Pairs drawn one marker each; more are drawn as a 2-D histogram of 80 x 80 bins,
        shaded by the pairs in each bin and rasterized (:func:`binned`).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import accord
    >>> x, y = [10.0, 12.1, 9.5, 14.0, 11.2], [10.4, 11.8, 9.9, 13.1, 11.0]
    >>> fig = accord.concordance_plot(accord.bland_altman(x, y),
    ...                               accord.concordance_correlation(x, y))
    >>> fig.axes[0].get_title()
    'x vs y: CCC 0.9346'
    """
    result = one_pair(result, "concordance_plot")
    fig, ax = _axes(ax, (4.6, 4.4))
    x, y = result.first_values, result.second_values
    _points(ax, x, y, markers=markers)
    both = np.concatenate([x, y])
    if both.size:
        lo, hi = float(both.min()), float(both.max())
        pad = 0.05 * (hi - lo or 1.0)
        ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color=MUTED, lw=1.0, label="y = x")
        ax.set_xlim(lo - pad, hi + pad)
        ax.set_ylim(lo - pad, hi + pad)
    ax.set_aspect("equal")
    ax.set_xlabel(result.first)
    ax.set_ylabel(result.second)
    title = f"{result.first} vs {result.second}"
    if concordance is not None:
        title += f": CCC {concordance.statistic:.4g}"
    ax.set_title(title)
    ax.legend(loc="upper left", fontsize="small")
    return fig


def bland_altman_svg(
    results: Sequence[BlandAltman], key: str, level: float = 0.95, columns: int = 3
) -> str:
    """The Bland-Altman plots of ``results`` side by side (``columns`` to a row), under the
    report's style, as inline SVG."""
    require("matplotlib", "report")
    ncols = max(1, min(columns, len(results)))
    nrows = math.ceil(len(results) / ncols)
    with report_style(key):
        fig = new_figure(7.2 if ncols > 1 else 6.0, (2.7 if ncols > 1 else 3.6) * nrows)
        axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
        for ax, result in zip(axes, results, strict=False):
            bland_altman_plot(result, level=level, ax=ax)
            ax.set_title(f"{result.first} - {result.second}")
            ax.set_ylabel("difference" if result.scale != "ratio" else "ratio")
            ax.set_xlabel("mean")
        for ax in axes[len(results) :]:
            ax.set_visible(False)
        fig.tight_layout()
        return to_svg(fig, key)
