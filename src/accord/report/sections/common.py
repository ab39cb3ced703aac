"""What the sections share: the references, the benchmark colours, and the results every
section reads (the coefficients, the headline, the rater test), computed once per report."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..._verdict import by_key, headline
from .._blocks import MethodNote, Section, Tone
from .._context import Context

__all__ = [
    "CITES",
    "REF",
    "Builder",
    "coefficients",
    "coefficients_by_key",
    "icc_tone",
    "interval",
    "primary",
    "rater_test",
    "rater_test_note",
    "tone_of",
    "two_raters",
]

Builder = Callable[[Context], Section | None]

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

CITES = {
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


def interval(ctx: Context, coef: Any) -> tuple[float, float, str]:
    """The interval of a coefficient at the report's level and how it was computed (the
    agreement table's choice for the coefficients it holds)."""
    table = ctx.agreement_table() if ctx.has_labels else None
    if table is not None and coef in table.coefficients:
        low, high, how = table.interval(coef, ctx.confidence_level)
        return float(low), float(high), str(how)
    ci = coef.confidence_interval(ctx.confidence_level)
    return float(ci.low), float(ci.high), str(getattr(coef, "ci_description", ""))


def two_raters(ctx: Context) -> bool:
    """Whether the ratings come from exactly two raters."""
    return ctx.has_labels and ctx.n_raters == 2


def coefficients(ctx: Context) -> list[Any]:
    """Every coefficient the report shows, computed once: ``accord.agreement`` (for
    measurements the ICC and alpha at the data's level), plus Cohen's kappa and IA for two
    raters in memory."""
    if not ctx.has_labels:
        return []

    def compute() -> list[Any]:
        table = ctx.agreement_table()
        if ctx.numeric:
            # measurements: coefficients that count exact matches of values mean nothing here
            return [
                c
                for c in table.coefficients
                if not (c.name == "krippendorff_alpha" and c.weights == "nominal")
            ]
        out = list(table.coefficients)
        if two_raters(ctx) and ctx.ratings is not None:
            from ... import cohen_kappa, informational_agreement

            out.insert(0, cohen_kappa(ctx.ratings))
            if ctx.level != "nominal":
                out.insert(1, cohen_kappa(ctx.ratings, weights="quadratic"))
            out.insert(1, informational_agreement(ctx.ratings, n_boot=ctx.n_boot, rng=ctx.seed))
        return out

    result: list[Any] = ctx.cached("coefficients", compute)
    return result


def coefficients_by_key(ctx: Context) -> dict[str, Any]:
    """Each coefficient by ``name:weights`` (an ICC by ``icc:<form>``), first one kept."""
    return by_key(coefficients(ctx))


def primary(ctx: Context) -> Any | None:
    """The headline coefficient, following the level of measurement
    (:func:`accord._verdict.headline`)."""
    if not ctx.has_labels:
        return None
    return headline(coefficients(ctx), ctx.level, two_raters=two_raters(ctx))


def rater_test(ctx: Context) -> Any | None:
    """``accord.rater_permutation_test(ratings)``, computed once (None for measurements
    and without the ratings in memory)."""
    ratings = ctx.ratings
    if ratings is None or ctx.numeric:
        return None
    from ... import rater_permutation_test

    return ctx.cached("rater_test", lambda: rater_permutation_test(ratings, rng=ctx.seed))


def rater_test_note(test: Any) -> MethodNote:
    """The methods entry of the rater permutation test."""
    return MethodNote(
        "Which rater or pair stands out",
        f"Permutation test: {test.method}.",
        (REF["wy1993"], REF["simon2010"]),
    )
