"""What is the real pass rate? A judge's rate corrected by its errors on a labelled subset.

A judge (a language model, a classifier) labels many items; a human labels a few of them as
well. The judge's raw rate on the many is biased by its errors; the labelled few measure those
errors (sensitivity and specificity, or the whole confusion matrix), and inverting them gives a
corrected rate: Rogan & Gladen (1978) for one label, the matrix method for the distribution of
all labels. The interval includes the sampling error of both sets: of the judge's error rates
(labelled items) and of the judge's raw rate (unlabelled items).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any, Literal, Never

import numpy as np
import pandas as pd

from .._bootstrap import bootstrap_interval, warn_few_replicates
from .._errors import InvalidInputError, bad_choice, bad_parameter, option, warn_degenerate
from .._interval import check_confidence_level
from .._methods import MethodsFormat, judged_rate_methods
from .._results import Record
from .._types import FloatArray, RngLike, as_generator
from .._validate import counted
from ..data.source import refuse_read_options
from .judged_counts import JudgeCounts

__all__ = [
    "CorrectedDistribution",
    "CorrectedRate",
    "corrected_distribution",
    "corrected_distribution_from_counts",
    "corrected_rate",
    "corrected_rate_from_counts",
    "labels_to_halve",
]

IntervalMethod = Literal["delta", "bootstrap"]

#: A confusion matrix whose condition number passes this is flagged as ill-conditioned; past
#: ``SINGULAR`` it is treated as singular (the estimates are NaN).
ILL_CONDITIONED = 1e3
SINGULAR = 1e12


def labels_to_halve(labelled_variance: float, unlabelled_variance: float, n_labelled: int) -> Any:
    """How many more labelled items (in the same mix) would halve the interval's width.

    The variance is ``V_l n / (n + m) + V_u`` with ``m`` more labelled items; halving the
    width divides it by 4, so ``m = n (V_l / ((V_l + V_u) / 4 - V_u) - 1)``. ``None`` when
    the unlabelled items' share ``V_u`` alone is more than a quarter of the variance (more
    judged items are needed, not more labels) or the variance is not finite.

    >>> labels_to_halve(0.01, 0.0, 100)
    300
    >>> labels_to_halve(0.01, 0.01, 100) is None
    True
    """
    target = (labelled_variance + unlabelled_variance) / 4.0 - unlabelled_variance
    if not (math.isfinite(target) and target > 0.0 and labelled_variance > 0.0):
        return None
    return max(0, math.ceil(n_labelled * (labelled_variance / target - 1.0) - 1e-9))


@dataclasses.dataclass(frozen=True, slots=True)
class CorrectedRate(Record):
    """The Rogan-Gladen corrected rate of one label.

    Attributes
    ----------
    label : object
        The label whose rate is estimated (``positive``).
    estimate : float
        ``(q + spec - 1) / (sens + spec - 1)`` clipped to [0, 1]; NaN when undefined
        (``reason``).
    unclipped : float
        The same before clipping.
    standard_error : float
        Delta-method standard error (labelled and unlabelled sampling error).
    low, high : float
        The interval (``interval``), clipped to [0, 1].
    confidence_level : float
    interval : str
        ``"delta"`` (Wald on the delta-method SE) or ``"bootstrap"`` (percentile, both sets
        resampled).
    raw_rate : float
        ``q``: the judge's rate of ``label`` on the unlabelled items.
    sensitivity, specificity : float
        The judge's on the labelled items: ``P(judge = label | human = label)`` and
        ``P(judge != label | human != label)``.
    youden : float
        ``sens + spec - 1``; at or below 0 the judge is no better than chance.
    n_labelled, n_unlabelled : int
    n_positive : int
        Labelled items the human gave ``label``.
    labelled_variance, unlabelled_variance : float
        The two parts of the delta-method variance.
    labels_to_halve : int or None
        More labelled items (in the same mix) that would halve the delta interval's width;
        None when more judged items are needed instead (:func:`labels_to_halve`).
    clipped : bool
        The unclipped estimate was outside [0, 1].
    degenerate : bool
        The correction is undefined or unusable (``reason``).
    reason : str
        Why the estimate is NaN or flagged; empty otherwise.
    n_boot : int
        Bootstrap replicates (0 with the delta interval).
    method : str
    """

    label: Any
    estimate: float
    unclipped: float
    standard_error: float
    low: float
    high: float
    confidence_level: float
    interval: str
    raw_rate: float
    sensitivity: float
    specificity: float
    youden: float
    n_labelled: int
    n_unlabelled: int
    n_positive: int
    labelled_variance: float
    unlabelled_variance: float
    labels_to_halve: int | None
    clipped: bool
    degenerate: bool
    reason: str
    n_boot: int
    method: str

    def _headline(self) -> str:
        return (
            f"rate of {self.label}: {self.estimate:.3f} corrected "
            f"[{self.low:.3f}, {self.high:.3f}] from the judge's {self.raw_rate:.3f}"
        )

    def methods_text(self, format: MethodsFormat = "text") -> str:
        """A methods paragraph with its references; every number comes from this result.
        ``format``: ``"text"`` or ``"markdown"``."""
        return judged_rate_methods(self, format)


@dataclasses.dataclass(frozen=True, slots=True)
class CorrectedDistribution(Record):
    """The distribution of the labels, corrected by inverting the judge's confusion matrix.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per label: ``label``, ``raw_rate`` (the judge's share on the unlabelled
        items), ``estimate`` (clipped to [0, 1] and renormalised to sum to 1),
        ``unclipped``, ``standard_error`` (delta method), ``low``, ``high``,
        ``labels_to_halve``.
    confusion : pandas.DataFrame
        ``P(judge = j | human = t)``: rows the human's label, columns the judge's.
    condition_number : float
        Of ``confusion`` (2-norm); large means the inversion amplifies noise.
    n_labelled, n_unlabelled : int
    confidence_level : float
    interval : str
    clipped, degenerate : bool
    reason : str
    n_boot : int
    method : str
    """

    table: pd.DataFrame
    confusion: pd.DataFrame
    condition_number: float
    n_labelled: int
    n_unlabelled: int
    confidence_level: float
    interval: str
    clipped: bool
    degenerate: bool
    reason: str
    n_boot: int
    method: str

    def _headline(self) -> str:
        shares = ", ".join(
            f"{r.label} {r.estimate:.3f}" for r in self.table.itertuples(index=False)
        )
        return f"corrected distribution of the labels: {shares}"

    def to_frame(self) -> pd.DataFrame:
        """The per-label table (a copy)."""
        return self.table.copy()

    def methods_text(self, format: MethodsFormat = "text") -> str:
        """A methods paragraph with its references. ``format``: ``"text"`` or ``"markdown"``."""
        return judged_rate_methods(self, format)


# ----------------------------------------------------------------------------- options


@dataclasses.dataclass(frozen=True, slots=True)
class _Options:
    level: float
    interval: IntervalMethod
    n_boot: int
    rng: np.random.Generator


def _options(owner: str, level: Any, interval: Any, n_boot: Any, rng: RngLike) -> _Options:
    level = check_confidence_level(level, owner)
    if interval not in ("delta", "bootstrap"):
        raise InvalidInputError(bad_choice(owner, "interval", ("delta", "bootstrap"), interval))
    if isinstance(n_boot, bool) or not isinstance(n_boot, int | np.integer) or n_boot < 1:
        raise InvalidInputError(bad_parameter(owner, "n_boot", "a positive integer", n_boot))
    if interval == "bootstrap":
        warn_few_replicates(int(n_boot), stacklevel=5)
    return _Options(level, interval, int(n_boot), as_generator(rng, owner))


def _positive(counts: JudgeCounts, positive: Any, owner: str) -> int:
    """The row of the positive label: given, or the 1 (or True) of 0/1 (or boolean) labels."""
    if positive is not None:
        return counts.code(positive, owner)
    if set(counts.categories) <= {0, 1} and len(counts.categories) == 2:
        return 1
    raise InvalidInputError(
        f"{owner} needs the label whose rate to estimate: pass "
        f"{option('positive', *counts.categories)}"
    )


def _z(level: float) -> float:
    from scipy import special

    return float(math.sqrt(2.0) * special.erfinv(level))


# ----------------------------------------------------------------------------- one label


def _binary_cells(confusion: FloatArray, pos: int) -> FloatArray:
    """``(tp, fn, fp, tn)`` of the labelled items, positive ``pos`` against the rest."""
    tp = confusion[pos, pos]
    fn = confusion[pos].sum() - tp
    fp = confusion[:, pos].sum() - tp
    tn = confusion.sum() - tp - fn - fp
    return np.array([tp, fn, fp, tn], dtype=np.float64)


def _rogan_gladen(cells: FloatArray, unlabelled_pos: Any, n_unlabelled: float) -> Any:
    """Vectorised over the leading axis: ``(p, sens, spec, q)`` from cells ``(..., 4)``."""
    tp, fn, fp, tn = np.moveaxis(cells, -1, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        sens = tp / (tp + fn)
        spec = tn / (tn + fp)
        q = unlabelled_pos / n_unlabelled
        youden = sens + spec - 1.0
        p = np.where(youden > 0, (q + spec - 1.0) / youden, np.nan)
    return p, sens, spec, q


def _binary_reason(n_pos: float, n_neg: float, youden: float, label: Any) -> str:
    if n_pos == 0 or n_neg == 0:
        which = "never gave" if n_pos == 0 else "always gave"
        return (
            f"the human {which} {label!s} on the labelled items, so the judge's "
            f"{'sensitivity' if n_pos == 0 else 'specificity'} is undefined"
        )
    if youden <= 0:
        return (
            f"the judge is no better than chance on the labelled items (sensitivity + "
            f"specificity - 1 = {youden:.3g} <= 0): its labels carry no information to correct"
        )
    return ""


@dataclasses.dataclass(frozen=True, slots=True)
class _Binary:
    """Rogan-Gladen on one label's counts: the estimate, its parts and its variance."""

    label: Any
    p: float
    sens: float
    spec: float
    q: float
    youden: float
    n_pos: float
    reason: str
    var_l: float
    var_u: float

    @property
    def se(self) -> float:
        return math.sqrt(self.var_l + self.var_u)


def _binary(counts: JudgeCounts, pos: int, cells: FloatArray) -> _Binary:
    n_unlab = float(counts.n_unlabelled)
    p, sens, spec, q = (
        float(v) for v in _rogan_gladen(cells, np.float64(counts.unlabelled[pos]), n_unlab)
    )
    n_pos, n_neg = float(cells[0] + cells[1]), float(cells[2] + cells[3])
    youden = sens + spec - 1.0 if n_pos and n_neg else math.nan
    label = counts.categories[pos]
    reason = _binary_reason(n_pos, n_neg, youden, label)
    var_l, var_u = (math.nan, math.nan) if reason else _greenland(p, sens, spec, q, cells, n_unlab)
    return _Binary(label, p, sens, spec, q, youden, n_pos, reason, var_l, var_u)


def _require_unlabelled(counts: JudgeCounts, owner: str) -> None:
    """A one-line error when no item has the judge's label alone: the rate corrected is the
    judge's on the items no human labelled, and the humans' labels are its calibration."""
    if counts.n_unlabelled == 0:
        raise InvalidInputError(
            f"{owner}: every item the judge labelled has a human label too, so no rate is "
            "left to correct (the corrected rate is the judge's on the items no human "
            f"labelled; here {counted(counts.n_labelled, 'labelled item')}, no other)"
        )


def corrected_rate_from_counts(
    counts: JudgeCounts,
    *,
    positive: Any = None,
    confidence_level: float = 0.95,
    interval: IntervalMethod = "delta",
    n_boot: int = 2000,
    rng: RngLike = 0,
    **read_options: Never,
) -> CorrectedRate:
    """:func:`corrected_rate` from the counts (:class:`JudgeCounts`): what an engine sums.

    The Rogan & Gladen (1978) estimate :math:`(q + Sp - 1) / (Se + Sp - 1)` with Greenland's
    (1988) delta-method variance, as :func:`corrected_rate` computes it from labels.

    References
    ----------
    .. [1] Rogan, W. J., & Gladen, B. (1978). Estimating prevalence from the results of a
       screening test. American Journal of Epidemiology, 107(1), 71-76.
       https://doi.org/10.1093/oxfordjournals.aje.a112510

    Examples
    --------
    Sensitivity 2/3 and specificity 2/3 on six labelled items, a raw rate of 1/2 on six
    judged ones: :math:`(1/2 + 2/3 - 1) / (2/3 + 2/3 - 1) = 1/2`, by hand:

    >>> counts = JudgeCounts.from_labels([1, 1, 0, 0, 1, 0], [1, 0, 0, 0, 1, 1],
    ...                                  [1, 0, 1, 0, 0, 1])
    >>> r = corrected_rate_from_counts(counts, positive=1)
    >>> round(r.sensitivity, 4), round(r.specificity, 4), r.raw_rate, round(r.estimate, 4)
    (0.6667, 0.6667, 0.5, 0.5)
    """
    refuse_read_options("corrected_rate_from_counts", read_options, "counts")
    owner = "corrected_rate"
    opts = _options(owner, confidence_level, interval, n_boot, rng)
    pos = _positive(counts, positive, owner)
    _require_unlabelled(counts, owner)
    cells = _binary_cells(counts.confusion.astype(np.float64), pos)
    b = _binary(counts, pos, cells)
    low, high = _interval_of(b.p, b.se, opts, lambda o: _binary_replicates(cells, counts, pos, o))
    return _rate_result(b, (low, high), opts, counts)


def _greenland(
    p: float, sens: float, spec: float, q: float, cells: FloatArray, n_unlabelled: float
) -> tuple[float, float]:
    """The labelled and the unlabelled parts of the delta-method variance (Greenland 1988):
    ``q``, ``sens`` and ``spec`` are independent binomial proportions."""
    youden2 = (sens + spec - 1.0) ** 2
    n_pos, n_neg = float(cells[0] + cells[1]), float(cells[2] + cells[3])
    var_l = (p**2 * sens * (1 - sens) / n_pos + (1 - p) ** 2 * spec * (1 - spec) / n_neg) / youden2
    return var_l, q * (1 - q) / n_unlabelled / youden2


def _binary_replicates(cells: FloatArray, counts: JudgeCounts, pos: int, opts: _Options) -> Any:
    """Clipped Rogan-Gladen estimates of ``n_boot`` resamples of both sets of items."""
    n, n_u = int(cells.sum()), counts.n_unlabelled
    boot_cells = opts.rng.multinomial(n, cells / n, size=opts.n_boot).astype(np.float64)
    u_share = counts.unlabelled[pos] / n_u
    boot_u = opts.rng.binomial(n_u, u_share, size=opts.n_boot).astype(np.float64)
    p = _rogan_gladen(boot_cells, boot_u, float(n_u))[0]
    return np.clip(p, 0.0, 1.0)


def _interval_of(estimate: float, se: float, opts: _Options, replicate: Any) -> tuple[float, float]:
    """The clipped delta (Wald) interval, or the percentile interval of ``replicate(opts)``."""
    if not math.isfinite(se):
        return math.nan, math.nan
    if opts.interval == "bootstrap":
        reps = np.asarray(replicate(opts), dtype=np.float64)
        ci = bootstrap_interval(estimate, reps, None, level=opts.level, method="percentile")
        return float(ci.low), float(ci.high)
    half = _z(opts.level) * se
    return max(0.0, estimate - half), min(1.0, estimate + half)


def _rate_result(
    b: _Binary, bounds: tuple[float, float], opts: _Options, counts: JudgeCounts
) -> CorrectedRate:
    """The :class:`CorrectedRate` of :func:`corrected_rate_from_counts`."""
    p, reason = (math.nan if b.reason else b.p), b.reason
    clipped = bool(math.isfinite(p) and not 0.0 <= p <= 1.0)
    if reason:
        warn_degenerate(f"corrected_rate: {reason}", stacklevel=4)
    elif clipped:
        reason = f"the corrected rate {p:.4g} fell outside [0, 1] and was clipped"
    n_boot = opts.n_boot if opts.interval == "bootstrap" else 0
    method = (
        "Rogan-Gladen corrected rate (q + spec - 1) / (sens + spec - 1); "
        + (
            "delta-method (Greenland 1988) Wald interval"
            if not n_boot
            else f"percentile bootstrap interval ({n_boot} resamples of both sets)"
        )
        + " with the sampling error of the labelled and the unlabelled items, clipped to [0, 1]"
    )
    return CorrectedRate(
        label=b.label,
        estimate=float(np.clip(p, 0.0, 1.0)) if math.isfinite(p) else math.nan,
        unclipped=p,
        standard_error=b.se,
        low=bounds[0],
        high=bounds[1],
        confidence_level=opts.level,
        interval=opts.interval,
        raw_rate=b.q,
        sensitivity=b.sens,
        specificity=b.spec,
        youden=b.youden,
        n_labelled=counts.n_labelled,
        n_unlabelled=counts.n_unlabelled,
        n_positive=int(b.n_pos),
        labelled_variance=b.var_l,
        unlabelled_variance=b.var_u,
        labels_to_halve=labels_to_halve(b.var_l, b.var_u, counts.n_labelled),
        clipped=clipped,
        degenerate=bool(b.reason),
        reason=reason,
        n_boot=n_boot,
        method=method,
    )


def corrected_rate(
    human: Any,
    judge: Any,
    unlabelled: Any,
    *,
    positive: Any = None,
    categories: Sequence[Any] | None = None,
    confidence_level: float = 0.95,
    interval: IntervalMethod = "delta",
    n_boot: int = 2000,
    rng: RngLike = 0,
    **read_options: Never,
) -> CorrectedRate:
    r"""The rate of a label corrected for the judge's errors (Rogan & Gladen 1978).

    .. math::

        \hat p = \frac{q + \mathrm{spec} - 1}{\mathrm{sens} + \mathrm{spec} - 1}, \qquad
        \widehat{\mathrm{Var}}(\hat p) = \frac{1}{J^2}\left[\frac{q(1-q)}{N}
        + \hat p^2 \frac{\mathrm{sens}(1-\mathrm{sens})}{n_1}
        + (1-\hat p)^2 \frac{\mathrm{spec}(1-\mathrm{spec})}{n_0}\right]

    with ``q`` the judge's rate of the label on the ``N`` unlabelled items, ``sens`` and
    ``spec`` the judge's sensitivity and specificity on the labelled items (``n_1`` the
    human gave the label, ``n_0`` not) and ``J = sens + spec - 1``.

    Parameters
    ----------
    human, judge : array-like, shape (n,)
        The human's and the judge's labels of the labelled items.
    unlabelled : array-like, shape (N,)
        The judge's labels of the items no human labelled.
    positive : object, optional
        The label whose rate is estimated; other labels count as its negation. Needed unless
        the labels are 0/1 or booleans (then 1).
    categories : sequence, optional
        The labels (default: those seen).
    confidence_level : float, default 0.95
    interval : {"delta", "bootstrap"}, default "delta"
        Wald interval on the delta-method SE, or the percentile interval of ``n_boot``
        resamples of both the labelled and the unlabelled items.
    n_boot : int, default 2000
    rng : Generator, int or None, default 0
        Seeds the bootstrap.

    Returns
    -------
    CorrectedRate

    Raises
    ------
    InvalidInputError
        Missing labels, human and judge of different lengths, no unlabelled item, a
        ``positive`` that is no label.

    Notes
    -----
    The delta-method variance treats the judge's raw rate (unlabelled items), its sensitivity
    (items the human called positive) and its specificity (the others) as independent
    binomial proportions (Greenland 1988); the labelled items' judge labels are not pooled
    into ``q``. The estimate and the interval are clipped to [0, 1] (``clipped`` says when
    the estimate was). When ``sens + spec - 1 <= 0`` the judge carries no information and
    the estimate is NaN, flagged (``degenerate``, ``reason``) with a
    :class:`~accord.DegenerateDataWarning`. The bootstrap resamples the labelled items
    (multinomially over the four cells of the 2 x 2 table) and the unlabelled items, and
    drops resamples in which the judge is no better than chance. judgy 0.1.0 gives the
    same estimate, but its bootstrap holds ``q`` fixed, so its interval leaves out the
    unlabelled items' sampling error.

    References
    ----------
    Rogan, W. J., & Gladen, B. (1978). Estimating prevalence from the results of a
    screening test. American Journal of Epidemiology, 107(1), 71-76.
    https://doi.org/10.1093/oxfordjournals.aje.a112510

    Greenland, S. (1988). Variance estimation for epidemiologic effect estimates under
    misclassification. Statistics in Medicine, 7(7), 745-757.
    https://doi.org/10.1002/sim.4780070704

    Examples
    --------
    judgy's README data: the judge's sensitivity and specificity are 3/4, its raw pass rate
    5/8, so the corrected rate is (0.625 + 0.75 - 1) / 0.5 = 0.75:

    >>> r = corrected_rate([1, 1, 0, 0, 1, 0, 1, 0], [1, 0, 0, 1, 1, 0, 1, 0],
    ...                    [1, 1, 0, 1, 0, 1, 0, 1])
    >>> round(r.estimate, 3), round(r.low, 3), round(r.high, 3)
    (0.75, 0.0, 1.0)
    """
    refuse_read_options("corrected_rate", read_options, "labels")
    counts = JudgeCounts.from_labels(human, judge, unlabelled, categories=categories)
    return corrected_rate_from_counts(
        counts,
        positive=positive,
        confidence_level=confidence_level,
        interval=interval,
        n_boot=n_boot,
        rng=rng,
    )


# ----------------------------------------------------------------------------- all labels


def _invert(confusion: FloatArray, shares: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(M, pi)``: the row-normalised confusion matrices ``(..., q, q)`` and the solutions
    of ``M^T pi = shares`` (NaN where a row of the confusion is empty or M singular)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        m = confusion / confusion.sum(axis=-1, keepdims=True)
    mt = np.swapaxes(m, -1, -2)
    ok = np.all(np.isfinite(mt), axis=(-2, -1))
    ok &= np.abs(np.linalg.det(np.where(ok[..., None, None], mt, 1.0))) > 1e-12
    safe = np.where(ok[..., None, None], mt, np.eye(m.shape[-1]))
    pi = np.linalg.solve(safe, shares[..., None])[..., 0]
    return m, np.where(ok[..., None], pi, np.nan)


def _matrix_covariance(
    m: FloatArray, pi: FloatArray, shares: FloatArray, n_rows: FloatArray, n_u: float
) -> tuple[FloatArray, FloatArray]:
    """Delta-method covariance of ``pi`` split into its labelled and unlabelled parts:
    ``A S_u A^T`` and ``A (sum_t pi_t^2 S_t) A^T`` with ``A = (M^T)^{-1}``, ``S_u`` the
    multinomial covariance of the judge's shares and ``S_t`` of row ``t`` of ``M``."""
    a = np.linalg.inv(m.T)
    s_u = (np.diag(shares) - np.outer(shares, shares)) / n_u
    s_l = sum(
        pi[t] ** 2 * (np.diag(m[t]) - np.outer(m[t], m[t])) / n_rows[t] for t in range(m.shape[0])
    )
    return a @ s_l @ a.T, a @ s_u @ a.T


def _matrix_reason(counts: JudgeCounts, cond: float) -> str:
    rows = counts.confusion.sum(axis=1)
    empty = [c for c, n in zip(counts.categories, rows, strict=True) if n == 0]
    if empty:
        return (
            f"the human never gave {', '.join(map(str, empty))} on the labelled items, so the "
            "judge's confusion matrix has an empty row"
        )
    if not cond < SINGULAR:
        return "the judge's confusion matrix is singular: its labels cannot be inverted"
    return ""


@dataclasses.dataclass(frozen=True, slots=True)
class _Matrix:
    """The matrix method on the counts: ``M``, the shares, ``pi`` and its variance parts."""

    m: FloatArray
    shares: FloatArray
    pi: FloatArray
    cond: float
    reason: str
    var_l: FloatArray
    var_u: FloatArray

    @property
    def se(self) -> FloatArray:
        out: FloatArray = np.sqrt(np.diag(self.var_l) + np.diag(self.var_u))
        return out


def _matrix(counts: JudgeCounts, confusion: FloatArray) -> _Matrix:
    shares = counts.unlabelled / float(counts.n_unlabelled)
    m, pi = _invert(confusion, shares)
    cond = float(np.linalg.cond(m)) if np.all(np.isfinite(m)) else math.inf
    reason = _matrix_reason(counts, cond)
    q = len(counts.categories)
    var_l = var_u = np.full((q, q), np.nan)
    if not reason:
        rows = confusion.sum(axis=1)
        var_l, var_u = _matrix_covariance(m, pi, shares, rows, float(counts.n_unlabelled))
    return _Matrix(m, shares, pi, cond, reason, var_l, var_u)


def corrected_distribution_from_counts(
    counts: JudgeCounts,
    *,
    confidence_level: float = 0.95,
    interval: IntervalMethod = "delta",
    n_boot: int = 2000,
    rng: RngLike = 0,
    **read_options: Never,
) -> CorrectedDistribution:
    """:func:`corrected_distribution` from the counts (:class:`JudgeCounts`): the judge's
    label shares on the judged items through the inverse of its estimated confusion matrix
    :math:`P(\text{judge} | \text{human})` (the matrix method; Buonaccorsi 2010, ch. 3), as
    :func:`corrected_distribution` computes it from labels.

    References
    ----------
    .. [1] Buonaccorsi, J. P. (2010). Measurement Error: Models, Methods, and Applications.
       Chapman & Hall/CRC. https://doi.org/10.1201/9781420066586

    Examples
    --------
    Two labels, the confusion matrix [[2/3, 1/3], [1/3, 2/3]] and raw shares (1/2, 1/2): the
    inverse leaves them at (1/2, 1/2), as Rogan-Gladen does for either label:

    >>> counts = JudgeCounts.from_labels([1, 1, 0, 0, 1, 0], [1, 0, 0, 0, 1, 1],
    ...                                  [1, 0, 1, 0, 0, 1])
    >>> corrected_distribution_from_counts(counts).table["estimate"].round(4).tolist()
    [0.5, 0.5]
    """
    refuse_read_options("corrected_distribution_from_counts", read_options, "counts")
    owner = "corrected_distribution"
    opts = _options(owner, confidence_level, interval, n_boot, rng)
    _require_unlabelled(counts, owner)
    confusion = counts.confusion.astype(np.float64)
    mm = _matrix(counts, confusion)
    reps = _matrix_replicates(confusion, counts, opts) if opts.interval == "bootstrap" else None
    se = mm.se
    bounds = [
        _interval_of(float(mm.pi[k]), float(se[k]), opts, lambda _o, k=k: reps[:, k])  # type: ignore[index]
        for k in range(len(counts.categories))
    ]
    return _distribution_result(mm, bounds, opts, counts)


def _matrix_replicates(confusion: FloatArray, counts: JudgeCounts, opts: _Options) -> FloatArray:
    """Clipped, renormalised corrected shares of ``n_boot`` resamples of both sets."""
    q, n, n_u = confusion.shape[0], int(confusion.sum()), counts.n_unlabelled
    cells = opts.rng.multinomial(n, confusion.ravel() / n, size=opts.n_boot)
    shares = opts.rng.multinomial(n_u, counts.unlabelled / n_u, size=opts.n_boot) / n_u
    pi = _invert(cells.reshape(-1, q, q).astype(np.float64), shares.astype(np.float64))[1]
    return _clip_shares(pi)


def _clip_shares(pi: FloatArray) -> FloatArray:
    """Shares clipped to [0, 1] and renormalised to sum to 1 along the last axis."""
    clipped = np.clip(pi, 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out: FloatArray = clipped / clipped.sum(axis=-1, keepdims=True)
    return out


def _distribution_result(
    mm: _Matrix, bounds: list[tuple[float, float]], opts: _Options, counts: JudgeCounts
) -> CorrectedDistribution:
    """The :class:`CorrectedDistribution` of :func:`corrected_distribution_from_counts`."""
    pi, cond, reason = mm.pi, mm.cond, mm.reason
    if reason:
        pi = np.full_like(pi, np.nan)
        warn_degenerate(f"corrected_distribution: {reason}", stacklevel=4)
    elif cond > ILL_CONDITIONED:
        reason = f"the judge's confusion matrix is ill-conditioned (condition number {cond:.3g})"
        warn_degenerate(f"corrected_distribution: {reason}", stacklevel=4)
    clipped = bool(np.any((pi < 0) | (pi > 1)))
    if clipped and not reason:
        reason = "some corrected shares fell outside [0, 1]: clipped and renormalised"
    var_l, var_u = np.diag(mm.var_l), np.diag(mm.var_u)
    n = counts.n_labelled
    halve = [labels_to_halve(float(a), float(b), n) for a, b in zip(var_l, var_u, strict=True)]
    table = pd.DataFrame(
        {
            "label": list(counts.categories),
            "raw_rate": mm.shares,
            "estimate": _clip_shares(pi),
            "unclipped": pi,
            "standard_error": mm.se,
            "low": [b[0] for b in bounds],
            "high": [b[1] for b in bounds],
            "labels_to_halve": pd.array(halve, dtype="Int64"),
        }
    )
    cats = list(counts.categories)
    n_boot = opts.n_boot if opts.interval == "bootstrap" else 0
    return CorrectedDistribution(
        table=table,
        confusion=pd.DataFrame(mm.m, index=pd.Index(cats, name="human"), columns=cats),
        condition_number=cond,
        n_labelled=counts.n_labelled,
        n_unlabelled=counts.n_unlabelled,
        confidence_level=opts.level,
        interval=opts.interval,
        clipped=clipped,
        degenerate=bool(mm.reason),
        reason=reason,
        n_boot=n_boot,
        method="matrix-method corrected distribution: the judge's shares through the inverse "
        "of its estimated confusion matrix P(judge | human); "
        + ("delta-method" if not n_boot else f"percentile bootstrap ({n_boot} resamples)")
        + " interval with the sampling error of the labelled and the unlabelled items",
    )


def corrected_distribution(
    human: Any,
    judge: Any,
    unlabelled: Any,
    *,
    categories: Sequence[Any] | None = None,
    confidence_level: float = 0.95,
    interval: IntervalMethod = "delta",
    n_boot: int = 2000,
    rng: RngLike = 0,
    **read_options: Never,
) -> CorrectedDistribution:
    r"""The distribution of all labels, corrected by the judge's confusion matrix.

    .. math::

        \hat\pi = (\hat M^\top)^{-1} \hat q, \qquad
        \widehat{\mathrm{Cov}}(\hat\pi) = A\left[\frac{\mathrm{diag}(\hat q) - \hat q \hat
        q^\top}{N} + \sum_t \hat\pi_t^2 \frac{\mathrm{diag}(\hat m_t) - \hat m_t \hat
        m_t^\top}{n_t}\right] A^\top, \quad A = (\hat M^\top)^{-1}

    with ``M[t, j] = P(judge = j | human = t)`` estimated on the labelled items (row ``t``
    from the ``n_t`` items the human gave ``t``), ``q`` the judge's shares on the ``N``
    unlabelled items.

    Parameters
    ----------
    human, judge : array-like, shape (n,)
    unlabelled : array-like, shape (N,)
    categories : sequence, optional
    confidence_level : float, default 0.95
    interval : {"delta", "bootstrap"}, default "delta"
    n_boot : int, default 2000
    rng : Generator, int or None, default 0

    Returns
    -------
    CorrectedDistribution

    Notes
    -----
    The matrix method (Buonaccorsi 2010, section 3.6; with two labels it is Rogan-Gladen and
    its delta variance Greenland's). The rows of ``M`` are independent multinomials given the
    human's labels, and independent of the unlabelled shares. The estimates are clipped to
    [0, 1] and renormalised to sum to 1; the intervals are computed on the unclipped scale
    and clipped. A matrix with an empty row or singular gives NaN with a reason; one with
    condition number above 1000 is flagged as ill-conditioned (``reason``, a warning) but
    estimated.

    References
    ----------
    Buonaccorsi, J. P. (2010). Measurement Error: Models, Methods, and Applications.
    Chapman & Hall/CRC. https://doi.org/10.1201/9781420066586

    Examples
    --------
    >>> d = corrected_distribution(["a", "a", "b", "b", "c", "c"], ["a", "a", "b", "c", "c", "c"],
    ...                            ["a", "b", "c", "c"])
    >>> d.table[["label", "raw_rate", "estimate"]].round(3)
      label  raw_rate  estimate
    0     a      0.25      0.25
    1     b      0.25      0.50
    2     c      0.50      0.25
    """
    refuse_read_options("corrected_distribution", read_options, "labels")
    counts = JudgeCounts.from_labels(human, judge, unlabelled, categories=categories)
    return corrected_distribution_from_counts(
        counts, confidence_level=confidence_level, interval=interval, n_boot=n_boot, rng=rng
    )
