"""Specific agreement (positive and negative; per category) and the F-measure.

Positive specific agreement (PSA) of two raters is the balanced F-measure of either rater
against the other (Hripcsak & Rothschild 2005): it needs no count of negative cases, which
makes it the agreement measure for retrieval and markup tasks where negatives are undefined.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from typing import Any, Literal, Never, TypeAlias

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError, warn_degenerate
from .._results import (
    Coefficient,
    ConfidenceInterval,
    Record,
    check_level,
    plain_fields,
    t_quantile,
)
from .._types import FloatArray, RngLike, as_generator
from ..data.ratings import Ratings
from ..data.source import refuse_read_options
from ..data.table import ContingencyTable
from ._tables import specific_ratio
from .inference import check_n_boot
from .two_raters import TwoRaterData, as_table, bootstrap_table

__all__ = ["KappaCurve", "SpecificAgreement", "kappa_vs_negatives", "specific_agreement"]

#: ``ci_method`` of the default (Wilson-type) intervals of specific agreement.
WILSON_DESCRIPTION = "Wilson score interval on the delta-method effective number of ratings"

SpecificCI: TypeAlias = Literal["wilson", "wald", "percentile", "bca"]
Which: TypeAlias = Literal["positive", "negative"]


# ----------------------------------------------------------------------- input


@dataclasses.dataclass(frozen=True, slots=True)
class _Binary:
    """A 2 x 2 table positive-first, and what it came from."""

    a: float  # both positive
    b: float  # X positive, Y negative
    c: float  # X negative, Y positive
    d: float  # both negative; NaN when unknown
    table: ContingencyTable | None  # None when d is unknown
    positive: Any
    categories: tuple[Any, ...]
    raters: tuple[str, str]
    n_unpaired: int

    @property
    def d_known(self) -> bool:
        return not math.isnan(self.d)


def _unknown_d_table(data: Any) -> FloatArray | None:
    """A 2 x 2 array whose cell [1][1] is None or NaN (negatives unknown), else None."""
    if isinstance(data, ContingencyTable | Ratings):
        return None
    try:
        arr = np.array(data, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    if arr.shape != (2, 2) or not math.isnan(arr[1, 1]):
        return None
    rest = arr.ravel()[:3]
    if not np.all(np.isfinite(rest)):
        raise InvalidInputError("only the negative cell d = [1][1] of the table may be unknown")
    if np.any(rest < 0):
        raise InvalidInputError(f"counts a, b, c must be >= 0; got {rest.tolist()}")
    if rest.sum() <= 0:
        raise InvalidInputError("the table is empty: a, b and c are all 0 and d is unknown")
    return arr


def _binary(
    data: TwoRaterData,
    y: npt.ArrayLike | None,
    *,
    positive: Any,
    categories: Sequence[Any] | None,
    raters: tuple[Any, Any] | None,
    owner: str,
) -> _Binary:
    """Collapse any accepted input to a, b, c, d for the positive category."""
    partial = _unknown_d_table(data) if y is None else None
    if partial is not None:
        cats = tuple(categories) if categories is not None else (0, 1)
        if len(cats) != 2:
            raise InvalidInputError(f"{owner}: {len(cats)} categories given for a 2 x 2 table")
        if positive is not None and positive != cats[0]:
            raise InvalidInputError(
                f"{owner}: with the negative count unknown, the positive category is the first "
                f"({cats[0]!r}); got positive={positive!r}"
            )
        names = ("X", "Y") if raters is None else (str(raters[0]), str(raters[1]))
        a, b, c = (float(v) for v in partial.ravel()[:3])
        return _Binary(a, b, c, math.nan, None, cats[0], cats, names, 0)
    table = as_table(data, y, categories=categories, raters=raters, owner=owner)
    cats = table.categories
    if positive is None:
        k = 0
    else:
        matches = [i for i, cat in enumerate(cats) if cat == positive or str(cat) == str(positive)]
        if not matches:
            raise InvalidInputError(
                f"{owner}: positive={positive!r} is not among the categories {list(cats)!r}"
            )
        k = matches[0]
    counts = table.counts
    a = float(counts[k, k])
    b = float(counts[k].sum() - a)
    c = float(counts[:, k].sum() - a)
    d = float(counts.sum() - a - b - c)
    return _Binary(a, b, c, d, table, cats[k], cats, table.raters, table.n_unpaired)


# ------------------------------------------------------------------- formulas


def _specific_se(agree: FloatArray | float, b_plus_c: FloatArray | float) -> FloatArray:
    """Delta-method SE: ``sqrt(4a(b+c)(a+b+c)) / (2a+b+c)^2`` (Graham & Bull 1998)."""
    a = np.asarray(agree, dtype=np.float64)
    bc = np.asarray(b_plus_c, dtype=np.float64)
    den = 2.0 * a + bc
    with np.errstate(invalid="ignore", divide="ignore"):
        out: FloatArray = np.where(
            den > 0, np.sqrt(4.0 * a * bc * (a + bc)) / np.where(den > 0, den, 1.0) ** 2, np.nan
        )
    return out


def _effective_n(agree: float, b_plus_c: float) -> float:
    """Effective number of ratings ``p(1-p)/Var = (2a+b+c)^2 / (2(a+b+c))``."""
    total = agree + b_plus_c
    if total <= 0:
        return math.nan
    return (2.0 * agree + b_plus_c) ** 2 / (2.0 * total)


def _wilson(p: float, n_eff: float, level: float) -> ConfidenceInterval:
    """Wilson score interval for a proportion ``p`` on ``n_eff`` effective trials."""
    if not (math.isfinite(p) and math.isfinite(n_eff)) or n_eff <= 0:
        return ConfidenceInterval(math.nan, math.nan)
    z = t_quantile(0.5 + level / 2.0, math.inf)
    z2n = z * z / n_eff
    centre = (p + z2n / 2.0) / (1.0 + z2n)
    half = z * math.sqrt(p * (1.0 - p) / n_eff + z2n / (4.0 * n_eff)) / (1.0 + z2n)
    return ConfidenceInterval(max(0.0, centre - half), min(1.0, centre + half))


def _wald(p: float, se: float, level: float) -> ConfidenceInterval:
    if not (math.isfinite(p) and math.isfinite(se)):
        return ConfidenceInterval(math.nan, math.nan)
    half = t_quantile(0.5 + level / 2.0, math.inf) * se
    return ConfidenceInterval(max(0.0, p - half), min(1.0, p + half))


def check_which(which: str, owner: str) -> None:
    """Raise the house option error unless ``which`` is "positive" or "negative"."""
    if which not in ("positive", "negative"):
        raise InvalidInputError(
            f"The 'which' parameter of {owner} must be one of {{'positive', 'negative'}}. "
            f"Got {which!r} instead."
        )


def which_interval(
    result: Any,
    owner: str,
    level: float,
    method: str,
    which: str,
    n_eff: Callable[[float, float], float],
) -> ConfidenceInterval:
    """The interval of PSA (``which="positive"``) or NSA of a specific-agreement result:
    Wilson-type on ``n_eff(value, se)`` effective ratings, Wald on the delta-method SE, or
    from the bootstrap replicates."""
    check_level(level)
    check_which(which, owner)
    if which == "positive":
        value, se = result.statistic, result.standard_error
        reps, jack = result.replicates, result.jackknife
    else:
        value, se = result.negative_agreement, result.negative_standard_error
        reps, jack = result.negative_replicates, result.negative_jackknife
    if method == "wilson":
        return _wilson(value, n_eff(value, se), level)
    if method == "wald":
        return _wald(value, se, level)
    if method in ("percentile", "bca"):
        from .._bootstrap import bootstrap_interval

        return bootstrap_interval(value, reps, jack, level=level, method=method)
    raise InvalidInputError(
        f"The 'method' parameter of {owner} must be one of "
        f"{{'wilson', 'wald', 'percentile', 'bca'}}. Got {method!r} instead."
    )


# -------------------------------------------------------------------- results


@dataclasses.dataclass(frozen=True, slots=True)
class NegativeReplicates(Coefficient):
    """A coefficient of the positive category (PSA) that carries the bootstrap of its
    negative counterpart (NSA) too.

    Attributes
    ----------
    negative_replicates, negative_jackknife : ndarray or None
        Bootstrap and leave-one-item-out values of NSA (``replicates``/``jackknife`` hold
        PSA's).
    """

    negative_replicates: FloatArray | None = dataclasses.field(
        default=None, repr=False, compare=False
    )
    negative_jackknife: FloatArray | None = dataclasses.field(
        default=None, repr=False, compare=False
    )


@dataclasses.dataclass(frozen=True, slots=True)
class WilsonSpecific(NegativeReplicates):
    """PSA and NSA with delta-method SEs, whose Wilson-type intervals use the effective
    number of ratings :meth:`effective_n` implied by the variance."""

    def effective_n(self, which: Which) -> Callable[[float, float], float]:
        """The effective number of ratings of PSA (or NSA) as a function of the value and
        its SE."""
        raise NotImplementedError

    def confidence_interval(  # type: ignore[override]
        self,
        level: float = 0.95,
        method: SpecificCI = "wilson",
        *,
        which: Which = "positive",
    ) -> ConfidenceInterval:
        """Confidence interval for PSA (``which="positive"``) or NSA.

        Parameters
        ----------
        level : float, default 0.95
            Any level strictly between 0 and 1.
        method : {"wilson", "wald", "percentile", "bca"}
            ``"wilson"``: Wilson score interval on the effective number of ratings implied by
            the delta-method variance (:meth:`effective_n`); ``"wald"``: PSA +- z SE (delta
            method), truncated to [0, 1]; ``"percentile"``/``"bca"``: bootstrap over items
            (computed with ``n_boot > 0``).
        which : {"positive", "negative"}
        """
        owner = f"{type(self).__name__}.confidence_interval"
        return which_interval(self, owner, level, method, which, self.effective_n(which))

    @property
    def ci_description(self) -> str:
        """The intervals of :meth:`to_dict`: Wilson-type."""
        return WILSON_DESCRIPTION

    def to_dict(self, level: float = 0.95) -> dict[str, Any]:
        """Plain dict of the result with Wilson-type intervals for PSA and NSA."""
        return wilson_dict(self, level)


@dataclasses.dataclass(frozen=True, slots=True)
class SpecificAgreement(WilsonSpecific):
    """Positive and negative specific agreement, precision and recall, per category.

    ``statistic`` is the positive specific agreement (PSA = F1) of the ``positive``
    category and ``standard_error`` its delta-method SE. Its Wilson-type interval uses the
    effective number of ratings ``(2a+b+c)^2 / (2(a+b+c))`` implied by the delta-method
    variance (it stays inside [0, 1] and does not collapse at 0 or 1).

    Attributes
    ----------
    positive : object
        The category treated as positive.
    negative_agreement : float
        NSA, ``2d / (2d + b + c)``; NaN when ``d`` is unknown.
    negative_standard_error : float
        Delta-method SE of NSA.
    precision, recall : float
        Of rater X against rater Y as the reference: ``a / (a + b)`` and ``a / (a + c)``.
    f1 : float
        The balanced F-measure, equal to PSA.
    a, b, c, d : float
        Both positive; X positive and Y negative; X negative and Y positive; both negative
        (NaN when unknown).
    per_category : pandas.DataFrame
        One row per category: ``category``, ``n_both`` (n_kk), ``n_x`` (rater X's count),
        ``n_y`` (rater Y's count), ``specific_agreement`` (``2 n_kk / (n_x + n_y)``),
        ``standard_error`` (delta method), ``ci_low`` and ``ci_high`` (Wilson-type 95%).
        Empty when ``d`` is unknown.
    negative_replicates, negative_jackknife : ndarray or None
        Bootstrap and leave-one-out values of NSA (``replicates``/``jackknife`` hold PSA's).
    raters : tuple of str
        Names of rater X and rater Y.
    """

    positive: Any = None
    negative_agreement: float = math.nan
    negative_standard_error: float = math.nan
    precision: float = math.nan
    recall: float = math.nan
    f1: float = math.nan
    a: float = math.nan
    b: float = math.nan
    c: float = math.nan
    d: float = math.nan
    per_category: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    raters: tuple[str, str] = ("X", "Y")

    def effective_n(self, which: Which) -> Callable[[float, float], float]:
        """``(2a+b+c)^2 / (2(a+b+c))`` for PSA, with ``d`` for ``a`` for NSA (the value and
        SE are not needed)."""
        agree = self.a if which == "positive" else self.d
        return lambda value, se: _effective_n(agree, self.b + self.c)


ARRAYS = ("replicates", "jackknife", "negative_replicates", "negative_jackknife")


def with_intervals(
    out: dict[str, Any],
    result: Any,
    level: float,
    pos: ConfidenceInterval,
    neg: ConfidenceInterval,
) -> dict[str, Any]:
    """``out`` with the level and the intervals of PSA (``pos``) and NSA (``neg``) of a
    specific-agreement result."""
    out.update(
        n_categories=result.n_categories,
        confidence_level=level,
        ci_method=result.ci_description,
        ci_low=pos.low,
        ci_high=pos.high,
        negative_ci_low=neg.low,
        negative_ci_high=neg.high,
    )
    return out


def wilson_dict(result: Any, level: float) -> dict[str, Any]:
    """Plain dict of a specific-agreement result with Wilson-type intervals for PSA and NSA."""
    pos = result.confidence_interval(level, "wilson")
    neg = result.confidence_interval(level, "wilson", which="negative")
    return with_intervals(plain_fields(result, ARRAYS), result, level, pos, neg)


def _per_category(table: ContingencyTable) -> pd.DataFrame:
    counts = table.counts
    both = np.diag(counts).astype(np.float64)
    n_x = counts.sum(axis=1)
    n_y = counts.sum(axis=0)
    off = n_x + n_y - 2.0 * both
    sa = specific_ratio(both, off)
    se = _specific_se(both, off)
    lows, highs = [], []
    for agree, rest, value in zip(both, off, sa, strict=True):
        ci = _wilson(float(value), _effective_n(float(agree), float(rest)), 0.95)
        lows.append(ci.low)
        highs.append(ci.high)
    return pd.DataFrame(
        {
            "category": list(table.categories),
            "n_both": both,
            "n_x": n_x,
            "n_y": n_y,
            "specific_agreement": sa,
            "standard_error": se,
            "ci_low": lows,
            "ci_high": highs,
        }
    )


def _binary_bootstrap(
    table: ContingencyTable, k: int, n_boot: int, rng: RngLike
) -> tuple[FloatArray, FloatArray | None, FloatArray, FloatArray | None]:
    """Bootstrap PSA and NSA of category ``k`` over items (one shared set of draws)."""

    def both(p: FloatArray) -> FloatArray:
        a = p[:, k, k]
        bc = p[:, k, :].sum(axis=-1) + p[:, :, k].sum(axis=-1) - 2.0 * a
        d = 1.0 - a - bc
        return np.stack([specific_ratio(a, bc), specific_ratio(d, bc)], axis=-1).ravel()

    # One call per statistic keeps the interface of bootstrap_table (values per table); the
    # generator is re-seeded identically so PSA and NSA come from the same resamples.
    seed = int(as_generator(rng).integers(2**63))
    reps_p, jack_p = bootstrap_table(table, lambda p: both(p)[0::2], n_boot=n_boot, rng=seed)
    reps_n, jack_n = bootstrap_table(table, lambda p: both(p)[1::2], n_boot=n_boot, rng=seed)
    return reps_p, jack_p, reps_n, jack_n


def specific_agreement(
    data: TwoRaterData,
    y: npt.ArrayLike | None = None,
    /,
    *,
    positive: Any = None,
    categories: Sequence[Any] | None = None,
    raters: tuple[Any, Any] | None = None,
    n_boot: int = 0,
    rng: RngLike = None,
    **read_options: Never,
) -> SpecificAgreement:
    r"""Positive and negative specific agreement (PSA = F1, NSA), and per category.

    For the 2 x 2 table ``[[a, b], [c, d]]`` (a: both positive; rows rater X):

    .. math::

        PSA = \frac{2a}{2a + b + c}, \qquad NSA = \frac{2d}{2d + b + c}, \qquad
        \text{per category } k: \frac{2 n_{kk}}{n_{k\cdot} + n_{\cdot k}}

    Parameters
    ----------
    data : ContingencyTable, Ratings, array_like, or labels of shape (n,)
        As for :func:`~accord.cohen_kappa`. A 2 x 2 array may have ``None`` (or NaN) as its
        cell ``[1][1]`` when the number of negative cases is unknown: PSA, precision and
        recall need no ``d``.
    y : array_like of shape (n,), optional
        Rater Y's labels, aligned with ``data``.
    positive : category, optional
        The category treated as positive (default: the first category, cell ``a``). For
        q > 2 categories, the others are pooled as negative.
    categories, raters
        As for :func:`~accord.cohen_kappa`.
    n_boot : int, default 0
        Bootstrap replicates over items for percentile and BCa intervals (0: none). With
        ``d`` unknown, the ``a + b + c`` items with a positive rating are resampled.
    rng : numpy.random.Generator, int or None
        Random source of the bootstrap.

    Returns
    -------
    SpecificAgreement
        ``statistic`` (PSA), ``standard_error`` (delta method), ``negative_agreement``,
        ``negative_standard_error``, ``precision``, ``recall``, ``f1``, ``a``, ``b``, ``c``,
        ``d``, ``per_category``, and ``confidence_interval(level, method, which=...)`` with
        methods ``"wilson"`` (default), ``"wald"``, ``"percentile"``, ``"bca"``.

    Notes
    -----
    PSA is the balanced F-measure with either rater as the reference (Hripcsak & Rothschild
    2005): precision and recall swap when the raters swap, F1 does not. The delta-method
    variances (Graham & Bull 1998) are

    .. math::

        \widehat{\mathrm{Var}}(PSA) = \frac{4a(b+c)(a+b+c)}{(2a+b+c)^4}, \qquad
        \widehat{\mathrm{Var}}(NSA) = \frac{4d(b+c)(d+b+c)}{(2d+b+c)^4}.

    The Wald interval is PSA +- z SE (normal quantile), truncated to [0, 1]; it collapses to
    a point when PSA is 0 or 1. The Wilson-type interval (the default) applies the Wilson
    score interval to the effective number of ratings :math:`n^* = PSA(1-PSA)/\mathrm{Var} =
    (2a+b+c)^2 / (2(a+b+c))` (the design-effect approach of Korn & Graubard 1998), which
    stays informative at 0 and 1. The per-category table gives the same statistics for each
    category against the rest. Undefined values (no positive rating at all, or ``d`` unknown
    for NSA) are NaN; a PSA with no positive rating also carries a ``reason`` and a
    :class:`~accord.DegenerateDataWarning`.

    References
    ----------
    .. [1] Hripcsak, G., & Rothschild, A. S. (2005). Agreement, the F-measure, and
       reliability in information retrieval. Journal of the American Medical Informatics
       Association, 12(3), 296-298. https://doi.org/10.1197/jamia.M1733
    .. [2] Graham, P., & Bull, B. (1998). Approximate standard errors and confidence
       intervals for indices of positive and negative agreement. Journal of Clinical
       Epidemiology, 51(9), 763-771. https://doi.org/10.1016/S0895-4356(98)00048-1
    .. [3] Fleiss, J. L. (1975). Measuring agreement between two judges on the presence or
       absence of a trait. Biometrics, 31(3), 651-659. https://doi.org/10.2307/2529549
    .. [4] Korn, E. L., & Graubard, B. I. (1998). Confidence intervals for proportions with
       small expected number of positive counts estimated from survey data. Survey
       Methodology, 24(2), 193-201.

    Examples
    --------
    a, b, c, d = 40, 5, 10, 45 (PSA 0.842105, NSA 0.857143):

    >>> res = specific_agreement([[40, 5], [10, 45]])
    >>> round(res.statistic, 6), round(res.negative_agreement, 6)
    (0.842105, 0.857143)
    >>> round(res.standard_error, 6), round(res.negative_standard_error, 6)
    (0.040257, 0.036507)

    The number of negatives may be unknown (retrieval, markup):

    >>> res = specific_agreement([[40, 5], [10, None]])
    >>> round(res.statistic, 6), res.precision, round(res.recall, 6)
    (0.842105, 0.8888888888888888, 0.8)
    """
    refuse_read_options("specific_agreement", read_options)
    owner = "specific_agreement"
    check_n_boot(n_boot, owner)
    bn = _binary(data, y, positive=positive, categories=categories, raters=raters, owner=owner)
    a, b, c, d = bn.a, bn.b, bn.c, bn.d
    psa = float(specific_ratio(a, b + c))
    se = float(_specific_se(a, b + c))
    nsa = float(specific_ratio(d, b + c)) if bn.d_known else math.nan
    nse = float(_specific_se(d, b + c)) if bn.d_known else math.nan
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = a / (a + b) if a + b > 0 else math.nan
        recall = a / (a + c) if a + c > 0 else math.nan
    reason = None
    if math.isnan(psa):
        reason = (
            f"no rating of category {bn.positive!r} by either rater: positive specific "
            "agreement is 0/0 (undefined)"
        )
        warn_degenerate(reason)
    per_category = _per_category(bn.table) if bn.table is not None else pd.DataFrame()
    reps = jack = nreps = njack = None
    if n_boot > 0:
        if bn.table is not None:
            k = list(bn.categories).index(bn.positive)
            reps, jack, nreps, njack = _binary_bootstrap(bn.table, k, n_boot, rng)
        else:
            partial = ContingencyTable([[a, b], [c, 0.0]])
            reps, jack, _, _ = _binary_bootstrap(partial, 0, n_boot, rng)
    n_items = round(a + b + c + (d if bn.d_known else 0.0))
    method = (
        "positive specific agreement 2a/(2a+b+c) = F1 (Hripcsak & Rothschild 2005) and "
        "negative 2d/(2d+b+c); SE by the delta method (Graham & Bull 1998); default interval "
        "Wilson-type on the effective number of ratings"
        + ("" if bn.d_known else "; the number of negatives d is unknown")
        + (f"; bootstrap over items, {n_boot} replicates" if reps is not None else "")
    )
    return SpecificAgreement(
        name="specific_agreement",
        statistic=psa,
        standard_error=se,
        n_items=n_items,
        n_raters=2,
        categories=bn.categories,
        method=method,
        observed_agreement=(a + d) / (a + b + c + d) if bn.d_known else math.nan,
        n_items_unpairable=bn.n_unpaired,
        reason=reason,
        bounds=(0.0, 1.0),
        replicates=reps,
        jackknife=jack,
        positive=bn.positive,
        negative_agreement=nsa,
        negative_standard_error=nse,
        precision=precision,
        recall=recall,
        f1=psa,
        a=a,
        b=b,
        c=c,
        d=d,
        per_category=per_category,
        raters=bn.raters,
        negative_replicates=nreps,
        negative_jackknife=njack,
    )


# -------------------------------------------------------------- kappa vs negatives


@dataclasses.dataclass(frozen=True, slots=True)
class KappaCurve(Record):
    """Cohen's kappa as a function of the number of negatives ``d``, beside PSA.

    Attributes
    ----------
    curve : pandas.DataFrame
        Columns ``d``, ``kappa`` (kappa of ``[[a, b], [c, d]]``), ``observed_agreement``
        (``(a + d) / (a + b + c + d)``), ``positive_agreement`` (PSA, constant in ``d``).
    positive_agreement : float
        PSA = 2a / (2a + b + c), the limit of kappa as ``d`` grows.
    a, b, c : float
        The counts that do not depend on ``d``.
    observed_d : float
        The observed number of negatives (NaN when unknown).
    positive : object
        The category treated as positive.
    """

    curve: pd.DataFrame
    positive_agreement: float
    a: float
    b: float
    c: float
    observed_d: float
    positive: Any


def _kappa_2x2(a: float, b: float, c: float, d: FloatArray) -> FloatArray:
    """Cohen's kappa of ``[[a, b], [c, d]]``: ``2(ad - bc) / ((a+c)(c+d) + (b+d)(a+b))``."""
    den = (a + c) * (c + d) + (b + d) * (a + b)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: FloatArray = np.where(
            den > 0, 2.0 * (a * d - b * c) / np.where(den > 0, den, 1.0), np.nan
        )
    return out


def kappa_vs_negatives(
    data: TwoRaterData,
    y: npt.ArrayLike | None = None,
    /,
    *,
    negatives: npt.ArrayLike | None = None,
    positive: Any = None,
    categories: Sequence[Any] | None = None,
    raters: tuple[Any, Any] | None = None,
    **read_options: Never,
) -> KappaCurve:
    r"""Cohen's kappa as the number of negative cases ``d`` grows, and its limit PSA.

    .. math::

        \kappa(d) = \frac{2(ad - bc)}{(a + c)(c + d) + (b + d)(a + b)}
        \;\xrightarrow[d \to \infty]{}\; \frac{2a}{2a + b + c} = PSA

    Hripcsak & Rothschild (2005) use this limit to argue for PSA (the F-measure) when
    negatives are many or undefined: kappa computed with a large ``d`` is close to PSA
    anyway. The curve is data for a plot (kappa against ``d`` on a log axis).

    Parameters
    ----------
    data, y, positive, categories, raters
        As for :func:`specific_agreement` (``d`` may be unknown).
    negatives : array_like of float, optional
        The values of ``d`` to evaluate. Default: 0 and 49 values from 1 to
        ``10^4 (a + b + c)`` evenly spaced on a log scale, plus the observed ``d``.

    Returns
    -------
    KappaCurve
        ``curve`` (columns ``d``, ``kappa``, ``observed_agreement``,
        ``positive_agreement``), ``positive_agreement``, ``a``, ``b``, ``c``,
        ``observed_d``.

    Notes
    -----
    Kappa is undefined (NaN) at a ``d`` where chance agreement is 1 (e.g. ``b = c = 0`` and
    ``d = 0``); no warning is raised for points of a curve.

    References
    ----------
    .. [1] Hripcsak, G., & Rothschild, A. S. (2005). Agreement, the F-measure, and
       reliability in information retrieval. Journal of the American Medical Informatics
       Association, 12(3), 296-298. https://doi.org/10.1197/jamia.M1733

    Examples
    --------
    >>> res = kappa_vs_negatives([[40, 5], [10, None]], negatives=[45, 450, 4500, 45000, 1e7])
    >>> res.curve["kappa"].round(6).tolist(), round(res.positive_agreement, 6)
    ([0.7, 0.825762, 0.840446, 0.841939, 0.842105], 0.842105)
    """
    refuse_read_options("kappa_vs_negatives", read_options)
    bn = _binary(
        data,
        y,
        positive=positive,
        categories=categories,
        raters=raters,
        owner="kappa_vs_negatives",
    )
    a, b, c = bn.a, bn.b, bn.c
    if negatives is None:
        top = 1e4 * max(a + b + c, 1.0)
        grid = np.r_[0.0, np.geomspace(1.0, top, 49)]
        if bn.d_known:
            grid = np.r_[grid, bn.d]
        d = np.unique(grid)
    else:
        d = np.asarray(negatives, dtype=np.float64).ravel()
        if d.size == 0 or not np.all(np.isfinite(d)) or np.any(d < 0):
            raise InvalidInputError(
                "negatives must be a non-empty list of finite counts >= 0; got "
                f"{np.asarray(negatives).tolist()!r}"
            )
    psa = float(specific_ratio(a, b + c))
    total = a + b + c + d
    with np.errstate(invalid="ignore", divide="ignore"):
        agreement = np.where(total > 0, (a + d) / np.where(total > 0, total, 1.0), np.nan)
    curve = pd.DataFrame(
        {
            "d": d,
            "kappa": _kappa_2x2(a, b, c, d),
            "observed_agreement": agreement,
            "positive_agreement": np.full(d.shape, psa),
        }
    )
    return KappaCurve(curve, psa, a, b, c, bn.d, bn.positive)
