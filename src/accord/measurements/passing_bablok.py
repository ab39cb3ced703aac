"""Passing-Bablok regression: a line relating two methods of measurement from the medians of
the slopes between every two pairs, with its rank-based intervals and the Cusum test of
linearity (Passing & Bablok 1983; Bablok et al. 1988)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar, Never

import numpy as np
import numpy.typing as npt

from .._errors import InvalidInputError, warn_degenerate
from .._interval import ConfidenceInterval, check_confidence_level
from .._methods import MethodsFormat, regression_methods
from .._types import FloatArray
from ..data.source import refuse_read_options
from ._input import paired_arrays
from ._line import LineFit
from ._slopes import SlopeSet, equal_pairs, slope_order_statistics

__all__ = ["PassingBablok", "passing_bablok"]


@dataclasses.dataclass(frozen=True, slots=True)
class PassingBablok(LineFit):
    """A Passing-Bablok regression of ``y`` (the test method) on ``x`` (the comparison).

    Attributes
    ----------
    first, second : str
        The names of ``x`` and ``y``.
    n_pairs : int
        Pairs of measurements.
    slope, intercept : float
        The line ``y = intercept + slope x``.
    slope_ci, intercept_ci : ConfidenceInterval
        Their rank-based intervals at ``confidence_level`` (Passing & Bablok 1983); NaN
        when too few pairs leave a bound out of the ranks.
    confidence_level : float
    n_slopes : int
        ``N``, the slopes used: every pair of pairs but those with an undefined slope (0/0,
        two identical pairs) and those with a slope of exactly -1 (+1 with a negative
        correlation).
    shift : int
        ``K``, the slopes below -1 (above +1 with a negative correlation), by which the
        median is shifted.
    n_infinite : int
        Slopes of pairs with the same ``x`` and different ``y``: ``+inf`` (``-inf`` with
        a negative correlation), as mcr counts them.
    positive : bool
        Whether Kendall's tau of ``x`` and ``y`` is at least 0 (Bablok et al. 1988 treat
        the negative case by symmetry).
    cusum : ndarray
        The cumulative sum of the residual scores in the order of the projections of the
        points on the line.
    cusum_statistic, cusum_pvalue : float
        ``H = max |cusum| / sqrt(L + 1)`` (``L`` the points below the line) and its
        p-value from the Kolmogorov distribution: a small p-value says the relation is not
        linear (the critical value at 5% is 1.36).
    method : str
    reason : str or None
        Why a value is NaN, when one is.
    x, y : ndarray
        The pairs used.
    """

    _arrays: ClassVar[tuple[str, ...]] = ("x", "y", "cusum")

    first: str
    second: str
    n_pairs: int
    slope: float
    intercept: float
    slope_ci: ConfidenceInterval
    intercept_ci: ConfidenceInterval
    confidence_level: float
    n_slopes: int
    shift: int
    n_infinite: int
    positive: bool
    cusum: FloatArray
    cusum_statistic: float
    cusum_pvalue: float
    method: str
    reason: str | None
    x: FloatArray
    y: FloatArray

    def __str__(self) -> str:
        return (
            f"Passing-Bablok: {self.second} = {self.intercept:.4g} + {self.slope:.4g} "
            f"{self.first} ({self.n_pairs} pairs)"
        )

    def methods_text(self, format: MethodsFormat = "text") -> str:
        """A methods paragraph for a study report, with its references; every number comes
        from this result. ``format``: ``"text"`` or ``"markdown"``."""
        return regression_methods(self, format)


@dataclasses.dataclass(frozen=True, slots=True)
class _Counts:
    """How the slopes of a data set fall: finite ones, those of exactly -1 and below, and
    the infinite ones."""

    points: SlopeSet
    n_finite: int
    n_minus_one: int
    shift: int
    n_infinite: int

    @classmethod
    def of(cls, x: FloatArray, y: FloatArray) -> _Counts:
        points = SlopeSet.of(x, y)
        px, py = points.x, points.y  # sorted by (x, y): equal points are neighbours
        same_x = equal_pairs(px)
        identical = equal_pairs(px, py)
        same_sum = equal_pairs(np.sort(x + y))

        # slope -1 exactly: the same x + y (and another x), as the order at t = -1 ties them
        minus_one = same_sum - identical
        up_to = points.at_most((-1, 1, False) if points.exact else -1.0)
        return cls(points, points.n_finite, minus_one, up_to - minus_one, same_x - identical)

    @property
    def n_slopes(self) -> int:
        return self.n_finite - self.n_minus_one + self.n_infinite

    def finite_rank(self, rank: int) -> int | None:
        """The rank among all finite slopes of the ``rank``-th slope used (None: +inf)."""
        if rank <= self.shift:
            return rank
        if rank <= self.n_finite - self.n_minus_one:
            return rank + self.n_minus_one
        return None


def _order_statistics(counts: _Counts, groups: list[tuple[int, ...]]) -> list[list[float]]:
    """The slopes of the given ranks (1-based, among the slopes used; NaN out of range)."""
    wanted: list[tuple[int, ...]] = []
    for group in groups:
        finite = tuple(r for r in (counts.finite_rank(g) for g in group if g >= 1) if r)
        if finite:
            wanted.append(finite)
    found = dict(zip(wanted, slope_order_statistics(counts.points, tuple(wanted)), strict=True))
    out = []
    for group in groups:
        finite = tuple(r for r in (counts.finite_rank(g) for g in group if g >= 1) if r)
        values = dict(zip(finite, found.get(finite, ()), strict=True))
        row = []
        for g in group:
            r = counts.finite_rank(g) if 1 <= g <= counts.n_slopes else -1
            row.append(math.nan if r == -1 else math.inf if r is None else values[r])
        out.append(row)
    return out


def _ranks(n: int, n_slopes: int, shift: int, level: float) -> list[tuple[int, ...]]:
    """The ranks of the shifted median and of the interval's bounds (Passing & Bablok 1983):
    ``C = z sqrt(n (n - 1) (2n + 5) / 18)``, ``M1 = round((N - C) / 2)``, ``M2 = N - M1 +
    1``, the bounds the ``M1 + K``-th and ``M2 + K``-th slopes."""
    from scipy import special

    big = n_slopes
    if big % 2:
        median: tuple[int, ...] = ((big + 1) // 2 + shift,)
    else:
        median = (big // 2 + shift, big // 2 + 1 + shift)
    c = float(special.ndtri(0.5 + level / 2.0)) * math.sqrt(n * (n - 1) * (2 * n + 5) / 18.0)
    m1 = math.floor((big - c) / 2.0 + 0.5)
    m2 = big - m1 + 1
    return [median, (m1 + shift,), (m2 + shift,)]


def _cusum(x: FloatArray, y: FloatArray, slope: float, intercept: float) -> FloatArray:
    """The cumulative residual scores (Passing & Bablok 1983, section 4): ``sqrt(L / l)``
    above the line, ``-sqrt(l / L)`` below (``l``, ``L`` the points above and below), 0 on
    it, in the order of ``D = (y + x / b - a) / sqrt(1 + 1 / b**2)``."""
    res = y - intercept - slope * x
    above, below = int((res > 0).sum()), int((res < 0).sum())
    if above == 0 or below == 0 or slope == 0 or not math.isfinite(slope):
        return np.zeros(0)
    score = np.where(res > 0, math.sqrt(below / above), 0.0)
    score = np.where(res < 0, -math.sqrt(above / below), score)
    distance = (y + x / slope - intercept) / math.sqrt(1.0 + 1.0 / slope**2)
    return np.asarray(np.cumsum(score[np.argsort(distance, kind="stable")]), dtype=np.float64)


#: Most decimal places looked for in the data (:func:`_decimal_scale`).
_MAX_DECIMALS = 6


def _decimal_scale(x: FloatArray, y: FloatArray) -> float:
    """``10**d`` for the fewest decimals ``d`` (up to 6) that ``x`` and ``y`` are written
    with, 1 when they have more (or are too large for exact integers).

    Measurements given to a fixed number of decimals have slopes that tie in exact
    arithmetic (``(0.82 - 0.79) / (0.83 - 0.80)`` is 1) but not in binary floating point;
    scaled to integers, their differences are exact, and so are the ties, the slopes of
    -1 and the count ``K``."""
    top = float(max(np.max(np.abs(x)), np.max(np.abs(y)), 1.0))
    for d in range(_MAX_DECIMALS + 1):
        scale = 10.0**d
        if top * scale > 2.0**50:
            break
        ok = all(
            np.all(
                np.abs(a * scale - np.round(a * scale)) <= 1e-9 * np.maximum(1.0, np.abs(a * scale))
            )
            for a in (x, y)
        )
        if ok:
            return scale
    return 1.0


def _fit(x: FloatArray, y: FloatArray, level: float) -> dict[str, Any]:
    """The fit for a positive correlation (the negative case flips ``y``)."""
    scale = _decimal_scale(x, y)
    counts = (
        _Counts.of(np.round(x * scale), np.round(y * scale)) if scale != 1.0 else _Counts.of(x, y)
    )
    median, low, high = _order_statistics(counts, _ranks(x.size, counts.n_slopes,
                                                          counts.shift, level))  # fmt: skip
    slope = float(np.mean(median))
    b_low, b_high = low[0], high[0]

    def intercept(b: float) -> float:
        return float(np.median(y - b * x)) if math.isfinite(b) else math.nan

    return {
        "slope": slope,
        "intercept": intercept(slope),
        "slope_ci": (b_low, b_high),
        "intercept_ci": (intercept(b_high), intercept(b_low)),
        "n_slopes": counts.n_slopes,
        "shift": counts.shift,
        "n_infinite": counts.n_infinite,
    }


def passing_bablok(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    *,
    confidence_level: float = 0.95,
    names: tuple[str, str] = ("x", "y"),
    **read_options: Never,
) -> PassingBablok:
    r"""Passing-Bablok regression of ``y`` on ``x``: the line relating two methods of
    measurement, each with errors, robust to outliers and free of a distributional
    assumption.

    With :math:`S_{ij} = (y_j - y_i) / (x_j - x_i)` over the pairs :math:`i < j`, leaving
    out the undefined ones (0/0) and those equal to -1, :math:`N` slopes remain, :math:`K`
    of them below -1. The slope is their median shifted by :math:`K`,

    .. math::

        b = S_{((N + 1)/2 + K)} \text{ (N odd)}, \quad
        b = \tfrac12 \left(S_{(N/2 + K)} + S_{(N/2 + 1 + K)}\right) \text{ (N even)},

    the intercept :math:`a = \operatorname{med}_i (y_i - b x_i)`. The interval of the slope
    is :math:`(S_{(M_1 + K)}, S_{(M_2 + K)})` with :math:`C = z_{1-\alpha/2}
    \sqrt{n (n-1)(2n+5)/18}`, :math:`M_1 = \operatorname{round}((N - C)/2)` and
    :math:`M_2 = N - M_1 + 1`; that of the intercept is :math:`(\operatorname{med}(y - b_U
    x), \operatorname{med}(y - b_L x))`.

    Parameters
    ----------
    x, y : array_like of shape (n,)
        The comparison method and the test method, paired by position (NaN: missing, the
        pair left out with a :class:`~accord.DroppedDataWarning`).
    confidence_level : float, default 0.95
        Of the intervals.
    names : (str, str), default ("x", "y")
        What the result and its messages call the two methods.

    Returns
    -------
    PassingBablok
        ``slope``, ``intercept``, ``slope_ci``, ``intercept_ci``, the counts ``n_slopes``
        (N), ``shift`` (K), the Cusum test of linearity (``cusum_statistic``,
        ``cusum_pvalue``), ``fitted`` and ``residuals``.

    Raises
    ------
    InvalidInputError
        Non-numeric or infinite measurements, arrays of different lengths, fewer than 3
        pairs, a bad ``confidence_level``.

    Notes
    -----
    A slope of -1 is left out because under the model (a line through the points, errors
    of the two methods alike in distribution) the slopes of -1 are those that carry no
    information on the slope; leaving out the :math:`K` slopes below -1 too would bias the
    estimate, so the median is shifted instead (Passing & Bablok 1983). A pair of points
    with the same ``x`` and different ``y`` has slope :math:`+\infty` (:math:`-\infty`
    with a negative correlation), as mcr counts it; two identical points have none. With
    a negative correlation (Kendall's tau below 0) the roles of -1 and +1 swap (Bablok et
    al. 1988): the fit is that of ``-y``, negated back. Slopes equal in exact arithmetic
    can differ in the last bit in floating point (``1.1 - 0.9`` is not ``0.2``); a slope
    is -1 when ``x + y`` of the two points are equal as floating-point numbers.

    The slopes are never all listed: the shifted median and the bounds are order
    statistics of the :math:`n(n-1)/2` slopes, selected by randomized selection over
    inversion counts (Matousek 1991; Dillencourt, Mount & Netanyahu 1992): sample slopes
    from a bracket, narrow it to the sample quantiles around the wanted rank, count the
    slopes below its ends exactly (the slopes up to ``t`` are the inversions between the
    orders of the points by ``x`` and by ``y - t x``, counted in O(n log n)), and list
    the slopes of the bracket once few remain, in expected O(n log^2 n) time; 10^5 pairs
    take about a second. The result does not depend on the random draws.

    The Cusum test (Passing & Bablok 1983, section 4) scores the points above the line
    :math:`\sqrt{L/l}`, those below :math:`-\sqrt{l/L}` (``l`` and ``L`` their numbers),
    sums the scores in the order of the points' projections on the line, and compares
    :math:`\max|\mathrm{cusum}| / \sqrt{L + 1}` with the Kolmogorov distribution.

    The method assumes a linear relation and a ratio of the two methods' error variances
    that stays about 1 (strictly, proportional to ``slope**2``) over the range; the
    intervals assume the pairs independent and a sample of at least 30 or so. CLSI EP09
    (3rd ed., 2018) names it among the regressions for the comparison of two methods when
    the errors are not constant.

    References
    ----------
    .. [1] Passing, H., & Bablok, W. (1983). A new biometrical procedure for testing the
       equality of measurements from two different analytical methods. J. Clin. Chem.
       Clin. Biochem., 21(11), 709-720. https://doi.org/10.1515/cclm.1983.21.11.709
    .. [2] Bablok, W., Passing, H., Bender, R., & Schneider, B. (1988). A general
       regression procedure for method transformation. J. Clin. Chem. Clin. Biochem.,
       26(11), 783-790. https://doi.org/10.1515/cclm.1988.26.11.783
    .. [3] Dillencourt, M. B., Mount, D. M., & Netanyahu, N. S. (1992). A randomized
       algorithm for slope selection. Int. J. Comput. Geom. Appl., 2(1), 1-27.
       https://doi.org/10.1142/S0218195992000020

    Examples
    --------
    Four points (by hand: the six slopes are 1, 1.5, 1, 2, 1 and 0; none is -1 or below,
    so K = 0 and the slope is the mean of the 3rd and 4th of the sorted six, 0 1 1 1 1.5 2;
    the intercept is the median of ``y - x``, 0 0 1 0):

    >>> import accord
    >>> pb = accord.passing_bablok([1, 2, 3, 4], [1, 2, 4, 4])
    >>> pb.slope, pb.intercept, pb.n_slopes, pb.shift
    (1.0, 0.0, 6, 0)
    """
    refuse_read_options("passing_bablok", read_options)
    level = check_confidence_level(confidence_level, "passing_bablok")
    pair = paired_arrays(x, y, None, "passing_bablok", names)
    n = int(pair.x.size)
    if n < 3:
        raise InvalidInputError(f"passing_bablok needs at least 3 pairs; got {n}")
    return _result(pair.x, pair.y, level, names)


def _no_slope(n_slopes: int, n_infinite: int, shift: int) -> str:
    """Why the shifted median of the slopes is not a finite number."""
    if n_infinite == n_slopes:
        return "no finite slope: every pair of pairs has the same x"
    return (
        f"no slope: the median of the {n_slopes} slopes, shifted by K = {shift} (the slopes "
        "below -1), falls on an infinite slope or beyond the last"
    )


def _result(x: FloatArray, y: FloatArray, level: float, names: tuple[str, str]) -> PassingBablok:
    from scipy import special

    # the sign of Kendall's tau: y falls with x when more pairs are ordered oppositely
    positive = not (np.ptp(x) and np.ptp(y)) or SlopeSet.of(x, y).kendall_s() >= 0
    fit = _fit(x, y if positive else -y, level)
    sign = 1.0 if positive else -1.0
    slope, intercept = sign * fit["slope"], sign * fit["intercept"]
    slope_ci = tuple(sorted(sign * v for v in fit["slope_ci"]))
    intercept_ci = tuple(sorted(sign * v for v in fit["intercept_ci"]))
    reason = None
    if not all(math.isfinite(v) for v in (*slope_ci, *intercept_ci)):
        reason = (
            f"too few pairs ({x.size}) for a {level:.0%} interval of the slope: a bound "
            "falls beyond the slopes"
        )
        slope_ci = tuple(v if math.isfinite(v) else math.nan for v in slope_ci)
        intercept_ci = tuple(v if math.isfinite(v) else math.nan for v in intercept_ci)
    if not math.isfinite(slope):
        reason = _no_slope(fit["n_slopes"], fit["n_infinite"], fit["shift"])
        slope = intercept = math.nan
    if reason:
        warn_degenerate(f"passing_bablok: {reason}", stacklevel=4)
    cusum = _cusum(x, y, slope, intercept)
    below = int((y - intercept - slope * x < 0).sum())
    h = float(np.max(np.abs(cusum))) / math.sqrt(below + 1) if cusum.size else math.nan
    return PassingBablok(
        first=names[0],
        second=names[1],
        n_pairs=int(x.size),
        slope=slope,
        intercept=intercept,
        slope_ci=ConfidenceInterval(*slope_ci),
        intercept_ci=ConfidenceInterval(*intercept_ci),
        confidence_level=level,
        n_slopes=fit["n_slopes"],
        shift=fit["shift"],
        n_infinite=fit["n_infinite"],
        positive=positive,
        cusum=cusum,
        cusum_statistic=h,
        cusum_pvalue=float(special.kolmogorov(h)) if math.isfinite(h) else math.nan,
        method="Passing-Bablok regression (Passing & Bablok 1983): shifted median of the "
        f"pairwise slopes, rank-based {level:.0%} intervals, Cusum test of linearity",
        reason=reason,
        x=x,
        y=y,
    )
