"""Order statistics of the pairwise slopes of ``n`` points without listing the O(n^2) slopes.

The slope of points ``i`` and ``j`` (``x_i < x_j``) is at most ``t`` exactly when
``y_j - t x_j <= y_i - t x_i``: the pairs with a slope up to ``t`` are the inversions between
the order of the points by ``x`` and their order by ``u_t = y - t x``, and the pairs with a
slope in ``(lo, hi]`` are the inversions between the orders at ``lo`` and at ``hi``. Both
are counted (and, for few of them, listed) by a bottom-up merge sort in O(n log n) numpy
steps per level (:func:`inversions`).

:func:`slope_order_statistics` then selects the ``k``-th smallest slope by randomized
selection (Matousek 1991; Dillencourt, Mount & Netanyahu 1992): sample slopes uniformly from
the current bracket of slopes, narrow the bracket to the sample quantiles around the wanted
rank, count exactly how many slopes fall below its ends, and once few slopes remain in the
bracket list them and pick the wanted one. Expected time O(n log^2 n) for the whole
selection, whatever ``n^2``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import NamedTuple

import numpy as np

from .._types import FloatArray, IntArray

__all__ = ["SlopeSet", "Threshold", "equal_pairs", "slope_order_statistics"]

#: A threshold of the slopes: a float ``t`` (slopes ``<= t``), or, for integer data, the
#: exact rational ``num / den`` (``den > 0``) with ``strict`` (slopes ``< num / den``).
Threshold = float | tuple[int, int, bool]
#: Largest magnitude of integer data counted in exact integer arithmetic.
_EXACT_MAX = 2.0**30

#: Slopes listed outright once a bracket holds at most this many (times n, at least).
_LIST_FACTOR = 8
#: Slopes sampled from a bracket each round.
_SAMPLE = 400_000
#: Half-width of the narrowed bracket, in standard errors of the sample quantile.
_SPREAD = 4.0
#: Points from which slopes are counted by scipy's Kendall's tau (compiled; its count 1.5-2x
#: faster than :func:`inversions` from 100,000 points, a fit 4-20% faster), below by
#: :func:`inversions` (a fit as fast up to 20,000, with no import of ``scipy.stats``, which
#: costs a small fit more than the fit).
_SCIPY_COUNT = 100_000


def equal_pairs(*keys: FloatArray) -> int:
    """Pairs of equal rows of ``keys``, sorted together (equal rows are neighbours).

    >>> equal_pairs(np.array([1.0, 1.0, 1.0, 2.0]), np.array([0.0, 0.0, 3.0, 3.0]))
    1
    """
    n = int(keys[0].size)
    change = np.zeros(max(n - 1, 0), dtype=bool)
    for key in keys:
        change |= np.diff(key) != 0
    counts = np.diff(np.flatnonzero(np.concatenate([[True], change, [True]])))
    return int((counts * (counts - 1) // 2).sum())


@dataclasses.dataclass(frozen=True, slots=True)
class _Levels:
    """The inversions of a permutation, level by level of the merge sort: for the ``r``-th
    right-block element with ``count[r]`` inverted partners, those partners are
    ``order[level][start[r] : start[r] + count[r]]``."""

    element: IntArray
    start: IntArray
    count: IntArray
    level: IntArray
    orders: tuple[IntArray, ...]

    @property
    def total(self) -> int:
        return int(self.count.sum())

    def pairs(self, index: IntArray) -> tuple[IntArray, IntArray]:
        """The ``index``-th inversions (0 <= index < total), as two arrays of elements."""
        ends = np.cumsum(self.count)
        row = np.searchsorted(ends, index, side="right")
        offset = index - (ends[row] - self.count[row])
        position = self.start[row] + offset
        partner = np.empty_like(index)
        levels = self.level[row]
        for lv in np.unique(levels):
            here = levels == lv
            partner[here] = self.orders[int(lv)][position[here]]
        return partner, self.element[row]

    def all_pairs(self) -> tuple[IntArray, IntArray]:
        """Every inversion, as two arrays of elements."""
        return self.pairs(np.arange(self.total, dtype=np.int64))


def inversions(perm: IntArray, *, keep: bool) -> _Levels | int:
    """The inversions of ``perm`` (a permutation of ``0 .. n-1``): pairs ``a < b`` with
    ``perm[a] > perm[b]``; their number, or with ``keep`` the levels that list them.

    Bottom-up merge sort: at block size ``w`` the array is sorted within blocks of ``w``;
    merging blocks ``2g`` and ``2g + 1`` (a stable sort of two sorted runs), an element of
    the right block lands ``less`` places after its place in its own block, ``less`` being
    the left elements smaller than it; the other ``w - less`` left elements are its
    inverted partners, the last ones of the sorted left block. The elements are carried as
    positions ``a`` (``order``)."""
    n = int(perm.size)
    values = perm.astype(np.int64)
    order = np.arange(n, dtype=np.int64)
    total = 0
    kept: list[tuple[IntArray, IntArray, IntArray]] = []
    orders: list[IntArray] = []
    position = np.arange(n, dtype=np.int64)
    w = 1
    while w < n:
        block = position // w
        right = (block % 2 == 1).nonzero()[0]
        merged = np.argsort(values + (position // (2 * w)) * n, kind="stable")
        where = np.empty(n, dtype=np.int64)
        where[merged] = position
        # place within the merged block minus place within the right block
        less = (where[right] - (block[right] - 1) * w) - (right - block[right] * w)
        count = w - less
        if keep:
            hit = count > 0
            start = (block[right] - 1) * w + less
            kept.append((order[right][hit], start[hit], count[hit]))
            orders.append(order)
        else:
            total += int(count.sum())
        values, order = values[merged], order[merged]
        w *= 2
    if not keep:
        return total
    if not kept:
        empty = np.zeros(0, dtype=np.int64)
        return _Levels(empty, empty, empty, empty, ())
    return _Levels(
        np.concatenate([k[0] for k in kept]),
        np.concatenate([k[1] for k in kept]),
        np.concatenate([k[2] for k in kept]),
        np.concatenate([np.full(k[0].size, i, dtype=np.int64) for i, k in enumerate(kept)]),
        tuple(orders),
    )


@dataclasses.dataclass(frozen=True, slots=True)
class SlopeSet:
    """The finite pairwise slopes of points sorted by ``(x, y)``: ``(y_j - y_i) / (x_j -
    x_i)`` over the pairs ``x_i < x_j``.

    Attributes
    ----------
    x, y : ndarray, shape (n,)
        The points, sorted by ``x`` then ``y``.
    n_finite : int
        Pairs with ``x_i < x_j``.
    """

    x: FloatArray
    y: FloatArray
    n_finite: int
    exact: bool

    @classmethod
    def of(cls, x: FloatArray, y: FloatArray) -> SlopeSet:
        order = np.lexsort((y, x))
        xs, ys = x[order], y[order]
        n = xs.size
        same = equal_pairs(xs)
        exact = bool(
            n
            and np.all(xs == np.round(xs))
            and np.all(ys == np.round(ys))
            and max(np.max(np.abs(xs)), np.max(np.abs(ys))) <= _EXACT_MAX
        )
        return cls(xs, ys, n * (n - 1) // 2 - same, exact)

    def ranks_at(self, t: Threshold) -> IntArray:
        """The place of each point in the order by ``u_t = y - t x`` (ties: larger ``x``
        first, then the order by ``x``; for a strict threshold smaller ``x`` first), so that
        ``j`` precedes ``i`` (``x_i < x_j``) exactly when their slope is at most ``t``
        (below it, when strict). ``t = -inf`` and ``+inf`` are the limits (the orders by
        ``x`` and by ``-x``). A rational threshold is exact: ``u = den y - num x`` in
        integers."""
        n = self.x.size
        idx = np.arange(n)
        if isinstance(t, tuple):
            num, den, strict = t
            u = den * self.y.astype(np.int64) - num * self.x.astype(np.int64)
            key = np.lexsort((idx, self.x if strict else -self.x, u))
        elif t == -math.inf:
            return idx
        elif t == math.inf:
            key = np.lexsort((idx, -self.x))
        else:
            key = np.lexsort((idx, -self.x, self.y - t * self.x))
        ranks = np.empty(n, dtype=np.int64)
        ranks[key] = idx
        return ranks

    def at_most(self, t: Threshold) -> int:
        """Finite slopes ``<= t`` (``< t`` for a strict rational threshold)."""
        if t == -math.inf:
            return 0
        if t == math.inf:
            return self.n_finite
        n = self.x.size
        if n < 2:
            return 0
        if n < _SCIPY_COUNT:
            count = inversions(self.ranks_at(t), keep=False)
            assert isinstance(count, int)
            return count
        from scipy import stats

        # for a permutation (no ties) Kendall's tau is 1 - 4 inversions / (n (n - 1)):
        # scipy's O(n log n) count, exact once rounded while n (n - 1) / 4 < 2**52
        tau = float(stats.kendalltau(np.arange(n), self.ranks_at(t)).statistic)
        return round((1.0 - tau) * n * (n - 1) / 4.0)

    def kendall_s(self) -> int:
        """Kendall's S of the points: the pairs ordered alike by ``x`` and ``y`` less those
        ordered oppositely (ties in either count neither), the sign of Kendall's tau.

        >>> SlopeSet.of(np.array([1.0, 2.0, 3.0, 3.0]), np.array([1.0, 3.0, 2.0, 5.0])).kendall_s()
        3
        """
        if self.x.size < 2:
            return 0
        flat = equal_pairs(np.sort(self.y)) - equal_pairs(self.x, self.y)
        not_rising = self.at_most(0.0)  # slopes <= 0, the flat ones among them
        return (self.n_finite - not_rising) - (not_rising - flat)

    def between(self, lo: Threshold, hi: Threshold) -> _Levels:
        """The pairs whose slope is in ``(lo, hi]`` (as positions in the order at ``lo``),
        and that order."""
        ranks_lo, ranks_hi = self.ranks_at(lo), self.ranks_at(hi)
        in_lo = np.argsort(ranks_lo)
        levels = inversions(ranks_hi[in_lo], keep=True)
        assert isinstance(levels, _Levels)
        return dataclasses.replace(
            levels,
            element=in_lo[levels.element],
            orders=tuple(in_lo[o] for o in levels.orders),
        )

    def slopes(self, i: IntArray, j: IntArray) -> FloatArray:
        return np.asarray((self.y[j] - self.y[i]) / (self.x[j] - self.x[i]), dtype=np.float64)

    def rational(self, i: int, j: int, strict: bool) -> tuple[int, int, bool]:
        """The slope of points ``i`` and ``j`` (``x_i < x_j``) as an exact threshold."""
        return int(self.y[j] - self.y[i]), int(self.x[j] - self.x[i]), strict


class _Bracket(NamedTuple):
    """Slopes in ``(lo, hi]``: ``low`` finite slopes are at most ``lo``, ``size`` in it."""

    lo: Threshold
    hi: Threshold
    low: int
    size: int


def _quantile_ends(
    points: SlopeSet, drawn: _Drawn, wants: tuple[int, ...], cur: _Bracket
) -> tuple[Threshold, Threshold]:
    """Sample quantiles around the lowest and the highest wanted rank (1-based) of ``cur``,
    from a uniform sample of its slopes (exact rationals for integer data)."""
    sample = drawn.sorted
    m = sample.size
    ends: list[Threshold] = []
    for want, side in ((min(wants), 0), (max(wants), 1)):
        p = (want - cur.low) / cur.size
        half = _SPREAD * math.sqrt(p * (1 - p) / m) + 2.0 / m
        i = math.floor((p - half) * m) - 1 if side == 0 else math.ceil((p + half) * m)
        if i < 0 or i >= m:
            ends.append(cur.lo if side == 0 else cur.hi)
        elif points.exact:
            ends.append(points.rational(*drawn.pair_of(i), False))
        else:
            ends.append(float(sample[i]))
    return ends[0], ends[1]


def _tied(
    points: SlopeSet, at: tuple[float, int, int], wants: tuple[int, ...], cur: _Bracket
) -> float | _Bracket | None:
    """``v``, the slope of the sampled pair ``at = (v, i, j)``, when the wanted ranks all
    fall on slopes equal to it; else the part of ``cur`` below or above the slopes equal
    to ``v`` that holds them (None when they straddle it, or the ties cannot be told
    apart in floating point)."""
    v, i, j = at
    if points.exact:
        below_t: Threshold = points.rational(i, j, True)
        at_t: Threshold = points.rational(i, j, False)
    else:
        below_t, at_t = float(np.nextafter(v, -math.inf)), v
    below, up_to = points.at_most(below_t), points.at_most(at_t)
    if below < min(wants) and max(wants) <= up_to:
        return v
    if max(wants) <= below and below < cur.low + cur.size:
        return _Bracket(cur.lo, below_t, cur.low, below - cur.low)
    if min(wants) > up_to and up_to > cur.low:
        return _Bracket(at_t, cur.hi, up_to, cur.low + cur.size - up_to)
    return None


def _narrowed(
    points: SlopeSet, drawn: _Drawn, wants: tuple[int, ...], cur: _Bracket
) -> float | _Bracket:
    """A narrower bracket of ``cur`` holding the wanted ranks (or their common value), from
    a uniform sample of its slopes."""
    sample = drawn.sorted
    lo, hi = _quantile_ends(points, drawn, wants, cur)
    below_lo = points.at_most(lo) if lo != cur.lo else cur.low
    below_hi = points.at_most(hi) if hi != cur.hi else cur.low + cur.size
    if below_lo >= min(wants):  # the sample missed: keep the old end
        lo, below_lo = cur.lo, cur.low
    if below_hi < max(wants):
        hi, below_hi = cur.hi, cur.low + cur.size
    new = _Bracket(lo, hi, below_lo, below_hi - below_lo)
    if new.size > 0.75 * cur.size:  # many tied slopes: settle the value they share
        p = (min(wants) - cur.low) / cur.size
        k = min(sample.size - 1, max(0, math.ceil(p * sample.size) - 1))
        side = _tied(points, (float(sample[k]), *drawn.pair_of(k)), wants, cur)
        if side is None:
            return new
        if isinstance(side, float) or side.size < new.size:
            return side
    return new


@dataclasses.dataclass(frozen=True, slots=True)
class _Drawn:
    """A uniform sample of the slopes of a bracket: ``sorted`` its values in order, and
    ``values``, ``first``, ``second`` the same slopes as drawn with their pairs of points
    (``x_first < x_second``)."""

    sorted: FloatArray
    values: FloatArray
    first: IntArray
    second: IntArray

    def pair_of(self, k: int) -> tuple[int, int]:
        """The pair of points of the ``k``-th smallest sampled slope."""
        at = int(np.flatnonzero(self.values == self.sorted[k])[0])
        return int(self.first[at]), int(self.second[at])


def _sample(points: SlopeSet, cur: _Bracket, rng: np.random.Generator) -> _Drawn:
    """A uniform sample (with replacement) of the slopes in ``cur``."""
    if cur.lo == -math.inf and cur.hi == math.inf:
        n = points.x.size
        firsts, seconds, got = [], [], 0
        while got < _SAMPLE:
            i = rng.integers(0, n, size=_SAMPLE + _SAMPLE // 4)
            j = rng.integers(0, n, size=i.size)
            a, b = np.minimum(i, j), np.maximum(i, j)
            ok = points.x[a] < points.x[b]
            firsts.append(a[ok])
            seconds.append(b[ok])
            got += int(ok.sum())
        a, b = np.concatenate(firsts)[:_SAMPLE], np.concatenate(seconds)[:_SAMPLE]
    else:
        levels = points.between(cur.lo, cur.hi)
        a, b = levels.pairs(rng.integers(0, levels.total, size=_SAMPLE))
        a, b = np.minimum(a, b), np.maximum(a, b)  # positions in the order by (x, y)
    values = points.slopes(a, b)
    return _Drawn(np.sort(values), values, a, b)


def _pick(points: SlopeSet, wants: tuple[int, ...], cur: float | _Bracket) -> tuple[float, ...]:
    """The wanted ranks from a bracket small enough to list (or their common value)."""
    if isinstance(cur, float):
        return tuple(cur for _ in wants)
    values = points.slopes(*points.between(cur.lo, cur.hi).all_pairs())
    picks = [w - cur.low - 1 for w in wants]
    part = np.partition(values, picks)
    return tuple(float(part[p]) for p in picks)


def _select(
    points: SlopeSet,
    group: tuple[int, ...],
    cur: float | _Bracket,
    rng: np.random.Generator,
    shared: _Drawn | None,
) -> tuple[float, ...]:
    """The ranks of ``group`` inside ``cur``, narrowing it until it can be listed (the
    first round on the ``shared`` sample of ``cur``, when given); a group that tied slopes
    keep from narrowing is split into single ranks."""
    limit = max(_LIST_FACTOR * points.x.size, 2 * _SAMPLE)
    while isinstance(cur, _Bracket) and cur.size > limit:
        sample = _sample(points, cur, rng) if shared is None else shared
        shared = None
        new = _narrowed(points, sample, group, cur)
        if isinstance(new, _Bracket) and new.size == cur.size and len(group) > 1:
            return tuple(v for r in group for v in _select(points, (r,), new, rng, None))
        cur = new
    return _pick(points, group, cur)


def slope_order_statistics(
    points: SlopeSet, ranks: tuple[tuple[int, ...], ...], seed: int = 0
) -> tuple[tuple[float, ...], ...]:
    """The finite slopes of the given 1-based ``ranks`` (each a group of nearby ranks
    selected together), by randomized selection (module docstring); the selection is
    randomized, its result is not.

    One uniform sample of all the slopes narrows the search to a bracket holding every
    wanted rank; one sample of that bracket then narrows it around each group."""
    rng = np.random.default_rng(seed)
    limit = max(_LIST_FACTOR * points.x.size, 2 * _SAMPLE)
    every = tuple(r for group in ranks for r in group)
    if not every:  # no rank asked for (no finite slope): nothing to select
        return tuple(() for _ in ranks)
    if points.n_finite <= limit:  # few enough to list: every slope, one partition
        i, j = np.triu_indices(points.x.size, 1)
        keep = points.x[i] < points.x[j]
        values = np.partition(points.slopes(i[keep], j[keep]), [r - 1 for r in every])
        return tuple(tuple(float(values[r - 1]) for r in group) for group in ranks)
    start = _Bracket(-math.inf, math.inf, 0, points.n_finite)
    joint: float | _Bracket = start
    if start.size > limit:
        joint = _narrowed(points, _sample(points, start, rng), every, start)
    shared = None
    if isinstance(joint, _Bracket) and joint.size > limit:
        shared = _sample(points, joint, rng)
    return tuple(_select(points, group, joint, rng, shared) for group in ranks)
