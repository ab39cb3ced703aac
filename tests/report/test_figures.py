"""The report's figures: what they draw, and that their cost does not grow with the data."""

from __future__ import annotations

import base64
import io
import re

import numpy as np
import pytest

pytest.importorskip("matplotlib")


def _cells(svg: str) -> np.ndarray:
    """The pixels (RGBA, 0-255) of the one image embedded in ``svg``."""
    import matplotlib.image

    (data,) = re.findall(r'data:image/png;base64,\s*([A-Za-z0-9+/=\s]+)"', svg)
    pixels = matplotlib.image.imread(io.BytesIO(base64.b64decode(data)))
    return np.round(np.asarray(pixels) * 255).astype(int)


def test_heatmap_of_few_cells_is_vectors_with_their_values() -> None:
    from accord.report import figures

    matrix = np.array([[1.0, 0.25, np.nan], [0.25, 1.0, -0.5]])
    svg = figures.heatmap("t", matrix, ["a", "b"], ["a", "b", "c"], vmin=-1.0, vmax=1.0)
    assert "<image" not in svg  # the pages of small panels embed no bitmap
    assert all(f">{v}<" in svg for v in ("0.25", "1.00", "-0.50"))


@pytest.mark.parametrize("n", [17, 40])
def test_heatmap_of_many_cells_is_one_image_of_the_colormap(n: int) -> None:
    import matplotlib

    from accord.report import figures

    rng = np.random.default_rng(n)
    matrix = rng.uniform(-1.0, 1.0, (n, n + 1))
    matrix[1, 2] = np.nan
    labels = [f"rater-{i}" for i in range(n + 1)]
    svg = figures.heatmap("t", matrix, labels[:n], labels, vmin=-1.0, vmax=1.0, cmap="RdBu")
    # one pixel a cell, shown unsmoothed, not a vector square a cell
    assert n > figures.WRITTEN_CELLS and svg.count("<image") == 1
    assert "image-rendering:pixelated" in svg
    pixels = _cells(svg)
    assert pixels.shape == (n, n + 1, 4)
    # row 0 at the top, each cell the colour of its value (the colormap's 256 levels); the
    # undefined cell in the colour of "no value"
    colormap = matplotlib.colormaps["RdBu"]
    expected = np.round(colormap((matrix + 1.0) / 2.0) * 255).astype(int)
    expected[1, 2] = [245, 247, 250, 255]  # #f5f7fa
    assert np.abs(pixels - expected).max() <= 1
    assert f">{matrix[0, 0]:.2f}<" not in svg  # too many to write in


def test_heatmap_size_does_not_grow_with_its_cells() -> None:
    from accord.report import figures

    def size(n: int) -> int:
        m = np.random.default_rng(0).uniform(0.0, 1.0, (n, n))
        labels = [f"r{i}" for i in range(n)]
        return len(figures.heatmap("t", m, labels, labels, vmin=0.0, vmax=1.0, annotate=False))

    # a cell adds a pixel of PNG (a few bytes) and its tick labels; 1,600 vector squares
    # made 440 kB
    assert size(40) < 120_000
    assert size(40) - size(20) < 60_000
