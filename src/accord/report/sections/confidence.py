"""Confidence calibration: NCE against its baseline, the companions, and the reliability
diagram."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from .. import figures
from .._blocks import (
    Block,
    Column,
    Figure,
    KeyFigure,
    KeyFigures,
    MethodNote,
    Note,
    Section,
    Table,
    Tone,
    fmt,
    fmt_int,
    fmt_pct,
)
from .._context import Context
from .common import REF

__all__ = ["build_confidence", "nce_reading", "nce_result"]


def nce_reading(nce: Any) -> tuple[str, Tone]:
    """What an NCE value means against its baseline, a constant confidence."""
    value = float(nce.statistic)
    const = f"always stating the overall accuracy ({fmt_pct(nce.p_correct)}), which scores NCE 0"
    if not math.isfinite(value):
        return f"NCE is undefined: {getattr(nce, 'reason', None) or 'see the table'}.", "neutral"
    if value < 0:
        return (
            f"The confidences are worse than a constant: NCE {fmt(value)} is below 0, the "
            f"score of {const}. Their log loss, {fmt(nce.log_loss_bits)} bits per unit, is "
            f"above the constant's {fmt(nce.h_max / nce.n)} bits per unit (the binary entropy "
            f"of {fmt_pct(nce.p_correct)}): they mislead more than they inform.",
            "poor",
        )
    if value < 0.1:
        return (
            f"The confidences barely beat a constant: NCE {fmt(value)}, where 0 is {const} "
            "and 1 a perfect confidence (1 when right, 0 when wrong).",
            "fair",
        )
    return (
        f"The confidences carry information about correctness: NCE {fmt(value)}, where 0 is "
        f"{const} and 1 a perfect confidence (1 when right, 0 when wrong).",
        "good" if value >= 0.3 else "fair",
    )


def _scored_rows(ctx: Context) -> pd.DataFrame:
    """The rows with both a confidence and a correctness value."""
    frame = ctx.frame
    assert frame is not None and ctx.confidence is not None and ctx.correct is not None
    return frame.loc[frame[ctx.confidence].notna() & frame[ctx.correct].notna()]


def _groups(ctx: Context, rows: pd.DataFrame) -> pd.Series | None:
    return rows[ctx.rater] if ctx.rater and ctx.rater in rows.columns else None


def nce_result(ctx: Context) -> Any:
    """``accord.normalized_cross_entropy`` on the rows with a confidence and a correctness
    value, per rater when there is a rater column, computed once."""
    from ...front.confidence import normalized_cross_entropy

    rows = _scored_rows(ctx)
    return ctx.cached(
        "nce",
        lambda: normalized_cross_entropy(
            rows[ctx.correct], rows[ctx.confidence], groups=_groups(ctx, rows)
        ),
    )


def build_confidence(ctx: Context) -> Section | None:
    """Confidence calibration: NCE, the companions, and the reliability diagram."""
    if ctx.confidence is None or ctx.correct is None:
        return None
    if ctx.frame is None:
        return ctx.without_data("confidence", "Confidence calibration")
    from ...confidence import reliability_diagram
    from ...front.confidence import calibration_metrics

    rows = _scored_rows(ctx)
    nce = nce_result(ctx)
    diagram = ctx.cached(
        "reliability", lambda: reliability_diagram(rows[ctx.correct], rows[ctx.confidence])
    )
    metrics = ctx.cached(
        "calibration_metrics", lambda: calibration_metrics(rows[ctx.correct], rows[ctx.confidence])
    )
    blocks: list[Block] = [
        KeyFigures(
            (
                KeyFigure(
                    "NCE",
                    fmt(nce.statistic),
                    "1 is perfect, 0 no better than a constant, below 0 worse",
                    nce_reading(nce)[1],
                ),
                KeyFigure("ECE", fmt(diagram.ece), f"{diagram.n_bins} {diagram.binning} bins"),
                KeyFigure("Accuracy", fmt_pct(nce.p_correct), f"of {fmt_int(nce.n)} scored units"),
                KeyFigure("Brier score", fmt(metrics.brier_score), f"AUROC {fmt(metrics.auroc)}"),
            )
        ),
        _reliability_figure(diagram),
    ]
    dropped = len(ctx.frame) - len(rows)
    if dropped:
        blocks.insert(
            0, Note(f"{dropped} rows without a confidence or correctness value were left out.")
        )
    if _groups(ctx, rows) is not None and len(nce.groups) > 1:
        blocks.append(_per_rater_table(nce))
    methods = (
        MethodNote("Normalized cross-entropy", str(nce.method), (REF["sclite"],)),
        MethodNote("Reliability diagram", str(diagram.method), (REF["dg1983"], REF["wilson1927"])),
        MethodNote(
            "Calibration metrics",
            "; ".join(f"{k}: {v}" for k, v in metrics.conventions.items()),
            (REF["brier1950"],),
        ),
    )
    lead = (
        nce_reading(nce)[0]
        + f" ECE {fmt(diagram.ece)}: the mean gap between stated confidence and observed "
        f"accuracy; accuracy {fmt_pct(nce.p_correct)} on {fmt_int(nce.n)} units."
    )
    return Section("confidence", "Confidence calibration", lead, tuple(blocks), methods)


def _reliability_figure(diagram: Any) -> Figure:
    bins = diagram.bins
    edges = np.r_[
        bins["low"].to_numpy(dtype=np.float64), bins["high"].to_numpy(dtype=np.float64)[-1:]
    ]
    return Figure(
        figures.reliability_plot(
            "reliability",
            bins["mean_confidence"].tolist(),
            bins["accuracy"].tolist(),
            bins["ci_low"].tolist(),
            bins["ci_high"].tolist(),
            bins["count"].tolist(),
            edges,
        ),
        "Reliability diagram: points on the diagonal mean the stated confidence is the "
        "observed accuracy; below it, over-confident.",
        f"Reliability diagram, ECE {fmt(diagram.ece)}",
    )


def _per_rater_table(nce: Any) -> Table:
    return Table.of(
        (
            Column.name("rater", "group"),
            Column("units", "n", fmt_int),
            Column("accuracy", "p_correct", fmt_pct),
            Column("NCE", "nce"),
            Column.text("note", lambda r: r["reason"] or ""),
        ),
        nce.groups.to_dict(orient="records"),
        caption=f"NCE per rater, each with its own p_c; pooled NCE {fmt(nce.statistic)} "
        "from the totals (not the mean of raters).",
    )
