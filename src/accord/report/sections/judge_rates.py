"""What is the judge's rate worth? Each label's share as the judge gives it on the items no
human labelled, corrected by its errors on the items humans labelled (Rogan-Gladen's matrix
method) and by prediction-powered inference (PPI++), with intervals and the human labels
that would halve them. Present when the report was given a judge that labelled items no
human did."""

from __future__ import annotations

from typing import Any

from .._blocks import (
    Block,
    Column,
    KeyFigure,
    KeyFigures,
    MethodNote,
    Note,
    Section,
    Table,
    fmt_ci,
    fmt_int,
)
from .._context import Context
from .common import REF

__all__ = ["build_judge_rates"]

TITLE = "What is the judge's rate worth?"


def build_judge_rates(ctx: Context) -> Section | None:
    """The corrected rates: present with a judge that labelled items no human did."""
    if ctx.judge is None or not ctx.has_labels or ctx.ratings is None:
        return None
    from ...judges import human_panel, judge_rates
    from ...judges.rates import judge_only_items

    ratings = ctx.ratings
    judges = list(ctx.judge) if isinstance(ctx.judge, list | tuple) else [ctx.judge]
    humans = human_panel(ratings, judges, ctx.humans)
    if judge_only_items(ratings, judges[0], humans) == 0:
        return None
    result = ctx.cached(
        "judge_rates",
        lambda: judge_rates(
            ratings,
            judges[0],
            humans=humans,
            confidence_level=ctx.confidence_level,
            rng=ctx.seed,
        ),
    )
    blocks: tuple[Block, ...] = (KeyFigures(_figures(result)), _table(ctx, result), *_notes(result))
    return Section("judge-rates", TITLE, _lead(result), blocks, _methods(result),
                   nav="Judged rates")  # fmt: skip


def _lead(result: Any) -> str:
    return (
        f"{result.judge} labelled {fmt_int(result.n_unlabelled)} items no human labelled; on the "
        f"{fmt_int(result.n_labelled)} items {result.reference} labelled too, its errors "
        "measure how far its shares are off. Below, each label's share as the judge gives it, "
        "corrected, and by prediction-powered inference (PPI++)."
    )


def _figures(result: Any) -> tuple[KeyFigure, ...]:
    return tuple(
        KeyFigure(
            str(row.label),
            fmt_ci(row.ppi_low, row.ppi_high),
            f"PPI++ share (judged {row.raw_rate:.3f})",
        )
        for row in result.table.itertuples(index=False)
    )


def _halve(value: Any) -> str:
    return "\u2013" if value is None or value != value else f"{int(value):,}"


def _table(ctx: Context, result: Any) -> Table:
    return Table.of(
        (
            Column.name("label", "label"),
            Column("judged", "raw_rate"),
            Column("corrected", "corrected"),
            Column(ctx.level_pct + " CI", lambda r: fmt_ci(r.corrected_low, r.corrected_high), str),
            Column("PPI++", "ppi"),
            Column(ctx.level_pct + " CI ", lambda r: fmt_ci(r.ppi_low, r.ppi_high), str),
            Column("labels to halve", lambda r: r.ppi_labels_to_halve, _halve),
        ),
        result.table.itertuples(index=False),
        "Per label: the judge's share on the items no human labelled; corrected by the "
        "inverse of the judge's confusion matrix on the labelled items (intervals with the "
        "sampling error of both sets); the PPI++ estimate; and how many more human labels, "
        "in the same mix, would halve the PPI++ interval.",
    )


def _notes(result: Any) -> tuple[Note, ...]:
    reason = result.corrected.reason
    return (Note(f"Corrected shares: {reason}.", "fair"),) if reason else ()


def _methods(result: Any) -> tuple[MethodNote, ...]:
    return (
        MethodNote(
            "Judge-corrected rates",
            f"{result.method}; accord.judge_rates on {fmt_int(result.n_labelled)} labelled and "
            f"{fmt_int(result.n_unlabelled)} judged-only items.",
            tuple(REF[k] for k in ("rg1978", "buonaccorsi2010", "abfjz2023", "adz2023")),
        ),
    )
