"""Information primitives: entropy, mutual information and surprisal.

Conventions: ``0 log 0 = 0``; any base ``> 0`` other than 1 (2 gives bits, ``e`` nats, ``q``
the "base q" units of Casagrande, Fabris & Girometti 2020); counts are normalised to
probabilities along ``axis``.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ._errors import InvalidInputError
from ._types import FloatArray

__all__ = ["conditional_entropy", "entropy", "mutual_information", "surprisal"]


def _log_base(base: float) -> float:
    if not (base > 0 and base != 1 and math.isfinite(base)):
        raise InvalidInputError(f"log base must be positive and not 1, got {base}")
    return math.log(base)


def _as_floats(p: npt.ArrayLike, what: str) -> FloatArray:
    try:
        arr: FloatArray = np.asarray(p, dtype=float)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{what} must be numbers, got {p!r:.60}") from None
    return arr


def _as_distribution(p: npt.ArrayLike, axis: int | None) -> FloatArray:
    arr = _as_floats(p, "probabilities or counts")
    if axis is not None and not -arr.ndim <= axis < arr.ndim:
        raise InvalidInputError(f"axis {axis} is out of range for an array of shape {arr.shape}")
    if arr.size and (np.any(arr < 0) or not np.all(np.isfinite(arr))):
        raise InvalidInputError("probabilities or counts must be finite and non-negative")
    total = arr.sum(axis=axis, keepdims=axis is not None)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: FloatArray = arr / total
    return out


def _as_joint(table: npt.ArrayLike) -> FloatArray:
    """A joint table of shape (q_x, q_y), normalised to probabilities."""
    joint = _as_distribution(table, None)
    if joint.ndim != 2:
        raise InvalidInputError(f"a joint table must be 2-D, got shape {joint.shape}")
    return joint


def _plogp(p: FloatArray) -> FloatArray:
    """Elementwise ``p * ln p`` with ``0 ln 0 = 0``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out: FloatArray = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)
    return out


def entropy(p: npt.ArrayLike, *, base: float = 2.0, axis: int | None = -1) -> FloatArray | float:
    r"""Shannon entropy :math:`H = -\sum_k p_k \log_b p_k` with :math:`0 \log 0 = 0`.

    Parameters
    ----------
    p : array_like
        Probabilities or counts (normalised along ``axis``).
    base : float, default 2
        Logarithm base (2: bits).
    axis : int or None, default -1
        Axis holding the categories; ``None`` treats the whole array as one distribution.

    Returns
    -------
    float or ndarray
        Entropy per distribution; NaN for an all-zero distribution.

    References
    ----------
    .. [1] Shannon, C. E. (1948). A mathematical theory of communication. Bell System
       Technical Journal, 27(3), 379-423. https://doi.org/10.1002/j.1538-7305.1948.tb01338.x
    .. [2] Cover, T. M., & Thomas, J. A. (2006). Elements of Information Theory, 2nd ed.,
       ch. 2. Wiley. https://doi.org/10.1002/047174882X

    Examples
    --------
    >>> entropy([1, 1])
    1.0
    >>> entropy([[5, 0, 0], [1, 1, 2]])
    array([0. , 1.5])
    """
    lb = _log_base(base)
    probs = _as_distribution(p, axis)
    h = -_plogp(probs).sum(axis=axis) / lb
    empty = np.asarray(p, dtype=float).sum(axis=axis) == 0
    h = np.where(empty, np.nan, h)
    if np.ndim(h) == 0:
        return float(h) + 0.0
    out: FloatArray = np.asarray(h, dtype=float) + 0.0
    return out


def surprisal(p: npt.ArrayLike, *, base: float = 2.0) -> FloatArray | float:
    r"""Surprisal (self-information) :math:`-\log_b p` of an outcome of probability ``p``.

    Parameters
    ----------
    p : float or array_like
        Probabilities in [0, 1]; ``p = 0`` gives ``inf``.
    base : float, default 2
        Logarithm base (2: bits).

    Returns
    -------
    float or ndarray

    References
    ----------
    Shannon (1948); Cover & Thomas (2006), ch. 2: the full entries are under :func:`entropy`.

    Examples
    --------
    >>> surprisal(0.25)
    2.0
    """
    lb = _log_base(base)
    arr = _as_floats(p, "probabilities")
    inside = (arr >= 0) & (arr <= 1)
    if not np.all(inside):
        bad = arr[~inside].flat[0] if arr.ndim else arr
        raise InvalidInputError(f"probabilities must lie in [0, 1], got {float(bad)}")
    with np.errstate(divide="ignore"):
        s = -np.log(arr) / lb
    if np.ndim(s) == 0:
        return float(s) + 0.0
    out: FloatArray = s + 0.0
    return out


def mutual_information(table: npt.ArrayLike, *, base: float = 2.0) -> float:
    r"""Mutual information :math:`I(X;Y) = H(X) + H(Y) - H(X,Y)` of a joint table.

    Parameters
    ----------
    table : array_like, shape (q_x, q_y)
        Joint counts or probabilities, rows X and columns Y.
    base : float, default 2

    Returns
    -------
    float
        ``I(X;Y) >= 0`` (rounding below 0 is clipped to 0).

    References
    ----------
    Cover & Thomas (2006), sec. 2.3, relative entropy and mutual information (the full entry
    is under :func:`entropy`).

    Examples
    --------
    >>> mutual_information([[10, 0], [0, 10]])
    1.0
    >>> mutual_information([[5, 5], [5, 5]])
    0.0
    """
    joint = _as_joint(table)
    hx = entropy(joint.sum(axis=1), base=base)
    hy = entropy(joint.sum(axis=0), base=base)
    hxy = entropy(joint, base=base, axis=None)
    return max(float(hx) + float(hy) - float(hxy), 0.0)


def conditional_entropy(table: npt.ArrayLike, *, base: float = 2.0) -> float:
    r"""Conditional entropy :math:`H(Y \mid X) = H(X,Y) - H(X)` (rows X, columns Y).

    Parameters
    ----------
    table, base
        The joint table and the logarithm base, as in :func:`mutual_information`.

    Returns
    -------
    float

    References
    ----------
    Cover & Thomas (2006), sec. 2.2, joint entropy and conditional entropy (the full entry is
    under :func:`entropy`).

    Examples
    --------
    >>> conditional_entropy([[10, 0], [0, 10]])
    0.0
    """
    joint = _as_joint(table)
    hxy = entropy(joint, base=base, axis=None)
    hx = entropy(joint.sum(axis=1), base=base)
    return max(float(hxy) - float(hx), 0.0)
