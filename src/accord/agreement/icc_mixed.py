"""Restricted maximum likelihood for the ICC's random-effects models, on any design.

Three linear mixed models of a score ``y`` of item ``i`` by rater ``j`` give the ICC forms:

- ``"oneway"``: ``y = mu + a_i + e`` (raters are part of the error) -> ICC(1,.);
- ``"random"``: ``y = mu + a_i + b_j + e`` (items and raters random) -> ICC(2,.);
- ``"fixed"``: ``y = mu_j + a_i + e`` (raters fixed) -> ICC(3,.);

with ``a ~ N(0, s_a)``, ``b ~ N(0, s_b)``, ``e ~ N(0, s_e)``. Each is fitted by REML.

How it scales. Write ``g_a = s_a / s_e`` and ``g_b = s_b / s_e``, ``X`` the fixed effects
(``p`` columns), ``W = [X, Z_b]`` the fixed and rater columns and ``Z_a`` the item indicators.
The REML deviance with ``s_e`` profiled out is (Henderson's mixed-model equations;
Bates et al. 2015, eq. 34-41)::

    d(g) = (N - p) log Q + log|G| + log|C|      + const

where ``C`` is the coefficient matrix of the mixed-model equations, ``G`` the relative
covariance of the random effects and ``Q = y'y - r' C^{-1} r`` the penalised residual sum of
squares. The item block of ``C`` is diagonal, ``A = diag(n_i + 1/g_a)`` (``n_i`` scores of item
``i``), so it is eliminated exactly: with ``B = Z_a' W`` (row ``b_i``: the item's score count
and its counts per rater) and ``t_i`` the item's score sum,

    log|G| + log|C| = sum_i log(1 + g_a n_i) + log|S~|
    S = W'W - B' A^{-1} B (+ I/g_b on the rater block),  S~ = L S L,  L = diag(1, sqrt(g_b))
    Q = y'y - sum_i t_i^2 / (n_i + 1/g_a) - h' S^{-1} h,  h = W'y - B' A^{-1} t

``S~`` is (raters + 1) square and continuous at ``g_a = 0`` and ``g_b = 0``. As ``A^{-1}``
depends on an item only through ``n_i``, every item sum above is a sum over the distinct
``n_i`` of ``1/(n_i + 1/g_a)`` times a statistic of the items with that count (their number,
``sum t_i^2``, ``sum b_i t_i`` and ``sum b_i b_i'``): one pass over the scores builds them (the
rater pairs of an item are enumerated, about N times the mean raters per item), and each
evaluation of the deviance then costs a (raters + 1) Cholesky factorisation, whatever the
number of items. The variance components are not negative: the deviance is minimised over
the shares ``g / (1 + g)`` in [0, 1) (for random raters, the shares of ``s_a`` and ``s_b`` in
the total variance), with the boundaries searched too.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from .._errors import InvalidInputError
from .._interval import chi2_quantile, chi2_sf
from .._results import plain_fields
from .._types import FloatArray, IntArray
from ..data.order import stable_order

__all__ = [
    "CrossedDesign",
    "MixedModel",
    "REMLFit",
    "fit_reml",
    "harmonic_mean_raters",
]

MixedModel = Literal["oneway", "random", "fixed"]

npt_like = FloatArray | IntArray | list[int] | list[float]

#: Largest share g / (1 + g) of a variance ratio searched.
_U_MAX = 1.0 - 1e-12
_EPS = 1e-12
#: The deviance where it cannot be resolved (round-off at extreme ratios): finite, so that
#: the searches' arithmetic stays defined, and above any deviance.
_UNRESOLVED = 1e300


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class CrossedDesign:
    """The sums REML needs, grouped by the number of scores of an item.

    Attributes
    ----------
    n_scores, n_items, n_raters : int
        Scores, items with a score, raters.
    counts : ndarray, shape (C,)
        The distinct numbers of scores per item.
    n_class : ndarray, shape (C,)
        Items with each count.
    t2 : ndarray, shape (C,)
        ``sum t_i^2`` over the items of each count (``t_i`` the item's sum of centred scores).
    bt : ndarray, shape (C, m + 1)
        ``sum b_i t_i``, ``b_i = (n_i, n_i1, ..., n_im)``.
    bb : ndarray, shape (C, m + 1, m + 1)
        ``sum b_i b_i'``.
    wtw : ndarray, shape (m + 1, m + 1)
        ``W'W`` for ``W = [1, Z_b]``.
    wty : ndarray, shape (m + 1,)
        ``W'y``.
    yty : float
        ``y'y`` of the centred, scaled scores.
    scale : float
        The variance the scores were divided by (variance components are multiplied back).
    harmonic_raters : float
        Harmonic mean of the number of scores per item.
    """

    n_scores: int
    n_items: int
    n_raters: int
    counts: FloatArray
    n_class: FloatArray
    t2: FloatArray
    bt: FloatArray
    bb: FloatArray
    wtw: FloatArray
    wty: FloatArray
    yty: float
    scale: float
    harmonic_raters: float

    @classmethod
    def from_codes(cls, items: IntArray, raters: IntArray, y: FloatArray) -> CrossedDesign:
        """The design's sums from item codes, rater codes and scores (one row a score).

        Codes are compacted (an item or rater without a score is not counted). The scores
        are centred and divided by their standard deviation (the fit is invariant to both).
        """
        items, raters = _compact(items), _compact(raters)
        n, m = int(items.max()) + 1, int(raters.max()) + 1
        y = np.asarray(y, dtype=np.float64)
        sd = float(np.std(y))
        scale = sd * sd if sd > 0 else 1.0
        y = (y - float(np.mean(y))) / math.sqrt(scale)
        n_i = np.bincount(items, minlength=n)
        t_i = np.bincount(items, weights=y, minlength=n)
        hist = np.bincount(n_i)
        counts, klass = np.flatnonzero(hist), (np.cumsum(hist > 0) - 1)[n_i]
        c = counts.size
        per_score_class = klass[items]
        rr = _rater_pairs(items, raters, n_i, per_score_class, c, m)
        # rater block of sum b_i t_i: sum over scores of t_{item} by (class, rater)
        rt = np.bincount(per_score_class * m + raters, weights=t_i[items], minlength=c * m)
        rsum = np.bincount(per_score_class * m + raters, minlength=c * m).reshape(c, m)
        n_class = np.bincount(klass, minlength=c).astype(np.float64)
        cf = counts.astype(np.float64)
        bb = np.zeros((c, m + 1, m + 1))
        bb[:, 0, 0] = n_class * cf * cf
        bb[:, 0, 1:] = bb[:, 1:, 0] = cf[:, None] * rsum
        bb[:, 1:, 1:] = rr
        t_class = np.bincount(klass, weights=t_i, minlength=c)
        bt = np.empty((c, m + 1))
        bt[:, 0] = cf * t_class
        bt[:, 1:] = rt.reshape(c, m)
        per_rater = np.bincount(raters, minlength=m).astype(np.float64)
        wtw = np.zeros((m + 1, m + 1))
        wtw[0, 0] = y.size
        wtw[0, 1:] = wtw[1:, 0] = per_rater
        wtw[1:, 1:] = np.diag(per_rater)
        wty = np.concatenate([[y.sum()], np.bincount(raters, weights=y, minlength=m)])
        return cls(
            n_scores=int(y.size),
            n_items=n,
            n_raters=m,
            counts=cf,
            n_class=n_class,
            t2=np.bincount(klass, weights=t_i * t_i, minlength=c).astype(np.float64),
            bt=bt,
            bb=bb,
            wtw=wtw,
            wty=wty,
            yty=float(y @ y),
            scale=scale,
            harmonic_raters=harmonic_mean_raters(n_i),
        )


def _compact(codes: IntArray) -> IntArray:
    """Codes 0..k-1 of the distinct codes, in their order (one pass, no sort)."""
    codes = np.asarray(codes, dtype=np.int64)
    used = np.bincount(codes) > 0
    if used.all():
        return codes
    return (np.cumsum(used) - 1)[codes]


def _rater_pairs(
    items: IntArray, raters: IntArray, n_i: IntArray, klass: IntArray, c: int, m: int
) -> FloatArray:
    """``sum b_i b_i'`` over the raters' block, per count class (shape ``(c, m, m)``): the
    pairs of scores of one item, enumerated by their distance in the item-sorted scores
    (the work is the number of pairs, about N times the mean raters per item)."""
    if items.size > 1 and np.any(items[1:] < items[:-1]):
        order = stable_order(items, n_i.size)
        items, raters, klass = items[order], raters[order], klass[order]
    first = np.concatenate([[0], np.cumsum(n_i)[:-1]])
    if m <= _FEW_RATERS:
        bits = np.left_shift(np.int64(1), raters)
        sets = np.bitwise_or.reduceat(bits, first)
        if np.array_equal(sets, np.add.reduceat(bits, first)):  # no rater twice in an item
            return _rater_pairs_of_sets(sets, klass[first], c, m)
    left = n_i[items] - (np.arange(items.size) - first[items]) - 1  # scores after this one
    base = klass * (m * m)
    pairs = np.bincount(base + raters * m + raters, minlength=c * m * m).astype(np.float64)
    cand = np.flatnonzero(left >= 1)
    d = 1
    off = np.zeros(c * m * m)
    while cand.size:
        off += np.bincount(base[cand] + raters[cand] * m + raters[cand + d], minlength=c * m * m)
        d += 1
        cand = cand[left[cand] >= d]
    off3 = off.reshape(c, m, m)
    return pairs.reshape(c, m, m) + off3 + off3.transpose(0, 2, 1)


#: Raters up to which :func:`_rater_pairs` counts the items by their set of raters (a bit
#: each: the distinct sets are few), rather than visiting every pair of scores.
_FEW_RATERS = 20


def _rater_pairs_of_sets(sets: IntArray, item_class: IntArray, c: int, m: int) -> FloatArray:
    """:func:`_rater_pairs` from each item's set of raters (a bit a rater; no rater twice in
    an item): ``b_i b_i'`` is the outer product of the set's indicator with itself, summed
    over the items of a class with that set."""
    kinds, count = np.unique(item_class * (np.int64(1) << m) + sets, return_counts=True)
    member = ((kinds[:, None] >> np.arange(m)) & 1).astype(np.float64)
    out = np.zeros((c, m, m))
    np.add.at(out, kinds >> m, count[:, None, None] * member[:, :, None] * member[:, None, :])
    return out


def harmonic_mean_raters(per_item: npt_like) -> float:
    """Harmonic mean of the number of scores per item (ten Hove et al.'s k-hat).

    >>> harmonic_mean_raters([2, 2, 4])
    2.4
    """
    k = np.asarray(per_item, dtype=np.float64)
    k = k[k > 0]
    return float(k.size / np.sum(1.0 / k))


def _columns(model: MixedModel, m: int) -> tuple[IntArray, int, bool]:
    """The columns of ``W`` a model uses, its fixed-effect count and whether raters are
    random."""
    if model == "oneway":
        return np.array([0]), 1, False
    if model == "random":
        return np.arange(m + 1), 1, True
    return np.arange(1, m + 1), m, False


def deviance_function(
    design: CrossedDesign, model: MixedModel
) -> Callable[[float, float], tuple[float, float]]:
    """The REML deviance ``d(theta_a, theta_b)`` (up to a constant) and ``Q``, as a function
    of the relative standard deviations ``theta = sqrt(g)``; ``theta_b`` is ignored unless
    raters are random."""
    from scipy import linalg

    cols, p, random_raters = _columns(model, design.n_raters)
    wtw = design.wtw[np.ix_(cols, cols)]
    wty = design.wty[cols]
    q = cols.size
    bb = design.bb[:, cols][:, :, cols].reshape(-1, q * q)
    bt = design.bt[:, cols]
    is_rater = cols >= 1 if random_raters else np.zeros(q, dtype=bool)
    dof = design.n_scores - p

    def deviance(theta_a: float, theta_b: float) -> tuple[float, float]:
        g = theta_a * theta_a
        w = g / (1.0 + g * design.counts)
        s = wtw - (w @ bb).reshape(q, q)
        h = wty - w @ bt
        diag = np.where(is_rater, theta_b, 1.0)
        s = s * diag[:, None] * diag[None, :]
        s[is_rater, is_rater] += 1.0
        try:
            chol = np.linalg.cholesky(s)
        except np.linalg.LinAlgError:  # round-off at extreme ratios: not a minimum
            return _UNRESOLVED, math.nan
        z = linalg.solve_triangular(chol, h * diag, lower=True, check_finite=False)
        q_ = design.yty - float(w @ design.t2) - float(z @ z)
        if q_ <= 1e-10 * design.yty:  # below round-off: not resolved, not a minimum
            return _UNRESOLVED, math.nan
        logdet = 2.0 * float(np.sum(np.log(np.diag(chol))))
        logdet += float(design.n_class @ np.log1p(g * design.counts))
        return dof * math.log(q_) + logdet, q_

    return deviance


def _ratio(u: float) -> float:
    """``sqrt(g)`` of the share ``u = g / (1 + g)`` in [0, 1)."""
    return math.sqrt(u / (1.0 - u))


def _argmin_share(f: Callable[[float], float], hi: float = _U_MAX) -> tuple[float, float]:
    """The share ``u`` in [0, hi] minimising ``f`` and the minimum: Brent's bounded search,
    kept only if it beats both ends."""
    from scipy import optimize

    at_zero = f(0.0)
    if hi <= 0.0:
        return 0.0, at_zero
    res = optimize.minimize_scalar(f, bounds=(0.0, hi), method="bounded", options={"xatol": 1e-11})
    return min((at_zero, 0.0), (float(res.fun), float(res.x)), (f(hi), hi))[::-1]


def _shares_deviance(
    dev: Callable[[float, float], tuple[float, float]],
) -> Callable[[float, float], float]:
    """The random model's deviance at the shares ``p_a = s_a / total`` and
    ``p_b = s_b / total`` (the residual share ``1 - p_a - p_b`` kept >= 1e-12, so that an
    exact fit keeps the ratio of the two)."""

    def at(p_a: float, p_b: float) -> float:
        rest = 1.0 - p_a - p_b
        if rest < _EPS:
            return _UNRESOLVED
        return dev(math.sqrt(p_a / rest), math.sqrt(p_b / rest))[0]

    return at


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class REMLFit:
    """One model's REML fit.

    Attributes
    ----------
    model : {"oneway", "random", "fixed"}
    theta : tuple of float
        Relative standard deviations ``sqrt(s_a / s_e)``, ``sqrt(s_b / s_e)`` (0 unless
        raters are random).
    items_variance, raters_variance, residual_variance : float
        ``s_a``, ``s_b`` (0 unless raters are random), ``s_e`` in the scores' units.
    deviance : float
        The minimised REML deviance (up to a constant).
    design : CrossedDesign
        The sums the fit used (the profile interval refits on them).
    """

    model: MixedModel
    theta: tuple[float, float]
    items_variance: float
    raters_variance: float
    residual_variance: float
    deviance: float
    design: CrossedDesign
    _cache: dict[tuple[str, float], tuple[float, float]] = dataclasses.field(
        default_factory=dict, repr=False
    )

    def to_dict(self) -> dict[str, Any]:
        """The fit's numbers as plain Python (the design's sums left out)."""
        return plain_fields(self, ("design", "_cache"))

    @property
    def exact(self) -> bool:
        """Whether the model fits the scores exactly (no residual variance): the variance
        components are then the limit of the REML fit as ``s_e`` goes to 0."""
        return self.residual_variance == 0.0

    @property
    def icc(self) -> float:
        """``s_a / (s_a + s_b + s_e)``: the single-rating ICC of the model."""
        if self.exact:
            return self.items_variance / (self.items_variance + self.raters_variance)
        g_a, g_b = self.theta[0] ** 2, self.theta[1] ** 2
        return g_a / (1.0 + g_a + g_b)

    def _profile(self, rho: float) -> float:
        """The deviance profiled at ``ICC = rho`` (over the rater variance when random)."""
        dev = deviance_function(self.design, self.model)
        if rho >= 1.0:
            return math.inf
        if self.model != "random":
            return dev(_ratio(rho), 0.0)[0]

        shares = _shares_deviance(dev)
        return _argmin_share(lambda p_b: shares(rho, p_b), 1.0 - rho - 2 * _EPS)[1]

    def lr_test(self) -> tuple[float, float]:
        """The likelihood-ratio test of ``s_a = 0``: the statistic and its p-value from the
        50:50 mixture of 0 and chi-square(1) (Self & Liang 1987: the null is on the
        boundary)."""
        if self.exact:  # no item variance would leave a residual: infinitely less likely
            return (math.inf, 0.0) if self.items_variance > 0 else (0.0, 1.0)
        if math.isnan(self.deviance):
            return math.nan, math.nan
        if ("lr", 0.0) not in self._cache:
            lr = max(self._profile(0.0) - self.deviance, 0.0)
            self._cache["lr", 0.0] = (lr, 0.5 * chi2_sf(lr, 1) if lr > 0 else 1.0)
        return self._cache["lr", 0.0]

    def profile_interval(self, level: float) -> tuple[float, float]:
        """The profile-likelihood interval of the single-rating ICC: the ICCs whose profiled
        deviance is within the chi-square(1) quantile of the minimum, cut at 0 and 1."""
        if ("ci", level) in self._cache:
            return self._cache["ci", level]
        crit = chi2_quantile(level, 1)
        if self.exact:
            return _exact_interval(self, crit)
        rho = self.icc

        def excess(r: float) -> float:
            return self._profile(r) - self.deviance - crit

        # the estimate is outside only when round-off flattens the edge of an exact fit
        inside = excess(rho) < 0
        low = 0.0 if rho <= 0.0 or excess(0.0) <= 0 else _root(excess, 0.0, rho) if inside else rho
        high = _U_MAX if excess(_U_MAX) <= 0 else _root(excess, rho, _U_MAX) if inside else rho
        self._cache["ci", level] = (low, high)
        return low, high


def _exact_interval(fit: REMLFit, crit: float) -> tuple[float, float]:
    """The profile interval of an exact fit's ICC ``s_a / (s_a + s_b)``: in the limit
    ``s_e -> 0`` the scores reveal the item and rater effects, whose REML deviance is that of
    two normal samples, ``(n-1) (log s_a + S_a / s_a) + (m-1) (log s_b + S_b / s_b)``
    (``S`` their sums of squares about the mean). At ``rho = s_a / (s_a + s_b)`` with
    ``c = (1 - rho) / rho`` it is minimised by ``s_a = (S_a + S_b / c) / (n + m - 2)``. NaN
    when the ICC is 1 (no rater variance: no interval short of a certainty)."""
    n1, m1 = fit.design.n_items - 1, fit.design.n_raters - 1
    s_a, s_b = fit.items_variance * n1, fit.raters_variance * m1
    if fit.model != "random" or s_a <= 0 or s_b <= 0 or m1 < 1:
        return math.nan, math.nan

    def excess(rho: float) -> float:
        c = (1.0 - rho) / rho
        dev = (n1 + m1) * math.log((s_a + s_b / c) / (n1 + m1)) + m1 * math.log(c)
        best = n1 * math.log(s_a / n1) + m1 * math.log(s_b / m1) + n1 + m1
        return dev + n1 + m1 - best - crit

    rho = fit.icc
    return _root(excess, _EPS, rho), _root(excess, rho, 1.0 - _EPS)


def _root(f: Callable[[float], float], a: float, b: float) -> float:
    from scipy import optimize

    return float(optimize.brentq(f, a, b, xtol=1e-10, rtol=1e-10))


def _random_raters(
    dev: Callable[[float, float], tuple[float, float]], start: tuple[float, float]
) -> tuple[float, float]:
    """``(theta_a, theta_b)`` of the random model, the best of several searches: a
    Nelder-Mead search over ``log theta`` from the moment estimates ``start`` and from
    ``(1, 1)``; Brent along the edges (no
    rater variance, no item variance, no residual variance). A best point on an edge is
    kept only if the deviance grows into the interior (:func:`_boundary_checked`)."""
    shares = _shares_deviance(dev)
    top = 1.0 - 2 * _EPS
    candidates = []
    p_a, best = _argmin_share(lambda p: shares(p, 0.0), top)
    candidates.append((best, _ratio(p_a), 0.0))
    p_b, best = _argmin_share(lambda p: shares(0.0, p), top)
    candidates.append((best, 0.0, _ratio(p_b)))
    p_a, best = _argmin_share(lambda p: shares(p, top - p), top)
    rest = 1.0 - top
    candidates.append((best, math.sqrt(p_a / rest), math.sqrt((top - p_a) / rest)))
    t_a, t_b = (min(max(t, 1e-3), 1e4) for t in start)
    for point in ((t_a, t_b), (1.0, 1.0)):
        candidates.append(_log_search(dev, point))
    best_dev, t_a, t_b = min(candidates)
    return _boundary_checked(dev, best_dev, t_a, t_b)


#: The range of ``log theta`` the interior search covers (the edges are searched apart).
_LOG_THETA = (-20.0, 16.0)


def _log_search(
    dev: Callable[[float, float], tuple[float, float]], start: tuple[float, float]
) -> tuple[float, float, float]:
    """Nelder-Mead over ``(log theta_a, log theta_b)`` (kept in :data:`_LOG_THETA`) from
    ``start``: (deviance, theta_a, theta_b)."""
    from scipy import optimize

    lo, hi = _LOG_THETA
    res = optimize.minimize(
        lambda t: dev(math.exp(min(max(t[0], lo), hi)), math.exp(min(max(t[1], lo), hi)))[0],
        np.log(start), method="Nelder-Mead",
        options={"xatol": 1e-6, "fatol": 1e-10, "maxfev": 600},
    )  # fmt: skip
    t_a, t_b = (math.exp(min(max(float(t), lo), hi)) for t in res.x)
    return float(res.fun), t_a, t_b


def _boundary_checked(
    dev: Callable[[float, float], tuple[float, float]], best: float, t_a: float, t_b: float
) -> tuple[float, float]:
    """``(t_a, t_b)`` if it is a minimum, else a better point: at a variance ratio of 0 the
    deviance's slope in that ratio ``g = theta^2`` must not be negative (a forward
    difference); where it is, the search goes on from just inside."""
    for _ in range(3):
        moved = False
        for which in (0, 1):
            if (t_a, t_b)[which] > 0:
                continue
            h = 1e-4 * max(1.0, (t_a, t_b)[1 - which] ** 2)
            step = (math.sqrt(h), t_b) if which == 0 else (t_a, math.sqrt(h))
            if dev(*step)[0] < best - 1e-9:
                value, a, b = _log_search(dev, step)
                if value < best:
                    best, t_a, t_b, moved = value, a, b, True
        if not moved:
            break
    return t_a, t_b


def fit_reml(design: CrossedDesign, model: MixedModel) -> REMLFit:
    """Fit a model by REML: minimise the deviance over the variance ratios ``g >= 0``.

    One ratio is searched as its share ``g / (1 + g)`` in [0, 1) by Brent's bounded method.
    With random raters the deviance can have several local minima and a ridge near an exact
    fit, so several searches run and the best is kept: Nelder-Mead over ``log theta`` from
    moment estimates (the variances of the fixed item and rater effects less what the
    residual adds to them) and from ``(1, 1)``, and Brent along each edge (no rater, no item,
    no residual variance); a point on an edge is kept only when the deviance's slope into the
    interior is not negative. Deviances below round-off (a penalised residual sum of squares
    under 1e-10 of the total) are not taken for minima. When the model fits every score
    exactly with residual degrees of freedom left, the fit is the limit of the REML maximum
    as ``s_e -> 0`` (:func:`_exact_fit`).

    Examples
    --------
    Two raters, the second about 1 higher, on items 2 apart; the design is complete, so
    the fixed-rater fit gives the ANOVA's ICC(3,1), ``(MSR - MSE) / (MSR + MSE)`` = 0.9987
    (MSR = 7.805, MSE = 0.005):

    >>> d = CrossedDesign.from_codes(np.array([0, 0, 1, 1, 2, 2]), np.array([0, 1] * 3),
    ...                              np.array([0.0, 1.1, 2.0, 2.9, 4.0, 5.0]))
    >>> fit = fit_reml(d, "fixed")
    >>> round(fit.icc, 4)
    0.9987
    """
    if design.n_items < 2:
        raise InvalidInputError("REML needs at least 2 items")
    exact = _exact_fit(design, model)
    if exact is not None and math.isnan(exact[0]):  # no maximum, no identified limit
        return REMLFit(model, (math.nan, math.nan), *exact, math.nan, math.nan, design)
    if exact is not None:
        theta = (math.inf, math.inf if exact[1] > 0 else 0.0)
        return REMLFit(model, theta, exact[0], exact[1], 0.0, -math.inf, design)
    dev = deviance_function(design, model)

    if model == "random":
        t_a, t_b = _random_raters(dev, _moments(design))
    else:
        t_a, t_b = _ratio(_argmin_share(lambda u: dev(_ratio(u), 0.0)[0])[0]), 0.0
    deviance, q = dev(t_a, t_b)
    _, p, _ = _columns(model, design.n_raters)
    s_e = q / (design.n_scores - p) * design.scale
    return REMLFit(model, (t_a, t_b), t_a * t_a * s_e, t_b * t_b * s_e, s_e, deviance, design)


def _effects(design: CrossedDesign, model: MixedModel) -> tuple[float, float, float, bool]:
    """The fit of the model's mean structure with the items as fixed effects (and, but for
    the one-way model, the raters): its residual sum of squares, the sample variances
    (divisors ``n - 1`` and ``m - 1``) of the item and rater effects, in the centred,
    scaled units of the design, and whether the raters are linked through shared items
    (if not, the effects are not identified across the design's parts, and the two
    variances mean nothing)."""
    w = 1.0 / design.counts
    rss = design.yty - float(w @ design.t2)
    beta = np.zeros(design.n_raters)
    connected = True
    if model != "oneway":
        s = design.wtw[1:, 1:] - np.einsum("c,cij->ij", w, design.bb[:, 1:, 1:])
        h = design.wty[1:] - w @ design.bt[:, 1:]
        rank = np.linalg.matrix_rank(s, tol=1e-9 * max(float(np.abs(s).max()), 1.0))
        connected = rank >= s.shape[0] - 1
        beta = np.linalg.pinv(s, rcond=1e-10) @ h
        rss -= float(h @ beta)
    # item effects a_i = (t_i - n_i. beta) / n_i, summed by count class
    w2 = w * w
    a2 = w2 @ design.t2 - 2 * w2 @ (design.bt[:, 1:] @ beta)
    a2 += float(w2 @ np.einsum("i,cij,j->c", beta, design.bb[:, 1:, 1:], beta))
    a1 = float(w2 @ (design.bt[:, 0] - design.bb[:, 0, 1:] @ beta))
    s_a = max(float(a2) - a1 * a1 / design.n_items, 0.0) / (design.n_items - 1)
    s_b = float(np.var(beta, ddof=1)) if model == "random" else 0.0
    return max(rss, 0.0), s_a, s_b, connected


def _exact_fit(design: CrossedDesign, model: MixedModel) -> tuple[float, float] | None:
    """``(s_a, s_b)`` in the scores' units when the model's mean structure (items and, but
    for the one-way model, raters as fixed effects) fits every score exactly, else None.

    The REML likelihood then grows without bound as ``s_e -> 0``; the limit of its maximum
    is the REML of the revealed effects: the sample variances (divisor ``n - 1`` and
    ``m - 1``) of the item effects and, with random raters, of the rater effects. On a
    complete design these are the ANOVA's ``MSR / k`` and ``MSC / n`` (``MSE = 0``). A
    disconnected design (raters not linked through shared items) leaves the effects
    unidentified across its parts: NaN for the random model (its ICC is undefined), None
    for the fixed one (its ICC tends to 1 all the same). A design with no residual degrees
    of freedom fits exactly whatever the scores, with a bounded likelihood: None, and the
    fit is searched as any other.
    """
    rss, s_a, s_b, connected = _effects(design, model)
    raters = 0 if model == "oneway" else design.n_raters - 1
    if design.n_scores - design.n_items - raters <= 0 or rss > 1e-9 * design.yty:
        return None  # not exact, or no residual degrees of freedom: a bounded likelihood
    if not connected:
        return (math.nan, math.nan) if model == "random" else None
    return s_a * design.scale, s_b * design.scale


def _moments(design: CrossedDesign) -> tuple[float, float]:
    """Moment estimates of ``(theta_a, theta_b)`` of the random model, a start for the
    search: the residual variance from the fixed-effects fit, the item and rater variances
    from the variances of their effects less the part the residual adds to them."""
    rss, var_a, var_b, connected = _effects(design, "random")
    if not connected:
        return 1.0, 1.0
    dof = design.n_scores - design.n_items - design.n_raters + 1
    s_e = rss / dof if dof > 0 and rss > 0 else 1e-6
    per_item = float(design.n_class @ (1.0 / design.counts)) / design.n_items
    per_rater = float(np.mean(1.0 / np.maximum(np.diag(design.wtw)[1:], 1.0)))
    s_a = max(var_a - s_e * per_item, 1e-6 * s_e)
    s_b = max(var_b - s_e * per_rater, 1e-6 * s_e)
    return math.sqrt(s_a / s_e), math.sqrt(s_b / s_e)
