"""Lin's concordance correlation coefficient, for two methods and for many."""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Never

import numpy as np
import numpy.typing as npt

from .._errors import DroppedDataWarning, InvalidInputError, warn_degenerate
from .._results import CIMethod, Coefficient, ConfidenceInterval, check_level, t_pvalue
from .._types import Alternative, FloatArray
from .._validate import check_choice
from ..data.ratings import Ratings
from ..data.source import refuse_read_options
from ..stats.scores import score_matrix
from ._input import numeric_vector, paired_arrays

__all__ = ["ConcordanceCorrelation", "concordance_correlation", "concordance_of_scores"]


@dataclasses.dataclass(frozen=True, slots=True)
class ConcordanceCorrelation(Coefficient):
    """Lin's concordance correlation coefficient (CCC), or its overall form for many raters.

    Attributes
    ----------
    statistic : float
        The CCC: agreement with the identity line, in [-1, 1].
    standard_error : float
        SE of the CCC: Lin's (1989; 2000) asymptotic SE for two raters, the jackknife SE
        (over items) for more (defined also when a rater is constant).
    z_standard_error : float
        SE of ``atanh(CCC)``, from which the interval is made.
    precision : float
        How tightly the points lie about a line: Pearson's correlation (two raters), or
        Barnhart, Haber & Song's (2002) overall precision (many): the pairwise correlations
        averaged with weights ``s_j s_l``, ``sum_{j<l} s_jl / sum_{j<l} s_j s_l``. NaN when
        a rater is constant.
    accuracy : float
        How close the lines are to the identity: Lin's ``C_b`` (two raters), or Barnhart et
        al.'s overall accuracy ``2 sum_{j<l} s_j s_l / ((k - 1) sum_j s_j**2 +
        sum_{j<l} (mean_j - mean_l)**2)``; ``precision * accuracy`` is the CCC.
    raters : tuple of str
        The raters (methods) compared.
    """

    z_standard_error: float = math.nan
    precision: float = math.nan
    accuracy: float = math.nan
    raters: tuple[str, ...] = ()

    @property
    def df(self) -> int:
        """The interval and test use the normal distribution on the Fisher z scale."""
        return 0

    @property
    def ci_description(self) -> str:
        """How the interval is made: Fisher's z transform."""
        return "Fisher z-transform interval, normal quantile (Lin 1989; 2000)"

    def test(self, alternative: Alternative = "two-sided") -> float:
        """p-value of CCC = 0 on the z scale (normal reference)."""
        z = math.atanh(self.statistic) if abs(self.statistic) < 1 else math.nan
        return t_pvalue(z, self.z_standard_error, math.inf, alternative)

    def confidence_interval(
        self, level: float = 0.95, method: CIMethod = "analytic"
    ) -> ConfidenceInterval:
        """``tanh(atanh(CCC) -+ q * z_standard_error)``, ``q`` the normal quantile."""
        from scipy import special

        check_level(level)
        check_choice("method", method, ("analytic",), "ConcordanceCorrelation.confidence_interval")
        if abs(self.statistic) >= 1 or not math.isfinite(self.z_standard_error):
            return ConfidenceInterval(math.nan, math.nan)
        z = math.atanh(self.statistic)
        half = float(special.ndtri(0.5 + level / 2.0)) * self.z_standard_error
        return ConfidenceInterval(math.tanh(z - half), math.tanh(z + half))


def _moments(y: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Column means and the covariance matrix with divisor n (Lin 1989)."""
    mean = y.mean(axis=0)
    centred = y - mean
    return mean, centred.T @ centred / y.shape[0]


def _mean_spread(mean: FloatArray) -> FloatArray:
    """``sum_{j<l} (mean_j - mean_l)**2`` over the last axis, as ``k`` times the sum of
    squared deviations from the mean of the means."""
    k = mean.shape[-1]
    return np.asarray(k * ((mean - mean.mean(axis=-1, keepdims=True)) ** 2).sum(axis=-1))


def _barnhart(mean: FloatArray, cov: FloatArray) -> tuple[float, float, float]:
    """The overall CCC and its overall precision and accuracy (Barnhart, Haber & Song 2002)
    from the column means and the covariance matrix (divisor n) of the k raters.

    With ``S = sum_{j<l} s_jl``, ``T = sum_{j<l} s_j s_l`` and the denominator
    ``D = (k - 1) sum_j s_j**2 + sum_{j<l} (mean_j - mean_l)**2``: the CCC is ``2 S / D``,
    the precision ``S / T`` (the pairwise correlations averaged with weights ``s_j s_l``)
    and the accuracy ``2 T / D``; NaN where their denominator is 0."""
    k = mean.size
    var = np.diag(cov)
    total = float(var.sum())
    cross = (float(cov.sum()) - total) / 2.0
    scale = (float(np.sqrt(var).sum()) ** 2 - total) / 2.0
    den = (k - 1) * total + float(_mean_spread(mean))
    ccc = 2.0 * cross / den if den > 0 else math.nan
    precision = cross / scale if scale > 0 else math.nan
    accuracy = 2.0 * scale / den if den > 0 else math.nan
    return ccc, precision, accuracy


def _leave_one_out(y: FloatArray) -> FloatArray:
    """The overall CCC of ``y`` (n x k) with each item left out in turn, shape (n,).

    With ``c`` the centred scores and ``M = c'c``, leaving out item ``i`` gives the mean
    ``mean - c_i / (n - 1)`` and the cross products ``M - n / (n - 1) c_i c_i'`` about it,
    so the sum of the covariances and of the variances of every left-out sample come from
    ``M`` and one row each: O(n k^2) in all, where recomputing each sample is O(n^2 k)."""
    n, k = y.shape
    mean = y.mean(axis=0)
    c = y - mean
    gram = c.T @ c
    a = n / (n - 1.0)
    variances = (float(np.trace(gram)) - a * np.einsum("ij,ij->i", c, c)) / (n - 1)
    everything = (float(gram.sum()) - a * c.sum(axis=1) ** 2) / (n - 1)
    den = (k - 1) * variances + _mean_spread(mean - c / (n - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, (everything - variances) / den, np.nan)


def _lin_standard_error(rho: float, r: float, u2: float, n: int) -> float:
    """Lin's asymptotic SE of the CCC of two raters, with Lin's (2000) correction."""
    if n < 3 or r == 0 or not math.isfinite(r):
        return math.nan
    var = (
        (1 - r * r) * rho * rho * (1 - rho * rho) / (r * r)
        + 2 * rho**3 * (1 - rho) * u2 / r
        - rho**4 * u2 * u2 / (2 * r * r)
    ) / (n - 2)
    return math.sqrt(var) if var >= 0 else math.nan


#: Leave-one-out CCCs this close to -1 or 1 are taken as exact: ``atanh`` would blow up
#: the rounding of the moments (1e-16) into the standard error.
_EXACT_ONE = 1e-9


def _jackknife_z(y: FloatArray) -> tuple[float, str | None]:
    """Jackknife SE of ``atanh`` of the overall CCC, leaving out one item at a time; NaN,
    with the reason, when a left-out sample has no ``atanh`` (a CCC of -1 or 1, or none).

    >>> y = np.array([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0], [3.0, 3.0, 3.0], [4.0, 4.0, 5.0]])
    >>> print(_jackknife_z(y)[1])  # doctest: +NORMALIZE_WHITESPACE
    with one item left out (number 4 of those scored by every rater), the raters agree
    exactly (a CCC of 1): the jackknife standard error of atanh(CCC), and so the
    interval, is undefined
    """
    n = y.shape[0]
    values = _leave_one_out(y)
    bad = np.flatnonzero(~(np.abs(values) < 1.0 - _EXACT_ONE))
    if bad.size:
        first = int(bad[0])
        what = (
            "the CCC is undefined"
            if math.isnan(values[first])
            else f"the raters agree exactly (a CCC of {values[first]:.0f})"
        )
        return math.nan, (
            f"with one item left out (number {first + 1} of those scored by every rater), {what}: "
            "the jackknife standard error of atanh(CCC), and so the interval, is undefined"
        )
    z = np.arctanh(values)
    return float(math.sqrt((n - 1) / n * float(np.sum((z - z.mean()) ** 2)))), None


def concordance_of_scores(y: FloatArray, raters: tuple[str, ...]) -> ConcordanceCorrelation:
    """The CCC of the complete items x raters scores ``y`` (see
    :func:`accord.concordance_correlation`)."""
    n, k = y.shape
    reason: str | None = None
    rho = se = se_z = precision = accuracy = math.nan
    if n < 3:
        reason = f"the CCC needs at least 3 items measured by every rater; got {n}"
    else:
        mean, cov = _moments(y)
        var = np.diag(cov)
        rho, precision, accuracy = _barnhart(mean, cov)
        if np.any(var == 0):
            reason = (
                "a rater gives every item the same value: its correlations, and so the "
                "precision and the accuracy, are undefined"
            )
            precision = accuracy = math.nan
        if k == 2 and reason is None:
            u2 = float((mean[0] - mean[1]) ** 2 / math.sqrt(var[0] * var[1]))
            se = _lin_standard_error(rho, precision, u2, n)
            se_z = se / (1 - rho * rho) if abs(rho) < 1 else math.nan
        elif k > 2 and math.isfinite(rho):
            se_z, why = _jackknife_z(y)
            reason = reason or why
            se = se_z * (1 - rho * rho)
    if reason is not None:
        warn_degenerate(reason, stacklevel=4)
    how = (
        "Lin's concordance correlation (Lin 1989), moments with divisor n; SE of Lin 1989 "
        "with the correction of Lin 2000"
        if k == 2
        else "overall concordance correlation of many raters (Lin, Hedayat, Sinha & Yang "
        "2002; Barnhart, Haber & Song 2002), moments with divisor n; overall precision and "
        "accuracy of Barnhart, Haber & Song 2002; jackknife SE over items"
    )
    return ConcordanceCorrelation(
        name="concordance_correlation",
        statistic=rho,
        standard_error=se,
        n_items=n,
        n_raters=k,
        categories=(),
        method=how + "; Fisher z-transform interval",
        weights="identity",
        reason=reason,
        z_standard_error=se_z,
        precision=precision,
        accuracy=accuracy,
        raters=raters,
    )


def concordance_correlation(
    x: Ratings | npt.ArrayLike,
    y: npt.ArrayLike | None = None,
    **read_options: Never,
) -> ConcordanceCorrelation:
    r"""Lin's concordance correlation coefficient: agreement of measurements with the
    identity line.

    For two methods ``x`` and ``y`` measured on the same *n* items, with moments taken
    with divisor *n*:

    .. math::

        \rho_c = \frac{2 s_{xy}}{s_x^2 + s_y^2 + (\bar x - \bar y)^2}
               = r \cdot C_b

    the Pearson correlation ``r`` (precision) times ``C_b`` (accuracy: how far the
    best-fitting line is from the identity). For *k* raters (a :class:`~accord.Ratings` or
    an items x raters array) the overall CCC

    .. math::

        \rho_c^o = \frac{2 \sum_{j<l} s_{jl}}
                        {(k - 1) \sum_j s_j^2 + \sum_{j<l} (\bar y_j - \bar y_l)^2}

    which is Lin's CCC when *k* = 2. It is the product of Barnhart, Haber & Song's (2002)
    overall precision and overall accuracy

    .. math::

        \rho^o = \frac{\sum_{j<l} s_{jl}}{\sum_{j<l} s_j s_l}, \qquad
        \chi^o = \frac{2 \sum_{j<l} s_j s_l}
                      {(k - 1) \sum_j s_j^2 + \sum_{j<l} (\bar y_j - \bar y_l)^2}

    (``precision`` and ``accuracy``), Pearson's ``r`` and Lin's ``C_b`` when *k* = 2.

    Parameters
    ----------
    x : array_like of shape (n,), Ratings, or array_like of shape (n, k)
        The first method's measurements, or all raters' numeric scores.
    y : array_like of shape (n,), optional
        The second method's measurements (with a 1-D ``x`` only).

    Returns
    -------
    ConcordanceCorrelation
        ``statistic``, ``standard_error``, ``z_standard_error``, ``precision``,
        ``accuracy``, ``confidence_interval(level)`` (Fisher z), ``pvalue``.

    Raises
    ------
    InvalidInputError
        Non-numeric or infinite measurements, ``x`` and ``y`` of different lengths, fewer
        than 2 raters.

    Notes
    -----
    Pairs (items) with a missing measurement are left out with a
    :class:`~accord.DroppedDataWarning`; fewer than 3 left give NaN with a reason. The
    interval is ``tanh(atanh(CCC) -+ q * SE_z)``. For two raters ``SE_z`` is Lin's
    asymptotic SE with the correction of Lin (2000), as in DescTools ``CCC`` and epiR
    ``epi.ccc``; for more raters it is the jackknife SE of ``atanh`` over items, which
    needs no correlation and so is given also when a rater is constant (the precision and
    the accuracy are then NaN, with the reason). The leave-one-out CCCs come from the
    full sample's cross products, each corrected by its item's row: O(n k^2) for n items.
    The overall precision is a weighted mean of the pairwise correlations (weights
    ``s_j s_l``), not their plain mean; the overall precision and accuracy are those of
    epiR ``epi.occc`` (which takes moments with divisor *n - 1*: the precision is the
    same, the accuracy and the CCC differ slightly).

    In the mean squares of the two-way ANOVA of the complete items x raters scores
    (MSR items, MSC raters, MSE residual), the overall CCC with divisor *n* is

    .. math::

        \rho_c^o = \frac{(n - 1)(MSR - MSE)}{(n - 1)(MSR + (k - 1) MSE) + k\, MSC}

    and with divisor *n - 1* it is :math:`(MSR - MSE) / (MSR + (k-1) MSE + k\, MSC / n)`:
    the ICC of absolute agreement in which the raters' spread is estimated by
    :math:`MSC / n` rather than :math:`(MSC - MSE) / n` (Carrasco & Jover 2003), so the CCC
    sits just below ICC(A,1).

    References
    ----------
    .. [1] Lin, L. I.-K. (1989). A concordance correlation coefficient to evaluate
       reproducibility. Biometrics, 45(1), 255-268. https://doi.org/10.2307/2532051
    .. [2] Lin, L. I.-K. (2000). A note on the concordance correlation coefficient.
       Biometrics, 56, 324-325.
    .. [3] Lin, L., Hedayat, A. S., Sinha, B., & Yang, M. (2002). Statistical methods in
       assessing agreement. JASA, 97(457), 257-270. https://doi.org/10.1198/016214502753479392
    .. [4] Barnhart, H. X., Haber, M., & Song, J. (2002). Overall concordance correlation
       coefficient for evaluating agreement among multiple observers. Biometrics, 58(4),
       1020-1027. https://doi.org/10.1111/j.0006-341X.2002.01020.x
    .. [5] Carrasco, J. L., & Jover, L. (2003). Estimating the generalized concordance
       correlation coefficient through variance components. Biometrics, 59(4), 849-858.

    Examples
    --------
    Bland & Altman (1986), PEFR by the Wright and the mini-Wright meter (l/min):

    >>> import accord
    >>> wright = [494, 395, 516, 434, 476, 557, 413, 442, 650, 433, 417, 656, 267, 478,
    ...           178, 423, 427]
    >>> mini = [512, 430, 520, 428, 500, 600, 364, 380, 658, 445, 432, 626, 260, 477,
    ...         259, 350, 451]
    >>> ccc = accord.concordance_correlation(wright, mini)
    >>> round(ccc.statistic, 4), round(ccc.precision, 4)
    (0.9427, 0.9433)
    """
    refuse_read_options("concordance_correlation", read_options)
    if isinstance(x, Ratings):
        if y is not None:
            raise InvalidInputError(
                "concordance_correlation takes ratings alone, or two arrays x and y"
            )
        scores = score_matrix(x, "concordance_correlation")
        return _of_matrix(scores, tuple(str(r) for r in x.raters.tolist()))
    if y is None:
        arr = np.asarray(x)
        if arr.ndim != 2:
            raise InvalidInputError(
                "concordance_correlation needs two arrays x and y, or an items x raters "
                f"array; got one array of shape {arr.shape}"
            )
        if arr.shape[1] < 2:
            raise InvalidInputError(
                f"concordance_correlation compares raters; got {arr.shape[1]} column"
            )
        scores = np.column_stack(
            [numeric_vector(arr[:, j], f"column {j}", "concordance_correlation")
             for j in range(arr.shape[1])]
        ).reshape(arr.shape[0], arr.shape[1])  # fmt: skip
        return _of_matrix(scores, tuple(str(j) for j in range(arr.shape[1])))
    pair = paired_arrays(x, y, None, "concordance_correlation")
    return concordance_of_scores(np.column_stack([pair.x, pair.y]), ("x", "y"))


def _of_matrix(scores: FloatArray, raters: tuple[str, ...]) -> ConcordanceCorrelation:
    if scores.shape[1] < 2:
        raise InvalidInputError(
            f"concordance_correlation compares raters; got {scores.shape[1]} rater"
        )
    complete = ~np.isnan(scores).any(axis=1)
    left_out = int((~complete).sum())
    if left_out:
        warnings.warn(
            f"concordance_correlation uses complete items only: {left_out} of "
            f"{scores.shape[0]} items lack a score from some rater and were left out",
            DroppedDataWarning,
            stacklevel=3,
        )
    return concordance_of_scores(scores[complete], raters)
