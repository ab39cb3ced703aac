"""The concordance correlation coefficient of methods that measured every subject several
times, from the variance components (Carrasco & Jover 2003)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Never

import numpy as np
import numpy.typing as npt

from .._errors import InvalidInputError, warn_degenerate
from .._results import Record
from ..data.source import refuse_read_options
from ._input import numeric_vector

__all__ = ["RepeatedConcordance", "repeated_concordance"]


@dataclasses.dataclass(frozen=True, slots=True)
class RepeatedConcordance(Record):
    """The CCC of ``k`` methods with ``r`` replicates per subject and method.

    Attributes
    ----------
    statistic : float
        ``s_a / (s_a + s_ab + s_b + s_e)``.
    between_subjects, subject_method, within : float
        The variance components ``s_a`` (subjects), ``s_ab`` (subject by method) and
        ``s_e`` (replicates).
    between_methods : float
        ``s_b``, the spread of the method means (unbiased, floored at 0).
    n_subjects, n_methods, n_replicates : int
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

    def _headline(self) -> str:
        return f"repeated-measures CCC = {self.statistic:.4g}"


def _cells(
    values: npt.ArrayLike, subject: npt.ArrayLike, method: npt.ArrayLike
) -> tuple[np.ndarray[Any, Any], int]:
    """The values as an array ``(n subjects, k methods, r replicates)``, and ``r``; the
    design must be balanced."""
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
    n, k = int(s_code.max()) + 1, int(m_code.max()) + 1
    counts = np.zeros((n, k), dtype=np.int64)
    np.add.at(counts, (s_code, m_code), 1)
    r = int(counts.flat[0])
    if k < 2 or n < 2 or r < 2 or np.any(counts != r):
        raise InvalidInputError(
            "repeated_concordance needs a balanced design: at least 2 subjects and 2 "
            "methods, every method measuring every subject the same number of times (at "
            f"least 2); got {n} subjects, {k} methods, {counts.min()} to {counts.max()} "
            "measurements per subject and method"
        )
    order = np.lexsort((m_code, s_code))
    return y[order].reshape(n, k, r), r


def repeated_concordance(
    values: npt.ArrayLike,
    subject: npt.ArrayLike,
    method: npt.ArrayLike,
    **read_options: Never,
) -> RepeatedConcordance:
    r"""The concordance correlation coefficient of methods that measured every subject
    ``r`` times, from the variance components (Carrasco & Jover 2003).

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

    (floored at 0). The components are the REML estimates, which in this balanced design
    are the ANOVA moments, with a negative subject-by-method component set to 0 and its
    sum of squares pooled with the replicates' (as REML does on the boundary).

    Parameters
    ----------
    values, subject, method : array_like of shape (N,)
        One row per measurement (long format); NaN values are left out, and the design
        that remains must be balanced: every method measures every subject ``r >= 2``
        times.

    Returns
    -------
    RepeatedConcordance

    Raises
    ------
    InvalidInputError
        Arrays of different lengths, non-numeric values, an unbalanced design.

    Notes
    -----
    The estimates equal those of R cccrm's ``ccc_vc`` (an ``nlme::lme`` REML fit with a
    random subject intercept and an identity subject-by-method block) on balanced data.
    No interval is given.

    References
    ----------
    .. [1] Carrasco, J. L., & Jover, L. (2003). Estimating the generalized concordance
       correlation coefficient through variance components. Biometrics, 59(4), 849-858.
       https://doi.org/10.1111/j.0006-341X.2003.00099.x
    .. [2] Carrasco, J. L., King, T. S., & Chinchilli, V. M. (2009). The concordance
       correlation coefficient for repeated measures estimated by variance components.
       J. Biopharm. Stat., 19(1), 90-105. https://doi.org/10.1080/10543400802527890

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
    y, r = _cells(values, subject, method)
    n, k, _ = y.shape
    cell = y.mean(axis=2)
    subj, meth, grand = cell.mean(axis=1), cell.mean(axis=0), float(cell.mean())
    ss_e = float(((y - cell[:, :, None]) ** 2).sum())
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
    reason = None
    if s_a < 0:
        reason = "the subjects vary less than the replicates: the between-subject variance is 0"
        warn_degenerate(f"repeated_concordance: {reason}", stacklevel=2)
        s_a = 0.0
    var_diff = 2.0 * (s_ab / n + s_e / (n * r))
    pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
    spread = sum((meth[a] - meth[b]) ** 2 - var_diff for a, b in pairs)
    s_b = max(float(spread) / (k * (k - 1)), 0.0)
    total = s_a + s_ab + s_b + s_e
    return RepeatedConcordance(
        statistic=s_a / total if total > 0 else math.nan,
        between_subjects=s_a,
        subject_method=s_ab,
        within=s_e,
        between_methods=s_b,
        n_subjects=n,
        n_methods=k,
        n_replicates=r,
        method="CCC from the variance components of a two-way random-effects model "
        "(subject, subject by method; method fixed), REML on the balanced design "
        "(Carrasco & Jover 2003)",
        reason=reason,
    )
