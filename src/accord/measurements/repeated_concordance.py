"""The concordance correlation coefficient of methods that measured every subject several
times, from the variance components (Carrasco & Jover 2003), with a jackknife interval over
subjects."""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Mapping
from typing import Any, Never

import numpy as np
import numpy.typing as npt

from .._errors import InvalidInputError, warn_degenerate
from .._interval import ConfidenceInterval, check_confidence_level, t_quantile
from .._results import Record
from .._types import FloatArray
from ..data.ratings import Ratings
from ..data.source import refuse_read_options
from ..stats.scores import score_matrix
from ._input import numeric_vector, subject_of_items
from ._two_way_reml import CellSums, cell_sums, two_way_reml

__all__ = ["RepeatedConcordance", "concordance_of_replicates", "repeated_concordance"]


@dataclasses.dataclass(frozen=True, slots=True)
class RepeatedConcordance(Record):
    """The CCC of ``k`` methods with replicates of each subject and method.

    Attributes
    ----------
    statistic : float
        ``s_a / (s_a + s_ab + s_b + s_e)``.
    between_subjects, subject_method, within : float
        The variance components ``s_a`` (subjects), ``s_ab`` (subject by method) and
        ``s_e`` (replicates).
    between_methods : float
        ``s_b``, the spread of the method means (unbiased, floored at 0).
    standard_error : float
        The jackknife SE over subjects of the CCC.
    ci : ConfidenceInterval
        The jackknife interval over subjects on Fisher's z scale, at ``confidence_level``.
    confidence_level : float
    n_subjects, n_methods : int
    n_replicates : int
        Replicates per subject and method when the design is balanced; the most in one
        cell otherwise.
    n_measurements : int
    balanced : bool
        Whether every method measured every subject the same number of times.
    method : str
    reason : str or None
    """

    statistic: float
    between_subjects: float
    subject_method: float
    within: float
    between_methods: float
    n_subjects: int
    n_methods: int
    n_replicates: int
    method: str
    reason: str | None
    standard_error: float
    ci: ConfidenceInterval
    confidence_level: float
    n_measurements: int
    balanced: bool

    def _headline(self) -> str:
        return (
            f"repeated-measures CCC = {self.statistic:.4g} ({self.confidence_level:.0%} CI "
            f"{self.ci.low:.4g} to {self.ci.high:.4g})"
        )


@dataclasses.dataclass(frozen=True, slots=True)
class _Components:
    s_a: float
    s_ab: float
    s_e: float
    s_b: float
    ccc: float
    theta: tuple[float, float]


def _cells(
    values: npt.ArrayLike, subject: npt.ArrayLike, method: npt.ArrayLike
) -> tuple[CellSums, int]:
    """The sums of each (subject, method) cell, and the replicates per cell of a balanced
    design (0 when unbalanced)."""
    y = numeric_vector(values, "values", "repeated_concordance")
    subj, meth = np.asarray(subject, dtype=object), np.asarray(method, dtype=object)
    if not (subj.shape == meth.shape == y.shape):
        raise InvalidInputError(
            f"repeated_concordance: values, subject and method must have one entry per "
            f"measurement; got {y.size}, {subj.size} and {meth.size}"
        )
    keep = ~np.isnan(y)
    y, subj, meth = y[keep], subj[keep], meth[keep]
    _, s_code = np.unique(subj.astype(str), return_inverse=True)
    _, m_code = np.unique(meth.astype(str), return_inverse=True)
    n, k = int(s_code.max(initial=-1)) + 1, int(m_code.max(initial=-1)) + 1
    # centred: the sums of squares of the cells then lose no digits to a large mean
    cells = cell_sums(y - (y.mean() if y.size else 0.0), s_code, m_code, n, k)
    counts = cells.count
    if k < 2 or n < 3 or not np.any(counts >= 2):
        raise InvalidInputError(
            "repeated_concordance needs at least 3 subjects and 2 methods, and some method "
            f"measuring some subject at least twice; got {n} subjects, {k} methods, at most "
            f"{int(counts.max(initial=0))} measurements per subject and method"
        )
    r = int(counts.flat[0])
    return cells, r if r >= 2 and np.all(counts == r) else 0


def _balanced(cells: CellSums, r: int) -> tuple[float, float, float, FloatArray, FloatArray]:
    """The ANOVA moments of a balanced design (its REML estimates, a negative subject by
    method component set to 0 with its sum of squares pooled with the replicates', as REML
    does on the boundary): ``s_a``, ``s_ab``, ``s_e``, the method means and their
    covariance."""
    n, k = cells.count.shape
    cell = cells.total / r
    subj, meth, grand = cell.mean(axis=1), cell.mean(axis=0), float(cell.mean())
    ss_e = float((cells.squares - cells.total * cell).sum())
    ss_ab = r * float(((cell - subj[:, None] - meth[None, :] + grand) ** 2).sum())
    ss_a = k * r * float(((subj - grand) ** 2).sum())
    df_e, df_ab, df_a = n * k * (r - 1), (n - 1) * (k - 1), n - 1
    ms_e, ms_ab, ms_a = ss_e / df_e, ss_ab / df_ab, ss_a / df_a
    s_ab = (ms_ab - ms_e) / r
    if s_ab < 0:  # on the boundary: pooled, as REML does
        s_ab, s_e = 0.0, (ss_ab + ss_e) / (df_ab + df_e)
        inner = s_e
    else:
        s_e, inner = ms_e, ms_ab
    s_a = (ms_a - inner) / (k * r)
    cov = np.full((k, k), s_a / n) + np.eye(k) * (s_ab / n + s_e / (n * r))
    return s_a, s_ab, s_e, meth, cov


def _components(
    cells: CellSums, r: int, start: tuple[float, float], warm: bool = False
) -> _Components:
    """The variance components and the CCC: closed-form on a balanced design, the REML fit
    otherwise (from ``start``, the ratios to ``s_e``; ``warm``: from it alone)."""
    if r:
        s_a, s_ab, s_e, means, cov = _balanced(cells, r)
    else:
        fit = two_way_reml(cells, start, warm)
        s_a, s_ab, s_e = fit.between_subjects, fit.subject_method, fit.within
        means, cov = fit.means, fit.means_cov
    s_a = max(s_a, 0.0)
    k = means.size
    pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
    spread = sum((means[a] - means[b]) ** 2 - (cov[a, a] + cov[b, b] - 2 * cov[a, b])
                 for a, b in pairs)  # fmt: skip
    s_b = max(float(spread) / (k * (k - 1)), 0.0)
    total = s_a + s_ab + s_b + s_e
    theta = (s_a / s_e, s_ab / s_e) if s_e > 0 else (1.0, 1.0)
    return _Components(s_a, s_ab, s_e, s_b, s_a / total if total > 0 else math.nan, theta)


def _jackknife(
    cells: CellSums, r: int, full: _Components, level: float
) -> tuple[float, ConfidenceInterval]:
    """The jackknife over subjects: the SE of the CCC from the pseudo-values, and the
    interval ``tanh(z -+ t(n - 1) se_z)`` of Fisher's ``z = atanh(CCC)``."""
    n = cells.count.shape[0]
    loo = np.empty(n)
    for i in range(n):
        keep = np.arange(n) != i
        part = CellSums(cells.count[keep], cells.total[keep], cells.squares[keep])
        loo[i] = _components(part, r, full.theta, warm=True).ccc
    se = float(np.std(n * full.ccc - (n - 1) * loo, ddof=1) / math.sqrt(n))
    with np.errstate(divide="ignore", invalid="ignore"):
        z, z_loo = np.arctanh(full.ccc), np.arctanh(loo)
        se_z = float(np.std(n * z - (n - 1) * z_loo, ddof=1) / math.sqrt(n))
    half = t_quantile(0.5 + level / 2.0, n - 1) * se_z
    if not (math.isfinite(float(z)) and math.isfinite(half)):
        return se, ConfidenceInterval(math.nan, math.nan)
    return se, ConfidenceInterval(math.tanh(float(z) - half), math.tanh(float(z) + half))


def repeated_concordance(
    values: npt.ArrayLike,
    subject: npt.ArrayLike,
    method: npt.ArrayLike,
    *,
    confidence_level: float = 0.95,
    **read_options: Never,
) -> RepeatedConcordance:
    r"""The concordance correlation coefficient of methods that measured every subject
    several times, from the variance components (Carrasco & Jover 2003), with a jackknife
    interval over subjects.

    Under :math:`y_{ijl} = \mu + \alpha_i + \beta_j + (\alpha\beta)_{ij} + e_{ijl}`
    (subject :math:`i`, method :math:`j`, replicate :math:`l`; :math:`\alpha`,
    :math:`\alpha\beta` and :math:`e` random with variances :math:`\sigma^2_\alpha`,
    :math:`\sigma^2_{\alpha\beta}`, :math:`\sigma^2_e`),

    .. math::

        \mathrm{CCC} = \frac{\sigma^2_\alpha}
        {\sigma^2_\alpha + \sigma^2_{\alpha\beta} + \sigma^2_\beta + \sigma^2_e},
        \qquad
        \sigma^2_\beta = \frac{\sum_{j < j'} (\hat\beta_j - \hat\beta_{j'})^2
        - \operatorname{Var}(\hat\beta_j - \hat\beta_{j'})}{k (k - 1)}

    (floored at 0). The components are the REML estimates: on a balanced design the ANOVA
    moments, with a negative subject-by-method component set to 0 and its sum of squares
    pooled with the replicates' (as REML does on the boundary); on an unbalanced one
    (different numbers of replicates, or a method missing a subject) the REML fit itself,
    :math:`\hat\beta` its generalised least-squares means and their covariance.

    Parameters
    ----------
    values, subject, method : array_like of shape (N,)
        One row per measurement (long format); NaN values are left out. Some method must
        measure some subject at least twice (the replicates give :math:`\sigma^2_e`).
    confidence_level : float, default 0.95
        Of the jackknife interval.

    Returns
    -------
    RepeatedConcordance

    Raises
    ------
    InvalidInputError
        Arrays of different lengths, non-numeric values, fewer than 3 subjects or 2
        methods, no replicates, a bad ``confidence_level``.

    Notes
    -----
    The estimates equal those of R cccrm's ``ccc_vc`` (an ``nlme::lme`` REML fit with a
    random subject intercept and an identity subject-by-method block), and of the same
    model fitted by statsmodels' ``MixedLM`` (a variance component for the subject by
    method cells).

    The interval is a jackknife over subjects, the unit sampled: the CCC is computed
    without each subject in turn, and the pseudo-values of Fisher's
    :math:`z = \operatorname{atanh}(\mathrm{CCC})` (Lin 1989) give
    :math:`\tanh(z \mp t_{n-1} s_z / \sqrt n)`. cccrm's ``ccc_vc`` gives a delta-method
    interval from the REML information instead; the jackknife needs no normality of the
    components.

    References
    ----------
    .. [1] Carrasco, J. L., & Jover, L. (2003). Estimating the generalized concordance
       correlation coefficient through variance components. Biometrics, 59(4), 849-858.
       https://doi.org/10.1111/j.0006-341X.2003.00099.x
    .. [2] Carrasco, J. L., King, T. S., & Chinchilli, V. M. (2009). The concordance
       correlation coefficient for repeated measures estimated by variance components.
       J. Biopharm. Stat., 19(1), 90-105. https://doi.org/10.1080/10543400802527890
    .. [3] Lin, L. I.-K. (1989). A concordance correlation coefficient to evaluate
       reproducibility. Biometrics, 45(1), 255-268. https://doi.org/10.2307/2532051

    Examples
    --------
    >>> import accord
    >>> ccc = accord.repeated_concordance(
    ...     [10, 11, 10, 12, 20, 21, 22, 21, 15, 14, 16, 16],
    ...     [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3],
    ...     ["a", "a", "b", "b"] * 3)
    >>> round(ccc.statistic, 4)
    0.9644
    """
    refuse_read_options("repeated_concordance", read_options, "measurements")
    level = check_confidence_level(confidence_level, "repeated_concordance")
    cells, r = _cells(values, subject, method)
    full = _components(cells, r, (1.0, 1.0))
    reason = None
    if full.s_a == 0.0:
        reason = "the subjects vary less than the replicates: the between-subject variance is 0"
        warn_degenerate(f"repeated_concordance: {reason}", stacklevel=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        se, ci = _jackknife(cells, r, full, level)
    n, k = cells.count.shape
    fit = "ANOVA moments, REML on the balanced design" if r else "REML (unbalanced design)"
    return RepeatedConcordance(
        statistic=full.ccc,
        between_subjects=full.s_a,
        subject_method=full.s_ab,
        within=full.s_e,
        between_methods=full.s_b,
        n_subjects=int(n),
        n_methods=int(k),
        n_replicates=int(r or cells.count.max()),
        method="CCC from the variance components of a two-way random-effects model "
        f"(subject, subject by method; method fixed), {fit} (Carrasco & Jover 2003); "
        f"jackknife {level:.0%} interval over subjects on Fisher's z",
        reason=reason,
        standard_error=se,
        ci=ci,
        confidence_level=level,
        n_measurements=int(cells.count.sum()),
        balanced=bool(r),
    )


def concordance_of_replicates(
    ratings: Ratings,
    subject: Mapping[Any, Any] | npt.ArrayLike,
    *,
    confidence_level: float = 0.95,
) -> RepeatedConcordance:
    """:func:`repeated_concordance` of raters' numeric scores whose items are replicate
    measurements: ``subject`` gives each item's subject (a mapping of item to subject, or
    one id per item in the order of ``ratings.items``), the raters are the methods.

    Examples
    --------
    >>> import accord
    >>> import pandas as pd
    >>> r = accord.Ratings.from_long(pd.DataFrame(
    ...     {"item": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6],
    ...      "rater": ["a", "b"] * 6,
    ...      "score": [10, 10, 11, 12, 20, 22, 21, 21, 15, 16, 14, 16]}),
    ...     item="item", rater="rater", label="score", level="interval")
    >>> res = concordance_of_replicates(r, {1: "s1", 2: "s1", 3: "s2", 4: "s2", 5: "s3",
    ...                                     6: "s3"})
    >>> res.n_subjects, res.n_methods, res.n_measurements
    (3, 2, 12)
    """
    owner = "repeated_concordance"
    scores = score_matrix(ratings, owner)
    subjects = subject_of_items(ratings, subject, owner)
    if subjects is None:
        raise InvalidInputError(f"{owner}: give subject=, the subject of each item")
    item, rater = np.nonzero(~np.isnan(scores))
    names = np.asarray([str(r) for r in ratings.raters.tolist()], dtype=object)
    return repeated_concordance(
        scores[item, rater], subjects[item], names[rater], confidence_level=confidence_level
    )
