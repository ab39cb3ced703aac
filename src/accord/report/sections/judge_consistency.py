"""Does the judge agree with itself? From a trial column naming the run of each label: each
judge's test-retest agreement over its runs with its interval, the share of items whose
label flips, the most fragile items, and the humans' agreement with each other beside it.
Present when the report was given a judge and a trial column."""

from __future__ import annotations

from typing import Any

from ..._validate import counted
from .._blocks import (
    Block,
    Column,
    KeyFigure,
    KeyFigures,
    MethodNote,
    Note,
    Section,
    Table,
    fmt,
    fmt_ci,
    fmt_int,
    fmt_pct,
)
from .._context import Context
from .common import REF

__all__ = ["build_judge_consistency"]

TITLE = "Does the judge agree with itself?"

#: Fragile items shown, as on the terminal.
SHOWN_ITEMS = 10


def build_judge_consistency(ctx: Context) -> Section | None:
    """The judge against itself: present with a judge and a trial column."""
    if ctx.judge is None or ctx.trial is None or ctx.frame is None or ctx.label is None:
        return None
    from ...judges.consistency import judge_consistency

    judges = list(ctx.judge) if isinstance(ctx.judge, list | tuple) else [ctx.judge]
    result = ctx.cached(
        "judge_consistency",
        lambda: judge_consistency(
            ctx.frame,
            [str(j) for j in judges],
            item=str(ctx.item),
            rater=str(ctx.rater),
            label=str(ctx.label),
            trial=str(ctx.trial),
            level=ctx.level,  # type: ignore[arg-type]
            humans=None if ctx.humans is None else [str(h) for h in ctx.humans],
            epsilon=ctx.epsilon,
            confidence_level=ctx.confidence_level,
        ),
    )
    column = coefficient(result)
    blocks: list[Block] = [KeyFigures(_figures(result, column)), _table(ctx, result)]
    fragile = result.fragile()
    if len(fragile):
        blocks.append(_fragile(fragile))
    else:
        blocks.append(Note("No item's label changed between runs."))
    if result.alt_test is not None:
        blocks.append(
            Note(
                "The alternative annotator test of the majority label over runs against the "
                f"humans: {result.alt_test._headline()}."
            )
        )
    blocks.append(Note(read_rule(ctx, judges)))
    if result.reason:
        blocks.append(Note(f"{result.reason}.", "fair"))
    return Section("judge-consistency", TITLE, result._headline() + ".", tuple(blocks),
                   _methods(result), nav="Self-agreement")  # fmt: skip


def read_rule(ctx: Context, judges: list[Any]) -> str:
    """Which of the judge's runs the page's other sections read, in one sentence."""
    who = ", ".join(map(str, judges))
    if ctx.duplicates in ("first", "last"):
        return (
            f"The page's other sections take one label per item and rater: for {who}, the "
            f"{ctx.duplicates} row of each item (duplicates={ctx.duplicates!r})."
        )
    words = "mean over the runs" if ctx.level in ("interval", "ratio") else (
        "majority label over the runs (a tie going to the label of the earliest run)"
    )  # fmt: skip
    return (
        f"The page's other sections take one label per item and rater: for {who}, its "
        f"{words}, as the alternative annotator test of the majority reads it."
    )


def coefficient(result: Any) -> str:
    """The column the headline reads: the ICC for scores, alpha otherwise (as the
    result's headline)."""
    return "icc" if result.level in ("interval", "ratio") else "alpha"


def _figures(result: Any, column: str) -> tuple[KeyFigure, ...]:
    words = "ICC(A,1)" if column == "icc" else "alpha"
    level = f"{result.confidence_level:.0%}"
    figures = []
    for row in result.table.to_dict(orient="records"):
        interval = f"{level} CI {fmt_ci(row[f'{column}_ci_low'], row[f'{column}_ci_high'])}"
        if row["kind"] == "inter-rater":
            detail = f"{words} with each other, {interval}"
            figures.append(KeyFigure("humans", fmt(row[column]), detail))
            continue
        detail = f"{words} with itself over runs, {interval}"
        figures.append(KeyFigure(str(row["rater"]), fmt(row[column]), detail))
        figures.append(
            KeyFigure(
                f"{row['rater']} flips",
                fmt_pct(row["flip_rate"]),
                f"of {fmt_int(row['n_items'])} items ({fmt_int(row['n_fragile'])} fragile)",
            )
        )
    return tuple(figures)


def _ci(name: str) -> Any:
    return lambda row: fmt_ci(row[f"{name}_ci_low"], row[f"{name}_ci_high"])


def _fragile_count(row: Any) -> str:
    """The judge's fragile items; a dash in the humans' row, which has no runs."""
    return "\u2013" if row["kind"] == "inter-rater" else fmt_int(row["n_fragile"])


def _table(ctx: Context, result: Any) -> Table:
    columns = [
        Column.name("rater", "rater"),
        Column.text("kind", "kind"),
        Column("items", "n_items", fmt_int),
        Column("runs/raters", "n_runs", fmt_int),
        Column("alpha", "alpha"),
        Column(ctx.level_pct + " CI", _ci("alpha"), str),
    ]
    if result.level == "nominal":
        columns += [Column("kappa", "kappa"), Column(ctx.level_pct + " CI ", _ci("kappa"), str)]
    if result.level in ("interval", "ratio"):
        columns += [Column("ICC(A,1)", "icc"), Column(ctx.level_pct + " CI ", _ci("icc"), str)]
    columns += [Column("flip rate", "flip_rate"), Column("fragile", _fragile_count, str)]
    return Table.of(
        columns,
        result.table.to_dict(orient="records"),
        f"Agreement with itself over runs, beside the humans ({result.level}): "
        f"{result.method}. Flip rate: the share of the judge's items whose label is not the "
        "same in every run; fragile: those items.",
    )


def _fragile(fragile: Any) -> Table:
    shown = fragile.head(SHOWN_ITEMS)
    return Table.of(
        (
            Column.name("judge", "judge"),
            Column.name("item", "item"),
            Column("runs", "n_runs", fmt_int),
            Column("labels", "n_labels", fmt_int),
            Column.name("majority", "majority"),
            Column("majority share", "majority_share"),
            Column("flip rate", "flip_rate"),
        ),
        shown.to_dict(orient="records"),
        f"The most fragile items ({len(shown)} of {fmt_int(len(fragile))}); flip rate: share "
        "of pairs "
        "of runs that disagree.",
    )


def _methods(result: Any) -> tuple[MethodNote, ...]:
    return (
        MethodNote(
            "The judge against itself",
            f"{result.method}; accord.judge_consistency, {counted(result.n_judges, 'judge')}.",
            tuple(REF[k] for k in ("kripp2004", "fleiss1971", "mw1996", "kl2016")),
        ),
    )
