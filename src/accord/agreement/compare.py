"""Comparing two agreement coefficients: on the same items (paired) or on two samples.

Paired, Gwet (2016): both coefficients are means of their item-level linearised terms (the
terms of the analytic SE, :mod:`accord.agreement.many_raters`), so their difference is the
mean of the item differences ``d_i = kappa2_i* - kappa1_i*``, and a paired t test on ``d_i``
tests it. Independent samples: the two analytic SEs add in quadrature.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Never

import numpy as np

from .._errors import InvalidInputError
from .._results import ConfidenceInterval, Result, plain_fields, t_interval, t_pvalue
from .._types import FloatArray, Level
from ..data.ratings import Ratings
from ..data.source import refuse_read_options
from ._counts import NO_PAIRS, prepare
from .krippendorff import _alpha_finish, _alpha_metric, _alpha_parts, _alpha_sizes, _alpha_star
from .many_raters import (
    _BRENNAN_PREDIGER,
    _CONGER_KAPPA,
    _FLEISS_KAPPA,
    _GWET_AC1,
    _GWET_AC2,
    _PERCENT_AGREEMENT,
    WeightsLike,
    _family,
)

__all__ = ["AgreementComparison", "compare_agreement"]

_MEMBERS = {
    m.name: m
    for m in (
        _PERCENT_AGREEMENT,
        _FLEISS_KAPPA,
        _CONGER_KAPPA,
        _GWET_AC1,
        _GWET_AC2,
        _BRENNAN_PREDIGER,
    )
}
#: Every coefficient compare_agreement offers.
COEFFICIENTS = (*_MEMBERS, "krippendorff_alpha")
_METHOD = (
    "Gwet (2016) paired t test of correlated agreement coefficients: item differences of the "
    "linearised terms, SE sqrt(var(d) / n), t on n - 1 df"
)
_INDEPENDENT = (
    "difference of two coefficients from independent samples: SE sqrt(SE1^2 + SE2^2) of the "
    "two analytic SEs, t on Welch-Satterthwaite df"
)


@dataclasses.dataclass(frozen=True, slots=True)
class AgreementComparison(Result):
    """The difference of one agreement coefficient between two rating sets of the same items.

    Attributes
    ----------
    coefficient : str
        The coefficient compared (e.g. ``"fleiss_kappa"``).
    coefficient1, coefficient2 : float
        Its value on the first and on the second rating set.
    difference : float
        ``coefficient2 - coefficient1``.
    standard_error : float
        Paired: ``sqrt(var(d, ddof=1) / n)``, ``d`` the item differences of the linearised
        terms; independent: ``sqrt(SE1^2 + SE2^2)`` of the coefficients' analytic SEs.
    statistic : float
        ``difference / standard_error`` (t); NaN when the SE is 0 or undefined (``reason``).
    df : float
        ``n_items - 1`` (paired); the Welch-Satterthwaite degrees of freedom
        ``SE^4 / (SE1^4 / (n1 - 1) + SE2^4 / (n2 - 1))`` (independent).
    pvalue : float
        Two-sided p-value of ``difference = 0`` from Student's t on ``df``.
    confidence_interval : ConfidenceInterval
        t interval of the difference at ``confidence_level``.
    confidence_level : float
        Level of the interval.
    n_items : int
        Paired: items rated in both sets; independent: the items of both samples.
    method : str
        The test used.
    reason : str or None
        Why a field is NaN, when one is.
    paired : bool
        Whether the sets share their items (Gwet's paired test) or are independent samples.
    """

    coefficient: str
    coefficient1: float
    coefficient2: float
    difference: float
    standard_error: float
    statistic: float
    df: float
    pvalue: float
    confidence_interval: ConfidenceInterval
    confidence_level: float
    n_items: int
    method: str
    reason: str | None = None
    paired: bool = True

    def _headline(self) -> str:
        return (
            f"{self.coefficient} {self.coefficient1:.4g} -> {self.coefficient2:.4g}: "
            f"difference {self.difference:.4g} (t = {self.statistic:.4g}, p = {self.pvalue:.4g})"
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dict of the fields (the interval as ``ci_low`` / ``ci_high``)."""
        out = plain_fields(self)
        ci = out.pop("confidence_interval")
        out.update(ci_low=ci[0], ci_high=ci[1])
        return out


def _rated_items(ratings: Ratings) -> Any:
    """The ids of the rated items, in the order of the item counts (item code order)."""
    return ratings.items[np.unique(ratings.item_codes)]


@dataclasses.dataclass(frozen=True, slots=True)
class _Side:
    """One rating set's coefficient, analytic SE, item terms (None when undefined), why
    not, the ids of the items the terms belong to, and its item count."""

    statistic: float
    standard_error: float
    terms: FloatArray | None
    reason: str | None
    items: Any
    n_items: int


def _side(
    coefficient: str, ratings: Ratings, weights: Any, level: Level | None, which: str
) -> _Side:
    if not isinstance(ratings, Ratings):
        raise InvalidInputError(
            f"compare_agreement: {which} must be Ratings (accord.Ratings.from_wide / "
            f"from_long / read_ratings), got {type(ratings).__name__}"
        )
    if coefficient == "krippendorff_alpha":
        return _alpha_side(ratings, weights, level)
    member = _MEMBERS[coefficient]
    d = prepare(ratings, None, member.name)
    fields = _family(
        member, d, weights, population_size=None, ci="analytic", n_boot=2000, rng=None, terms=True
    )
    items = _rated_items(ratings)
    return _Side(
        fields["statistic"],
        fields["standard_error"],
        fields.get("item_terms"),
        fields.get("reason"),
        items,
        len(items),
    )


def _alpha_side(ratings: Ratings, weights: Any, level: Level | None) -> _Side:
    """Krippendorff's alpha and its terms over the pairable items: Gwet's terms of alpha'
    (those of its SE) rescaled as ``alpha = (1 - 1/N) alpha' + 1/N`` (N pairable ratings),
    so that they average to alpha itself, as pairedCAC's ``alpha.linear.i`` forms them."""
    d = prepare(ratings, None, "krippendorff_alpha")
    metric = _alpha_metric(ratings, level, weights, None)
    it = d.items
    items = _rated_items(ratings)[it.two]
    if it.n2 == 0:
        return _Side(math.nan, math.nan, None, NO_PAIRS, items, 0)
    parts, _ = _alpha_parts(d, metric)
    if parts.undefined or parts.pe >= 1.0 - 1e-12:
        why = "all pairable ratings are in one category: alpha is 0/0 (undefined)"
        return _Side(math.nan, math.nan, None, why, items, it.n2)
    alpha, se, _, _ = _alpha_finish(parts, it.n, 1.0)
    n, big_n, paprime = _alpha_sizes(parts)
    terms = (1.0 - 1.0 / big_n) * _alpha_star(parts, slice(None), paprime, big_n / n)
    return _Side(alpha, se, terms + 1.0 / big_n, None, items, n)


def _listed(items: list[Any], most: int = 5) -> str:
    """Up to ``most`` item ids as the user wrote them, and how many more."""
    shown = ", ".join(map(str, items[:most]))
    return shown + (f" and {len(items) - most} more" if len(items) > most else "")


def _align(items1: Any, items2: Any) -> FloatArray:
    """The position in ``items2`` of every item of ``items1``; both must hold the same items."""
    pos = {item: j for j, item in enumerate(items2.tolist())}
    first = set(items1.tolist())
    only1 = [i for i in items1.tolist() if i not in pos]
    only2 = [i for i in items2.tolist() if i not in first]
    if only1 or only2:
        shown = "; ".join(
            f"only in {which}: {_listed(only)}"
            for which, only in (("ratings1", only1), ("ratings2", only2))
            if only
        )
        raise InvalidInputError(
            f"compare_agreement needs the same rated items in both sets; {shown}"
        )
    return np.array([pos[i] for i in items1.tolist()], dtype=np.int64)


def compare_agreement(
    ratings1: Ratings,
    ratings2: Ratings,
    *,
    coefficient: str = "fleiss_kappa",
    weights: WeightsLike | None = None,
    level: Level | None = None,
    paired: bool = True,
    confidence_level: float = 0.95,
    **read_options: Never,
) -> AgreementComparison:
    """Test whether an agreement coefficient differs between two rating sets.

    Paired (the same items, rated twice: two panels, two rounds, a panel with and without a
    judge): Gwet's (2016) test for correlated coefficients. Each coefficient is the mean of
    its item-level linearised terms ``kappa_i* = kappa_i - 2 (1 - kappa) (pe_i - pe) / (1 -
    pe)`` (the terms of its analytic SE); the item differences ``d_i`` of the two sets' terms
    give ``SE = sqrt(var(d) / n)`` and a t test on ``n - 1`` degrees of freedom, as the R
    package pairedCAC computes it.

    Independent samples (``paired=False``: two studies, two sites, different items): the
    difference with ``SE = sqrt(SE1^2 + SE2^2)`` from each coefficient's analytic SE, a t
    reference on the Welch-Satterthwaite degrees of freedom.

    Parameters
    ----------
    ratings1, ratings2 : Ratings
        Two rating sets. Paired: of the same items (matched by item id; the raters may
        differ). Independent: any items, rated independently of each other.
    coefficient : str, default "fleiss_kappa"
        One of ``"percent_agreement"``, ``"fleiss_kappa"``, ``"conger_kappa"``,
        ``"gwet_ac1"``, ``"gwet_ac2"``, ``"brennan_prediger"``, ``"krippendorff_alpha"``.
    weights : str, array_like or None
        Agreement weights, as in :func:`accord.fleiss_kappa` (for alpha: Gwet's weights, as
        in :func:`accord.krippendorff_alpha`); None: unweighted (alpha: its level).
    level : {"nominal", "ordinal", "interval", "ratio"}, optional
        Krippendorff's alpha only: the metric (default: the ratings' level).
    paired : bool, default True
        Whether both sets rate the same items (Gwet's paired test) or are independent.
    confidence_level : float, default 0.95
        Level of the t interval of the difference.

    Returns
    -------
    AgreementComparison
        Both coefficients, ``difference`` (second minus first), its SE, t, df, p-value,
        interval and ``paired``.

    Raises
    ------
    InvalidInputError
        An unknown coefficient, input that is not Ratings, ``level`` with another
        coefficient, or (paired) items rated in one set only.

    Notes
    -----
    A set compared with itself gives difference 0 and SE 0: t and p are then NaN, with the
    reason. Items with one rating enter with a zero term, as in the SE.

    Krippendorff's alpha is a mean over the pairable items (two or more ratings). Its terms
    are those of its analytic SE (irrCAC 1.4, which average to ``alpha' = (p_a' - p_e) / (1 -
    p_e)``) rescaled by ``alpha = (1 - 1/N) alpha' + 1/N`` (N pairable ratings), so that they
    average to alpha, as pairedCAC's ``ttest.alpha`` forms them; on complete designs the two
    agree exactly. Where items have different numbers of ratings, pairedCAC centres the chance
    term of an item on 1 instead of ``p_e``; accord keeps irrCAC's linearisation. The paired
    test of alpha needs the same pairable items in both sets; where they differ the SE is NaN
    with the reason.

    The independent comparison treats the two coefficients as uncorrelated (Gwet 2021,
    section 9.3): it is wrong for sets that share items or raters' judgements (use the paired
    test there). Its t reference on the Welch-Satterthwaite degrees of freedom (Satterthwaite
    1946) is accord's choice, in keeping with the t interval of each coefficient on its own
    ``n - 1`` degrees of freedom; with many items it is the normal reference.

    References
    ----------
    .. [1] Gwet, K. L. (2016). Testing the difference of correlated agreement coefficients
       for statistical significance. Educational and Psychological Measurement 76(4),
       609-637.
    .. [2] Gwet, K. L. (2021). Handbook of Inter-Rater Reliability, 5th ed., vol. 1,
       section 9.3 (uncorrelated coefficients). AgreeStat Analytics.
    .. [3] Satterthwaite, F. E. (1946). An approximate distribution of estimates of variance
       components. Biometrics Bulletin 2(6), 110-114. https://doi.org/10.2307/3002019

    Examples
    --------
    >>> import accord
    >>> before = accord.Ratings.from_wide([[1, 1, 2], [2, 2, 2], [1, 2, 3], [3, 3, 3]])
    >>> after = accord.Ratings.from_wide([[1, 1, 1], [2, 2, 2], [2, 2, 3], [3, 3, 3]])
    >>> res = accord.compare_agreement(before, after)
    >>> round(res.coefficient1, 4), round(res.coefficient2, 4), res.df
    (0.3617, 0.7447, 3)
    >>> res.coefficient2 == accord.fleiss_kappa(after).statistic
    True
    >>> alpha = accord.compare_agreement(before, after, coefficient="krippendorff_alpha")
    >>> alpha.coefficient2 == accord.krippendorff_alpha(after).statistic
    True
    >>> apart = accord.compare_agreement(before, after, paired=False)
    >>> se1, se2 = (accord.fleiss_kappa(r).standard_error for r in (before, after))
    >>> apart.paired, round(apart.standard_error, 12) == round((se1**2 + se2**2) ** 0.5, 12)
    (False, True)
    """
    refuse_read_options("compare_agreement", read_options)
    if coefficient not in COEFFICIENTS:
        raise InvalidInputError(
            f"compare_agreement: unknown coefficient {coefficient!r}; choose one of "
            f"{', '.join(COEFFICIENTS)}"
        )
    if level is not None and coefficient != "krippendorff_alpha":
        raise InvalidInputError(
            f"compare_agreement: level= applies to krippendorff_alpha; for {coefficient} "
            "give weights="
        )
    one = _side(coefficient, ratings1, weights, level, "ratings1")
    two = _side(coefficient, ratings2, weights, level, "ratings2")
    if not paired:
        return _independent(coefficient, one, two, confidence_level)
    order = _align(_rated_items(ratings1), _rated_items(ratings2))
    reason = one.reason or two.reason
    usable = one.terms is not None and two.terms is not None
    if usable and coefficient == "krippendorff_alpha":  # terms over the pairable items
        if set(one.items.tolist()) == set(two.items.tolist()):
            order = _align(one.items, two.items)
        else:
            usable = False
            reason = (
                "the items with two or more ratings differ between the sets "
                f"({one.n_items} and {two.n_items}): the paired test of alpha needs the same "
                "pairable items"
            )
    n = len(order)
    se = math.nan
    if usable and n >= 2 and one.terms is not None and two.terms is not None:
        d = two.terms[order] - one.terms
        se = math.sqrt(float(np.var(d, ddof=1)) / n)
        if se == 0.0:
            reason = "every item's difference of terms is the same (SE 0), so t is undefined"
    return _result(coefficient, one, two, se, n - 1, n, _METHOD, reason, confidence_level)


def _independent(
    coefficient: str, one: _Side, two: _Side, confidence_level: float
) -> AgreementComparison:
    """The difference of two coefficients of independent samples, SEs in quadrature."""
    se = math.sqrt(one.standard_error**2 + two.standard_error**2)
    reason = one.reason or two.reason
    df: float = math.nan
    if math.isfinite(se) and se > 0.0:
        df = se**4 / (
            one.standard_error**4 / max(one.n_items - 1, 1)
            + two.standard_error**4 / max(two.n_items - 1, 1)
        )
    elif math.isfinite(se):
        reason = "both coefficients have SE 0, so t is undefined"
    n = one.n_items + two.n_items
    out = _result(coefficient, one, two, se, df, n, _INDEPENDENT, reason, confidence_level)
    return dataclasses.replace(out, paired=False)


def _result(
    coefficient: str,
    one: _Side,
    two: _Side,
    se: float,
    df: float,
    n: int,
    method: str,
    reason: str | None,
    confidence_level: float,
) -> AgreementComparison:
    diff = two.statistic - one.statistic
    ok = math.isfinite(se) and se > 0.0 and math.isfinite(df) and df > 0
    return AgreementComparison(
        coefficient=coefficient,
        coefficient1=one.statistic,
        coefficient2=two.statistic,
        difference=diff,
        standard_error=se,
        statistic=diff / se if ok else math.nan,
        df=df,
        pvalue=t_pvalue(diff, se, df) if ok else math.nan,
        confidence_interval=t_interval(diff, se, df, confidence_level, (-math.inf, math.inf)),
        confidence_level=confidence_level,
        n_items=n,
        method=method,
        reason=reason,
    )
