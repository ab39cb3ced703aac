"""Prediction-powered inference: a mean from a judge's scores on many items, human labels on few.

The judge's mean on the unlabelled items is corrected by the judge's mean error on the
labelled items (the rectifier), and the interval adds the two sets' sampling errors
(Angelopoulos, Bates, Fannjiang, Jordan & Zrnic 2023). PPI++ (Angelopoulos, Duchi & Zrnic
2023) weighs the judge by a power-tuning parameter ``lambda`` chosen to make the interval as
narrow as possible: 0 ignores the judge (the classical mean of the labels), 1 is plain PPI.
Everything is a function of nine sums (:class:`PredictionMoments`), which merge.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Never

import numpy as np

from .._errors import InvalidInputError, bad_parameter, warn_degenerate
from .._interval import check_confidence_level
from .._methods import MethodsFormat, judged_rate_methods
from .._results import Record
from .._types import FloatArray
from ..data.source import refuse_read_options
from .corrected import _z, labels_to_halve
from .judged_counts import JudgeCounts

__all__ = [
    "PredictionMoments",
    "PredictionPoweredMean",
    "prediction_powered_difference",
    "prediction_powered_mean",
    "prediction_powered_mean_from_moments",
]


def _numbers(values: Any, name: str) -> FloatArray:
    array = np.asarray(values.to_numpy() if hasattr(values, "to_numpy") else values)
    if array.dtype == bool:
        array = array.astype(np.float64)
    try:
        out = np.asarray(array, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{name} must be numbers (0/1 for a proportion)") from None
    if out.ndim != 1:
        raise InvalidInputError(f"{name} must be one number per item; got shape {out.shape}")
    if not np.all(np.isfinite(out)):
        first = int(np.flatnonzero(~np.isfinite(out))[0]) + 1
        raise InvalidInputError(f"{name} has a missing or infinite value in row {first}")
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class PredictionMoments(Record):
    """The sums prediction-powered inference of a mean needs (labels ``y``, the judge's
    predictions ``f`` on the labelled items, its predictions ``u`` on the unlabelled ones).

    Examples
    --------
    >>> m = PredictionMoments.from_arrays([1, 0], [1, 1], [0, 1, 1])
    >>> m.n_labelled, m.sum_yf, m.n_unlabelled, m.sum_u
    (2, 1.0, 3, 2.0)
    """

    n_labelled: int
    sum_y: float
    sum_yy: float
    sum_f: float
    sum_ff: float
    sum_yf: float
    n_unlabelled: int
    sum_u: float
    sum_uu: float

    @classmethod
    def from_arrays(cls, labels: Any, predictions: Any, unlabelled: Any) -> PredictionMoments:
        """The sums of the labelled pairs ``(labels, predictions)`` and of ``unlabelled``."""
        y = _numbers(labels, "labels")
        f = _numbers(predictions, "predictions")
        u = _numbers(unlabelled, "unlabelled")
        if y.size != f.size:
            raise InvalidInputError(
                f"labels and predictions must be of the same items; got {y.size} labels and "
                f"{f.size} predictions"
            )
        sy, syy, sf, sff, syf = (float(v) for v in (y.sum(), y @ y, f.sum(), f @ f, y @ f))
        return cls(y.size, sy, syy, sf, sff, syf, u.size, float(u.sum()), float(u @ u))

    @classmethod
    def from_counts(cls, counts: JudgeCounts, positive: int) -> PredictionMoments:
        """The sums of the indicators of the label in row ``positive`` of ``counts``."""
        c = counts.confusion
        y, f, yf = (
            float(c[positive].sum()),
            float(c[:, positive].sum()),
            float(c[positive, positive]),
        )
        u = float(counts.unlabelled[positive])
        return cls(counts.n_labelled, y, y, f, f, yf, counts.n_unlabelled, u, u)

    def merge(self, other: PredictionMoments) -> PredictionMoments:
        """The sums of both sets of items."""
        return PredictionMoments(
            *(getattr(self, f.name) + getattr(other, f.name) for f in dataclasses.fields(self))
        )


@dataclasses.dataclass(frozen=True, slots=True)
class PredictionPoweredMean(Record):
    """A prediction-powered (PPI or PPI++) estimate of a mean or a proportion.

    Attributes
    ----------
    estimate : float
        ``lambda mean(u) + mean(y - lambda f)``.
    standard_error : float
        ``sqrt(Var(y - lambda f) / n + lambda^2 Var(u) / N)``.
    low, high : float
        The CLT (normal) interval.
    confidence_level : float
    lam : float
        The power-tuning parameter used.
    tuned : bool
        ``lam`` was estimated (PPI++); False when given.
    raw_mean : float
        The judge's mean on the unlabelled items.
    classical_estimate, classical_standard_error : float
        The labels' mean and its SE, ignoring the judge.
    effective_labels : float
        Labelled items the classical mean would need for the same SE:
        ``n Var_classical / Var_PPI``.
    n_labelled, n_unlabelled : int
    labelled_variance, unlabelled_variance : float
        The two parts of the squared SE.
    labels_to_halve : int or None
        More labelled items that would halve the width (``lam`` held), None when more
        unlabelled items are needed instead.
    what : str
        ``"mean"`` or ``"difference"`` (of two systems, paired by item).
    reason : str
        Why a value is NaN or ``lam`` was set to 0; empty otherwise.
    method : str
    """

    estimate: float
    standard_error: float
    low: float
    high: float
    confidence_level: float
    lam: float
    tuned: bool
    raw_mean: float
    classical_estimate: float
    classical_standard_error: float
    effective_labels: float
    n_labelled: int
    n_unlabelled: int
    labelled_variance: float
    unlabelled_variance: float
    labels_to_halve: int | None
    what: str
    reason: str
    method: str

    def _headline(self) -> str:
        return (
            f"prediction-powered {self.what}: {self.estimate:.3f} [{self.low:.3f}, "
            f"{self.high:.3f}] (lambda = {self.lam:.3f}) from the judge's {self.raw_mean:.3f}"
        )

    def methods_text(self, format: MethodsFormat = "text") -> str:
        """A methods paragraph with its references. ``format``: ``"text"`` or ``"markdown"``."""
        return judged_rate_methods(self, format)


def _lam(m: PredictionMoments, lam: Any) -> tuple[float, bool, str]:
    """The given ``lam`` (checked), or PPI++'s ``Cov(y, f) / ((1 + n/N) Var(f))`` in [0, 1]."""
    if lam is not None:
        if isinstance(lam, bool) or not isinstance(lam, int | float | np.number):
            raise InvalidInputError(
                bad_parameter("prediction_powered_mean", "lam", "a number or None", lam)
            )
        return float(lam), False, ""
    n, big_n = m.n_labelled, m.n_unlabelled
    cov = m.sum_yf / n - (m.sum_y / n) * (m.sum_f / n)
    total = n + big_n
    var_f = (m.sum_ff + m.sum_uu - (m.sum_f + m.sum_u) ** 2 / total) / (total - 1)
    if not var_f > 0:
        return 0.0, True, "the judge's predictions are constant: lambda set to 0 (no judge)"
    return float(np.clip(cov / ((1.0 + n / big_n) * var_f), 0.0, 1.0)), True, ""


def prediction_powered_mean_from_moments(
    moments: PredictionMoments,
    *,
    lam: float | None = None,
    confidence_level: float = 0.95,
    what: str = "mean",
    **read_options: Never,
) -> PredictionPoweredMean:
    """:func:`prediction_powered_mean` from the sums (:class:`PredictionMoments`): what an
    engine adds up over batches.

    :math:`\\hat\theta = \bar u - \\lambda(\bar f - \bar y)` (Angelopoulos et al. 2023; with
    ``lam=None`` the power-tuned :math:`\\lambda` of PPI++, Angelopoulos, Duchi & Zrnic 2023).

    References
    ----------
    .. [1] Angelopoulos, A. N., Bates, S., Fannjiang, C., Jordan, M. I., & Zrnic, T. (2023).
       Prediction-powered inference. Science, 382(6671), 669-674.
       https://doi.org/10.1126/science.adi6000
    .. [2] Angelopoulos, A. N., Duchi, J. C., & Zrnic, T. (2023). PPI++: Efficient
       prediction-powered inference. https://arxiv.org/abs/2311.01453

    Examples
    --------
    With :math:`\\lambda = 1`, by hand: :math:`\bar u = 1.4/3`, :math:`\bar f - \bar y =
    -0.15`, so :math:`\\hat\theta = 0.4667 + 0.15 = 0.6167`:

    >>> m = PredictionMoments.from_arrays([1.0, 0, 1, 1], [0.9, 0.2, 0.7, 0.6], [0.8, 0.1, 0.5])
    >>> round(prediction_powered_mean_from_moments(m, lam=1).estimate, 4)
    0.6167
    """
    refuse_read_options("prediction_powered_mean_from_moments", read_options, "moments")
    level = check_confidence_level(confidence_level, "prediction_powered_mean")
    m = moments
    n, big_n = m.n_labelled, m.n_unlabelled
    if n < 2 or big_n < 1:
        raise InvalidInputError(
            "prediction_powered_mean needs at least 2 labelled and 1 unlabelled item; got "
            f"{n} labelled and {big_n} unlabelled"
        )
    lam_, tuned, reason = _lam(m, lam)
    y_bar, f_bar, u_bar = m.sum_y / n, m.sum_f / n, m.sum_u / big_n
    rect = y_bar - lam_ * f_bar
    # Variances with divisor n (and N), as ppi-python's np.std.
    var_r = max(0.0, (m.sum_yy - 2 * lam_ * m.sum_yf + lam_**2 * m.sum_ff) / n - rect**2) / n
    var_u = lam_**2 * max(0.0, m.sum_uu / big_n - u_bar**2) / big_n
    se = math.sqrt(var_r + var_u)
    estimate = lam_ * u_bar + rect
    classical_var = max(0.0, m.sum_yy / n - y_bar**2) / n
    half = _z(level) * se
    if reason:
        warn_degenerate(f"prediction_powered_mean: {reason}")
    return PredictionPoweredMean(
        estimate=estimate,
        standard_error=se,
        low=estimate - half,
        high=estimate + half,
        confidence_level=level,
        lam=lam_,
        tuned=tuned,
        raw_mean=u_bar,
        classical_estimate=y_bar,
        classical_standard_error=math.sqrt(classical_var),
        effective_labels=n * classical_var / se**2 if se > 0 else math.nan,
        n_labelled=n,
        n_unlabelled=big_n,
        labelled_variance=var_r,
        unlabelled_variance=var_u,
        labels_to_halve=labels_to_halve(var_r, var_u, n),
        what=what,
        reason=reason,
        method=("PPI++ (lambda tuned to the narrowest interval)" if tuned else "PPI")
        + f" estimate of the {what}, lambda = {lam_:.4g}; normal (CLT) interval with the "
        "labelled and the unlabelled items' sampling error",
    )


def prediction_powered_mean(
    labels: Any,
    predictions: Any,
    unlabelled: Any,
    *,
    lam: float | None = None,
    confidence_level: float = 0.95,
    **read_options: Never,
) -> PredictionPoweredMean:
    r"""The mean of the labels, powered by a judge's predictions on many more items.

    .. math::

        \hat\theta_\lambda = \lambda \bar u + \frac1n \sum_i (y_i - \lambda f_i), \qquad
        \widehat{\mathrm{se}}^2 = \frac{\widehat{\mathrm{Var}}(y - \lambda f)}{n}
        + \lambda^2\frac{\widehat{\mathrm{Var}}(u)}{N}

    Plain PPI is ``lambda = 1``; PPI++ (``lam=None``, the default) estimates the variance-
    minimising ``lambda = Cov(y, f) / ((1 + n/N) Var(f))`` and clips it to [0, 1].

    Parameters
    ----------
    labels : array-like of float, shape (n,)
        The human's labels (0/1 for a proportion, or scores) of the labelled items.
    predictions : array-like of float, shape (n,)
        The judge's predictions of the same items.
    unlabelled : array-like of float, shape (N,)
        The judge's predictions of the items no human labelled.
    lam : float or None, default None
        The power-tuning parameter; None estimates it (PPI++), 1 is PPI, 0 the classical
        mean of the labels.
    confidence_level : float, default 0.95

    Returns
    -------
    PredictionPoweredMean

    Notes
    -----
    The conventions of ppi-python 0.2 (``ppi_mean_pointestimate``, ``ppi_mean_ci``), which a
    test runs side by side: the variances in the standard error have divisor ``n`` (and
    ``N``); lambda's covariance is the labelled items' with divisor ``n``, and ``Var(f)`` is
    pooled over the labelled and unlabelled predictions (divisor ``n + N - 1``). The interval
    is ``estimate +/- z se``, not clipped (a proportion's may pass 0 or 1). When the
    predictions are constant, lambda is 0 (with a reason).

    References
    ----------
    Angelopoulos, A. N., Bates, S., Fannjiang, C., Jordan, M. I., & Zrnic, T. (2023).
    Prediction-powered inference. Science, 382(6671), 669-674.
    https://doi.org/10.1126/science.adi6000

    Angelopoulos, A. N., Duchi, J. C., & Zrnic, T. (2023). PPI++: Efficient
    prediction-powered inference. arXiv:2311.01453.

    Examples
    --------
    The judge's mean is 0.5; on the labelled items it overstates by 0.25, so PPI gives 0.25:

    >>> r = prediction_powered_mean([1, 0, 0, 0], [1, 1, 0, 0], [1, 0, 1, 0], lam=1)
    >>> r.estimate
    0.25
    """
    refuse_read_options("prediction_powered_mean", read_options, "labels")
    moments = PredictionMoments.from_arrays(labels, predictions, unlabelled)
    return prediction_powered_mean_from_moments(moments, lam=lam, confidence_level=confidence_level)


def prediction_powered_difference(
    labels_a: Any,
    labels_b: Any,
    predictions_a: Any,
    predictions_b: Any,
    unlabelled_a: Any,
    unlabelled_b: Any,
    *,
    lam: float | None = None,
    confidence_level: float = 0.95,
    **read_options: Never,
) -> PredictionPoweredMean:
    r"""The difference of two systems' means, judged by one judge on the same items.

    Each item has an output of system A and one of system B; the judge scores both on every
    item, a human on the labelled ones. Paired by item, the difference is the mean of
    ``y_a - y_b``, powered by the judge's ``f_a - f_b``:
    :func:`prediction_powered_mean` of the differences, so that what the two systems share
    on an item (its difficulty, the judge's mood on it) cancels.

    Parameters
    ----------
    labels_a, labels_b : array-like of float, shape (n,)
        The human's labels of A's and B's outputs on the labelled items.
    predictions_a, predictions_b : array-like of float, shape (n,)
        The judge's on the same outputs.
    unlabelled_a, unlabelled_b : array-like of float, shape (N,)
        The judge's on the unlabelled items.
    lam : float or None, default None
    confidence_level : float, default 0.95

    Returns
    -------
    PredictionPoweredMean
        With ``what = "difference"`` (A minus B).

    References
    ----------
    Angelopoulos, A. N., Duchi, J. C., & Zrnic, T. (2023). PPI++: Efficient
    prediction-powered inference. arXiv:2311.01453.

    Examples
    --------
    >>> r = prediction_powered_difference([1, 1, 0], [0, 1, 0], [1, 1, 0], [1, 1, 0],
    ...                                   [1, 0], [0, 0], lam=1)
    >>> round(r.estimate, 3)
    0.833
    """
    refuse_read_options("prediction_powered_difference", read_options, "labels")
    pairs = {}
    for name, a, b in (
        ("labels", labels_a, labels_b),
        ("predictions", predictions_a, predictions_b),
        ("unlabelled", unlabelled_a, unlabelled_b),
    ):
        xa, xb = _numbers(a, f"{name}_a"), _numbers(b, f"{name}_b")
        if xa.size != xb.size:
            raise InvalidInputError(
                f"{name}_a and {name}_b must be of the same items; got {xa.size} and {xb.size}"
            )
        pairs[name] = xa - xb
    moments = PredictionMoments.from_arrays(
        pairs["labels"], pairs["predictions"], pairs["unlabelled"]
    )
    return prediction_powered_mean_from_moments(
        moments, lam=lam, confidence_level=confidence_level, what="difference"
    )
