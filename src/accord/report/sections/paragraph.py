"""The methods paragraph: what the methods section of a paper can say about this analysis,
ready to copy (the result's own ``methods_text()``), shown first in the methods section."""

from __future__ import annotations

from .._blocks import Block, CopyText, Paragraph
from .._context import Context
from .scores import panel_result

__all__ = ["methods_paragraph"]


def methods_paragraph(ctx: Context) -> list[Block]:
    """The methods paragraph of the agreement table (of the panel calibration for scores
    without labels) in a box that one click selects; nothing for other pages."""
    if ctx.has_labels:
        text = ctx.agreement_table().methods_text(level=ctx.confidence_level)
    elif ctx.scores and ctx.frame is not None and ctx.item and ctx.rater:
        text = panel_result(ctx, ctx.scores[0]).methods_text()
    else:
        return []
    return [
        Paragraph(
            "A methods paragraph for a paper, following the reporting guidelines of GRRAS "
            "(Kottner et al. 2011): the design, the coefficients and their variants, how the "
            "intervals were computed, missing ratings, the software and the references. "
            "Every number in it comes from this analysis. A click selects all of it."
        ),
        CopyText(text),
    ]
