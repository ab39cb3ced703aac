"""Specific agreement among many raters: the mean over rater pairs and the pooled form.

Two estimands, under two names, because they answer different questions and differ in value:

- :func:`pairwise_specific_agreement`: the **mean over rater pairs** of each pair's positive
  specific agreement (PSA = F1), with its spread over pairs. This is the "average pairwise
  F-measure" of Hripcsak & Rothschild (2005): every pair of raters counts once, whatever the
  number of items it shares or its number of positive ratings.
- :func:`pooled_specific_agreement`: the **pooled** specific agreement of Uebersax,
  ``sum_i n_ic (n_ic - 1) / sum_i n_ic (n_i - 1)`` from the item x category counts: the
  probability that, for a rating of category c drawn at random and another rating of the same
  item drawn at random, the second is also c. Pairs with more positive ratings weigh more.

With two raters both equal the two-rater :func:`~accord.specific_agreement`.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable
from typing import Any, Literal, Never, TypeAlias

import numpy as np
import pandas as pd

from .._errors import DegenerateDataWarning, InvalidInputError, warn_degenerate
from .._results import ConfidenceInterval, check_level, plain_fields, to_plain
from .._types import FloatArray, RngLike
from ..data.ratings import Ratings
from ..data.source import refuse_read_options
from ..stats.pairs import PairTables
from ._counts import prepare
from ._shared import rating_counts
from ._tables import pair_features, pair_mean_bootstrap, pair_specific, positive_index
from .inference import (
    NO_REPLICATES,
    BootstrapOnly,
    bootstrap,
    bootstrap_ci_method,
    check_n_boot,
)
from .specific import (
    ARRAYS,
    NegativeReplicates,
    Which,
    WilsonSpecific,
    _wilson,
    check_which,
    with_intervals,
)

__all__ = [
    "PairwiseSpecificAgreement",
    "PooledSpecificAgreement",
    "pairwise_specific_agreement",
    "pooled_specific_agreement",
]

BootCI: TypeAlias = Literal["percentile", "bca"]


# ------------------------------------------------------------------ shared helpers


def _nanmean(values: FloatArray, axis: int) -> FloatArray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        out: FloatArray = np.nanmean(values, axis=axis)
    return out


def _nanstd0(values: FloatArray, axis: int) -> FloatArray:
    """Population SD (ddof=0), NaN values left out."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        out: FloatArray = np.nanstd(values, axis=axis, ddof=0)
    return out


def _boot_ci(
    value: float, reps: FloatArray | None, jack: FloatArray | None, level: float, method: str
) -> ConfidenceInterval:
    from .._bootstrap import bootstrap_interval

    advice = (
        "; pooled_specific_agreement, a ratio of sums over the pairs with an analytic "
        "interval, is not biased by pairs that share few items"
    )
    return bootstrap_interval(value, reps, jack, level=level, method=method, advice=advice)


# ------------------------------------------------------------ mean over rater pairs


@dataclasses.dataclass(frozen=True, slots=True)
class PairwiseSpecificAgreement(BootstrapOnly, NegativeReplicates):
    """Mean over rater pairs of positive (and negative) specific agreement, with its spread.

    ``statistic`` is the mean over rater pairs of PSA (= F1) of the ``positive`` category and
    ``standard_error`` the SD of its bootstrap replicates over items (NaN without bootstrap).

    Attributes
    ----------
    positive : object
        The category treated as positive.
    sd_over_pairs : float
        Population standard deviation (ddof=0) of PSA over the pairs with a defined PSA: the
        spread among the panel's pairs, not a standard error.
    negative_agreement, negative_sd_over_pairs : float
        Mean and population SD over pairs of NSA, ``2d / (2d + b + c)`` with the other
        categories pooled as negative.
    negative_standard_error : float
        Bootstrap SD of the mean NSA (NaN without bootstrap).
    n_pairs : int
        Rater pairs kept (co-rated at least ``min_items`` items).
    n_pairs_defined : int
        Kept pairs whose PSA is defined (at least one positive rating between them).
    min_items : int
        Minimum co-rated items for a pair to be kept.
    pairs : pandas.DataFrame
        One row per kept pair: ``rater_a``, ``rater_b``, ``n_items``, ``a``, ``b``, ``c``,
        ``d`` (the pair's 2 x 2 table for ``positive``), ``specific_agreement`` (PSA),
        ``negative_agreement`` (NSA).
    matrix : pandas.DataFrame
        Raters x raters PSA, symmetric; NaN on the diagonal and for pairs not kept.
    per_category : pandas.DataFrame
        One row per category: ``category``, ``mean`` (over pairs of ``2 n_cc / (n_c. +
        n_.c)``), ``sd_over_pairs`` (ddof=0), ``n_pairs`` (pairs where it is defined),
        ``standard_error`` (bootstrap SD), ``ci_low``, ``ci_high`` (bootstrap 95%, BCa when
        leave-one-out values exist, else percentile; NaN without bootstrap).
    n_boot : int
        Bootstrap replicates drawn (0: none).
    negative_replicates, negative_jackknife : ndarray or None
        Bootstrap and leave-one-item-out values of the mean NSA.
    """

    positive: Any = None
    sd_over_pairs: float = math.nan
    negative_agreement: float = math.nan
    negative_sd_over_pairs: float = math.nan
    negative_standard_error: float = math.nan
    n_pairs: int = 0
    n_pairs_defined: int = 0
    min_items: int = 1
    pairs: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    matrix: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    per_category: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    n_boot: int = 0

    NO_BOOTSTRAP = NO_REPLICATES

    def confidence_interval(  # type: ignore[override]
        self, level: float = 0.95, method: BootCI | None = None, *, which: Which = "positive"
    ) -> ConfidenceInterval:
        """Bootstrap interval over items for the mean PSA (or NSA with ``which="negative"``).

        Parameters
        ----------
        level : float, default 0.95
            Any level strictly between 0 and 1.
        method : {"bca", "percentile"}, optional
            Default BCa (percentile when no leave-one-out values exist). The mean of pairwise
            PSA has no analytic standard error; the interval needs ``n_boot > 0``.
        which : {"positive", "negative"}
        """
        check_level(level)
        check_which(which, "PairwiseSpecificAgreement.confidence_interval")
        owner = "PairwiseSpecificAgreement.confidence_interval"
        chosen = bootstrap_ci_method(method, self.jackknife, owner)
        if which == "positive":
            return _boot_ci(self.statistic, self.replicates, self.jackknife, level, chosen)
        return _boot_ci(
            self.negative_agreement,
            self.negative_replicates,
            self.negative_jackknife,
            level,
            chosen,
        )

    def to_dict(self, level: float = 0.95) -> dict[str, Any]:
        """Plain dict of the result with the bootstrap intervals of the mean PSA and NSA."""
        out = plain_fields(self, (*ARRAYS, "matrix"))
        out["raters"] = [str(r) for r in self.matrix.index]
        out["matrix"] = to_plain(self.matrix.to_numpy())
        pos = neg = ConfidenceInterval(math.nan, math.nan)
        if self.replicates is not None:
            pos = self.confidence_interval(level)
            neg = self.confidence_interval(level, which="negative")
        return with_intervals(out, self, level, pos, neg)


def _pairable_features(ratings: Ratings, pt: PairTables, kept: Any) -> Any:
    """Per-item contributions to the kept pair tables, rows of items with two ratings."""
    feats = pair_features(ratings, pt, kept)
    per_item = np.bincount(ratings.item_codes, minlength=ratings.n_items)
    return feats[per_item >= 2]


def _pair_frames(
    pt: PairTables, keep: Any, tables: FloatArray, k: int, psa: FloatArray, nsa: FloatArray
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The long table of the kept pairs (a, b, c, d of the positive category, PSA, NSA) and
    the rater x rater matrix of PSA."""
    raters = np.asarray(pt.raters, dtype=object)
    labels = pd.Index([str(x) for x in raters], name="rater")
    mat = np.full((raters.size, raters.size), np.nan)
    idx = pt.pairs[keep]
    mat[idx[:, 0], idx[:, 1]] = psa
    mat[idx[:, 1], idx[:, 0]] = psa
    a = tables[:, k, k]
    row_k = tables[:, k, :].sum(axis=-1)
    col_k = tables[:, :, k].sum(axis=-1)
    pairs = pd.DataFrame(
        {
            "rater_a": [str(raters[i]) for i in idx[:, 0]],
            "rater_b": [str(raters[j]) for j in idx[:, 1]],
            "n_items": pt.tables.sum(axis=(1, 2))[keep],
            "a": a,
            "b": row_k - a,
            "c": col_k - a,
            "d": tables.sum(axis=(1, 2)) - row_k - col_k + a,
            "specific_agreement": psa,
            "negative_agreement": nsa,
        }
    )
    return pairs, pd.DataFrame(mat, index=labels, columns=labels)


@dataclasses.dataclass(frozen=True, slots=True)
class _PairBootstrap:
    """The bootstrap over items of the mean over pairs: replicates of PSA (``reps``) and NSA
    (``nreps``), their SEs, and each category's SE and interval."""

    reps: FloatArray | None
    jack: FloatArray | None
    nreps: FloatArray | None
    njack: FloatArray | None
    se: float
    nse: float
    cat_se: FloatArray
    low: FloatArray
    high: FloatArray

    @classmethod
    def none(cls, q: int) -> _PairBootstrap:
        nan = np.full(q, np.nan)
        return cls(None, None, None, None, math.nan, math.nan, nan, nan.copy(), nan.copy())

    @classmethod
    def run(
        cls,
        data: Ratings,
        pt: PairTables,
        kept: Any,
        k: int,
        mean_cat: FloatArray,
        n_boot: int,
        rng: RngLike,
    ) -> _PairBootstrap:
        q = len(data.categories)
        feats = _pairable_features(data, pt, kept)
        n_kept = kept.size

        def stat(t: FloatArray) -> FloatArray:
            cat, _, neg = pair_specific(t.reshape(t.shape[0], n_kept, q, q), k)
            return np.concatenate([_nanmean(cat, 1), _nanmean(neg, 1)[:, None]], axis=1)

        def per_pair(t: FloatArray) -> FloatArray:
            cat, _, neg = pair_specific(t, k)
            return np.concatenate([cat, neg[:, None]], axis=1)

        all_reps, all_jack = pair_mean_bootstrap(
            feats, stat, per_pair, n_kept, q, n_boot=n_boot, rng=rng
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            sds = np.nanstd(all_reps, axis=0, ddof=1)
        low, high = np.full(q, np.nan), np.full(q, np.nan)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", DegenerateDataWarning)
            for c in range(q):
                if np.isfinite(mean_cat[c]):
                    ci = _boot_ci(
                        float(mean_cat[c]),
                        all_reps[:, c],
                        None if all_jack is None else all_jack[:, c],
                        0.95,
                        "bca" if all_jack is not None else "percentile",
                    )
                    low[c], high[c] = ci.low, ci.high
        _warn_categories(caught, data.categories, np.isfinite(mean_cat) & np.isnan(low))
        return cls(
            all_reps[:, k],
            None if all_jack is None else all_jack[:, k],
            all_reps[:, q],
            None if all_jack is None else all_jack[:, q],
            float(sds[k]),
            float(sds[q]),
            sds[:q],
            low,
            high,
        )


def _warn_categories(caught: list[Any], categories: Any, failed: Any) -> None:
    """One warning for the categories whose ``per_category`` interval is NaN (the first
    category's reason), and every other warning caught, as it was."""
    reasons = [w for w in caught if issubclass(w.category, DegenerateDataWarning)]
    for w in caught:
        if w not in reasons:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if reasons:
        names = ", ".join(repr(categories[c]) for c in np.flatnonzero(failed))
        warn_degenerate(f"per_category, categories {names}: {reasons[0].message}", stacklevel=5)


def _check_pairwise(data: Any, min_items: Any, n_boot: Any, owner: str) -> None:
    if not isinstance(data, Ratings):
        raise InvalidInputError(
            f"{owner} needs ratings with rater ids (Ratings); got a {type(data).__name__}. "
            "For rater-pair tables use pairwise_agreement(..., measure='specific_agreement')."
        )
    if not isinstance(min_items, int | np.integer) or min_items < 1:
        raise InvalidInputError(
            f"The 'min_items' parameter of {owner} must be an integer >= 1. "
            f"Got {min_items!r} instead."
        )
    check_n_boot(n_boot, owner)


def pairwise_specific_agreement(
    data: Ratings,
    /,
    *,
    positive: Any = None,
    min_items: int = 1,
    n_boot: int = 2000,
    rng: RngLike = None,
    **read_options: Never,
) -> PairwiseSpecificAgreement:
    r"""Mean over rater pairs of positive specific agreement (the average pairwise F1).

    For every pair of raters (a, b) with its 2 x 2 table on the items both rated
    (``a_ab``: both positive, ``b_ab + c_ab``: one positive):

    .. math::

        \overline{PSA} = \frac{1}{|P|} \sum_{(a,b) \in P} \frac{2 a_{ab}}{2 a_{ab} + b_{ab}
        + c_{ab}}, \qquad
        SD = \sqrt{\frac{1}{|P|} \sum_{(a,b) \in P} (PSA_{ab} - \overline{PSA})^2}

    and likewise NSA and the specific agreement of every category.

    Parameters
    ----------
    data : Ratings
        Ratings with rater ids (two or more raters).
    positive : category, optional
        The category treated as positive (default: the first category). For q > 2
        categories, NSA pools the others as negative; ``per_category`` gives every category.
    min_items : int, default 1
        Pairs that co-rated fewer items are left out.
    n_boot : int, default 2000
        Bootstrap replicates over items (0: none). The mean over pairs has no analytic
        standard error, so the bootstrap is on by default.
    rng : numpy.random.Generator, int or None
        Random source of the bootstrap.

    Returns
    -------
    PairwiseSpecificAgreement
        ``statistic`` (mean PSA), ``sd_over_pairs``, ``standard_error`` (bootstrap),
        ``negative_agreement``, ``per_category``, the long ``pairs`` table and the rater x
        rater ``matrix``; ``confidence_interval(level, method, which=...)``.

    Notes
    -----
    This is the agreement measure of Hripcsak & Rothschild (2005) for tasks without a count of
    negative cases: PSA equals the balanced F-measure of either rater against the other, and
    the overall agreement is the average over all pairs of raters. Each pair uses the items
    both raters rated. Pairs whose PSA is undefined (neither rater used the positive category
    on their common items) are left out of the mean and the SD (``n_pairs_defined`` counts
    those kept); with none defined the statistic is NaN with a ``reason``.

    ``sd_over_pairs`` is the population SD (ddof=0) over the pairs: it describes the spread
    among all the pairs of this panel, which are not a sample of pairs. (The ``sd`` of
    :func:`~accord.pairwise_agreement` is the sample SD, ddof=1.) It is not a standard error:
    pairs share raters and items, so their PSAs are not independent. The standard error
    comes from resampling items with replacement (``n_boot`` replicates, vectorised on the
    per-item contributions to the pair tables); the default interval is BCa.

    The mean over pairs weighs every pair equally; :func:`pooled_specific_agreement` weighs
    each pair by its number of positive ratings. The two coincide with two raters, where both
    equal :func:`~accord.specific_agreement`.

    References
    ----------
    .. [1] Hripcsak, G., & Rothschild, A. S. (2005). Agreement, the F-measure, and
       reliability in information retrieval. Journal of the American Medical Informatics
       Association, 12(3), 296-298. https://doi.org/10.1197/jamia.M1733
    .. [2] Fleiss, J. L. (1975). Measuring agreement between two judges on the presence or
       absence of a trait. Biometrics, 31(3), 651-659. https://doi.org/10.2307/2529549

    Examples
    --------
    Three raters, ten items, binary labels (rows items); pair PSAs 0.666667, 0.714286,
    0.615385 and their mean 0.665446:

    >>> import accord
    >>> r = accord.Ratings.from_wide([[1, 1, 1], [1, 1, 1], [1, 0, 1], [0, 0, 1], [1, 1, 1],
    ...                               [0, 1, 1], [0, 0, 1], [1, 0, 1], [0, 0, 1], [0, 0, 0]])
    >>> res = pairwise_specific_agreement(r, positive=1, n_boot=200, rng=1)
    >>> res.pairs["specific_agreement"].round(6).tolist()
    [0.666667, 0.714286, 0.615385]
    >>> round(res.statistic, 6), round(res.sd_over_pairs, 6)
    (0.665446, 0.040385)
    """
    refuse_read_options("pairwise_specific_agreement", read_options)
    owner = "pairwise_specific_agreement"
    _check_pairwise(data, min_items, n_boot, owner)
    categories = data.categories
    q = len(categories)
    k = positive_index(categories, positive, owner)
    pt = PairTables.from_ratings(data)
    n_common = pt.tables.sum(axis=(1, 2))
    keep = n_common >= min_items
    kept = np.flatnonzero(keep)
    tables = pt.tables[keep].astype(np.float64)
    per_cat, psa, nsa = pair_specific(tables, k)
    pairs, matrix = _pair_frames(pt, keep, tables, k, psa, nsa)
    n_pairable, n_single, n_raters = rating_counts(data)
    mean_cat = _nanmean(per_cat, 0) if kept.size else np.full(q, np.nan)
    sd_cat = _nanstd0(per_cat, 0) if kept.size else np.full(q, np.nan)
    defined_cat = np.isfinite(per_cat).sum(axis=0) if kept.size else np.zeros(q, np.int64)
    value = float(mean_cat[k])
    neg_value = float(_nanmean(nsa, 0)) if kept.size else math.nan
    reason = None
    if math.isnan(value):
        reason = (
            f"no rater pair with >= {min_items} co-rated items has a rating of category "
            f"{categories[k]!r}: every pair's positive specific agreement is 0/0 (undefined)"
            if kept.size
            else f"no rater pair co-rated {min_items} or more items"
        )
        warn_degenerate(reason)
    boot = _PairBootstrap.none(q)
    if n_boot > 0 and kept.size and n_pairable >= 1:
        boot = _PairBootstrap.run(data, pt, kept, k, mean_cat, int(n_boot), rng)
    reps, jack, nreps, njack = boot.reps, boot.jack, boot.nreps, boot.njack
    se, nse, cat_se, cat_low, cat_high = boot.se, boot.nse, boot.cat_se, boot.low, boot.high
    per_category = pd.DataFrame(
        dict(category=list(categories), mean=mean_cat, sd_over_pairs=sd_cat, n_pairs=defined_cat)
        | dict(standard_error=cat_se, ci_low=cat_low, ci_high=cat_high)
    )
    method = (
        "mean over rater pairs of positive specific agreement 2a/(2a+b+c) = F1 (Hripcsak & "
        f"Rothschild 2005), pairs with >= {min_items} co-rated items and a defined value; SD "
        "over pairs with ddof=0; "
        + (
            f"SE: bootstrap over items ({n_boot} replicates)"
            if reps is not None
            else "no analytic SE (n_boot > 0 gives a bootstrap one)"
        )
    )
    return PairwiseSpecificAgreement(
        name="pairwise_specific_agreement",
        statistic=value,
        standard_error=se,
        n_items=n_pairable,
        n_raters=n_raters,
        categories=categories,
        method=method,
        n_items_unpairable=n_single,
        reason=reason,
        bounds=(0.0, 1.0),
        replicates=reps,
        jackknife=jack,
        positive=categories[k],
        sd_over_pairs=float(sd_cat[k]),
        negative_agreement=neg_value,
        negative_sd_over_pairs=float(_nanstd0(nsa, 0)) if kept.size else math.nan,
        negative_standard_error=nse,
        n_pairs=int(kept.size),
        n_pairs_defined=int(defined_cat[k]),
        min_items=int(min_items),
        pairs=pairs,
        matrix=matrix,
        per_category=per_category,
        n_boot=int(n_boot) if reps is not None else 0,
        negative_replicates=nreps,
        negative_jackknife=njack,
    )


# ----------------------------------------------------------------------- pooled


@dataclasses.dataclass(frozen=True, slots=True)
class PooledSpecificAgreement(WilsonSpecific):
    """Pooled specific agreement of many raters (Uebersax), per category.

    ``statistic`` is the pooled positive specific agreement of the ``positive`` category and
    ``standard_error`` its delta-method SE.

    Attributes
    ----------
    positive : object
        The category treated as positive.
    negative_agreement, negative_standard_error : float
        Pooled NSA (the other categories pooled as negative) and its delta-method SE.
    agreeing_pairs, positive_pairs : float
        ``sum_i n_ik (n_ik - 1)`` and ``sum_i n_ik (n_i - 1)`` of the positive category ``k``:
        the ordered pairs of ratings of one item that are both ``k``, and those whose first
        rating is ``k``.
    per_category : pandas.DataFrame
        One row per category: ``category``, ``agreeing_pairs``, ``positive_pairs``,
        ``specific_agreement``, ``standard_error`` (delta method), ``ci_low``, ``ci_high``
        (Wilson-type 95%).
    n_boot : int
        Bootstrap replicates drawn (0: none).
    negative_replicates, negative_jackknife : ndarray or None
        Bootstrap and leave-one-item-out values of NSA (``replicates``/``jackknife`` hold
        PSA's).
    """

    positive: Any = None
    negative_agreement: float = math.nan
    negative_standard_error: float = math.nan
    agreeing_pairs: float = math.nan
    positive_pairs: float = math.nan
    per_category: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    n_boot: int = 0

    def effective_n(self, which: Which) -> Callable[[float, float], float]:
        """``PSA (1 - PSA) / Var`` (or NSA's), NaN when the value is 0 or 1, where the
        delta-method variance is 0."""
        return _effective_n


def _effective_n(p: float, se: float) -> float:
    """``p (1 - p) / se^2``; NaN unless ``0 < p < 1`` and ``se > 0``."""
    if not (math.isfinite(p) and math.isfinite(se)) or not 0.0 < p < 1.0 or se <= 0.0:
        return math.nan
    return p * (1.0 - p) / (se * se)


def _ratio_se(x: FloatArray, y: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Ratio ``sum x / sum y`` per column and its delta-method SE over rows (items)."""
    num = x.sum(axis=0)
    den = y.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
        resid = x - ratio * y
        se = np.where(
            den > 0, np.sqrt((resid * resid).sum(axis=0)) / np.where(den > 0, den, 1.0), np.nan
        )
    return ratio, se


def pooled_specific_agreement(
    data: Any,
    /,
    *,
    positive: Any = None,
    categories: Any = None,
    n_boot: int = 0,
    rng: RngLike = None,
    **read_options: Never,
) -> PooledSpecificAgreement:
    r"""Pooled specific agreement of many raters (Uebersax), per category.

    With ``n_ic`` the ratings of item ``i`` in category ``c`` and ``n_i`` its ratings:

    .. math::

        PSA_c = \frac{\sum_i n_{ic}(n_{ic} - 1)}{\sum_i n_{ic}(n_i - 1)}

    the share of ordered pairs of ratings of one item, the first of category c, whose second
    rating is also c. NSA applies the same formula to the count of the other categories,
    ``n_i - n_ik``.

    Parameters
    ----------
    data : Ratings, ItemCategoryCounts or array_like of shape (n_items, q)
        Ratings, or item x category counts (raters need not be identified).
    positive : category, optional
        The category treated as positive (default: the first category).
    categories : sequence, optional
        Category names for an array of counts.
    n_boot : int, default 0
        Bootstrap replicates over items for percentile and BCa intervals (0: none).
    rng : numpy.random.Generator, int or None
        Random source of the bootstrap.

    Returns
    -------
    PooledSpecificAgreement
        ``statistic`` (pooled PSA), ``standard_error`` (delta method),
        ``negative_agreement``, ``negative_standard_error``, ``per_category``,
        ``observed_agreement`` and ``confidence_interval(level, method, which=...)`` with
        methods ``"wilson"`` (default), ``"wald"``, ``"percentile"``, ``"bca"``.

    Notes
    -----
    Items with fewer than two ratings carry no pair and are left out (counted in
    ``n_items_unpairable``). Summed over the categories the numerators and denominators give
    the overall percent agreement of Fleiss (1971), stored as ``observed_agreement``. With
    complete data and two raters, ``sum_i n_ic (n_ic - 1) = 2a`` and ``sum_i n_ic (n_i - 1)
    = 2a + b + c``: pooled PSA is the two-rater PSA. In general it is the ratio of the sums
    over rater pairs of ``2a`` and ``2a + b + c``, so each pair weighs by its number of
    positive ratings, where :func:`pairwise_specific_agreement` averages the pairs' ratios.

    The standard error is the delta-method (linearisation) SE of a ratio of item totals,
    ``x_i = n_ic (n_ic - 1)``, ``y_i = n_ic (n_i - 1)``, ``R = sum x / sum y``:

    .. math::

        \widehat{\mathrm{Var}}(R) = \frac{\sum_i (x_i - R\, y_i)^2}{\left(\sum_i y_i\right)^2}

    which for two raters is exactly the Graham & Bull (1998) variance
    ``4a(b+c)(a+b+c) / (2a+b+c)^4`` of :func:`~accord.specific_agreement`. The default
    Wilson-type interval uses the effective number of ratings ``R(1 - R) / Var`` (as the
    two-rater one); it is undefined when R is 0 or 1. The bootstrap resamples items,
    vectorised on the item x category counts.

    References
    ----------
    .. [1] Uebersax, J. S. Statistical methods for rater and diagnostic agreement: raw
       agreement indices. https://www.john-uebersax.com/stat/raw.htm
    .. [2] Hripcsak, G., & Rothschild, A. S. (2005). Agreement, the F-measure, and
       reliability in information retrieval. Journal of the American Medical Informatics
       Association, 12(3), 296-298. https://doi.org/10.1197/jamia.M1733
    .. [3] Graham, P., & Bull, B. (1998). Approximate standard errors and confidence
       intervals for indices of positive and negative agreement. Journal of Clinical
       Epidemiology, 51(9), 763-771. https://doi.org/10.1016/S0895-4356(98)00048-1
    .. [4] Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
       Psychological Bulletin, 76(5), 378-382. https://doi.org/10.1037/h0031619

    Examples
    --------
    Three raters, ten items, binary labels (rows items): pooled PSA 0.666667, NSA 0.5.

    >>> import accord
    >>> r = accord.Ratings.from_wide([[1, 1, 1], [1, 1, 1], [1, 0, 1], [0, 0, 1], [1, 1, 1],
    ...                               [0, 1, 1], [0, 0, 1], [1, 0, 1], [0, 0, 1], [0, 0, 0]])
    >>> res = pooled_specific_agreement(r, positive=1)
    >>> round(res.statistic, 6), round(res.negative_agreement, 6)
    (0.666667, 0.5)
    >>> res.agreeing_pairs, res.positive_pairs
    (24.0, 36.0)
    """
    refuse_read_options("pooled_specific_agreement", read_options)
    owner = "pooled_specific_agreement"
    check_n_boot(n_boot, owner)
    d = prepare(data, categories, owner)
    if d.multiplicity is not None:
        raise InvalidInputError(
            f"{owner} takes one row of counts per item, not distinct rows with multiplicities"
        )
    cats = d.categories
    q = len(cats)
    k = positive_index(cats, positive, owner)
    it = d.items
    counts = it.counts[it.two]
    if not isinstance(counts, np.ndarray):  # sparse (many categories): a table per category
        counts = counts.toarray()
    r = it.r[it.two]
    x = counts * (counts - 1.0)
    y = counts * (r - 1.0)[:, None]
    other = r - counts[:, k]
    xn = other * (other - 1.0)
    yn = other * (r - 1.0)
    per, per_se = _ratio_se(x, y)
    neg, neg_se = _ratio_se(xn[:, None], yn[:, None])
    psa, se = float(per[k]), float(per_se[k])
    nsa, nse = float(neg[0]), float(neg_se[0])
    total_y = float(y.sum())
    observed = float(x.sum()) / total_y if total_y > 0 else math.nan
    reason = None
    if math.isnan(psa):
        reason = (
            f"no item with two or more ratings has a rating of category {cats[k]!r}: pooled "
            "positive specific agreement is 0/0 (undefined)"
        )
        warn_degenerate(reason)
    reps = jack = nreps = njack = None
    if n_boot > 0 and counts.shape[0] >= 1:
        feats = np.hstack([x, y, xn[:, None], yn[:, None]])
        all_reps, all_jack = bootstrap(feats, _pooled_ratios(q), n_boot=int(n_boot), rng=rng)
        reps, nreps = all_reps[:, k], all_reps[:, q]
        if all_jack is not None:
            jack, njack = all_jack[:, k], all_jack[:, q]
    per_category = _pooled_per_category(cats, x, y, per, per_se)
    method = (
        "pooled specific agreement sum_i n_ic(n_ic-1) / sum_i n_ic(n_i-1) (Uebersax); SE by "
        "the delta method for a ratio of item totals; default interval Wilson-type on the "
        "effective number of ratings"
        + (f"; bootstrap over items, {n_boot} replicates" if reps is not None else "")
    )
    return PooledSpecificAgreement(
        name="pooled_specific_agreement",
        statistic=psa,
        standard_error=se,
        n_items=int(counts.shape[0]),
        n_raters=d.n_raters,
        categories=cats,
        method=method,
        observed_agreement=observed,
        n_items_unpairable=int(np.count_nonzero(it.r == 1)),
        reason=reason,
        bounds=(0.0, 1.0),
        replicates=reps,
        jackknife=jack,
        positive=cats[k],
        negative_agreement=nsa,
        negative_standard_error=nse,
        agreeing_pairs=float(x[:, k].sum()),
        positive_pairs=float(y[:, k].sum()),
        per_category=per_category,
        n_boot=int(n_boot) if reps is not None else 0,
        negative_replicates=nreps,
        negative_jackknife=njack,
    )


def _pooled_ratios(q: int) -> Callable[[FloatArray], FloatArray]:
    """Per category and for NSA, the ratio of the item totals ``[x (q), y (q), xn, yn]``."""

    def stat(t: FloatArray) -> FloatArray:
        num = np.concatenate([t[:, :q], t[:, 2 * q : 2 * q + 1]], axis=1)
        den = np.concatenate([t[:, q : 2 * q], t[:, 2 * q + 1 :]], axis=1)
        out: FloatArray = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
        return out

    return stat


def _pooled_per_category(
    cats: tuple[Any, ...], x: FloatArray, y: FloatArray, per: FloatArray, per_se: FloatArray
) -> pd.DataFrame:
    """Each category's pooled specific agreement with its SE and Wilson-type interval."""
    lows, highs = [], []
    for value, s in zip(per, per_se, strict=True):
        ci = _wilson(float(value), _effective_n(float(value), float(s)), 0.95)
        lows.append(ci.low)
        highs.append(ci.high)
    return pd.DataFrame(
        {
            "category": list(cats),
            "agreeing_pairs": x.sum(axis=0),
            "positive_pairs": y.sum(axis=0),
            "specific_agreement": per,
            "standard_error": per_se,
            "ci_low": lows,
            "ci_high": highs,
        }
    )
