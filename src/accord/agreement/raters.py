"""Which rater, or which pair of raters, stands out beyond the noise of the data.

Two tests, one per kind of label:

- :func:`rater_differences` (interval and ratio data): each rater's mean difference from the
  mean of the other raters of the same item, in the data's units, with a t interval and a
  Holm-adjusted p-value over the raters.
- :func:`rater_permutation_test` (categorical data): whether a rater's ratings are more
  surprising than the panel's (mean deviation from the item's entropy, in bits), and whether
  a pair of raters agrees less than the items they share make expected, each against the
  distribution of the most extreme rater (pair) when the raters of every item are
  interchangeable (labels permuted within items; max-T, so the p-values hold for the whole
  panel at once).

A rater or a pair is named only when its adjusted p-value is below ``significance`` and it
rated at least ``min_items`` items (shared, for a pair).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping
from typing import Any, Never

import numpy as np
import pandas as pd

from .._errors import InvalidInputError
from .._results import Record, check_level, t_quantile, t_sf
from .._types import (
    FloatArray,
    IntArray,
    RngLike,
    as_generator,
    in_threads,
    release_freed_memory,
    usable_cores,
)
from .._validate import counted
from ..data.order import stable_order
from ..data.ratings import Ratings
from ..data.source import refuse_read_options
from ..stats.counts import ItemCategoryCounts, RaterCategoryCounts

__all__ = [
    "RaterDifferences",
    "RaterPermutationTest",
    "RatingTallies",
    "rater_differences",
    "rater_permutation_test",
]

#: Most (item, pair of raters) cells the pair test permutes; above it the pair test is left
#: out with a reason (the rater test still runs).
MAX_PAIR_CELLS = 2_000_000


class RatingTallies:
    """How the ratings spread over the raters, the categories and the items, each count
    computed on first use (what a report shows beside the coefficients).

    Parameters
    ----------
    ratings : Ratings

    Examples
    --------
    >>> r = Ratings.from_arrays(["i1", "i1", "i2", "i2", "i2"], ["a", "b", "a", "b", "c"],
    ...                         ["x", "y", "x", "x", "y"])
    >>> t = RatingTallies(r)
    >>> t.profiles.tolist(), t.per_rater.tolist(), t.per_item.tolist()
    ([[2, 0], [1, 1], [0, 1]], [2, 2, 1], [2, 3])
    """

    def __init__(self, ratings: Ratings) -> None:
        self.ratings = ratings

    @functools.cached_property
    def profiles(self) -> IntArray:
        """Ratings per rater (rows, in ``ratings.raters`` order) and category (columns)."""
        return RaterCategoryCounts.from_ratings(self.ratings).dense()

    @functools.cached_property
    def per_rater(self) -> IntArray:
        """Ratings per rater, in ``ratings.raters`` order."""
        return RaterCategoryCounts.from_ratings(self.ratings).totals()

    @functools.cached_property
    def per_item(self) -> IntArray:
        """Ratings per item, in ``ratings.items`` order."""
        return ItemCategoryCounts.from_ratings(self.ratings).totals()


def _holm(pvalues: FloatArray) -> FloatArray:
    """Holm's step-down adjustment of the finite p-values (NaN stay NaN)."""
    out = np.full(pvalues.shape, np.nan)
    finite = np.flatnonzero(np.isfinite(pvalues))
    if finite.size == 0:
        return out
    p = pvalues[finite]
    order = np.argsort(p, kind="stable")
    m = p.size
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.maximum.accumulate(scaled)
    out[finite[order]] = adjusted
    return out


def _check_common(
    significance: float, min_items: int, owner: str, read_options: Mapping[str, object]
) -> None:
    refuse_read_options(owner, read_options)
    if not (0.0 < significance < 1.0):
        raise InvalidInputError(
            f"The 'significance' parameter of {owner} must be strictly between 0 and 1. "
            f"Got {significance!r} instead."
        )
    if isinstance(min_items, bool) or not isinstance(min_items, int | np.integer) or min_items < 1:
        raise InvalidInputError(
            f"The 'min_items' parameter of {owner} must be a positive integer. "
            f"Got {min_items!r} instead."
        )


@dataclasses.dataclass(frozen=True, slots=True)
class RaterDifferences(Record):
    """Each rater's mean difference from the other raters, in the data's units.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per rater: ``rater``, ``n_items`` (items the rater rated with at least one
        other rater), ``mean_difference`` (mean over those items of the rating minus the mean
        of the other raters' ratings of the item), ``sd`` (of the differences, ddof 1),
        ``standard_error``, ``ci_low``, ``ci_high`` (t interval, ``n_items - 1`` df),
        ``mean_absolute_difference``, ``pvalue`` (two-sided t test of a zero mean),
        ``pvalue_adjusted`` (Holm over the raters with at least ``min_items`` items) and
        ``stands_out`` (adjusted p-value below ``significance``); sorted by the absolute mean
        difference, largest first.
    n_items, n_raters : int
        Items with two ratings or more, and raters.
    confidence_level, significance : float
    min_items : int
        Fewest items for a rater to be tested.
    method : str
        The estimator in words.
    """

    table: pd.DataFrame
    n_items: int
    n_raters: int
    confidence_level: float
    significance: float
    min_items: int
    method: str

    def _headline(self) -> str:
        named = self.stands_out
        return (
            f"{len(named)} of {self.n_raters} raters differ from the others: "
            + ", ".join(map(str, named))
            if named
            else f"no rater of {self.n_raters} differs from the others beyond the noise"
        )

    @property
    def stands_out(self) -> tuple[Any, ...]:
        """The raters whose mean difference is beyond the noise, largest first."""
        return tuple(self.table.loc[self.table["stands_out"], "rater"])

    def to_frame(self) -> pd.DataFrame:
        """The per-rater table (a copy)."""
        return self.table.copy()


def rater_differences(
    ratings: Ratings,
    *,
    confidence_level: float = 0.95,
    significance: float = 0.05,
    min_items: int = 5,
    **read_options: Never,
) -> RaterDifferences:
    r"""Each rater's mean difference from the other raters of the same items.

    For rater :math:`r` and an item :math:`i` rated by :math:`r` and :math:`m_i - 1 \ge 1`
    others,

    .. math::

        d_{ri} = x_{ri} - \frac{1}{m_i - 1} \sum_{s \ne r} x_{si},

    and the rater's bias estimate is the mean of :math:`d_{ri}` over its items, in the data's
    units, with the t interval :math:`\bar d \pm t_{n-1} s_d / \sqrt{n}` (items are the
    independent units). With two raters it is the Bland-Altman mean difference of each
    against the other.

    Parameters
    ----------
    ratings : Ratings
        Interval or ratio ratings (numeric values).
    confidence_level : float, default 0.95
        Level of the intervals.
    significance : float, default 0.05
        A rater stands out when its Holm-adjusted p-value is below it.
    min_items : int, default 5
        Raters with fewer items are shown but not tested.

    Returns
    -------
    RaterDifferences

    Raises
    ------
    InvalidInputError
        Labels that are not numbers (a nominal or ordinal level), or bad options.

    References
    ----------
    .. [1] Bland, J. M., & Altman, D. G. (1986). Statistical methods for assessing agreement
       between two methods of clinical measurement. The Lancet, 327(8476), 307-310.
       https://doi.org/10.1016/S0140-6736(86)90837-8
    .. [2] Holm, S. (1979). A simple sequentially rejective multiple test procedure.
       Scandinavian Journal of Statistics, 6(2), 65-70.

    Examples
    --------
    >>> import accord
    >>> r = accord.Ratings.from_wide(
    ...     [[10.0, 11.0, 14.0], [20.0, 21.0, 25.0], [30.0, 30.0, 33.0]], level="interval")
    >>> d = rater_differences(r, min_items=2)
    >>> d.table[["rater", "n_items", "mean_difference"]].round(3).values.tolist()
    [[2, 3, 3.667], [0, 3, -2.333], [1, 3, -1.333]]
    """
    check_level(confidence_level)
    _check_common(significance, min_items, "rater_differences", read_options)
    if ratings.level not in ("interval", "ratio") or ratings.values is None:
        raise InvalidInputError(
            "rater_differences compares numeric ratings (interval or ratio level); these "
            f"are {ratings.level}"
        )
    x = np.asarray(ratings.values, dtype=np.float64)
    item, rater = ratings.item_codes, ratings.rater_codes
    m = np.bincount(item, minlength=ratings.n_items)
    total = np.bincount(item, weights=x, minlength=ratings.n_items)
    mi = m[item]
    keep = mi >= 2
    with np.errstate(invalid="ignore", divide="ignore"):
        d = np.where(keep, x - (total[item] - x) / np.maximum(mi - 1, 1), np.nan)
    k = ratings.n_raters
    r = rater[keep]
    dk = d[keep]
    n = np.bincount(r, minlength=k).astype(np.float64)
    s1 = np.bincount(r, weights=dk, minlength=k)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = s1 / n
        ss = np.bincount(r, weights=(dk - mean[r]) ** 2, minlength=k)
        sd = np.sqrt(ss / (n - 1.0))
        se = sd / np.sqrt(n)
        mad = np.bincount(r, weights=np.abs(dk), minlength=k) / n
    mean = np.where(n > 0, mean, np.nan)
    sd = np.where(n > 1, sd, np.nan)
    se = np.where(n > 1, se, np.nan)
    mad = np.where(n > 0, mad, np.nan)
    low = np.full(k, np.nan)
    high = np.full(k, np.nan)
    pvalue = np.full(k, np.nan)
    for j in range(k):
        if n[j] > 1 and math.isfinite(se[j]):
            df = n[j] - 1.0
            half = t_quantile(0.5 + confidence_level / 2.0, df) * se[j]
            low[j], high[j] = mean[j] - half, mean[j] + half
            if se[j] > 0:
                pvalue[j] = min(1.0, 2.0 * t_sf(abs(mean[j]) / se[j], df))
            else:
                pvalue[j] = 0.0 if mean[j] != 0 else 1.0
    tested = np.where(n >= max(min_items, 2), pvalue, np.nan)
    adjusted = _holm(tested)
    table = pd.DataFrame(
        {
            "rater": ratings.raters,
            "n_items": n.astype(np.int64),
            "mean_difference": mean,
            "sd": sd,
            "standard_error": se,
            "ci_low": low,
            "ci_high": high,
            "mean_absolute_difference": mad,
            "pvalue": pvalue,
            "pvalue_adjusted": adjusted,
            "stands_out": np.nan_to_num(adjusted, nan=1.0) < significance,
        }
    )
    table = table.iloc[np.argsort(-np.nan_to_num(np.abs(mean), nan=-1.0), kind="stable")]
    method = (
        "each rating minus the mean of the other raters' ratings of the same item, averaged "
        f"per rater (items rated by at least two raters); t interval at {confidence_level:g} "
        f"with n_items - 1 df; two-sided t test of a zero mean, Holm-adjusted over the "
        f"{int(np.isfinite(tested).sum())} raters with at least {max(min_items, 2)} items; "
        f"a rater stands out when the adjusted p-value is below {significance:g}"
    )
    return RaterDifferences(
        table.reset_index(drop=True),
        int(np.count_nonzero(m >= 2)),
        k,
        confidence_level,
        significance,
        min_items,
        method,
    )


@dataclasses.dataclass(frozen=True, slots=True)
class RaterPermutationTest(Record):
    """Raters and pairs of raters that stand out from interchangeable raters.

    Attributes
    ----------
    raters : pandas.DataFrame
        One row per rater: ``rater``, ``n_items`` (items with two ratings or more),
        ``mean_deviation`` (bits: surprisal of the rating minus the entropy of its item),
        ``z`` (the summed deviations over their standard deviation under permutation),
        ``pvalue`` (max-T permutation p-value, adjusted for all raters tested; NaN when not
        tested), ``pvalue_se`` (its Monte Carlo standard error), ``stands_out``; sorted by
        ``z``, largest first.
    pairs : pandas.DataFrame
        One row per pair that shares an item: ``rater_a``, ``rater_b``, ``n_items``
        (shared), ``agreement`` (share of shared items with the same label),
        ``expected_agreement`` (under interchangeable raters), ``z``, ``pvalue`` (min-T
        permutation p-value, adjusted for all pairs tested), ``pvalue_se``, ``stands_out``;
        sorted by ``z``,
        lowest first. Empty when the pair test was left out (see ``reason``).
    n_permutations : int
    significance : float
    min_items : int
        Fewest items (shared items, for a pair) to be tested.
    method : str
    reason : str or None
        Why the pair test was left out, when it was (or why nothing could be tested).
    max_permutations : int or None
        The most permutations allowed; ``n_permutations`` is fewer when every decision was
        settled earlier (``sequential=True``).
    """

    raters: pd.DataFrame
    pairs: pd.DataFrame
    n_permutations: int
    significance: float
    min_items: int
    method: str
    reason: str | None = None
    max_permutations: int | None = None

    def _headline(self) -> str:
        r, p = self.stray_raters, self.low_pairs
        tested = self.raters["pvalue"].notna().any() or self.pairs["pvalue"].notna().any()
        if not tested:
            return "no rater or pair could be tested" + (f": {self.reason}" if self.reason else "")
        if not r and not p:
            return "no rater or pair stands out beyond the noise"
        named = [counted(n, noun) for n, noun in ((len(r), "rater"), (len(p), "pair")) if n]
        verb = "stands" if len(r) + len(p) == 1 else "stand"  # "1 rater", "1 pair": one
        return f"{' and '.join(named)} {verb} out"

    @property
    def stray_raters(self) -> tuple[Any, ...]:
        """Raters whose ratings are more surprising than interchangeable raters', most first."""
        return tuple(self.raters.loc[self.raters["stands_out"], "rater"])

    @property
    def low_pairs(self) -> tuple[tuple[Any, Any], ...]:
        """Pairs that agree less than interchangeable raters would, lowest first."""
        rows = self.pairs.loc[self.pairs["stands_out"], ["rater_a", "rater_b"]]
        return tuple((a, b) for a, b in rows.itertuples(index=False, name=None))


def _default_permutations(n: int) -> int:
    """999 permutations up to 50,000 ratings, fewer above (at least 199)."""
    return int(min(999, max(199, 50_000_000 // max(n, 1))))


def _pair_cells(item_sorted: IntArray) -> tuple[IntArray, IntArray]:
    """Positions of every two ratings of the same item (first before second), ratings sorted
    by item."""
    n = item_sorted.size
    starts = np.r_[0, np.flatnonzero(np.diff(item_sorted)) + 1] if n else np.zeros(0, np.int64)
    sizes = np.diff(np.r_[starts, n])
    size = np.repeat(sizes, sizes)
    within = np.arange(n) - np.repeat(starts, sizes)
    first = [np.flatnonzero(within + k < size) for k in range(1, int(sizes.max(initial=0)))]
    if not first:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    a = np.concatenate(first).astype(np.int64)
    b = np.concatenate([f + k for k, f in enumerate(first, start=1)]).astype(np.int64)
    return a, b


def _deviations(
    item: IntArray, rater: IntArray, mi: FloatArray, in_cell: Any, n_items: int, k: int
) -> tuple[FloatArray, Any, Any, Any]:
    """Each rating's surprisal minus its item's entropy (bits), and per rater: ratings, the
    sum of those deviations and its variance under permutation within items."""
    d = np.divide(in_cell, mi)  # in place from here: one temporary of a float a rating,
    np.log2(d, out=d)  # reused for every per-rating step (fresh pages cost a fault each)
    np.negative(d, out=d)  # the surprisal
    part = d / mi
    # float64 even with no rating (numpy's bincount of no weights is of integers)
    entropy = np.bincount(item, weights=part, minlength=n_items).astype(np.float64, copy=False)
    d -= np.take(entropy, item, out=part, mode="clip")  # "clip": numpy buffers out= else
    np.multiply(d, d, out=part)
    part /= mi
    var_item = np.bincount(item, weights=part, minlength=n_items).astype(np.float64, copy=False)
    n_r = np.bincount(rater, minlength=k)
    s_r = np.bincount(rater, weights=d, minlength=k)
    v_r = np.bincount(rater, weights=np.take(var_item, item, out=part, mode="clip"), minlength=k)
    return d, n_r, s_r, v_r


def _by_item(ratings: Ratings) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """The item, rater and label codes of the ratings of items rated twice or more, in item
    order (each item's ratings in the order given), and each item's number of them (0 for
    the items left out). The item codes are those of the runs, not a copy sorted."""
    item = ratings.item_codes
    n_items = ratings.n_items
    sizes = np.bincount(item, minlength=n_items)
    order = stable_order(item, n_items)
    if (sizes == 1).any():  # an item rated once: nothing of it changes under permutation
        order = order[np.repeat(sizes >= 2, sizes)]
        sizes[sizes == 1] = 0
    item_sorted = np.repeat(np.arange(n_items, dtype=item.dtype), sizes)
    return item_sorted, ratings.rater_codes[order], ratings.label_codes[order], sizes


def _cell_counts(cell: IntArray) -> IntArray:
    """How many values of ``cell`` equal each one's own (the size of its group): a
    ``bincount`` when the codes are few beside the values, else ``np.unique``."""
    top = int(cell.max()) + 1 if cell.size else 0
    if top <= 4 * cell.size + 1024:
        counts: IntArray = np.bincount(cell, minlength=top)[cell]
        return counts
    _, inverse, count = np.unique(cell, return_inverse=True, return_counts=True)
    out: IntArray = count[inverse]
    return out


#: Items whose swaps the within-item shuffle makes together, every step over them before
#: the next items: 32,768 items of 10 ratings are 2.6 MB of float64, within the processor's
#: cache, and few enough blocks that the Python between numpy's calls costs little (the
#: fewer calls, the less two threads wait on each other).
_BLOCK = 32768

#: Independent streams of permutations: each is drawn by its own generator (spawned from
#: the test's) into its own buffer, and two threads draw them side by side when the process
#: may use two cores. Fixed, so that the same seed gives the same answer on any machine.
_STREAMS = 2
#: Fewest ratings for which the streams run in threads (below, a thread costs more than it saves).
_THREADED = 100_000


def _check_permutations(n_permutations: int | None, n: int) -> int:
    """The number of permutations (default from the number of ratings), checked."""
    if n_permutations is None:
        n_permutations = _default_permutations(n)
    if (
        isinstance(n_permutations, bool)
        or not isinstance(n_permutations, int | np.integer)
        or n_permutations < 19
    ):
        raise InvalidInputError(
            "The 'n_permutations' parameter of rater_permutation_test must be an integer of "
            f"at least 19. Got {n_permutations!r} instead."
        )
    return int(n_permutations)


def _monte_carlo_se(p: FloatArray, n: int) -> FloatArray:
    """Monte Carlo standard error of permutation p-values estimated from ``n`` permutations."""
    return np.sqrt(p * (1.0 - p) / max(n, 1))


class _WithinItemShuffle:
    """Random permutations of the ratings within each item, ratings sorted by item.

    One Fisher-Yates shuffle of every item at once. The ratings are laid out once slot by
    slot: slot ``s`` of each item rated more than ``s`` times, items largest first, so the
    items of each slot are a prefix of those of the slot before. Step ``j``, from the largest
    slot down to 1, swaps slot ``j`` of each item rated more than ``j`` times with a slot
    drawn uniformly from ``0..j`` of the same item. Each item's order is then a uniform draw
    of its ``m!`` orders, in ``max(m) - 1`` vector steps over ``N - n_items`` ratings in all:
    no sort and no table of permutations.

    Items whose ratings are all alike (``still``, one flag a sorted rating) look the same in
    every order: they are laid out after the others and never moved.

    The draws of every step are made first, in that order; the swaps are then made
    :data:`_BLOCK` items at a time, every step over one block of items before the next
    block. The swaps of different items touch different places, so the result is that of
    the steps over all items at once, but a block's places stay in the processor's cache
    from one step to the next (2.2x faster at 10M ratings, whose layout is far larger than
    the cache).

    The shuffle works in place: a uniform permutation of an item applied to any order of
    its values is a uniform draw of their orders, independent of that order, so successive
    shuffles of one buffer are independent permutations and no copy is needed.
    """

    def __init__(self, item_sorted: IntArray, still: Any = None) -> None:
        n = item_sorted.size
        starts = np.r_[0, np.flatnonzero(np.diff(item_sorted)) + 1] if n else np.zeros(0, int)
        sizes = np.diff(np.r_[starts, n]).astype(np.int64)
        fixed = np.zeros(0, np.int64)
        if still is not None and n and np.any(still[starts]):
            moves = ~still[starts]
            starts, sizes = starts[moves], sizes[moves]
            fixed = np.flatnonzero(still).astype(np.int64)
        top = int(sizes.max(initial=0))
        by_size = stable_order(top - sizes, top + 1)
        at_least = np.cumsum(np.bincount(sizes, minlength=1)[::-1])[::-1]
        self.n = n
        #: items rated more than ``s`` times, for each slot ``s``
        self.count = at_least[1:].astype(np.int64)
        #: where each slot starts in the layout
        self.offset = np.r_[0, np.cumsum(self.count)].astype(np.int64)
        first = starts[by_size].astype(np.int64)
        slots = [first[:c] + s for s, c in enumerate(self.count)]
        #: the sorted position of each place of the layout (the still items' last)
        self.layout = np.concatenate([np.zeros(0, np.int64), *slots, fixed])
        self.rows = np.arange(self.count[0] if self.count.size else 0, dtype=np.int64)

    def picks(self, gen: np.random.Generator) -> list[Any]:
        """The slot each step swaps with, one per item it reaches (``picks[j]``: the first
        ``count[j]`` items), drawn step after step from the largest slot down (``picks[0]``
        is empty)."""
        last = self.count.size - 1
        kind = np.min_scalar_type(max(last, 0))
        out: list[Any] = [np.zeros(0, kind)] * max(last + 1, 0)
        for j in range(last, 0, -1):
            out[j] = gen.integers(0, j + 1, size=int(self.count[j]), dtype=kind)
        return out

    def shuffle(self, gen: np.random.Generator, laid_out: Any) -> Any:
        """Permute the values of every item among its places of ``laid_out`` (one value per
        place of :attr:`layout`), in place; returns ``laid_out``."""
        picks = self.picks(gen)
        last = self.count.size - 1
        for a in range(0, int(self.count[1]) if last >= 1 else 0, _BLOCK):
            for j in range(last, 0, -1):
                c = min(int(self.count[j]) - a, _BLOCK)
                if c <= 0:
                    continue
                lo = int(self.offset[j]) + a
                src = self.offset[picks[j][a : a + c]]
                src += self.rows[a : a + c]
                here = laid_out[lo : lo + c].copy()
                laid_out[lo : lo + c] = laid_out[src]
                laid_out[src] = here
        return laid_out

    def draw(self, gen: np.random.Generator) -> IntArray:
        """Positions of one random within-item permutation (``values[draw]`` is shuffled)."""
        out = np.empty(self.n, dtype=np.int64)
        out[self.layout] = self.shuffle(gen, self.layout.copy())
        return out


def _moved_ratings(
    item_sorted: IntArray, d_sorted: FloatArray
) -> tuple[Any, Any, Any, FloatArray, Any]:
    """Where each item's run of sorted ratings starts, its size, its least deviation (that
    of its most frequent category), that deviation at each of its ratings, and which
    ratings deviate more (the ratings a permutation moves)."""
    n = item_sorted.size
    starts = np.r_[0, np.flatnonzero(np.diff(item_sorted)) + 1] if n else np.zeros(0, int)
    sizes = np.diff(np.r_[starts, n]).astype(np.int64)
    least = np.minimum.reduceat(d_sorted, starts) if n else np.zeros(0)
    at_rating = np.repeat(least, sizes)
    return starts, sizes, least, at_rating, d_sorted != at_rating


class _PartialShuffle:
    """The rater test's permutations, drawn only where they change a rater's sum.

    A rating's deviation is ``d = b_i + w``: ``b_i`` is the item's least deviation (that of
    its most frequent category) and ``w`` is 0 for every rating of that category. A rater
    rates an item once in every order, so the sums of ``b_i`` are the same in every
    permutation (:attr:`base`); a permutation changes only which raters hold the item's
    ``t_i`` places of nonzero ``w``. Permuting the raters among the places (the deviations
    fixed) draws the same rater sums as permuting the deviations among the raters, and
    ``t_i`` steps of a Fisher-Yates shuffle of the item's raters (step ``j`` swaps place
    ``j`` with one drawn uniformly from ``j .. m_i - 1``) leave a uniform ordered draw of
    ``t_i`` of them in the first ``t_i`` places, whatever their order before: successive
    shuffles of one buffer are independent permutations. Items with ``t_i = 0`` (every
    rating alike, or categories tied) never move.

    The raters are laid out item by item as the ratings are sorted, each item's ratings of
    nonzero ``w`` first. The draws of a permutation are made in one call, step after step,
    and read as ``floor(u (m_i - j))`` with ``u`` a 53-bit uniform (the product never
    reaches ``m_i - j``, and no outcome is more likely than another by more than
    ``2^-50``); the swaps go :data:`_BLOCK` items at a time, every step over one block
    before the next, as in :class:`_WithinItemShuffle`. On 10M realistic ratings (10 an
    item, most in one category) 2.6M places move, where the full shuffle swaps 8.5M and
    sums 9.5M.
    """

    def __init__(
        self, item_sorted: IntArray, rater_sorted: IntArray, d_sorted: FloatArray, k: int
    ) -> None:
        n = item_sorted.size
        starts, sizes, least, _, moves = _moved_ratings(item_sorted, d_sorted)
        kind = np.int32 if n < 2**31 else np.int64  # positions
        before = np.zeros(n + 1, dtype=kind)  # moved ratings before each sorted one
        np.cumsum(moves, out=before[1:])
        t = np.diff(before[np.r_[starts, n]]).astype(np.int64)
        self.n, self.k = n, k
        #: the moved ratings' ``w``, in sorted order
        self.w = d_sorted[moves] - np.repeat(least, t)
        #: each rater's sum of its items' least deviations (the same in every permutation)
        self.base = np.bincount(rater_sorted, weights=d_sorted, minlength=k)
        self.base -= np.bincount(rater_sorted[moves], weights=self.w, minlength=k)
        # an item's moved ratings go to its first places, the others after them, each in
        # sorted order: the sorted position p of item i goes to place p + t_i - (moved
        # before p in i) unless moved, to place start_i + (moved before p in i) if moved
        place = np.repeat((t + before[starts].astype(np.int64)).astype(kind), sizes)
        place += np.arange(n, dtype=kind)
        place -= before[:-1]
        lead = starts - before[starts]
        place[moves] = before[:-1][moves] + np.repeat(lead.astype(kind), t)
        #: the raters in layout order (what a permutation shuffles)
        self.raters = np.empty(n, dtype=np.min_scalar_type(max(k - 1, 0)))
        self.raters[place] = rater_sorted
        del place
        #: the places of nonzero ``w`` in the layout (item by item, first places first)
        self.moved = np.arange(int(t.sum()), dtype=np.int64) + np.repeat(lead, t)
        self._steps(starts, sizes, t)

    def _steps(self, starts: IntArray, sizes: IntArray, t: IntArray) -> None:
        """Each step's places and bounds (step ``j``: the items with ``t_i > j``, place
        ``start_i + j``, bound ``m_i - j``), one after the other, and where each block of
        :data:`_BLOCK` items starts among each step's."""
        here, span, cuts = [], [], []
        edges = np.arange(0, t.size + _BLOCK, _BLOCK)
        done = 0
        for j in range(int(t.max(initial=0))):
            items = np.flatnonzero(t > j)
            here.append(starts[items] + j)
            span.append((sizes[items] - j).astype(np.float64))
            cuts.append(done + np.searchsorted(items, edges))
            done += items.size
        self.here = np.concatenate([np.zeros(0, np.int64), *here])
        self.span = np.concatenate([np.zeros(0), *span])
        #: ``cuts[j, b]``: where block ``b``'s places of step ``j`` start in :attr:`here`
        self.cuts = np.array(cuts, dtype=np.int64).reshape(len(cuts), edges.size)

    def shuffle(self, gen: np.random.Generator, raters: Any) -> Any:
        """Draw which raters hold each item's moved places, in place in ``raters`` (laid out
        as :attr:`raters`); returns ``raters``."""
        u = gen.random(self.here.size)
        for b in range(self.cuts.shape[1] - 1):
            for lo, hi in self.cuts[:, b : b + 2]:
                if lo == hi:
                    break
                here, draws = self.here[lo:hi], u[lo:hi]
                draws *= self.span[lo:hi]
                other = draws.astype(np.int64)
                other += here
                held = raters[here]
                raters[here] = raters[other]
                raters[other] = held
        return raters

    def sums(self, raters: Any) -> FloatArray:
        """Each rater's summed deviation when the raters are laid out as ``raters``."""
        moved = np.bincount(raters[self.moved], weights=self.w, minlength=self.k)
        out = np.asarray(moved, dtype=np.float64)  # bincount with weights: float64 already
        out += self.base
        return out


#: Most bytes of a table of ordered choices (:class:`_ChosenPlaces`): ``P(m, t)`` rows of
#: ``t`` places. 1 MB holds every choice of up to 6 of 10 places (151,200 rows); items
#: whose table would be larger are shuffled in place (:class:`_PartialShuffle`).
_TABLE_BYTES = 1 << 20


@functools.lru_cache(maxsize=16)
def _ordered_choices(m: int, t: int) -> Any:
    """Every ordered choice of ``t`` distinct places of ``0 .. m-1``, a row each (the
    ``m! / (m - t)!`` rows in lexicographic order), built a place at a time: each row of
    the choices of ``j`` places followed by each place it leaves, in increasing order.

    >>> _ordered_choices(3, 2).tolist()
    [[0, 1], [0, 2], [1, 0], [1, 2], [2, 0], [2, 1]]
    """
    kind = np.min_scalar_type(max(m - 1, 0))
    rows = np.zeros((1, 0), dtype=kind)
    for j in range(t):
        left = np.ones((rows.shape[0], m), dtype=bool)
        np.put_along_axis(left, rows.astype(np.intp), False, axis=1)
        after = np.nonzero(left)[1].astype(kind)  # row by row, increasing
        rows = np.column_stack([np.repeat(rows, m - j, axis=0), after])
    return rows


#: Fewest items of one ``(m, t)`` for a table of their choices: fewer are shuffled in place
#: (a group costs a few numpy calls a permutation, whatever its size: with 256, items of 3
#: to 40 ratings made 25 groups, 2.9-4.1 ms a permutation against 2.7-3.2 in place at 1M
#: ratings, ``rater_permutation.py --varied 1e6``).
_GROUP_ITEMS = 1024


#: Most bytes of all the tables together: the kinds of item with the most items get one
#: first, the others are shuffled in place.
_TABLES_BYTES = 16 << 20


def _tabled(kinds: list[tuple[int, int, int]]) -> Any:
    """Which kinds ``(m, t, items)`` of item draw their choices from a table: a small one
    (:data:`_TABLE_BYTES`) of at most four rows an item, for enough items
    (:data:`_GROUP_ITEMS`), the kinds of most items first while the tables fit
    :data:`_TABLES_BYTES`. (A table larger than its items costs more to build and to read
    out of cache than the in-place shuffle of those items.)"""
    size = [
        math.perm(m, t) * t if t > 0 and c >= _GROUP_ITEMS and math.perm(m, t) <= 4 * c else 0
        for m, t, c in kinds
    ]
    out = np.zeros(len(kinds), dtype=bool)
    room = _TABLES_BYTES
    for j in sorted(range(len(kinds)), key=lambda j: -kinds[j][2]):
        if 0 < size[j] <= min(_TABLE_BYTES, room):
            out[j], room = True, room - size[j]
    return out


def _ratings_of(
    items: Any, sizes: IntArray, item: IntArray, rater: IntArray, d: FloatArray
) -> tuple[IntArray, IntArray, FloatArray]:
    """The sorted ratings' items, raters and deviations at the ratings of the flagged
    ``items``."""
    if not items.any():
        return item[:0].copy(), rater[:0].copy(), d[:0].copy()
    at = np.repeat(items, sizes)
    return item[at], rater[at], d[at]


class _ChosenPlaces:
    """The rater test's permutations as one draw per item of which raters hold its moved
    places.

    As in :class:`_PartialShuffle`, a permutation changes a rater's sum only through which
    raters hold the item's ``t_i`` places of nonzero ``w`` (the ratings outside its most
    frequent category), and under the null those raters are a uniform ordered choice of
    ``t_i`` of the item's ``m_i`` raters. There are ``P = m_i! / (m_i - t_i)!`` such
    choices: for items whose table of them (:func:`_ordered_choices`) is small, one
    uniform ``u`` per item picks row ``floor(u P)`` of the table (53 bits against at most
    2^20 rows: no choice more likely than another by more than 2^-33). The items are laid
    out by ``(m_i, t_i)``, each group's raters a row an item, so a permutation is one
    uniform per item, a row of a table per item and a gather of the chosen raters: no
    state carried from one permutation to the next, and two thirds of the work of the
    in-place shuffle on 10M realistic ratings (23.5 against 34.9 ms a permutation). The
    other items (many raters and many moved places, or too few of a kind for their table:
    :func:`_tabled`) are shuffled in place by :class:`_PartialShuffle` (:attr:`rest`).
    """

    def __init__(
        self, item_sorted: IntArray, rater_sorted: IntArray, d_sorted: FloatArray, k: int
    ) -> None:
        n = item_sorted.size
        starts, sizes, lowest, least, moves = _moved_ratings(item_sorted, d_sorted)
        t = np.add.reduceat(moves, starts, dtype=np.int64) if n else np.zeros(0, np.int64)
        # the items by (m, t); a group of a kind is tabled or shuffled in place
        key = sizes * (int(t.max(initial=0)) + 1) + t
        order = np.argsort(key, kind="stable")
        first = np.r_[0, np.flatnonzero(np.diff(key[order])) + 1] if n else np.zeros(0, int)
        count = np.diff(np.r_[first, order.size])
        kinds = [
            (int(sizes[order[a]]), int(t[order[a]]), int(c))
            for a, c in zip(first, count, strict=True)
        ]
        tabled = _tabled(kinds)
        rest = np.zeros(sizes.size, dtype=bool)
        rest[order[np.repeat(~tabled, count)]] = True
        rest &= t > 0
        self.n, self.k = n, k
        #: the items shuffled in place
        self.rest = _PartialShuffle(
            *_ratings_of(rest, sizes, item_sorted, rater_sorted, d_sorted), k
        )
        if rest.any():
            least[np.repeat(rest, sizes)] = 0.0
        # every other rating adds its item's least deviation to its rater in every order
        self.base = np.bincount(rater_sorted, weights=least, minlength=k)
        del least
        order = order[np.repeat(tabled, count)]
        span = sizes[order]
        pos = np.repeat(starts[order] - np.r_[0, np.cumsum(span)[:-1]], span)
        pos += np.arange(pos.size)
        #: the tabled items' raters, item after item (group after group)
        self.raters = rater_sorted.astype(np.min_scalar_type(max(k - 1, 0)))[pos]
        pos = pos[moves[pos]]
        #: the moved ratings' ``w``, in the order the draws give their raters
        self.w = d_sorted[pos]
        self.w -= np.repeat(lowest[order], t[order])
        del pos
        #: each tabled group's ``m``, ``t``, the first of each item's raters and its table
        self.groups = [
            (m, t, np.arange(0, c * m, m, dtype=np.int64)[:, None], _ordered_choices(m, t))
            for (m, t, c), keep in zip(kinds, tabled, strict=True)
            if keep
        ]
        self.draws = order.size

    def draw(self, gen: np.random.Generator, buffer: Any) -> Any:
        """The rater of every tabled moved place in one permutation (in :attr:`w`'s order),
        and the in-place shuffle of :attr:`rest` in ``buffer``."""
        u = gen.random(self.draws)
        out = np.empty(self.w.size, dtype=self.raters.dtype)
        item = place = rating = 0
        for m, t, first, table in self.groups:
            c = first.shape[0]
            pick = u[item : item + c]
            pick *= table.shape[0]
            at = table.take(pick.astype(np.intp), axis=0)
            at = at + first
            here = self.raters[rating : rating + c * m]
            np.take(here, at.ravel(), out=out[place : place + c * t])
            item, place, rating = item + c, place + c * t, rating + c * m
        self.rest.shuffle(gen, buffer)
        return out

    def sums(self, chosen: Any, buffer: Any) -> FloatArray:
        """Each rater's summed deviation when the tabled moved places are held by
        ``chosen`` and the others laid out as ``buffer``."""
        out = np.asarray(np.bincount(chosen, weights=self.w, minlength=self.k), np.float64)
        out += self.base
        out += self.rest.sums(buffer)
        return out


@dataclasses.dataclass
class _PermutationNull:
    """The permutation distributions of the largest rater z and the smallest pair z.

    Without pairs to test, a permutation draws which raters hold the places that change a
    rater's sum (:class:`_ChosenPlaces`), and the sorted ratings are not held. With pairs,
    everything a permutation reads is laid out once in the order of the full shuffle's
    layout (raters, the two places of each pair cell): a permutation shuffles the places and
    reads the deviations and labels through them. Each stream of permutations shuffles its
    own copy, in place.
    """

    shuffle: _WithinItemShuffle | _ChosenPlaces
    rater_sorted: IntArray
    d_sorted: FloatArray
    label_sorted: IntArray
    pairs: _PairCells
    sd_r: FloatArray
    tested: Any
    k: int
    rater_laid: IntArray = dataclasses.field(init=False)
    a_laid: IntArray = dataclasses.field(init=False)
    b_laid: IntArray = dataclasses.field(init=False)
    sd_pair: FloatArray = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        self.rater_laid = self.a_laid = self.b_laid = np.zeros(0, np.int64)
        if isinstance(self.shuffle, _WithinItemShuffle):
            layout = self.shuffle.layout  # where each sorted position sits in the layout
            self.rater_laid = self.rater_sorted[layout]
            place = np.empty(layout.size, dtype=np.int64)
            place[layout] = np.arange(layout.size)
            self.a_laid = place[self.pairs.a_pos]
            self.b_laid = place[self.pairs.b_pos]
        self.sd_pair = np.sqrt(np.where(self.pairs.tested, self.pairs.var_pair, 1.0))

    def buffer(self) -> Any:
        """What a stream shuffles: the raters of the moved places, or the places with pairs
        to test."""
        shuffle = self.shuffle
        laid = shuffle.rest.raters if isinstance(shuffle, _ChosenPlaces) else shuffle.layout
        return laid.copy()

    def one(self, gen: np.random.Generator, buffer: Any) -> tuple[float, float]:
        """The largest rater z and the smallest pair z of one permutation of ``buffer``."""
        pairs, shuffle = self.pairs, self.shuffle
        top, low = -np.inf, np.inf
        if isinstance(shuffle, _ChosenPlaces):
            if self.tested.any():
                top = self._top(shuffle.sums(shuffle.draw(gen, buffer), buffer))
            return top, low
        places = shuffle.shuffle(gen, buffer)
        if self.tested.any():
            d_laid = self.d_sorted[places]
            sums = np.bincount(self.rater_laid, weights=d_laid, minlength=self.k)
            top = self._top(np.asarray(sums, dtype=np.float64))
        lab = self.label_sorted[places]
        same = lab[self.a_laid] == lab[self.b_laid]
        hits = np.bincount(pairs.index, weights=same, minlength=pairs.keys.size)
        low = float(np.min(((hits - pairs.expected) / self.sd_pair)[pairs.tested]))
        return top, low

    def _top(self, sums: FloatArray) -> float:
        """The largest z of the tested raters, their summed deviations ``sums``."""
        return float(np.max((sums / self.sd_r)[self.tested]))

    def draw(
        self,
        gen: np.random.Generator,
        most: int,
        z_r: FloatArray,
        z_pair: FloatArray,
        significance: float | None,
    ) -> tuple[FloatArray, FloatArray]:
        """Up to ``most`` permutations, stopping once every decision at ``significance`` is
        settled (checked after 100 permutations and every 50 after; never, when it is None).

        Permutation ``b`` is drawn by stream ``b % _STREAMS``, each stream's in order."""
        streams = [(g, self.buffer()) for g in gen.spawn(_STREAMS)]
        max_z = np.full(most, -np.inf)
        min_z = np.full(most, np.inf)
        done = 0
        while done < most:
            until = most if significance is None else min(max(100, done + 50), most)
            self._run(streams, range(done, until), max_z, min_z)
            done = until
            if significance is not None and done < most:
                p_r = _max_t_pvalues(z_r, self.tested, max_z[:done], upper=True)
                p_pair = _max_t_pvalues(z_pair, self.pairs.tested, min_z[:done], upper=False)
                if _settled(np.r_[p_r, p_pair], done, significance):
                    return max_z[:done], min_z[:done]
        return max_z, min_z

    def _run(
        self, streams: list[tuple[Any, Any]], todo: range, max_z: FloatArray, min_z: FloatArray
    ) -> None:
        """Draw the permutations ``todo`` (each by its stream), writing their extremes."""

        def run(s: int) -> None:
            g, buffer = streams[s]
            for b in range(todo.start + (s - todo.start) % _STREAMS, todo.stop, _STREAMS):
                max_z[b], min_z[b] = self.one(g, buffer)

        if usable_cores() == 1 or self.shuffle.n < _THREADED:
            for s in range(_STREAMS):
                run(s)
            return
        in_threads(run, range(_STREAMS))


def _settled(pvalues: FloatArray, n: int, significance: float) -> bool:
    """Whether the 99% Clopper-Pearson interval of every p-value (estimated from ``n``
    permutations) lies wholly on one side of ``significance``: its ends are quantiles of
    beta distributions, the inverse of the regularised incomplete beta function
    (``scipy.special.betaincinv``, what ``scipy.stats.beta.ppf`` computes, without
    importing ``scipy.stats``)."""
    from scipy.special import betaincinv

    p = pvalues[~np.isnan(pvalues)]
    hits = np.round(p * (n + 1) - 1)
    lower = np.where(hits > 0, betaincinv(np.maximum(hits, 1), n - hits + 1, 0.005), 0.0)
    upper = np.where(hits < n, betaincinv(hits + 1, np.maximum(n - hits, 1), 0.995), 1.0)
    return bool(np.all((upper < significance) | (lower > significance)))


def _max_t_pvalues(z: FloatArray, tested: Any, null: FloatArray, *, upper: bool) -> FloatArray:
    """Adjusted p-values of the tested ``z`` against the permutation distribution of their
    largest (``upper``) or smallest value."""
    tol = 1e-9
    out = np.full(z.size, np.nan)
    at = np.flatnonzero(tested)
    ordered = np.sort(null)
    if upper:
        beyond = null.size - np.searchsorted(ordered, z[at] - tol, side="left")
    else:
        beyond = np.searchsorted(ordered, z[at] + tol, side="right")
    out[at] = (1 + beyond) / (null.size + 1)
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class _PairCells:
    """The (item, pair of raters) cells of the pair test and each rater pair's totals."""

    keys: IntArray
    index: IntArray
    a_pos: IntArray
    b_pos: IntArray
    n_common: IntArray
    expected: Any  # float64 sums (bincount with weights)
    var_pair: Any
    agree: Any
    tested: Any
    z: FloatArray
    reason: str | None

    @classmethod
    def of(
        cls,
        m: FloatArray,
        item_sorted: IntArray,
        rater_sorted: IntArray,
        label_sorted: IntArray,
        pi_item: FloatArray,
        k: int,
        min_items: int,
    ) -> _PairCells:
        """Cells of the ratings sorted by item; none (with the reason) beyond
        :data:`MAX_PAIR_CELLS`."""
        per_item = m[m >= 2]
        cells = int(np.sum(per_item * (per_item - 1) / 2))
        reason = None
        if cells > MAX_PAIR_CELLS:
            reason = (
                f"the pair test was left out: {cells:,} (item, pair of raters) cells is more "
                f"than {MAX_PAIR_CELLS:,}"
            )
            a_pos = b_pos = np.zeros(0, np.int64)
        else:
            a_pos, b_pos = _pair_cells(item_sorted)
        ra, rb = rater_sorted[a_pos], rater_sorted[b_pos]
        lo, hi = np.minimum(ra, rb), np.maximum(ra, rb)
        pair_keys, pair_index = np.unique(lo * k + hi, return_inverse=True)
        n_pairs = pair_keys.size
        pi_cell = pi_item[item_sorted[a_pos]]
        n_common = np.bincount(pair_index, minlength=n_pairs)
        expected = np.bincount(pair_index, weights=pi_cell, minlength=n_pairs)
        var_pair = np.bincount(pair_index, weights=pi_cell * (1 - pi_cell), minlength=n_pairs)
        agree = np.bincount(
            pair_index, weights=label_sorted[a_pos] == label_sorted[b_pos], minlength=n_pairs
        )
        tested = (n_common >= min_items) & (var_pair > 1e-12)
        with np.errstate(invalid="ignore", divide="ignore"):
            z = np.where(var_pair > 1e-12, (agree - expected) / np.sqrt(var_pair), np.nan)
        return cls(
            pair_keys,
            pair_index,
            a_pos,
            b_pos,
            n_common,
            expected,
            var_pair,
            agree,
            tested,
            z,
            reason,
        )

    def frame(self, names: Any, k: int, pvalue: FloatArray, significance: float) -> pd.DataFrame:
        """One row per rater pair, the pairs that agree least beyond chance first."""
        n_pairs = self.keys.size
        with np.errstate(invalid="ignore", divide="ignore"):
            share = self.agree / self.n_common
            share_expected = self.expected / self.n_common
        pairs = pd.DataFrame(
            {
                "rater_a": names[self.keys // k] if n_pairs else [],
                "rater_b": names[self.keys % k] if n_pairs else [],
                "n_items": self.n_common.astype(np.int64),
                "agreement": share,
                "expected_agreement": share_expected,
                "z": self.z,
                "pvalue": pvalue,
                "stands_out": (np.nan_to_num(pvalue, nan=1.0) < significance) & (self.z < 0),
            }
        )
        return pairs.iloc[np.argsort(np.nan_to_num(self.z, nan=np.inf), kind="stable")]


def _permutation_method(n_used: int, most: int, significance: float, min_items: int) -> str:
    """The method line of :class:`RaterPermutationTest`."""
    stopped = (
        f" (stopped when every decision at {significance:g} was settled, of at most {most})"
        if n_used < most
        else ""
    )
    return (
        f"labels permuted among the raters of each item, {n_used} permutations{stopped}; "
        "raters: summed deviation (surprisal minus item entropy, bits) over its SD under "
        "permutation, p-value of the largest such z over the raters tested (max-T); pairs: "
        "shared-item agreement minus its chance expectation over its SD, p-value of the "
        f"smallest such z over the pairs tested; tested with at least {min_items} (shared) "
        f"items; named when the adjusted p-value is below {significance:g}"
    )


def _rater_frame(
    names: Any,
    n_r: FloatArray,
    mean_dev: FloatArray,
    z_r: FloatArray,
    p_r: FloatArray,
    n_used: int,
    significance: float,
) -> pd.DataFrame:
    """The raters' rows of the permutation test, the most deviant first."""
    raters = pd.DataFrame(
        {
            "rater": names,
            "n_items": n_r.astype(np.int64),
            "mean_deviation": mean_dev,
            "z": z_r,
            "pvalue": p_r,
            "pvalue_se": _monte_carlo_se(p_r, n_used),
            "stands_out": (np.nan_to_num(p_r, nan=1.0) < significance) & (z_r > 0),
        }
    )
    return raters.iloc[np.argsort(-np.nan_to_num(z_r, nan=-np.inf), kind="stable")]


def rater_permutation_test(
    ratings: Ratings,
    *,
    n_permutations: int | None = None,
    significance: float = 0.05,
    min_items: int = 10,
    rng: RngLike = 0,
    sequential: bool = True,
    **read_options: Never,
) -> RaterPermutationTest:
    r"""Name the raters and pairs that stand out beyond what interchangeable raters give.

    *Raters.* Each rating's deviation :math:`d = -\log_2 p - H_i` (its surprisal, with
    :math:`p` the share of the item's ratings in its category, minus the item's entropy) has
    mean 0 over every item's ratings. When the raters of an item are interchangeable (the
    null hypothesis), a rater's rating of item :math:`i` is a draw from the item's ratings,
    so the rater's summed deviation :math:`S_r` has mean 0 and variance
    :math:`V_r = \sum_i \mathrm{var}_i(d)`; the statistic is :math:`z_r = S_r / \sqrt{V_r}`.

    *Pairs.* Two raters of item :math:`i` agree by chance with probability
    :math:`\pi_i = \sum_c n_{ic}(n_{ic} - 1) / (m_i (m_i - 1))`; over their :math:`n`
    shared items the agreements :math:`A` have mean :math:`\sum \pi_i` and variance
    :math:`\sum \pi_i (1 - \pi_i)`, and :math:`z = (A - \sum \pi_i) / \sqrt{\sum \pi_i(1-\pi_i)}`.

    The labels of every item are permuted among its raters (one uniform random permutation
    of each item's ratings, drawn for every item at once by a vectorised Fisher-Yates
    shuffle: no sort of the ratings) up to ``n_permutations`` times; the p-value of a rater
    is the share of permutations whose largest :math:`z_r` (over the raters tested) reaches
    the rater's, of a pair the share whose smallest pair :math:`z` is as low (max-T: adjusted
    for testing every rater, and every pair, at once). When no pair is tested, a permutation
    draws only which raters hold the ratings outside each item's most frequent category
    (the rest add the same to every rater's sum in every order), one uniform per item
    picking a row of a table of the ordered choices of its raters: the same distribution,
    in a quarter of the work on ratings that mostly agree.

    The permutations come in two streams, each spawned from ``rng`` and shuffling its own
    copy of the ratings in place (a uniform permutation of an item's ratings in any order is
    a uniform draw of their orders): two threads draw them side by side on 100,000 ratings
    and more when the process may use two cores, and one thread draws both otherwise, with
    the same result. Items whose ratings all agree are never shuffled (no order of them
    differs).

    With ``sequential=True`` (the default) the permutations stop once every decision is
    settled (checked after 100 permutations and every 50 after): the 99% Clopper-Pearson
    interval of each tested p-value lies wholly above or wholly below ``significance`` (a
    curtailed Monte Carlo test in the spirit of Besag & Clifford [3]_). A clear answer then
    costs 150 permutations or so, a close one (or many pairs near the level) the full
    number. Each p-value's Monte Carlo standard error, :math:`\sqrt{p(1-p)/B}` over the
    :math:`B` permutations drawn, is reported beside it.

    Parameters
    ----------
    ratings : Ratings
        Categorical ratings (any level: the test reads labels as categories).
    n_permutations : int, optional
        The most permutations drawn. Default: 999 up to 50,000 ratings, fewer for more (at
        least 199).
    significance : float, default 0.05
        A rater or pair stands out when its adjusted p-value is below it.
    min_items : int, default 10
        Fewest items (shared, for a pair) to be tested.
    rng : Generator, int or None, default 0
        Seed of the permutations (the same data give the same answer, on any machine).
        The permutations drawn from a seed changed when the shuffle became a Fisher-Yates
        one, when they were split into two streams, (for the rater test without pairs)
        when only the ratings outside each item's most frequent category moved, and when
        their raters came to be drawn as one row of a table of ordered choices per item:
        p-values of earlier versions with the same seed differ within their Monte Carlo
        error.
    sequential : bool, default True
        Stop before ``n_permutations`` once every decision at ``significance`` is settled;
        ``False`` draws them all (the most precise p-values).

    Returns
    -------
    RaterPermutationTest

    References
    ----------
    .. [1] Westfall, P. H., & Young, S. S. (1993). Resampling-Based Multiple Testing.
       Wiley. (single-step max-T adjusted p-values)
    .. [2] Simon, S. (2010). Using entropy and the surprisal value to measure the degree of
       agreement with the consensus finding. P.Mean, 2010-04-11.
    .. [3] Besag, J., & Clifford, P. (1991). Sequential Monte Carlo p-values. Biometrika,
       78(2), 301-304. https://doi.org/10.1093/biomet/78.2.301

    Examples
    --------
    Eight raters who agree with each other, and one who labels at random:

    >>> import numpy as np, accord
    >>> gen = np.random.default_rng(1)
    >>> truth = gen.integers(0, 3, 60)
    >>> wide = np.column_stack([truth] * 8 + [gen.integers(0, 3, 60)])
    >>> test = rater_permutation_test(accord.Ratings.from_wide(wide))
    >>> test.stray_raters
    (8,)
    """
    _check_common(significance, min_items, "rater_permutation_test", read_options)
    n = ratings.n_ratings
    n_permutations = _check_permutations(n_permutations, n)
    gen = as_generator(rng)
    q = max(ratings.n_categories, 1)
    n_items, k = ratings.n_items, ratings.n_raters
    item_sorted, rater_sorted, label_sorted, sizes = _by_item(ratings)
    m = sizes.astype(np.float64)
    mi = np.repeat(m, sizes)
    in_cell = _cell_counts(item_sorted * q + label_sorted)
    d_sorted, n_r, s_r, v_r = _deviations(item_sorted, rater_sorted, mi, in_cell, n_items, k)
    tested = (n_r >= min_items) & (v_r > 1e-12)
    with np.errstate(invalid="ignore", divide="ignore"):
        z_r = np.where(v_r > 1e-12, s_r / np.sqrt(v_r), np.nan)
        mean_dev = np.where(n_r > 0, s_r / np.maximum(n_r, 1), np.nan)
    still = in_cell == mi  # every rating of the item alike: no permutation changes it
    # chance agreement of two ratings of the item, (n_ic - 1) / (m_i - 1) summed over its
    # ratings (in place: one temporary of a float a rating)
    mi -= 1
    share = in_cell - 1.0
    del in_cell
    share /= mi
    del mi
    same = np.bincount(item_sorted, weights=share, minlength=n_items)
    del share
    pi_item = same / np.maximum(m, 1)
    pairs_of = _PairCells.of(m, item_sorted, rater_sorted, label_sorted, pi_item, k, min_items)
    reason = pairs_of.reason
    if not sizes.any():
        reason = "no item has two ratings or more (nothing changes under permutation)"
    pair_tested, z_pair = pairs_of.tested, pairs_of.z

    if not pair_tested.any():  # the draws read none of the sorted ratings
        shuffle: _WithinItemShuffle | _ChosenPlaces
        shuffle = _ChosenPlaces(item_sorted, rater_sorted, d_sorted, k)
        item_sorted = rater_sorted = label_sorted = still = np.zeros(0, np.int64)
        d_sorted = np.zeros(0)
    else:
        shuffle = _WithinItemShuffle(item_sorted, still)
    null = _PermutationNull(
        shuffle,
        rater_sorted=rater_sorted,
        d_sorted=d_sorted,
        label_sorted=label_sorted.astype(np.min_scalar_type(max(q - 1, 0)), copy=False),
        pairs=pairs_of,
        sd_r=np.sqrt(np.where(tested, v_r, 1.0)),
        tested=tested,
        k=k,
    )
    del item_sorted, label_sorted, rater_sorted, d_sorted, still  # the null holds what it reads
    max_z, min_z = null.draw(gen, n_permutations, z_r, z_pair, significance if sequential else None)
    del null
    release_freed_memory()  # what the streams' threads freed, still resident otherwise
    n_used = max(max_z.size, min_z.size)
    p_r = _max_t_pvalues(z_r, tested, max_z, upper=True)
    p_pair = _max_t_pvalues(z_pair, pair_tested, min_z, upper=False)

    raters = _rater_frame(ratings.raters, n_r, mean_dev, z_r, p_r, n_used, significance)
    pairs = pairs_of.frame(ratings.raters, k, p_pair, significance)
    pairs.insert(
        list(pairs.columns).index("pvalue") + 1,
        "pvalue_se",
        _monte_carlo_se(pairs["pvalue"].to_numpy(np.float64), n_used),
    )
    method = _permutation_method(n_used, n_permutations, significance, min_items)
    return RaterPermutationTest(
        raters.reset_index(drop=True),
        pairs.reset_index(drop=True),
        int(n_used),
        significance,
        min_items,
        method,
        reason,
        int(n_permutations),
    )
