"""Two raters' agreement with items nested in clusters, and across strata.

Items often come in clusters (patients of one site, images of one reading session, lesions of
one patient): their ratings are not independent, and the usual standard errors are too small.
:func:`clustered_agreement` gives cluster-robust standard errors of Cohen's kappa and Gwet's AC1
(the linearised ratio estimator summed within clusters, or the cluster bootstrap).
:func:`stratified_kappa` gives each stratum's kappa, the test of equal kappas (Fleiss 1981)
and the inverse-variance weighted overall kappa, as SAS PROC FREQ's AGREE option does.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from typing import Any, Literal, Never

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError, shown
from .._interval import chi2_sf
from .._results import Result, plain_fields
from .._types import FloatArray, IntArray, RngLike, as_generator
from .._validate import check_choice
from ..data.ratings import ReadReport
from ..data.source import refuse_read_options
from ..data.table import ContingencyTable
from .two_raters import cohen_kappa

__all__ = [
    "ClusteredAgreement",
    "StratifiedKappa",
    "clustered_agreement",
    "stratified_kappa",
]

ClusterCoefficient = Literal["cohen_kappa", "gwet_ac1"]
ClusterMethod = Literal["linearization", "bootstrap"]


@dataclasses.dataclass(frozen=True, slots=True)
class ClusteredAgreement(Result):
    """A two-rater coefficient with a cluster-robust standard error.

    Attributes
    ----------
    name : str
        ``"cohen_kappa"`` or ``"gwet_ac1"``.
    statistic : float
    standard_error : float
        Cluster-robust: items of one cluster are not taken as independent.
    standard_error_naive : float
        The linearised SE with every item independent.
    design_effect : float
        ``(standard_error / standard_error_naive)^2``.
    n_items, n_clusters : int
    method : str
    report : ReadReport or None
        The read report of the table the labels were read from
        (:func:`accord.agreement_by_cluster`); None from arrays.
    """

    name: str
    statistic: float
    standard_error: float
    standard_error_naive: float
    design_effect: float
    n_items: int
    n_clusters: int
    method: str
    report: ReadReport | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dict of the fields (the read report when there is one)."""
        return plain_fields(self, () if self.report else ("report",))


def _codes(
    x: npt.ArrayLike, y: npt.ArrayLike, groups: npt.ArrayLike, owner: str
) -> tuple[IntArray, IntArray, IntArray, int, int]:
    xs, ys, gs = pd.Series(np.asarray(x)), pd.Series(np.asarray(y)), pd.Series(np.asarray(groups))
    if not (len(xs) == len(ys) == len(gs)) or len(xs) == 0:
        raise InvalidInputError(
            f"{owner} needs the two raters' labels and a group per item, of one length; got "
            f"{len(xs)}, {len(ys)} and {len(gs)}"
        )
    for name, s in (("x", xs), ("y", ys), ("groups", gs)):
        if s.isna().any():
            row = int(np.flatnonzero(s.isna().to_numpy())[0]) + 1
            raise InvalidInputError(f"{owner}: {name} is missing in row {row}")
    cats = pd.Index(pd.unique(pd.concat([xs, ys], ignore_index=True)))
    with contextlib.suppress(TypeError):  # labels of mixed types stay in order of appearance
        cats = cats.sort_values()
    g, levels = pd.factorize(gs)
    return (
        cats.get_indexer(pd.Index(xs)).astype(np.int64),
        cats.get_indexer(pd.Index(ys)).astype(np.int64),
        g.astype(np.int64),
        len(cats),
        len(levels),
    )


def _influence(a: IntArray, b: IntArray, q: int, name: str) -> tuple[float, FloatArray]:
    """The coefficient and each item's influence value (its linearisation, shape (N,))."""
    n = a.size
    agree = (a == b).astype(np.float64)
    p1 = np.bincount(a, minlength=q) / n
    p2 = np.bincount(b, minlength=q) / n
    po = float(agree.mean())
    if name == "cohen_kappa":
        pe = float(p1 @ p2)
        if_pe = p2[a] + p1[b] - 2.0 * pe
    else:
        pi = (p1 + p2) / 2.0
        pe = float(np.sum(pi * (1.0 - pi))) / (q - 1) if q > 1 else math.nan
        slope = 1.0 - 2.0 * pi
        if_pe = ((slope[a] + slope[b]) / 2.0 - float(slope @ pi)) / (q - 1)
    if not (1.0 - pe) > 0:
        return math.nan, np.full(n, math.nan)
    value = (po - pe) / (1.0 - pe)
    return value, (agree - po) / (1.0 - pe) + (po - 1.0) / (1.0 - pe) ** 2 * if_pe


def _cluster_se(infl: FloatArray, g: IntArray, n_clusters: int) -> float:
    n = infl.size
    sums = np.bincount(g, weights=infl, minlength=n_clusters)
    factor = n_clusters / (n_clusters - 1) if n_clusters > 1 else math.nan
    return math.sqrt(factor * float(sums @ sums)) / n


def _bootstrap_se(
    a: IntArray, b: IntArray, g: IntArray, q: int, n_clusters: int, name: str, n_boot: int,
    rng: RngLike,
) -> float:  # fmt: skip
    gen = as_generator(rng)
    order = np.argsort(g, kind="stable")
    a, b, g = a[order], b[order], g[order]
    starts = np.searchsorted(g, np.arange(n_clusters))
    sizes = np.bincount(g, minlength=n_clusters)
    reps = np.empty(n_boot)
    for k in range(n_boot):
        pick = gen.integers(0, n_clusters, n_clusters)
        rows = np.concatenate([np.arange(starts[c], starts[c] + sizes[c]) for c in pick])
        reps[k] = _influence(a[rows], b[rows], q, name)[0]
    return float(np.nanstd(reps, ddof=1))


def clustered_agreement(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    clusters: npt.ArrayLike,
    *,
    coefficient: ClusterCoefficient = "cohen_kappa",
    method: ClusterMethod = "linearization",
    n_boot: int = 1000,
    rng: RngLike = 0,
    **read_options: Never,
) -> ClusteredAgreement:
    r"""Cohen's kappa or Gwet's AC1 of two raters with a cluster-robust standard error.

    Both are ``(p_o - p_e) / (1 - p_e)``; each item's influence value (the ratio estimator
    linearised, Taylor series) is

    .. math::

        u_i = \frac{a_i - p_o}{1 - p_e} + \frac{p_o - 1}{(1 - p_e)^2} \, u_{e,i}, \quad
        \widehat{Var} = \frac{C}{C - 1} \frac{1}{N^2} \sum_c \Big(\sum_{i \in c} u_i\Big)^2

    with ``a_i`` 1 when the raters agree on item ``i``, ``u_{e,i}`` the influence of the item
    on ``p_e`` and ``C`` clusters. Every item its own cluster, without ``C/(C-1)``, gives the
    usual large-sample variance (Fleiss, Cohen & Everitt 1969, for kappa).

    Parameters
    ----------
    x, y : array_like, shape (N,)
        The two raters' labels of each item.
    clusters : array_like, shape (N,)
        Each item's cluster (site, patient, reading session).
    coefficient : {"cohen_kappa", "gwet_ac1"}, default "cohen_kappa"
    method : {"linearization", "bootstrap"}, default "linearization"
        ``"bootstrap"``: the SD of the coefficient over ``n_boot`` resamples of whole
        clusters (seeded by ``rng``).
    n_boot : int, default 1000
    rng : numpy Generator, int or None, default 0

    Returns
    -------
    ClusteredAgreement
        ``statistic``, ``standard_error`` (cluster-robust), ``standard_error_naive``,
        ``design_effect``, ``n_items``, ``n_clusters``, ``method``.

    Notes
    -----
    For kappa, the linearised SE is Vanbelle's (2017) multilevel delta method (the R package
    multiagree's ``delta.pair``): the same variance written with each cluster's agreement
    and margins, with its ``C / (C - 1)`` correction.

    References
    ----------
    .. [1] Yang, Z., & Zhou, M. (2014). Kappa statistic for clustered matched-pair data.
       Statistics in Medicine, 33(15), 2612-2633. https://doi.org/10.1002/sim.6113
    .. [2] Fleiss, J. L., Cohen, J., & Everitt, B. S. (1969). Large sample standard errors of
       kappa and weighted kappa. Psychological Bulletin, 72(5), 323-327.
       https://doi.org/10.1037/h0028106
    .. [3] Vanbelle, S. (2017). Comparing dependent kappa coefficients obtained on multilevel
       data. Biometrical Journal, 59(5), 1016-1034. https://doi.org/10.1002/bimj.201600093

    Examples
    --------
    Four sites, the raters disagreeing on one site's items: the cluster-robust SE is larger.

    >>> x = [1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 0, 0]
    >>> y = [1, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1]
    >>> sites = [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]
    >>> res = clustered_agreement(x, y, sites)
    >>> round(res.statistic, 3), res.design_effect > 1
    (0.333, True)
    """
    refuse_read_options("clustered_agreement", read_options)
    check_choice("coefficient", coefficient, ("cohen_kappa", "gwet_ac1"), "clustered_agreement")
    check_choice("method", method, ("linearization", "bootstrap"), "clustered_agreement")
    a, b, g, q, n_clusters = _codes(x, y, clusters, "clustered_agreement")
    value, infl = _influence(a, b, q, coefficient)
    naive = math.sqrt(float(infl @ infl)) / a.size
    if method == "linearization":
        se = _cluster_se(infl, g, n_clusters)
        how = "linearised ratio estimator summed within clusters, C/(C-1) correction"
    else:
        se = _bootstrap_se(a, b, g, q, n_clusters, coefficient, n_boot, rng)
        how = f"SD over {n_boot} cluster bootstrap resamples"
    return ClusteredAgreement(
        name=coefficient,
        statistic=value,
        standard_error=se,
        standard_error_naive=naive,
        design_effect=(se / naive) ** 2 if naive > 0 else math.nan,
        n_items=int(a.size),
        n_clusters=n_clusters,
        method=f"{coefficient} with a cluster-robust SE ({how})",
    )


@dataclasses.dataclass(frozen=True, slots=True)
class StratifiedKappa(Result):
    """Cohen's kappa in each stratum, the test of equal kappas and the overall kappa.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per stratum: ``stratum``, ``n_items``, ``kappa``, ``standard_error``
        (Fleiss, Cohen & Everitt 1969), ``weight`` (``1 / SE^2``).
    statistic : float
        The overall kappa, ``sum w_h kappa_h / sum w_h``.
    standard_error : float
        ``1 / sqrt(sum w_h)``.
    chi_square, df, pvalue : float, int, float
        ``sum w_h (kappa_h - kappa)^2`` on ``H - 1`` df: the test of equal kappas.
    method : str
    report : ReadReport or None
        The read report of the table the labels were read from
        (:func:`accord.kappa_by_stratum`); None from arrays.
    """

    table: pd.DataFrame
    statistic: float
    standard_error: float
    chi_square: float
    df: int
    pvalue: float
    method: str
    report: ReadReport | None = None

    def to_frame(self) -> pd.DataFrame:
        """The per-stratum table."""
        return self.table.copy()

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dict of the fields (the read report when there is one)."""
        return plain_fields(self, () if self.report else ("report",))


def stratified_kappa(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    strata: npt.ArrayLike,
    **read_options: Never,
) -> StratifiedKappa:
    r"""Cohen's kappa across strata: each stratum's, their homogeneity test and the overall.

    .. math::

        \bar\kappa = \frac{\sum_h \kappa_h / v_h}{\sum_h 1 / v_h}, \quad
        SE(\bar\kappa) = \Big(\sum_h 1 / v_h\Big)^{-1/2}, \quad
        Q = \sum_h \frac{(\kappa_h - \bar\kappa)^2}{v_h} \sim \chi^2_{H-1}

    with ``v_h`` the large-sample variance of stratum ``h``'s kappa (Fleiss, Cohen & Everitt
    1969). This is Fleiss's (1981) test of equal kappas and SAS PROC FREQ's overall kappa
    (``TABLES stratum * x * y / AGREE``).

    Parameters
    ----------
    x, y : array_like, shape (N,)
        The two raters' labels; all strata share the categories.
    strata : array_like, shape (N,)
        Each item's stratum.

    Returns
    -------
    StratifiedKappa

    Raises
    ------
    InvalidInputError
        Inputs of different lengths, missing values, fewer than two strata, or a stratum
        whose kappa has no variance (every item in one category).

    Notes
    -----
    Checked against SAS PROC FREQ's printed stratum kappas, ASEs and limits (its example
    "Cochran's Q Test", 4 decimals) and Fleiss, Levin & Paik's (2003) problem 18.3 (stratum
    kappas and SEs, overall kappa and interval, 2 decimals). The book's chi-square, .18, is
    computed from its rounded kappas and SEs; from the unrounded ones it is 0.192.

    References
    ----------
    .. [1] Fleiss, J. L. (1981). Statistical Methods for Rates and Proportions (2nd ed.),
       sec. 13.3. Wiley.
    .. [2] Fleiss, J. L., Cohen, J., & Everitt, B. S. (1969). Large sample standard errors of
       kappa and weighted kappa. Psychological Bulletin, 72(5), 323-327.
       https://doi.org/10.1037/h0028106
    .. [3] Fleiss, J. L., Levin, B., & Paik, M. C. (2003). Statistical Methods for Rates and
       Proportions (3rd ed.), sec. 18.1. Wiley. https://doi.org/10.1002/0471445428

    Examples
    --------
    SAS PROC FREQ's example "Cochran's Q Test" (Agresti's three drugs): drug B against drug
    C in the strata of drug A's response; SAS prints -0.0328 (ASE 0.1167) and -0.1538
    (ASE 0.2230).

    >>> cells = {("F", "F", "F"): 6, ("F", "F", "U"): 16, ("F", "U", "F"): 2,
    ...          ("F", "U", "U"): 4, ("U", "F", "F"): 2, ("U", "F", "U"): 4,
    ...          ("U", "U", "F"): 6, ("U", "U", "U"): 6}
    >>> a, b, c = (sum(([k[v]] * n for k, n in cells.items()), []) for v in range(3))
    >>> res = stratified_kappa(b, c, a)
    >>> res.table[["kappa", "standard_error"]].round(4).values.tolist()
    [[-0.0328, 0.1167], [-0.1538, 0.223]]
    >>> round(res.statistic, 4), res.df
    (-0.0588, 1)
    """
    refuse_read_options("stratified_kappa", read_options)
    a, b, h, q, n_strata = _codes(x, y, strata, "stratified_kappa")
    if n_strata < 2:
        raise InvalidInputError("stratified_kappa needs at least 2 strata; got 1")
    labels = pd.factorize(pd.Series(np.asarray(strata)))[1]
    rows = []
    for s in range(n_strata):
        mine = h == s
        counts = np.zeros((q, q))
        np.add.at(counts, (a[mine], b[mine]), 1.0)
        k = cohen_kappa(ContingencyTable(counts))
        if not (k.standard_error > 0):
            raise InvalidInputError(
                f"stratified_kappa: the kappa of stratum {shown(labels[s])!r} has no variance "
                f"({int(mine.sum())} items); leave it out or merge it"
            )
        rows.append((labels[s], int(mine.sum()), k.statistic, k.standard_error))
    table = pd.DataFrame(rows, columns=["stratum", "n_items", "kappa", "standard_error"])
    w: FloatArray = 1.0 / table["standard_error"].to_numpy() ** 2
    table["weight"] = w
    kappa = table["kappa"].to_numpy()
    overall = float(w @ kappa / w.sum())
    chi = float(w @ (kappa - overall) ** 2)
    return StratifiedKappa(
        table=table,
        statistic=overall,
        standard_error=1.0 / math.sqrt(float(w.sum())),
        chi_square=chi,
        df=n_strata - 1,
        pvalue=chi2_sf(chi, n_strata - 1),
        method="inverse-variance weighted kappa over strata (FCE 1969 variances); Fleiss "
        "(1981) chi-square test of equal kappas",
    )
