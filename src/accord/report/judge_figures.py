"""Figures of a judge's bias and drift: matplotlib (Agg) drawn to inline SVG, in the style
and with the guarantees of :mod:`accord.report.figures` (the same input, the same bytes)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from .figures import ACCENT, SECOND, _finish, _floats, _panel

__all__ = ["drift_plot"]

#: The colours of the series, in order.
_COLOURS = (ACCENT, SECOND)


def drift_plot(
    key: str,
    windows: Sequence[str],
    series: Mapping[str, tuple[Sequence[float], Sequence[float], Sequence[float]]],
    *,
    ylabel: str = "agreement (95% interval)",
) -> str:
    """Agreement per time window, one line per series with its interval bars.

    Parameters
    ----------
    windows : sequence of str
        The windows' labels (their start), left to right.
    series : mapping of name to (estimates, lows, highs)
        One sequence per window each; NaN estimates leave a gap.
    """
    x = np.arange(len(windows), dtype=np.float64)
    with _panel(key, 7.2, 2.8) as (fig, ax, _):
        offsets = np.linspace(-0.08, 0.08, max(len(series), 1))
        for (name, values), colour, dx in zip(series.items(), _COLOURS, offsets, strict=False):
            est, lo, hi = _floats(*values)
            ax.plot(x + dx, est, "o-", color=colour, lw=1.6, ms=5, label=name, zorder=3)
            for xi, a, b in zip(x + dx, lo, hi, strict=True):
                if math.isfinite(a) and math.isfinite(b):
                    ax.plot([xi, xi], [a, b], color=colour, lw=1.2, zorder=2)
        ax.set_xticks(x, list(windows), rotation=30 if len(windows) > 6 else 0, ha="right"
                      if len(windows) > 6 else "center")  # fmt: skip
        ax.set_ylim(top=1.0)
        return _finish(
            fig,
            ax,
            key,
            xlabel="window (start)",
            ylabel=ylabel,
            legend={"loc": "lower left", "frameon": False},
            grid={"axis": "y"},
        )
