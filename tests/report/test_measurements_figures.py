"""Figures of a method comparison, and the report's method-comparison section."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

import accord

pytest.importorskip("matplotlib")

WRIGHT = [494, 395, 516, 434, 476, 557, 413, 442, 650, 433, 417, 656, 267, 478, 178, 423, 427]
MINI = [512, 430, 520, 428, 500, 600, 364, 380, 658, 445, 432, 626, 260, 477, 259, 350, 451]


def _hlines(ax: object) -> list[float]:
    return sorted(
        float(line.get_ydata()[0])  # type: ignore[attr-defined]
        for line in ax.get_lines()  # type: ignore[attr-defined]
        if len(set(np.asarray(line.get_ydata(), dtype=float))) == 1
    )


def test_bland_altman_plot_draws_the_results_numbers() -> None:
    ba = accord.bland_altman(WRIGHT, MINI)
    fig = accord.bland_altman_plot(ba)
    ax = fig.axes[0]
    assert_allclose(_hlines(ax), sorted([ba.lower, 0.0, ba.bias, ba.upper]))
    points = ax.collections[0].get_offsets()
    assert_allclose(points[:, 0], (np.add(WRIGHT, MINI)) / 2)
    assert_allclose(points[:, 1], np.subtract(WRIGHT, MINI))
    spans = sorted(tuple(p.get_extents().bounds) for p in ax.patches)
    assert len(spans) == 3  # the bias's and the two limits' intervals
    assert ax.get_ylabel() == "x - y"


def test_ratio_plot_is_on_a_log_axis_around_one() -> None:
    ba = accord.bland_altman(WRIGHT, MINI, scale="ratio")
    ax = accord.bland_altman_plot(ba).axes[0]
    assert ax.get_yscale() == "log"
    assert 1.0 in _hlines(ax)


def test_concordance_plot_has_the_identity_line() -> None:
    ba = accord.bland_altman(WRIGHT, MINI)
    ccc = accord.concordance_correlation(WRIGHT, MINI)
    ax = accord.concordance_plot(ba, ccc).axes[0]
    line = ax.get_lines()[0]
    assert_allclose(line.get_xdata(), line.get_ydata())
    assert_allclose(ax.collections[0].get_offsets(), np.column_stack([WRIGHT, MINI]))
    assert f"{ccc.statistic:.4g}" in ax.get_title()


def test_plots_draw_on_a_given_axes() -> None:
    from matplotlib.figure import Figure

    fig = Figure()
    left, right = fig.subplots(1, 2)
    ba = accord.bland_altman(WRIGHT, MINI)
    assert accord.bland_altman_plot(ba, ax=left) is fig
    assert accord.concordance_plot(ba, ax=right) is fig


def test_report_has_a_method_comparison_section_for_measurements() -> None:
    ratings = accord.datasets.load_pefr()
    page = accord.report(ratings, progress=False)
    assert "method-comparison" in page.sections
    ba = accord.bland_altman(ratings).limits[0]
    assert "Bland-Altman plots of Wright - mini-Wright" in page.html
    assert f"{ba.lower:.3f}" in page.html or f"{ba.lower:.4g}" in page.html
    assert "Carkeet" in page.html and "Lin, L. I.-K. (1989)" in page.html


def test_report_on_labels_has_no_method_comparison() -> None:
    page = accord.report(accord.datasets.load_diagnoses(), progress=False)
    assert "method-comparison" not in page.sections


def test_report_says_why_when_a_pair_cannot_be_compared() -> None:
    ratings = accord.Ratings.from_wide(
        np.array([[1.0, 2.0, math.nan], [2.0, 2.5, math.nan], [3.0, math.nan, 3.5],
                  [4.0, 4.2, math.nan]]),
        level="interval",
    )  # fmt: skip
    page = accord.report(ratings, progress=False)
    assert "method-comparison" in page.sections
    with pytest.warns(accord.DegenerateDataWarning, match="at least 2 pairs measured by both"):
        comparison = accord.bland_altman(ratings)
    undefined = [ba for ba in comparison.limits if ba.reason]
    assert [(ba.first, ba.second) for ba in undefined] == [("0", "2"), ("1", "2")]
    assert all(math.isnan(ba.bias) for ba in undefined)
    assert "at least 2 pairs measured by both 0 and 2" in page.html


# ------------------------------------------------------------- figures of fixed cost


def _scores(n: int, seed: int = 7) -> object:
    """``n`` items scored by two raters: a true value and noise each (seeded)."""
    import pandas as pd

    gen = np.random.default_rng(seed)
    truth = gen.normal(50.0, 10.0, n)
    return pd.DataFrame(
        {
            "item": np.repeat(np.arange(n), 2),
            "rater": np.tile(["a", "b"], n),
            "score": np.repeat(truth, 2) + gen.normal(0.0, 2.0, 2 * n),
        }
    )


#: A point of a scatter in matplotlib's SVG: a <use> of the marker in the ink colour (the
#: ticks are <use>s in the muted colour).
POINT = 'style="fill: #1f2933; fill-opacity: 0.75"'


def _figure_of(html: str) -> str:
    section = html[html.index('id="method-comparison"') :]
    return section[section.index("<svg") : section.index("</svg>")]


def test_small_report_draws_one_marker_per_pair() -> None:
    page = accord.report(
        _scores(300), item="item", rater="rater", label="score", level="interval",
        progress=False,
    )  # fmt: skip
    svg = _figure_of(page.html)
    assert svg.count(POINT) == 300
    assert "<image" not in svg
    assert "binned" not in page.html
    assert "Passing-Bablok regression (the line relating" in page.html
    assert "Passing-Bablok regression left out" not in page.html


def test_large_report_bins_the_pairs_and_stays_small() -> None:
    n = 50_000
    page = accord.report(
        _scores(n), item="item", rater="rater", label="score", level="interval",
        progress=False,
    )  # fmt: skip
    svg = _figure_of(page.html)
    assert POINT not in svg  # no marker per pair: one rasterized image
    assert svg.count("<image") == 1
    assert len(page.html.encode()) < 1_000_000  # a marker per pair: about 6 MB
    assert "beyond 5,000 pairs, the pairs are binned" in (page.html)
    assert f"a - b: {n:,} pairs binned" in page.html
    # Passing-Bablok's exact slope selection is left out beyond 20,000 pairs, saying so
    assert f"Passing-Bablok regression left out: {n:,} pairs of scores" in page.html
    assert "accord compare --method passing-bablok fits them" in page.html
    assert "Passing-Bablok regression (the line relating" not in page.html


def test_binned_plots_count_every_pair() -> None:
    from accord.report.measurements import bland_altman_plot, concordance_plot

    gen = np.random.default_rng(3)
    x = gen.normal(10.0, 1.0, 6_000)
    y = x + gen.normal(0.0, 0.5, x.size)
    ba = accord.bland_altman(x, y)
    drawn = {"bland-altman": (bland_altman_plot(ba), (x + y) / 2, x - y),
             "concordance": (concordance_plot(ba), x, y)}  # fmt: skip
    for fig, along, up in drawn.values():
        # bins of equal widths: one image, no mesh of 6,400 paths (the legend's "best"
        # placement walked every path of a mesh: 46 ms a figure)
        assert not fig.axes[0].collections
        image = fig.axes[0].images[0]
        assert image.get_rasterized()
        assert np.nansum(image.get_array()) == x.size  # each pair in one bin
        peer = np.histogram2d(along, up, bins=80)[0].T  # numpy's counts, empty bins blank
        assert np.array_equal(np.ma.filled(image.get_array(), 0.0), peer)
        assert np.ma.getmaskarray(image.get_array()).sum() == (peer == 0).sum()
    ratio = bland_altman_plot(accord.bland_altman(x, y, scale="ratio")).axes[0]
    assert ratio.get_yscale() == "log"
    assert np.nansum(ratio.collections[0].get_array()) == x.size
    assert len(bland_altman_plot(ba, markers=10_000).axes[0].collections[0].get_offsets()) == (
        x.size
    )


def test_figures_take_the_comparison_of_ratings_of_one_pair() -> None:
    # bland_altman(ratings) gives a comparison; with one pair the figures draw that pair (it
    # raised AttributeError), with several they say which to pass, in one line.
    two = accord.Ratings.from_wide([[1.0, 1.2], [2.0, 2.1], [3.0, 2.7], [4.0, 4.4]],
                                   level="interval")  # fmt: skip
    comparison = accord.bland_altman(two)
    for plot in (accord.bland_altman_plot, accord.concordance_plot):
        drawn = plot(comparison)
        direct = plot(comparison.limits[0])
        assert drawn.axes[0].get_title() == direct.axes[0].get_title()
    three = accord.Ratings.from_wide([[1.0, 1.2, 0.9], [2.0, 2.1, 2.2], [3.0, 2.7, 3.1]],
                                     level="interval")  # fmt: skip
    with pytest.raises(accord.InvalidInputError, match=r"holds 3 .*comparison.limits\[0\]"):
        accord.bland_altman_plot(accord.bland_altman(three))
    with pytest.raises(accord.InvalidInputError, match=r"needs the result of accord\.bland_altman"):
        accord.bland_altman_plot([1, 2, 3])  # type: ignore[arg-type]


def test_binned_counts_are_numpys_histogram2d() -> None:
    # The 2-D histogram is counted by one multiplication a value (then moved by one bin
    # where rounding crossed an edge); numpy.histogram2d is the peer: the same counts and
    # edges, on values that fall on the edges too (rounded, integers, one value), and on
    # log-spaced bins.
    from accord.report.measurements import BINS, binned_counts

    gen = np.random.default_rng(11)
    cases = []
    for n in (2, 7, 300, 6_000):
        x = gen.normal(gen.uniform(-1e3, 1e3), gen.uniform(1e-6, 1e3), n)
        y = gen.normal(0.0, 1.0, n)
        cases += [(x, y, False), (np.round(x, 1), np.round(y, 1), False)]
        cases += [(gen.integers(0, 7, n) * 1.0, gen.integers(-3, 3, n) * 0.25, False)]
        cases += [(x, np.exp(y), True)]
    cases.append((np.full(10, 3.0), np.linspace(0.0, 1.0, 10), False))
    for x, y, log in cases:
        counts, xe, ye = binned_counts(x, y, log_y=log)
        ybins = np.geomspace(y.min(), max(y.max(), y.min() * 1.01), BINS + 1) if log else BINS
        peer, px, py = np.histogram2d(x, y, bins=(BINS, ybins))
        assert np.array_equal(counts, peer)
        assert np.array_equal(xe, px) and np.array_equal(ye, py)
