"""Comparing two correlated agreement coefficients measured on the same items.

Gwet (2016): both coefficients are means of their item-level linearised terms (the terms of
the analytic SE, :mod:`accord.agreement.many_raters`), so their difference is the mean of the
item differences ``d_i = kappa2_i* - kappa1_i*``, and a paired t test on ``d_i`` tests it.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from .._errors import InvalidInputError
from .._results import ConfidenceInterval, Result, t_interval, t_pvalue, to_plain
from .._types import FloatArray
from ..data.ratings import Ratings
from .many_raters import (
    _BRENNAN_PREDIGER,
    _CONGER_KAPPA,
    _FLEISS_KAPPA,
    _GWET_AC1,
    _GWET_AC2,
    _PERCENT_AGREEMENT,
    WeightsLike,
    _family,
    _Member,
    _prepare,
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
_METHOD = (
    "Gwet (2016) paired t test of correlated agreement coefficients: item differences of the "
    "linearised terms, SE sqrt(var(d) / n), t on n - 1 df"
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
        ``sqrt(var(d, ddof=1) / n)``, ``d`` the item differences of the linearised terms.
    statistic : float
        ``difference / standard_error`` (t); NaN when the SE is 0 or undefined (``reason``).
    df : int
        ``n_items - 1``.
    pvalue : float
        Two-sided p-value of ``difference = 0`` from Student's t on ``df``.
    confidence_interval : ConfidenceInterval
        t interval of the difference at ``confidence_level``.
    confidence_level : float
        Level of the interval.
    n_items : int
        Items rated in both sets.
    method : str
        The test used.
    reason : str or None
        Why a field is NaN, when one is.
    """

    coefficient: str
    coefficient1: float
    coefficient2: float
    difference: float
    standard_error: float
    statistic: float
    df: int
    pvalue: float
    confidence_interval: ConfidenceInterval
    confidence_level: float
    n_items: int
    method: str
    reason: str | None = None

    def _headline(self) -> str:
        return (
            f"{self.coefficient} {self.coefficient1:.4g} -> {self.coefficient2:.4g}: "
            f"difference {self.difference:.4g} (t = {self.statistic:.4g}, p = {self.pvalue:.4g})"
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dict of the fields (the interval as ``ci_low`` / ``ci_high``)."""
        out = {f.name: to_plain(getattr(self, f.name)) for f in dataclasses.fields(self)}
        ci = out.pop("confidence_interval")
        out.update(ci_low=ci[0], ci_high=ci[1])
        return out


def _rated_items(ratings: Ratings) -> Any:
    """The ids of the rated items, in the order of the item counts (item code order)."""
    return ratings.items[np.unique(ratings.item_codes)]


def _terms(
    member: _Member, ratings: Ratings, weights: Any, which: str
) -> tuple[float, FloatArray | None, str | None, Any]:
    """The coefficient, its item terms (None when undefined), why not, and the item ids."""
    if not isinstance(ratings, Ratings):
        raise InvalidInputError(
            f"compare_agreement: {which} must be Ratings (accord.Ratings.from_wide / "
            f"from_long / read_ratings), got {type(ratings).__name__}"
        )
    d = _prepare(ratings, None, member.name)
    fields = _family(
        member, d, weights, population_size=None, ci="analytic", n_boot=2000, rng=None, terms=True
    )
    return (
        fields["statistic"],
        fields.get("item_terms"),
        fields.get("reason"),
        _rated_items(ratings),
    )


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
    confidence_level: float = 0.95,
) -> AgreementComparison:
    """Test whether an agreement coefficient differs between two rating sets of the same items.

    Gwet's (2016) test for correlated coefficients: each coefficient is the mean of its
    item-level linearised terms ``kappa_i* = kappa_i - 2 (1 - kappa) (pe_i - pe) / (1 - pe)``
    (the terms of its analytic SE); the item differences ``d_i`` of the two sets' terms give
    ``SE = sqrt(var(d) / n)`` and a t test on ``n - 1`` degrees of freedom, as the R package
    pairedCAC computes it.

    Parameters
    ----------
    ratings1, ratings2 : Ratings
        Two rating sets of the same items (matched by item id; the raters may differ).
    coefficient : str, default "fleiss_kappa"
        One of ``"percent_agreement"``, ``"fleiss_kappa"``, ``"conger_kappa"``,
        ``"gwet_ac1"``, ``"gwet_ac2"``, ``"brennan_prediger"``.
    weights : str, array_like or None
        Agreement weights, as in :func:`accord.fleiss_kappa`; None: unweighted.
    confidence_level : float, default 0.95
        Level of the t interval of the difference.

    Returns
    -------
    AgreementComparison
        Both coefficients, ``difference`` (second minus first), its SE, t, df, p-value and
        interval.

    Raises
    ------
    InvalidInputError
        An unknown coefficient, input that is not Ratings, or items rated in one set only.

    Notes
    -----
    A set compared with itself gives difference 0 and SE 0: t and p are then NaN, with the
    reason. Items with one rating enter with a zero term, as in the SE.

    Krippendorff's alpha is not offered: its analytic SE (irrCAC 1.4) takes the terms of
    ``alpha' = (p_a' - p_e) / (1 - p_e)``, which average to alpha' rather than alpha
    (``alpha = (1 - 1/N) alpha' + 1/N``, N pairable ratings), so they are not the terms of
    alpha in the form compared here.

    References
    ----------
    .. [1] Gwet, K. L. (2016). Testing the difference of correlated agreement coefficients
       for statistical significance. Educational and Psychological Measurement 76(4),
       609-637.

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
    """
    member = _MEMBERS.get(coefficient)
    if member is None:
        raise InvalidInputError(
            f"compare_agreement: unknown coefficient {coefficient!r}; choose one of "
            f"{', '.join(_MEMBERS)}"
        )
    k1, t1, why1, items1 = _terms(member, ratings1, weights, "ratings1")
    k2, t2, why2, items2 = _terms(member, ratings2, weights, "ratings2")
    order = _align(items1, items2)
    n = len(items1)
    diff = k2 - k1
    reason = why1 or why2
    if t1 is None or t2 is None or n < 2:
        se = math.nan
    else:
        d = t2[order] - t1
        se = math.sqrt(float(np.var(d, ddof=1)) / n)
        if se == 0.0:
            reason = "every item's difference of terms is the same (SE 0), so t is undefined"
    ok = math.isfinite(se) and se > 0.0
    return AgreementComparison(
        coefficient=coefficient,
        coefficient1=k1,
        coefficient2=k2,
        difference=diff,
        standard_error=se,
        statistic=diff / se if ok else math.nan,
        df=n - 1,
        pvalue=t_pvalue(diff, se, n - 1) if ok else math.nan,
        confidence_interval=t_interval(diff, se, n - 1, confidence_level, (-math.inf, math.inf)),
        confidence_level=confidence_level,
        n_items=n,
        method=_METHOD,
        reason=reason,
    )
