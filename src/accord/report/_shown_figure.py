"""The figure accord's plots return: a matplotlib figure not registered with pyplot (drawing
one changes no global state, such as the backend a notebook chose) that a notebook shows
inline as a PNG, with or without ``%matplotlib inline``.

Imported only once matplotlib is known to be installed (:func:`accord.report.figures.new_figure`).
"""

from __future__ import annotations

import io

from matplotlib.figure import Figure


class ShownFigure(Figure):
    """A :class:`matplotlib.figure.Figure` that displays itself in a notebook (``_repr_png_``).

    >>> fig = ShownFigure(figsize=(2, 1))
    >>> fig._repr_png_()[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
    """

    def _repr_png_(self) -> bytes:
        buffer = io.BytesIO()
        self.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
        return buffer.getvalue()
