"""The methods paragraph: what a study's methods section says about an accord analysis.

One module for the templates and one table for the references. Each result class calls its
builder here with itself (``AgreementTable.methods_text`` calls :func:`agreement_methods`,
and so on); every number in a paragraph is read from the result, none is made up. The
paragraphs follow the reporting items of GRRAS (Kottner et al. 2011, "Guidelines for
Reporting Reliability and Agreement Studies", J. Clin. Epidemiol. 64:96-106): the design
(items, raters, whether every item was rated by every rater), the coefficients with their
variant and weights, how standard errors and intervals were computed, how missing ratings
were handled, the software and its version, and the published sources.

The report's methods section reads its references from :data:`REFERENCES` too.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable, Sequence
from typing import Any, Literal, TypeAlias

from ._errors import InvalidInputError, bad_choice
from ._version import __version__

__all__ = [
    "CITES",
    "COEFFICIENT_NAMES",
    "REFERENCES",
    "SET_DISTANCES",
    "MethodsFormat",
    "StudyDesign",
    "agreement_methods",
    "agreement_methods_parts",
    "calibration_methods",
    "coefficient_name",
    "consensus_methods",
    "g_study_methods",
    "judge_methods",
    "judged_rate_methods",
    "kendall_methods",
    "level_pct",
    "paragraph",
    "rater_model_methods",
    "regression_methods",
]

MethodsFormat: TypeAlias = Literal["text", "markdown"]
"""Plain text, or Markdown (the paragraph, then a numbered list of references)."""

#: Display names of the coefficients, by function name.
COEFFICIENT_NAMES = {
    "percent_agreement": "Percent agreement",
    "fleiss_kappa": "Fleiss' kappa",
    "conger_kappa": "Conger's kappa",
    "light_kappa": "Light's kappa",
    "brennan_prediger": "Brennan-Prediger",
    "gwet_ac1": "Gwet's AC1",
    "gwet_ac2": "Gwet's AC2",
    "krippendorff_alpha": "Krippendorff's alpha",
    "cohen_kappa": "Cohen's kappa",
    "scott_pi": "Scott's pi",
    "informational_agreement": "Informational agreement (IA)",
    "multi_valued_alpha": "Multi-valued alpha (mv-alpha)",
}

#: The distances between two sets of labels, as a coefficient's name shows them.
SET_DISTANCES = {"masi": "MASI distance", "jaccard": "Jaccard distance"}

#: The published sources, by key (full reference with DOI where there is one).
REFERENCES = {
    "cohen1960": "Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational "
    "and Psychological Measurement, 20(1), 37-46. https://doi.org/10.1177/001316446002000104",
    "fce1969": "Fleiss, J. L., Cohen, J., & Everitt, B. S. (1969). Large sample standard errors "
    "of kappa and weighted kappa. Psychological Bulletin, 72(5), 323-327. "
    "https://doi.org/10.1037/h0028106",
    "fleiss1981": "Fleiss, J. L. (1981). Statistical Methods for Rates and Proportions, 2nd "
    "ed., sec. 13.3. Wiley.",
    "yz2014": "Yang, Z., & Zhou, M. (2014). Kappa statistic for clustered matched-pair data. "
    "Statistics in Medicine, 33(15), 2612-2633. https://doi.org/10.1002/sim.6113",
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
    "gwet2008r": "Gwet, K. L. (2008). Variance estimation of nominal-scale inter-rater "
    "reliability with random selection of raters. Psychometrika, 73(3), 407-430. "
    "https://doi.org/10.1007/s11336-007-9054-8",
    "gwet2014": "Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed. Advanced "
    "Analytics. (Variances as in the R package irrCAC 1.4.)",
    "kripp2004": "Krippendorff, K. (2004). Content Analysis: An Introduction to Its Methodology, "
    "2nd ed. Sage.",
    "kripp2011": "Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. "
    "https://repository.upenn.edu/asc_papers/43",
    "hk2007": "Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard "
    "reliability measure for coding data. Communication Methods and Measures, 1(1), 77-89. "
    "https://doi.org/10.1080/19312450709336664",
    "scott1955": "Scott, W. A. (1955). Reliability of content analysis: the case of nominal "
    "scale coding. Public Opinion Quarterly, 19(3), 321-325. https://doi.org/10.1086/266577",
    "cfg2020": "Casagrande, A., Fabris, F., & Girometti, R. (2020). Beyond kappa: an "
    "informational index for diagnostic agreement in dichotomous and multivalue "
    "ordered-categorical ratings. Medical & Biological Engineering & Computing, 58, "
    "3089-3099. https://doi.org/10.1007/s11517-020-02261-2",
    "kmbw2016": "Krippendorff, K., Mathet, Y., Bouvry, S., & Widlöcher, A. (2016). On the "
    "reliability of unitizing textual continua: Further developments. Quality & Quantity, "
    "50(6), 2347-2364. https://doi.org/10.1007/s11135-015-0266-1",
    "mwm2015": "Mathet, Y., Widlöcher, A., & Métivier, J.-P. (2015). The unified and holistic "
    "method gamma for inter-annotator agreement measure and alignment. Computational "
    "Linguistics, 41(3), 437-479. https://doi.org/10.1162/COLI_a_00227",
    "mathet2017": "Mathet, Y. (2017). The agreement measure gamma-cat: a complement to gamma "
    "focused on categorization of a continuum. Computational Linguistics, 43(3), 661-681. "
    "https://doi.org/10.1162/COLI_a_00296",
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
    "crd2025": "Calderon, N., Reichart, R., & Dror, R. (2025). The alternative annotator test "
    "for LLM-as-a-judge: how to statistically justify replacing human annotators with LLMs. "
    "Proceedings of ACL 2025, 16051-16081. https://arxiv.org/abs/2501.10970",
    "by2001": "Benjamini, Y., & Yekutieli, D. (2001). The control of the false discovery rate "
    "in multiple testing under dependency. Annals of Statistics, 29(4), 1165-1188. "
    "https://doi.org/10.1214/aos/1013699998",
    "rg1978": "Rogan, W. J., & Gladen, B. (1978). Estimating prevalence from the results of a "
    "screening test. American Journal of Epidemiology, 107(1), 71-76. "
    "https://doi.org/10.1093/oxfordjournals.aje.a112510",
    "greenland1988": "Greenland, S. (1988). Variance estimation for epidemiologic effect "
    "estimates under misclassification. Statistics in Medicine, 7(7), 745-757. "
    "https://doi.org/10.1002/sim.4780070704",
    "buonaccorsi2010": "Buonaccorsi, J. P. (2010). Measurement Error: Models, Methods, and "
    "Applications. Chapman & Hall/CRC. https://doi.org/10.1201/9781420066586",
    "abfjz2023": "Angelopoulos, A. N., Bates, S., Fannjiang, C., Jordan, M. I., & Zrnic, T. "
    "(2023). Prediction-powered inference. Science, 382(6671), 669-674. "
    "https://doi.org/10.1126/science.adi6000",
    "adz2023": "Angelopoulos, A. N., Duchi, J. C., & Zrnic, T. (2023). PPI++: Efficient "
    "prediction-powered inference. https://arxiv.org/abs/2311.01453",
    "kottner2011": "Kottner, J., Audige, L., Brorson, S., et al. (2011). Guidelines for "
    "Reporting Reliability and Agreement Studies (GRRAS) were proposed. Journal of Clinical "
    "Epidemiology, 64(1), 96-106. https://doi.org/10.1016/j.jclinepi.2010.03.002",
    # Rater models (accord.rater_model)
    "ds1979": "Dawid, A. P., & Skene, A. M. (1979). Maximum likelihood estimation of observer "
    "error-rates using the EM algorithm. Journal of the Royal Statistical Society, Series C "
    "(Applied Statistics), 28(1), 20-28. https://doi.org/10.2307/2346806",
    "hovy2013": "Hovy, D., Berg-Kirkpatrick, T., Vaswani, A., & Hovy, E. (2013). Learning whom "
    "to trust with MACE. Proceedings of NAACL-HLT 2013, 1120-1130. "
    "https://aclanthology.org/N13-1132",
    "whitehill2009": "Whitehill, J., Ruvolo, P., Wu, T., Bergsma, J., & Movellan, J. (2009). "
    "Whose vote should count more: optimal integration of labels from labelers of unknown "
    "expertise. Advances in Neural Information Processing Systems 22, 2035-2043.",
    "louis1982": "Louis, T. A. (1982). Finding the observed information matrix when using the "
    "EM algorithm. Journal of the Royal Statistical Society, Series B, 44(2), 226-233. "
    "https://doi.org/10.1111/j.2517-6161.1982.tb01203.x",
    "raykar2012": "Raykar, V. C., & Yu, S. (2012). Eliminating spammers and ranking annotators "
    "for crowdsourced labeling tasks. Journal of Machine Learning Research, 13, 491-518.",
    "brennan2001": "Brennan, R. L. (2001). Generalizability Theory. Springer. "
    "https://doi.org/10.1007/978-1-4757-3456-0",
    "bates2015": "Bates, D., Maechler, M., Bolker, B., & Walker, S. (2015). Fitting linear "
    "mixed-effects models using lme4. Journal of Statistical Software, 67(1), 1-48. "
    "https://doi.org/10.18637/jss.v067.i01",
    "kendall1939": "Kendall, M. G., & Babington Smith, B. (1939). The problem of m rankings. "
    "The Annals of Mathematical Statistics, 10(3), 275-287. "
    "https://doi.org/10.1214/aoms/1177732186",
    "legendre2005": "Legendre, P. (2005). Species associations: the Kendall coefficient of "
    "concordance revisited. Journal of Agricultural, Biological and Environmental Statistics, "
    "10(2), 226-245. https://doi.org/10.1198/108571105X46642",
    "taylor1987": "Taylor, J. M. G. (1987). Kendall's and Spearman's correlation coefficients "
    "in the presence of a blocking variable. Biometrics, 43(2), 409-416. "
    "https://doi.org/10.2307/2531822",
    # method comparison regressions
    "pb1983": "Passing, H., & Bablok, W. (1983). A new biometrical procedure for testing the "
    "equality of measurements from two different analytical methods. Journal of Clinical "
    "Chemistry and Clinical Biochemistry, 21(11), 709-720. "
    "https://doi.org/10.1515/cclm.1983.21.11.709",
    "bablok1988": "Bablok, W., Passing, H., Bender, R., & Schneider, B. (1988). A general "
    "regression procedure for method transformation. Journal of Clinical Chemistry and "
    "Clinical Biochemistry, 26(11), 783-790. https://doi.org/10.1515/cclm.1988.26.11.783",
    "linnet1990": "Linnet, K. (1990). Estimation of the linear relationship between the "
    "measurements of two methods with proportional errors. Statistics in Medicine, 9(12), "
    "1463-1473. https://doi.org/10.1002/sim.4780091210",
    "linnet1993": "Linnet, K. (1993). Evaluation of regression procedures for methods "
    "comparison studies. Clinical Chemistry, 39(3), 424-432. "
    "https://doi.org/10.1093/clinchem/39.3.424",
    "linnet1998": "Linnet, K. (1998). Performance of Deming regression analysis in case of "
    "misspecified analytical error ratio in method comparison studies. Clinical Chemistry, "
    "44(5), 1024-1031. https://doi.org/10.1093/clinchem/44.5.1024",
    "cornbleet1979": "Cornbleet, P. J., & Gochman, N. (1979). Incorrect least-squares "
    "regression coefficients in method-comparison analysis. Clinical Chemistry, 25(3), "
    "432-438. https://doi.org/10.1093/clinchem/25.3.432",
}

#: The sources of each coefficient, by function name (keys of :data:`REFERENCES`).
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


@dataclasses.dataclass(frozen=True, slots=True)
class StudyDesign:
    """Who rated what: the facts of the design a methods paragraph states.

    Attributes
    ----------
    n_items : int
        Items with at least one rating.
    n_raters : int
        Raters with at least one rating (the most ratings of one item when the raters are
        not known, as for a table of counts).
    n_ratings : int
        Ratings in all.
    min_ratings, max_ratings : int
        The fewest and the most ratings of one item.
    n_incomplete : int
        Items with fewer ratings than there are raters.
    n_categories : int
        Categories of the domain.
    level : str
        The level of measurement.
    """

    n_items: int
    n_raters: int
    n_ratings: int
    min_ratings: int
    max_ratings: int
    n_incomplete: int
    n_categories: int
    level: str

    @property
    def complete(self) -> bool:
        """Whether every item was rated by every rater."""
        return self.n_incomplete == 0

    def __str__(self) -> str:
        kind = "complete" if self.complete else f"{self.n_incomplete} items incomplete"
        return f"{self.n_items} items, {self.n_raters} raters, {self.n_ratings} ratings, {kind}"


# ----------------------------------------------------------------------------- the paragraph


def paragraph(
    sentences: Iterable[str], references: Iterable[str], format: MethodsFormat = "text"
) -> str:
    """The sentences, the software sentence and the numbered references, as text or Markdown.

    ``references`` are keys of :data:`REFERENCES`, in order of first citation (repeats are
    dropped); a sentence cites them as ``[n]``.
    """
    if format not in ("text", "markdown"):
        raise InvalidInputError(bad_choice("methods_text", "format", ("text", "markdown"), format))
    keys = list(dict.fromkeys(references))
    body = " ".join(s.strip() for s in sentences if s.strip())
    body += f" The analysis was run with accord {__version__} (Python)."
    refs = [f"[{i}] {REFERENCES[k]}" for i, k in enumerate(keys, 1)]
    if format == "markdown":
        listing = "\n".join(f"{i}. {REFERENCES[k]}" for i, k in enumerate(keys, 1))
        return f"{body}\n\n**References**\n\n{listing}\n" if keys else f"{body}\n"
    return f"{body}\n\nReferences\n" + "\n".join(refs) + "\n" if keys else f"{body}\n"


class _Cites:
    """Numbers the references in order of first citation."""

    def __init__(self) -> None:
        self.keys: list[str] = []

    def __call__(self, *keys: str) -> str:
        numbers = []
        for k in keys:
            if k not in self.keys:
                self.keys.append(k)
            numbers.append(str(self.keys.index(k) + 1))
        return "[" + ", ".join(numbers) + "]"


def _n(value: int, one: str, many: str | None = None) -> str:
    """``value`` with its noun: 1 item, 30 items."""
    return f"{value:,} {one if value == 1 else (many or one + 's')}"


def level_pct(level: float) -> str:
    """A confidence level as a percentage.

    >>> level_pct(0.95), level_pct(0.9)
    ('95%', '90%')
    """
    return f"{100 * level:g}%"


def design_sentences(design: StudyDesign | None, what: str = "rated") -> list[str]:
    """The design in words: items, raters, ratings, and whether it is complete."""
    if design is None:
        return []
    scale = (
        f" into {_n(design.n_categories, 'category', 'categories')} ({design.level} scale)"
        if design.level in ("nominal", "ordinal")
        else f" on an {design.level} scale"
        if design.level == "interval"
        else f" on a {design.level} scale"
    )
    head = (
        f"{_n(design.n_items, 'item')} {'was' if design.n_items == 1 else 'were'} {what} by "
        f"{_n(design.n_raters, 'rater')}{scale}, "
        f"{_n(design.n_ratings, 'rating')} in all."
    )
    if design.complete:
        tail = "Every item was rated by every rater (a complete design)."
    else:
        spread = (
            f"from {design.min_ratings:,} to {design.max_ratings:,} ratings per item"
            if design.min_ratings != design.max_ratings
            else _n(design.min_ratings, "rating") + " per item"
        )
        tail = (
            f"The design was incomplete: {design.n_incomplete:,} of "
            f"{_n(design.n_items, 'item')} lacked a rating from at least one rater ({spread})."
        )
    return [head, tail]


# ----------------------------------------------------------------------------- agreement


def coefficient_name(coef: Any) -> str:
    """A coefficient's display name with its weights or level of measurement."""
    name = str(coef.name)
    if name == "icc":
        return str(getattr(coef, "alias", "") or getattr(coef, "form", "") or "ICC")
    base = COEFFICIENT_NAMES.get(name, name.replace("_", " "))
    weights = str(getattr(coef, "weights", "identity"))
    if name == "multi_valued_alpha":
        return base
    if name == "krippendorff_alpha":
        return f"{base} ({SET_DISTANCES.get(weights, weights)})"
    if weights not in ("identity", ""):
        return f"{base} ({weights} weights)"
    return base


def agreement_methods(
    table: Any,
    level: float = 0.95,
    format: MethodsFormat = "text",
    *,
    coefficients: Sequence[Any] | None = None,
    headline: str | None = None,
) -> str:
    """The methods paragraph of an :class:`~accord.AgreementTable`: of ``coefficients``
    when given (the ones a page shows, e.g. with Cohen's kappa of two raters beside the
    table's), naming the ``headline`` coefficient (its name as the page's verdict gives
    it, :func:`accord._verdict.short_label`) when given."""
    sentences, keys = agreement_methods_parts(
        table, level, coefficients=coefficients, headline=headline
    )
    return paragraph(sentences, keys, format)


def agreement_methods_parts(
    table: Any,
    level: float = 0.95,
    *,
    coefficients: Sequence[Any] | None = None,
    headline: str | None = None,
) -> tuple[list[str], list[str]]:
    """The sentences of :func:`agreement_methods` and the keys of :data:`REFERENCES` they
    cite, in order of first citation (``[1]`` is the first key): a page that numbers its
    own references starts from these, so that the paragraph and the page agree."""
    cite = _Cites()
    coefs = list(table.coefficients if coefficients is None else coefficients)
    sentences = design_sentences(getattr(table, "design", None))
    if not coefs:
        return [*sentences, "No agreement coefficient applied to these data."], []
    described = []
    for c in coefs:
        refs = CITES.get(str(c.name), ())
        described.append(f"{coefficient_name(c)} {cite(*refs)}" if refs else coefficient_name(c))
    sentences.append("Agreement was estimated with " + _join(described) + ".")
    if headline is not None:
        sentences.append(f"The headline coefficient is {headline}.")
    for method in dict.fromkeys(without_advice(str(c.method)) for c in coefs if c.method):
        sentences.append(method[0].upper() + method[1:].rstrip(".") + ".")
    sentences.append(_interval_sentence(table, coefs, level))
    sentences.extend(_missing_sentences(coefs))
    fpc = [c for c in coefs if math.isfinite(getattr(c, "population_size", math.inf))]
    if fpc:
        sentences.append(
            f"Standard errors include the finite-population correction for a population of "
            f"{fpc[0].population_size:,.0f} items."
        )
    sentences.extend(_sampling_sentences(coefs, cite))
    return sentences, cite.keys


#: The standard errors other than the default (conditional on the raters), in words.
_SE_SENTENCES = {
    "items": "Standard errors are conditional on the items rated: a jackknife over raters "
    "{cite}, generalising to other raters of these items",
    "unconditional": "Standard errors are unconditional: the variance over items (Gwet's "
    "linearisation) and the variance over raters (a jackknife over raters) summed {cite}, "
    "generalising to other items and other raters",
}


def _sampling_sentences(coefs: Sequence[Any], cite: _Cites) -> list[str]:
    """Which standard error (when not the default, conditional on the raters), the raters'
    finite-population correction, and the value and side of the tests."""
    out = []
    kinds = list(dict.fromkeys(str(getattr(c, "se_kind", "raters")) for c in coefs))
    for kind in (k for k in kinds if k in _SE_SENTENCES):
        out.append(_SE_SENTENCES[kind].format(cite=cite("gwet2008r")) + ".")
    raters = [c for c in coefs if math.isfinite(getattr(c, "rater_population_size", math.inf))]
    if raters and any(getattr(c, "se_kind", "raters") != "raters" for c in raters):
        size = raters[0].rater_population_size
        out.append(
            f"The variance over raters includes the finite-population correction for a "
            f"population of {size:,.0f} raters."
        )
    tests = {
        (float(getattr(c, "test_value", 0.0)), str(getattr(c, "alternative", ""))) for c in coefs
    }
    tests -= {(0.0, "two-sided"), (0.0, "")}
    for value, side in sorted(tests):
        how = {"greater": "one-sided (alternative: greater than", "less": "one-sided "
               "(alternative: less than"}.get(side, "two-sided (against")  # fmt: skip
        out.append(f"p-values are {how} {value:g}).")
    return out


def without_advice(method: str) -> str:
    """A coefficient's method without the advice its note gives a user of the library
    (``(use ci='bootstrap')``): a methods paragraph says what was done, in no dialect.

    >>> without_advice("mean of the pairs; no analytic SE (use ci='bootstrap')")
    'mean of the pairs; no analytic SE'
    """
    return re.sub(r" \(use [^)]*\)|: ci='[^']*'[^;.]*", "", method)


def _join(words: Sequence[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _interval_sentence(table: Any, coefs: Sequence[Any], level: float) -> str:
    """How the standard errors and intervals were computed."""
    hows: list[str] = []
    dfs: dict[str, list[int]] = {}
    for c in coefs:
        low, high, how = table.interval(c, level)
        if not math.isfinite(float(c.statistic)):
            continue  # undefined here: no interval to describe
        if str(how).startswith("t interval"):
            if not (math.isfinite(low) and math.isfinite(high)):
                continue
            basis = "raters - 1" if getattr(c, "se_kind", "raters") == "items" else "items - 1"
            dfs.setdefault(basis, []).append(int(c.df))
        else:
            hows.append(str(how))
    for basis, values in reversed(dfs.items()):
        df_text = _join([f"{df:,}" for df in dict.fromkeys(values)])
        hows.insert(
            0,
            f"t intervals with {df_text} degrees of freedom ({basis}), truncated to the "
            "coefficient's range",
        )
    distinct = list(dict.fromkeys(hows))
    if not distinct:
        return "No coefficient has a standard error or a confidence interval for these data."
    return (
        "Standard errors are those named with each coefficient; "
        f"{level_pct(level)} confidence intervals are " + "; ".join(distinct) + "."
    )


def _missing_sentences(coefs: Sequence[Any]) -> list[str]:
    """How missing ratings were handled."""
    unpairable = max((int(getattr(c, "n_items_unpairable", 0)) for c in coefs), default=0)
    out = ["Missing ratings were not imputed: each coefficient uses the ratings each item has."]
    if unpairable:
        out.append(
            f"{_n(unpairable, 'item')} with a single rating could not be paired and "
            f"{'was' if unpairable == 1 else 'were'} left out of the pairwise coefficients."
        )
    return out


# ----------------------------------------------------------------------------- consensus


def consensus_methods(result: Any, format: MethodsFormat = "text") -> str:
    """The methods paragraph of a :class:`~accord.Consensus`."""
    cite = _Cites()
    s = result.summary
    per_item = result.items["n_ratings"]
    rated = per_item[per_item > 0]
    design = StudyDesign(
        n_items=int(s.n_items),
        n_raters=int(s.n_raters),
        n_ratings=int(s.n_ratings),
        min_ratings=int(rated.min()) if len(rated) else 0,
        max_ratings=int(rated.max()) if len(rated) else 0,
        n_incomplete=int((per_item < s.n_raters).sum()),
        n_categories=len(result.categories),
        level="ordinal" if result.ordinal else "nominal",
    )
    reference = (
        "the other ratings of the same item"
        if result.reference == "others"
        else "all ratings of the same item"
    )
    low, mid, high = result.bands
    sentences = [
        *design_sentences(design),
        f"Each rating was scored by its surprisal, -log of the share p of {reference} in "
        f"its category {cite('simon2010', 'shannon1948')}, in units of base {result.base:g}; "
        "the deviation of a rating was classed good, acceptable, poor or very poor at the "
        f"cut points {low:g}, {mid:g} and {high:g}. Each item's entropy measures how "
        "contested it is.",
        "Assignments without a label were "
        + (
            f"scored as a category of their own ({_n(s.n_missing_as_category, 'assignment')})."
            if result.missing == "category"
            else "left out."
        ),
        f"Conventions: {result.method}.",
    ]
    return paragraph(sentences, cite.keys, format)


# ----------------------------------------------------------------------------- judges


def judge_methods(result: Any, format: MethodsFormat = "text") -> str:
    """The methods paragraph of an :class:`~accord.AltTest`, or of several (one sentence
    pair per judge, the references once)."""
    cite = _Cites()
    sentences: list[str] = []
    for test in result if isinstance(result, tuple | list) else [result]:
        sentences += [
            f"Whether the judge {test.judge} can replace a human rater was tested with the "
            f"alternative annotator test {cite('crd2025')} on {_n(test.n_items, 'item')} rated "
            f"by the judge and the humans, against {_n(test.n_humans, 'human')}: "
            f"{test.method}, the Benjamini-Yekutieli correction {cite('by2001')} holding the "
            f"false discovery rate at {test.q:g}, with a margin epsilon = {test.epsilon:g}.",
            "The judge passes when it wins against at least half of the humans tested; it won "
            f"against {_n(int(test.humans['rejected'].sum()), 'human')} of {test.n_humans} "
            f"(winning rate {test.winning_rate:.3f}; advantage probability "
            f"{test.advantage_probability:.3f}).",
        ]
    return paragraph(sentences, cite.keys, format)


def judged_rate_methods(result: Any, format: MethodsFormat = "text") -> str:
    """The methods paragraph of a judge-corrected rate: a :class:`~accord.CorrectedRate`,
    :class:`~accord.CorrectedDistribution`, :class:`~accord.PredictionPoweredMean`, or a
    :class:`~accord.JudgeRates` (its corrected estimate and its PPI++ estimates)."""
    cite = _Cites()
    rates = type(result).__name__ == "JudgeRates"
    parts = [result.corrected, *result.ppi] if rates else [result]
    names = ["", *(f"rate of {label}" for label in result.table["label"])] if rates else [""]
    design = (
        f"The judge labelled {_n(result.n_labelled + result.n_unlabelled, 'item')}, of which "
        f"{_n(result.n_labelled, 'item')} were also labelled by a human."
    )
    sentences = [design, *map(lambda p, n: _judged_sentence(p, cite, n), parts, names)]
    flag = [f"Note: {parts[0].reason}."] if parts[0].reason else []
    return paragraph([*sentences, *flag], cite.keys, format)


def _judged_sentence(result: Any, cite: _Cites, name: str = "") -> str:
    """One estimate of :func:`judged_rate_methods` in a sentence, its sources cited
    (``name``: what a prediction-powered mean estimates, default its ``what``)."""
    pct = level_pct(result.confidence_level)
    kind = type(result).__name__
    if kind == "PredictionPoweredMean":
        return (
            f"The {name or result.what} was estimated by prediction-powered inference "
            f"{cite('abfjz2023')} with the power-tuning parameter lambda = {result.lam:.3f}"
            + (f" chosen to minimise the variance {cite('adz2023')}" if result.tuned else "")
            + f": {result.estimate:.3f} ({pct} CLT interval {result.low:.3f} to "
            f"{result.high:.3f}), against the judge's raw mean {result.raw_mean:.3f}."
        )
    if kind == "CorrectedRate":
        rogan = cite("rg1978")
        how = (
            f"delta method {cite('greenland1988')}"
            if result.interval == "delta"
            else "percentile bootstrap of both sets"
        )
        return (
            f"The rate of {result.label} was corrected for the judge's sensitivity "
            f"({result.sensitivity:.3f}) and specificity ({result.specificity:.3f}) on the "
            f"labelled items by the Rogan-Gladen estimator {rogan}: "
            f"{result.estimate:.3f} ({pct} interval {result.low:.3f} to {result.high:.3f}, "
            f"{how}), against the judge's raw rate {result.raw_rate:.3f}."
        )
    return (
        "The distribution of the labels was corrected by the inverse of the judge's "
        f"confusion matrix estimated on the labelled items {cite('buonaccorsi2010')}, with "
        f"{pct} {'delta-method' if result.interval == 'delta' else 'percentile bootstrap'} "
        "intervals including the sampling error of both sets."
    )


# ----------------------------------------------------------------------------- calibration


def calibration_methods(result: Any, format: MethodsFormat = "text") -> str:
    """The methods paragraph of a :class:`~accord.PanelCalibration`."""
    cite = _Cites()
    weights = (
        "all scores weighted equally"
        if result.confidence_source == "equal"
        else f"each score weighted by the rater's stated {result.confidence_source}"
    )
    sentences = [
        f"{_n(result.n_assessments, 'score')} of {_n(result.n_items, 'item')} by "
        f"{_n(result.n_raters, 'rater')} ({_n(result.n_components, 'connected component')} "
        "of the rater-item graph) were calibrated with the additive model of MacKay et al. "
        f"{cite('mackay2017')}: score = item value + rater bias + noise, {weights}.",
        f"Model: {result.method}.",
        f"Uncertainty of values and biases: {result.uncertainty}"
        + (f" ({result.n_samples:,} samples)" if result.n_samples else "")
        + f"; residual per degree of freedom {result.residual_per_dof:.3f} on "
        f"{result.dof:,} degrees of freedom.",
    ]
    if result.n_dropped:
        sentences.append(
            f"{_n(result.n_dropped, 'row')} with a missing score or confidence "
            f"{'was' if result.n_dropped == 1 else 'were'} left out."
        )
    return paragraph(sentences, cite.keys, format)


# ----------------------------------------------------------------------------- rater models

_MODEL_SENTENCES = {
    "dawid-skene": ("the Dawid-Skene model, one confusion matrix per rater", ("ds1979",)),
    "one-coin": (
        "the one-coin Dawid-Skene model (one accuracy per rater, errors spread evenly)",
        ("ds1979",),
    ),
    "mace": ("MACE, a competence and a spamming strategy per rater", ("hovy2013",)),
    "glad": ("GLAD, an ability per rater and a difficulty per item", ("whitehill2009",)),
}


def rater_model_methods(result: Any, format: MethodsFormat = "text") -> str:
    """The methods paragraph of a :class:`~accord.RaterModel`."""
    cite = _Cites()
    words, keys = _MODEL_SENTENCES[result.model]
    rel = result.reliability
    sentences = [
        f"The true label of each of {_n(result.n_items, 'item')} was estimated from "
        f"{result.n_ratings:,.0f} ratings by {_n(result.n_raters, 'rater')} with {words} "
        f"{cite(*keys)}, fitted by EM from majority vote ({result.method}); EM "
        + ("converged" if result.converged else "stopped at its iteration limit")
        + f" after {_n(result.n_iter, 'iteration')}.",
    ]
    if result.n_gold:
        sentences.append(
            f"{_n(result.n_gold, 'item')} with a known label entered as data (posteriors clamped)."
        )
    information = getattr(result, "interval", "bootstrap") == "observed-information"
    if information:
        sentences.append(
            f"The raters' accuracies have Wald intervals ({level_pct(result.level)}) from the "
            f"observed information of the likelihood {cite('louis1982')} by the delta method."
        )
    if result.n_bootstrap:
        sentences.append(
            f"{'The other intervals' if information else 'Intervals'} "
            f"({level_pct(result.level)}) are percentile intervals of "
            f"{result.n_bootstrap:,} bootstrap resamples of the items."
        )
    sentences.append(
        f"Spammer scores follow Raykar and Yu {cite('raykar2012')}. The fitted confusion "
        f"matrices imply a mean pairwise kappa of {rel.expected_pairwise_kappa:.3f} and a "
        f"Fleiss-type kappa of {rel.expected_fleiss_kappa:.3f}, beside the observed Fleiss' "
        f"kappa {cite('fleiss1971')} of {rel.observed_fleiss_kappa:.3f}."
    )
    return paragraph(sentences, cite.keys, format)


# ----------------------------------------------------------------------------- designs


def g_study_methods(g: Any, best: Any = None, format: MethodsFormat = "text") -> str:
    """The methods paragraph of a :class:`~accord.GStudy` (and of the D-study row ``best``,
    a mapping with ``n_<facet>``, ``phi`` and ``g_coefficient``, when given)."""
    cite = _Cites()
    how = (
        "by the expected mean squares of the balanced design (Satterthwaite intervals), "
        if g.method == "anova"
        else "by restricted maximum likelihood with every effect random "
        + cite("bates2015")
        + " (Satterthwaite intervals from the inverse information), "
    )
    comps = ", ".join(
        f"{row['effect']} {row['variance']:.3g} ({row['percent']:.0f}%)"
        for row in g.components.to_dict("records")
    )
    sentences = [
        f"The {g.n_scores:,} scores were analysed as a {g.design} generalizability study "
        f"{cite('brennan2001')} ({g.nesting}); the variance components were estimated {how}"
        f"giving {comps}.",
    ]
    if best is not None:
        sizes = ", ".join(
            f"{int(v)} levels of {k[2:]}" for k, v in best.items() if str(k).startswith("n_")
        )
        sentences.append(
            f"In the D-study, {sizes} give a dependability coefficient Phi = {best['phi']:.3f} "
            f"and a generalizability coefficient E rho^2 = {best['g_coefficient']:.3f}."
        )
    sentences += [f"Note: {n}." for n in g.notes]
    return paragraph(sentences, cite.keys, format)


def kendall_methods(w: Any, format: MethodsFormat = "text") -> str:
    """The methods paragraph of a :class:`~accord.KendallW`."""
    cite = _Cites()
    if "pairwise" not in w.method:
        how = f"Kendall's coefficient of concordance W {cite('kendall1939')}"
    else:
        how = (
            "Kendall's W from the mean pairwise Spearman correlation, weighted by the raters' "
            f"common items less one {cite('kendall1939', 'taylor1987')}"
        )
    sentences = [
        f"Agreement in the ranking of {_n(w.n_items, 'item')} by {_n(w.n_raters, 'rater')} "
        f"was measured by {how} ({w.method}): W = {w.statistic:.3f}, chi-square "
        f"({w.df}) = {w.chi_square:.2f}, p = {w.pvalue:.3g}; mean Spearman correlation "
        f"{w.mean_spearman:.3f}."
    ]
    return paragraph(sentences, cite.keys, format)


# ----------------------------------------------------------------------------- method comparison


def regression_methods(result: Any, format: MethodsFormat = "text") -> str:
    """The methods paragraph of a :class:`~accord.PassingBablok` or :class:`~accord.Deming`
    regression."""
    cite = _Cites()
    level = level_pct(result.confidence_level)
    line = (
        f"{result.second} = {result.intercept:.4g} + {result.slope:.4g} {result.first}; "
        f"slope {level} CI {result.slope_ci.low:.4g} to {result.slope_ci.high:.4g}, "
        f"intercept {result.intercept_ci.low:.4g} to {result.intercept_ci.high:.4g}"
    )
    if hasattr(result, "cusum_pvalue"):
        sentences = [
            f"{result.first} and {result.second} were compared on "
            f"{_n(result.n_pairs, 'pair')} of measurements by Passing-Bablok regression "
            f"{cite('pb1983', 'bablok1988')}: the slope is the median of the {result.n_slopes:,} "
            f"pairwise slopes shifted by the {result.shift:,} below -1, the intercept the median "
            f"of the residuals, with the rank-based {level} confidence intervals of the method.",
            f"The fit: {line}.",
            f"Linearity was checked by the Cusum test (H = {result.cusum_statistic:.3f}, "
            f"p = {result.cusum_pvalue:.3g}).",
        ]
    else:
        kind = (
            "weighted Deming regression (weights for errors proportional to the level) "
            f"{cite('linnet1990')}"
            if result.weighted
            else f"Deming regression {cite('cornbleet1979')}"
        )
        replicated = result.n_measurements > result.n_pairs
        points = (
            f"the means of {_n(result.n_pairs, 'subject')} ({result.n_measurements:,} pairs "
            "of measurements)"
            if replicated
            else f"{_n(result.n_pairs, 'pair')} of measurements"
        )
        ratio = f"{result.error_ratio:.4g}"
        if result.error_ratio_estimated:
            ratio += (
                ", estimated from the replicates as the ratio of the pooled within-subject "
                f"variances {cite('linnet1998')}"
            )
        sentences = [
            f"{result.first} and {result.second} were compared on {points} by {kind}, with a "
            f"ratio of the error variances ({result.first} to {result.second}) of {ratio}; "
            f"the {level} confidence intervals are the jackknife intervals of Linnet "
            f"{cite('linnet1993')}"
            + (", leaving out one subject at a time." if replicated else "."),
            f"The fit: {line}.",
        ]
    return paragraph(sentences, cite.keys, format)
