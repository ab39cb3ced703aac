"""Figures of the HTML report: matplotlib (Agg) drawn to inline SVG.

Each function takes numbers that come from result objects and returns SVG markup ready to
inline in the page: no XML prolog, no metadata, no date, ids that are unique per figure, and
a ``viewBox`` so the figure scales with the page. The same input always gives the same bytes
(``svg.hashsalt`` is fixed per figure, the ``Date`` metadata is dropped). Text stays text
(``svg.fonttype = "none"``); matplotlib escapes it, and math parsing is off so a label with a
dollar sign is shown as written.

matplotlib is imported inside the functions (the ``report`` extra).
"""

from __future__ import annotations

import contextlib
import io
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import require
from .._names import shown_name
from .._verdict import LANDIS_KOCH

__all__ = [
    "bar_with_errors",
    "dichotomization_plot",
    "forest_plot",
    "heatmap",
    "histogram",
    "kappa_curve",
    "reliability_plot",
    "value_plot",
]

INK = "#1f2933"
MUTED = "#616e7c"
GRID = "#e4e7eb"
ACCENT = "#2563eb"
SECOND = "#d97706"
GOOD = "#15803d"
POOR = "#b91c1c"

_STYLE = {
    "svg.fonttype": "none",
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans", "Liberation Sans", "Arial"],
    "font.size": 9.0,
    "axes.edgecolor": MUTED,
    "axes.labelcolor": INK,
    "axes.titlesize": 10.0,
    "axes.titleweight": "bold",
    "axes.titlecolor": INK,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.linewidth": 0.8,
    "xtick.color": MUTED,
    "ytick.color": MUTED,
    "xtick.labelcolor": INK,
    "ytick.labelcolor": INK,
    "legend.frameon": False,
    "text.parse_math": False,
    "figure.dpi": 72.0,
    "savefig.transparent": False,
    "path.simplify": True,
}

_LABEL_MAX = 28


def short(label: Any, limit: int = _LABEL_MAX) -> str:
    """A label for a tick: bidirectional controls shown as escapes, then cut to ``limit``
    characters with an ellipsis (:func:`accord._names.shown_name`)."""
    return shown_name(label, limit)


@contextlib.contextmanager
def report_style(key: str) -> Iterator[None]:
    """matplotlib under the report's style, ``key`` salting the SVG hashes (the same figure,
    the same bytes)."""
    require("matplotlib", "report")
    import matplotlib

    style: Any = {**_STYLE, "svg.hashsalt": f"accord-{key}"}
    with matplotlib.rc_context(style):
        yield


def new_figure(width: float, height: float) -> Any:
    """A new figure of ``width`` x ``height`` inches, not registered with pyplot (nothing
    global changes: a notebook keeps its backend), that a notebook shows inline."""
    require("matplotlib", "report")
    from ._shown_figure import ShownFigure

    return ShownFigure(figsize=(width, height))


@contextlib.contextmanager
def _figure(key: str, width: float, height: float) -> Iterator[tuple[Any, Any]]:
    """A new figure (inches) under the report style (:func:`report_style`), and the matplotlib
    module (its ``colormaps``)."""
    import matplotlib

    with report_style(key):
        yield new_figure(width, height), matplotlib


@contextlib.contextmanager
def _panel(key: str, width: float, height: float) -> Iterator[tuple[Any, Any, Any]]:
    """A figure of one plot (:func:`_figure`): the figure, its axes and matplotlib."""
    with _figure(key, width, height) as (fig, mpl):
        yield fig, fig.add_subplot(1, 1, 1), mpl


@contextlib.contextmanager
def _row_panel(
    key: str, n: int, per_row: float, margin: float
) -> Iterator[tuple[Any, Any, npt.NDArray[np.int_]]]:
    """A plot of ``n`` rows, the first at the top, ``per_row`` inches a row plus ``margin``:
    the figure, its axes and each row's y position."""
    with _panel(key, 7.2, per_row * n + margin) as (fig, ax, _):
        yield fig, ax, np.arange(n)[::-1]


def _floats(*values: npt.ArrayLike) -> list[npt.NDArray[np.float64]]:
    """Each of ``values`` as an array of floats."""
    return [np.asarray(v, dtype=np.float64) for v in values]


_ID = re.compile(r'\sid="([^"]+)"')
_REF = re.compile(r'(?:url\(#|href="#)([^)"]+)')


def to_svg(fig: Any, key: str) -> str:
    """Inline SVG markup of ``fig``: no prolog or metadata, ids prefixed by ``key``."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, flags=re.S)
    referenced = set(_REF.findall(text))
    prefix = re.sub(r"[^A-Za-z0-9_-]", "-", key)

    def rename(match: re.Match[str]) -> str:
        name = match.group(1)
        return f' id="{prefix}-{name}"' if name in referenced else ""

    text = _ID.sub(rename, text)
    text = re.sub(r'(url\(#|href="#)([^)"]+)', lambda m: f"{m.group(1)}{prefix}-{m.group(2)}", text)
    size = re.search(r'<svg[^>]*?\swidth="([0-9.]+)pt"', text)
    natural = f' style="max-width: {float(size.group(1)) * 4 / 3:.0f}px"' if size else ""
    text = re.sub(
        r'<svg([^>]*?)\swidth="[^"]*"\sheight="[^"]*"',
        rf'<svg\1 class="fig"{natural}',
        text,
        count=1,
    )
    return text.replace('<svg xmlns:xlink="http://www.w3.org/1999/xlink"', "<svg", 1).strip()


def _finite(values: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    return np.isfinite(np.asarray(values, dtype=np.float64))


# ------------------------------------------------------------------------ figures


def _grid(ax: Any, **grid: Any) -> None:
    """Light grid lines behind what ``ax`` plots (``grid``: which axis, their layer)."""
    ax.grid(color=GRID, lw=0.6, **grid)
    ax.set_axisbelow(True)


def _finish(
    fig: Any,
    ax: Any,
    key: str,
    *,
    xlabel: str | None = None,
    ylabel: str | None = None,
    legend: Mapping[str, Any] | None = None,
    grid: Mapping[str, Any] | None = None,
) -> str:
    """The figure as SVG (:func:`to_svg`), laid out tight, once its axes are labelled, its
    legend placed (``legend``: where and how) and light grid lines drawn behind what it
    plots (``grid``: which axis, their layer; None: no grid)."""
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    if legend is not None:
        ax.legend(**legend)
    if grid is not None:
        _grid(ax, **grid)
    fig.tight_layout()
    return to_svg(fig, key)


def _row_labels(
    ax: Any, y: Any, labels: Sequence[Any], *, limit: int, ylim: tuple[float, float], **text: Any
) -> None:
    """One row of the plot per label, the first at the top: its (shortened) label beside it
    without a tick mark (``text``: the labels' font properties), the rows within ``ylim``."""
    ax.set_yticks(y)
    ax.set_yticklabels([short(x, limit) for x in labels], **text)
    ax.set_ylim(*ylim)
    ax.tick_params(axis="y", length=0)


def forest_plot(
    key: str,
    labels: Sequence[str],
    estimates: Sequence[float],
    lows: Sequence[float],
    highs: Sequence[float],
    *,
    xlabel: str = "coefficient (95% interval)",
    benchmarks: bool = True,
) -> str:
    """Point estimates with interval bars, one row per coefficient, top to bottom.

    Parameters
    ----------
    labels, estimates, lows, highs : sequences of the same length
        Undefined (NaN) estimates are drawn as an empty row marked "undefined".
    benchmarks : bool
        Shade the Landis & Koch (1977) bands behind the points.
    """
    n = len(labels)
    est, lo, hi = _floats(estimates, lows, highs)
    with _row_panel(key, n, 0.42, 1.0) as (fig, ax, y):
        finite = np.concatenate([est[_finite(est)], lo[_finite(lo)], hi[_finite(hi)]])
        left = min(0.0, float(finite.min()) - 0.05) if finite.size else 0.0
        left = max(left, -1.0)
        ax.set_xlim(left, 1.0)
        if benchmarks:
            edges = [e for e, _ in LANDIS_KOCH] + [1.0]
            for i, (edge, name) in enumerate(LANDIS_KOCH):
                shade = "#f5f7fa" if i % 2 == 0 else "#ffffff"
                ax.axvspan(edge, edges[i + 1], color=shade, zorder=0, lw=0)
                ax.text(
                    (edge + edges[i + 1]) / 2,
                    n - 0.35,
                    name,
                    ha="center",
                    va="bottom",
                    fontsize=7.5,
                    color=MUTED,
                )
        ax.axvline(0.0, color=MUTED, lw=0.8, zorder=1)
        for yi, e, a, b in zip(y, est, lo, hi, strict=True):
            if math.isfinite(a) and math.isfinite(b):
                ax.plot([a, b], [yi, yi], color=ACCENT, lw=2.2, solid_capstyle="butt", zorder=2)
            if math.isfinite(e):
                ax.plot([e], [yi], "o", color=ACCENT, ms=6.5, mec="white", mew=1.2, zorder=3)
            else:
                ax.text(max(left, 0.0) + 0.01, yi, "undefined", va="center", color=POOR, fontsize=8)
        _row_labels(ax, y, labels, limit=40, ylim=(-0.7, n - 0.1 + (0.45 if benchmarks else 0.0)))
        ax.spines["left"].set_visible(False)
        return _finish(fig, ax, key, xlabel=xlabel, grid={"axis": "x", "zorder": 0})


def _cells(ax: Any, shown: Any, colormap: Any, vmin: float, vmax: float, *, vector: bool) -> Any:
    """The cells of a heatmap of ``shown`` (masked where undefined), row 0 at the top:
    vector squares with white edges, or (``vector=False``) one image of a pixel a cell,
    unsampled, with white lines between the cells. Returns what the colorbar reads."""
    rows, cols = shown.shape
    if vector:
        return ax.pcolormesh(
            np.arange(cols + 1) - 0.5,
            np.arange(rows + 1) - 0.5,
            shown,
            cmap=colormap,
            vmin=vmin,
            vmax=vmax,
            edgecolors="white",
            linewidth=0.6,
        )
    image = ax.imshow(
        shown,
        cmap=colormap,
        vmin=vmin,
        vmax=vmax,
        interpolation="none",
        aspect="auto",
        extent=(-0.5, cols - 0.5, rows - 0.5, -0.5),
    )
    ax.vlines(np.arange(1, cols) - 0.5, -0.5, rows - 0.5, colors="white", lw=0.6)
    ax.hlines(np.arange(1, rows) - 0.5, -0.5, cols - 0.5, colors="white", lw=0.6)
    return image


#: Most rows or columns of a heatmap whose cells are vector squares with their values
#: written in (beyond, one image of a pixel a cell).
WRITTEN_CELLS = 16


def heatmap(
    key: str,
    matrix: npt.ArrayLike,
    row_labels: Sequence[Any],
    col_labels: Sequence[Any],
    *,
    vmin: float,
    vmax: float,
    cmap: str = "RdBu",
    colorbar_label: str = "",
    xlabel: str = "",
    ylabel: str = "",
    annotate: bool = True,
    digits: int = 2,
    integer: bool = False,
) -> str:
    """A matrix as coloured cells with their values written in (NaN cells left blank).

    Up to :data:`WRITTEN_CELLS` rows and columns the cells are vector squares with their
    values written in. Beyond, where the values are no longer written, they are one image
    of a pixel a cell, drawn unsampled and scaled without smoothing (crisp at any zoom, each
    cell exactly its colour), with white lines between them: at 40 x 40 raters 0.12 s and
    95 kB of page, where vector squares took 0.17 s and 440 kB."""
    m = np.asarray(matrix, dtype=np.float64)
    rows, cols = m.shape
    cell = 0.62 if max(rows, cols) <= 12 else max(0.18, 6.5 / max(rows, cols))
    width = min(9.0, cols * cell + 2.6)
    height = min(9.0, rows * cell + 1.6)
    written = max(rows, cols) <= WRITTEN_CELLS
    with _panel(key, width, height) as (fig, ax, mpl):
        colormap = mpl.colormaps[cmap].with_extremes(bad="#f5f7fa")
        image = _cells(ax, np.ma.masked_invalid(m), colormap, vmin, vmax, vector=written)
        ax.set_xlim(-0.5, cols - 0.5)
        ax.set_ylim(rows - 0.5, -0.5)
        ax.set_xticks(np.arange(cols))
        ax.set_yticks(np.arange(rows))
        fs = 8.0 if max(rows, cols) <= 12 else 6.5
        tilt = max((len(str(c)) for c in col_labels), default=0) > 3
        ax.set_xticklabels(
            [short(c, 18) for c in col_labels],
            rotation=45 if tilt else 0,
            ha="right" if tilt else "center",
            fontsize=fs,
        )
        ax.set_yticklabels([short(r, 24) for r in row_labels], fontsize=fs)
        ax.tick_params(length=0)
        for side in ("left", "bottom"):
            ax.spines[side].set_visible(False)
        if annotate and written:
            for i in range(rows):
                for j in range(cols):
                    v = m[i, j]
                    if not math.isfinite(v):
                        continue
                    r, g, b, _ = colormap(image.norm(v))
                    dark = 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.5
                    text = f"{round(v)}" if integer else f"{v:.{digits}f}"
                    ax.text(
                        j,
                        i,
                        text,
                        ha="center",
                        va="center",
                        fontsize=7.5,
                        color="white" if dark else INK,
                    )
        bar = fig.colorbar(image, ax=ax, fraction=0.046, pad=0.03)
        bar.outline.set_visible(False)
        if bar.solids is not None:
            bar.solids.set_rasterized(False)  # vector, not an embedded PNG
            bar.solids.set_edgecolor("face")
        bar.ax.tick_params(labelsize=7.5, length=2)
        if colorbar_label:
            bar.set_label(colorbar_label)
        return _finish(fig, ax, key, xlabel=xlabel or None, ylabel=ylabel or None)


def histogram(
    key: str,
    values: npt.ArrayLike,
    *,
    bins: npt.ArrayLike | int,
    xlabel: str,
    ylabel: str = "items",
    marker: float | None = None,
    marker_label: str = "",
) -> str:
    """A histogram of ``values`` (NaN left out) with an optional vertical marker."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    with _panel(key, 7.2, 2.6) as (fig, ax, _):
        ax.hist(v, bins=bins, color=ACCENT, alpha=0.85, edgecolor="white", linewidth=0.8)
        if marker is not None and math.isfinite(marker):
            ax.axvline(marker, color=SECOND, lw=1.6, ls="--")
            top = ax.get_ylim()[1]
            ax.text(
                marker,
                top * 0.97,
                f" {marker_label}",
                color=SECOND,
                va="top",
                fontsize=8,
                bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.0, "alpha": 0.9},
            )
        return _finish(fig, ax, key, xlabel=xlabel, ylabel=ylabel, grid={"axis": "y"})


def kappa_curve(
    key: str,
    d: npt.ArrayLike,
    kappa: npt.ArrayLike,
    *,
    psa: float,
    observed_d: float,
    observed_kappa: float,
) -> str:
    """Cohen's kappa against the number of negatives (log axis), with PSA as its limit."""
    x, k = _floats(d, kappa)
    keep = (x > 0) & np.isfinite(k)
    with _panel(key, 7.2, 2.8) as (fig, ax, _):
        ax.plot(x[keep], k[keep], color=ACCENT, lw=2, label="Cohen's kappa")
        ax.set_xscale("log")
        if math.isfinite(psa):
            ax.axhline(psa, color=SECOND, ls="--", lw=1.4, label=f"PSA (F1) = {psa:.3f}")
        if math.isfinite(observed_d) and observed_d > 0 and math.isfinite(observed_kappa):
            ax.plot([observed_d], [observed_kappa], "o", color=INK, ms=6, zorder=4)
            ax.annotate(
                f"observed: d = {observed_d:g}, kappa = {observed_kappa:.3f}",
                (observed_d, observed_kappa),
                textcoords="offset points",
                xytext=(8, -14),
                fontsize=8,
                color=INK,
            )
        from matplotlib.ticker import FuncFormatter, NullFormatter

        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
        return _finish(
            fig,
            ax,
            key,
            xlabel="d: items both raters call negative (log scale)",
            ylabel="agreement",
            legend={"loc": "lower right"},
            grid={},
        )


def dichotomization_plot(
    key: str,
    splits: Sequence[str],
    kappa: Sequence[float],
    ia: Sequence[float],
    *,
    best: int | None,
) -> str:
    """Kappa and IA at each cut of an ordered scale, side by side; the best cut marked."""
    n = len(splits)
    x = np.arange(n)
    w = 0.38
    with _panel(key, 7.2, 2.8) as (fig, ax, _):
        k, i = (np.nan_to_num(a) for a in _floats(kappa, ia))
        ax.bar(x - w / 2, k, w, color=ACCENT, label="Cohen's kappa")
        ax.bar(x + w / 2, i, w, color=SECOND, label="informational agreement")
        for xi, a, b in zip(x, k, i, strict=True):
            ax.text(xi - w / 2, a + 0.015, f"{a:.3f}", ha="center", va="bottom", fontsize=7.5)
            ax.text(xi + w / 2, b + 0.015, f"{b:.3f}", ha="center", va="bottom", fontsize=7.5)
        if best is not None:
            ax.axvspan(best - 0.5, best + 0.5, color="#eef2ff", zorder=0)
        ax.set_xticks(x)
        ax.set_xticklabels([short(s, 20) for s in splits])
        ax.set_ylim(min(0.0, float(np.min(np.r_[k, i]))), 1.22)
        return _finish(
            fig,
            ax,
            key,
            xlabel="cut: low | high",
            ylabel="agreement on the 2 x 2 table",
            legend={"loc": "upper right", "ncol": 2},
            grid={"axis": "y"},
        )


def value_plot(
    key: str,
    labels: Sequence[Any],
    values: Sequence[float],
    sds: Sequence[float],
    baseline: Sequence[float],
    *,
    xlabel: str,
) -> str:
    """Calibrated values with 95% bars (1.96 posterior SD) beside the plain means."""
    n = len(labels)
    v, s, b = _floats(values, sds, baseline)
    with _row_panel(key, n, 0.26, 1.2) as (fig, ax, y):
        half = np.where(np.isfinite(s), 1.96 * s, 0.0)
        ax.errorbar(
            v,
            y,
            xerr=half,
            fmt="o",
            color=ACCENT,
            ms=4.5,
            lw=1.4,
            capsize=0,
            label="calibrated value, 95% interval",
        )
        ax.plot(b, y, "|", color=SECOND, ms=9, mew=1.6, label="plain mean")
        _row_labels(ax, y, labels, limit=24, ylim=(-0.8, n - 0.2), fontsize=7.5)
        legend = {"loc": "lower right", "fontsize": 7.5}
        return _finish(fig, ax, key, xlabel=xlabel, legend=legend, grid={"axis": "x"})


def bar_with_errors(
    key: str,
    labels: Sequence[Any],
    values: Sequence[float],
    sds: Sequence[float] | None,
    *,
    xlabel: str,
    lows: Sequence[float] | None = None,
    highs: Sequence[float] | None = None,
) -> str:
    """Horizontal bars (e.g. rater biases) with 95% bars (1.96 ``sds``, or the interval
    ``lows`` to ``highs`` when given), centred on zero."""
    n = len(labels)
    v = np.asarray(values, dtype=np.float64)
    with _row_panel(key, n, 0.3, 1.1) as (fig, ax, y):
        colors = [POOR if x > 0 else ACCENT for x in np.nan_to_num(v)]
        if lows is not None and highs is not None:
            lo, hi = _floats(lows, highs)
            ok = np.isfinite(lo) & np.isfinite(hi)
            err = np.vstack([np.where(ok, v - lo, 0.0), np.where(ok, hi - v, 0.0)])
        else:
            s = np.asarray(sds, dtype=np.float64)
            err = np.where(np.isfinite(s), 1.96 * s, 0.0)
        ax.barh(y, np.nan_to_num(v), color=colors, alpha=0.85, height=0.6)
        ax.errorbar(v, y, xerr=err, fmt="none", ecolor=INK, lw=1.0, capsize=2)
        ax.axvline(0.0, color=MUTED, lw=0.8)
        _row_labels(ax, y, labels, limit=24, ylim=(-0.7, n - 0.3), fontsize=8)
        return _finish(fig, ax, key, xlabel=xlabel, grid={"axis": "x"})


def reliability_plot(
    key: str,
    mean_confidence: Sequence[float],
    accuracy: Sequence[float],
    ci_low: Sequence[float],
    ci_high: Sequence[float],
    counts: Sequence[float],
    edges: Sequence[float],
) -> str:
    """Reliability diagram: accuracy against mean confidence per bin (Wilson bars), the
    diagonal of perfect calibration, and the number of units per bin underneath."""
    conf, acc, lo, hi, cnt, e = _floats(mean_confidence, accuracy, ci_low, ci_high, counts, edges)
    ok = np.isfinite(conf) & np.isfinite(acc)
    with _figure(key, 5.2, 5.0) as (fig, _):
        grid = fig.add_gridspec(2, 1, height_ratios=[4, 1], hspace=0.08)
        ax = fig.add_subplot(grid[0])
        ax.plot([0, 1], [0, 1], color=MUTED, ls="--", lw=1, label="perfect calibration")
        ax.errorbar(
            conf[ok],
            acc[ok],
            yerr=np.clip(np.vstack([acc[ok] - lo[ok], hi[ok] - acc[ok]]), 0.0, None),
            fmt="o-",
            color=ACCENT,
            ms=5,
            lw=1.4,
            capsize=2,
            label="observed accuracy (Wilson 95%)",
        )
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
        ax.set_ylabel("proportion correct")
        ax.tick_params(labelbottom=False)
        _grid(ax)
        ax.legend(loc="upper left", fontsize=7.5)
        below = fig.add_subplot(grid[1], sharex=ax)
        widths = np.diff(e) if e.size == cnt.size + 1 else np.full(cnt.size, 1.0 / max(cnt.size, 1))
        lefts = e[:-1] if e.size == cnt.size + 1 else np.arange(cnt.size) * widths
        below.bar(lefts, cnt, widths, align="edge", color=ACCENT, alpha=0.5, edgecolor="white")
        below.set_ylabel("units", fontsize=8)
        below.set_xlabel("mean confidence")
        below.tick_params(labelsize=7.5)
        fig.subplots_adjust(left=0.13, right=0.97, top=0.97, bottom=0.1)
        return to_svg(fig, key)


def class_bars(
    key: str,
    labels: Sequence[Any],
    shares: npt.ArrayLike,
    classes: Sequence[str],
) -> str:
    """Stacked horizontal bars: each row's shares over ordered classes (good to very poor).

    Each class's bars are one collection of rectangles (not one patch a bar: 40 raters in
    four classes drew 160 patches, a quarter of the figure's time), with a square of its
    colour in the legend."""
    from matplotlib.collections import PolyCollection
    from matplotlib.patches import Patch

    s = np.nan_to_num(np.asarray(shares, dtype=np.float64))
    n = len(labels)
    palette = ["#15803d", "#84cc16", "#f59e0b", "#b91c1c"]
    with _row_panel(key, n, 0.3, 1.2) as (fig, ax, y):
        left = np.zeros(n)
        low, high = y - 0.31, y + 0.31
        handles = []
        for j, name in enumerate(classes):
            right = left + s[:, j]
            corners = np.stack(
                [np.c_[left, low], np.c_[right, low], np.c_[right, high], np.c_[left, high]],
                axis=1,
            )
            color = palette[j % 4]
            ax.add_collection(PolyCollection(list(corners), facecolors=color, edgecolors="none"))
            handles.append(Patch(facecolor=color, edgecolor="none", label=name))
            left = right
        _row_labels(ax, y, labels, limit=24, ylim=(-0.7, n - 0.3), fontsize=8)
        ax.set_xlim(0, 1)
        legend = {
            "handles": handles,
            "loc": "lower left",
            "bbox_to_anchor": (0.0, 1.0),
            "ncol": 4,
            "fontsize": 8,
            "borderaxespad": 0.3,
        }
        return _finish(fig, ax, key, xlabel="share of the rater's ratings", legend=legend)
