"""The verdict: which coefficient headlines a result, and the words that read it.

One place for the headline that the HTML report and the command line both print: the
coefficient chosen by the level of measurement (:func:`headline`), its name
(:func:`coefficient_label`), the benchmark bands it is read against (:func:`landis_koch`,
:func:`koo_li`; the bands themselves are those of :mod:`accord._bands`), the band a
coefficient reaches once its uncertainty is counted (:func:`benchmark_reading`, and
:func:`icc_reading` for the ICC's interval) and the
one-sentence verdict (:func:`verdict`, :func:`panel_verdict`).

It belongs to the presenters (``accord.report`` and ``accord.cli`` import it; nothing below
them does) but lives beside the package root rather than inside either: importing it loads
no third-party module but numpy (through the interval helpers; Cohen's kappa is fetched from
``accord``'s public names when a verdict needs it), so the command line reaches it without
importing the report's dependencies (pandas through ``accord.report``, matplotlib, jinja2),
and the report reaches it without importing typer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from . import _bands
from ._methods import SET_DISTANCES, coefficient_name, level_pct
from ._names import register_words

__all__ = [
    "KOO_LI",
    "LANDIS_KOCH",
    "TWO_RATER_REPEATS",
    "benchmark_reading",
    "bias_spread",
    "by_key",
    "coefficient_label",
    "distribution",
    "for_level",
    "headline",
    "headline_coefficients",
    "icc_reading",
    "kappa_name",
    "koo_li",
    "landis_koch",
    "panel_verdict",
    "ratings_verdict",
    "short_label",
    "shown_coefficients",
    "shown_label",
    "table_verdict",
    "two_rater_kappas",
    "verdict",
    "with_cohen_first",
]

#: Landis & Koch (1977) benchmarks: (lower edge, name).
LANDIS_KOCH = _bands.LANDIS_KOCH.edges

#: Koo & Li (2016) bands for the ICC: (lower edge, name).
KOO_LI = _bands.KOO_LI.edges


def landis_koch(value: float) -> str:
    """The Landis & Koch (1977) name of a kappa-type value.

    >>> landis_koch(0.43), landis_koch(-0.1), landis_koch(float("nan"))
    ('moderate', 'poor', 'undefined')
    """
    return _bands.band_name(value, _bands.LANDIS_KOCH)


def koo_li(value: float) -> str:
    """The Koo & Li (2016) name of an ICC value.

    >>> koo_li(0.3), koo_li(0.8), koo_li(0.95)
    ('poor', 'good', 'excellent')
    """
    return _bands.band_name(value, _bands.KOO_LI)


def icc_reading(value: float, low: float, high: float, confidence_level: float = 0.95) -> str:
    """An ICC read against Koo & Li's (2016) bands by its confidence interval, as they advise:
    the band of each end, one band where both ends share it. Without a finite interval, the
    band of the estimate.

    Examples
    --------
    Koo & Li (2016, p. 161): an ICC of 0.932 with a 95% interval of 0.879 to 0.965 is
    "good" to "excellent" reliability, not "excellent":

    >>> print(icc_reading(0.932, 0.879, 0.965))  # doctest: +NORMALIZE_WHITESPACE
    good to excellent reliability of a single measurement (Koo & Li, from the 95% CI; the
    estimate alone reads excellent)
    >>> icc_reading(0.95, 0.91, 0.98)
    'excellent reliability of a single measurement (Koo & Li, from the 95% CI)'
    >>> icc_reading(0.62, float("nan"), float("nan"))
    'moderate reliability of a single measurement (Koo & Li)'
    """
    what = "reliability of a single measurement"
    if not (math.isfinite(low) and math.isfinite(high)):
        return f"{koo_li(value)} {what} (Koo & Li)"
    source = f"Koo & Li, from the {level_pct(confidence_level)} CI"
    bottom, top = koo_li(low), koo_li(high)
    if bottom == top:
        return f"{bottom} {what} ({source})"
    return f"{bottom} to {top} {what} ({source}; the estimate alone reads {koo_li(value)})"


def _icc_form(coef: Any) -> str:
    """An ICC's form, McGraw & Wong's name first, Shrout & Fleiss's in brackets; "" for
    another coefficient or an ICC without a form."""
    form = str(getattr(coef, "form", "") or "")
    if getattr(coef, "name", "") != "icc" or not form:
        return ""
    alias = str(getattr(coef, "alias", "") or form)
    return f"{alias} [{form}]" if alias != form else form


def coefficient_label(coef: Any) -> str:
    """Display name of a coefficient result, with its weights or level; an ICC by its form
    (McGraw & Wong's name first, Shrout & Fleiss's in brackets)."""
    form = _icc_form(coef)
    if form:
        kind = (
            str(getattr(coef, "description", "") or "")
            .replace(" effects", "")
            .replace(", single rater", "")
        )
        return form + (f": {kind}" if kind else "")
    return coefficient_name(coef)


def kappa_name(weights: str | None, name: str = "cohen_kappa") -> str:
    """A kappa's name with its weights, as every sentence and table shows it.

    >>> kappa_name("quadratic"), kappa_name("identity"), kappa_name(None, "fleiss_kappa")
    ("Cohen's kappa (quadratic weights)", "Cohen's kappa", "Fleiss' kappa")
    """
    from types import SimpleNamespace

    return coefficient_name(SimpleNamespace(name=name, weights=weights or "identity"))


def shown_label(value: Any) -> str:
    """A label as a page or a sentence shows it: a set of labels as ``{a, b}`` (its members
    in sorted order, ``{}`` for the empty set), any other label as its text.

    >>> shown_label(frozenset({"b", "a"})), shown_label(frozenset()), shown_label(3)
    ('{a, b}', '{}', '3')
    """
    if isinstance(value, frozenset | set):
        return "{" + ", ".join(sorted(map(str, value))) + "}"
    return str(value)


def short_label(coef: Any) -> str:
    """A coefficient's name short enough for a verdict or a figure's axis: an ICC by its
    form only."""
    return _icc_form(coef) or coefficient_label(coef)


def by_key(coefs: Sequence[Any]) -> dict[str, Any]:
    """Each coefficient by ``name:weights`` (an ICC by ``icc:<form>``), first one kept."""
    out: dict[str, Any] = {}
    for c in coefs:
        out.setdefault(f"{c.name}:{getattr(c, 'weights', 'identity')}", c)
        if getattr(c, "form", ""):
            out.setdefault(f"{c.name}:{c.form}", c)
            out.setdefault(f"{c.name}:{getattr(c, 'alias', '')}", c)
    return out


def headline(coefs: Sequence[Any], level: str, *, two_raters: bool = False) -> Any | None:
    """The headline coefficient of ``coefs``, following the level of measurement: one rule
    for the command line and the report (``docs/report.md``, "The headline").

    Nominal: Cohen's kappa for two raters, else Fleiss' kappa. Ordinal: a weighted statistic,
    so that a far disagreement weighs more than a near one: quadratic-weighted Cohen's kappa
    for two raters (the classical ordinal two-rater coefficient, equal to the ICC for
    consistency; Fleiss & Cohen 1973), else Krippendorff's alpha on the ordinal metric. With
    two raters but no Cohen row (a table of chosen coefficients), Conger's kappa, which is
    Cohen's for two raters. Interval and ratio: the ICC for absolute agreement of single
    ratings, ICC(A,1), else alpha at the data's level. The first coefficient when none of
    these is there; None for no coefficient.
    """
    if not coefs:
        return None
    keyed = by_key(coefs)
    sets = [c for c in coefs if c.name == "krippendorff_alpha" and c.weights in SET_DISTANCES]
    if sets:  # sets of labels: alpha with the set distance
        return sets[0]
    if level in ("nominal", "ordinal"):
        w = "identity" if level == "nominal" else "quadratic"
        pair = [f"cohen_kappa:{w}", f"conger_kappa:{w}"] if two_raters else []
        many = ["fleiss_kappa:identity", "krippendorff_alpha:nominal"]
        if level == "ordinal":
            many = ["krippendorff_alpha:ordinal", "fleiss_kappa:quadratic", *many]
        wanted = [*pair, *many]
    else:
        wanted = ["icc:ICC(A,1)", "icc:ICC(2,1)", f"krippendorff_alpha:{level}"]
    for key in wanted:
        # an ICC undefined for these data (too few complete items) gives way to alpha
        if key in keyed and (not key.startswith("icc:") or math.isfinite(keyed[key].statistic)):
            return keyed[key]
    return coefs[0]


def two_rater_kappas(ratings: Any) -> list[Any]:
    """Cohen's kappa of two raters on categories (and its quadratic-weighted form on an
    ordinal scale): the rows the command line and the report add to the agreement table, so
    that the headline (:func:`headline`) is a row of it. Empty for other ratings, and when
    Cohen's kappa cannot be computed (no item rated by both, one category: the table says
    why)."""
    if (
        ratings is None
        or ratings.n_raters != 2
        or ratings.level not in ("nominal", "ordinal")
        or getattr(ratings, "multi_label", False)
    ):
        return []
    from ._errors import AccordError
    from .agreement import cohen_kappa

    try:
        out = [cohen_kappa(ratings)]
        if ratings.level == "ordinal":
            out.append(cohen_kappa(ratings, weights="quadratic"))
    except AccordError:
        return []
    return out


#: Rows of the agreement table that repeat Cohen's kappa when there are two raters (one pair,
#: one table: Conger's and Light's kappa are Cohen's).
TWO_RATER_REPEATS = frozenset({"cohen_kappa", "conger_kappa", "light_kappa"})


def with_cohen_first(
    coefs: Sequence[Any],
    ratings: Any | None,
    test: dict[str, Any] | None = None,
    *,
    chosen: bool = False,
) -> list[Any]:
    """The agreement table's rows as the command line and the report list them. For two
    raters on categories, Cohen's kappa (:func:`two_rater_kappas`, with the p-value options
    ``test``) comes first in place of the table's own, and Conger's and Light's kappa, which
    equal it, are not listed twice unless ``chosen`` (named by the user). Other ratings, and
    two raters whose kappa is undefined: ``coefs`` as they are (their rows say why). Without
    the ratings in memory (``ratings=None``: the stream and dask engines), the table's own
    Cohen's kappa rows come first (none: ``coefs`` as they are).

    >>> import accord
    >>> r = accord.datasets.load_birads()
    >>> table = accord.agreement(r, coefficients=["conger_kappa", "fleiss_kappa"])
    >>> [f"{c.name} {c.weights}" for c in with_cohen_first(table.coefficients, r)][:3]
    ['cohen_kappa identity', 'cohen_kappa quadratic', 'fleiss_kappa identity']
    >>> sorted({c.name for c in with_cohen_first(table.coefficients, r)})
    ['cohen_kappa', 'fleiss_kappa']
    >>> sorted({c.name for c in with_cohen_first(table.coefficients, r, chosen=True)})
    ['cohen_kappa', 'conger_kappa', 'fleiss_kappa']
    >>> rows = [c.name for c in with_cohen_first(accord.agreement(r).coefficients, None)]
    >>> rows[:3], "conger_kappa" in rows, "light_kappa" in rows
    (['cohen_kappa', 'cohen_kappa', 'percent_agreement'], False, False)
    """
    import dataclasses

    if ratings is None:
        kappas = [c for c in coefs if c.name == "cohen_kappa"]
    else:
        kappas = [dataclasses.replace(c, **(test or {})) for c in two_rater_kappas(ratings)]
    if not kappas:
        return list(coefs)
    repeats = {"cohen_kappa"} if chosen else TWO_RATER_REPEATS
    return [*kappas, *(c for c in coefs if c.name not in repeats)]


def _probability(p: float) -> str:
    """A probability in two decimals, without claiming certainty it does not have."""
    if p >= 0.995:
        return "above 0.99"
    if p < 0.005:
        return "below 0.01"
    return f"{p:.2f}"


def _edge(value: float) -> str:
    """A band's edge as its scale writes it: 0.40, 0.667."""
    return f"{value:.2f}" if round(value, 2) == value else f"{value:.3f}"


def benchmark_reading(
    coef: Any, level: float = 0.95, distribution: str = "normal", scale: str = "landis-koch"
) -> str | None:
    """The band ``coef`` reaches with probability ``level`` once its standard error is
    counted (Gwet 2014, ch. 6; :meth:`accord.Coefficient.benchmark`), in words; None when it
    has no benchmark (no standard error, no ``benchmark`` method).

    Examples
    --------
    >>> from accord import Coefficient
    >>> ac1 = Coefficient("gwet_ac1", 0.77544, 0.14295, 12, 4, (1, 2, 3, 4, 5), "")
    >>> benchmark_reading(ac1)
    'moderate agreement beyond chance (Landis & Koch; probability above 0.99 that the true value is at least 0.40; the estimate alone reads substantial)'
    """  # noqa: E501
    make = getattr(coef, "benchmark", None)
    if make is None or (distribution == "bootstrap" and getattr(coef, "replicates", None) is None):
        return None
    bench = make(scale, level, distribution=distribution)
    if bench.reason or len(bench.bands) < 2:
        return None
    what = f"{bench.band} agreement beyond chance ({bench.source}"
    if bench.band == bench.bands[-1].name:  # the lowest band: how likely the next one is
        above = bench.bands[-2]
        odds = (
            f"probability only {_probability(above.cumulative)} that the true value is at "
            f"least {_edge(above.low)}"
        )
        if bench.point_band == bench.band:
            return f"{what}; {odds})"
        # An estimate above the lowest band that its uncertainty cannot lift out of it: say
        # what is not shown, not that the agreement is poor.
        return (
            f"not shown to be better than {bench.band} agreement beyond chance "
            f"({bench.source}; {odds}; the estimate alone reads {bench.point_band})"
        )
    text = (
        f"{what}; probability {_probability(bench.probability)} that the true value is at "
        f"least {_edge(bench.threshold)}"
    )
    if bench.point_band != bench.band:
        text += f"; the estimate alone reads {bench.point_band}"
    return text + ")"


def interval_digits(low: float, high: float, digits: int = 2, most: int = 6) -> int:
    """Decimals enough for the two ends of an interval to read differently: ``digits``, or
    more (up to ``most``) when they would round alike.

    >>> interval_digits(0.4883, 0.4912), interval_digits(0.32, 0.54), interval_digits(1.0, 1.0)
    (3, 2, 2)
    """
    if not (math.isfinite(low) and math.isfinite(high)) or low == high:
        return digits
    for shown in range(digits, most + 1):
        if f"{low:.{shown}f}" != f"{high:.{shown}f}":
            return shown
    return most


def verdict(
    coef: Any,
    low: float,
    high: float,
    confidence_level: float = 0.95,
    digits: int = 2,
    *,
    distribution: str = "normal",
) -> str:
    """The headline coefficient in one sentence: its value, its interval and what it means.

    Kappa-type values are named with the band of Landis & Koch (1977) that the coefficient
    reaches with probability ``confidence_level`` given its standard error (Gwet 2014, ch. 6;
    :func:`benchmark_reading`), or the band of the estimate when it has no standard error.
    The ICC is named with the bands of Koo & Li (2016) that its interval spans
    (:func:`icc_reading`); Krippendorff's alpha at an interval or ratio level is given without
    a band. ``digits`` after the decimal point, more when the interval's ends would read
    alike (:func:`interval_digits`);
    ``distribution`` as :meth:`accord.Coefficient.benchmark` takes it.

    Examples
    --------
    >>> from types import SimpleNamespace as C
    >>> verdict(C(name="fleiss_kappa", weights="identity", statistic=0.4302), 0.32, 0.54)
    "Fleiss' kappa 0.43 (95% CI 0.32 to 0.54): moderate agreement beyond chance (Landis & Koch)"
    >>> print(verdict(C(name="icc", form="ICC(A,1)", statistic=0.912), 0.91, 0.95))
    ... # doctest: +NORMALIZE_WHITESPACE
    ICC(A,1) 0.91 (95% CI 0.91 to 0.95): excellent reliability of a single measurement
    (Koo & Li, from the 95% CI)
    >>> verdict(C(name="fleiss_kappa", weights="identity", statistic=float("nan"),
    ...           reason="one category"), float("nan"), float("nan"))
    "Fleiss' kappa is undefined for these data: one category"
    """
    label = short_label(coef)
    value = float(coef.statistic)
    if not math.isfinite(value):
        reason = getattr(coef, "reason", None) or "see the coefficient table"
        return f"{label} is undefined for these data: {reason}"
    digits = interval_digits(low, high, digits)
    interval = (
        f" ({level_pct(confidence_level)} CI {low:.{digits}f} to {high:.{digits}f})"
        if math.isfinite(low) and math.isfinite(high)
        else ""
    )
    head = f"{label} {value:.{digits}f}{interval}"
    if coef.name == "icc":
        return f"{head}: {icc_reading(value, low, high, confidence_level)}"
    if coef.name == "krippendorff_alpha" and getattr(coef, "weights", "") in ("interval", "ratio"):
        return head
    reading = benchmark_reading(coef, confidence_level, distribution)
    if reading is None:
        reading = f"{landis_koch(value)} agreement beyond chance (Landis & Koch)"
    return f"{head}: {reading}"


def bias_spread(result: Any) -> float:
    """How far the raters' biases of a :class:`~accord.PanelCalibration` spread: their
    standard deviation (NaN for one rater)."""
    biases = result.biases["bias"]
    return float(biases.std(ddof=1)) if len(biases) > 1 else math.nan


def panel_verdict(result: Any, column: str = "score") -> str:
    """A panel calibration in one sentence: how far the raters' biases spread, and how well
    the model fits.

    ``result`` is a :class:`~accord.PanelCalibration`; ``column`` names the scores.
    """
    spread = bias_spread(result)
    fit = float(result.residual_per_dof)
    weighted = result.confidence_source != "equal"
    spread_text = f"{spread:.2f}" if math.isfinite(spread) else "undefined (one rater)"
    head = (
        f"{result.n_items:,} items scored by {result.n_raters:,} raters on {column}: their "
        f"biases spread by {spread_text} (SD)"
    )
    if not math.isfinite(fit):
        return head
    if weighted:
        return (
            f"{head}; residual per degree of freedom {fit:.2f} (about 1 when the stated "
            "confidences are right)"
        )
    return f"{head}; the noise left after removing them has variance {fit:.2f}"


def table_verdict(
    table: Any, confidence_level: float = 0.95, *, two_raters: bool | None = None
) -> str:
    """The verdict of an :class:`~accord.agreement.summary.AgreementTable`: its headline
    coefficient (:func:`headline`, at the table's level) with the table's interval.
    ``two_raters``: whether the ratings come from two raters (default: every coefficient of
    the table says so)."""
    if two_raters is None:
        two_raters = bool(table.coefficients) and all(
            getattr(c, "n_raters", 0) == 2 for c in table.coefficients
        )
    head = headline(table.coefficients, table.level, two_raters=two_raters)
    if head is None:
        return "no agreement coefficient applies to these data"
    low, high, _ = table.interval(head, confidence_level)
    return verdict(
        head, float(low), float(high), confidence_level, distribution=distribution(table, head)
    )


def distribution(table: Any, coef: Any) -> str:
    """How the uncertainty of ``coef`` in ``table`` (an
    :class:`~accord.agreement.summary.AgreementTable`) is read against the benchmarks: its
    bootstrap replicates when the table's intervals come from them, else the normal."""
    boot = table.ci == "bootstrap" and getattr(coef, "replicates", None) is not None
    return "bootstrap" if boot else "normal"


def headline_coefficients(level: str) -> list[str]:
    """The coefficients of :func:`accord.agreement` that :func:`headline` chooses from at
    this level (the ICC for measurements).

    >>> headline_coefficients("nominal"), headline_coefficients("ratio")
    (['fleiss_kappa', 'conger_kappa', 'krippendorff_alpha'], ['krippendorff_alpha', 'icc'])
    """
    if level in ("interval", "ratio"):
        return ["krippendorff_alpha", "icc"]
    return ["fleiss_kappa", "conger_kappa", "krippendorff_alpha"]


def shown_coefficients(level: str) -> list[str] | None:
    """The coefficients of :func:`accord.agreement` that the report and the command line show
    at this level unless told otherwise: for measurements (interval and ratio) Krippendorff's
    alpha and the ICCs, for categories every one (None).

    Percent agreement, the kappas, Brennan-Prediger and AC1 count exact matches of values,
    which two readings of a measurement rarely are: on the PEFR readings of two meters they
    give 0.0 and -0.03 beside an ICC of 0.95. Their weighted forms treat each value met as a
    category of the scale; alpha at the data's level and the ICC read the values themselves.

    >>> shown_coefficients("interval"), shown_coefficients("ordinal")
    (['krippendorff_alpha', 'icc'], None)
    """
    from .agreement.summary import default_coefficients

    return list(default_coefficients(level)) if level in ("interval", "ratio") else None


def for_level(coefs: Sequence[Any], level: str) -> list[Any]:
    """``coefs`` without alpha on the nominal scale when the data are measurements (it counts
    exact matches of values; :func:`shown_coefficients` says why).

    >>> from types import SimpleNamespace as C
    >>> coefs = [C(name="krippendorff_alpha", weights=w) for w in ("nominal", "interval")]
    >>> [c.weights for c in for_level(coefs, "interval")], len(for_level(coefs, "nominal"))
    (['interval'], 2)
    """
    if shown_coefficients(level) is None:
        return list(coefs)
    return [c for c in coefs if not (c.name == "krippendorff_alpha" and c.weights == "nominal")]


def ratings_verdict(ratings: Any, table: Any, confidence_level: float = 0.95) -> str:
    """The verdict on ``ratings`` given their :class:`~accord.agreement.summary.AgreementTable`,
    with :func:`two_rater_kappas` added for two raters on categories when the table does not
    hold them: :func:`table_verdict`, told whether there are two raters."""
    if not any(c.name == "cohen_kappa" for c in table.coefficients):
        import dataclasses

        rows = (*two_rater_kappas(ratings), *table.coefficients)
        table = dataclasses.replace(table, coefficients=rows)
    return table_verdict(table, confidence_level, two_raters=ratings.n_raters == 2)


def _coefficient_words(coef: Any) -> str:
    """The verdict of one coefficient with its own interval."""
    interval = coef.confidence_interval()
    return verdict(coef, float(interval.low), float(interval.high))


# The words a notebook shows above each result are these (one place writes them).
register_words("AgreementTable", table_verdict)
register_words("PanelCalibration", panel_verdict)
register_words("Coefficient", _coefficient_words)
