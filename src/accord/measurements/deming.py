"""Deming regression of two methods of measurement, each with error: the simple fit with a
known ratio of the error variances, the weighted fit for errors proportional to the level
(Linnet 1990), and the jackknife intervals of Linnet (1993)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar, Never

import numpy as np
import numpy.typing as npt

from .._errors import InvalidInputError, bad_parameter, warn_degenerate
from .._interval import ConfidenceInterval, check_confidence_level, t_quantile
from .._methods import MethodsFormat, regression_methods
from .._types import FloatArray
from ..data.source import refuse_read_options
from ._input import paired_arrays
from ._line import LineFit

__all__ = ["Deming", "deming"]

#: Relative change of the slope and intercept at which the weighted fit stops.
_TOLERANCE = 1e-12
#: Iterations of the weighted fit before it gives up.
_MAX_ITER = 200
#: What ``error_ratio`` takes.
_RATIO_CHOICES = "a positive number or 'replicates' (with subject=)"


@dataclasses.dataclass(frozen=True, slots=True)
class _Replicates:
    """Each subject's mean of ``x`` and of ``y``, and the ratio of the pooled within-subject
    variances of the replicates, of all subjects and without each subject in turn."""

    x: FloatArray
    y: FloatArray
    ratio: float
    ratio_without: FloatArray
    sd_x: float
    sd_y: float


def _replicates(
    x: FloatArray, y: FloatArray, subject: npt.NDArray[Any], weighted: bool
) -> _Replicates:
    """The subjects' means and the within-subject variances of their replicate pairs (row
    ``i`` of ``x`` and ``y`` measured on ``subject[i]``): ``s_x**2 = sum_i sum_l (x_il -
    xbar_i)**2 / sum_i (m_i - 1)``, the same for ``y``, and ``lambda = s_x**2 / s_y**2``
    (Linnet 1998; CLSI EP09). With ``weighted`` the deviations are relative to ``xbar_i``
    (the ratio of the squared CVs, which the weighted fit takes)."""
    _, codes = np.unique(subject.astype(str), return_inverse=True)
    m = np.bincount(codes).astype(np.float64)
    mx, my = np.bincount(codes, weights=x) / m, np.bincount(codes, weights=y) / m
    dx, dy = x - mx[codes], y - my[codes]
    if weighted:
        dx, dy = dx / mx[codes], dy / my[codes]
    ssx, ssy = np.bincount(codes, weights=dx * dx), np.bincount(codes, weights=dy * dy)
    df = float((m - 1.0).sum())
    if df == 0:
        raise InvalidInputError(
            "deming: error_ratio='replicates' needs a subject measured more than once; "
            f"each of the {m.size} subjects has one pair"
        )
    for name, ss in (("x", ssx), ("y", ssy)):
        if float(ss.sum()) == 0.0:
            raise InvalidInputError(
                f"deming: the replicates of {name} never differ within a subject, so the "
                "ratio of the error variances cannot be estimated; give error_ratio"
            )
    with np.errstate(divide="ignore", invalid="ignore"):
        without = (ssx.sum() - ssx) / (ssy.sum() - ssy)
    return _Replicates(mx, my, float(ssx.sum() / ssy.sum()), np.asarray(without),
                       math.sqrt(ssx.sum() / df), math.sqrt(ssy.sum() / df))  # fmt: skip


@dataclasses.dataclass(frozen=True, slots=True)
class Deming(LineFit):
    """A Deming regression of ``y`` (the test method) on ``x`` (the comparison).

    Attributes
    ----------
    first, second : str
        The names of ``x`` and ``y``.
    n_pairs : int
    slope, intercept : float
        The line ``y = intercept + slope x``.
    slope_se, intercept_se : float
        Their jackknife standard errors (Linnet 1993).
    slope_ci, intercept_ci : ConfidenceInterval
        ``estimate -+ t(n - 2) se`` at ``confidence_level``.
    confidence_level : float
    error_ratio : float
        ``lambda``, the ratio of the error variance of ``x`` to that of ``y``.
    error_ratio_estimated : bool
        Whether ``error_ratio`` was estimated from the replicates of each subject.
    within_sd_x, within_sd_y : float
        The pooled within-subject SDs of the replicates (with ``weighted=True``, of the
        replicates relative to their subject's mean: the CVs); NaN without ``subject``.
    n_measurements : int
        The replicate pairs behind the ``n_pairs`` points fitted (``n_pairs`` without
        ``subject``).
    weighted : bool
        Whether the fit weighs the pairs for errors proportional to the level.
    iterations : int
        Iterations of the weighted fit (0 for the simple one).
    method : str
    reason : str or None
        Why a value is NaN, when one is.
    x, y : ndarray
        The pairs used (with ``subject``: each subject's means).
    jackknife_slopes, jackknife_intercepts : ndarray
        The fit without each pair (with ``subject``: each subject) in turn.
    """

    _arrays: ClassVar[tuple[str, ...]] = ("x", "y", "jackknife_slopes", "jackknife_intercepts")

    first: str
    second: str
    n_pairs: int
    slope: float
    intercept: float
    slope_se: float
    intercept_se: float
    slope_ci: ConfidenceInterval
    intercept_ci: ConfidenceInterval
    confidence_level: float
    error_ratio: float
    weighted: bool
    iterations: int
    method: str
    reason: str | None
    x: FloatArray
    y: FloatArray
    jackknife_slopes: FloatArray
    jackknife_intercepts: FloatArray
    error_ratio_estimated: bool = False
    within_sd_x: float = math.nan
    within_sd_y: float = math.nan
    n_measurements: int = 0

    def __str__(self) -> str:
        kind = "weighted Deming" if self.weighted else "Deming"
        return (
            f"{kind}: {self.second} = {self.intercept:.4g} + {self.slope:.4g} {self.first} "
            f"({self.n_pairs} pairs)"
        )

    def band(self, at: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
        """The pointwise jackknife interval of the line at ``at``: ``fitted -+ t(n - 2) se``,
        ``se`` from the pseudo-values of ``intercept + slope * at``."""
        x0 = np.asarray(at, dtype=np.float64)
        n = self.n_pairs
        line = self.intercept + self.slope * x0
        loo = self.jackknife_intercepts[:, None] + self.jackknife_slopes[:, None] * x0[None, :]
        pseudo = n * line[None, :] - (n - 1) * loo
        se = np.std(pseudo, axis=0, ddof=1) / math.sqrt(n)
        half = t_quantile(0.5 + self.confidence_level / 2.0, n - 2) * se
        return np.asarray(line - half), np.asarray(line + half)

    def methods_text(self, format: MethodsFormat = "text") -> str:
        """A methods paragraph for a study report, with its references; every number comes
        from this result. ``format``: ``"text"`` or ``"markdown"``."""
        return regression_methods(self, format)


def _slope(u: FloatArray, q: FloatArray, p: FloatArray, lam: float | FloatArray) -> FloatArray:
    """The Deming slope from the (weighted) sums of squares ``u`` of x, ``q`` of y and the
    cross products ``p``: ``(lam q - u + sqrt((u - lam q)**2 + 4 lam p**2)) / (2 lam p)``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        top = lam * q - u + np.sqrt((u - lam * q) ** 2 + 4.0 * lam * p * p)
        return np.asarray(top / (2.0 * lam * p), dtype=np.float64)


def _simple(x: FloatArray, y: FloatArray, lam: float) -> tuple[float, float]:
    xc, yc = x - x.mean(), y - y.mean()
    b = float(_slope(np.asarray(xc @ xc), np.asarray(yc @ yc), np.asarray(xc @ yc), lam))
    return b, float(y.mean() - b * x.mean())


def _leave_one_out(
    x: FloatArray, y: FloatArray, lam: float | FloatArray
) -> tuple[FloatArray, FloatArray]:
    """The simple fit without each pair in turn, from the totals less that pair (``lam``: one
    ratio, or the ratio without each pair)."""
    n = x.size
    sx, sy = x.sum() - x, y.sum() - y
    mx, my = sx / (n - 1), sy / (n - 1)
    u = (x @ x - x * x) - (n - 1) * mx * mx
    q = (y @ y - y * y) - (n - 1) * my * my
    p = (x @ y - x * y) - (n - 1) * mx * my
    b = _slope(u, q, p, lam)
    return b, my - b * mx


def _weighted(x: FloatArray, y: FloatArray, lam: float) -> tuple[float, float, int]:
    """Linnet's (1990) iteration: weights ``1 / ((x_hat + lam y_hat) / (1 + lam))**2`` at the
    points on the current line closest to the data in the metric of the errors, then the
    weighted fit, until the slope and intercept settle."""
    b, a = _simple(x, y, lam)
    for it in range(1, _MAX_ITER + 1):
        d = y - (a + b * x)
        x_hat = x + lam * b * d / (1.0 + lam * b * b)
        y_hat = y - d / (1.0 + lam * b * b)
        w = 1.0 / ((x_hat + lam * y_hat) / (1.0 + lam)) ** 2
        mx, my = float(w @ x / w.sum()), float(w @ y / w.sum())
        xc, yc = x - mx, y - my
        new_b = float(_slope(np.asarray(w @ (xc * xc)), np.asarray(w @ (yc * yc)),
                             np.asarray(w @ (xc * yc)), lam))  # fmt: skip
        new_a = my - new_b * mx
        done = abs(new_b - b) <= _TOLERANCE * max(1.0, abs(b)) and abs(new_a - a) <= (
            _TOLERANCE * max(1.0, abs(a), abs(my))
        )
        b, a = new_b, new_a
        if done or not math.isfinite(b):
            return b, a, it
    raise InvalidInputError(
        f"deming: the weighted fit did not settle in {_MAX_ITER} iterations (slope {b:g}); "
        "the data may not fit errors proportional to the level (try weighted=False)"
    )


def _jackknife(theta: float, leave_out: FloatArray) -> float:
    """Linnet's jackknife SE: the SD of the pseudo-values ``n theta - (n - 1) theta_(-i)``
    over ``sqrt(n)``."""
    n = leave_out.size
    pseudo = n * theta - (n - 1) * leave_out
    return float(np.std(pseudo, ddof=1) / math.sqrt(n))


def _check(x: FloatArray, y: FloatArray, error_ratio: float | str, weighted: bool) -> float:
    """The ratio given (NaN for ``"replicates"``), after checking the pairs."""
    if error_ratio == "replicates":
        lam = math.nan
    elif isinstance(error_ratio, bool) or not isinstance(error_ratio, int | float | np.floating):
        raise InvalidInputError(bad_parameter("deming", "error_ratio", _RATIO_CHOICES, error_ratio))
    else:
        lam = float(error_ratio)
        if not (0.0 < lam < math.inf):
            raise InvalidInputError(bad_parameter("deming", "error_ratio", _RATIO_CHOICES, lam))
    if x.size < 3:
        raise InvalidInputError(f"deming needs at least 3 pairs; got {x.size}")
    if weighted:
        for name, arr in (("x", x), ("y", y)):
            bad = np.flatnonzero(arr <= 0)
            if bad.size:
                raise InvalidInputError(
                    f"deming: weighted=True weighs by the level, which must be positive; "
                    f"{name}[{int(bad[0])}] is {arr[bad[0]]:g}"
                )
    return lam


def _fit(
    x: FloatArray, y: FloatArray, lam: float, lam_without: float | FloatArray, weighted: bool
) -> tuple[float, float, int, FloatArray, FloatArray]:
    """The fit, its iterations and the fit without each point (at ``lam_without``: the
    ratio, or the ratio estimated without each point)."""
    n = x.size
    if not weighted:
        slope, intercept = _simple(x, y, lam)
        loo_b, loo_a = _leave_one_out(x, y, lam_without)
        return slope, intercept, 0, loo_b, loo_a
    slope, intercept, iterations = _weighted(x, y, lam)
    ratios = np.broadcast_to(np.asarray(lam_without, dtype=np.float64), (n,))
    keep = np.ones(n, dtype=bool)
    loo_b, loo_a = np.empty(n), np.empty(n)
    for i in range(n):
        keep[i] = False
        loo_b[i], loo_a[i], _ = _weighted(x[keep], y[keep], float(ratios[i]))
        keep[i] = True
    return slope, intercept, iterations, loo_b, loo_a


def deming(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    *,
    error_ratio: float | str = 1.0,
    weighted: bool = False,
    subject: npt.ArrayLike | None = None,
    confidence_level: float = 0.95,
    names: tuple[str, str] = ("x", "y"),
    **read_options: Never,
) -> Deming:
    r"""Deming regression of ``y`` on ``x``: the line relating two methods of measurement
    when both have errors, of known ratio of variances.

    With :math:`u = \sum (x_i - \bar x)^2`, :math:`q = \sum (y_i - \bar y)^2`,
    :math:`p = \sum (x_i - \bar x)(y_i - \bar y)` and :math:`\lambda` the ratio of the
    error variance of ``x`` to that of ``y``,

    .. math::

        b = \frac{\lambda q - u + \sqrt{(u - \lambda q)^2 + 4 \lambda p^2}}{2 \lambda p},
        \qquad a = \bar y - b \bar x.

    With ``weighted=True`` the means and sums are weighted by :math:`w_i = 1 / ((\hat x_i
    + \lambda \hat y_i) / (1 + \lambda))^2`, :math:`(\hat x_i, \hat y_i)` the point of the
    current line closest to the pair in the metric of the errors, and the fit is repeated
    until it settles (Linnet 1990): for errors whose SD is proportional to the level (a
    constant coefficient of variation).

    Parameters
    ----------
    x, y : array_like of shape (n,)
        The comparison method and the test method, paired by position (NaN: missing).
    error_ratio : float or "replicates", default 1.0
        :math:`\lambda = \sigma^2_x / \sigma^2_y`, as mcr's ``error.ratio``: 1 when the two
        methods are equally precise (orthogonal regression); from the replicate SDs of the
        two methods when known (with ``weighted=True``, of their CVs squared).
        ``"replicates"`` (with ``subject``) estimates it from the replicates, as the ratio
        of the pooled within-subject variances (Linnet 1998; CLSI EP09).
    weighted : bool, default False
        Linnet's weighted Deming regression (positive measurements only).
    subject : array_like of shape (n,), optional
        The subject of each pair, when subjects were measured more than once by both
        methods (pair ``i`` is the ``i``-th replicate of each method on ``subject[i]``).
        The line is fitted to the subjects' means, and the jackknife leaves out one
        subject at a time (an estimated ratio is estimated again without it).
    confidence_level : float, default 0.95
        Of the jackknife intervals.
    names : (str, str), default ("x", "y")

    Returns
    -------
    Deming
        ``slope``, ``intercept`` with jackknife ``*_se`` and ``*_ci``, ``fitted``,
        ``residuals``.

    Raises
    ------
    InvalidInputError
        Non-numeric or infinite measurements, arrays of different lengths, fewer than 3
        pairs (subjects), a bad ``error_ratio`` or ``confidence_level``, a measurement not
        positive with ``weighted=True``, a weighted fit that does not settle, or
        ``error_ratio="replicates"`` without ``subject``, without a subject measured twice
        or with replicates that never differ.

    Notes
    -----
    The jackknife (Linnet 1993, as mcr's ``method.ci = "jackknife"``): the fit is repeated
    without each pair; with :math:`\theta_{(-i)}` those estimates, the pseudo-values
    :math:`n \theta - (n - 1)\theta_{(-i)}` have SD :math:`s`, the SE is
    :math:`s / \sqrt n` and the interval :math:`\theta \mp t_{n-2} s / \sqrt n` (the point
    estimate stays the fit of all pairs). The simple fit's leave-one-out estimates come
    from the totals less each pair, in O(n); the weighted fit is refitted ``n`` times.

    Deming regression assumes a linear relation, errors normal (or at least symmetric)
    and independent, with the ratio of their variances known and constant over the range
    (``weighted=True``: their CVs). A wrong ``error_ratio`` biases the slope little when
    the range of the data is wide relative to the errors (Linnet 1998). CLSI EP09 (3rd
    ed., 2018) recommends Deming regression when the errors are constant, weighted Deming
    when they are proportional.

    With ``error_ratio="replicates"``, :math:`s^2_x = \sum_i \sum_l (x_{il} - \bar
    x_i)^2 / \sum_i (m_i - 1)` over the :math:`m_i` replicates of subject :math:`i`, the
    same for ``y``, and :math:`\hat\lambda = s^2_x / s^2_y`; the means of the replicates
    have error variances :math:`s^2 / m_i`, in the same ratio. For duplicates
    :math:`s^2_x = \sum_i (x_{i1} - x_{i2})^2 / (2 n)`.

    References
    ----------
    .. [1] Cornbleet, P. J., & Gochman, N. (1979). Incorrect least-squares regression
       coefficients in method-comparison analysis. Clin. Chem., 25(3), 432-438.
       https://doi.org/10.1093/clinchem/25.3.432
    .. [2] Linnet, K. (1990). Estimation of the linear relationship between the
       measurements of two methods with proportional errors. Stat. Med., 9(12),
       1463-1473. https://doi.org/10.1002/sim.4780091210
    .. [3] Linnet, K. (1993). Evaluation of regression procedures for methods comparison
       studies. Clin. Chem., 39(3), 424-432. https://doi.org/10.1093/clinchem/39.3.424
    .. [4] Linnet, K. (1998). Performance of Deming regression analysis in case of
       misspecified analytical error ratio in method comparison studies. Clin. Chem.,
       44(5), 1024-1031. https://doi.org/10.1093/clinchem/44.5.1024

    Examples
    --------
    Points on the line ``y = 1 + 2 x`` give it back, with SEs of 0:

    >>> import accord
    >>> fit = accord.deming([1, 2, 3, 4, 5], [3, 5, 7, 9, 11])
    >>> round(fit.slope, 12), round(fit.intercept, 12), round(fit.slope_se, 12)
    (2.0, 1.0, 0.0)

    Duplicates of three subjects: ``x`` varies within a subject by 0.2 (``s_x**2 = 0.02``),
    ``y`` by 0.1 (``s_y**2 = 0.005``), so the ratio is 4:

    >>> fit = accord.deming([1.0, 1.2, 2.0, 2.2, 3.0, 3.2], [1.1, 1.2, 2.0, 2.1, 3.3, 3.2],
    ...                     subject=[1, 1, 2, 2, 3, 3], error_ratio="replicates")
    >>> round(fit.error_ratio, 12), fit.n_pairs, fit.n_measurements
    (4.0, 3, 6)
    """
    refuse_read_options("deming", read_options)
    level = check_confidence_level(confidence_level, "deming")
    pair = paired_arrays(x, y, subject, "deming", names)
    lam = _check(pair.x, pair.y, error_ratio, weighted)
    reps = None
    if pair.subject is not None:
        reps = _replicates(pair.x, pair.y, pair.subject, weighted)
        xs, ys = reps.x, reps.y
        if xs.size < 3:
            raise InvalidInputError(f"deming needs at least 3 subjects; got {xs.size}")
    elif error_ratio == "replicates":
        raise InvalidInputError(
            "deming: error_ratio='replicates' estimates the ratio from the replicates of each "
            "subject; give subject= (the subject of each pair)"
        )
    else:
        xs, ys = pair.x, pair.y
    estimated = reps is not None and math.isnan(lam)
    lam_without: float | FloatArray = lam
    if reps is not None and estimated:
        lam, lam_without = reps.ratio, reps.ratio_without
    n = int(xs.size)
    slope, intercept, iterations, loo_b, loo_a = _fit(xs, ys, lam, lam_without, weighted)
    reason = None
    if not math.isfinite(slope) or not np.all(np.isfinite(loo_b)):
        reason = (
            "x and y are uncorrelated (or one is constant), with or without a pair: the "
            "slope is undefined"
        )
        warn_degenerate(f"deming: {reason}", stacklevel=2)
    if not math.isfinite(slope):  # a vertical line (x constant): no y = a + b x, NaN
        slope = intercept = math.nan
    se_b, se_a = _jackknife(slope, loo_b), _jackknife(intercept, loo_a)
    t = t_quantile(0.5 + level / 2.0, n - 2)
    kind = "weighted Deming regression (Linnet 1990)" if weighted else "Deming regression"
    return Deming(
        first=names[0],
        second=names[1],
        n_pairs=n,
        slope=slope,
        intercept=intercept,
        slope_se=se_b,
        intercept_se=se_a,
        slope_ci=ConfidenceInterval(slope - t * se_b, slope + t * se_b),
        intercept_ci=ConfidenceInterval(intercept - t * se_a, intercept + t * se_a),
        confidence_level=level,
        error_ratio=lam,
        weighted=bool(weighted),
        iterations=iterations,
        method=f"{kind}, error-variance ratio {lam:g} (x to y"
        + (", estimated from the replicates" if estimated else "")
        + f"), jackknife {level:.0%} intervals (Linnet 1993)"
        + (f" over {n} subjects" if reps is not None else ""),
        reason=reason,
        x=xs,
        y=ys,
        jackknife_slopes=np.asarray(loo_b, dtype=np.float64),
        jackknife_intercepts=np.asarray(loo_a, dtype=np.float64),
        error_ratio_estimated=estimated,
        within_sd_x=math.nan if reps is None else reps.sd_x,
        within_sd_y=math.nan if reps is None else reps.sd_y,
        n_measurements=int(pair.x.size),
    )
