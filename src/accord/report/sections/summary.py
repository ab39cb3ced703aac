"""The headline section, "can I trust these raters?": the headline coefficient with its
interval, read against the usual benchmarks (or, without labels, what the scores or the
confidences say)."""

from __future__ import annotations

import math
from typing import Any

from ..._validate import counted
from ..._verdict import (
    bias_spread,
    coefficient_label,
    distribution,
    landis_koch,
    panel_verdict,
    verdict,
)
from .._blocks import (
    Block,
    Column,
    Details,
    KeyFigure,
    KeyFigures,
    MethodNote,
    Note,
    Paragraph,
    Section,
    Table,
    Tone,
    fmt,
    fmt_int,
    fmt_pct,
)
from .._context import Context, SectionUnavailable
from .common import (
    REF,
    coefficients,
    coefficients_by_key,
    icc_tone,
    interval,
    primary,
    tone_of,
    two_raters,
)
from .confidence import nce_reading, nce_result
from .scores import panel_result

__all__ = ["build_summary"]

TITLE = "Can I trust these raters?"

NOT_ACCURACY = (
    "Agreement is not accuracy: raters who share a bias agree. Where a reference {what} "
    "exists, compare each rater with it as well."
)

KAPPA_BENCHMARKS = MethodNote(
    "Benchmarks",
    "Kappa-type values are named with the bands of Landis & Koch (1977): below 0 "
    "poor, 0-0.20 slight, 0.21-0.40 fair, 0.41-0.60 moderate, 0.61-0.80 "
    "substantial, 0.81-1 almost perfect. The band named is the highest whose "
    "cumulative probability (that the true value lies in the band or above, from a "
    "normal distribution centred on the estimate with its standard error, truncated "
    "to [-1, 1]) reaches the confidence level (Gwet 2014, ch. 6), since a band read "
    "off the estimate alone overstates what the data show; both ends of the interval "
    "are named too. Alpha is read against Krippendorff's (2004) thresholds (0.800, "
    "0.667) with the probability that it falls short of each (Hayes & Krippendorff "
    "2007; from the bootstrap replicates when there are any). The colour of a "
    "headline figure follows the lower end of its interval: at least 0.8 green, at "
    "least 0.6 amber, else red. Benchmarks are conventions, not tests.",
    (REF["lk1977"], REF["gwet2014"], REF["kripp2004"], REF["hk2007"]),
)

ICC_BENCHMARKS = MethodNote(
    "Benchmarks",
    "ICC values are named with the bands of Koo & Li (2016): below 0.5 poor, "
    "0.5-0.75 moderate, 0.75-0.9 good, above 0.9 excellent; as they advise, the ICC "
    "is named by the bands its interval spans (from the band of its lower end to that "
    "of its upper end), not by its estimate alone. The colour of the ICC figure "
    "follows the lower end of its interval: at least 0.75 green, at least 0.5 amber, else red. "
    "Benchmarks are conventions, not tests.",
    (REF["kl2016"],),
)


def build_summary(ctx: Context) -> Section | None:
    """ "Can I trust these raters?": the headline coefficient with its interval, read
    against the usual benchmarks."""
    if not ctx.has_labels:
        if ctx.scores and ctx.frame is not None:
            return _panel_summary(ctx)
        if ctx.confidence is not None and ctx.frame is not None:
            return _confidence_summary(ctx)
        return None
    head = primary(ctx)
    if head is None:
        raise SectionUnavailable("the summary needs an agreement coefficient")
    if ctx.numeric:
        return _numeric_summary(ctx, head)
    low, high, _ = interval(ctx, head)
    blocks: list[Block] = [KeyFigures(tuple(_key_figures(ctx, head, low, high)))]
    blocks.extend(_band_table(ctx, head))
    blocks.extend(_alpha_reading(ctx, head))
    blocks.append(Note(NOT_ACCURACY.format(what="standard")))
    return Section(
        "summary", TITLE, _lead(ctx, head, low, high), tuple(blocks), (KAPPA_BENCHMARKS,)
    )


def _coefficient_figure(ctx: Context, coef: Any, *, icc: bool = False) -> KeyFigure:
    """A coefficient as a key figure: its value, its interval, coloured by the interval."""
    low, high, _ = interval(ctx, coef)
    return KeyFigure(
        coefficient_label(coef),
        fmt(coef.statistic),
        ctx.ci_text(low, high),
        icc_tone(low, coef.statistic) if icc else tone_of(low, coef.statistic),
    )


def _data_figure(ctx: Context, what: str) -> KeyFigure:
    rep = ctx.read_report
    return KeyFigure(
        "Data",
        counted(rep.items, "item"),
        f"{fmt_int(rep.ratings)} {what} by {counted(rep.raters, 'rater')}",
    )


def _key_figures(ctx: Context, head: Any, low: float, high: float) -> list[KeyFigure]:
    """The headline, a second coefficient, raw agreement and the size of the data."""
    items = [_coefficient_figure(ctx, head)]
    coefs = coefficients(ctx)
    if ctx.level == "ordinal":  # a second weighted statistic; unweighted ones in the table
        keyed = coefficients_by_key(ctx)
        extra = [
            keyed[k]
            for k in ("krippendorff_alpha:ordinal", "fleiss_kappa:quadratic")
            if k in keyed and keyed[k] is not head
        ]
    else:
        extra = [
            c
            for c in coefs
            if c is not head
            and getattr(c, "weights", "identity") in ("identity", "nominal")
            and c.name in ("informational_agreement", "krippendorff_alpha", "fleiss_kappa")
        ]
    items.extend(_coefficient_figure(ctx, c) for c in extra[:1])
    pa = next((c for c in coefs if c.name == "percent_agreement"), None)
    if pa is not None:
        items.append(KeyFigure("Raw agreement", fmt_pct(pa.statistic), "of rating pairs agree"))
    elif two_raters(ctx) and hasattr(head, "percent_agreement"):
        items.append(
            KeyFigure("Raw agreement", fmt_pct(head.percent_agreement), "of items on the diagonal")
        )
    items.append(_data_figure(ctx, "ratings"))
    return items


def _undefined(head: Any) -> str:
    return (
        f"{coefficient_label(head)} is undefined for these data: "
        f"{head.reason or 'see the coefficient table'}."
    )


def _bands(ctx: Context, low: float, high: float) -> str:
    """The Landis & Koch bands of the interval's ends, one band said once."""
    first, last = landis_koch(low), landis_koch(high)
    if first == last:
        return f" Both ends of the {ctx.level_pct} interval are {first}."
    return f" The {ctx.level_pct} interval runs from {first} to {last}."


def _lead(ctx: Context, head: Any, low: float, high: float) -> str:
    """The verdict, the bands of both ends of the interval, and what weighting means."""
    if not math.isfinite(head.statistic):
        return _undefined(head)
    span = _bands(ctx, low, high) if math.isfinite(low) and math.isfinite(high) else ""
    weighted = ""
    if ctx.level == "ordinal" and getattr(head, "weights", "identity") != "identity":
        categories = ctx.label_categories
        weighted = (
            " Weighted: a disagreement counts by how far apart the two categories are, so "
            f"{categories[0]} against {categories[-1]} weighs more than "
            "neighbours; the unweighted coefficients are in the table."
        )
    said = verdict(head, low, high, ctx.confidence_level, 3, distribution=_distribution(ctx, head))
    return f"{said}, on {counted(head.n_items, 'item')}.{span}{weighted}"


def _distribution(ctx: Context, coef: Any) -> str:
    """The bootstrap replicates when the table's intervals come from them, else the normal."""
    return distribution(ctx.agreement_table(), coef)


def _band_table(ctx: Context, head: Any) -> list[Block]:
    """The probability of each Landis & Koch band for the headline (Gwet 2014, ch. 6)."""
    if (
        head.name in ("icc", "percent_agreement")
        or not hasattr(head, "benchmark")
        or (head.name == "krippendorff_alpha" and head.weights in ("interval", "ratio"))
    ):
        return []
    bench = head.benchmark(
        "landis-koch", ctx.confidence_level, distribution=_distribution(ctx, head)
    )
    if bench.reason:
        return []
    tones: tuple[Tone, ...] = tuple(
        "good" if b.name == bench.band else "neutral" for b in bench.bands
    )
    table = Table.of(
        (
            Column.text("band", "name"),
            Column.text("range", lambda b: f"{fmt(b.low, 2)} to {fmt(b.high, 2)}"),
            Column("probability", "probability"),
            Column("cumulative", "cumulative"),
        ),
        bench.bands,
        caption=(
            f"Probability that {coefficient_label(head)} lies in each band, and in the band "
            f"or above (cumulative); the band named is the highest whose cumulative "
            f"probability reaches {fmt(bench.level, 2)}."
        ),
        row_tones=tones,
    )
    return [Details("How sure is the band? Probability of each Landis & Koch band", (table,))]


def _alpha_reading(ctx: Context, head: Any) -> list[Block]:
    """Alpha read against Krippendorff's (2004) thresholds, when the table has it, with the
    probability that it falls short of each (Hayes & Krippendorff 2007)."""
    coefs = coefficients(ctx)
    if not (
        head.name == "krippendorff_alpha" or any(c.name == "krippendorff_alpha" for c in coefs)
    ):
        return []
    alpha = next(
        (c for c in coefs if c.name == "krippendorff_alpha" and c.weights == ctx.level), None
    )
    if alpha is None or not math.isfinite(alpha.statistic):
        return []
    reading = (
        "meets it"
        if alpha.statistic >= 0.8
        else "allows only tentative conclusions"
        if alpha.statistic >= 0.667
        else "falls short of it"
    )
    bench = alpha.benchmark("krippendorff", distribution=_distribution(ctx, alpha))
    short = ""
    if not bench.reason:
        below = {b.name: b for b in bench.bands}
        q_min = below["unacceptable"].probability
        q_rel = q_min + below["tentative"].probability
        source = "its bootstrap replicates" if bench.distribution == "bootstrap" else "its SE"
        short = (
            f" The probability that alpha falls short of 0.667 is {fmt(q_min)}, of 0.800 "
            f"{fmt(q_rel)} (Hayes & Krippendorff 2007, from {source})."
        )
    return [
        Paragraph(
            f"Krippendorff (2004) asks for alpha of at least 0.800 before relying on "
            f"coded data (0.667 for tentative conclusions); {coefficient_label(alpha)} "
            f"= {fmt(alpha.statistic)} {reading}.{short}"
        )
    ]


def _numeric_summary(ctx: Context, head: Any) -> Section:
    """The headline for measurements: the ICC (absolute agreement, single rater) and alpha at
    the data's level, read against Koo & Li's (2016) bands; no percent agreement."""
    low, high, _ = interval(ctx, head)
    items = [_coefficient_figure(ctx, head, icc=head.name == "icc")]
    alpha = coefficients_by_key(ctx).get(f"krippendorff_alpha:{ctx.level}")
    if alpha is not None and alpha is not head:
        items.append(_coefficient_figure(ctx, alpha))
    items.append(_data_figure(ctx, "measurements"))
    if math.isfinite(head.statistic):
        lead = (
            f"{verdict(head, low, high, ctx.confidence_level, 3)}, on "
            f"{fmt_int(head.n_items)} items."
        )
    else:
        lead = _undefined(head)
    blocks: list[Block] = [
        KeyFigures(tuple(items)),
        Paragraph(
            "The ICC for absolute agreement counts a rater who measures systematically high "
            "or low as disagreement; the consistency form (C,1), in the table, does not. "
            "Each rater's mean difference from the others, in the data's units, is in the "
            "raters section."
        ),
        Note(NOT_ACCURACY.format(what="measurement")),
    ]
    return Section("summary", TITLE, lead, tuple(blocks), (ICC_BENCHMARKS,))


def _panel_summary(ctx: Context) -> Section | None:
    """The headline of a page with scores only: what the calibration found, in one line."""
    if not (ctx.item and ctx.rater):
        return None
    column = ctx.scores[0]
    result = panel_result(ctx, column)
    lead = f"{panel_verdict(result, column)}. The calibrated values below remove the biases."
    figs = (
        KeyFigure(
            "Bias spread (SD)", fmt(bias_spread(result), 2), f"{column} units, across raters"
        ),
        KeyFigure("Items", fmt_int(result.n_items), f"{fmt_int(result.n_assessments)} scores"),
        KeyFigure("Raters", fmt_int(result.n_raters), counted(result.n_components, "component")),
    )
    return Section("summary", "What do the scores say?", lead, (KeyFigures(figs),))


def _confidence_summary(ctx: Context) -> Section | None:
    """The headline of a page with confidences only: NCE against its baseline."""
    if ctx.correct is None or ctx.confidence is None:
        return None
    nce = nce_result(ctx)
    text, tone = nce_reading(nce)
    figs = (
        KeyFigure("NCE", fmt(nce.statistic), "0 = a constant confidence; 1 = perfect", tone),
        KeyFigure("Accuracy", fmt_pct(nce.p_correct), f"of {fmt_int(nce.n)} scored units"),
    )
    return Section("summary", "Can I trust these confidences?", text, (KeyFigures(figs),))
