"""Every coefficient that applies to the data, in one table (the estimators behind
:func:`accord.agreement`)."""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._errors import DegenerateDataWarning, InvalidInputError, options
from .._methods import MethodsFormat, StudyDesign, agreement_methods
from .._results import Coefficient, Result
from .._types import Alternative, Level, RngLike, as_generator
from ..data.ratings import Ratings, ReadReport
from ..stats.scores import ScoreCells
from . import many_raters as mr
from ._counts import CountsView, prepare
from ._statistics import (
    CountPatterns,
    CountStatistics,
    ItemSums,
    cells_design,
    cohen_from_statistics,
    data_from_statistics,
    has_counts,
    light_from_statistics,
    study_design,
)
from .icc import ICCMethod, icc, icc_from_statistics
from .inference import CIKind, Inference, SEKind, check_ci
from .pairwise import light_kappa
from .weights import ManyCategoriesError

__all__ = [
    "COEFFICIENTS",
    "AgreementTable",
    "agreement_from_statistics",
    "agreement_table",
    "check_coefficients",
    "default_coefficients",
]

#: Names ``agreement(coefficients=...)`` accepts.
COEFFICIENTS: tuple[str, ...] = (
    "percent_agreement",
    "fleiss_kappa",
    "conger_kappa",
    "light_kappa",
    "brennan_prediger",
    "gwet_ac1",
    "gwet_ac2",
    "krippendorff_alpha",
    "icc",
)

#: The coefficients shown on measurements (interval and ratio scores) unless others are named:
#: the others count exact matches of values, which two readings of a measurement rarely are.
MEASUREMENT_COEFFICIENTS: tuple[str, ...] = ("krippendorff_alpha", "icc")


def default_coefficients(level: str | None) -> tuple[str, ...]:
    """The coefficients :func:`agreement_table` computes when none are named: every one for
    categories (or an unknown level), Krippendorff's alpha at the data's level and the ICCs
    for interval and ratio scores.

    Percent agreement, the kappas, Brennan-Prediger, AC1/AC2 and nominal alpha count exact
    matches of values: on the PEFR readings of two meters they give 0.0 and -0.03 beside an
    ICC of 0.95, and over many distinct scores they cost most of the time.

    >>> default_coefficients("interval"), len(default_coefficients("ordinal"))
    (('krippendorff_alpha', 'icc'), 9)
    """
    return MEASUREMENT_COEFFICIENTS if level in ("interval", "ratio") else COEFFICIENTS


@dataclasses.dataclass(frozen=True, slots=True)
class AgreementTable(Result):
    """Every applicable coefficient for one data set.

    Attributes
    ----------
    coefficients : tuple of Coefficient
        In display order; weighted variants follow the unweighted ones.
    level : str
        The level of measurement of the data.
    ci : {"analytic", "bootstrap"}
        How the intervals of :meth:`to_frame` are computed (bootstrap: BCa).
    report : ReadReport or None
        What was read, kept and dropped (rows, ratings, missing labels): the engine's
        report, or the report of the :class:`~accord.Ratings` the table was computed from;
        None for counts given as an array (nothing was read).
    design : StudyDesign or None
        Items, raters, ratings and how many items lack a rating (what
        :meth:`methods_text` states).
    left_out : tuple of str
        The coefficients not computed because none were named and the data are measurements
        (:func:`default_coefficients`): they count exact matches of values. Name them in
        ``coefficients`` to have them.
    """

    coefficients: tuple[Coefficient, ...]
    level: str
    ci: str = "analytic"
    report: ReadReport | None = None
    design: StudyDesign | None = None
    left_out: tuple[str, ...] = ()

    def interval(self, coef: Coefficient, level: float = 0.95) -> tuple[float, float, str]:
        """The interval of one coefficient under this table's ``ci`` choice, and its name."""
        if self.ci == "bootstrap" and coef.replicates is not None:
            ci = coef.confidence_interval(level, method="bca")
            return ci.low, ci.high, f"BCa bootstrap over items ({coef.replicates.size} replicates)"
        ci = coef.confidence_interval(level)
        return ci.low, ci.high, coef.ci_description

    def rows(self, level: float = 0.95) -> list[dict[str, Any]]:
        """One plain dict per coefficient (:meth:`Coefficient.to_dict`), with the interval of
        this table's ``ci`` choice."""
        rows = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for c in self.coefficients:
                d = c.to_dict(level)
                if self.ci == "bootstrap" and c.replicates is not None:
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always", DegenerateDataWarning)
                        low, high, how = self.interval(c, level)
                    d.update(ci_low=low, ci_high=high, ci_method=how)
                    # why an estimate has no interval (its replicates not about it)
                    said = [str(w.message) for w in caught]
                    if said and math.isfinite(c.statistic):
                        d["reason"] = "; ".join(x for x in (d.get("reason"), said[0]) if x)
                rows.append(d)
        return rows

    def to_frame(self, level: float = 0.95) -> pd.DataFrame:
        """One row per coefficient: name, weights, statistic, SE, interval, p-value, sizes."""
        return pd.DataFrame(self.rows(level))

    def _table(self) -> pd.DataFrame:
        """The compact table a notebook shows: a row per coefficient with its estimate, SE,
        interval, p-value and items (the weights and the reason a value is undefined only
        where some row has them); every column is in :meth:`to_frame`."""
        frame = self.to_frame()
        shown = ["name", "weights", "statistic", "standard_error", "ci_low", "ci_high"]
        shown += ["pvalue", "n_items", "reason"]
        optional = {
            "weights": frame.get("weights", pd.Series(dtype=object)).ne("identity").any(),
            "reason": frame.get("reason", pd.Series(dtype=object)).fillna("").ne("").any(),
        }
        keep = [c for c in shown if c in frame.columns and optional.get(c, True)]
        return frame[keep]

    def to_dict(self, level: float = 0.95) -> dict[str, Any]:
        """Plain dict: the level, one dict per coefficient and the read report (when the
        table came from a read)."""
        from .._results import to_plain

        out = {"level": self.level, "ci": self.ci, "coefficients": to_plain(self.to_frame(level))}
        if self.left_out:
            out["left_out"] = list(self.left_out)
        if self.report is not None:
            out["report"] = self.report.to_dict()
        return out

    def methods_text(self, format: MethodsFormat = "text", level: float = 0.95) -> str:
        """A methods paragraph for a study report, with its references (GRRAS, Kottner et
        al. 2011): the design, the coefficients and their variants, the standard errors and
        ``level`` intervals, missing ratings, the software. Every number comes from this
        table. ``format``: ``"text"`` or ``"markdown"``.

        Examples
        --------
        >>> table = agreement_table([[2, 0], [1, 1], [0, 2]], coefficients=["fleiss_kappa"])
        >>> print(table.methods_text().split(". ")[0])
        3 items were rated by 2 raters into 2 categories (nominal scale), 6 ratings in all
        """
        return agreement_methods(self, level, format)


def check_coefficients(coefficients: Sequence[str] | None) -> set[str]:
    """The coefficients asked for (default: all of :data:`COEFFICIENTS`).

    Raises
    ------
    InvalidInputError
        A name that is not in :data:`COEFFICIENTS`.
    """
    wanted = set(COEFFICIENTS if coefficients is None else coefficients)
    unknown = wanted - set(COEFFICIENTS)
    if unknown:
        raise InvalidInputError(
            f"The 'coefficients' parameter of agreement must name some of "
            f"{{{', '.join(repr(c) for c in COEFFICIENTS)}}}. Got {sorted(unknown)!r} instead."
        )
    return wanted


def agreement_table(
    data: Ratings | Any,
    *,
    coefficients: Sequence[str] | None = None,
    weights: mr.WeightsLike | None = None,
    categories: Any = None,
    population_size: float | None = None,
    ci: CIKind = "analytic",
    n_boot: int = 2000,
    rng: RngLike = None,
    icc_method: ICCMethod = "auto",
    se: SEKind = "raters",
    rater_population_size: float | None = None,
    test_value: float = 0.0,
    alternative: Alternative = "two-sided",
) -> AgreementTable:
    """Every coefficient that applies to ratings or item x category counts, in one table.

    The estimator behind :func:`accord.agreement` with the memory engine (same parameters;
    the data already in memory). The item counts are computed once and shared by the
    coefficients.

    Examples
    --------
    Three items of two ratings: two agree, one splits (p_a = 2/3); the categories are used
    equally (p_e = 1/2), so kappa = (2/3 - 1/2) / (1/2) = 1/3.

    >>> table = agreement_table([[2, 0], [1, 1], [0, 2]], coefficients=["fleiss_kappa"])
    >>> [(c.name, round(c.statistic, 4)) for c in table.coefficients]
    [('fleiss_kappa', 0.3333)]
    """
    check_ci(ci, n_boot, "agreement")
    wanted = check_coefficients(coefficients)
    d = prepare(data, categories, "agreement")
    wanted, left_out = _for_level(wanted, coefficients, d.level)
    gen = _generator(rng)
    ratings = data if isinstance(data, Ratings) else None
    if se != "raters":
        Inference(se=se).check_raters(d.ratings, "agreement")

    def light() -> Coefficient:
        view: Any = d  # the counts view: Light shares its statistics (item terms, pair tables)
        return light_kappa(view, ci=ci, n_boot=n_boot, rng=gen)

    out = _coefficients(
        d,
        wanted,
        light=light if ratings is not None else None,
        by_rater=ratings is not None,
        weights=weights,
        opts=dict(population_size=population_size, ci=ci, n_boot=n_boot, rng=gen,
                  **_sampling(se, rater_population_size, test_value, alternative, ci)),
        nominal_alpha=not left_out,
    )  # fmt: skip
    if "icc" in wanted and ratings is not None and d.level in ("interval", "ratio"):
        out.extend(icc(ratings, method=icc_method).forms)  # single and average, six forms
    if coefficients is None and ratings is not None:
        out[:0] = _cohen_rows(ratings, population_size, test_value, alternative)
    report = ratings.report if ratings is not None else None
    return AgreementTable(tuple(out), d.level, ci, report, _design(d), left_out)


def _cohen_rows(
    ratings: Ratings, population_size: float | None, test_value: float, alternative: Alternative
) -> list[Coefficient]:
    """Cohen's kappa of two raters on categories (and its quadratic-weighted form on an
    ordinal scale), first in the table: the coefficient the command line and the report
    headline for two raters, so that a table shown alone (in a notebook) headlines it too.
    None when there are not two raters, the labels are sets or measurements, or Cohen's
    kappa cannot be computed (the other rows say why)."""
    from .._errors import AccordError
    from .two_raters import cohen_kappa

    if ratings.n_raters != 2 or ratings.level not in ("nominal", "ordinal"):
        return []
    if ratings.multi_label:
        return []
    forms = [None] if ratings.level == "nominal" else [None, "quadratic"]
    options = dict(population_size=population_size, test_value=test_value, alternative=alternative)
    try:
        return [cohen_kappa(ratings, weights=w, **options) for w in forms]  # type: ignore[arg-type]
    except AccordError:
        return []


def _for_level(
    wanted: set[str], coefficients: Sequence[str] | None, level: str
) -> tuple[set[str], tuple[str, ...]]:
    """The coefficients to compute and those left out (:func:`default_coefficients`): only
    when none were named."""
    if coefficients is not None:
        return wanted, ()
    kept = set(default_coefficients(level))
    return wanted & kept, tuple(c for c in COEFFICIENTS if c in wanted - kept)


def agreement_from_statistics(
    stats: CountStatistics,
    item_sums: ItemSums | None = None,
    *,
    patterns: CountPatterns | None = None,
    coefficients: Sequence[str] | None = None,
    weights: mr.WeightsLike | None = None,
    population_size: float | None = None,
    ci: CIKind = "analytic",
    n_boot: int = 2000,
    rng: RngLike = None,
    report: ReadReport | None = None,
    scores: ScoreCells | None = None,
    icc_method: ICCMethod = "auto",
    se: SEKind = "raters",
    rater_population_size: float | None = None,
    test_value: float = 0.0,
    alternative: Alternative = "two-sided",
) -> AgreementTable:
    """The coefficients of :func:`agreement_table` from count statistics.

    Parameters
    ----------
    stats : CountStatistics
        Item counts (or their ``item_patterns``), rater counts, and the rater-pair tables
        when Light's kappa is asked for (:class:`accord.RatingStatistics` has them). For the
        ICC alone, with ``scores``, no counts are needed (the design is read off the cells).
    item_sums : ItemSums, optional
        One more pass over the ratings, for Conger's kappa (left out without it).
    patterns : CountPatterns, optional
        The item counts' distinct rows, when ``stats`` has none (analytic intervals only).
    coefficients, weights, population_size, ci, n_boot, rng
        As :func:`agreement_table`. Conger's and Light's kappa are left out with
        ``ci="bootstrap"`` (it resamples items with their ratings).
    se, rater_population_size, test_value, alternative
        As :func:`agreement_table`: counts hold no rater ids, so ``se`` is ``"raters"``
        here (the jackknife over raters needs the ratings in memory).
    report : ReadReport, optional
        What was read, kept on the table.
    scores : ScoreCells, optional
        The scored cells, for the six ICCs at interval and ratio level (left out without
        them): :func:`accord.agreement.icc.icc_from_statistics`.
    icc_method : {"auto", "anova", "reml"}, default "auto"
        The ICC's fit, as ``method`` of :func:`accord.icc`.
    """
    check_ci(ci, n_boot, "agreement")
    wanted, left_out = _for_level(check_coefficients(coefficients), coefficients, stats.level)
    if se != "raters":  # statistics hold no rater ids
        Inference(se=se).check_raters(None, "agreement")
    if scores is None:
        wanted.discard("icc")
    if ci == "bootstrap":
        wanted -= {"conger_kappa", "light_kappa"}
    if item_sums is None:
        wanted.discard("conger_kappa")
    if scores is not None and wanted <= {"icc"} and not has_counts(stats, patterns):
        # The ICC alone, from statistics without counts: the design is read off the cells.
        rows = "icc" in wanted and stats.level in ("interval", "ratio")
        forms = icc_from_statistics(scores, method=icc_method).forms if rows else ()
        design = cells_design(scores, stats.categories, stats.level)
        return AgreementTable(tuple(forms), stats.level, ci, report, design, left_out)
    d = data_from_statistics(stats, item_sums, patterns=patterns)
    gen = _generator(rng)
    out = _coefficients(
        d,
        wanted,
        light=lambda: light_from_statistics(stats),
        by_rater=True,
        weights=weights,
        opts=dict(population_size=population_size, ci=ci, n_boot=n_boot, rng=gen,
                  **_sampling(se, rater_population_size, test_value, alternative, ci)),
        nominal_alpha=not left_out,
    )  # fmt: skip
    if "icc" in wanted and scores is not None and d.level in ("interval", "ratio"):
        out.extend(icc_from_statistics(scores, method=icc_method).forms)  # as in memory
    if coefficients is None:  # two raters: Cohen's kappa first, as in memory
        out[:0] = cohen_from_statistics(stats, population_size=population_size,
                                        test_value=test_value, alternative=alternative)  # fmt: skip
    return AgreementTable(tuple(out), d.level, ci, report, _design(d), left_out)


def _sampling(
    se: str, rater_population_size: float | None, test_value: float, alternative: str, ci: str
) -> dict[str, Any]:
    """The standard-error and test keywords of every coefficient of the family, checked
    once for the table: the table's bootstrap intervals resample items only, so they go
    with the standard error conditional on the raters."""
    Inference(
        se=se,
        rater_population_size=rater_population_size,
        test_value=test_value,
        alternative=alternative,
    ).check("agreement")
    if ci == "bootstrap" and se != "raters":
        raise InvalidInputError(
            f"{options(ci='bootstrap', se=se)}: the bootstrap resamples the items only, so its "
            "intervals are conditional on the raters, and that standard error is not; use "
            f"{options(ci='analytic', se=se)}"
        )
    return dict(se=se, rater_population_size=rater_population_size, test_value=test_value,
                alternative=alternative)  # fmt: skip


def _design(d: CountsView) -> StudyDesign:
    """Items, raters and ratings per item of the prepared data (rated items only)."""
    per_item = np.asarray(d.counts.sum(axis=1), dtype=np.float64).ravel()
    return study_design(
        per_item,
        d.multiplicity,
        n_raters=int(d.n_raters),
        n_categories=len(d.categories),
        level=str(d.level),
    )


def _generator(rng: RngLike) -> np.random.Generator:
    return as_generator(rng, "agreement")


def _coefficients(
    d: CountsView,
    wanted: set[str],
    *,
    light: Callable[[], Coefficient] | None,
    by_rater: bool,
    weights: mr.WeightsLike | None,
    opts: dict[str, Any],
    nominal_alpha: bool = True,
) -> list[Coefficient]:
    """The wanted item-count and rater coefficients in display order: unweighted, then
    weighted (default quadratic above nominal level), then Krippendorff's alpha (nominal,
    unless ``nominal_alpha`` is false, then at the data's level)."""
    level = d.level
    data: Any = d  # every estimator takes prepared data as it is
    if weights is None and level != "nominal":
        weights = "quadratic"
    out: list[Coefficient] = []
    variants: list[Any] = ["identity"] + ([weights] if weights is not None else [])
    for w in variants:
        weighted = not (isinstance(w, str) and w == "identity")
        if "percent_agreement" in wanted:
            out.append(mr.percent_agreement(data, weights=w, **opts))
        if "fleiss_kappa" in wanted:
            out.append(mr.fleiss_kappa(data, weights=w, **opts))
        if "conger_kappa" in wanted and by_rater:
            out.append(mr.conger_kappa(data, weights=w, **opts))
        if "light_kappa" in wanted and light is not None and not weighted:
            test = {k: opts[k] for k in ("test_value", "alternative") if k in opts}
            out.append(dataclasses.replace(light(), **test))
        if "brennan_prediger" in wanted:
            out.append(mr.brennan_prediger(data, weights=w, **opts))
        if "gwet_ac1" in wanted and not weighted:
            out.append(mr.gwet_ac1(data, **opts))
        if "gwet_ac2" in wanted and weighted:
            out.append(mr.gwet_ac2(data, weights=w, **opts))
    if "krippendorff_alpha" in wanted:
        if nominal_alpha or level == "nominal":
            out.append(mr.krippendorff_alpha(data, level="nominal", **opts))
        if level != "nominal":
            out.append(_alpha_at_level(data, level, opts))
    return out


def _alpha_at_level(data: Any, level: Level, opts: dict[str, Any]) -> Coefficient:
    """Alpha at the data's level; at the ratio level on too many categories for its q x q
    distances, a row without a value that says why (the other rows still stand)."""
    try:
        return mr.krippendorff_alpha(data, level=level, **opts)
    except ManyCategoriesError as exc:
        d = prepare(data, None, "agreement")
        return Coefficient(
            name="krippendorff_alpha",
            statistic=math.nan,
            standard_error=math.nan,
            n_items=int(d.items.n),
            n_raters=int(d.n_raters),
            categories=d.categories,
            method=f"Krippendorff's alpha ({level} metric)",
            weights=level,
            reason=str(exc),
        )
