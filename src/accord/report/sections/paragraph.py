"""The methods paragraph: what the methods section of a paper can say about this analysis,
ready to copy (the result's own ``methods_text()``), shown first in the methods section."""

from __future__ import annotations

from ..._methods import REFERENCES, agreement_methods_parts, paragraph
from ..._verdict import short_label
from .._blocks import Block, CopyText, Paragraph
from .._context import Context
from .common import coefficients, primary
from .scores import panel_result

__all__ = ["methods_paragraph"]


def methods_paragraph(ctx: Context) -> tuple[list[Block], list[str]]:
    """The methods paragraph of the coefficients the page shows, naming its headline (of
    the panel calibration for scores without labels) in a box that one click selects, and
    the references it cites in its order (full text); nothing for other pages."""
    keys: list[str] = []
    if ctx.has_labels:
        head = primary(ctx)
        sentences, keys = agreement_methods_parts(
            ctx.agreement_table(),
            ctx.confidence_level,
            coefficients=coefficients(ctx),
            headline=None if head is None else short_label(head),
        )
        text = paragraph(sentences, keys)
    elif ctx.scores and ctx.frame is not None and ctx.item and ctx.rater:
        text = panel_result(ctx, ctx.scores[0]).methods_text()
    else:
        return [], []
    blocks: list[Block] = [
        Paragraph(
            "A methods paragraph for a paper, following the reporting guidelines of GRRAS "
            "(Kottner et al. 2011): the design, the coefficients and their variants, how the "
            "intervals were computed, missing ratings, the software and the references. "
            "Every number in it comes from this analysis. A click selects all of it."
        ),
        CopyText(text),
    ]
    return blocks, [REFERENCES[k] for k in keys]
