"""Do the raters rank the items alike? Kendall's coefficient of concordance W with its
chi-square and F tests and the mean Spearman correlation, for ordinal labels when every rater
rated every item (complete rankings). Present for such data in memory, with three raters or
more (for two, W is a linear function of their Spearman correlation)."""

from __future__ import annotations

from .._blocks import KeyFigure, KeyFigures, MethodNote, Section, fmt, fmt_int, fmt_p
from .._context import Context
from .common import REF

__all__ = ["build_ranks"]

TITLE = "Do the raters rank the items alike?"


def build_ranks(ctx: Context) -> Section | None:
    """Kendall's W of complete ordinal rankings (every rater rated every item)."""
    ratings = ctx.ratings
    if ratings is None or ctx.level != "ordinal" or ctx.multi_label:
        return None
    read = ratings.report
    if read.raters < 3 or read.items < 2 or read.ratings != read.items * read.raters:
        return None
    from ..._errors import InvalidInputError
    from ...agreement.rank import kendall_w

    try:
        w = ctx.cached("kendall_w", lambda: kendall_w(ratings))
    except InvalidInputError:  # labels that read as no numbers: no ranks
        return None
    lead = (
        f"Kendall's W = {fmt(w.statistic)} over {fmt_int(w.n_items)} items ranked by "
        f"{fmt_int(w.n_raters)} raters (chi-square({w.df}) = {fmt(w.chi_square)}, "
        f"{_p(w.pvalue)})."
    )
    figures = KeyFigures(
        (
            KeyFigure("Kendall's W", fmt(w.statistic), "1: the same ranking by every rater"),
            KeyFigure("mean Spearman", fmt(w.mean_spearman), "over the pairs of raters"),
            KeyFigure(
                "F test",
                f"F = {fmt(w.f_statistic)}",
                f"on {fmt(w.f_df1, 2)} and {fmt(w.f_df2, 2)} df, {_p(w.f_pvalue)}",
            ),
        )
    )
    note = MethodNote(
        "Kendall's W", f"{w.method}; accord.kendall_w.", (REF["kendall1939"], REF["legendre2005"])
    )
    return Section("ranks", TITLE, lead, (figures,), (note,))


def _p(value: float) -> str:
    """``p = 0.012`` or ``p < 0.001``."""
    shown = fmt_p(value)
    return f"p {shown}" if shown.startswith("<") else f"p = {shown}"
