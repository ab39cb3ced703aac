"""Marginal homogeneity of two raters' table: does one rater use a label more than the other?

Stuart (1955) and Maxwell (1970) test that the row and column marginals of a q x q table of
paired labels are equal; with two categories it is McNemar's (1947) test. Bhapkar's (1966)
variant estimates the covariance without the null hypothesis.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any, Literal, Never

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError, warn_degenerate
from .._interval import chi2_sf
from .._results import Result, plain_fields
from .._types import FloatArray
from .._validate import check_choice
from ..data.source import refuse_read_options
from .two_raters import TwoRaterData, as_table

__all__ = ["MarginalHomogeneity", "marginal_homogeneity"]

HomogeneityMethod = Literal["stuart_maxwell", "bhapkar"]


@dataclasses.dataclass(frozen=True, slots=True)
class MarginalHomogeneity(Result):
    """The test that two raters' label distributions (the table's marginals) are equal.

    Attributes
    ----------
    statistic : float
        The chi-square statistic (McNemar's exact test: the smaller discordant count).
    df : int
        Degrees of freedom: the tested categories (see ``left_out``) minus one, the rank of
        the covariance of the marginal differences when the test is defined.
    pvalue : float
        The p-value (chi-square reference; exact binomial for McNemar's exact test).
    method : str
        ``"stuart_maxwell"``, ``"bhapkar"``, ``"mcnemar"`` or ``"mcnemar_exact"``.
    differences : pandas.Series
        Column minus row marginal of each category (counts): positive where the column
        rater uses the category more often.
    n : int
        Items in the table.
    categories : tuple
        The categories used by either rater (the others are left out of the test).
    reason : str or None
        Why the statistic is NaN, when it is.
    left_out : tuple
        Used categories left out of the test because both raters gave them to the same
        items and to no other (only on the diagonal): they add nothing to the marginal
        differences and a zero row and column to their covariance (Maxwell 1970).
    """

    statistic: float
    df: int
    pvalue: float
    method: str
    differences: Any
    n: int
    categories: tuple[Any, ...]
    reason: str | None = None
    left_out: tuple[Any, ...] = ()

    def _headline(self) -> str:
        if self.reason:
            return f"{self.method}: undefined ({self.reason})"
        test = f"{self.method} chi2 = {self.statistic:.4g}, df = {self.df}, p = {self.pvalue:.4g}"
        if not self.left_out:
            return test
        listed = ", ".join(str(c) for c in self.left_out)
        return f"{test}; left out: {listed} (diagonal only)"

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the fields (``differences`` as ``{category: difference}``)."""
        out = plain_fields(self)
        out["differences"] = {str(k): float(v) for k, v in self.differences.items()}
        return out


def _mcnemar(counts: FloatArray, exact: bool) -> tuple[float, float, str | None]:
    """McNemar's statistic and p-value from the two discordant cells."""
    b, c = float(counts[0, 1]), float(counts[1, 0])
    if exact:
        from scipy import stats

        k = min(b, c)
        p = float(stats.binomtest(round(k), round(b + c), 0.5).pvalue)
        return k, min(p, 1.0), None
    chi2 = (b - c) ** 2 / (b + c)
    return chi2, chi2_sf(chi2, 1), None


def _stuart_maxwell(
    counts: FloatArray, method: str, n: float
) -> tuple[float, float, str | None, int]:
    """The chi-square statistic of the marginal differences, its p-value and its degrees of
    freedom.

    ``counts``: the tested categories' q x q block of a table of ``n`` items (a category
    left out has no count off the diagonal, so the block's marginals are the table's). The
    differences of each group of categories confused with one another (a connected
    component of the off-diagonal counts) sum to 0, so one category of each group is
    dropped: the test is on q minus the number of groups degrees of freedom, the rank of
    the covariance (q - 1 when every category is confused with another, directly or not)."""
    from scipy.sparse.csgraph import connected_components

    p = counts / n
    off = p - np.diag(np.diag(p))
    n_groups, group = connected_components(off + off.T > 0, directed=False)
    last = np.zeros(p.shape[0], dtype=bool)
    last[[int(np.flatnonzero(group == g)[-1]) for g in range(n_groups)]] = True
    keep = ~last
    row, col = p.sum(axis=1)[keep], p.sum(axis=0)[keep]
    inner = p[np.ix_(keep, keep)]
    d = col - row
    v = -(inner + inner.T)
    diag = row + col - 2.0 * np.diag(inner)
    if method == "bhapkar":
        v -= np.outer(d, d)
        diag = diag - d**2
    np.fill_diagonal(v, diag)
    if np.linalg.matrix_rank(v) < v.shape[0]:
        return (
            math.nan,
            math.nan,
            "the covariance of the marginal differences is singular",
            int(d.size),
        )
    statistic = float(n * d @ np.linalg.solve(v, d))
    return statistic, chi2_sf(statistic, d.size), None, int(d.size)


def marginal_homogeneity(
    data: TwoRaterData,
    y: npt.ArrayLike | None = None,
    /,
    *,
    method: HomogeneityMethod = "stuart_maxwell",
    exact: bool = False,
    categories: Sequence[Any] | None = None,
    raters: tuple[Any, Any] | None = None,
    **read_options: Never,
) -> MarginalHomogeneity:
    r"""Test that two raters use the labels equally often: Stuart-Maxwell, or McNemar.

    With :math:`d` the differences of the column and row marginal proportions of the first
    :math:`q - 1` categories and :math:`V` their covariance,

    .. math::

        \chi^2 = n\, d^\top V^{-1} d, \quad V_{kk} = p_{k\cdot} + p_{\cdot k} - 2 p_{kk},
        \quad V_{kl} = -(p_{kl} + p_{lk}),

    on :math:`q - 1` degrees of freedom, :math:`q` the categories tested (Stuart 1955;
    Maxwell 1970; see Notes). Bhapkar's (1966)
    variant subtracts :math:`d d^\top` from :math:`V` (the unrestricted covariance). With two
    categories the Stuart-Maxwell statistic is McNemar's :math:`(b - c)^2 / (b + c)`, and
    ``exact=True`` gives McNemar's exact binomial test.

    Parameters
    ----------
    data : ContingencyTable, Ratings, array_like of shape (q, q), or labels of shape (n,)
        The two raters' table (rows rater X, columns rater Y), as :func:`accord.cohen_kappa`
        takes it.
    y : array_like of shape (n,), optional
        Rater Y's labels, aligned with ``data``.
    method : {"stuart_maxwell", "bhapkar"}, default "stuart_maxwell"
        The covariance of the marginal differences: under the null hypothesis, or not.
    exact : bool, default False
        Two categories: McNemar's exact binomial test of the discordant pairs.
    categories : sequence, optional
        The category domain (arrays and label vectors).
    raters : pair, optional
        Which two raters of a :class:`~accord.Ratings`.

    Returns
    -------
    MarginalHomogeneity
        ``statistic``, ``df``, ``pvalue``, ``method``, the marginal ``differences`` of every
        used category, ``n``, ``categories``, ``reason``.

    Raises
    ------
    InvalidInputError
        An unknown ``method``, ``exact=True`` with more than two categories, or a table
        :func:`accord.cohen_kappa` would refuse.

    Notes
    -----
    Categories that neither rater used are left out (they carry no information and make
    :math:`V` singular). So is a category both raters gave only to the same items (used
    only on the diagonal): its marginal difference is 0 and its row and column of
    :math:`V` are 0, so dropping it, as Maxwell (1970) does, gives the test on
    :math:`\operatorname{rank}(V)` degrees of freedom; ``left_out`` names it. Its items
    stay in :math:`n`, which only Bhapkar's :math:`d d^\top` term feels. Only such
    categories are dropped: R's ``irr::stuart.maxwell.mh`` also drops categories whose
    two marginals are merely equal, and statsmodels and DescTools keep :math:`q - 1`
    degrees of freedom (and return NaN). When the categories fall into groups never
    confused with each other, the marginal differences of each group sum to 0: one category
    of each group is dropped and the test is on :math:`q` minus the number of groups degrees
    of freedom (the rank of :math:`V`; for Stuart-Maxwell the sum of the groups' own
    tests). When the raters never disagree the statistic is NaN with the reason and a
    :class:`~accord.DegenerateDataWarning`.

    References
    ----------
    .. [1] Stuart, A. (1955). A test for homogeneity of the marginal distributions in a
       two-way classification. Biometrika 42(3/4), 412-416. https://doi.org/10.2307/2333387
    .. [2] Maxwell, A. E. (1970). Comparing the classification of subjects by two independent
       judges. British Journal of Psychiatry 116, 651-655. https://doi.org/10.1192/bjp.116.535.651
    .. [3] Bhapkar, V. P. (1966). A note on the equivalence of two test criteria for
       hypotheses in categorical data. JASA 61(313), 228-235.
       https://doi.org/10.1080/01621459.1966.10502021
    .. [4] McNemar, Q. (1947). Note on the sampling error of the difference between
       correlated proportions or percentages. Psychometrika 12(2), 153-157.
       https://doi.org/10.1007/BF02295996

    Examples
    --------
    McNemar's test by hand: 10 items labelled yes by X only, 3 by Y only,
    :math:`(10 - 3)^2 / 13 = 3.769`:

    >>> res = marginal_homogeneity([[20, 10], [3, 17]])
    >>> res.method, round(res.statistic, 3), res.df
    ('mcnemar', 3.769, 1)

    irrCAC's abstractors table: the first category is given only when both agree, so the
    test is McNemar's on the other two, :math:`(7 - 4)^2 / 11 = 0.818` on 1 df:

    >>> res = marginal_homogeneity([[13, 0, 0], [0, 20, 7], [0, 4, 56]])
    >>> round(res.statistic, 3), res.df, round(res.pvalue, 3), res.left_out
    (0.818, 1, 0.366, (0,))
    """
    refuse_read_options("marginal_homogeneity", read_options)
    check_choice("method", method, ("stuart_maxwell", "bhapkar"), "marginal_homogeneity")
    table = as_table(data, y, categories=categories, raters=raters, owner="marginal_homogeneity")
    counts = table.counts
    used = (counts.sum(axis=0) + counts.sum(axis=1)) > 0
    counts = counts[np.ix_(used, used)]
    cats = tuple(c for c, u in zip(table.categories, used, strict=True) if u)
    q = counts.shape[0]
    if exact and (q != 2 or method != "stuart_maxwell"):
        raise InvalidInputError(
            f"marginal_homogeneity: exact=True is McNemar's test of two categories (method "
            f"'stuart_maxwell'); these raters used {q}, method {method!r}"
        )
    diff = pd.Series(counts.sum(axis=0) - counts.sum(axis=1), index=pd.Index(cats, dtype=object))
    off = counts - np.diag(np.diag(counts))
    tested = (off.sum(axis=0) + off.sum(axis=1)) > 0
    statistic, pvalue, reason, name, df = _test(counts, tested, method, exact)
    if reason:
        warn_degenerate(f"marginal_homogeneity: {reason}")
    left_out = tuple(c for c, t in zip(cats, tested, strict=True) if not t)
    return MarginalHomogeneity(
        statistic=statistic,
        df=df,
        pvalue=pvalue,
        method=name,
        differences=diff,
        n=round(table.n),
        categories=cats,
        reason=reason,
        left_out=left_out if tested.any() else (),
    )


def _test(
    counts: FloatArray, tested: npt.NDArray[np.bool_], method: str, exact: bool
) -> tuple[float, float, str | None, str, int]:
    """Statistic, p-value, reason, method name and degrees of freedom of the used
    categories' table; the test runs on the ``tested`` categories (those given off the
    diagonal)."""
    q = counts.shape[0]
    mcnemar = q == 2 and method == "stuart_maxwell"
    name = ("mcnemar_exact" if exact else "mcnemar") if mcnemar else method
    df = max(int(tested.sum()) - 1, 0)
    if q < 2:
        return math.nan, math.nan, "both raters used one and the same label", name, df
    if not tested.any():
        never = "the two raters never disagree: no discordant pair to test"
        return math.nan, math.nan, never, name, df
    if mcnemar:
        return (*_mcnemar(counts, exact), name, df)
    block = counts[np.ix_(tested, tested)]
    statistic, pvalue, reason, df = _stuart_maxwell(block, method, float(counts.sum()))
    return statistic, pvalue, reason, method, df
