"""Krippendorff's alpha among many raters, from the coincidences of the pairable items.

Alpha reads the counts view (:mod:`._counts`) like the kappa family of
:mod:`.many_raters`, with its own metrics: the nominal, ordinal (Krippendorff's
rank-frequency metric), interval and ratio levels, Gwet's agreement weights, a user
distance, or a distance between sets of labels. At the interval and ordinal levels the
terms come from per-item sums of values and squares (no V x V matrix), and on ratings with
many distinct values from per-rating sums (no item x value counts either). The SE is Gwet's
(2014) linearisation as in irrCAC 1.4 ``krippen.alpha.raw``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any, Literal, Never, cast

import numpy as np
import numpy.typing as npt

from .._errors import InvalidInputError, option
from .._results import Coefficient, undefined_fields
from .._types import Alternative, FloatArray, Level, RngLike
from ..data.ratings import Ratings
from ..data.source import refuse_read_options
from ._counts import (
    NO_PAIRS,
    ONE_ITEM,
    ONE_PER_ROW,
    TSV,
    CountsLike,
    CountsView,
    Multiplicity,
    WeightsLike,
    analytic_view,
    check_bootstrap,
    pair_sums,
    prepare,
    row_sums,
    weight_matrix,
)
from ._shared import cols_dot, identity_weights, is_sparse, rows_dot
from .inference import (
    CIKind,
    Inference,
    SEKind,
    bootstrap,
    check_ci,
    population_factor,
)
from .set_distances import SetDistance, SetDistanceMetric, pair_distance_sums, set_distance
from .weights import DENSE_WEIGHT_CELLS, ManyCategoriesError, check_ordered, has_order

__all__ = ["Distance", "alpha_item_totals", "krippendorff_alpha"]

Distance = Callable[[FloatArray, FloatArray], FloatArray]


def _krippendorff_delta(level: str, values: FloatArray, totals: FloatArray) -> FloatArray:
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
    x = _ordinal_positions(totals) if level == "ordinal" else values
    diff = x[:, None] - x[None, :]
    if level in ("ordinal", "interval"):
        sq: FloatArray = diff**2
        return sq
    s = values[:, None] + values[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        rat: FloatArray = np.where(s != 0, (diff / np.where(s != 0, s, 1.0)) ** 2, 0.0)
    return rat


def _ordinal_positions(totals: FloatArray) -> FloatArray:
    """Krippendorff's ordinal metric as positions: ``delta_ck = (R_k - R_c)^2`` with
    ``R_c = sum_{g <= c} n_g - n_c / 2`` (cumulative counts of the sorted values)."""
    out: FloatArray = np.cumsum(totals) - totals / 2.0
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class _AlphaParts:
    """Per pairable item terms of Gwet's alpha linearisation (irrCAC 1.4 krippen.alpha.raw).

    m : ratings per item; sumq : sum_{a != b} w(x_a, x_b); pe_num : counts_i . pi_w;
    mult : items per row (the rows are count patterns, or one item each).
    """

    m: FloatArray
    sumq: FloatArray
    pe_num: FloatArray
    pe: float
    undefined: bool
    mult: Multiplicity = ONE_PER_ROW


def _alpha_parts_matrix(d: CountsView, w: FloatArray) -> _AlphaParts:
    """The item terms of the pairable items under agreement weights ``w``, from the shared
    item counts (:attr:`._counts.CountsView.items`, :func:`._counts.pair_sums`)."""
    it = d.items
    counts, keep = it.counts, it.two
    every = it.n2 == it.n  # every row pairable: no subset taken
    mult = it.mult if every else it.mult.take(keep)
    m = it.r if every else it.r[keep]
    pi = cols_dot(counts, it.mult.times(keep.astype(np.float64))) / mult.total(m)
    pe = float(pi @ w @ pi)
    sumq = pair_sums(d, w)
    pe_num = rows_dot(counts, (w @ pi + w.T @ pi) / 2.0)
    if not every:
        sumq, pe_num = sumq[keep], pe_num[keep]
    return _AlphaParts(m, sumq, pe_num, pe, False, mult)


def _alpha_parts_sets(d: CountsView, metric: SetDistanceMetric) -> _AlphaParts:
    r"""The terms of :func:`_alpha_parts_matrix` under a set distance on many distinct sets,
    without their q x q distances: with :math:`w_{kl} = 1 - \delta_{kl} / \delta_{max}`,
    each item's :math:`\sum_{kl} c_k c_l w_{kl} = r^2 - \sum_{k \ne l} c_k c_l
    \delta_{kl} / \delta_{max}` reads only the pairs of sets within the item, and
    :math:`\delta_{max}` and :math:`W \pi` come from blocks of distances between the sets
    used (:meth:`~accord.agreement.set_distances.SetDistanceMetric.sums`)."""
    it = d.items
    counts, keep, mult = it.counts, it.two, it.mult.take(it.two)
    m = it.r[keep]
    pi = cols_dot(counts, it.mult.times(keep.astype(np.float64))) / mult.total(m)
    dmax, delta_pi = metric.sums(pi, np.flatnonzero(pi > 0))
    total = float(pi.sum())
    within = np.zeros(counts.shape[0])
    w_pi = np.full(pi.size, total)
    if dmax > 0:
        w_pi -= delta_pi / dmax
        within = pair_distance_sums(counts, metric) / dmax
    r = it.r.astype(np.float64)
    sumq = (r * r - within - r)[keep]
    pe_num = rows_dot(counts, w_pi)[keep]
    return _AlphaParts(m, sumq, pe_num, float(pi @ w_pi), False, mult)


def _many_sets(distance: Any, q: int) -> bool:
    """Whether alpha with a set distance takes the path without q x q distances."""
    return isinstance(distance, SetDistanceMetric) and q * q > DENSE_WEIGHT_CELLS


def _alpha_parts_sums(
    m: FloatArray,
    s1: FloatArray,
    s2: FloatArray,
    dmax: float,
    mult: Multiplicity = ONE_PER_ROW,
) -> _AlphaParts:
    """The same terms for the squared-difference metric from per-item sums (no V x V);
    ``mult``: items per row."""
    big_n = mult.total(m)
    q1 = mult.total(s1) / big_n
    q2 = mult.total(s2) / big_n
    if dmax <= 0:
        return _AlphaParts(m, m, m, 1.0, True, mult)
    d_i = 2.0 * (m * s2 - s1**2)
    sumq = m**2 - m - d_i / dmax
    pe = 1.0 - 2.0 * (q2 - q1**2) / dmax
    pe_num = m - (s2 - 2.0 * s1 * q1 + m * q2) / dmax
    return _AlphaParts(m, sumq, pe_num, pe, False, mult)


def _alpha_finish(
    parts: _AlphaParts, n_rated: int, f_pop: float
) -> tuple[float, float, float, float]:
    """alpha, its SE, p_a and p_e from the item terms (irrCAC 1.4 formulas).

    p_a = (1 - 1/N) p_a' + 1/N, p_a' = sum_i sumq_i / (rbar (m_i - 1)) / n; the variance
    uses the item term ``pa_i = sumq_i / (rbar (m_i - 1)) - p_a' (m_i - rbar) / rbar``, the
    linearisation of p_a' (a ratio of two means) about its own value, so that the terms
    average to p_a' and the variance is the delta method's.
    """
    n, big_n, paprime = _alpha_sizes(parts)
    pe = parts.pe
    pa = (1.0 - 1.0 / big_n) * paprime + 1.0 / big_n
    alpha = (pa - pe) / (1.0 - pe)
    alpha_p = (paprime - pe) / (1.0 - pe)
    se = math.nan
    if n >= 2:  # item terms a chunk of rows at a time
        total = parts.mult.chunked_total(
            parts.m.size, lambda s: (_alpha_star(parts, s, paprime, big_n / n) - alpha_p) ** 2
        )
        se = math.sqrt(f_pop / (n * (n - 1)) * total)
    return alpha, se, pa, pe


def _alpha_sizes(parts: _AlphaParts) -> tuple[int, float, float]:
    """Pairable items ``n``, pairable ratings ``N`` and ``p_a'`` (the mean of the item
    agreements ``sumq_i / (rbar (m_i - 1))``)."""
    m, mult = parts.m, parts.mult
    n, big_n = mult.items(m.size), mult.total(m)
    a_i = parts.sumq / (big_n / n * (m - 1.0))
    paprime = mult.total(a_i) / n
    return n, big_n, paprime


def _alpha_star(parts: _AlphaParts, s: slice, paprime: float, rbar: float) -> FloatArray:
    """Gwet's linearised terms of ``alpha' = (p_a' - p_e) / (1 - p_e)`` of the rows ``s``
    (``rbar``: mean ratings per pairable item): ``k_i* = k_i - 2 (1 - alpha') (pe_i - pe) /
    (1 - pe)``, which average to alpha'."""
    m = parts.m[s]
    pe = parts.pe
    alpha_p = (paprime - pe) / (1.0 - pe)
    pa_i = parts.sumq[s] / (rbar * (m - 1.0)) - paprime * (m - rbar) / rbar
    k_i = (pa_i - pe) / (1.0 - pe)
    pe_i = parts.pe_num[s] / rbar - pe * (m - rbar) / rbar
    out: FloatArray = k_i - 2.0 * (1.0 - alpha_p) * (pe_i - pe) / (1.0 - pe)
    return out


def _item_sums(
    d: CountsView, x: FloatArray, keep: npt.NDArray[np.bool_]
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Per pairable item: ratings, sum and sum of squares of the category scale ``x``."""
    if d.ratings is not None and d.item_row is not None and d.counts.shape[1] > 64:
        r_obj = d.ratings
        rows = d.item_row[r_obj.item_codes]
        v = x[r_obj.label_codes]
        n = d.counts.shape[0]
        m = np.bincount(rows, minlength=n).astype(np.float64)
        b1: FloatArray = np.bincount(rows, weights=v, minlength=n).astype(np.float64)
        b2: FloatArray = np.bincount(rows, weights=v * v, minlength=n).astype(np.float64)
        return m[keep], b1[keep], b2[keep]
    it = d.items
    s1 = rows_dot(it.counts, x)
    s2 = rows_dot(it.counts, x * x)
    if keep is it.two and it.n2 == it.n:  # every row pairable
        return it.r, s1, s2
    return it.r[keep], s1[keep], s2[keep]


def krippendorff_alpha(
    data: CountsLike,
    *,
    level: Level | None = None,
    weights: WeightsLike | None = None,
    distance: Distance | SetDistance | None = None,
    categories: Any = None,
    population_size: float | None = None,
    ci: CIKind = "analytic",
    n_boot: int = 2000,
    rng: RngLike = None,
    se: SEKind = "raters",
    rater_population_size: float | None = None,
    test_value: float = 0.0,
    alternative: Alternative = "two-sided",
    **read_options: Never,
) -> Coefficient:
    r"""Krippendorff's alpha, from the coincidences of the pairable items.

    .. math::

        \alpha = 1 - \frac{D_o}{D_e}, \quad
        D_o = \frac{1}{N}\sum_{c,k} o_{ck}\,\delta^2_{ck}, \quad
        D_e = \frac{1}{N(N-1)}\sum_{c,k} n_c n_k\,\delta^2_{ck},

    with coincidences :math:`o_{ck} = \sum_i r_{ic}(r_{ik} - [c = k])/(r_i - 1)` over items
    with two or more ratings, :math:`n_c = \sum_k o_{ck}` and :math:`N = \sum_c n_c`.

    Parameters
    ----------
    data : Ratings, ItemCategoryCounts, CountPatterns or array_like of shape (n_items, q)
        Ratings, the item x category counts, or their count patterns (distinct rows with
        the items sharing each; analytic SE only).
    level : {"nominal", "ordinal", "interval", "ratio"}, optional
        The metric :math:`\delta^2`. Default: the level of the ratings (nominal for counts).
        Ordinal is Krippendorff's rank-frequency metric (not Gwet's ordinal weights);
        interval and ratio use the categories' numeric values.
    weights : str or array_like of shape (q, q), optional
        Gwet's agreement weights instead of a level: :math:`\delta^2 = 1 - w`
        (``"quadratic"`` gives the interval metric on the category scale).
    distance : callable or {"masi", "jaccard"}, optional
        A user metric: ``distance(x, y)`` returns :math:`\delta^2` for arrays of category
        values ``x`` and ``y`` (broadcast to q x q); >= 0 with zeros on the diagonal.
        For set-valued ratings (``multi_label=True``), ``"masi"`` or ``"jaccard"``: the
        distance between two raters' sets of labels (:doc:`/multi-label`). Without it,
        each distinct set is a category of its own (nominal: sets agree only when equal).
    categories : sequence, optional
        Category names (values, at interval/ratio level) for an array of counts.
    population_size : float, optional
        Items in the population (finite-population correction of the variance).
    ci : {"analytic", "bootstrap"}, default "analytic"
    n_boot : int, default 2000
    rng : Generator, int or None
    se, rater_population_size, test_value, alternative
        The standard error (conditional on the raters, on the items by a jackknife over
        raters, or unconditional), the raters' finite-population correction and the test,
        as in :func:`~accord.percent_agreement`.

    Returns
    -------
    Coefficient
        ``statistic``; ``standard_error`` (Gwet 2014 linearisation as in irrCAC 1.4
        ``krippen.alpha.raw``); ``observed_agreement`` and ``chance_agreement`` are irrCAC's
        p_a and p_e on the agreement scale ``w = 1 - delta^2 / max delta^2``, so that
        alpha = (p_a - p_e)/(1 - p_e); ``weights`` names the metric; ``n_items`` counts the
        pairable items.

    Notes
    -----
    Items with fewer than two ratings are not pairable and do not enter alpha; they are
    counted in ``n_items_unpairable``. ``[["A", "B"], ["B", "A"]]`` gives alpha = -0.5,
    not a bug: alpha compares disagreement within items with disagreement among all
    pairable values, and among four values (two A, two B) drawn without replacement a
    random pair disagrees with probability 2/3, not 1; observed disagreement 1 against an
    expected 2/3 gives 1 - 1/(2/3) = -0.5. When all pairable values are in one category,
    D_e = 0 and alpha is undefined (NaN with a reason).

    At interval level (and ordinal, through the rank positions
    :math:`R_c = \sum_{g \le c} n_g - n_c/2`, for which
    :math:`\delta^2_{ck} = (R_k - R_c)^2`) alpha and its SE come from per-item sums of
    values and squares, in O(N) memory: no V x V matrix for continuous scores.

    The SE is the linearisation of Gwet (2014) as irrCAC computes it since its 2021 revision
    (R irrCAC 1.2 and later): the item term centres on :math:`p_a'`, which makes it the
    delta-method variance of :math:`p_a'` as a ratio of two means (irrCAC 1.0 and the Python
    port 0.4.4 centre on :math:`p_a`, a difference of order 1/N). The t interval uses the
    pairable items (two or more ratings) for its degrees of freedom, as the variance does.
    For the ordinal metric the weights depend on the marginals; the SE treats them as fixed,
    the bootstrap does not.

    References
    ----------
    .. [1] Krippendorff, K. (2004). Content Analysis: An Introduction to Its Methodology,
       2nd ed. Sage.
    .. [2] Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability.
       https://repository.upenn.edu/asc_papers/43
    .. [3] Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed., ch. 2 and 5.
       Advanced Analytics.

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
    refuse_read_options("krippendorff_alpha", read_options)
    check_ci(ci, n_boot, "krippendorff_alpha")
    sampling = Inference(
        se=se,
        rater_population_size=rater_population_size,
        test_value=test_value,
        alternative=alternative,
    )
    sampling.check("krippendorff_alpha")
    options: dict[str, Any] = dict(level=level, weights=weights, distance=distance,
                                   categories=categories)  # fmt: skip
    result = _alpha(data, population_size=population_size, ci=ci, n_boot=n_boot, rng=rng,
                    **options)  # fmt: skip

    def without_rater(sub: Ratings) -> float:
        return _alpha(sub, population_size=None, ci="analytic", n_boot=0, rng=None,
                      **options).statistic  # fmt: skip

    ratings = data if isinstance(data, Ratings) else getattr(data, "ratings", None)
    fields = sampling.fields(
        _plain_result(result), ratings, without_rater, "krippendorff_alpha", stacklevel=4
    )
    return dataclasses.replace(result, **fields)


def _plain_result(result: Coefficient) -> dict[str, Any]:
    """The statistic, standard error and reason of a result, as the fields a
    :class:`~accord.agreement.inference.Inference` reads."""
    return dict(statistic=result.statistic, standard_error=result.standard_error,
                reason=result.reason, method=result.method)  # fmt: skip


def _alpha(
    data: Any,
    *,
    level: Level | None,
    weights: WeightsLike | None,
    distance: Distance | SetDistance | str | None,
    categories: Any,
    population_size: float | None,
    ci: CIKind,
    n_boot: int,
    rng: RngLike,
) -> Coefficient:
    """:func:`krippendorff_alpha` conditional on the raters (its standard error over items;
    ``ci`` and ``n_boot`` checked by the caller)."""
    if isinstance(distance, str):  # a distance between sets of labels
        distance = set_distance(data, distance, level=level, weights=weights)
    metric = _alpha_metric(data, level, weights, distance)
    lvl = metric.name
    if isinstance(data, Ratings) and data.n_categories > _MANY_VALUES and metric.by_sums:
        ordered = has_order(data.categories, data.level, data.categories_declared)
        _check_alpha_level(lvl, data.categories, ordered)
        return _alpha_many_values(data, metric.level, population_size, ci, n_boot, rng)
    d = analytic_view(prepare(data, categories, "krippendorff_alpha"), ci)
    if metric.kind == "level":
        _check_alpha_level(lvl, d.categories, d.ordered)
    check_bootstrap(d, ci, "krippendorff_alpha")
    q = len(d.categories)
    if ci == "bootstrap" and _many_sets(metric.distance, q):
        raise ManyCategoriesError(
            f"krippendorff_alpha: a bootstrap of alpha with the {lvl} distance on {q:,} "
            f"distinct sets of labels would need their {q:,} x {q:,} distances; "
            f"{option('ci', 'analytic')} gives alpha and its SE without them"
        )
    it = d.items
    pairable = it.two
    base = _alpha_base(lvl, d, it.n, it.n2, population_size, ", coincidences over pairable items")
    if it.n2 == 0:
        return Coefficient(**undefined_fields(NO_PAIRS, base, stacklevel=4))
    parts, w = _alpha_parts(d, metric)
    out = _alpha_fields(parts, it.n, population_factor(it.n, population_size), base)
    if ci == "bootstrap" and "observed_agreement" in out:  # alpha is defined
        reps, jk = _alpha_bootstrap(d, pairable, lvl, w, n_boot, rng)
        out.update(replicates=reps, jackknife=jk)
    return Coefficient(**out)


def _check_alpha_level(lvl: str, categories: tuple[Any, ...], ordered: bool) -> None:
    """Alpha at an ordered level (ordinal, interval, ratio) reads distances on the scale:
    refused on text labels in an order nobody declared (:func:`check_ordered`)."""
    if lvl != "nominal":
        check_ordered(f"alpha's {lvl} distances", categories, "krippendorff_alpha", ordered)


def _alpha_parts(d: CountsView, metric: _Metric) -> tuple[_AlphaParts, FloatArray | None]:
    """The item terms of alpha under its metric over the pairable items (some pairable),
    and the agreement weights (None: the squared-difference metric, from per-item sums)."""
    it = d.items
    pairable = it.two
    # Pairable values per category (on compressed data, items per pattern).
    totals = cols_dot(it.counts, it.mult.times(pairable.astype(np.float64)))
    if metric.by_sums:
        x = _ordinal_positions(totals) if metric.name == "ordinal" else d.category_values
        x, dmax = _centred(x, totals)
        m_i, s1, s2 = _item_sums(d, x, pairable)
        parts = _alpha_parts_sums(m_i, s1, s2, dmax, it.mult.take(pairable))
        return parts, None
    if _many_sets(metric.distance, len(d.categories)):
        assert isinstance(metric.distance, SetDistanceMetric)
        parts = _alpha_parts_sets(d, metric.distance)
        return dataclasses.replace(parts, undefined=parts.pe >= 1.0 - 1e-12), None
    w = _alpha_weights(d, metric, totals)
    parts = _alpha_parts_matrix(d, w)
    return dataclasses.replace(parts, undefined=parts.pe >= 1.0 - 1e-12), w


@dataclasses.dataclass(frozen=True, slots=True)
class _Metric:
    """Alpha's metric, chosen once from ``level=``, ``weights=`` or ``distance=``.

    Attributes
    ----------
    kind : {"level", "weights", "distance"}
        Which of the three the metric comes from.
    name : str
        The level, the weights' name ("custom" for a matrix) or the distance's name.
    weights : str or array_like, optional
        Gwet's agreement weights, as given (``kind == "weights"``).
    distance : callable, optional
        The distance (``kind == "distance"``).
    """

    kind: Literal["level", "weights", "distance"]
    name: str
    weights: Any = None
    distance: Distance | None = None

    @property
    def level(self) -> Level:
        """The level of measurement (``kind == "level"``)."""
        return cast(Level, self.name)

    @property
    def by_sums(self) -> bool:
        """Whether alpha comes from per-item sums of values and squares (the interval and
        ordinal levels: no q x q distances)."""
        return self.kind == "level" and self.name in ("interval", "ordinal")


def _alpha_metric(
    data: Any, level: Level | None, weights: Any, distance: Distance | None
) -> _Metric:
    """Alpha's metric: the level (by default the data's), Gwet's weights or a distance."""
    if sum(x is not None for x in (level, weights, distance)) > 1:
        raise InvalidInputError(
            "krippendorff_alpha takes one of level=, weights= or distance=, not several"
        )
    if weights is not None:
        return _Metric("weights", weights if isinstance(weights, str) else "custom", weights)
    if distance is not None:
        return _Metric("distance", str(getattr(distance, "metric", "distance")), None, distance)
    lvl = level
    if lvl is None:
        lvl = data.level if isinstance(data, Ratings | CountsView) else "nominal"
    if lvl not in ("nominal", "ordinal", "interval", "ratio"):
        raise InvalidInputError(
            "The 'level' parameter of krippendorff_alpha must be one of "
            f"{{'nominal', 'ordinal', 'interval', 'ratio'}}. Got {lvl!r} instead."
        )
    if lvl in ("interval", "ratio") and isinstance(data, Ratings):
        _check_numeric(lvl, data.categories)
    return _Metric("level", lvl)


def _check_numeric(lvl: str, categories: tuple[Any, ...]) -> None:
    try:
        np.asarray(categories, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"level={lvl!r} needs numeric labels; the categories are {categories!r}"
        ) from None


def _alpha_base(
    lvl: str, d: Any, n_rated: int, n_pair: int, population_size: float | None, how: str
) -> dict[str, Any]:
    """The fields of an alpha result other than its numbers."""
    return dict(
        name="krippendorff_alpha",
        n_items=n_pair,
        n_raters=d.n_raters,
        categories=d.categories,
        n_items_unpairable=n_rated - n_pair,
        weights=lvl,
        bounds=(-math.inf, 1.0),
        method=f"Krippendorff's alpha, {lvl} metric"
        + (" (Krippendorff's rank-frequency ordinal metric)" if lvl == "ordinal" else "")
        + f"{how}; {TSV} (krippen.alpha.raw)",
        population_size=math.inf if population_size is None else float(population_size),
    )


def _centred(x: FloatArray, totals: FloatArray) -> tuple[FloatArray, float]:
    """Category values centred on their mean over the pairable values and divided by the
    range of the used ones, and the largest squared difference among those (1, or 0 when
    one value is used).

    Alpha's squared-difference metric is scale invariant (each distance is divided by the
    largest), so dividing by the range changes no result; it keeps the squares finite and
    apart from 0 for scores as large as 1e200 or as small as 1e-300.

    >>> x, dmax = _centred(np.array([1e200, 3e200, 5e200]), np.array([1.0, 1.0, 2.0]))
    >>> x.tolist(), dmax
    ([-0.625, -0.125, 0.375], 1.0)
    """
    used = totals > 0
    size = float(np.max(np.abs(x[used])))
    if size > 0:  # first to about 1, so that the sums below cannot overflow
        x = x / size
    x = x - float(np.sum(x * totals) / totals.sum())
    span = float(x[used].max() - x[used].min())
    if span <= 0:
        return x, 0.0
    return x / span, 1.0


def _check_dense_metric(lvl: str, q: int) -> None:
    """Refuse a metric that needs its q x q distances when they would not fit in
    :data:`~accord.agreement.weights.DENSE_WEIGHT_CELLS` cells."""
    if q * q > DENSE_WEIGHT_CELLS:
        raise ManyCategoriesError(
            f"krippendorff_alpha: the {lvl} metric on {q:,} categories would need a "
            f"{q:,} x {q:,} matrix of distances; alpha with "
            f"{option('level', 'interval', 'ordinal')} is computed without one"
        )


def _alpha_weights(d: CountsView, metric: _Metric, totals: FloatArray) -> Any:
    """Agreement weights ``w = 1 - delta^2 / max delta^2`` of alpha's metric (a
    :class:`~accord.agreement.weights.LowRankWeights` for quadratic weights on many
    categories)."""
    if metric.kind == "weights":
        return weight_matrix(metric.weights, d, "krippendorff_alpha")[0]
    scale, lvl, distance = d.category_values, metric.name, metric.distance
    q = scale.size
    if distance is not None:
        delta = np.asarray(distance(scale[:, None], scale[None, :]), dtype=np.float64)
        if delta.shape != (q, q) or not np.all(np.isfinite(delta)) or np.any(delta < 0):
            raise InvalidInputError(
                "distance(x, y) must return finite values >= 0 of shape (q, q) for "
                f"q = {q} categories; got shape {delta.shape}"
            )
        if np.any(np.diag(delta) != 0):
            raise InvalidInputError("distance(x, x) must be 0 for every category")
    elif lvl == "nominal":  # delta = 1 - I, so w = I: nothing q x q when q is large
        out: FloatArray = identity_weights(q)
        return out
    else:
        _check_dense_metric(lvl, q)
        delta = _krippendorff_delta(lvl, scale, totals)
    used = totals > 0
    dmax = float(delta[np.ix_(used, used)].max()) if used.any() else 0.0
    w: FloatArray = 1.0 - delta / dmax if dmax > 0 else np.ones((q, q))
    return w


def _alpha_fields(
    parts: _AlphaParts, n_rated: int, f_pop: float, base: dict[str, Any]
) -> dict[str, Any]:
    """Alpha, its SE, p_a and p_e from the item terms, or NaN with the reason (and a
    warning) when every pairable rating is in one category."""
    if parts.undefined or parts.pe >= 1.0 - 1e-12:
        reason = (
            "all pairable ratings are in one category: expected disagreement is 0 and alpha "
            "is 0/0 (undefined)"
        )
        return undefined_fields(reason, base, stacklevel=5)
    alpha, se, pa, pe = _alpha_finish(parts, n_rated, f_pop)
    out: dict[str, Any] = dict(
        statistic=alpha, standard_error=se, observed_agreement=pa, chance_agreement=pe, **base
    )
    if base["n_items"] < 2:
        out["reason"] = ONE_ITEM
    return out


#: Above this many distinct values, interval/ordinal alpha on ratings skips item x category counts.
_MANY_VALUES = 512


def _alpha_many_values(
    r: Ratings,
    lvl: Level,
    population_size: float | None,
    ci: CIKind,
    n_boot: int,
    rng: RngLike,
) -> Coefficient:
    """Interval or ordinal alpha on many distinct values, from per-rating sums only: O(N)
    memory, no items x values counts and no values x values matrix."""
    if lvl == "interval":
        _check_numeric(lvl, r.categories)
    m_all = np.bincount(r.item_codes, minlength=r.n_items).astype(np.float64)
    pairable_item = m_all >= 2
    n_rated = int(np.count_nonzero(m_all))
    n_pair = int(pairable_item.sum())
    n_raters = int(np.count_nonzero(np.bincount(r.rater_codes, minlength=r.n_raters)))
    base = _alpha_base(
        lvl,
        _RaterView(n_raters, r.categories),
        n_rated,
        n_pair,
        population_size,
        ", from per-item sums of values and squares (no V x V matrix)",
    )
    if n_pair == 0:
        return Coefficient(**undefined_fields(NO_PAIRS, base, stacklevel=5))
    keep = pairable_item[r.item_codes]
    totals = np.bincount(r.label_codes[keep], minlength=r.n_categories).astype(np.float64)
    x = _ordinal_positions(totals) if lvl == "ordinal" else r.category_values
    x, dmax = _centred(x, totals)
    v = x[r.label_codes]
    s1: FloatArray = np.bincount(r.item_codes, weights=v, minlength=r.n_items).astype(float)
    s2: FloatArray = np.bincount(r.item_codes, weights=v * v, minlength=r.n_items).astype(float)
    s1, s2 = s1[pairable_item], s2[pairable_item]
    m_i = m_all[pairable_item]
    parts = _alpha_parts_sums(m_i, s1, s2, dmax)
    out = _alpha_fields(parts, n_rated, population_factor(n_rated, population_size), base)
    if ci == "bootstrap" and "observed_agreement" in out:  # alpha is defined
        feats = np.column_stack([2.0 * (m_i * s2 - s1**2) / (m_i - 1.0), m_i, s1, s2])
        reps, jk = bootstrap(feats, _alpha_from_sums, n_boot=n_boot, rng=rng)
        out.update(replicates=reps, jackknife=jk)
    return Coefficient(**out)


@dataclasses.dataclass(frozen=True, slots=True)
class _RaterView:
    """The raters and categories an alpha result reports (ratings without counts)."""

    n_raters: int
    categories: tuple[Any, ...]


def _alpha_from_sums(t: FloatArray) -> FloatArray:
    """Squared-difference alpha from totals ``[sum D_i/(m_i-1), N, sum x, sum x^2]``."""
    big_n = t[:, 1]
    d_o = t[:, 0] / big_n
    d_e = 2.0 * (big_n * t[:, 3] - t[:, 2] ** 2) / (big_n * (big_n - 1.0))
    res: FloatArray = 1.0 - d_o / d_e
    return res


def _alpha_bootstrap(
    d: CountsView,
    pairable: npt.NDArray[np.bool_],
    lvl: str,
    w: FloatArray | None,
    n_boot: int,
    rng: RngLike,
) -> tuple[FloatArray, FloatArray | None]:
    """Bootstrap of alpha over pairable items, on per-item totals."""
    feats, stat = _alpha_totals(d, pairable, lvl, w)
    return bootstrap(feats, stat, n_boot=n_boot, rng=rng)


def _alpha_totals(
    d: CountsView, pairable: npt.NDArray[np.bool_], lvl: str, w: FloatArray | None
) -> tuple[Any, Callable[[FloatArray], FloatArray]]:
    """Per pairable item features of alpha, and alpha as a function of their totals."""
    pc = d.counts[pairable]
    if w is not None:
        # Fixed weights: alpha from [sum sumq/(m-1), N, counts].
        m = row_sums(pc).astype(np.float64)
        sumq = pair_sums(d, w)[pairable]
        if is_sparse(pc):
            from scipy import sparse

            head = sparse.csr_array(np.column_stack([sumq / (m - 1.0), m]))
            feats: Any = sparse.hstack([head, pc.astype(np.float64)], format="csr")
        else:
            feats = np.column_stack([sumq / (m - 1.0), m, pc])

        def stat_fixed(t: FloatArray) -> FloatArray:
            big_n = t[:, 1]
            pa = (1.0 - 1.0 / big_n) * t[:, 0] / big_n + 1.0 / big_n
            pi = t[:, 2:] / big_n[:, None]
            pe = np.sum(pi * np.asarray(pi @ w), axis=1)
            res: FloatArray = (pa - pe) / (1.0 - pe)
            return res

        return feats, stat_fixed
    m = row_sums(pc)
    q = pc.shape[1]
    if lvl == "interval" or q > 64:
        # Interval (and ordinal with many values, on the full-data positions): D_o and D_e
        # from per-item sums.
        totals = np.asarray(pc.sum(axis=0)).ravel()
        x = _ordinal_positions(totals) if lvl == "ordinal" else d.category_values
        x = x - float(np.sum(x * totals) / totals.sum())
        m_i, s1, s2 = _item_sums(d, x, pairable)
        feats = np.column_stack([2.0 * (m_i * s2 - s1**2) / (m_i - 1.0), m_i, s1, s2])
        return feats, _alpha_from_sums
    # Ordinal with few categories: coincidences, metric recomputed per replicate.
    coinc = (pc[:, :, None] * pc[:, None, :] - pc[:, :, None] * np.eye(q)[None]) / (m - 1.0)[
        :, None, None
    ]
    feats = coinc.reshape(pc.shape[0], q * q)

    def stat_ord(t: FloatArray) -> FloatArray:
        o = t.reshape(-1, q, q)
        n_c = o.sum(axis=2)
        big_n = n_c.sum(axis=1)
        pos = np.cumsum(n_c, axis=1) - n_c / 2.0
        delta = (pos[:, :, None] - pos[:, None, :]) ** 2
        d_o = np.sum(o * delta, axis=(1, 2)) / big_n
        d_e = np.einsum("bk,bkl,bl->b", n_c, delta, n_c) / (big_n * (big_n - 1.0))
        res: FloatArray = 1.0 - d_o / d_e
        return res

    return feats, stat_ord


def alpha_item_totals(
    data: Ratings, level: Level
) -> tuple[Any, Callable[[FloatArray], FloatArray], npt.NDArray[np.bool_]] | None:
    """Krippendorff's alpha as a function of item totals, for resampling items.

    Returns per pairable item features ``F`` (rows in item order), the statistic mapping
    totals of shape (B, m) to alpha (shape (B,)), and which items of ``data`` are pairable;
    ``statistic(M @ F)`` with ``M`` item multiplicities (resamples x pairable items) is alpha
    on each resample: the features and statistic :func:`krippendorff_alpha`'s bootstrap
    resamples. None when alpha is undefined (no pairable item, or all pairable ratings in
    one category).
    """
    metric = _alpha_metric(data, level, None, None)
    d = prepare(data, None, "krippendorff_alpha")
    _check_alpha_level(metric.name, d.categories, d.ordered)
    it = d.items
    if it.n2 == 0:
        return None
    parts, w = _alpha_parts(d, metric)
    if parts.undefined or parts.pe >= 1.0 - 1e-12:
        return None
    feats, stat = _alpha_totals(d, it.two, metric.name, w)
    assert d.item_row is not None  # a view of ratings
    rated = np.flatnonzero(np.asarray(d.item_row) >= 0)  # the items of the rows of d
    pairable = np.zeros(data.n_items, dtype=bool)
    pairable[rated[np.asarray(it.two, dtype=bool)]] = True
    return feats, stat, pairable
