"""The multi-valued alpha of Krippendorff & Craggs (2016): alpha for raters who give a set of
values to each item."""

from __future__ import annotations

import math
from typing import Any, Never

import numpy as np

from .._errors import InvalidInputError, option
from .._results import Coefficient, undefined_fields
from .._types import BoolArray, FloatArray
from ..data.ratings import Ratings
from ..data.source import refuse_read_options
from ..stats.counts import ItemCategoryCounts
from .set_distances import SetDistanceMetric, membership_of, pair_distance_sums
from .weights import DENSE_WEIGHT_CELLS

__all__ = ["dice_distance_matrix", "expected_set_disagreement", "multi_valued_alpha"]


def dice_distance_matrix(membership: BoolArray) -> FloatArray:
    r"""The nominal difference of two sets of values in the multi-valued alpha:
    :math:`\delta(C, K) = 1 - 2|C \cap K| / (|C| + |K|)`, 0 for two empty sets.

    Examples
    --------
    >>> dice_distance_matrix(np.array([[True, True], [True, False], [False, False]]))
    array([[0.        , 0.33333333, 1.        ],
           [0.33333333, 0.        , 1.        ],
           [1.        , 1.        , 0.        ]])
    """
    counts = membership.astype(np.float64)
    inter = counts @ counts.T
    sizes = counts.sum(axis=1)
    total = sizes[:, None] + sizes[None, :]
    out: FloatArray = np.where(total > 0, 1.0 - 2.0 * inter / np.where(total > 0, total, 1), 0.0)
    return out


def expected_set_disagreement(label_counts: FloatArray, size_shares: FloatArray) -> float:
    r"""The expected disagreement :math:`{}_{mv}D_e` of the multi-valued alpha.

    Two sets are drawn by chance: their sizes :math:`a, b` independently with the observed
    shares :math:`P_a, P_b` of pairable sets of each size, and their values from the pool
    of the :math:`n_c` pairable occurrences of each value, without replacement: a pair
    (C, K) has weight :math:`\prod_{c \in C} n_c \prod_{k \in K} (n_k - [k \in C])`.
    :math:`D_e = \sum_{a,b} P_a P_b\, E_{ab}[\delta]`, the weighted mean of the nominal
    difference over the pairs of sizes a and b (a pair of sizes no two sets can be drawn
    with adds nothing).

    The weights of every (C, K) are summed by the value of :math:`|C \cap K|` through the
    product over values of :math:`1 + n_c x + n_c y + n_c(n_c - 1)\,xyz` (the value in
    neither set, in C only, in K only, in both), whose coefficient of
    :math:`x^a y^b z^t` is the total weight of the pairs of sizes a, b sharing t values: no
    enumeration of the sets.

    Parameters
    ----------
    label_counts : ndarray of float64, shape (n_values,)
        :math:`n_c`: pairable occurrences of each value.
    size_shares : ndarray of float64, shape (max_size + 1,)
        :math:`P_a`: share of the pairable sets that have ``a`` values.

    Examples
    --------
    Two values seen twice each, every set of one value: chance draws the same value with
    weight 2 * 1 and different values with weight 2 * 2, so D_e = 8 / 12:

    >>> round(expected_set_disagreement(np.array([2.0, 2.0]), np.array([0.0, 1.0])), 6)
    0.666667
    """
    top = size_shares.size - 1
    poly = np.zeros((top + 1, top + 1, top + 1))  # [a, b, t]
    poly[0, 0, 0] = 1.0
    for n in label_counts[label_counts > 0]:
        new = poly.copy()
        new[1:, :, :] += n * poly[:-1, :, :]
        new[:, 1:, :] += n * poly[:, :-1, :]
        new[1:, 1:, 1:] += n * (n - 1) * poly[:-1, :-1, :-1]
        poly = new
    a = np.arange(top + 1)[:, None, None]
    b = np.arange(top + 1)[None, :, None]
    t = np.arange(top + 1)[None, None, :]
    total = a + b
    delta = np.where(total > 0, 1.0 - 2.0 * t / np.where(total > 0, total, 1), 0.0)
    weight = poly.sum(axis=2)
    mean = np.divide(
        (poly * delta).sum(axis=2), weight, out=np.zeros_like(weight), where=weight > 0
    )
    return float(size_shares @ mean @ size_shares)


def multi_valued_alpha(data: Ratings | ItemCategoryCounts, **read_options: Never) -> Coefficient:
    r"""The multi-valued alpha (:math:`{}_{mv}\alpha`) of Krippendorff & Craggs (2016).

    For raters who give each item a *set* of nominal values (``multi_label=True``):

    .. math::

        {}_{mv}\alpha = 1 - \frac{{}_{mv}D_o}{{}_{mv}D_e}, \qquad
        {}_{mv}D_o = \frac{1}{n_{..}} \sum_{C,K} o_{CK}\, \delta(C, K), \qquad
        \delta(C, K) = 1 - \frac{2|C \cap K|}{|C| + |K|}

    with the coincidences :math:`o_{CK} = \sum_i n_{iC}(n_{iK} - [C = K])/(m_i - 1)` of the
    sets given to the pairable items (:math:`m_i \ge 2` sets), :math:`n_{..}` the pairable
    sets, and :math:`{}_{mv}D_e` the disagreement of sets drawn by chance: sizes by their
    observed shares, values from the pool of observed values
    (:func:`expected_set_disagreement`). Shared values do not count as disagreement; the
    empty set (no value) is a set, at difference 1 from any other.

    Parameters
    ----------
    data : Ratings or ItemCategoryCounts
        Set-valued ratings, or their item x category counts whose categories are frozensets.

    Returns
    -------
    Coefficient
        ``statistic``; ``observed_agreement`` and ``chance_agreement`` are
        :math:`1 - D_o` and :math:`1 - D_e`; ``n_items`` counts the pairable items;
        ``standard_error`` is NaN (no variance formula is published).

    Notes
    -----
    Observed disagreement is Krippendorff's alpha's with the difference
    :math:`\delta(C, K)`; what sets the multi-valued alpha apart is the chance model, which
    draws sets value by value instead of drawing among the sets observed. When every
    pairable set is the same, :math:`D_e = 0` and the statistic is NaN with a reason.

    References
    ----------
    .. [1] Krippendorff, K., & Craggs, R. (2016). The reliability of multi-valued coding of
       data. Communication Methods and Measures, 10(4), 181-198.
       https://doi.org/10.1080/19312458.2016.1228863

    Examples
    --------
    Three raters, four items (Krippendorff & Craggs 2016, Table 3): the third rater left out
    item 1, the first gave item 3 no value, item 4 has one set only.

    >>> import pandas as pd, accord
    >>> frame = pd.DataFrame({
    ...     "item": [1, 1, 2, 2, 2, 3, 3, 3, 4],
    ...     "rater": ["F", "G", "F", "G", "H", "F", "G", "H", "F"],
    ...     "label": [["b", "d"], ["d"], ["a", "b", "d"], ["b"], ["b", "d"], [], ["a"],
    ...               ["a"], ["a"]]})
    >>> r = accord.Ratings.from_long(frame, item="item", rater="rater", label="label",
    ...                              multi_label=True)
    >>> round(multi_valued_alpha(r).statistic, 4)
    0.2866
    """
    refuse_read_options("multi_valued_alpha", read_options)
    membership = membership_of(data)
    if membership is None:
        raise InvalidInputError(
            "multi_valued_alpha compares sets of values, and these ratings have one label "
            f"each; read them with {option('multi_label', True)}"
        )
    many = len(data.categories) ** 2 > DENSE_WEIGHT_CELLS  # no q x q: pairs within items
    stats = (
        data
        if isinstance(data, ItemCategoryCounts)
        else ItemCategoryCounts.from_ratings(data, sparse=many)
    )
    counts = stats.counts if many else stats.dense()
    per_item = np.asarray(counts.sum(axis=1)).ravel()
    pairable = per_item >= 2
    n = counts[pairable].astype(np.float64)
    m = per_item[pairable].astype(np.float64)
    categories = data.categories
    base: dict[str, Any] = dict(
        name="multi_valued_alpha",
        n_items=int(pairable.sum()),
        n_raters=_raters_of(data),
        categories=categories,
        n_items_unpairable=int(np.count_nonzero(per_item > 0) - pairable.sum()),
        weights="nominal",
        bounds=(-math.inf, 1.0),
        method="Krippendorff & Craggs (2016) multi-valued alpha, nominal values; no standard error",
    )
    total = float(n.sum())
    if total == 0:
        reason = "no item has two or more sets of values: nothing to compare"
        return Coefficient(**undefined_fields(reason, base))
    observed = _observed(n, m, membership, many) / total
    set_counts = np.asarray(n.sum(axis=0)).ravel()
    sizes = membership.sum(axis=1)
    shares = np.bincount(sizes, weights=set_counts, minlength=int(sizes.max()) + 1) / total
    expected = expected_set_disagreement(set_counts @ membership.astype(np.float64), shares)
    if expected <= 1e-12:
        reason = (
            "every pairable set of values is the same: expected disagreement is 0 and the "
            "multi-valued alpha is 0/0 (undefined)"
        )
        return Coefficient(**undefined_fields(reason, base))
    return Coefficient(
        statistic=1.0 - observed / expected,
        standard_error=math.nan,
        observed_agreement=1.0 - observed,
        chance_agreement=1.0 - expected,
        # the SE is NaN by design, and says why (as Light's kappa does)
        reason="no standard error: Krippendorff & Craggs (2016) give none",
        **base,
    )


def _observed(n: Any, m: FloatArray, membership: BoolArray, many: bool) -> float:
    """The coincidences weighted by the nominal difference, summed: from the q x q
    coincidence matrix, or with ``many`` sets from the pairs of sets within each pairable
    item (:func:`~accord.agreement.set_distances.pair_distance_sums`), never q x q."""
    if many:
        within = pair_distance_sums(n, SetDistanceMetric("dice", membership))
        return float(np.sum(within / (m - 1)))
    delta = dice_distance_matrix(membership)
    scaled = n / (m - 1)[:, None]
    coincidences = scaled.T @ n - np.diag(scaled.sum(axis=0))
    return float((coincidences * delta).sum())


def _raters_of(data: Ratings | ItemCategoryCounts) -> int:
    """Raters with a rating (Ratings), or the most sets one item has (counts)."""
    if isinstance(data, Ratings):
        return int(np.count_nonzero(np.bincount(data.rater_codes, minlength=data.n_raters)))
    return int(data.totals().max()) if data.shape[0] else 0
