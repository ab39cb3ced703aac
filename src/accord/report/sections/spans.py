"""Span agreement: the headline (mean pairwise and pooled F1), what was read, F1 of every
pair of annotators and per label, the unitizing alphas, gamma, and the agreement on the
relations between the spans when there are relations."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from ..._names import listed
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
    fmt_int,
    fmt_pct,
)
from .._context import Context
from .common import REF, tone_of

__all__ = ["GAMMA_SAMPLES", "GAMMA_SEED", "build_spans", "build_spans_read", "build_spans_summary"]

#: Shuffled continua behind the report's gamma, and their seed (those of ``accord spans
#: --measure gamma``): the page gives the same figures as the command.
GAMMA_SAMPLES = 30
GAMMA_SEED = 0


def _span_result(ctx: Context) -> Any:
    """``span_agreement(spans)`` (exact matches, per label), computed once."""
    from ...spans import span_agreement

    return ctx.cached("span_agreement", lambda: span_agreement(ctx.spans))


def _unitizing_result(ctx: Context) -> Any:
    """``unitizing_alpha(spans)``, or why it is not computed (units of one annotator that
    overlap), computed once."""
    from ..._errors import InvalidInputError
    from ...spans import unitizing_alpha

    def run() -> Any:
        try:
            return unitizing_alpha(ctx.spans)
        except InvalidInputError as error:
            return str(error)

    return ctx.cached("unitizing_alpha", run)


def _unitizing_blocks(ctx: Context) -> tuple[list[Block], tuple[MethodNote, ...]]:
    """The unitizing alphas beside F1: a table, or a note saying why there is none."""
    result = _unitizing_result(ctx)
    if isinstance(result, str):
        return [Note(f"Unitizing alpha not computed: {result}", "fair")], ()
    rows = [
        {"measure": "u-alpha (units and gaps)", "alpha": result.statistic, "coverage": None},
        {"measure": "|u-alpha (marked or not)", "alpha": result.binary, "coverage": None},
        {"measure": "cu-alpha (labels where units meet)", "alpha": result.coding,
         "coverage": result.coverage},
    ] + [
        {"measure": f"(k)u-alpha, {rec['label']}", "alpha": rec["alpha"],
         "coverage": rec["coverage"]}
        for rec in result.per_label.to_dict(orient="records")
    ]  # fmt: skip
    table = Table.of(
        (
            Column.text("measure", "measure"),
            Column("alpha", "alpha"),
            Column.text(
                "coverage", lambda r: "" if r["coverage"] is None else fmt_pct(r["coverage"])
            ),
        ),
        rows,
        caption="Krippendorff's unitizing alphas: chance-corrected agreement character by "
        "character, the unmarked stretches included. A low |u-alpha with a high cu-alpha "
        "says the annotators disagree on what to mark, not on the labels; coverage is the "
        "share of the continuum (or of the label's stretch) the figure speaks for.",
    )
    return [table], (MethodNote("Unitizing alpha", str(result.method), (REF["kmbw2016"],)),)


def _gamma_result(ctx: Context) -> Any:
    """``gamma_agreement(spans)`` with the report's samples and seed, or why it is not
    computed, computed once."""
    from ..._errors import InvalidInputError
    from ...spans import gamma_agreement

    def run() -> Any:
        try:
            return gamma_agreement(ctx.spans, n_samples=GAMMA_SAMPLES, rng=GAMMA_SEED)
        except InvalidInputError as error:
            return str(error)

    return ctx.cached("gamma_agreement", run)


def _gamma_blocks(ctx: Context) -> tuple[list[Block], tuple[MethodNote, ...]]:
    """Gamma, gamma-cat and gamma-k: a table in the words of ``accord spans --measure
    gamma``, or a note saying why there is none."""
    result = _gamma_result(ctx)
    if isinstance(result, str):
        return [Note(f"Gamma not computed: {result}", "fair")], ()
    rows = result.figures()
    table = Table.of(
        (Column.text("measure", "measure"), Column("value", "value")),
        rows,
        caption="Gamma (Mathet et al. 2015): the units of the annotators aligned one to one "
        "by position and label, the disorder of the best alignment against that of "
        f"{result.n_samples} shuffled continua (seed {result.seed}); gamma-cat and gamma-k "
        "read the labels of the aligned units. Another seed moves the expected disorder "
        "by about its SD over the square root of the number of continua.",
    )
    blocks: list[Block] = [table]
    blocks.extend(Note(reason, "fair") for reason in (result.reason, result.reason_cat) if reason)
    note = MethodNote(
        "Gamma", f"{result.method}; seed {result.seed}.", (REF["mwm2015"], REF["mathet2017"])
    )
    return blocks, (note,)


def _relation_result(ctx: Context) -> Any:
    """``relation_agreement(spans, relations)`` (exact matching), or why it is not
    computed, computed once; None without relations."""
    from ..._errors import InvalidInputError
    from ...spans import relation_agreement

    def run() -> Any:
        try:
            return relation_agreement(ctx.spans, ctx.relations)
        except InvalidInputError as error:
            return str(error)

    if ctx.relations is None or len(ctx.relations) == 0:
        return None
    return ctx.cached("relation_agreement", run)


def _relation_blocks(ctx: Context) -> tuple[list[Block], tuple[MethodNote, ...]]:
    """Relation agreement: each pair of annotators and each type, or a note saying why
    there is none; nothing without relations."""
    result = _relation_result(ctx)
    if result is None:
        return [], ()
    if isinstance(result, str):
        return [Note(f"Relation agreement not computed: {result}", "fair")], ()
    pairs = Table.of(
        (
            Column.name("annotator", "annotator_a"),
            Column.name("against", "annotator_b"),
            Column("relations", "n_a", fmt_int),
            Column("relations", "n_b", fmt_int),
            Column("matched", "matched", fmt_int),
            Column("precision", "precision"),
            Column("recall", "recall"),
            Column("F1", "f1"),
        ),
        result.pairs.itertuples(index=False),
        caption=f"Relations between the spans: mean pairwise F1 {fmt(result.statistic)} (SD "
        f"{fmt(result.sd)}), pooled {fmt(result.pooled)}. A relation of one annotator is "
        "matched when the other stated the same type between the same (exactly matched) "
        "spans, so span disagreement lowers relation agreement too.",
    )
    types = Table.of(
        (
            Column.name("type", "type"),
            Column("relations", "n_relations", fmt_int),
            Column("pooled F1", "pooled_f1"),
        ),
        result.by_type.to_dict(orient="records"),
        caption="Relation agreement per type, pooled over the pairs of annotators.",
    )
    blocks: list[Block] = [pairs, types]
    if result.reason:
        blocks.append(Note(result.reason, "fair"))
    return blocks, (MethodNote("Relation agreement", str(result.method), (REF["hr2005"],)),)


def _span_f1_reading(result: Any) -> str:
    """What the mean pairwise F1 says, in one sentence."""
    if not math.isfinite(result.statistic):
        return f"Span agreement is undefined: {result.reason or 'no pair marked a span'}."
    return (
        f"Annotators agree on {fmt_pct(result.statistic, 0)} of the spans they mark: mean "
        f"pairwise F1 {fmt(result.statistic)} over {fmt_int(result.n_pairs_defined)} pairs "
        f"({result.match} match{'' if result.ignore_label else ', label included'}). F1 is "
        "positive specific agreement: the share of one annotator's spans that the other "
        "marked too, averaged both ways; 1 is identical annotation, and there is no chance "
        "correction (what would chance agreement on a span be?)."
    )


def build_spans_summary(ctx: Context) -> Section | None:
    """The headline of a span report: mean pairwise F1 and pooled F1."""
    if ctx.spans is None:
        return None
    result = _span_result(ctx)
    figs = (
        KeyFigure(
            "Mean pairwise F1",
            fmt(result.statistic),
            f"SD {fmt(result.sd)} over {fmt_int(result.n_pairs_defined)} pairs",
            tone_of(math.nan, result.statistic),  # no interval: the estimate's band
        ),
        KeyFigure("Pooled F1", fmt(result.pooled), "2 matched / spans marked, all pairs"),
        KeyFigure(
            "Data",
            f"{fmt_int(result.n_spans)} spans",
            f"by {fmt_int(result.n_annotators)} annotators in {fmt_int(result.n_documents)} "
            "documents",
        ),
    )
    return Section(
        "summary",
        "Can I trust these annotators?",
        _span_f1_reading(result),
        (KeyFigures(figs),),
    )


def build_spans_read(ctx: Context) -> Section | None:
    """What was read: annotators, documents, spans, labels and the reader's notes."""
    spans = ctx.spans
    if spans is None:
        return None
    rows = (
        ("source", str(spans.source or "(in memory)")),
        ("annotators", f"{fmt_int(spans.n_annotators)}: {listed(spans.annotators)}"),
        ("documents", f"{fmt_int(spans.n_documents)}: {listed(spans.documents)}"),
        ("spans", fmt_int(spans.n_spans)),
        ("labels", ", ".join(spans.labels)),
        ("offsets", f"{spans.unit}s, 0-based, end exclusive"),
    )
    blocks: list[Block] = [Table.facts(rows)]
    if spans.annotators_without_spans:
        blocks.append(
            Note(
                "Marked nothing (kept; their pairs have F1 0): "
                + ", ".join(spans.annotators_without_spans),
                "fair",
            )
        )
    blocks.extend(Note(note) for note in spans.notes)
    lead = (
        f"Read {fmt_int(spans.n_spans)} spans by {fmt_int(spans.n_annotators)} annotators in "
        f"{fmt_int(spans.n_documents)} documents"
        + (f"; {counted(len(spans.notes), 'note')} from the reader below." if spans.notes else ".")
    )
    return Section("read", "What was read", lead, tuple(blocks))


def build_spans(ctx: Context) -> Section | None:
    """Span agreement: F1 of every pair of annotators and per label."""
    if ctx.spans is None:
        return None
    result = _span_result(ctx)
    pairs = result.pairs
    blocks: list[Block] = [
        Table.of(
            (
                Column.name("annotator", "annotator_a"),
                Column.name("reference", "annotator_b"),
                Column("annotator's spans", "n_a", fmt_int),
                Column("reference's spans", "n_b", fmt_int),
                Column("matched", "matched", fmt_int),
                Column("precision", "precision"),
                Column("recall", "recall"),
                Column("F1", "f1"),
            ),
            pairs.itertuples(index=False),
            caption="Each pair of annotators: the spans each marked, those both marked "
            "(matched), precision and recall of the annotator against the other as "
            "reference, and F1 = 2 matched / (spans of both).",
        )
    ]
    groups = result.groups
    if isinstance(groups, pd.DataFrame) and not groups.empty and result.by is not None:
        blocks.append(
            Table.of(
                (
                    Column.name(str(result.by), result.by),
                    Column("spans", "n_units", fmt_int),
                    Column("mean F1", "mean_f1"),
                    Column("SD", "sd_f1"),
                    Column("pooled F1", "pooled_f1"),
                    Column.text("note", lambda r: r["reason"] or ""),
                ),
                groups.to_dict(orient="records"),
                caption=f"Agreement per {result.by}: a low one marks what the annotation "
                "guidelines leave open.",
            )
        )
    unitizing, unitizing_notes = _unitizing_blocks(ctx)
    blocks.extend(unitizing)
    gamma, gamma_notes = _gamma_blocks(ctx)
    blocks.extend(gamma)
    relation, relation_notes = _relation_blocks(ctx)
    blocks.extend(relation)
    lead = (
        f"F1 of each of the {fmt_int(result.n_pairs)} pairs of annotators"
        + (f" and per {result.by}" if result.by is not None else "")
        + ". Span F1 comes without an interval here, so no pair is singled out: read the "
        "spread of the pairs as the noise."
    )
    return Section(
        "spans",
        "Span agreement",
        lead,
        tuple(blocks),
        (
            MethodNote("Span agreement", str(result.method), (REF["hr2005"],)),
            *unitizing_notes,
            *gamma_notes,
            *relation_notes,
        ),
    )
