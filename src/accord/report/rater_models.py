"""Figures of a rater model: each rater's accuracy with its interval, and the grid of the
raters' confusion matrices.

Each function takes a :class:`~accord.RaterModel` and returns a matplotlib ``Figure`` (drawn
on ``ax`` when one is given); the numbers drawn are the result's. matplotlib is the ``report``
extra, imported inside the functions.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._errors import InvalidInputError, require
from ..truth import RaterModel
from .figures import ACCENT, INK, new_figure, report_style, short

__all__ = ["confusion_grid", "rater_quality_plot"]


def _check(fit: Any, owner: str) -> RaterModel:
    if not isinstance(fit, RaterModel):
        raise InvalidInputError(f"{owner} takes a RaterModel; got {type(fit).__name__}")
    return fit


def rater_quality_plot(fit: RaterModel, *, ax: Any | None = None) -> Any:
    """Each rater's accuracy (the expected share of its labels that are right), with its
    bootstrap interval when the fit has one, least accurate at the bottom.

    >>> import numpy as np
    >>> from accord import rater_model_from_counts
    >>> n = np.zeros((6, 3, 2)); n[:3, :, 0] = 1; n[3:, :, 1] = 1; n[0, 2] = [0, 1]
    >>> fig = rater_quality_plot(rater_model_from_counts(n, n_bootstrap=20))
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['2', '0', '1']
    """
    fit = _check(fit, "rater_quality_plot")
    require("matplotlib", "report")
    table = fit.raters.sort_values("accuracy", kind="stable").reset_index(drop=True)
    with report_style("rater-quality"):
        if ax is None:
            ax = new_figure(6.0, 0.6 + 0.3 * len(table)).add_subplot(1, 1, 1)
        fig: Any = ax.figure
        y = np.arange(len(table))
        acc = table["accuracy"].to_numpy(dtype=np.float64)
        low = table["accuracy_low"].to_numpy(dtype=np.float64)
        high = table["accuracy_high"].to_numpy(dtype=np.float64)
        has = np.isfinite(low) & np.isfinite(high)
        if has.any():
            ax.hlines(y[has], low[has], high[has], color=INK, lw=1.5)
        ax.plot(acc, y, "o", color=ACCENT)
        ax.set_yticks(y, [short(r) for r in table["rater"]])
        ax.set_xlabel(f"accuracy ({fit.model})")
        ax.set_xlim(0, 1)
    return fig


def confusion_grid(fit: RaterModel, *, columns: int = 4) -> Any:
    """One small heat map per rater: rows the true label, columns the label given, the
    shade the probability (0 white, 1 dark), the value in each cell.

    >>> import numpy as np
    >>> from accord import rater_model_from_counts
    >>> n = np.zeros((6, 3, 2)); n[:3, :, 0] = 1; n[3:, :, 1] = 1
    >>> len(confusion_grid(rater_model_from_counts(n, n_bootstrap=0)).axes)
    3
    """
    fit = _check(fit, "confusion_grid")
    require("matplotlib", "report")
    n, q = fit.n_raters, len(fit.categories)
    cols = max(1, min(columns, n))
    rows = math.ceil(n / cols)
    labels = [short(c) for c in fit.categories]
    with report_style("confusion-grid"):
        fig = new_figure(2.2 * cols, 2.2 * rows)
        for k in range(n):
            ax = fig.add_subplot(rows, cols, k + 1)
            ax.imshow(fit.confusion[k], vmin=0, vmax=1, cmap="Greys")
            for c in range(q):
                for lab in range(q):
                    value = fit.confusion[k, c, lab]
                    ax.text(lab, c, f"{value:.2f}", ha="center", va="center", fontsize=7,
                            color="white" if value > 0.5 else INK)  # fmt: skip
            ax.set_xticks(range(q), labels, fontsize=7)
            ax.set_yticks(range(q), labels, fontsize=7)
            ax.set_title(short(fit.raters["rater"].iloc[k]), fontsize=8)
    return fig
