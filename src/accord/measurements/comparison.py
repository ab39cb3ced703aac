"""Method comparison: the Bland-Altman analysis (and the CCC) of two methods, or of many
raters pair by pair or against a reference."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Never, overload

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError
from .._results import Result, to_plain
from ..data.ratings import Ratings
from ..data.source import refuse_read_options
from ._input import paired_arrays, pairs_of_ratings
from ._repeated import RepeatedFit
from .concordance import ConcordanceCorrelation, concordance_of_scores
from .limits import (
    BlandAltman,
    LimitsMethod,
    Scale,
    check_limits_options,
    limits_of_pair,
)

__all__ = ["MethodComparison", "RepeatedFit", "bland_altman"]

#: The columns of :meth:`MethodComparison.table` taken from each pair's
#: :meth:`BlandAltman.to_dict`, in order.
_TABLE_KEYS = (
    "first",
    "second",
    "n_pairs",
    "bias",
    "bias_ci_low",
    "bias_ci_high",
    "sd",
    "lower",
    "lower_ci_low",
    "lower_ci_high",
    "upper",
    "upper_ci_low",
    "upper_ci_high",
    "slope",
    "slope_pvalue",
)


@dataclasses.dataclass(frozen=True, slots=True)
class MethodComparison(Result):
    """Bland-Altman analyses and CCCs of raters compared pair by pair, or each against a
    reference.

    Attributes
    ----------
    limits : tuple of BlandAltman
        One analysis per pair, differences ``first - second`` (rater minus reference).
    concordance : tuple of ConcordanceCorrelation
        Lin's CCC of each pair, in the same order.
    reference : str or None
        The reference rater, when each rater was compared with it.
    """

    limits: tuple[BlandAltman, ...]
    concordance: tuple[ConcordanceCorrelation, ...]
    reference: str | None = None

    def __str__(self) -> str:
        against = f"against {self.reference}" if self.reference else "pair by pair"
        n = len(self.limits)
        return f"method comparison of {n} pair{'s' if n != 1 else ''} of raters, {against}"

    def __getitem__(self, pair: tuple[str, str]) -> BlandAltman:
        for result in self.limits:
            if (result.first, result.second) == tuple(pair):
                return result
        raise KeyError(pair)

    def table(self, level: float = 0.95, limits_method: LimitsMethod | None = None) -> pd.DataFrame:
        """One row per pair: n, bias with CI, limits with CIs, proportional-bias slope and
        p-value, and the CCC with its CI."""
        rows = []
        for ba, ccc in zip(self.limits, self.concordance, strict=True):
            analysis = ba.to_dict(level, limits_method)
            row = {key: analysis[key] for key in _TABLE_KEYS}
            cci = ccc.confidence_interval(level)
            row.update(ccc=ccc.statistic, ccc_ci_low=cci.low, ccc_ci_high=cci.high)
            rows.append(row)
        return pd.DataFrame(rows)

    def to_frame(self) -> pd.DataFrame:
        """:meth:`table` at the 95% level."""
        return self.table()

    def to_dict(
        self, level: float = 0.95, limits_method: LimitsMethod | None = None
    ) -> dict[str, Any]:
        """Plain dict: the reference, and each pair's analysis and CCC."""
        return {
            "reference": self.reference,
            "confidence_level": level,
            "pairs": [
                {
                    "bland_altman": ba.to_dict(level, limits_method),
                    "concordance": to_plain(ccc.to_dict(level)),
                }
                for ba, ccc in zip(self.limits, self.concordance, strict=True)
            ],
        }


@overload
def bland_altman(
    x: Ratings,
    y: None = None,
    *,
    reference: Any | None = None,
    subject: Mapping[Any, Any] | npt.ArrayLike | None = None,
    multiplier: float = 1.96,
    scale: Scale = "difference",
    fit: RepeatedFit = "anova",
    **read_options: Never,
) -> MethodComparison: ...


@overload
def bland_altman(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    *,
    reference: None = None,
    subject: npt.ArrayLike | None = None,
    multiplier: float = 1.96,
    scale: Scale = "difference",
    fit: RepeatedFit = "anova",
    **read_options: Never,
) -> BlandAltman: ...


def bland_altman(
    x: Ratings | npt.ArrayLike,
    y: npt.ArrayLike | None = None,
    *,
    reference: Any | None = None,
    subject: Mapping[Any, Any] | npt.ArrayLike | None = None,
    multiplier: float = 1.96,
    scale: Scale = "difference",
    fit: RepeatedFit = "anova",
    **read_options: Never,
) -> BlandAltman | MethodComparison:
    r"""Bland-Altman limits of agreement of two methods measuring the same items.

    With :math:`d_i = x_i - y_i`, the bias is :math:`\bar d` and the limits of agreement
    are :math:`\bar d \mp z\, s_d` (``z = multiplier``, 1.96 for 95% limits): the range in
    which most differences between the two methods fall.

    Parameters
    ----------
    x, y : array_like of shape (n,)
        The two methods' measurements, paired by position. Or ``x`` a
        :class:`~accord.Ratings` of numeric scores (and no ``y``): every pair of raters, or
        each rater against ``reference``.
    reference : rater id, optional
        With ratings: compare each other rater with this one (differences rater minus
        reference).
    subject : array_like of shape (n,), or mapping, optional
        The subject of each pair (with ratings: a mapping from item id to subject, or one
        id per item in the order of ``ratings.items``). When a subject has more than one
        pair, the SD of a difference comes from the one-way random-effects model of the
        differences by subject (Bland & Altman 2007, the true value varying between a
        subject's pairs), fitted as ``fit`` says.
    multiplier : float, default 1.96
        SDs from the bias to each limit.
    scale : {"difference", "ratio", "percent"}, default "difference"
        ``"ratio"``: analyse log ratios and give the bias and limits as ratios ``x / y``
        (Bland & Altman 1999, when the differences grow with the magnitude; positive
        measurements only); ``"percent"``: differences as a percentage of the pair's mean.
    fit : {"anova", "reml"}, default "anova"
        With several pairs per subject, how the differences are fitted by the one-way
        random-effects model. ``"anova"`` (Bland & Altman 2007): the bias is the mean of all
        the differences, every pair weighing alike, and the variance components are the
        moments of the one-way ANOVA. ``"reml"``: the variance components by REML and the
        bias their generalised least-squares mean, which weighs every subject by ``1 /
        (s_b**2 + s_w**2 / m_i)`` (``m_i`` its pairs), as lme4 ``lmer(d ~ 1 + (1 |
        subject))``, MethComp ``BA.est(linked = TRUE)`` and SimplyAgree
        ``agreement_limit(data_type = "nest")``. The two agree when every subject has as
        many pairs; ``method`` says which was used.

    Returns
    -------
    BlandAltman or MethodComparison
        For two arrays, a :class:`BlandAltman`: ``bias``, ``sd``, ``lower``, ``upper``,
        ``confidence_interval(level)`` (of the bias), ``limits_interval(level, method)``,
        the proportional-bias ``slope`` with ``slope_pvalue``. For ratings, a
        :class:`MethodComparison` with one :class:`BlandAltman` and one Lin's CCC per pair.

    Raises
    ------
    InvalidInputError
        Non-numeric or infinite measurements, arrays of different lengths, fewer than 2
        pairs, an unknown ``reference``, a bad ``multiplier`` or ``scale``.

    Notes
    -----
    The bias interval is the t interval on ``n - 1`` degrees of freedom. The limits'
    intervals (:meth:`BlandAltman.limits_interval`) are exact by default: Carkeet's (2015)
    intervals from two-sided normal tolerance factors, for the two limits taken as a pair;
    ``"exact-individual"`` takes each limit on its own (one-sided factors, non-central t),
    ``"approximate"`` is Bland & Altman's (1999) normal approximation and
    ``"approximate-1986"`` their original ``sqrt(3 s^2 / n)``, which are too narrow in small
    samples. With several pairs per subject (``subject=``), the bias interval is the t
    interval on ``n_subjects - 1`` degrees of freedom with Bland & Altman's (2007) variance
    of the mean difference, and the limits' interval is Zou's (2013) MOVER
    (``"mover"``, the default there; the other methods assume one pair per subject and give
    NaN). Proportional bias is the least-squares regression of the differences on the
    means (Bland & Altman 1999, section 3.2). Pairs with a missing measurement are left
    out with a :class:`~accord.DroppedDataWarning`.

    With repeated pairs per subject the limits have no exact interval (NaN), and the bias's
    SE is that of the overall mean difference under the one-way random-effects model,
    with ``n_subjects - 1`` degrees of freedom.

    References
    ----------
    .. [1] Bland, J. M., & Altman, D. G. (1986). Statistical methods for assessing agreement
       between two methods of clinical measurement. Lancet, 327(8476), 307-310.
       https://doi.org/10.1016/S0140-6736(86)90837-8
    .. [2] Bland, J. M., & Altman, D. G. (1999). Measuring agreement in method comparison
       studies. Stat. Methods Med. Res., 8(2), 135-160.
       https://doi.org/10.1177/096228029900800204
    .. [3] Bland, J. M., & Altman, D. G. (2007). Agreement between methods of measurement
       with multiple observations per individual. J. Biopharm. Stat., 17(4), 571-582.
       https://doi.org/10.1080/10543400701329422
    .. [4] Carkeet, A. (2015). Exact parametric confidence intervals for Bland-Altman limits
       of agreement. Optom. Vis. Sci., 92(3), e71-e80.
       https://doi.org/10.1097/OPX.0000000000000513

    Examples
    --------
    Bland & Altman (1986), Table 1: PEFR (l/min) of 17 people, first reading with the
    Wright and with the mini-Wright meter; they report a bias of -2.1 l/min, SD 38.8, and
    limits (at 2 SD) of -79.7 and 75.4, from rounded intermediate values:

    >>> import accord
    >>> wright = [494, 395, 516, 434, 476, 557, 413, 442, 650, 433, 417, 656, 267, 478,
    ...           178, 423, 427]
    >>> mini = [512, 430, 520, 428, 500, 600, 364, 380, 658, 445, 432, 626, 260, 477,
    ...         259, 350, 451]
    >>> ba = accord.bland_altman(wright, mini, multiplier=2)
    >>> round(ba.bias, 2), round(ba.sd, 2), round(ba.lower, 2), round(ba.upper, 2)
    (-2.12, 38.77, -79.65, 75.41)

    The exact 95% intervals of the two limits (Carkeet 2015), at 1.96 SD:

    >>> ba = accord.bland_altman(wright, mini)
    >>> [[round(v, 1) for v in ci] for ci in ba.limits_interval()]
    [[-121.6, -59.9], [55.6, 117.4]]
    """
    refuse_read_options("bland_altman", read_options)
    check_limits_options(multiplier, scale, "bland_altman", fit)
    if isinstance(x, Ratings):
        if y is not None:
            raise InvalidInputError("bland_altman takes ratings alone, or two arrays x and y")
        pairs = pairs_of_ratings(x, reference, subject, "bland_altman")
        limits = tuple(
            limits_of_pair(
                p, multiplier=multiplier, scale=scale, owner="bland_altman", strict=False, fit=fit
            )
            for p in pairs
        )
        ccc = tuple(concordance_of_scores(np.column_stack([p.x, p.y]), (p.first, p.second))
                    for p in pairs)  # fmt: skip
        return MethodComparison(limits, ccc, None if reference is None else str(reference))
    if y is None:
        raise InvalidInputError("bland_altman needs two arrays x and y, or ratings")
    if reference is not None:
        raise InvalidInputError("bland_altman: reference applies to ratings, not to arrays")
    if isinstance(subject, Mapping):
        raise InvalidInputError("bland_altman: with arrays, subject is one id per pair")
    pair = paired_arrays(x, y, subject, "bland_altman")
    return limits_of_pair(pair, multiplier=multiplier, scale=scale, owner="bland_altman", fit=fit)
