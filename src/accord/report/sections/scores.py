"""Panel calibration of each score column: calibrated values and rater biases."""

from __future__ import annotations

import functools
import math
from typing import Any

from ..._validate import counted
from ..._verdict import bias_spread
from .. import figures
from .._blocks import (
    Block,
    Column,
    Details,
    Figure,
    KeyFigure,
    KeyFigures,
    MethodNote,
    Section,
    Table,
    fmt,
    fmt_int,
)
from .._context import Context, SectionUnavailable
from .common import REF

__all__ = ["build_scores", "panel_result"]

#: Items and raters shown in a figure.
LIMIT = 40

_TWO = functools.partial(fmt, digits=2)  # two decimals: biases and their spread


def panel_result(ctx: Context, column: str) -> Any:
    """``accord.calibrate_panel`` of one score column (weighted by its confidence column
    when it has one), computed once."""
    from ...front.calibration import calibrate_panel

    assert ctx.item is not None and ctx.rater is not None
    item, rater = ctx.item, ctx.rater
    return ctx.cached(
        f"panel:{column}",
        lambda: calibrate_panel(
            ctx.frame,
            item=item,
            rater=rater,
            score=column,
            confidence=ctx.score_confidence.get(column),
            rng=ctx.seed,
        ),
    )


def build_scores(ctx: Context) -> Section | None:
    """Panel calibration of each score column: calibrated values and rater biases."""
    if not ctx.scores:
        return None
    title = "Scores: calibrated values and rater biases"
    if ctx.frame is None:
        return ctx.without_data("scores", title)
    if not (ctx.item and ctx.rater):
        raise SectionUnavailable("scores need the item and rater columns")
    blocks: list[Block] = []
    methods: list[MethodNote] = []
    leads: list[str] = []
    for column in ctx.scores:
        weights = ctx.score_confidence.get(column)
        result = panel_result(ctx, column)
        blocks.append(_key_figures(result, weights))
        blocks.extend(_figures(column, result))
        blocks.append(_bias_table(column, result, weights))
        how = (
            f"confidences from column {weights} (c = 1/sigma^2, absolute)"
            if weights
            else "equal confidences (no confidence column; variances scaled by R/dof)"
        )
        methods.append(
            MethodNote(
                f"Panel calibration ({column})", f"{result.method}; {how}", (REF["mackay2017"],)
            )
        )
        leads.append(
            f"{column}: {fmt_int(result.n_items)} items by {fmt_int(result.n_raters)} raters, "
            + (f"weighted by the confidences in {weights}" if weights else "equal confidences")
            + f", residual per degree of freedom {fmt(result.residual_per_dof, 2)}"
        )
    lead = (
        "Each score is modelled as the item's value plus the rater's bias plus noise; the "
        "calibrated values remove the biases. " + "; ".join(leads) + "."
    )
    return Section("scores", title, lead, tuple(blocks), tuple(methods))


def _key_figures(result: Any, weights: str | None) -> KeyFigures:
    return KeyFigures(
        (
            KeyFigure("Items", fmt_int(result.n_items), f"{fmt_int(result.n_assessments)} scores"),
            KeyFigure(
                "Raters",
                fmt_int(result.n_raters),
                f"bias spread (SD) {fmt(bias_spread(result), 2)}",
            ),
            KeyFigure(
                "Confidences",
                "per score" if weights else "equal",
                f"column {weights}: c = 1/sigma^2 (absolute)"
                if weights
                else "no confidence column: relative, scaled by the residual",
                "neutral",
            ),
            KeyFigure(
                "Fit",
                fmt(result.residual_per_dof, 2),
                "residual per degree of freedom (about 1 when the confidences are right)"
                if weights
                else "residual per degree of freedom (the noise variance, in score units)",
                "neutral",
            ),
            KeyFigure(
                "Connectivity",
                fmt(result.algebraic_connectivity, 3),
                f"{counted(result.n_components, 'component')}; near 0: weakly linked design",
            ),
        )
    )


def _figures(column: str, result: Any) -> list[Block]:
    """The calibrated values beside the plain means, and the rater biases."""
    values = result.values.sort_values("value", ascending=False, kind="stable")
    biases = result.biases.sort_values("bias", ascending=False, kind="stable")
    shown = values.head(LIMIT)
    moved = (values["value"] - values["plain_mean"]).abs()
    largest = fmt(float(moved.max()) if len(moved) else math.nan, 2)
    return [
        Figure(
            figures.value_plot(
                f"values-{column}",
                [str(x) for x in shown["item"]],
                shown["value"].tolist(),
                shown["sd"].tolist(),
                shown["plain_mean"].tolist(),
                xlabel=column,
            ),
            f"{column}: calibrated value of each item with its 95% interval (1.96 posterior "
            f"SD), beside the plain mean"
            + (
                f"; the {LIMIT} highest of {fmt_int(len(values))} items"
                if len(values) > LIMIT
                else ""
            )
            + f". Largest change from the plain mean: {largest}.",
            f"Calibrated values of {column}",
        ),
        Figure(
            figures.bar_with_errors(
                f"biases-{column}",
                [str(x) for x in biases["rater"].head(LIMIT)],
                biases["bias"].head(LIMIT).tolist(),
                biases["sd"].head(LIMIT).tolist(),
                xlabel=f"bias ({column} units; above 0: scores high)",
            ),
            "Rater biases with 95% intervals (gauge: biases sum to zero).",
            f"Rater biases on {column}",
        ),
    ]


def _bias_table(column: str, result: Any, weights: str | None) -> Details:
    biases = result.biases.sort_values("bias", ascending=False, kind="stable")
    return Details(
        f"Rater biases and misfit ({column})",
        (
            Table.of(
                (
                    Column.name("rater", "rater"),
                    Column("scores", "n", fmt_int),
                    Column("bias", "bias", _TWO),
                    Column("SD", "sd", _TWO),
                    Column("misfit", "misfit", _TWO),
                    Column("RMS residual", "residual_rms", _TWO),
                )
                + ((Column("summed confidence", "confidence"),) if weights else ()),
                biases.to_dict(orient="records"),
                caption="Misfit: chi-square of the rater's residuals over its expectation; "
                "well above 1, the rater is noisier than their confidence says.",
            ),
        ),
    )
