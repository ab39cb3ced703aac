"""Bland-Altman limits of agreement: bias, limits, their confidence intervals and the
proportional bias of two methods measuring the same items."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal, NamedTuple, get_args

import numpy as np
import numpy.typing as npt

from .._errors import InvalidInputError, bad_parameter, warn_degenerate
from .._results import (
    ConfidenceInterval,
    Result,
    check_level,
    plain_fields,
    t_interval,
    t_pvalue,
    t_quantile,
)
from .._types import FloatArray
from .._validate import check_choice
from ._input import Pair
from ._repeated import REPEATED_FITS, subject_fit
from ._tolerance import one_sided_factor, two_sided_factor

__all__ = [
    "LIMITS_METHODS",
    "SCALES",
    "BlandAltman",
    "LimitsMethod",
    "Scale",
    "check_limits_options",
    "limits_method_of",
    "limits_of_pair",
]

Scale = Literal["difference", "ratio", "percent"]
SCALES: tuple[str, ...] = get_args(Scale)
LimitsMethod = Literal["exact", "exact-individual", "approximate", "approximate-1986", "mover"]
LIMITS_METHODS: tuple[str, ...] = get_args(LimitsMethod)

_SCALE_WORDS = {
    "difference": "differences first - second",
    "ratio": "ratios first / second, analysed as log ratios and shown back-transformed",
    "percent": "percentage differences 100 (first - second) / mean",
}


@dataclasses.dataclass(frozen=True, slots=True)
class BlandAltman(Result):
    """Bland-Altman analysis of two methods: bias, limits of agreement and their intervals.

    Attributes
    ----------
    first, second : str
        The two methods (raters); differences are ``first - second``.
    scale : {"difference", "ratio", "percent"}
        What is analysed: differences, ratios (log ratios, back-transformed: ``bias`` is the
        geometric mean ratio, the limits are ratios) or percentage differences.
    multiplier : float
        The limits are ``bias -+ multiplier * sd`` (on the log scale for ratios).
    n_pairs, n_subjects : int
        Pairs used, and distinct subjects (``n_pairs`` when each pair is its own subject).
    bias : float
        Mean difference (geometric mean ratio for ``scale="ratio"``). With repeated pairs
        per subject, by default (``fit="anova"``) the mean of all differences, every pair
        weighing alike (Bland & Altman 2007); with ``fit="reml"`` the generalised
        least-squares mean of the REML fit, which weighs subjects (``method`` says which).
    sd : float
        Standard deviation of a difference (of a log ratio); with repeated pairs per subject,
        ``sqrt(between_sd**2 + within_sd**2)`` (Bland & Altman 2007).
    lower, upper : float
        The limits of agreement.
    bias_se, df : float
        Standard error of the mean difference (log scale for ratios) and its degrees of
        freedom (``n_subjects - 1``).
    slope, intercept, slope_se : float
        Proportional bias: least-squares regression of the difference on the mean of the
        two methods (of subject means with repeated pairs), with the slope's SE; its test is
        :attr:`slope_pvalue`, its interval :meth:`slope_interval`.
    within_sd, between_sd : float
        With repeated pairs: the SD of differences within a subject and between the
        subjects' true mean differences (the one-way random-effects components: ANOVA
        moments by default, REML with ``fit="reml"``); NaN otherwise.
    repeated : bool
        Whether some subject has more than one pair (the Bland & Altman 2007 method; the
        limits' interval is then Zou's 2013 MOVER, see :meth:`limits_interval`).
    differences, means : ndarray
        Per pair: the difference (ratio, percentage) and the mean of the two methods, for
        the plot.
    first_values, second_values : ndarray
        Per pair: the two methods' measurements.
    method : str
        What was computed, in words.
    reason : str or None
        Why some value is NaN, when one is.
    """

    first: str
    second: str
    scale: str
    multiplier: float
    n_pairs: int
    n_subjects: int
    bias: float
    sd: float
    lower: float
    upper: float
    bias_se: float
    df: float
    slope: float
    intercept: float
    slope_se: float
    within_sd: float
    between_sd: float
    repeated: bool
    method: str
    reason: str | None = None
    differences: FloatArray = dataclasses.field(
        default_factory=lambda: np.zeros(0), repr=False, compare=False
    )
    means: FloatArray = dataclasses.field(
        default_factory=lambda: np.zeros(0), repr=False, compare=False
    )
    first_values: FloatArray = dataclasses.field(
        default_factory=lambda: np.zeros(0), repr=False, compare=False
    )
    second_values: FloatArray = dataclasses.field(
        default_factory=lambda: np.zeros(0), repr=False, compare=False
    )
    #: Zou's (2013) subject-level pieces for the MOVER interval of the limits: the variance
    #: of the subjects' mean differences and the harmonic mean of the pairs per subject.
    _subject_level: tuple[float, float] = dataclasses.field(
        default=(math.nan, math.nan), repr=False, compare=False
    )

    def __str__(self) -> str:
        ci = self.confidence_interval()
        what = "ratio" if self.scale == "ratio" else "bias"
        return (
            f"{self.first} vs {self.second}: {what} {self.bias:.4g} "
            f"(95% CI {ci.low:.4g} to {ci.high:.4g}), limits of agreement "
            f"{self.lower:.4g} to {self.upper:.4g}"
        )

    def _back(self, value: float) -> float:
        return math.exp(value) if self.scale == "ratio" else value

    def _log_bias(self) -> float:
        return math.log(self.bias) if self.scale == "ratio" and self.bias > 0 else self.bias

    @property
    def pvalue(self) -> float:
        """Two-sided p-value of the t test of no bias (mean difference 0, ratio 1)."""
        return t_pvalue(self._log_bias(), self.bias_se, self.df)

    @property
    def slope_pvalue(self) -> float:
        """Two-sided p-value of the t test of no proportional bias (slope 0)."""
        return t_pvalue(self.slope, self.slope_se, self._slope_df)

    @property
    def _slope_df(self) -> float:
        return float((self.n_subjects if self.repeated else self.n_pairs) - 2)

    def confidence_interval(self, level: float = 0.95) -> ConfidenceInterval:
        """t interval of the bias (``df`` degrees of freedom; back-transformed for ratios)."""
        low, high = t_interval(self._log_bias(), self.bias_se, self.df, level, _NO_BOUNDS)
        return ConfidenceInterval(self._back(low), self._back(high))

    def prediction_interval(self, level: float = 0.95) -> ConfidenceInterval:
        """Where the difference of a new pair falls with probability ``level``: ``bias -+
        t(n - 1) sd sqrt(1 + 1/n)`` (back-transformed for ratios). One pair per subject
        only (NaN, with a :class:`~accord.DegenerateDataWarning`, with repeated pairs).

        >>> import accord
        >>> ba = accord.bland_altman([10.1, 10.9, 12.0, 12.4, 9.0], [10.0, 10.2, 11.1, 12.9, 9.4])
        >>> [round(v, 3) for v in ba.prediction_interval()]
        [-1.759, 2.079]
        """
        check_level(level)
        if self.repeated or self.n_pairs < 2 or not math.isfinite(self.sd):
            return self._no_interval("prediction_interval")
        n = self.n_pairs
        half = t_quantile(0.5 + level / 2.0, n - 1) * self.sd * math.sqrt(1.0 + 1.0 / n)
        mean = self._log_bias()
        return ConfidenceInterval(self._back(mean - half), self._back(mean + half))

    def tolerance_interval(self, content: float = 0.95, level: float = 0.95) -> ConfidenceInterval:
        """The interval that holds a share ``content`` of all differences with confidence
        ``level``: ``bias -+ K sd``, ``K`` the exact two-sided normal tolerance factor
        (Odeh 1978; the factor of Carkeet's exact limits' intervals). Wider than the limits
        of agreement, which estimate that range without a confidence statement. One pair
        per subject only (NaN with repeated pairs).

        >>> import accord
        >>> ba = accord.bland_altman([10.1, 10.9, 12.0, 12.4, 9.0], [10.0, 10.2, 11.1, 12.9, 9.4])
        >>> [round(v, 3) for v in ba.tolerance_interval()]
        [-3.043, 3.363]
        """
        from scipy import special

        check_level(level)
        check_level(content)
        if self.repeated or self.n_pairs < 2 or not math.isfinite(self.sd):
            return self._no_interval("tolerance_interval")
        z = float(special.ndtri(0.5 + content / 2.0))
        half = two_sided_factor(self.n_pairs, z, level) * self.sd
        mean = self._log_bias()
        return ConfidenceInterval(self._back(mean - half), self._back(mean + half))

    def _no_interval(self, owner: str) -> ConfidenceInterval:
        if self.repeated:
            warn_degenerate(
                f"BlandAltman.{owner} assumes one pair per subject and some subject has "
                "several: the interval is NaN",
                stacklevel=4,
            )
        return ConfidenceInterval(math.nan, math.nan)

    def slope_interval(self, level: float = 0.95) -> ConfidenceInterval:
        """t interval of the proportional-bias slope (``n - 2`` degrees of freedom)."""
        return t_interval(self.slope, self.slope_se, self._slope_df, level, _NO_BOUNDS)

    def limits_interval(
        self, level: float = 0.95, method: LimitsMethod | None = None
    ) -> tuple[ConfidenceInterval, ConfidenceInterval]:
        """Confidence intervals of the lower and the upper limit of agreement.

        Parameters
        ----------
        level : float, default 0.95
            Confidence level.
        method : {"exact", "exact-individual", "approximate", "approximate-1986", "mover"}, \
optional
            ``"exact"``: Carkeet's (2015) exact intervals for the two limits taken as a
            pair, from two-sided normal tolerance factors; ``"exact-individual"``: each
            limit on its own, from one-sided tolerance factors (non-central t);
            ``"approximate"``: Bland & Altman (1999), ``limit -+ t * sd * sqrt(1/n +
            z**2 / (2 (n - 1)))``; ``"approximate-1986"``: Bland & Altman (1986),
            ``limit -+ t * sqrt(3 sd**2 / n)``; ``"mover"``: Zou's (2013) method of
            variance estimates recovery, which also holds with repeated pairs per subject.
            By default ``"exact"``, or ``"mover"`` when some subject has several pairs.

        Returns
        -------
        (ConfidenceInterval, ConfidenceInterval)
            Of the lower limit, then of the upper limit (ratios for ``scale="ratio"``).
            NaN, with a :class:`~accord.DegenerateDataWarning` saying why, when ``method``
            assumes one pair per subject and some subject has several: only ``"mover"``
            holds there.

        Notes
        -----
        The MOVER interval of ``bias + z sd`` (Zou 2013) recovers the variance of the limit
        from the intervals of its parts. With ``n`` subjects, ``N`` pairs, ``m_h`` the
        harmonic mean of the pairs per subject, ``s_b**2`` the variance of the subjects'
        mean differences (``n - 1`` df) and ``s_w**2`` the within-subject variance
        (``N - n`` df), the SD of a difference is ``s**2 = s_b**2 + (1 - 1/m_h) s_w**2``;
        each of its two terms has a chi-square interval, and ``s**2`` has the limits
        ``L`` and ``U`` that they recover. The upper limit's interval is then
        ``limit - sqrt(z_a**2 s_b**2 / n + z**2 (s - sqrt(L))**2)`` to
        ``limit + sqrt(z_a**2 s_b**2 / n + z**2 (sqrt(U) - s)**2)``, with ``z_a`` the
        normal quantile of the level; the lower limit's mirrors it. With the same number of
        pairs per subject, ``s`` and the bias are those of Bland & Altman (2007) and the
        interval is Zou's; with unequal numbers, Zou's margins are set around the Bland &
        Altman (2007) limits. With one pair per subject it is the MOVER interval of Donner
        & Zou (2012).

        Examples
        --------
        >>> import accord
        >>> ba = accord.bland_altman([10.1, 10.9, 12.0, 12.4, 9.0, 9.8],
        ...                          [10.0, 10.2, 11.1, 12.9, 9.4, 9.1],
        ...                          subject=[1, 1, 2, 2, 3, 3])
        >>> round(ba.upper, 2)
        1.75
        >>> lower, upper = ba.limits_interval()
        >>> [round(v, 2) for v in upper]
        [1.29, 4.66]
        >>> ba.to_dict()["limits_ci_method"]
        'mover'
        """
        check_level(level)
        method = limits_method_of(self, method)
        nan = ConfidenceInterval(math.nan, math.nan)
        n, s, z = self.n_pairs, self.sd, self.multiplier
        if n < 2 or not math.isfinite(s):
            return nan, nan
        if self.repeated and method != "mover":
            warn_degenerate(
                f"BlandAltman.limits_interval: method={method!r} assumes one pair per "
                "subject and some subject has several; only method='mover' (Zou 2013) "
                "holds with repeated pairs: the limits' interval is NaN",
                stacklevel=3,
            )
            return nan, nan
        mean = self._log_bias()
        alpha = (1.0 - level) / 2.0
        if method == "mover":
            lower, upper = self._mover(mean, alpha)
        elif method in ("exact", "exact-individual"):
            factor = two_sided_factor if method == "exact" else one_sided_factor
            inner, outer = factor(n, z, alpha), factor(n, z, 1.0 - alpha)
            lower = (mean - outer * s, mean - inner * s)
            upper = (mean + inner * s, mean + outer * s)
        else:
            if method == "approximate":
                se = s * math.sqrt(1.0 / n + z * z / (2.0 * (n - 1)))
            else:
                se = math.sqrt(3.0 * s * s / n)
            half = t_quantile(1.0 - alpha, n - 1) * se
            lo, up = mean - z * s, mean + z * s
            lower, upper = (lo - half, lo + half), (up - half, up + half)
        return (
            ConfidenceInterval(self._back(lower[0]), self._back(lower[1])),
            ConfidenceInterval(self._back(upper[0]), self._back(upper[1])),
        )

    def _mover(self, mean: float, alpha: float) -> tuple[tuple[float, float], tuple[float, float]]:
        """Zou's (2013) MOVER intervals of the lower and the upper limit (analysed scale)."""
        z, n_sub, n = self.multiplier, self.n_subjects, self.n_pairs
        if self.repeated:
            means_var, pairs = self._subject_level
            within = self.within_sd**2
        else:  # each pair its own subject: no within-subject term
            means_var, pairs, within = self.sd**2, 1.0, 0.0
        # the two variance components of s**2, each with its degrees of freedom
        parts = ((means_var, n_sub - 1.0), ((1.0 - 1.0 / pairs) * within, float(n - n_sub)))
        total = sum(part for part, _ in parts)
        low_var = total - math.hypot(*(p * (1 - df / _chi2(df, 1 - alpha)) for p, df in parts))
        high_var = total + math.hypot(*(p * (df / _chi2(df, alpha) - 1) for p, df in parts))
        s = math.sqrt(total)
        bias_term = t_quantile(1.0 - alpha, math.inf) ** 2 * means_var / n_sub
        inward = math.sqrt(bias_term + z * z * (s - math.sqrt(low_var)) ** 2)
        outward = math.sqrt(bias_term + z * z * (math.sqrt(high_var) - s) ** 2)
        lo, up = mean - z * self.sd, mean + z * self.sd
        return (lo - outward, lo + inward), (up - inward, up + outward)

    def to_dict(
        self, level: float = 0.95, limits_method: LimitsMethod | None = None
    ) -> dict[str, Any]:
        """Plain dict of the fields (not the per-pair arrays), the intervals and p-values;
        ``limits_ci_method`` is the limits' interval used (by default ``"exact"``, or
        ``"mover"`` with repeated pairs per subject; see :meth:`limits_interval`)."""
        out = plain_fields(self, _NOT_IN_DICT)
        limits_method = limits_method_of(self, limits_method)
        ci = self.confidence_interval(level)
        low, up = self.limits_interval(level, limits_method)
        slope = self.slope_interval(level)
        out.update(
            confidence_level=level,
            pvalue=self.pvalue,
            bias_ci_low=ci.low,
            bias_ci_high=ci.high,
            limits_ci_method=limits_method,
            lower_ci_low=low.low,
            lower_ci_high=low.high,
            upper_ci_low=up.low,
            upper_ci_high=up.high,
            slope_pvalue=self.slope_pvalue,
            slope_ci_low=slope.low,
            slope_ci_high=slope.high,
        )
        return out


_NO_BOUNDS = (-math.inf, math.inf)
_NOT_IN_DICT = ("differences", "means", "first_values", "second_values", "_subject_level")


def _chi2(df: float, p: float) -> float:
    """The ``p`` quantile of the chi-square distribution with ``df`` degrees of freedom (1
    for ``df = 0``: a variance component of weight 0)."""
    from scipy import special

    return float(special.chdtri(df, 1.0 - p)) if df > 0 else 1.0


def _transformed(pair: Pair, scale: str, owner: str) -> tuple[FloatArray, FloatArray]:
    """The analysed differences and the means of each pair on ``scale``."""
    x, y = pair.x, pair.y
    if scale == "ratio":
        for name, arr in ((pair.first, x), (pair.second, y)):
            bad = np.flatnonzero(arr <= 0)
            if bad.size:
                raise InvalidInputError(
                    f"{owner}: scale='ratio' needs positive measurements; {name} has "
                    f"{arr[bad[0]]:g} (pair {int(bad[0]) + 1})"
                )
        return np.log(x) - np.log(y), (x + y) / 2.0
    means = (x + y) / 2.0
    if scale == "percent":
        bad = np.flatnonzero(means == 0)
        if bad.size:
            raise InvalidInputError(
                f"{owner}: scale='percent' divides by the mean of a pair; pair "
                f"{int(bad[0]) + 1} has mean 0"
            )
        return 100.0 * (x - y) / means, means
    return x - y, means


def _regression(d: FloatArray, m: FloatArray) -> tuple[float, float, float]:
    """Slope, intercept and slope SE of the least-squares line of ``d`` on ``m``."""
    n = d.size
    if n < 3:
        return math.nan, math.nan, math.nan
    mc = m - m.mean()
    sxx = float(mc @ mc)
    if sxx == 0.0:
        return math.nan, math.nan, math.nan
    slope = float(mc @ (d - d.mean())) / sxx
    intercept = float(d.mean() - slope * m.mean())
    resid = d - intercept - slope * m
    return slope, intercept, math.sqrt(float(resid @ resid) / (n - 2) / sxx)


class _Estimates(NamedTuple):
    """What the analysis of the differences gives, on the analysed scale."""

    n_subjects: int
    bias: float
    sd: float
    bias_se: float
    df: float
    slope: float
    intercept: float
    slope_se: float
    within_sd: float
    between_sd: float
    subject_level: tuple[float, float]
    how: str
    reason: str | None


def _single(d: FloatArray, m: FloatArray) -> _Estimates:
    """One pair per subject (Bland & Altman 1986)."""
    n = int(d.size)
    sd = float(np.std(d, ddof=1))
    nan = math.nan
    return _Estimates(
        n, float(d.mean()), sd, sd / math.sqrt(n), float(n - 1), *_regression(d, m), nan, nan,
        (nan, nan), "one pair per subject (Bland & Altman 1986)", None,
    )  # fmt: skip


#: How each fit of repeated pairs is described in ``BlandAltman.method``.
_FIT_WORDS = {
    "anova": "bias the mean of all differences (every pair weighs alike), SD of a difference "
    "from the moments of the one-way ANOVA of differences by subject (fit='anova', the "
    "default)",
    "reml": "one-way random-effects model of the differences by subject fitted by REML "
    "(fit='reml'): bias its generalised least-squares mean (subjects weighted by "
    "1 / (s_b^2 + s_w^2 / m_i)), SD of a difference from the REML variance components",
}


def _repeated(
    d: FloatArray, m: FloatArray, subject: npt.NDArray[Any] | None, fit: str
) -> _Estimates:
    """Several pairs per subject (Bland & Altman 2007, true value varies): the fit of the
    differences by subject (:func:`subject_fit`), the regression of the subjects' mean
    differences on their means, and Zou's (2013) subject-level pieces."""
    assert subject is not None
    est = subject_fit(d, subject, fit)
    n_sub = int(est.counts.size)
    several = n_sub > 1
    sub_m = np.bincount(est.codes, weights=m) / est.counts
    nan = math.nan
    return _Estimates(
        n_sub,
        est.bias,
        math.sqrt(est.within + est.between) if several else nan,
        math.sqrt(est.bias_variance) if several else nan,
        float(n_sub - 1),
        *_regression(est.means, sub_m),
        math.sqrt(est.within),
        math.sqrt(est.between) if several else nan,
        (
            float(np.var(est.means, ddof=1)) if several else nan,
            n_sub / float(np.sum(1.0 / est.counts)),
        ),
        "repeated pairs per subject (Bland & Altman 2007, true value varies): " + _FIT_WORDS[fit],
        None if several else "one subject only: the between-subject variance is undefined",
    )


def _undefined(pair: Pair, multiplier: float, scale: str, reason: str) -> BlandAltman:
    """The analysis of a pair with too few measurements: every value NaN, with ``reason``."""
    warn_degenerate(reason, stacklevel=5)
    nan = math.nan
    n = int(pair.x.size)
    return BlandAltman(
        pair.first, pair.second, scale, float(multiplier), n, n, nan, nan, nan, nan, nan, nan,
        nan, nan, nan, nan, nan, False, f"Bland-Altman limits of agreement on "
        f"{_SCALE_WORDS[scale]}: undefined", reason, first_values=pair.x, second_values=pair.y,
    )  # fmt: skip


def limits_of_pair(
    pair: Pair,
    *,
    multiplier: float,
    scale: str,
    owner: str,
    strict: bool = True,
    fit: str = "anova",
) -> BlandAltman:
    """The Bland-Altman analysis of one pair of methods (see :func:`accord.bland_altman`).

    Fewer than 2 pairs raise, or with ``strict=False`` (raters of a panel compared pair by
    pair) give a result whose values are NaN, with the reason. ``fit`` is how repeated
    pairs per subject are fitted (``"anova"`` or ``"reml"``, see :func:`subject_fit`).
    """
    d, m = _transformed(pair, scale, owner)
    n = int(d.size)
    shown_d = np.exp(d) if scale == "ratio" else d
    repeated = pair.subject is not None and np.unique(pair.subject.astype(str)).size < n
    if n < 2:
        message = (
            f"{owner} needs at least 2 pairs measured by both {pair.first} and {pair.second}; "
            f"got {n}"
        )
        if strict:
            raise InvalidInputError(message)
        return _undefined(pair, multiplier, scale, message)
    est = _repeated(d, m, pair.subject, fit) if repeated else _single(d, m)
    reason = est.reason
    if est.sd == 0.0:
        reason = "every difference is the same: the SD of the differences is 0"
    if reason is not None:
        warn_degenerate(reason, stacklevel=4)
    mean, sd = est.bias, est.sd
    back = math.exp if scale == "ratio" else float
    return BlandAltman(
        first=pair.first,
        second=pair.second,
        scale=scale,
        multiplier=float(multiplier),
        n_pairs=n,
        n_subjects=est.n_subjects,
        bias=back(mean),
        sd=sd,
        lower=back(mean - multiplier * sd),
        upper=back(mean + multiplier * sd),
        bias_se=est.bias_se,
        df=est.df,
        slope=est.slope,
        intercept=est.intercept,
        slope_se=est.slope_se,
        within_sd=est.within_sd,
        between_sd=est.between_sd,
        repeated=bool(repeated),
        method=f"Bland-Altman limits of agreement, bias -+ {multiplier:g} SD, on "
        f"{_SCALE_WORDS[scale]}; {est.how}",
        reason=reason,
        differences=shown_d,
        means=m,
        first_values=pair.x,
        second_values=pair.y,
        _subject_level=est.subject_level,
    )


def limits_method_of(result: BlandAltman, method: LimitsMethod | None) -> LimitsMethod:
    """The limits' interval ``method`` (checked), or by default the one that holds for
    ``result``: ``"mover"`` with repeated pairs per subject, else ``"exact"``."""
    if method is None:
        return "mover" if result.repeated else "exact"
    check_choice("method", method, LIMITS_METHODS, "BlandAltman.limits_interval")
    return method


#: The farthest limit of agreement from the bias, in SDs: beyond 8, the normal share between
#: the limits (1 - 2 Phi(-8) = 1 - 1.2e-15) is 1 in double precision.
MAX_MULTIPLIER = 8.0


def check_limits_options(multiplier: float, scale: str, owner: str, fit: str = "anova") -> None:
    """Raise unless ``multiplier`` is a positive number up to :data:`MAX_MULTIPLIER` and
    ``scale`` and ``fit`` known ones."""
    check_choice("scale", scale, SCALES, owner)
    check_choice("fit", fit, REPEATED_FITS, owner)
    if not (
        isinstance(multiplier, int | float)
        and not isinstance(multiplier, bool)
        and 0 < multiplier <= MAX_MULTIPLIER
    ):
        need = (
            f"a positive number of SDs up to {MAX_MULTIPLIER:g} (farther, the share of "
            "differences between the limits is 1 to double precision, and no exact interval "
            "of the limits can be computed)"
        )
        raise InvalidInputError(bad_parameter(owner, "multiplier", need, multiplier))
