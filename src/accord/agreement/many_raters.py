"""Chance-corrected agreement among many raters, from item x category counts.

Every coefficient has an entry point on ratings (:class:`~accord.Ratings`) and one on the
sufficient statistic (an items x categories array of counts, or
:class:`~accord.stats.ItemCategoryCounts`). Missing ratings are missing, never a category.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError, warn_degenerate
from .._results import Coefficient
from .._types import FloatArray, Level
from ..ratings import Ratings
from ..stats.counts import ItemCategoryCounts

__all__ = ["FleissKappa", "fleiss_kappa", "krippendorff_alpha"]

CountsLike = Ratings | ItemCategoryCounts | npt.ArrayLike


@dataclasses.dataclass(frozen=True, slots=True)
class _CountData:
    """Item x category counts of the rated items, and what they came from."""

    counts: FloatArray  # (n_rated_items, q)
    categories: tuple[Any, ...]
    n_raters: int
    level: Level
    category_values: FloatArray


def _count_data(data: CountsLike, categories: Any = None) -> _CountData:
    """Item x category counts (float, rated items only) from ratings or counts."""
    if isinstance(data, Ratings):
        stat = ItemCategoryCounts.from_ratings(data)
        n_raters = data.n_raters
        level = data.level
        values = data.category_values
    else:
        stat = (
            data
            if isinstance(data, ItemCategoryCounts)
            else ItemCategoryCounts.from_array(data, categories)
        )
        totals = stat.totals()
        n_raters = int(totals.max()) if totals.size else 0
        level = "nominal"
        try:
            values = np.asarray(stat.categories, dtype=np.float64)
        except (TypeError, ValueError):
            values = np.arange(len(stat.categories), dtype=np.float64)
    counts = stat.dense().astype(np.float64)
    counts = counts[counts.sum(axis=1) > 0]
    return _CountData(counts, stat.categories, n_raters, level, values)


def _population_factor(n: int, population_size: float | None) -> float:
    """Gwet's finite-population correction factor ``1 - n/N`` (1 when N is infinite)."""
    if population_size is None or math.isinf(population_size):
        return 1.0
    if population_size < n:
        raise InvalidInputError(
            f"population_size ({population_size:g}) is smaller than the number of items rated ({n})"
        )
    return 1.0 - n / population_size


@dataclasses.dataclass(frozen=True, slots=True)
class FleissKappa(Coefficient):
    """Fleiss' kappa with the per-category kappas.

    Attributes
    ----------
    per_category : pandas.DataFrame
        One row per category: ``category``, ``proportion`` (pi_k, the mean share of the
        category in an item's ratings) and ``kappa`` (Fleiss 1971, eq. 16: the kappa of the
        category against all others; NaN when the category is never or always used).
    """

    per_category: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)


def fleiss_kappa(
    data: CountsLike,
    *,
    categories: Any = None,
    population_size: float | None = None,
) -> FleissKappa:
    r"""Fleiss' kappa for many raters, on complete or incomplete designs.

    .. math::

        \kappa = \frac{p_a - p_e}{1 - p_e}, \quad
        p_a = \frac{1}{n'}\sum_{i: r_i \ge 2} \sum_k \frac{r_{ik}(r_{ik} - 1)}{r_i (r_i - 1)},
        \quad p_e = \sum_k \pi_k^2, \quad \pi_k = \frac{1}{n}\sum_i \frac{r_{ik}}{r_i}

    with :math:`r_{ik}` the ratings of item *i* in category *k*, :math:`r_i` the ratings of
    item *i*, *n* the items with a rating and *n'* those with two or more.

    Parameters
    ----------
    data : Ratings, ItemCategoryCounts or array_like of shape (n_items, q)
        Ratings, or the item x category counts.
    categories : sequence, optional
        Category names for an array of counts.
    population_size : float, optional
        Number of items in the population, for the finite-population correction of the
        variance (Gwet 2014). Default: infinite.

    Returns
    -------
    FleissKappa
        ``statistic``, ``standard_error`` (general, Gwet 2014 / irrCAC),
        ``standard_error_null`` (under kappa = 0, Fleiss, Nee & Landis 1979; complete designs
        only), ``observed_agreement`` (p_a), ``chance_agreement`` (p_e), ``per_category``, and
        the fields of :class:`~accord.Coefficient`.

    Notes
    -----
    With the same number of ratings per item this is Fleiss (1971). For incomplete designs
    it is the generalisation of Gwet (2014, ch. 5), as in the R package irrCAC: observed
    agreement over items with two or more ratings, chance agreement over all rated items.
    When every rating is in one category, p_e = 1 and kappa is undefined: NaN with a reason
    and a :class:`~accord.DegenerateDataWarning`.

    References
    ----------
    .. [1] Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
       Psychological Bulletin, 76(5), 378-382. https://doi.org/10.1037/h0031619
    .. [2] Fleiss, J. L., Nee, J. C. M., & Landis, J. R. (1979). Large sample variance of
       kappa in the case of different sets of raters. Psychological Bulletin, 86(5), 974-977.
       https://doi.org/10.1037/0033-2909.86.5.974
    .. [3] Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed. Advanced
       Analytics.

    Examples
    --------
    The Wikipedia example (10 items, 14 raters, 5 categories):

    >>> counts = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
    ...           [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
    ...           [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    >>> res = fleiss_kappa(counts)
    >>> round(res.statistic, 6), round(res.standard_error, 6)
    (0.209931, 0.092371)
    """
    cd = _count_data(data, categories)
    counts = cd.counts
    n = int(counts.shape[0])
    r = counts.sum(axis=1)
    two = r >= 2
    n2 = int(two.sum())
    base: dict[str, Any] = dict(
        name="fleiss_kappa",
        n_items=n,
        n_raters=cd.n_raters,
        categories=cd.categories,
        n_items_unpairable=n - n2,
        population_size=math.inf if population_size is None else float(population_size),
    )
    method = (
        "Fleiss' kappa (Fleiss 1971; incomplete designs: Gwet 2014); chance agreement from the "
        "pooled category proportions; SE: Gwet (2014) linearisation as in irrCAC"
    )
    empty_table = pd.DataFrame({"category": list(cd.categories)})
    if n2 == 0:
        reason = "no item has two or more ratings, so there is no agreement to measure"
        warn_degenerate(reason)
        return FleissKappa(
            statistic=math.nan,
            standard_error=math.nan,
            method=method,
            reason=reason,
            per_category=empty_table,
            **base,
        )
    f = _population_factor(n, population_size)
    pair_den = np.where(two, r * (r - 1), 1.0)
    pa_i = np.where(two, (counts * (counts - 1)).sum(axis=1) / pair_den, 0.0)
    pa = float(pa_i[two].mean())
    share = counts / r[:, None]
    pi = share.mean(axis=0)
    pe = float(np.sum(pi**2))

    # Per-category kappas: the kappa of "k" vs "not k" (Fleiss 1971, eq. 16).
    with np.errstate(invalid="ignore", divide="ignore"):
        disagree = np.where(two[:, None], counts * (r[:, None] - counts) / pair_den[:, None], 0.0)
        kappa_k = 1.0 - disagree[two].mean(axis=0) / (pi * (1.0 - pi))
    kappa_k = np.where((pi > 0) & (pi < 1), kappa_k, math.nan)
    per_category = pd.DataFrame(
        {"category": list(cd.categories), "proportion": pi, "kappa": kappa_k}
    )

    if pe >= 1.0 - 1e-15:
        reason = (
            "every rating is in one category: chance agreement is 1 and kappa is 0/0 (undefined)"
        )
        warn_degenerate(reason)
        return FleissKappa(
            statistic=math.nan,
            standard_error=math.nan,
            method=method,
            reason=reason,
            observed_agreement=pa,
            chance_agreement=pe,
            per_category=per_category,
            **base,
        )
    kappa = (pa - pe) / (1.0 - pe)

    # General variance (Gwet 2014, eq. 5.x; irrCAC fleiss.kappa.raw).
    se = math.nan
    if n >= 2:
        kappa_i = (n / n2) * (pa_i - pe * two) / (1.0 - pe)
        pe_i = (counts @ pi) / r
        kappa_ix = kappa_i - 2.0 * (1.0 - kappa) * (pe_i - pe) / (1.0 - pe)
        var = f / (n * (n - 1)) * float(np.sum((kappa_ix - kappa) ** 2))
        se = math.sqrt(var)

    # Null variance for complete designs (Fleiss, Nee & Landis 1979).
    se0 = math.nan
    m = r[0]
    if np.all(r == m) and m >= 2:
        pq = pi * (1.0 - pi)
        s = float(pq.sum())
        inner = s**2 - float(np.sum(pq * (1.0 - 2.0 * pi)))
        if s > 0 and inner >= 0:
            se0 = math.sqrt(2.0) / (s * math.sqrt(n * m * (m - 1))) * math.sqrt(inner)
            se0 *= math.sqrt(f)
    return FleissKappa(
        statistic=kappa,
        standard_error=se,
        standard_error_null=se0,
        method=method,
        observed_agreement=pa,
        chance_agreement=pe,
        per_category=per_category,
        **base,
    )


def _squared_distance(level: str, values: FloatArray, totals: FloatArray) -> FloatArray:
    """Krippendorff's squared difference ``delta^2[c, k]`` for a level of measurement.

    Parameters
    ----------
    level : {"nominal", "ordinal", "interval", "ratio"}
    values : ndarray, shape (q,)
        Numeric values of the categories (interval, ratio).
    totals : ndarray, shape (q,)
        Pairable values per category ``n_c`` (ordinal: rank-frequency metric).
    """
    q = values.size
    if level == "nominal":
        out: FloatArray = 1.0 - np.eye(q)
        return out
    if level == "ordinal":
        cum = np.cumsum(totals)
        # sum_{g=c}^{k} n_g - (n_c + n_k)/2 for c <= k
        lo = np.minimum.outer(np.arange(q), np.arange(q))
        hi = np.maximum.outer(np.arange(q), np.arange(q))
        between = cum[hi] - cum[lo] + totals[lo]
        d = between - (totals[:, None] + totals[None, :]) / 2.0
        res: FloatArray = d**2
        return res
    diff = values[:, None] - values[None, :]
    if level == "interval":
        sq: FloatArray = diff**2
        return sq
    if level == "ratio":
        s = values[:, None] + values[None, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            rat: FloatArray = np.where(s != 0, (diff / np.where(s != 0, s, 1.0)) ** 2, 0.0)
        return rat
    raise InvalidInputError(
        "The 'level' parameter of krippendorff_alpha must be one of "
        f"{{'nominal', 'ordinal', 'interval', 'ratio'}}. Got {level!r} instead."
    )


def krippendorff_alpha(
    data: CountsLike,
    *,
    level: Level | None = None,
    categories: Any = None,
) -> Coefficient:
    r"""Krippendorff's alpha, from the coincidence matrix of the pairable items.

    .. math::

        \alpha = 1 - \frac{D_o}{D_e}, \quad
        D_o = \frac{1}{n}\sum_{c,k} o_{ck}\,\delta^2_{ck}, \quad
        D_e = \frac{1}{n(n-1)}\sum_{c,k} n_c n_k\,\delta^2_{ck},

    with coincidences :math:`o_{ck} = \sum_i r_{ic}(r_{ik} - [c = k])/(r_i - 1)` over items
    with two or more ratings, :math:`n_c = \sum_k o_{ck}` and :math:`n = \sum_c n_c`.

    Parameters
    ----------
    data : Ratings, ItemCategoryCounts or array_like of shape (n_items, q)
        Ratings, or the item x category counts.
    level : {"nominal", "ordinal", "interval", "ratio"}, optional
        The metric :math:`\delta^2`. Default: the level of the ratings (nominal for counts).
        Ordinal uses Krippendorff's rank-frequency metric; interval and ratio use the
        categories' numeric values.
    categories : sequence, optional
        Category names (values, at interval/ratio level) for an array of counts.

    Returns
    -------
    Coefficient
        ``statistic``; ``observed_agreement`` = 1 - D_o and ``chance_agreement`` = 1 - D_e on
        the normalised metric; ``standard_error`` is NaN in this version (``method`` says
        so; bootstrap and the Gwet linearisation come with the many-raters release).

    Notes
    -----
    Items with fewer than two ratings are not pairable and do not enter alpha; they are
    counted in ``n_items_unpairable``. ``[["A", "B"], ["B", "A"]]`` gives alpha = -0.5,
    not a bug: with two items and perfect systematic disagreement the observed disagreement
    exceeds what chance predicts for so few values. When all pairable values are in one
    category, D_e = 0 and alpha is undefined (NaN with a reason).

    References
    ----------
    .. [1] Krippendorff, K. (2004). Content Analysis: An Introduction to Its Methodology,
       2nd ed. Sage.
    .. [2] Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability.
       https://repository.upenn.edu/asc_papers/43

    Examples
    --------
    The Wikipedia example (3 coders, 15 units; rows are coders):

    >>> import numpy as np, accord
    >>> nan = np.nan
    >>> coders = [[nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
    ...           [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
    ...           [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4]]
    >>> r = accord.Ratings.from_wide(np.array(coders).T)
    >>> round(krippendorff_alpha(r).statistic, 6)
    0.691358
    >>> round(krippendorff_alpha(r, level="interval").statistic, 6)
    0.810845
    """
    cd = _count_data(data, categories)
    lvl: Level = cd.level if level is None else level
    if lvl not in ("nominal", "ordinal", "interval", "ratio"):
        raise InvalidInputError(
            "The 'level' parameter of krippendorff_alpha must be one of "
            f"{{'nominal', 'ordinal', 'interval', 'ratio'}}. Got {lvl!r} instead."
        )
    if (
        lvl in ("interval", "ratio")
        and isinstance(data, Ratings)
        and data.level
        in (
            "nominal",
            "ordinal",
        )
    ):
        try:
            np.asarray(data.categories, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidInputError(
                f"level={lvl!r} needs numeric labels; the categories are {data.categories!r}"
            ) from None
    counts = cd.counts
    r = counts.sum(axis=1)
    pairable = r >= 2
    n_items = int(counts.shape[0])
    pc = counts[pairable]
    rp = r[pairable]
    method = (
        f"Krippendorff's alpha, {lvl} metric"
        + (" (Krippendorff's rank-frequency ordinal metric)" if lvl == "ordinal" else "")
        + ", coincidence matrix over pairable items; standard error not computed in this "
        "version"
    )
    base: dict[str, Any] = dict(
        name="krippendorff_alpha",
        n_items=int(pairable.sum()),
        n_raters=cd.n_raters,
        categories=cd.categories,
        n_items_unpairable=n_items - int(pairable.sum()),
        weights=lvl,
        bounds=(-math.inf, 1.0),
    )
    if pc.shape[0] == 0:
        reason = "no item has two or more ratings, so there is no agreement to measure"
        warn_degenerate(reason)
        return Coefficient(
            statistic=math.nan,
            standard_error=math.nan,
            method=method,
            reason=reason,
            **base,
        )
    coincidence = (pc / (rp - 1)[:, None]).T @ pc - np.diag((pc / (rp - 1)[:, None]).sum(axis=0))
    n_c = coincidence.sum(axis=1)
    n_total = float(n_c.sum())
    delta2 = _squared_distance(lvl, cd.category_values, n_c)
    d_o = float(np.sum(coincidence * delta2)) / n_total
    d_e = float(np.sum(np.outer(n_c, n_c) * delta2)) / (n_total * (n_total - 1.0))
    dmax = float(delta2.max()) if delta2.size else 0.0
    if d_e <= 0.0 or dmax <= 0.0:
        reason = (
            "all pairable ratings are in one category: expected disagreement is 0 and alpha "
            "is 0/0 (undefined)"
        )
        warn_degenerate(reason)
        return Coefficient(
            statistic=math.nan,
            standard_error=math.nan,
            method=method,
            reason=reason,
            **base,
        )
    alpha = 1.0 - d_o / d_e
    return Coefficient(
        statistic=alpha,
        standard_error=math.nan,
        method=method,
        observed_agreement=1.0 - d_o / dmax,
        chance_agreement=1.0 - d_e / dmax,
        **base,
    )
