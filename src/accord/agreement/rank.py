"""Rank agreement: Kendall's coefficient of concordance W and the mean Spearman correlation.

Each rater's scores are ranked within the rater (average ranks for ties), so scores and ranks
give the same W. Complete designs use Kendall & Babington Smith's W (with the tie correction by
default); incomplete designs use the pairwise generalisation of irrNA's ``kendallNA``
(Kendall 1962, p. 95; Taylor 1987; Brueckl 2011).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal, Never

import numpy as np
import numpy.typing as npt

from .._errors import InvalidInputError, warn_degenerate
from .._interval import chi2_sf, f_sf
from .._methods import MethodsFormat, kendall_methods
from .._results import Result, plain_fields
from .._types import FloatArray
from .._validate import check_choice
from ..data.ratings import Ratings
from ..data.source import refuse_read_options
from ..stats.scores import score_matrix

__all__ = ["KendallW", "RankMissing", "kendall_w", "mean_spearman"]

RankMissing = Literal["auto", "omit", "pairwise"]


@dataclasses.dataclass(frozen=True, slots=True)
class KendallW(Result):
    """Kendall's coefficient of concordance with its tests.

    Attributes
    ----------
    statistic : float
        W in [0, 1] (the pairwise form can fall below 0 when the mean correlation is below
        ``-1/(k - 1)``).
    chi_square, df : float, int
        ``m (n - 1) W`` (``k-bar`` in place of ``m`` in the pairwise form) and ``n - 1``.
    pvalue : float
        Upper tail of the chi-square test of no concordance.
    f_statistic, f_df1, f_df2, f_pvalue : float
        The F test ``(m - 1) W / (1 - W)`` on ``n - 1 - 2/m`` and ``(m - 1)(n - 1 - 2/m)``
        degrees of freedom (Kendall & Babington Smith 1939; Legendre 2005).
    mean_spearman : float
        Mean of the raters' pairwise Spearman correlations (weighted by ``n_jk - 1`` in the
        pairwise form).
    n_items, n_raters : int
        Items and raters used.
    mean_raters : float
        Raters per item (``m``, or its mean ``k-bar`` in the pairwise form).
    tie_sum : float
        ``sum (t^3 - t)`` over the tie groups of every rater (0 without ties).
    tie_corrected : bool
        Whether the denominator of W was corrected for ties.
    method : str
        The variant in words.
    reason : str or None
        Why W is NaN, when it is.
    """

    statistic: float
    chi_square: float
    df: int
    pvalue: float
    f_statistic: float
    f_df1: float
    f_df2: float
    f_pvalue: float
    mean_spearman: float
    n_items: int
    n_raters: int
    mean_raters: float
    tie_sum: float
    tie_corrected: bool
    method: str
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dict of the fields."""
        return plain_fields(self)

    def methods_text(self, format: MethodsFormat = "text") -> str:
        """A methods paragraph with its references (``format``: ``"text"`` or
        ``"markdown"``)."""
        return kendall_methods(self, format)


def _matrix(data: Ratings | npt.ArrayLike, owner: str) -> FloatArray:
    if isinstance(data, Ratings):
        return score_matrix(data, owner)
    try:
        y = np.asarray(data, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{owner} needs numeric scores or ranks (items x raters)") from None
    if y.ndim != 2 or y.shape[0] < 1 or y.shape[1] < 1:
        raise InvalidInputError(f"{owner} needs an items x raters array; got shape {y.shape}")
    if np.isinf(y).any():
        raise InvalidInputError(f"{owner}: scores must be finite (NaN marks a missing score)")
    return y


def _ranks(column: FloatArray) -> FloatArray:
    """Average ranks of one rater's scores (shape (n,), no NaN)."""
    from scipy.stats import rankdata

    out: FloatArray = rankdata(column, method="average")
    return out


def _tie_sum(ranks: FloatArray) -> float:
    """``sum (t^3 - t)`` over the tie groups of each column of ``ranks`` (shape (n, m))."""
    total = 0.0
    for column in ranks.T:
        _, t = np.unique(column, return_counts=True)
        total += float(np.sum(t.astype(np.float64) ** 3 - t))
    return total


def _pearson(x: FloatArray, y: FloatArray) -> float:
    dx, dy = x - x.mean(), y - y.mean()
    den = math.sqrt(float(dx @ dx) * float(dy @ dy))
    return float(dx @ dy) / den if den > 0 else math.nan


def _pairwise_rhos(y: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Spearman correlations of the raters' pairwise-complete scores (ranked within each
    pair's common items) and their weights ``n_jk - 1`` (at least 0): shape (pairs,)."""
    m = y.shape[1]
    seen = ~np.isnan(y)
    rhos, weights = [], []
    for j in range(m):
        for k in range(j):
            both = seen[:, j] & seen[:, k]
            n_jk = int(both.sum())
            rho = _pearson(_ranks(y[both, j]), _ranks(y[both, k])) if n_jk > 1 else math.nan
            rhos.append(0.0 if math.isnan(rho) else rho)
            weights.append(max(n_jk - 1, 0))
    return np.asarray(rhos, dtype=np.float64), np.asarray(weights, dtype=np.float64)


def mean_spearman(
    data: Ratings | npt.ArrayLike,
    **read_options: Never,
) -> float:
    r"""Mean of the raters' pairwise Spearman correlations on the items all of them scored.

    .. math:: \bar r_S = \frac{2}{m(m-1)} \sum_{j<k} r_S(j, k) = \frac{m W - 1}{m - 1}

    (the identity is exact without ties and with W uncorrected for ties).

    Parameters
    ----------
    data : Ratings or array_like of shape (n_items, n_raters)
        Scores or ranks; items with a missing score are left out.

    Returns
    -------
    float
        The mean correlation (NaN when a rater gave every item the same score).

    References
    ----------
    .. [1] Kendall, M. G., & Babington Smith, B. (1939). The problem of m rankings. The Annals of
       Mathematical Statistics, 10(3), 275-287. https://doi.org/10.1214/aoms/1177732186

    Examples
    --------
    Three raters ranking four items, untied:

    >>> x = [[1, 2, 1], [2, 1, 3], [3, 3, 2], [4, 4, 4]]
    >>> w = kendall_w(x).statistic
    >>> round(mean_spearman(x), 6), round((3 * w - 1) / 2, 6)
    (0.666667, 0.666667)
    """
    refuse_read_options("mean_spearman", read_options)
    y = _matrix(data, "mean_spearman")
    y = y[~np.isnan(y).any(axis=1)]
    ranks = np.column_stack([_ranks(c) for c in y.T]) if y.size else y
    m = y.shape[1]
    vals = [_pearson(ranks[:, j], ranks[:, k]) for j in range(m) for k in range(j)]
    return float(np.mean(vals)) if vals else math.nan


def _f_test(w: float, m: float, n: int) -> tuple[float, float, float, float]:
    df1 = n - 1 - 2.0 / m
    df2 = (m - 1.0) * df1
    if not (w < 1.0) or df1 <= 0 or df2 <= 0:
        return math.nan, df1, df2, math.nan
    f = (m - 1.0) * w / (1.0 - w)
    return f, df1, df2, f_sf(f, df1, df2) if f >= 0 else 1.0


def _complete(y: FloatArray, correct_ties: bool) -> dict[str, Any]:
    n, m = y.shape
    ranks = np.column_stack([_ranks(c) for c in y.T])
    sums = ranks.sum(axis=1)
    s = float(np.sum((sums - sums.mean()) ** 2))
    ties = _tie_sum(ranks)
    den = m * m * (n**3 - n) - (m * ties if correct_ties else 0.0)
    w = 12.0 * s / den if den > 0 else math.nan
    rho = [_pearson(ranks[:, j], ranks[:, k]) for j in range(m) for k in range(j)]
    tied = "corrected for ties" if correct_ties else "not corrected for ties"
    return dict(
        w=w,
        m=float(m),
        rho=float(np.mean(rho)),
        ties=ties,
        method=f"Kendall's W on ranks within rater (average ranks), {tied}",
        reason=None if den > 0 else "every rater gave every item the same rank",
    )


def _pairwise(y: FloatArray) -> dict[str, Any]:
    keep = (~np.isnan(y)).sum(axis=0) > 1
    y = y[:, keep]
    rhos, weights = _pairwise_rhos(y)
    total = float(weights.sum())
    per_item = (~np.isnan(y)).sum(axis=1).astype(np.float64)
    k_bar = float(per_item.mean())
    rho = float(rhos @ weights) / total if total > 0 else math.nan
    return dict(
        w=(1.0 + rho * (k_bar - 1.0)) / k_bar if k_bar > 0 else math.nan,
        m=k_bar,
        rho=rho,
        ties=sum(_tie_sum(_ranks(c[~np.isnan(c)])[:, None]) for c in y.T),
        method=(
            "Kendall's W from the mean pairwise Spearman correlation, weighted by n_jk - 1 "
            "(irrNA kendallNA): W = (1 + r(k - 1)) / k, k the mean raters per item"
        ),
        reason=None if total > 0 else "no two raters share two items",
        n_raters=int(y.shape[1]),
    )


def kendall_w(
    data: Ratings | npt.ArrayLike,
    *,
    correct_ties: bool = True,
    missing: RankMissing = "auto",
    **read_options: Never,
) -> KendallW:
    r"""Kendall's coefficient of concordance W among raters ranking the same items.

    With ``R_i`` the sum of item ``i``'s ranks over the ``m`` raters (each rater's scores
    ranked over the ``n`` items, average ranks for ties) and ``S = sum (R_i - mean R)^2``:

    .. math::

        W = \frac{12 S}{m^2 (n^3 - n) - m \sum T}, \quad
        \chi^2 = m (n - 1) W \sim \chi^2_{n-1}, \quad
        F = \frac{(m - 1) W}{1 - W} \sim F_{n - 1 - 2/m,\ (m-1)(n - 1 - 2/m)}

    ``T = t^3 - t`` for each group of ``t`` tied ranks of a rater (left out with
    ``correct_ties=False``). The mean Spearman correlation is ``(m W - 1) / (m - 1)``
    without ties.

    Parameters
    ----------
    data : Ratings or array_like of shape (n_items, n_raters)
        Scores or ranks (ranked within each rater either way); NaN marks a missing score.
    correct_ties : bool, default True
        Correct the denominator for tied ranks (irr's ``kendall(correct=TRUE)``).
    missing : {"auto", "omit", "pairwise"}, default "auto"
        ``"omit"``: items with a missing score are left out (irr's ``na.omit``).
        ``"pairwise"``: every score is used, by the mean of the raters' pairwise Spearman
        correlations weighted by ``n_jk - 1`` (their common items less one; Taylor 1987),
        and ``W = (1 + r (k - 1)) / k`` with ``k`` the mean number of scores per item
        (Kendall 1962, p. 95; irrNA's ``kendallNA``); raters with fewer than two scores are
        left out. ``"auto"``: pairwise when a score is missing, else the complete formula.

    Returns
    -------
    KendallW
        ``statistic``, the chi-square and F tests, ``mean_spearman``, the sizes, the tie sum
        and ``method``.

    Raises
    ------
    InvalidInputError
        Non-numeric or infinite scores, not a 2-D array, or an unknown option.

    Notes
    -----
    The pairwise form has no tie correction of W itself: ties enter through the Spearman
    correlations of average ranks (as in irrNA), so on complete tied data it differs from the
    tie-corrected W. A pair of raters whose correlation is undefined (a constant rater)
    counts as a correlation of 0 with its weight, as irrNA does.

    References
    ----------
    .. [1] Kendall, M. G., & Babington Smith, B. (1939). The problem of m rankings. The
       Annals of Mathematical Statistics, 10(3), 275-287.
       https://doi.org/10.1214/aoms/1177732186
    .. [2] Legendre, P. (2005). Species associations: the Kendall coefficient of concordance
       revisited. Journal of Agricultural, Biological and Environmental Statistics, 10(2),
       226-245. https://doi.org/10.1198/108571105X46642
    .. [3] Taylor, J. M. G. (1987). Kendall's and Spearman's correlation coefficients in the
       presence of a blocking variable. Biometrics, 43(2), 409-416.
       https://doi.org/10.2307/2531822
    .. [4] Brueckl, M., & Heuer, F. (2022). irrNA: Coefficients of interrater reliability,
       generalized for randomly incomplete datasets. R package.

    Examples
    --------
    Three raters ranking four items (rank sums 4, 6, 8, 12; S = 35): W = 12 * 35 /
    (9 * 60) = 7/9 and chi-square(3) = 7:

    >>> res = kendall_w([[1, 2, 1], [2, 1, 3], [3, 3, 2], [4, 4, 4]])
    >>> round(res.statistic, 4), round(res.chi_square, 4), res.df, round(res.pvalue, 4)
    (0.7778, 7.0, 3, 0.0719)

    With a score missing, every score is used by the pairwise form (irrNA's ``kendallNA``):

    >>> res = kendall_w([[1, 2, 1], [2, None, 3], [3, 3, 2], [4, 4, 4]])
    >>> res.method.split(",")[0], round(res.mean_raters, 2)
    ("Kendall's W from the mean pairwise Spearman correlation", 2.75)
    """
    refuse_read_options("kendall_w", read_options)
    check_choice("missing", missing, ("auto", "omit", "pairwise"), "kendall_w")
    y = _matrix(data, "kendall_w")
    gaps = bool(np.isnan(y).any())
    if missing == "pairwise" or (missing == "auto" and gaps):
        parts = _pairwise(y)
        n, m_raters, corrected = y.shape[0], int(parts.pop("n_raters")), False
    else:
        y = y[~np.isnan(y).any(axis=1)]
        if y.shape[0] < 2 or y.shape[1] < 2:
            raise InvalidInputError(
                "kendall_w needs at least 2 items scored by every rater and 2 raters; got "
                f"{y.shape[0]} complete items x {y.shape[1]} raters (pass missing='pairwise')"
            )
        parts = _complete(y, correct_ties)
        n, m_raters, corrected = y.shape[0], y.shape[1], correct_ties
    w, m = parts["w"], parts["m"]
    if parts["reason"]:
        warn_degenerate(parts["reason"], stacklevel=2)
    chi = m * (n - 1) * w
    f, df1, df2, fp = _f_test(w, m, n)
    return KendallW(
        statistic=w,
        chi_square=chi,
        df=n - 1,
        pvalue=chi2_sf(chi, n - 1) if math.isfinite(chi) else math.nan,
        f_statistic=f,
        f_df1=df1,
        f_df2=df2,
        f_pvalue=fp,
        mean_spearman=parts["rho"],
        n_items=n,
        n_raters=m_raters,
        mean_raters=m,
        tie_sum=parts["ties"],
        tie_corrected=corrected,
        method=parts["method"],
        reason=parts["reason"],
    )
