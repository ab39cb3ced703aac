"""The sections of the report, one small builder each.

A builder takes the shared :class:`~accord.report._context.Context` and returns a
:class:`~accord.report._blocks.Section`, or None when its data is not present (no labels, no
score column, two raters only...). When the data is present but the capability is not
importable it raises :class:`~accord.report._context.SectionUnavailable`, and the report lists
the section as skipped with the reason. Every number shown comes from a result object of the
library; builders only choose and format.

To add a section: write ``build_<name>(ctx) -> Section | None`` and add it to
:data:`SECTIONS` (the methods section collects each section's :class:`MethodNote`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._verdict import by_key as _keyed
from .._verdict import (
    coefficient_label,
    headline,
    koo_li,
    landis_koch,
    panel_verdict,
    short_label,
    verdict,
)
from . import figures
from ._blocks import (
    Block,
    Details,
    Figure,
    KeyFigure,
    KeyFigures,
    MethodNote,
    Note,
    Paragraph,
    Section,
    Table,
    Tone,
    fmt,
    fmt_ci,
    fmt_int,
    fmt_p,
    fmt_pct,
)
from ._context import Context, SectionUnavailable

__all__ = ["SECTIONS", "build_methods"]

Builder = Callable[[Context], Section | None]

# ------------------------------------------------------------------------ references

REF = {
    "cohen1960": "Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational "
    "and Psychological Measurement, 20(1), 37-46. https://doi.org/10.1177/001316446002000104",
    "fce1969": "Fleiss, J. L., Cohen, J., & Everitt, B. S. (1969). Large sample standard errors "
    "of kappa and weighted kappa. Psychological Bulletin, 72(5), 323-327. "
    "https://doi.org/10.1037/h0028106",
    "fleiss1971": "Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. "
    "Psychological Bulletin, 76(5), 378-382. https://doi.org/10.1037/h0031619",
    "conger1980": "Conger, A. J. (1980). Integration and generalization of kappas for multiple "
    "raters. Psychological Bulletin, 88(2), 322-328. https://doi.org/10.1037/0033-2909.88.2.322",
    "light1971": "Light, R. J. (1971). Measures of response agreement for qualitative data. "
    "Psychological Bulletin, 76(5), 365-377. https://doi.org/10.1037/h0031643",
    "bp1981": "Brennan, R. L., & Prediger, D. J. (1981). Coefficient kappa: some uses, misuses, "
    "and alternatives. Educational and Psychological Measurement, 41(3), 687-699. "
    "https://doi.org/10.1177/001316448104100307",
    "gwet2008": "Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the "
    "presence of high agreement. British Journal of Mathematical and Statistical Psychology, "
    "61(1), 29-48. https://doi.org/10.1348/000711006X126600",
    "gwet2014": "Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed. Advanced "
    "Analytics. (Variances as in the R package irrCAC 1.4.)",
    "kripp2004": "Krippendorff, K. (2004). Content Analysis: An Introduction to Its Methodology, "
    "2nd ed. Sage.",
    "kripp2011": "Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. "
    "https://repository.upenn.edu/asc_papers/43",
    "scott1955": "Scott, W. A. (1955). Reliability of content analysis: the case of nominal "
    "scale coding. Public Opinion Quarterly, 19(3), 321-325. https://doi.org/10.1086/266577",
    "cfg2020": "Casagrande, A., Fabris, F., & Girometti, R. (2020). Beyond kappa: an "
    "informational index for diagnostic agreement in dichotomous and multivalue "
    "ordered-categorical ratings. Medical & Biological Engineering & Computing, 58, "
    "3089-3099. https://doi.org/10.1007/s11517-020-02261-2",
    "hr2005": "Hripcsak, G., & Rothschild, A. S. (2005). Agreement, the F-measure, and "
    "reliability in information retrieval. Journal of the American Medical Informatics "
    "Association, 12(3), 296-298. https://doi.org/10.1197/jamia.M1733",
    "gb1998": "Graham, P., & Bull, B. (1998). Approximate standard errors and confidence "
    "intervals for indices of positive and negative agreement. Journal of Clinical "
    "Epidemiology, 51(9), 763-771. https://doi.org/10.1016/S0895-4356(98)00048-1",
    "lk1977": "Landis, J. R., & Koch, G. G. (1977). The measurement of observer agreement for "
    "categorical data. Biometrics, 33(1), 159-174. https://doi.org/10.2307/2529310",
    "simon2010": "Simon, S. (2010). Using entropy and the surprisal value to measure the "
    "degree of agreement with the consensus finding. P.Mean, 2010-04-11.",
    "shannon1948": "Shannon, C. E. (1948). A mathematical theory of communication. Bell System "
    "Technical Journal, 27(3), 379-423. https://doi.org/10.1002/j.1538-7305.1948.tb01338.x",
    "mackay2017": "MacKay, R. S., Kenna, R., Low, R. J., & Parker, S. (2017). Calibration with "
    "confidence: a principled method for panel assessment. Royal Society Open Science, 4, "
    "160760. https://doi.org/10.1098/rsos.160760",
    "sclite": "NIST Speech Recognition Scoring Toolkit (SCTK), sclite: normalized cross entropy "
    "as computed by compute_SCORE_nce (src/sclite/scores.c).",
    "dg1983": "DeGroot, M. H., & Fienberg, S. E. (1983). The comparison and evaluation of "
    "forecasters. The Statistician, 32(1/2), 12-22. https://doi.org/10.2307/2987588",
    "wilson1927": "Wilson, E. B. (1927). Probable inference, the law of succession, and "
    "statistical inference. JASA, 22(158), 209-212. "
    "https://doi.org/10.1080/01621459.1927.10502953",
    "brier1950": "Brier, G. W. (1950). Verification of forecasts expressed in terms of "
    "probability. Monthly Weather Review, 78(1), 1-3. "
    "https://doi.org/10.1175/1520-0493(1950)078<0001:VOFEIT>2.0.CO;2",
    "efron1987": "Efron, B. (1987). Better bootstrap confidence intervals. JASA, 82(397), "
    "171-185. https://doi.org/10.1080/01621459.1987.10478410",
    "sf1979": "Shrout, P. E., & Fleiss, J. L. (1979). Intraclass correlations: uses in "
    "assessing rater reliability. Psychological Bulletin, 86(2), 420-428. "
    "https://doi.org/10.1037/0033-2909.86.2.420",
    "mw1996": "McGraw, K. O., & Wong, S. P. (1996). Forming inferences about some intraclass "
    "correlation coefficients. Psychological Methods, 1(1), 30-46. "
    "https://doi.org/10.1037/1082-989X.1.1.30",
    "kl2016": "Koo, T. K., & Li, M. Y. (2016). A guideline of selecting and reporting "
    "intraclass correlation coefficients for reliability research. Journal of Chiropractic "
    "Medicine, 15(2), 155-163. https://doi.org/10.1016/j.jcm.2016.02.012",
    "ba1986": "Bland, J. M., & Altman, D. G. (1986). Statistical methods for assessing "
    "agreement between two methods of clinical measurement. The Lancet, 327(8476), 307-310. "
    "https://doi.org/10.1016/S0140-6736(86)90837-8",
    "holm1979": "Holm, S. (1979). A simple sequentially rejective multiple test procedure. "
    "Scandinavian Journal of Statistics, 6(2), 65-70.",
    "wy1993": "Westfall, P. H., & Young, S. S. (1993). Resampling-Based Multiple Testing: "
    "Examples and Methods for p-Value Adjustment. Wiley.",
}

_CITES = {
    "cohen_kappa": ("cohen1960", "fce1969"),
    "scott_pi": ("scott1955",),
    "fleiss_kappa": ("fleiss1971", "gwet2014"),
    "conger_kappa": ("conger1980", "gwet2014"),
    "light_kappa": ("light1971",),
    "brennan_prediger": ("bp1981", "gwet2014"),
    "gwet_ac1": ("gwet2008", "gwet2014"),
    "gwet_ac2": ("gwet2014",),
    "krippendorff_alpha": ("kripp2004", "kripp2011", "gwet2014"),
    "percent_agreement": ("gwet2014",),
    "informational_agreement": ("cfg2020", "efron1987"),
    "icc": ("sf1979", "mw1996"),
}

# ------------------------------------------------------------------------ benchmarks


def icc_tone(low: float, estimate: float) -> Tone:
    """Good when the lower end of the interval reaches 0.75 (Koo & Li's "good"), fair from
    0.5, poor below."""
    anchor = low if math.isfinite(low) else estimate
    if not math.isfinite(anchor):
        return "neutral"
    return "good" if anchor >= 0.75 else "fair" if anchor >= 0.5 else "poor"


def tone_of(low: float, estimate: float) -> Tone:
    """Good when the lower end of the interval reaches 0.8, fair from 0.6 (or the estimate
    when there is no interval), poor below."""
    anchor = low if math.isfinite(low) else estimate
    if not math.isfinite(anchor):
        return "neutral"
    if anchor >= 0.8:
        return "good"
    if anchor >= 0.6:
        return "fair"
    return "poor"


# ------------------------------------------------------------------- shared results


def _interval(ctx: Context, coef: Any) -> tuple[float, float, str]:
    """The interval of a coefficient at the report's level and how it was computed."""
    table = ctx._cache.get("agreement")
    if table is not None and hasattr(table, "interval") and coef in table.coefficients:
        low, high, how = table.interval(coef, ctx.confidence_level)
        return float(low), float(high), str(how)
    ci = coef.confidence_interval(ctx.confidence_level)
    return float(ci.low), float(ci.high), str(getattr(coef, "ci_description", ""))


def coefficients(ctx: Context) -> list[Any]:
    """Every coefficient the report shows, computed once: ``agreement(...)`` when available
    (else Fleiss' kappa and Krippendorff's alpha), plus Cohen's kappa and IA for two raters."""
    ratings = ctx.ratings
    if ratings is None:
        return []

    def compute() -> list[Any]:
        out: list[Any] = []
        agreement = _api("agreement")
        if agreement is not None and ctx.numeric:
            # measurements: the ICC and alpha at the data's level; coefficients that count
            # exact matches of values (kappas, percent agreement) mean nothing here
            table = agreement(ratings, coefficients=["krippendorff_alpha", "icc"])
            ctx._cache["agreement"] = table
            out.extend(
                c
                for c in table.coefficients
                if not (c.name == "krippendorff_alpha" and c.weights == "nominal")
            )
            return out
        if agreement is not None:
            table = agreement(ratings)
            ctx._cache["agreement"] = table
            out.extend(table.coefficients)
        else:
            fleiss = _api("fleiss_kappa")
            alpha = _api("krippendorff_alpha")
            if fleiss is not None:
                out.append(fleiss(ratings))
            if alpha is not None:
                out.append(alpha(ratings, level="nominal"))
                if ratings.level != "nominal":
                    out.append(alpha(ratings))
        if two_raters(ctx):
            cohen = _api("cohen_kappa")
            ia = _api("informational_agreement")
            if cohen is not None:
                out.insert(0, cohen(ratings))
                if ratings.level != "nominal":
                    out.insert(1, cohen(ratings, weights="quadratic"))
            if ia is not None:
                out.insert(1, ia(ratings, n_boot=ctx.n_boot, rng=ctx.seed))
        return out

    result: list[Any] = ctx.cached("coefficients", compute)
    return result


def _api(name: str) -> Callable[..., Any] | None:
    from ._context import api

    return api(name)


def two_raters(ctx: Context) -> bool:
    """Whether the ratings come from exactly two raters."""
    return ctx.ratings is not None and ctx.ratings.n_raters == 2


def _by_key(ctx: Context) -> dict[str, Any]:
    """Each coefficient by ``name:weights`` (an ICC by ``icc:<form>``), first one kept."""
    return _keyed(coefficients(ctx))


def primary(ctx: Context) -> Any | None:
    """The headline coefficient, following the level of measurement
    (:func:`accord._verdict.headline`)."""
    if ctx.ratings is None:
        return None
    return headline(coefficients(ctx), ctx.ratings.level, two_raters=two_raters(ctx))


def rater_test(ctx: Context) -> Any | None:
    """``rater_permutation_test(ratings)``, computed once (None when not available)."""
    fn = _api("rater_permutation_test")
    if fn is None or ctx.ratings is None or ctx.numeric:
        return None
    return ctx.cached("rater_test", lambda: fn(ctx.ratings, rng=ctx.seed))


def _rater_test_note(test: Any) -> MethodNote:
    return MethodNote(
        "Which rater or pair stands out",
        f"Permutation test: {test.method}.",
        (REF["wy1993"], REF["simon2010"]),
    )


def consensus_result(ctx: Context) -> Any | None:
    """``accord.consensus(ratings)``, computed once (None when not available)."""
    fn = _api("consensus")
    if fn is None or ctx.ratings is None:
        return None
    if ctx.gold_labels is None:
        return ctx.cached("consensus", lambda: fn(ctx.ratings))
    return ctx.cached("consensus", lambda: fn(ctx.ratings, gold=ctx.gold_labels))


# ----------------------------------------------------------------------- the sections


def build_summary(ctx: Context) -> Section | None:
    """ "Can I trust these raters?": the headline coefficient with its interval, read
    against the usual benchmarks."""
    ratings = ctx.ratings
    if ratings is None:
        if ctx.scores and ctx.frame is not None:
            return _panel_summary(ctx)
        if ctx.confidence is not None:
            return _confidence_summary(ctx)
        return None
    head = primary(ctx)
    if head is None:
        raise SectionUnavailable("the summary needs an agreement coefficient")
    if ctx.numeric:
        return _numeric_summary(ctx, head)
    rep = ratings.report
    low, high, _ = _interval(ctx, head)
    label = coefficient_label(head)
    tone = tone_of(low, head.statistic)
    items: list[KeyFigure] = [
        KeyFigure(
            label,
            fmt(head.statistic),
            f"{ctx.level_pct} CI {fmt_ci(low, high)}",
            tone,
        )
    ]
    coefs = coefficients(ctx)
    if ratings.level == "ordinal":  # a second weighted statistic; unweighted ones in the table
        by_key = _by_key(ctx)
        extra = [
            by_key[k]
            for k in ("krippendorff_alpha:ordinal", "fleiss_kappa:quadratic")
            if k in by_key and by_key[k] is not head
        ]
    else:
        extra = [
            c
            for c in coefs
            if c is not head
            and getattr(c, "weights", "identity") in ("identity", "nominal")
            and c.name in ("informational_agreement", "krippendorff_alpha", "fleiss_kappa")
        ]
    for c in extra[:1]:
        c_low, c_high, _ = _interval(ctx, c)
        items.append(
            KeyFigure(
                coefficient_label(c),
                fmt(c.statistic),
                f"{ctx.level_pct} CI {fmt_ci(c_low, c_high)}",
                tone_of(c_low, c.statistic),
            )
        )
    pa = next((c for c in coefs if c.name == "percent_agreement"), None)
    if pa is not None:
        items.append(KeyFigure("Raw agreement", fmt_pct(pa.statistic), "of rating pairs agree"))
    elif two_raters(ctx) and hasattr(head, "percent_agreement"):
        items.append(
            KeyFigure("Raw agreement", fmt_pct(head.percent_agreement), "of items on the diagonal")
        )
    items.append(
        KeyFigure(
            "Data",
            f"{fmt_int(rep.items)} items",
            f"{fmt_int(rep.ratings)} ratings by {fmt_int(rep.raters)} raters",
        )
    )
    if math.isfinite(head.statistic):
        span = (
            f" The {ctx.level_pct} interval runs from {landis_koch(low)} to {landis_koch(high)}."
            if math.isfinite(low) and math.isfinite(high)
            else ""
        )
        weighted = (
            " Weighted: a disagreement counts by how far apart the two categories are, so "
            f"{ratings.categories[0]} against {ratings.categories[-1]} weighs more than "
            "neighbours; the unweighted coefficients are in the table."
            if ratings.level == "ordinal" and getattr(head, "weights", "identity") != "identity"
            else ""
        )
        lead = (
            f"{verdict(head, low, high, ctx.confidence_level, 3)}, on "
            f"{fmt_int(head.n_items)} items.{span}{weighted}"
        )
    else:
        lead = f"{label} is undefined for these data: {head.reason or 'see the coefficient table'}."
    blocks: list[Block] = [KeyFigures(tuple(items))]
    if head.name == "krippendorff_alpha" or any(c.name == "krippendorff_alpha" for c in coefs):
        alpha = next(
            (c for c in coefs if c.name == "krippendorff_alpha" and c.weights == ratings.level),
            None,
        )
        if alpha is not None and math.isfinite(alpha.statistic):
            reading = (
                "meets it"
                if alpha.statistic >= 0.8
                else "allows only tentative conclusions"
                if alpha.statistic >= 0.667
                else "falls short of it"
            )
            blocks.append(
                Paragraph(
                    f"Krippendorff (2004) asks for alpha of at least 0.800 before relying on "
                    f"coded data (0.667 for tentative conclusions); {coefficient_label(alpha)} "
                    f"= {fmt(alpha.statistic)} {reading}."
                )
            )
    blocks.append(
        Note(
            "Agreement is not accuracy: raters who share a bias agree. Where a reference "
            "standard exists, compare each rater with it as well."
        )
    )
    return Section(
        "summary",
        "Can I trust these raters?",
        lead,
        tuple(blocks),
        (
            MethodNote(
                "Benchmarks",
                "Kappa-type values are named with the bands of Landis & Koch (1977): below 0 "
                "poor, 0-0.20 slight, 0.21-0.40 fair, 0.41-0.60 moderate, 0.61-0.80 "
                "substantial, 0.81-1 almost perfect; both ends of the interval are named, "
                "since a band read off the estimate alone overstates what the data show. "
                "Krippendorff's (2004) thresholds (0.800, 0.667) are quoted for alpha. The "
                "colour of a headline figure follows the lower end of its interval: at least "
                "0.8 green, at least 0.6 amber, else red. Benchmarks are conventions, not "
                "tests.",
                (REF["lk1977"], REF["kripp2004"]),
            ),
        ),
    )


def _numeric_summary(ctx: Context, head: Any) -> Section:
    """The headline for measurements: the ICC (absolute agreement, single rater) and alpha at
    the data's level, read against Koo & Li's (2016) bands; no percent agreement."""
    ratings = ctx.ratings
    assert ratings is not None
    rep = ratings.report
    low, high, _ = _interval(ctx, head)
    label = coefficient_label(head)
    is_icc = head.name == "icc"
    items = [
        KeyFigure(
            label,
            fmt(head.statistic),
            f"{ctx.level_pct} CI {fmt_ci(low, high)}",
            icc_tone(low, head.statistic) if is_icc else tone_of(low, head.statistic),
        )
    ]
    alpha = _by_key(ctx).get(f"krippendorff_alpha:{ratings.level}")
    if alpha is not None and alpha is not head:
        a_low, a_high, _ = _interval(ctx, alpha)
        items.append(
            KeyFigure(
                coefficient_label(alpha),
                fmt(alpha.statistic),
                f"{ctx.level_pct} CI {fmt_ci(a_low, a_high)}",
                tone_of(a_low, alpha.statistic),
            )
        )
    items.append(
        KeyFigure(
            "Data",
            f"{fmt_int(rep.items)} items",
            f"{fmt_int(rep.ratings)} measurements by {fmt_int(rep.raters)} raters",
        )
    )
    if math.isfinite(head.statistic):
        span = (
            f" The {ctx.level_pct} interval runs from {fmt(low)} ({koo_li(low)}) to "
            f"{fmt(high)} ({koo_li(high)})."
            if math.isfinite(low) and math.isfinite(high)
            else ""
        )
        lead = (
            f"{verdict(head, low, high, ctx.confidence_level, 3)}, on "
            f"{fmt_int(head.n_items)} items.{span}"
        )
    else:
        lead = f"{label} is undefined for these data: {head.reason or 'see the coefficient table'}."
    blocks: list[Block] = [
        KeyFigures(tuple(items)),
        Paragraph(
            "The ICC for absolute agreement counts a rater who measures systematically high "
            "or low as disagreement; the consistency form (C,1), in the table, does not. "
            "Each rater's mean difference from the others, in the data's units, is in the "
            "raters section."
        ),
        Note(
            "Agreement is not accuracy: raters who share a bias agree. Where a reference "
            "measurement exists, compare each rater with it as well."
        ),
    ]
    return Section(
        "summary",
        "Can I trust these raters?",
        lead,
        tuple(blocks),
        (
            MethodNote(
                "Benchmarks",
                "ICC values are named with the bands of Koo & Li (2016): below 0.5 poor, "
                "0.5-0.75 moderate, 0.75-0.9 good, above 0.9 excellent; both ends of the "
                "interval are named. The colour of the ICC figure follows the lower end of "
                "its interval: at least 0.75 green, at least 0.5 amber, else red. "
                "Benchmarks are conventions, not tests.",
                (REF["kl2016"],),
            ),
        ),
    )


def _panel_summary(ctx: Context) -> Section | None:
    """The headline of a page with scores only: what the calibration found, in one line."""
    fn = _api("calibrate_panel")
    if fn is None or not (ctx.item and ctx.rater):
        return None
    column = ctx.scores[0]
    weights = ctx.score_confidence.get(column)
    result = ctx.cached(
        f"panel:{column}",
        lambda: fn(
            ctx.frame,
            item=ctx.item,
            rater=ctx.rater,
            score=column,
            confidence=weights,
            rng=ctx.seed,
        ),
    )
    spread = float(result.biases["bias"].std(ddof=1)) if len(result.biases) > 1 else math.nan
    lead = f"{panel_verdict(result, column)}. The calibrated values below remove the biases."
    figs = (
        KeyFigure("Bias spread (SD)", fmt(spread, 2), f"{column} units, across raters"),
        KeyFigure("Items", fmt_int(result.n_items), f"{fmt_int(result.n_assessments)} scores"),
        KeyFigure("Raters", fmt_int(result.n_raters), f"{result.n_components} component(s)"),
    )
    return Section("summary", "What do the scores say?", lead, (KeyFigures(figs),))


def _nce_reading(nce: Any) -> tuple[str, Tone]:
    """What an NCE value means against its baseline, a constant confidence."""
    value = float(nce.statistic)
    const = f"always stating the overall accuracy ({fmt_pct(nce.p_correct)}), which scores NCE 0"
    if not math.isfinite(value):
        return f"NCE is undefined: {getattr(nce, 'reason', None) or 'see the table'}.", "neutral"
    if value < 0:
        return (
            f"The confidences are worse than a constant: NCE {fmt(value)} is below 0, the "
            f"score of {const}. Their log loss, {fmt(nce.log_loss_bits)} bits per unit, is "
            f"above the constant's {fmt(nce.h_max)} bits: they mislead more than they inform.",
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


def _confidence_summary(ctx: Context) -> Section | None:
    """The headline of a page with confidences only: NCE against its baseline."""
    fn = _api("normalized_cross_entropy")
    if fn is None or ctx.frame is None or ctx.correct is None or ctx.confidence is None:
        return None
    nce = _nce_result(ctx, fn)
    text, tone = _nce_reading(nce)
    figs = (
        KeyFigure("NCE", fmt(nce.statistic), "0 = a constant confidence; 1 = perfect", tone),
        KeyFigure("Accuracy", fmt_pct(nce.p_correct), f"of {fmt_int(nce.n)} scored units"),
    )
    return Section("summary", "Can I trust these confidences?", text, (KeyFigures(figs),))


def _nce_result(ctx: Context, fn: Callable[..., Any]) -> Any:
    """``normalized_cross_entropy`` on the rows with a confidence and a correctness value."""
    frame = ctx.frame
    assert frame is not None and ctx.confidence is not None and ctx.correct is not None
    keep = frame[ctx.confidence].notna() & frame[ctx.correct].notna()
    sub = frame.loc[keep]
    groups = sub[ctx.rater] if ctx.rater and ctx.rater in sub.columns else None
    return ctx.cached("nce", lambda: fn(sub[ctx.correct], sub[ctx.confidence], groups=groups))


def build_read(ctx: Context) -> Section | None:
    """What was read: rows, items, raters, missing, dropped and why."""
    ratings = ctx.ratings
    frame = ctx.frame
    if ratings is None and frame is None:
        return None
    rows: list[tuple[str, str]] = []
    blocks: list[Block] = []
    if ratings is not None:
        rep = ratings.report
        rows += [
            ("source", rep.source or ctx.source or "(in memory)"),
            ("rows read", fmt_int(rep.rows)),
            ("ratings kept", fmt_int(rep.ratings)),
            ("items", fmt_int(rep.items)),
            ("raters", fmt_int(rep.raters)),
            ("missing labels", fmt_int(rep.missing)),
            ("rows dropped", fmt_int(rep.dropped)),
            ("level of measurement", ratings.level),
        ]
        if ctx.numeric:  # measurements: their range, not a list of "categories"
            rows.append(
                (
                    "values",
                    f"{ratings.categories[0]} to {ratings.categories[-1]} "
                    f"({fmt_int(ratings.n_categories)} distinct)",
                )
            )
        else:
            rows.append(
                (
                    "categories"
                    + (" (declared)" if ratings.categories_declared else " (observed)"),
                    ", ".join(str(c) for c in ratings.categories),
                )
            )
        counts = np.bincount(ratings.item_codes, minlength=ratings.n_items)
        rated = counts[counts > 0]
        if rated.size:
            median = float(np.median(rated))
            rows.append(
                (
                    "ratings per item",
                    f"{int(rated.min())} to {int(rated.max())} (median {median:g})",
                )
            )
        lead = str(rep)[0].upper() + str(rep)[1:] + "."
        if rep.reasons:
            blocks.append(
                Table(
                    ("reason", "rows dropped"),
                    tuple((str(k), fmt_int(v)) for k, v in rep.reasons.items()),
                    (False, True),
                    caption="Every row not kept, by reason.",
                )
            )
    else:
        assert frame is not None
        rows += [("source", ctx.source or "(in memory)"), ("rows read", fmt_int(len(frame)))]
        lead = f"Read {len(frame):,} rows."
    columns = [
        (role, name)
        for role, name in (
            ("item", ctx.item),
            ("rater", ctx.rater),
            ("label", ctx.label),
            ("confidence", ctx.confidence),
            ("correct", ctx.correct),
            ("gold", ctx.gold),
        )
        if name
    ]
    for score in ctx.scores:
        columns.append(("score", score))
        if score in ctx.score_confidence:
            columns.append((f"confidence of {score}", ctx.score_confidence[score]))
    rows.append(("columns", ", ".join(f"{role}: {name}" for role, name in columns)))
    blocks.insert(0, Table(("", ""), tuple(rows), (False, False)))
    return Section(
        "read",
        "What was read",
        lead,
        tuple(blocks),
        (
            MethodNote(
                "Reading",
                "One row per rating (item, rater, label). Missing labels (empty, NaN, None) "
                "are not ratings: they are left out and counted"
                + (
                    ". Labels are read as numbers (measurements). Items with fewer than two "
                    "ratings enter no comparison."
                    if ctx.numeric
                    else ", never made a category. Items with fewer than two ratings enter no "
                    "agreement pair and are counted as unpairable. Categories are the declared "
                    "domain when given, else the observed labels in sorted order."
                ),
            ),
        ),
    )


def build_coefficients(ctx: Context) -> Section | None:
    """The coefficient table with intervals, and the forest plot."""
    if ctx.ratings is None:
        return None
    coefs = coefficients(ctx)
    if not coefs:
        raise SectionUnavailable("the coefficient table needs accord.agreement or fleiss_kappa")
    labels: list[str] = []
    est: list[float] = []
    lows: list[float] = []
    highs: list[float] = []
    rows: list[tuple[str, ...]] = []
    methods: list[MethodNote] = []
    ci_methods: list[str] = []
    seen: set[str] = set()
    numeric = ctx.numeric
    for c in coefs:
        low, high, how = _interval(ctx, c)
        label = coefficient_label(c)
        if c.name != "percent_agreement":  # not chance-corrected: off the kappa scale
            labels.append(short_label(c))
            est.append(float(c.statistic))
            lows.append(low)
            highs.append(high)
        note = c.reason or (
            ""
            if math.isfinite(low)
            else "no analytic SE"
            if "no analytic SE" in c.method
            else "no interval"
        )
        if c.name == "icc" and not c.reason:
            note = ""  # no SE: the caption says the F-based interval is the ICC's inference
        rows.append(
            (
                label,
                fmt(c.statistic),
                fmt(c.standard_error),
                fmt_ci(low, high),
                fmt_int(c.n_items),
            )
            + (
                ()
                if numeric
                else (
                    fmt(getattr(c, "observed_agreement", math.nan)),
                    fmt(getattr(c, "chance_agreement", math.nan)),
                )
            )
            + (note,)
        )
        how = re.sub(r", truncated to \[[^\]]*\]", "", how)
        if how and math.isfinite(low) and how not in ci_methods:
            ci_methods.append(how)
        key = f"{c.name}:{c.method}"
        if key not in seen:
            seen.add(key)
            methods.append(
                MethodNote(
                    coefficient_label(c),
                    str(c.method),
                    tuple(REF[k] for k in _CITES.get(c.name, ())),
                )
            )
    svg = figures.forest_plot(
        "forest",
        labels,
        est,
        lows,
        highs,
        xlabel=f"coefficient and {ctx.level_pct} interval"
        + ("" if numeric else " (shaded: Landis & Koch bands)"),
        benchmarks=not numeric,
    )
    head = primary(ctx)
    lead = (
        f"{len(coefs)} coefficients for measurements: the intraclass correlations (each "
        "row names its form) and Krippendorff's alpha at the data's level. "
        if numeric
        else f"{len(coefs)} coefficients; they differ in how they model chance agreement, "
        "so read them together. "
    ) + (f"The headline is {coefficient_label(head)}." if head is not None else "")
    table = Table(
        ("coefficient", "estimate", "SE", f"{ctx.level_pct} CI", "items")
        + (() if numeric else ("observed", "chance"))
        + ("note",),
        tuple(rows),
        (False, True, True, True, True) + (() if numeric else (True, True)) + (False,),
        caption=(
            "ICC forms as McGraw & Wong (1996) name them, Shrout & Fleiss (1979) in brackets; "
            "A: absolute agreement, C: consistency (a constant offset between raters is not "
            "counted), 1: a single rater's measurement. "
            + (
                "An ICC has no SE here: its inference is the F-based interval. "
                if all(not math.isfinite(c.standard_error) for c in coefs if c.name == "icc")
                else ""
            )
            if numeric
            else "SE: general (non-null) standard error. Observed and chance: p_a and p_e of "
            "(p_a - p_e) / (1 - p_e). "
        )
        + "Intervals: "
        + "; ".join(ci_methods)
        + ("." if numeric else ", truncated to each coefficient's range."),
    )
    blocks: list[Block] = [
        Figure(
            svg,
            "Each coefficient with its interval."
            if numeric
            else "Each chance-corrected coefficient with its interval (percent agreement, "
            "which is not corrected for chance, is in the table). Shaded bands: Landis & Koch "
            "(1977).",
            "Forest plot of "
            + "; ".join(f"{lab} {fmt(e)}" for lab, e in zip(labels, est, strict=True)),
        ),
        table,
    ]
    fleiss = next((c for c in coefs if c.name == "fleiss_kappa" and c.weights == "identity"), None)
    per_cat = getattr(fleiss, "per_category", None)
    if (
        isinstance(per_cat, pd.DataFrame)
        and not per_cat.empty
        and not two_raters(ctx)
        and not numeric
    ):
        blocks.append(
            Details(
                "Agreement per category (Fleiss 1971)",
                (
                    Table(
                        ("category", "share of ratings", "kappa of the category"),
                        tuple(
                            (str(r.category), fmt_pct(r.proportion), fmt(r.kappa))
                            for r in per_cat.itertuples(index=False)
                        ),
                        (False, True, True),
                        caption="Each category against all others (Fleiss 1971, eq. 16): low "
                        "values mark the categories raters confuse.",
                    ),
                ),
            )
        )
    methods.append(
        MethodNote(
            "Intervals and p-values",
            f"{ctx.level_pct} intervals: "
            + "; ".join(ci_methods)
            + ". Analytic intervals are statistic +- t(1 - alpha/2, n_items - 1) x SE, "
            "truncated to the coefficient's range; bootstrap intervals resample items (the "
            f"unit of analysis) with replacement, seeded with {ctx.seed} so the report is "
            "reproducible."
            + (
                " ICC intervals are the classical F-based ones (Satterthwaite degrees of "
                "freedom for the two-way random forms)."
                if numeric
                else ""
            ),
            (REF["gwet2014"], REF["efron1987"]) + ((REF["mw1996"],) if numeric else ()),
        )
    )
    return Section("coefficients", "Agreement coefficients", lead, tuple(blocks), tuple(methods))


def build_two_raters(ctx: Context) -> Section | None:
    """Two raters: the table, kappa beside IA, specific agreement, the kappa-vs-negatives
    curve and the dichotomisation cuts."""
    ratings = ctx.ratings
    if ratings is None or not two_raters(ctx) or ctx.numeric:
        return None
    cohen = ctx.need("cohen_kappa", "the two-rater section")
    kappa = ctx.cached("cohen", lambda: cohen(ratings))
    x_name, y_name = (str(r) for r in kappa.raters)
    table = np.asarray(kappa.table, dtype=np.float64)
    cats = [str(c) for c in ratings.categories]
    blocks: list[Block] = []
    methods: list[MethodNote] = []
    figs: list[KeyFigure] = []
    k_low, k_high, _ = _interval(ctx, kappa)
    figs.append(
        KeyFigure(
            "Cohen's kappa",
            fmt(kappa.statistic),
            f"{ctx.level_pct} CI {fmt_ci(k_low, k_high)}",
            tone_of(k_low, kappa.statistic),
        )
    )
    ia_fn = _api("informational_agreement")
    ia = None
    if ia_fn is not None:
        ia = ctx.cached("ia", lambda: ia_fn(ratings, n_boot=ctx.n_boot, rng=ctx.seed))
        i_ci = ia.confidence_interval(ctx.confidence_level) if ia.replicates is not None else None
        figs.append(
            KeyFigure(
                "Informational agreement",
                fmt(ia.statistic),
                f"{ctx.level_pct} CI {fmt_ci(i_ci.low, i_ci.high)}" if i_ci else "",
                tone_of(i_ci.low if i_ci else math.nan, ia.statistic),
            )
        )
    figs.append(
        KeyFigure(
            "Raw agreement",
            fmt_pct(kappa.percent_agreement),
            f"kappa max {fmt(kappa.kappa_max)} given the marginals",
        )
    )
    blocks.append(KeyFigures(tuple(figs)))
    if ia is not None:
        blocks.append(
            Paragraph(
                "IA is the share of the less spread rater's information that the other "
                "rater's label carries (mutual information over the smaller entropy). It "
                "measures dependence, not agreement on the diagonal: two raters who always "
                "disagree in a fixed way have IA = 1 and kappa = -1, so read it beside kappa."
            )
        )
    blocks.append(
        Figure(
            figures.heatmap(
                "table2",
                table,
                cats,
                cats,
                vmin=0.0,
                vmax=float(np.nanmax(table)) if table.size else 1.0,
                cmap="Blues",
                colorbar_label="items",
                xlabel=y_name,
                ylabel=x_name,
                integer=True,
            ),
            f"Contingency table: rows {x_name}, columns {y_name}; the diagonal is agreement.",
            f"Contingency table of {x_name} against {y_name}",
        )
    )
    methods.append(
        MethodNote(
            "Cohen's kappa",
            str(kappa.method),
            tuple(REF[k] for k in _CITES["cohen_kappa"]),
        )
    )
    if ia is not None:
        methods.append(
            MethodNote(
                "Informational agreement",
                f"{ia.method}. Interval: bootstrap over items ({ia.n_boot} replicates, "
                f"{ia.default_ci_method}), seeded with {ctx.seed}.",
                (REF["cfg2020"], REF["shannon1948"], REF["efron1987"]),
            )
        )
    specific = _api("specific_agreement")
    if specific is not None:
        spec = ctx.cached("specific", lambda: specific(ratings))
        per_cat = spec.per_category
        if isinstance(per_cat, pd.DataFrame) and not per_cat.empty:
            blocks.append(
                Table(
                    (
                        "category",
                        f"both {x_name} and {y_name}",
                        x_name,
                        y_name,
                        "specific agreement",
                        f"{ctx.level_pct} CI",
                    ),
                    tuple(
                        (
                            str(r.category),
                            fmt_int(r.n_both),
                            fmt_int(r.n_x),
                            fmt_int(r.n_y),
                            fmt(r.specific_agreement),
                            fmt_ci(r.ci_low, r.ci_high),
                        )
                        for r in per_cat.itertuples(index=False)
                    ),
                    (False, True, True, True, True, True),
                    caption="Specific agreement per category, 2 n_kk / (n_k. + n_.k): how often "
                    "a label given by one rater is confirmed by the other.",
                )
            )
            methods.append(
                MethodNote(
                    "Specific agreement",
                    str(spec.method),
                    (REF["hr2005"], REF["gb1998"], REF["wilson1927"]),
                )
            )
    blocks.extend(_dichotomization_blocks(ctx, methods))
    blocks.extend(_kappa_curve_blocks(ctx, methods))
    lead = (
        f"{x_name} and {y_name} agree on {fmt_pct(kappa.percent_agreement)} of "
        f"{fmt_int(kappa.n_items)} items; Cohen's kappa {fmt(kappa.statistic)}"
        + (f", informational agreement {fmt(ia.statistic)}." if ia is not None else ".")
    )
    return Section("two-raters", "Two raters", lead, tuple(blocks), tuple(methods))


def _dichotomization_blocks(ctx: Context, methods: list[MethodNote]) -> list[Block]:
    ratings = ctx.ratings
    fn = _api("best_dichotomization")
    if ratings is None or fn is None or ratings.level == "nominal" or ratings.n_categories < 3:
        return []
    result = ctx.cached("dichotomization", lambda: fn(ratings))
    cuts = result.cuts
    best = result.best_kappa
    best_row = cuts.loc[cuts["cut"] == best].iloc[0] if best is not None else None
    svg = figures.dichotomization_plot(
        "cuts",
        [str(s) for s in cuts["split"]],
        cuts["kappa"].tolist(),
        cuts["informational_agreement"].tolist(),
        best=None if best is None else int(best) - 1,
    )
    rows = tuple(
        (
            str(r.split),
            fmt_int(r.n_low_low),
            fmt_int(r.n_low_high),
            fmt_int(r.n_high_low),
            fmt_int(r.n_high_high),
            fmt(r.kappa),
            fmt(r.informational_agreement),
        )
        for r in cuts.itertuples(index=False)
    )
    tones: tuple[Tone, ...] = tuple(
        "good" if best is not None and int(c) == best else "neutral" for c in cuts["cut"]
    )
    methods.append(
        MethodNote(
            "Dichotomisation",
            "Each cut c = 1..q-1 of the ordered scale collapses categories <= c against > c "
            "for both raters; Cohen's kappa and IA are computed on the 2 x 2 table "
            "(Casagrande, Fabris & Girometti 2020, Fig. 2).",
            (REF["cfg2020"],),
        )
    )
    text = (
        f"Split {best_row['split']} gives the highest kappa ({fmt(best_row['kappa'])}, IA "
        f"{fmt(best_row['informational_agreement'])}): the scale is read most reliably as "
        "that two-way decision."
        if best_row is not None
        else "Kappa is undefined at every cut."
    )
    return [
        Paragraph(text),
        Figure(
            svg,
            "Kappa and IA at every cut of the ordered scale into low | high; the best cut is "
            "shaded.",
            "Dichotomisation: "
            + "; ".join(
                f"{s} kappa {fmt(k)}" for s, k in zip(cuts["split"], cuts["kappa"], strict=True)
            ),
        ),
        Table(
            ("cut", "low, low", "low, high", "high, low", "high, high", "kappa", "IA"),
            rows,
            (False, True, True, True, True, True, True),
            caption="The 2 x 2 table of each cut (first rater first) with its kappa and IA.",
            row_tones=tones,
        ),
    ]


def _positive_of(ctx: Context) -> Any:
    ratings = ctx.ratings
    assert ratings is not None
    if ctx.positive is not None:
        return ctx.positive
    return ratings.categories[-1]


def _kappa_curve_blocks(ctx: Context, methods: list[MethodNote]) -> list[Block]:
    """Kappa against the number of negatives: for two categories, or for the best cut of an
    ordered scale (its high side as the positive class)."""
    ratings = ctx.ratings
    fn = _api("kappa_vs_negatives")
    if ratings is None or fn is None:
        return []
    if ratings.n_categories == 2:
        positive = _positive_of(ctx)
        curve = ctx.cached("kappa_curve", lambda: fn(ratings, positive=positive))
        what = f"positive class {positive}"
    elif "dichotomization" in ctx._cache and ctx._cache["dichotomization"].best_kappa is not None:
        cuts = ctx._cache["dichotomization"].cuts
        row = cuts.loc[cuts["cut"] == ctx._cache["dichotomization"].best_kappa].iloc[0]
        two_by_two = [
            [float(row["n_high_high"]), float(row["n_high_low"])],
            [float(row["n_low_high"]), float(row["n_low_low"])],
        ]
        curve = ctx.cached("kappa_curve", lambda: fn(two_by_two))
        what = f"positive class: the high side of {row['split']}"
    else:
        return []
    data = curve.curve
    observed = data.loc[data["d"] == curve.observed_d, "kappa"]
    observed_kappa = float(observed.iloc[0]) if len(observed) else math.nan
    methods.append(
        MethodNote(
            "Kappa and the number of negatives",
            "Cohen's kappa of [[a, b], [c, d]] evaluated as the number d of items both raters "
            "call negative grows, with a, b, c fixed; its limit is the positive specific "
            "agreement PSA = 2a / (2a + b + c), the F-measure (Hripcsak & Rothschild 2005).",
            (REF["hr2005"],),
        )
    )
    return [
        Figure(
            figures.kappa_curve(
                "kappa-curve",
                data["d"].to_numpy(),
                data["kappa"].to_numpy(),
                psa=float(curve.positive_agreement),
                observed_d=float(curve.observed_d),
                observed_kappa=observed_kappa,
            ),
            f"Kappa as the number of agreed negatives d grows ({what}; a = {fmt_int(curve.a)}, "
            f"b = {fmt_int(curve.b)}, c = {fmt_int(curve.c)}). Kappa depends on how many easy "
            "negatives were counted; PSA does not.",
            f"Kappa against negatives, limit PSA {fmt(curve.positive_agreement)}",
        )
    ]


def build_pairwise(ctx: Context) -> Section | None:
    """Heatmap of a two-rater measure over every pair of raters (three raters or more)."""
    ratings = ctx.ratings
    if ratings is None or ratings.n_raters < 3 or ctx.numeric:
        return None
    limit = 40
    fn = ctx.need("pairwise_agreement", "the pairs section")
    result = ctx.cached("pairwise", lambda: fn(ratings))
    matrix = result.matrix
    names = [str(r) for r in matrix.index]
    values = matrix.to_numpy(dtype=np.float64)
    measure = "Cohen's kappa" if result.measure == "cohen_kappa" else str(result.measure)
    mean, sd, n_pairs = float(result.mean), float(result.sd), int(result.n_pairs)
    how = "accord.pairwise_agreement (Cohen's kappa of each pair's contingency table)"
    shown = list(range(len(names)))
    note: list[Block] = []
    if len(names) > limit:
        per_rater = np.bincount(ratings.rater_codes, minlength=ratings.n_raters)
        order = np.argsort(-per_rater, kind="stable")[:limit]
        shown = sorted(int(i) for i in order)
        note.append(Note(f"Showing the {limit} raters with the most ratings of {len(names)}."))
    sub = values[np.ix_(shown, shown)]
    labels = [names[i] for i in shown]
    vmin = -1.0 if measure == "Cohen's kappa" else 0.0
    svg = figures.heatmap(
        "pairwise",
        sub,
        labels,
        labels,
        vmin=vmin,
        vmax=1.0,
        cmap="RdBu" if vmin < 0 else "Blues",
        colorbar_label=measure,
    )
    blocks: list[Block] = [*note]
    extra_methods: tuple[MethodNote, ...] = ()
    test = rater_test(ctx)
    if test is not None:
        extra_methods = (_rater_test_note(test),)
        blocks.append(Paragraph(_pairs_text(test)))
    blocks.append(
        Figure(
            svg,
            f"{measure} of every pair of raters that rated items in common (blank: no common "
            "items).",
            f"Heatmap of pairwise {measure} among {len(labels)} raters",
        )
    )
    lead = (
        f"Mean {measure} over {n_pairs} pairs of raters: {fmt(mean)} (SD {fmt(sd)}). A rater "
        "whose row is pale agrees with nobody in particular."
    )
    return Section(
        "pairwise",
        "Pairs of raters",
        lead,
        tuple(blocks),
        (
            MethodNote(
                "Pairwise agreement",
                f"{measure} per pair: {how}; mean and SD over pairs.",
                (REF["cohen1960"], REF["light1971"]),
            ),
            *extra_methods,
        ),
    )


def _pairs_text(test: Any) -> str:
    """Which pairs agree less than interchangeable raters would, or that none does."""
    pairs = test.pairs
    tested = int(pairs["pvalue"].notna().sum())
    if test.reason:
        return f"No pair is singled out: {test.reason}."
    flagged = pairs[pairs["stands_out"]]
    if flagged.empty:
        return (
            f"No pair of raters agrees less than the others beyond the noise: of {tested} "
            f"pairs sharing at least {test.min_items} items, none falls below what "
            f"interchangeable raters give (permutation test, adjusted p >= "
            f"{fmt(test.significance, 2)}). The heatmap's palest cell is not a finding."
        )
    shown = flagged.head(5)
    names = "; ".join(
        f"{r.rater_a} and {r.rater_b} ({fmt_pct(r.agreement, 0)} agreement on "
        f"{fmt_int(r.n_items)} shared items where {fmt_pct(r.expected_agreement, 0)} was "
        f"expected; adjusted p {fmt_p(r.pvalue)})"
        for r in shown.itertuples(index=False)
    )
    return (
        f"{len(flagged)} of {tested} pairs agree less than interchangeable raters would "
        f"(permutation test, adjusted for all pairs): {names}."
    )


def build_items(ctx: Context) -> Section | None:
    """The distribution of item entropy and the most contested items (categories only: for
    measurements, exact matches of values mean nothing)."""
    ratings = ctx.ratings
    if ratings is None or ctx.numeric:
        return None
    cons = consensus_result(ctx)
    cats = list(ratings.categories)
    q = len(cats)
    top_n = 10
    if cons is not None:
        items = cons.items
        entropy = items["entropy"].to_numpy(dtype=np.float64)
        mean_entropy = float(cons.summary.mean_entropy)
        top = cons.most_contested(top_n)
        count_cols = [f"count_{c}" for c in cons.categories]
        rows = []
        for r in top.to_dict(orient="records"):
            spread = " \u00b7 ".join(
                f"{c} \u00d7{int(r[col])}"
                for c, col in zip(cons.categories, count_cols, strict=True)
                if r.get(col)
            )
            rows.append(
                (
                    str(r["item"]),
                    fmt_int(r["n_ratings"]),
                    spread,
                    f"{r['mode']} ({fmt_pct(r['modal_share'], 0)})",
                    fmt(r["entropy"]),
                )
            )
        method = MethodNote(
            "Consensus diagnostics", str(cons.method), (REF["simon2010"], REF["shannon1948"])
        )
    else:
        from ..information import entropy as entropy_fn
        from ..stats import ItemCategoryCounts

        counts = ItemCategoryCounts.from_ratings(ratings).dense()
        entropy = np.asarray(entropy_fn(counts, axis=1), dtype=np.float64)
        mean_entropy = float(np.nanmean(entropy)) if np.isfinite(entropy).any() else math.nan
        order = np.argsort(-np.nan_to_num(entropy, nan=-1.0), kind="stable")[:top_n]
        rows = []
        for i in order:
            if not math.isfinite(entropy[i]):
                continue
            n_i = int(counts[i].sum())
            mode = int(np.argmax(counts[i]))
            rows.append(
                (
                    str(ratings.items[i]),
                    fmt_int(n_i),
                    " \u00b7 ".join(
                        f"{cats[k]} \u00d7{int(counts[i, k])}" for k in range(q) if counts[i, k]
                    ),
                    f"{cats[mode]} ({fmt_pct(counts[i, mode] / n_i, 0)})",
                    fmt(entropy[i]),
                )
            )
        method = MethodNote(
            "Entropy per item",
            "Shannon entropy in bits of each item's ratings, -sum p_c log2 p_c with "
            "0 log 0 = 0 (accord.entropy on the item x category counts).",
            (REF["shannon1948"], REF["simon2010"]),
        )
    finite = entropy[np.isfinite(entropy)]
    if finite.size == 0:
        return None
    unanimous = int(np.sum(finite <= 1e-12))
    top_h = math.log2(q) if q > 1 else 1.0
    bins = np.linspace(0.0, top_h, 21) if top_h > 0 else 10
    svg = figures.histogram(
        "entropy",
        finite,
        bins=bins,
        xlabel=f"entropy of the item's ratings (bits; 0 = unanimous, {top_h:.2f} = evenly spread)",
        marker=mean_entropy,
        marker_label=f"mean {mean_entropy:.2f}",
    )
    lead = (
        f"{unanimous} of {finite.size} items are unanimous; the mean entropy is "
        f"{fmt(mean_entropy)} bits of a possible {fmt(top_h)}."
    )
    blocks: list[Block] = [
        Figure(
            svg,
            "How contested the items are: the entropy of each item's ratings.",
            f"Histogram of item entropy; {unanimous} unanimous items of {finite.size}",
        ),
        Table(
            ("item", "ratings", "labels given", "modal label", "entropy (bits)"),
            tuple(rows),
            (False, True, False, False, True),
            caption=f"The {len(rows)} most contested items, highest entropy first.",
        ),
    ]
    return Section("items", "Contested items", lead, tuple(blocks), (method,))


def build_raters(ctx: Context) -> Section | None:
    """Raters ranked by how far their ratings stray from the consensus, with profiles."""
    ratings = ctx.ratings
    gold = ctx.gold_labels is not None
    if ratings is not None and ctx.numeric:
        return _numeric_raters(ctx)
    # with two raters the pair is the consensus: the section is then only about the gold labels
    if ratings is None or ratings.n_raters < (2 if gold else 3):
        return None
    cons = consensus_result(ctx)
    if cons is None:
        raise SectionUnavailable("raters ranked by deviation need accord.consensus")
    raters = cons.raters
    limit = 40
    shown = raters.head(limit)
    test = rater_test(ctx) if ratings.n_raters >= 3 else None
    tested: dict[Any, tuple[float, float, bool]] = (
        {r.rater: (r.z, r.pvalue, bool(r.stands_out)) for r in test.raters.itertuples(index=False)}
        if test is not None
        else {}
    )
    gold_ci: dict[Any, tuple[float, float]] = {}
    wilson = _api("wilson_interval")
    if gold and wilson is not None and "gold_accuracy" in raters:
        n_gold = raters["gold_n"].to_numpy(dtype=np.float64)
        acc = raters["gold_accuracy"].to_numpy(dtype=np.float64)
        g_low, g_high = wilson(acc * n_gold, n_gold, ctx.confidence_level)
        gold_ci = {
            r: (float(a), float(b)) for r, a, b in zip(raters["rater"], g_low, g_high, strict=True)
        }
    classes = ("good", "acceptable", "poor", "very poor")
    share_cols = [f"share_{c.replace(' ', '_')}" for c in classes]
    svg = figures.class_bars(
        "rater-classes",
        [str(r) for r in shown["rater"]],
        np.column_stack([shown[c].to_numpy(dtype=np.float64) for c in share_cols]),
        classes,
    )
    rows = tuple(
        (
            fmt_int(r["rank"]),
            str(r["rater"]),
            fmt_int(r["n_ratings"]),
            fmt(r["mean_deviation"]),
            fmt_pct(r["share_poor"] + r["share_very_poor"], 0),
            fmt_pct(r.get("consensus_agreement", math.nan), 0),
            fmt(r.get("consensus_kappa", math.nan)),
            fmt(r.get("consensus_ia", math.nan)),
        )
        + (
            (
                fmt(tested.get(r["rater"], (math.nan,) * 2)[0], 2),
                fmt_p(tested.get(r["rater"], (math.nan,) * 2)[1]),
            )
            if test is not None
            else ()
        )
        + (
            (
                fmt_int(r.get("gold_n", 0)),
                fmt_pct(r.get("gold_accuracy", math.nan), 0),
                fmt_ci(*gold_ci.get(r["rater"], (math.nan, math.nan)), digits=2)
                if gold_ci
                else "\u2013",
                fmt(r.get("gold_kappa", math.nan)),
            )
            if gold
            else ()
        )
        for r in shown.to_dict(orient="records")
    )
    tones: tuple[Tone, ...] = tuple(
        "poor" if tested.get(r, (0.0, 1.0, False))[2] else "neutral" for r in shown["rater"]
    )
    blocks: list[Block] = [
        Figure(
            svg,
            "Share of each rater's ratings in each deviation class, raters who stray most at "
            "the top.",
            "Deviation classes per rater",
        ),
        Table(
            (
                "rank",
                "rater",
                "ratings",
                "mean deviation (bits)",
                "poor or worse",
                "agrees with consensus",
                "kappa vs consensus",
                "IA vs consensus",
            )
            + (("z", "adjusted p") if test is not None else ())
            + (
                ("items with gold", "accuracy vs gold", f"{ctx.level_pct} CI", "kappa vs gold")
                if gold
                else ()
            ),
            rows,
            (True, False, True, True, True, True, True, True)
            + ((True, True) if test is not None else ())
            + ((True,) * 4 if gold else ()),
            caption="Deviation = surprisal of the rating minus the entropy of its item: above "
            "0, the rater's choices are more surprising than the panel's average choice. "
            "Consensus: the unique modal label of the other raters of the item."
            + (
                " z and adjusted p: the permutation test of whether the rater strays more "
                "than interchangeable raters would (a highlighted row does)."
                if test is not None
                else ""
            )
            + (
                f" Gold: the label in column {ctx.gold} (accuracy: share of the rater's "
                "ratings of gold items equal to it, with its Wilson interval; kappa: Cohen's "
                "kappa against it)."
                if gold
                else ""
            ),
            row_tones=tones,
        ),
    ]
    from ..stats import RaterCategoryCounts

    profile = RaterCategoryCounts.from_ratings(ratings).dense().astype(np.float64)
    order = [
        int(np.flatnonzero(ratings.raters == r)[0])
        for r in shown["rater"]
        if (ratings.raters == r).any()
    ]
    if order:
        shares = profile[order] / np.maximum(profile[order].sum(axis=1, keepdims=True), 1.0)
        blocks.append(
            Figure(
                figures.heatmap(
                    "rater-profiles",
                    shares,
                    [str(ratings.raters[i]) for i in order],
                    [str(c) for c in ratings.categories],
                    vmin=0.0,
                    vmax=1.0,
                    cmap="Blues",
                    colorbar_label="share of the rater's ratings",
                ),
                "Profiles: how each rater spreads their ratings over the categories (a rater "
                "who over-uses a category shows a darker cell than the others).",
                "Rater profiles over the categories",
            )
        )
    lead = _stray_text(test, raters) + (
        " Agreement with the consensus is not correctness: the lone dissenter may be the "
        "one who is right."
    )
    if gold and "gold_accuracy" in raters:
        lead += " " + _gold_lead(ctx, raters, gold_ci)
    if len(raters) > limit:
        blocks.insert(0, Note(f"Showing the {limit} raters who stray most of {len(raters)}."))
    methods = [
        *((_rater_test_note(test),) if test is not None else ()),
        MethodNote(
            "Rater deviation",
            "Surprisal s = -log2 p of each rating, p the share of the item's ratings in the "
            "same category; deviation d = s - e, e the item's entropy; classes on d: good "
            "<= 0 < acceptable <= 1 < poor <= 2 < very poor (bits). Raters ranked by mean "
            "deviation; each rater also compared with the leave-one-out consensus label "
            "(percent agreement, Cohen's kappa, informational agreement).",
            (REF["simon2010"], REF["cohen1960"], REF["cfg2020"]),
        ),
    ]
    if gold:
        methods.append(
            MethodNote(
                "Raters against the gold labels",
                f"Each rater's ratings of the items with a gold label (column {ctx.gold}) "
                "against that label: accuracy (share equal) with its Wilson score interval, "
                "and Cohen's kappa (chance from the rater's and the gold labels' marginal "
                "shares).",
                (REF["cohen1960"], REF["wilson1927"]),
            )
        )
    return Section(
        "raters",
        "Raters against the consensus" + (" and the gold labels" if gold else ""),
        lead,
        tuple(blocks),
        tuple(methods),
    )


def _numeric_raters(ctx: Context) -> Section | None:
    """Measurements: each rater's mean difference from the others, in the data's units."""
    ratings = ctx.ratings
    assert ratings is not None
    fn = ctx.need("rater_differences", "the raters section")
    diff = ctx.cached(
        "rater_differences",
        lambda: fn(ratings, confidence_level=ctx.confidence_level),
    )
    table = diff.table
    limit = 40
    shown = table.head(limit)
    rows = tuple(
        (
            str(r.rater),
            fmt_int(r.n_items),
            fmt(r.mean_difference, 2),
            fmt_ci(r.ci_low, r.ci_high, 2),
            fmt(r.mean_absolute_difference, 2),
            fmt(r.sd, 2),
            fmt_p(r.pvalue_adjusted),
        )
        for r in shown.itertuples(index=False)
    )
    tones: tuple[Tone, ...] = tuple("poor" if bool(x) else "neutral" for x in shown["stands_out"])
    flagged = table[table["stands_out"]]
    if ratings.n_raters == 2 and not flagged.empty:  # one offset, seen from either side
        first = flagged.sort_values("mean_difference", ascending=False, kind="stable").iloc[0]
        other = next(str(x) for x in table["rater"] if x != first["rater"])
        lead = (
            f"{first['rater']} measures {'higher' if first['mean_difference'] > 0 else 'lower'}"
            f" than {other} by {fmt(abs(first['mean_difference']), 2)} on average (the "
            f"Bland-Altman mean difference; {ctx.level_pct} CI "
            f"{fmt_ci(first['ci_low'], first['ci_high'], 2)}, adjusted p "
            f"{fmt_p(first['pvalue_adjusted'])}). The absolute-agreement ICC counts such an "
            "offset as disagreement."
        )
    elif flagged.empty:
        lead = (
            f"No rater measures systematically higher or lower than the others beyond the "
            f"noise: every {ctx.level_pct} interval of a mean difference is wide enough to "
            f"hold it, or its Holm-adjusted p-value is at least {fmt(diff.significance, 2)}."
        )
    else:
        lead = (
            "; ".join(
                f"{r.rater} measures {'higher' if r.mean_difference > 0 else 'lower'} than "
                f"the others by {fmt(abs(r.mean_difference), 2)} on average ({ctx.level_pct} "
                f"CI {fmt_ci(r.ci_low, r.ci_high, 2)}, adjusted p {fmt_p(r.pvalue_adjusted)})"
                for r in flagged.head(5).itertuples(index=False)
            )
            + ". The absolute-agreement ICC counts such an offset as disagreement. One "
            "rater's offset moves the others' differences the other way (by its share in "
            "their reference), so read the largest first."
        )
    blocks: list[Block] = [
        Figure(
            figures.bar_with_errors(
                "rater-differences",
                [str(x) for x in shown["rater"]],
                shown["mean_difference"].tolist(),
                None,
                lows=shown["ci_low"].tolist(),
                highs=shown["ci_high"].tolist(),
                xlabel=f"mean difference from the other raters ({ctx.label or 'the data'}"
                "'s units; above 0: measures high)",
            ),
            f"Each rater's mean difference from the mean of the other raters of the same "
            f"item, with its {ctx.level_pct} interval; an interval that excludes 0 marks a "
            "systematic offset.",
            "Mean difference of each rater from the others",
        ),
        Table(
            (
                "rater",
                "items",
                "mean difference",
                f"{ctx.level_pct} CI",
                "mean absolute difference",
                "SD",
                "adjusted p",
            ),
            rows,
            (False, True, True, True, True, True, True),
            caption="Difference: the rater's measurement minus the mean of the other raters' "
            "measurements of the item, in the data's units. Adjusted p: two-sided t test of "
            "a zero mean, Holm-adjusted over the raters (a highlighted row stands out).",
            row_tones=tones,
        ),
    ]
    if len(table) > limit:
        blocks.insert(
            0, Note(f"Showing the {limit} raters with the largest offsets of {len(table)}.")
        )
    return Section(
        "raters",
        "Raters compared with each other",
        lead,
        tuple(blocks),
        (
            MethodNote(
                "Rater differences",
                f"{diff.method[0].upper()}{diff.method[1:]} (with two raters, the Bland-Altman "
                "mean difference).",
                (REF["ba1986"], REF["holm1979"]),
            ),
        ),
    )


def _stray_text(test: Any, raters: pd.DataFrame) -> str:
    """Which raters stray beyond the noise, or that none does (with two raters, or without
    the test, nothing is named)."""
    if len(raters) == 0:
        return "No rater could be scored."
    if test is None:
        return (
            "With two raters, neither can be said to stray from the other: the table compares "
            "each with the gold labels."
        )
    tested = int(test.raters["pvalue"].notna().sum())
    flagged = test.raters[test.raters["stands_out"]]
    if flagged.empty:
        return (
            f"No rater strays beyond the noise: of {tested} raters with at least "
            f"{test.min_items} items, none has ratings more surprising than interchangeable "
            f"raters give (permutation test, adjusted p >= {fmt(test.significance, 2)}). The "
            "ranking below is by mean deviation, for reference, not a finding."
        )
    names = "; ".join(
        f"{r.rater} (mean deviation {fmt(r.mean_deviation)} bits, adjusted p {fmt_p(r.pvalue)})"
        for r in flagged.head(5).itertuples(index=False)
    )
    verb = "strays" if len(flagged) == 1 else "stray"
    return (
        f"{names} {verb} from the consensus beyond the noise: more surprising ratings than "
        f"interchangeable raters give (permutation test over {tested} raters)."
    )


def _gold_lead(
    ctx: Context, raters: pd.DataFrame, intervals: dict[Any, tuple[float, float]]
) -> str:
    """One sentence on the raters' accuracy against the gold labels: the most and least
    accurate are named only when their Wilson intervals do not overlap."""
    scored = raters[raters["gold_n"] > 0].sort_values(
        ["gold_accuracy", "rater"], ascending=[False, True], kind="stable"
    )
    n_gold = 0 if ctx.gold_labels is None else len(ctx.gold_labels)
    if scored.empty:
        return f"No rater rated an item with a gold label ({fmt_int(n_gold)} items have one)."
    best, worst = scored.iloc[0], scored.iloc[-1]
    b_ci = intervals.get(best["rater"], (math.nan, math.nan))
    w_ci = intervals.get(worst["rater"], (math.nan, math.nan))

    def say(row: Any, ci: tuple[float, float]) -> str:
        return (
            f"{fmt_pct(row['gold_accuracy'], 0)}, {ctx.level_pct} CI "
            f"{fmt_pct(ci[0], 0)} to {fmt_pct(ci[1], 0)}, kappa {fmt(row['gold_kappa'])}"
        )

    if len(scored) > 1 and w_ci[1] < b_ci[0]:
        return (
            f"Against the gold labels ({fmt_int(n_gold)} items): {best['rater']} is the most "
            f"accurate ({say(best, b_ci)}), {worst['rater']} the least ({say(worst, w_ci)}); "
            "their Wilson intervals do not overlap."
        )
    return (
        f"Against the gold labels ({fmt_int(n_gold)} items): accuracy runs from "
        f"{fmt_pct(worst['gold_accuracy'], 0)} to {fmt_pct(best['gold_accuracy'], 0)}, and "
        "the Wilson intervals of the most and least accurate overlap: no rater is singled "
        "out."
        if len(scored) > 1
        else f"Against the gold labels ({fmt_int(n_gold)} items): {best['rater']} "
        f"({say(best, b_ci)})."
    )


def build_scores(ctx: Context) -> Section | None:
    """Panel calibration of each score column: calibrated values and rater biases."""
    if not ctx.scores or ctx.frame is None:
        return None
    if not (ctx.item and ctx.rater):
        raise SectionUnavailable("scores need the item and rater columns")
    fn = ctx.need("calibrate_panel", "the scores section")
    blocks: list[Block] = []
    methods: list[MethodNote] = []
    leads: list[str] = []
    for column in ctx.scores:
        weights = ctx.score_confidence.get(column)

        def calibrate(column: str = column, weights: str | None = weights) -> Any:
            return fn(
                ctx.frame,
                item=ctx.item,
                rater=ctx.rater,
                score=column,
                confidence=weights,
                rng=ctx.seed,
            )

        result = ctx.cached(f"panel:{column}", calibrate)
        blocks.extend(_score_blocks(ctx, column, result, weights))
        how = (
            f"confidences from column {weights} (c = 1/sigma^2, absolute)"
            if weights
            else "equal confidences (no confidence column; variances scaled by R/dof)"
        )
        methods.append(
            MethodNote(
                f"Panel calibration ({column})",
                f"{result.method}; {how}",
                (REF["mackay2017"],),
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
    return Section(
        "scores", "Scores: calibrated values and rater biases", lead, tuple(blocks), tuple(methods)
    )


def _score_blocks(ctx: Context, column: str, result: Any, weights: str | None) -> list[Block]:
    values = result.values.sort_values("value", ascending=False, kind="stable")
    biases = result.biases.sort_values("bias", ascending=False, kind="stable")
    limit = 40
    shown = values.head(limit)
    moved = (values["value"] - values["plain_mean"]).abs()
    largest = fmt(float(moved.max()) if len(moved) else math.nan, 2)
    blocks: list[Block] = [
        KeyFigures(
            (
                KeyFigure(
                    "Items", fmt_int(result.n_items), f"{fmt_int(result.n_assessments)} scores"
                ),
                KeyFigure(
                    "Raters",
                    fmt_int(result.n_raters),
                    f"bias spread (SD) {fmt(float(result.biases['bias'].std(ddof=1)), 2)}",
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
                    f"{result.n_components} component(s); near 0: weakly linked design",
                ),
            )
        ),
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
            + (f"; the {limit} highest of {len(values)} items" if len(values) > limit else "")
            + f". Largest change from the plain mean: {largest}.",
            f"Calibrated values of {column}",
        ),
        Figure(
            figures.bar_with_errors(
                f"biases-{column}",
                [str(x) for x in biases["rater"].head(limit)],
                biases["bias"].head(limit).tolist(),
                biases["sd"].head(limit).tolist(),
                xlabel=f"bias ({column} units; above 0: scores high)",
            ),
            "Rater biases with 95% intervals (gauge: biases sum to zero).",
            f"Rater biases on {column}",
        ),
        Details(
            f"Rater biases and misfit ({column})",
            (
                Table(
                    ("rater", "scores", "bias", "SD", "misfit", "RMS residual")
                    + (("summed confidence",) if weights else ()),
                    tuple(
                        (
                            str(r["rater"]),
                            fmt_int(r["n"]),
                            fmt(r["bias"], 2),
                            fmt(r["sd"], 2),
                            fmt(r["misfit"], 2),
                            fmt(r["residual_rms"], 2),
                        )
                        + ((fmt(r["confidence"], 3),) if weights else ())
                        for r in biases.to_dict(orient="records")
                    ),
                    (False, True, True, True, True, True) + ((True,) if weights else ()),
                    caption="Misfit: chi-square of the rater's residuals over its expectation; "
                    "well above 1, the rater is noisier than their confidence says.",
                ),
            ),
        ),
    ]
    return blocks


def build_confidence(ctx: Context) -> Section | None:
    """Confidence calibration: NCE, the companions, and the reliability diagram."""
    if ctx.confidence is None or ctx.correct is None or ctx.frame is None:
        return None
    nce_fn = ctx.need("normalized_cross_entropy", "the confidence section")
    diagram_fn = ctx.need("reliability_diagram", "the confidence section")
    metrics_fn = _api("calibration_metrics")
    frame = ctx.frame
    keep = frame[ctx.confidence].notna() & frame[ctx.correct].notna()
    dropped = int((~keep).sum())
    sub = frame.loc[keep]
    groups = sub[ctx.rater] if ctx.rater and ctx.rater in sub.columns else None
    nce = _nce_result(ctx, nce_fn)
    diagram = ctx.cached("reliability", lambda: diagram_fn(sub[ctx.correct], sub[ctx.confidence]))
    metrics = (
        ctx.cached("calibration_metrics", lambda: metrics_fn(sub[ctx.correct], sub[ctx.confidence]))
        if metrics_fn is not None
        else None
    )
    figs = [
        KeyFigure(
            "NCE",
            fmt(nce.statistic),
            "1 is perfect, 0 no better than a constant, below 0 worse",
            _nce_reading(nce)[1],
        ),
        KeyFigure("ECE", fmt(diagram.ece), f"{diagram.n_bins} {diagram.binning} bins"),
        KeyFigure("Accuracy", fmt_pct(nce.p_correct), f"of {fmt_int(nce.n)} scored units"),
    ]
    if metrics is not None:
        figs.append(
            KeyFigure("Brier score", fmt(metrics.brier_score), f"AUROC {fmt(metrics.auroc)}")
        )
    bins = diagram.bins
    edges = np.r_[
        bins["low"].to_numpy(dtype=np.float64), bins["high"].to_numpy(dtype=np.float64)[-1:]
    ]
    blocks: list[Block] = [
        KeyFigures(tuple(figs)),
        Figure(
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
        ),
    ]
    if dropped:
        blocks.insert(
            0, Note(f"{dropped} rows without a confidence or correctness value were left out.")
        )
    group_table = nce.groups
    if groups is not None and len(group_table) > 1:
        blocks.append(
            Table(
                ("rater", "units", "accuracy", "NCE", "note"),
                tuple(
                    (
                        str(r["group"]),
                        fmt_int(r["n"]),
                        fmt_pct(r["p_correct"]),
                        fmt(r["nce"]),
                        str(r["reason"] or ""),
                    )
                    for r in group_table.to_dict(orient="records")
                ),
                (False, True, True, True, False),
                caption=f"NCE per rater, each with its own p_c; pooled NCE {fmt(nce.statistic)} "
                "from the totals (not the mean of raters).",
            )
        )
    methods = [
        MethodNote("Normalized cross-entropy", str(nce.method), (REF["sclite"],)),
        MethodNote("Reliability diagram", str(diagram.method), (REF["dg1983"], REF["wilson1927"])),
    ]
    if metrics is not None:
        methods.append(
            MethodNote(
                "Calibration metrics",
                "; ".join(f"{k}: {v}" for k, v in metrics.conventions.items()),
                (REF["brier1950"],),
            )
        )
    lead = (
        _nce_reading(nce)[0]
        + f" ECE {fmt(diagram.ece)}: the mean gap between stated confidence and observed "
        f"accuracy; accuracy {fmt_pct(nce.p_correct)} on {fmt_int(nce.n)} units."
    )
    return Section("confidence", "Confidence calibration", lead, tuple(blocks), tuple(methods))


def _span_result(ctx: Context) -> Any:
    """``span_agreement(spans)`` (exact matches, per label), computed once."""
    fn = ctx.need("span_agreement", "the span sections")
    return ctx.cached("span_agreement", lambda: fn(ctx.spans))


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
    tone: Tone = (
        "neutral"
        if not math.isfinite(result.statistic)
        else "good"
        if result.statistic >= 0.8
        else "fair"
        if result.statistic >= 0.6
        else "poor"
    )
    figs = (
        KeyFigure(
            "Mean pairwise F1",
            fmt(result.statistic),
            f"SD {fmt(result.sd)} over {fmt_int(result.n_pairs_defined)} pairs",
            tone,
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
        ("annotators", f"{fmt_int(spans.n_annotators)}: " + ", ".join(spans.annotators)),
        ("documents", fmt_int(spans.n_documents)),
        ("spans", fmt_int(spans.n_spans)),
        ("labels", ", ".join(spans.labels)),
        ("offsets", f"{spans.unit}s, 0-based, end exclusive"),
    )
    blocks: list[Block] = [Table(("", ""), rows, (False, False))]
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
        + (f"; {len(spans.notes)} note(s) from the reader below." if spans.notes else ".")
    )
    return Section("read", "What was read", lead, tuple(blocks))


def build_spans(ctx: Context) -> Section | None:
    """Span agreement: F1 of every pair of annotators and per label."""
    if ctx.spans is None:
        return None
    result = _span_result(ctx)
    pairs = result.pairs
    blocks: list[Block] = [
        Table(
            ("annotator", "against", "spans", "spans", "matched", "precision", "recall", "F1"),
            tuple(
                (
                    str(r.annotator_a),
                    str(r.annotator_b),
                    fmt_int(r.n_a),
                    fmt_int(r.n_b),
                    fmt_int(r.matched),
                    fmt(r.precision),
                    fmt(r.recall),
                    fmt(r.f1),
                )
                for r in pairs.itertuples(index=False)
            ),
            (False, False, True, True, True, True, True, True),
            caption="Each pair of annotators: the spans each marked, those both marked "
            "(matched), precision and recall of the first against the second as reference, "
            "and F1 = 2 matched / (spans of both).",
        )
    ]
    groups = result.groups
    if isinstance(groups, pd.DataFrame) and not groups.empty and result.by is not None:
        blocks.append(
            Table(
                (str(result.by), "spans", "mean F1", "SD", "pooled F1", "note"),
                tuple(
                    (
                        str(r[result.by]),
                        fmt_int(r["n_units"]),
                        fmt(r["mean_f1"]),
                        fmt(r["sd_f1"]),
                        fmt(r["pooled_f1"]),
                        str(r["reason"] or ""),
                    )
                    for r in groups.to_dict(orient="records")
                ),
                (False, True, True, True, True, False),
                caption=f"Agreement per {result.by}: a low one marks what the annotation "
                "guidelines leave open.",
            )
        )
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
        (MethodNote("Span agreement", str(result.method), (REF["hr2005"],)),),
    )


def build_methods(sections: Sequence[Section]) -> Section:
    """Every estimator, convention and reference the report used, references numbered."""
    numbers: dict[str, int] = {}
    rows: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    for section in sections:
        for note in section.methods:
            if (note.topic, note.text) in seen:
                continue
            seen.add((note.topic, note.text))
            cites = []
            for ref in note.references:
                numbers.setdefault(ref, len(numbers) + 1)
                cites.append(f"[{numbers[ref]}]")
            rows.append((note.topic, note.text, " ".join(cites)))
    rows.append(
        (
            "Display",
            "Numbers are rounded for display only (3 decimals for coefficients); the library "
            "computes at full precision. The same input gives the same report, byte for byte.",
            "",
        )
    )
    refs = sorted(numbers.items(), key=lambda kv: kv[1])
    blocks: list[Block] = [
        Table(("topic", "how it was computed", "refs"), tuple(rows), (False, False, False)),
        Table(
            ("", "reference"),
            tuple((f"[{n}]", ref) for ref, n in refs),
            (False, False),
            caption="References.",
        ),
    ]
    return Section(
        "methods",
        "Methods",
        "Every estimator, convention and reference behind the numbers above.",
        tuple(blocks),
    )


#: The sections in page order (the methods section is added last, from the others).
SECTIONS: tuple[tuple[str, Builder], ...] = (
    ("summary", build_summary),
    ("read", build_read),
    ("coefficients", build_coefficients),
    ("two-raters", build_two_raters),
    ("pairwise", build_pairwise),
    ("items", build_items),
    ("raters", build_raters),
    ("scores", build_scores),
    ("confidence", build_confidence),
)
