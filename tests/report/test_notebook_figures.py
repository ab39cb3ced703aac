"""The figures accord draws show in a notebook without ``%matplotlib inline`` (each is a PNG
through ``_repr_png_``, the hook IPython's display calls), and drawing one changes no global
matplotlib state: the backend a notebook chose and pyplot's list of figures stay as they were."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

import accord
from accord.datasets import path as data_path
from accord.report.figures import forest_plot

PNG = b"\x89PNG\r\n\x1a\n"


def _pefr() -> accord.Ratings:
    return accord.read_ratings(
        data_path("pefr.csv"), item="subject", rater="meter", label="pefr", level="ratio"
    )


def _figures() -> dict[str, object]:
    ba = accord.bland_altman(_pefr())
    x = np.array([10.0, 12.1, 9.5, 14.0, 11.2, 13.3, 8.7])
    y = np.array([10.4, 11.8, 9.9, 13.1, 11.0, 13.9, 8.1])
    fit = accord.passing_bablok(x, y)
    return {
        "bland_altman_plot": accord.bland_altman_plot(ba),
        "concordance_plot": accord.concordance_plot(ba),
        "regression_plot": accord.regression_plot(fit),
        "residual_plot": accord.residual_plot(fit),
    }


@pytest.mark.parametrize("name", ["bland_altman_plot", "concordance_plot", "regression_plot",
                                  "residual_plot"])  # fmt: skip
def test_a_plot_shows_itself_as_png(name: str) -> None:
    fig = _figures()[name]
    png = fig._repr_png_()  # type: ignore[attr-defined]
    assert png[:8] == PNG and len(png) > 1000


def test_drawing_changes_no_global_matplotlib_state() -> None:
    import matplotlib.pyplot as plt

    before = matplotlib.get_backend()
    plt.switch_backend("svg")  # a backend a user chose, not accord's
    try:
        opened = plt.get_fignums()
        _figures()
        svg = forest_plot("k", ["a", "b"], [0.5, 0.7], [0.4, 0.6], [0.6, 0.8])
        assert svg.lstrip().startswith("<svg") or "<svg" in svg[:400]
        assert matplotlib.get_backend() == "svg"
        assert plt.get_fignums() == opened
    finally:
        plt.switch_backend(before)
