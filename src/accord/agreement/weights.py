"""Agreement weights for the weighted coefficients (Gwet 2014, ch. 3; as in irrCAC).

All schemes are computed on the **declared category scale**: the categories' numeric values
when they are numbers, else their positions 1..q (ratio weights, which need a true zero,
take numbers only). Agreement weights are 1 on the diagonal
and in [0, 1] elsewhere; disagreement weights are ``1 - w``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any, Literal, TypeAlias

import numpy as np
import numpy.typing as npt

from .._errors import InvalidInputError, option
from .._types import FloatArray

__all__ = [
    "DENSE_WEIGHT_CELLS",
    "ORIGIN_SCHEMES",
    "WEIGHT_SCHEMES",
    "LowRankWeights",
    "ManyCategoriesError",
    "WeightScheme",
    "agreement_weights",
    "all_numbers",
    "category_scale",
    "check_ordered",
    "has_order",
    "is_scheme",
    "many_category_weights",
    "parse_scheme",
]

WeightScheme: TypeAlias = Literal[
    "identity", "linear", "quadratic", "ordinal", "radical", "ratio", "circular", "bipolar"
]
WEIGHT_SCHEMES: tuple[str, ...] = (
    "identity",
    "linear",
    "quadratic",
    "ordinal",
    "radical",
    "ratio",
    "circular",
    "bipolar",
)

#: Schemes that take a number after a colon: ``"power:1.5"`` (Warrens 2014: the exponent,
#: >= 0) and ``"circular:0.5"`` (Warrens & Pratiwi 2016: the weight of neighbours on the
#: circle, in [0, 1)); a bare ``"circular"`` is Gwet's sine weights.
PARAMETRISED_SCHEMES: tuple[str, ...] = ("power", "circular")


def parse_scheme(scheme: str, owner: str = "agreement_weights") -> tuple[str, float | None]:
    """The name of a weight scheme and its number (None for a scheme without one).

    >>> parse_scheme("power:1.5"), parse_scheme("circular:0.5"), parse_scheme("linear")
    (('power', 1.5), ('circular', 0.5), ('linear', None))
    """
    name, colon, text = scheme.partition(":")
    if not colon:
        if name == "power":
            raise InvalidInputError(
                f"power weights of {owner} need their exponent after a colon, e.g. 'power:1.5' "
                "(0 is the identity, 0.5 radical, 1 linear, 2 quadratic; Warrens 2014)"
            )
        return name, None
    if name not in PARAMETRISED_SCHEMES:
        raise InvalidInputError(
            f"The 'weights' parameter of {owner}: only 'power' and 'circular' take a number "
            f"after a colon. Got {scheme!r} instead."
        )
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    low_ok = value >= 0.0
    high_ok = value < 1.0 if name == "circular" else value < math.inf
    if not (low_ok and high_ok):
        need = "in [0, 1)" if name == "circular" else "a finite number >= 0"
        raise InvalidInputError(
            f"The number of {name} weights of {owner} must be {need}. Got {text!r} instead."
        )
    return name, value


def is_scheme(weights: Any) -> bool:
    """Whether ``weights`` names a scheme (:data:`WEIGHT_SCHEMES`, or one of
    :data:`PARAMETRISED_SCHEMES` with its number).

    >>> is_scheme("quadratic"), is_scheme("power:2"), is_scheme("cubic"), is_scheme(None)
    (True, True, False, False)
    """
    if not isinstance(weights, str):
        return False
    name, colon, _ = weights.partition(":")
    return weights in WEIGHT_SCHEMES or (bool(colon) and name in PARAMETRISED_SCHEMES)


#: Schemes whose weights change when the category values are shifted (they depend on where 0
#: is): on categories nobody declared (a bare table's 0..q-1) they would measure nothing.
#: Linear, quadratic, radical, circular and bipolar weights depend only on differences and
#: on the two ends of the scale, so a shift leaves them unchanged.
ORIGIN_SCHEMES: tuple[str, ...] = ("ratio",)


def _f(a: Any) -> FloatArray:
    out: FloatArray = np.asarray(a, dtype=np.float64)
    return out


def all_numbers(categories: Sequence[Any]) -> bool:
    """Whether every category is a number (not a truth value).

    >>> all_numbers([1, 2.5]), all_numbers([1, "2"]), all_numbers([True, False])
    (True, False, False)
    """
    return all(
        isinstance(c, int | float | np.integer | np.floating) and not isinstance(c, bool)
        for c in categories
    )


def category_scale(categories: Sequence[Any]) -> FloatArray:
    """Numeric scale of a category domain: the values if all are numbers, else 1..q.

    Examples
    --------
    >>> category_scale([1, 2, 5]).tolist()
    [1.0, 2.0, 5.0]
    >>> category_scale(["low", "mid", "high"]).tolist()
    [1.0, 2.0, 3.0]
    """
    cats = list(categories)
    if cats and all_numbers(cats):
        vals = np.asarray(cats, dtype=np.float64)
        if np.all(np.isfinite(vals)):
            return vals
    return np.arange(1, len(cats) + 1, dtype=np.float64)


def has_order(categories: Sequence[Any], level: str, declared: bool) -> bool:
    """Whether the order of ``categories`` means something: a level above nominal, a domain
    someone declared, or numbers. Text labels of nominal data are only sorted
    alphabetically, an order nobody chose.

    >>> has_order(["no", "yes", "maybe"], "nominal", declared=False)
    False
    >>> has_order([1, 2, 3], "nominal", declared=False), has_order(["lo", "hi"], "ordinal", True)
    (True, True)
    """
    return level != "nominal" or declared or all_numbers(categories)


def check_ordered(what: str, categories: Sequence[Any], owner: str, ordered: bool) -> None:
    """Refuse ``what`` (weights or a level of alpha that reads distances on the scale) when
    the categories are not ``ordered`` (:func:`has_order`) and there are more than two of
    them: on text labels sorted alphabetically the distances would be those of the
    alphabet. With two categories every scheme gives the identity, so any order does."""
    if ordered or len(categories) <= 2:
        return
    shown = ", ".join(repr(c) for c in list(categories)[:6]) + (
        ", ..." if len(categories) > 6 else ""
    )
    raise InvalidInputError(
        f"{owner}: {what} depend on the order of the categories, but the labels ({shown}) "
        "are nominal text sorted only alphabetically, an order nobody declared; declare "
        "the scale from lowest to highest (level='ordinal' and categories=[...] when "
        "reading the ratings; --level ordinal --categories ... on the command line), or ask "
        "for nominal agreement (no weights, level 'nominal')"
    )


def square_matrix(values: npt.ArrayLike, q: int, what: str, owner: str) -> FloatArray:
    """``values`` as a float q x q matrix, one row and column per category; else the error
    names ``what`` it is and its ``owner``."""
    m: FloatArray = np.asarray(values, dtype=np.float64)
    if m.shape != (q, q):
        raise InvalidInputError(
            f"The {what} of {owner} must be {q} x {q} (one row and column per category); "
            f"got shape {m.shape}"
        )
    return m


def check_diagonal(m: FloatArray, perfect: float, owner: str, remedy: str) -> None:
    """Refuse a weight matrix whose diagonal (perfect agreement) is not ``perfect``: 1 for
    agreement weights, 0 for disagreement weights; ``remedy`` says what to pass instead."""
    if not np.allclose(np.diag(m), perfect):
        kind, other = ("agreement", "disagreement") if perfect else ("disagreement", "agreement")
        raise InvalidInputError(
            f"{kind} weights of {owner} must be {perfect:g} on the diagonal (perfect "
            f"agreement); for {other} weights ({1.0 - perfect:g} on the diagonal) {remedy}"
        )


def _check_origin(scheme: str, categories: Sequence[Any], owner: str, declared: bool) -> None:
    """Refuse a scheme of :data:`ORIGIN_SCHEMES` (ratio) unless the categories are numbers
    someone gave: the weights need values with a true zero, which neither the default
    0..q-1 of a table of counts nor the positions of text labels are."""
    q = len(categories)
    if not declared:
        example = option("categories", list(range(1, q + 1)))
        raise InvalidInputError(
            f"{scheme} weights depend on where 0 is on the category scale, and the categories "
            f"of this table were not declared (they default to 0..{q - 1}); pass the category "
            f"values to {owner} as categories=, e.g. {example}"
        )
    if not all_numbers(categories):
        shown = ", ".join(repr(c) for c in list(categories)[:6]) + (", ..." if q > 6 else "")
        raise InvalidInputError(
            f"{owner}: {scheme} weights need category values that are numbers with a true "
            f"zero; these categories are not ({shown}): code the labels as their values, "
            "or choose another scheme"
        )


def agreement_weights(
    scheme: WeightScheme | npt.ArrayLike,
    categories: Sequence[Any],
    *,
    owner: str = "agreement_weights",
    declared: bool = True,
    ordered: bool = True,
) -> FloatArray:
    r"""The q x q agreement-weight matrix of a named scheme, or a validated explicit matrix.

    With :math:`x_k` the category scale (:func:`category_scale`), ``x_min``/``x_max`` its ends:

    - identity: :math:`w_{kl} = [k = l]`
    - linear: :math:`1 - |x_k - x_l| / (x_{max} - x_{min})`
    - quadratic: :math:`1 - (x_k - x_l)^2 / (x_{max} - x_{min})^2`
    - ordinal: :math:`1 - \binom{m_{kl}}{2} / \max \binom{m_{kl}}{2}`, :math:`m_{kl} = |k - l| + 1`
      (positions)
    - radical: :math:`1 - \sqrt{|x_k - x_l|} / \sqrt{x_{max} - x_{min}}`
    - ratio: :math:`1 - [(x_k - x_l)/(x_k + x_l)]^2 / [(x_{max} - x_{min})/(x_{max} + x_{min})]^2`
    - circular: :math:`1 - \sin^2(\pi (x_k - x_l)/U) / \max`, :math:`U = x_{max} - x_{min} + 1`
    - bipolar: :math:`1 - \frac{(x_k - x_l)^2}{(x_k + x_l - 2x_{min})(2x_{max} - x_k - x_l)}
      / \max` (0 on the diagonal)
    - ``"power:a"``: :math:`1 - |x_k - x_l|^a / (x_{max} - x_{min})^a`, 1 on the diagonal
      (Warrens 2014; ``a`` = 0, 0.5, 1, 2 give the identity, radical, linear and
      quadratic weights; kappaetc's ``wgt(power #)``)
    - ``"circular:u"``: 1 on the diagonal, :math:`u` for neighbours on the circle of the
      positions (:math:`|k - l| \in \{1, q - 1\}`), 0 elsewhere, :math:`0 \le u < 1`
      (Warrens & Pratiwi 2016; kappaetc's ``wgt(circular #, noabsolute)``)

    Parameters
    ----------
    scheme : str or array_like of shape (q, q)
        A scheme name, or an explicit agreement-weight matrix (1 on the diagonal, values in
        [0, 1]).
    categories : sequence
        The ordered category domain.
    owner : str
        Function name used in error messages.
    declared : bool, default True
        False when ``categories`` are the default 0..q-1 of a bare array of counts or of a
        :class:`~accord.ContingencyTable` built without ``categories=``, rather than values
        someone gave: then the schemes of :data:`ORIGIN_SCHEMES` (ratio), whose weights
        depend on where 0 is, are an error asking for ``categories=``. They are an error on
        text categories too: positions have no true zero. One rule: ratio weights need
        numeric category values someone gave.
    ordered : bool, default True
        False when the order of ``categories`` means nothing (:func:`has_order`: text labels
        of nominal data, sorted alphabetically): a named scheme other than the identity is
        then an error (:func:`check_ordered`). An explicit matrix is taken as given.

    Returns
    -------
    ndarray, shape (q, q)

    References
    ----------
    .. [1] Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed., ch. 3.
       Advanced Analytics.
    .. [2] Warrens, M. J. (2014). Power weighted versions of Bennett, Alpert, and
       Goldstein's S. Journal of Mathematics, 2014, 231909.
       https://doi.org/10.1155/2014/231909
    .. [3] Warrens, M. J., & Pratiwi, B. C. (2016). Kappa coefficients for circular
       classifications. Journal of Classification, 33(3), 507-522.
       https://doi.org/10.1007/s00357-016-9217-3

    Examples
    --------
    >>> agreement_weights("power:1", [1, 2, 3]).tolist()  # the linear weights
    [[1.0, 0.5, 0.0], [0.5, 1.0, 0.5], [0.0, 0.5, 1.0]]
    >>> agreement_weights("circular:0.5", [1, 2, 3, 4])[0].tolist()
    [1.0, 0.5, 0.0, 0.5]
    >>> agreement_weights("quadratic", [1, 2, 3]).tolist()
    [[1.0, 0.75, 0.0], [0.75, 1.0, 0.75], [0.0, 0.75, 1.0]]
    >>> agreement_weights("linear", ["A", "B", "C"]).tolist()
    [[1.0, 0.5, 0.0], [0.5, 1.0, 0.5], [0.0, 0.5, 1.0]]
    """
    q = len(categories)
    if not isinstance(scheme, str):
        w = square_matrix(scheme, q, "weight matrix", owner)
        if not np.all(np.isfinite(w)):
            raise InvalidInputError(f"The weight matrix of {owner} has non-finite entries")
        if np.any(w < 0) or np.any(w > 1):
            raise InvalidInputError(
                f"agreement weights of {owner} must lie in [0, 1]; got values from "
                f"{w.min():g} to {w.max():g}"
            )
        check_diagonal(w, 1.0, owner, "pass 1 - W")
        return w
    if not is_scheme(scheme):
        raise InvalidInputError(
            f"The 'weights' parameter of {owner} must be one of "
            f"{{{', '.join(repr(s) for s in WEIGHT_SCHEMES)}}}, 'power:<exponent>', "
            f"'circular:<u>' or a q x q matrix. Got {scheme!r} instead."
        )
    if scheme != "identity":
        check_ordered(f"{scheme} weights", categories, owner, ordered)
    name, number = parse_scheme(scheme, owner)
    if number is not None:
        return _parametrised(name, number, categories)
    if scheme in ORIGIN_SCHEMES:
        _check_origin(scheme, categories, owner, declared)
    if scheme == "identity" or q == 1:
        return np.eye(q)
    x = category_scale(categories)
    xmin, xmax = float(x.min()), float(x.max())
    span = xmax - xmin
    d = x[:, None] - x[None, :]
    if scheme == "ordinal":
        pos = np.arange(1, q + 1, dtype=np.float64)
        m = np.abs(pos[:, None] - pos[None, :]) + 1.0
        raw = m * (m - 1.0) / 2.0
        return _f(1.0 - raw / raw.max())
    if span <= 0:
        raise InvalidInputError(f"{scheme} weights need at least two distinct category values")
    if scheme == "linear":
        return _f(1.0 - np.abs(d) / span)
    if scheme == "quadratic":
        return _f(1.0 - (d / span) ** 2)  # the ratio first: no overflow at 1e200
    if scheme == "radical":
        return _f(1.0 - np.sqrt(np.abs(d)) / math.sqrt(span))
    if scheme == "ratio":
        if xmin < 0:
            raise InvalidInputError("ratio weights need non-negative category values")
        s = x[:, None] + x[None, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where(s > 0, (d / np.where(s > 0, s, 1.0)) ** 2, 0.0)
        return _f(1.0 - r / ((span / (xmax + xmin)) ** 2))
    if scheme == "circular":
        u = span + 1.0
        raw = np.sin(np.pi * d / u) ** 2
        return _f(1.0 - raw / raw.max())
    # bipolar
    s = x[:, None] + x[None, :]
    span = span or 1.0  # in units of the span: no overflow at 1e200, no underflow at 1e-300
    den = ((s - 2.0 * xmin) / span) * ((2.0 * xmax - s) / span)
    with np.errstate(invalid="ignore", divide="ignore"):
        raw = np.where(den > 0, (d / span) ** 2 / np.where(den > 0, den, 1.0), 0.0)
    np.fill_diagonal(raw, 0.0)
    out: FloatArray = 1.0 - raw / raw.max()
    return out


def _parametrised(name: str, number: float, categories: Sequence[Any]) -> FloatArray:
    """Power weights (Warrens 2014) on the category scale, or the circular weights of
    Warrens & Pratiwi (2016) on the positions, for :func:`agreement_weights`."""
    q = len(categories)
    if q == 1:
        return np.eye(1)
    if name == "circular":
        pos = np.arange(q)
        gap = np.abs(pos[:, None] - pos[None, :])
        out = np.where((gap == 1) | (gap == q - 1), number, 0.0)
        np.fill_diagonal(out, 1.0)
        return _f(out)
    x = category_scale(categories)
    span = float(x.max() - x.min())
    if span <= 0:
        raise InvalidInputError("power weights need at least two distinct category values")
    w = 1.0 - (np.abs(x[:, None] - x[None, :]) / span) ** number
    np.fill_diagonal(w, 1.0)  # 0 ** 0 is 1: the identity at exponent 0
    return _f(w)


class ManyCategoriesError(InvalidInputError):
    """A computation that needs a q x q matrix, on more categories than
    :data:`DENSE_WEIGHT_CELLS` allows; the message names the number and what works."""


#: Largest q x q weight matrix built (cells); beyond it quadratic weights are a
#: :class:`LowRankWeights` and the other schemes are refused.
DENSE_WEIGHT_CELLS = 20_000_000


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class LowRankWeights:
    r"""A q x q weight matrix held as a product of two thin factors, ``W = U V^T``: the
    quadratic weights :math:`1 - (x_k - x_l)^2 / s^2 = \sum_j U_{kj} V_{lj}` with
    :math:`U_k = (1, x_k, x_k^2)`, :math:`V_l = (1 - x_l^2/s^2, 2 x_l / s^2, -1/s^2)`, so
    that products with vectors and count rows cost O(q), never q x q.

    Attributes
    ----------
    u, v : ndarray, shape (q, k)
        The factors.

    Examples
    --------
    >>> w = LowRankWeights.quadratic(np.array([1.0, 2.0, 3.0]))
    >>> (w @ np.array([1.0, 0.0, 0.0])).tolist(), float(w.sum())
    ([1.0, 0.75, 0.0], 6.0)
    """

    u: FloatArray
    v: FloatArray
    #: numpy defers ``array @ W`` to :meth:`__rmatmul__`.
    __array_ufunc__ = None

    @classmethod
    def quadratic(cls, x: FloatArray) -> LowRankWeights:
        """The quadratic agreement weights of the category scale ``x``."""
        s2 = float(x.max() - x.min()) ** 2
        u = np.stack([np.ones_like(x), x, x**2], axis=1)
        v = np.stack([1.0 - x**2 / s2, 2.0 * x / s2, np.full_like(x, -1.0 / s2)], axis=1)
        return cls(u, v)

    @property
    def shape(self) -> tuple[int, int]:
        """(q, q)."""
        return (int(self.u.shape[0]), int(self.v.shape[0]))

    @property
    def T(self) -> LowRankWeights:
        """The transpose, ``V U^T``."""
        return LowRankWeights(self.v, self.u)

    @property
    def key(self) -> bytes:
        """Bytes that identify the matrix (cache keys)."""
        return self.u.tobytes() + self.v.tobytes()

    def __matmul__(self, other: Any) -> FloatArray:
        """``W @ other`` for a vector or a (q, m) array."""
        out: FloatArray = self.u @ (self.v.T @ np.asarray(other, dtype=np.float64))
        return out

    def __rmatmul__(self, other: Any) -> FloatArray:
        """``other @ W`` for a vector, a (m, q) array or a sparse (m, q) array."""
        left = other @ self.u
        out: FloatArray = np.asarray(left, dtype=np.float64) @ self.v.T
        return out

    def sum(self) -> float:
        """The sum of every cell."""
        return float(self.u.sum(axis=0) @ self.v.sum(axis=0))

    def quadratic_form(self, left: Any, right: Any) -> FloatArray:
        """Row by row ``left_i W right_i^T`` for (m, q) arrays (dense or sparse)."""
        a = np.asarray(left @ self.u, dtype=np.float64)
        b = np.asarray(right @ self.v, dtype=np.float64)
        out: FloatArray = np.einsum("ij,ij->i", a, b)
        return out


def many_category_weights(
    scheme: Any, categories: Sequence[Any], owner: str
) -> LowRankWeights | None:
    """For more categories than a q x q matrix of :data:`DENSE_WEIGHT_CELLS` cells holds:
    quadratic weights as a :class:`LowRankWeights`, and an error for the other schemes and
    explicit matrices; None for fewer categories."""
    q = len(categories)
    if q * q <= DENSE_WEIGHT_CELLS or q == 1:  # one category: the 1 x 1 identity, as dense
        return None
    if isinstance(scheme, str) and scheme == "quadratic":
        x = category_scale(categories)
        if float(x.max() - x.min()) <= 0:
            raise InvalidInputError("quadratic weights need at least two distinct category values")
        return LowRankWeights.quadratic(x)
    what = f"{scheme} weights" if isinstance(scheme, str) else "an explicit weight matrix"
    raise ManyCategoriesError(
        f"{owner}: {what} on {q:,} categories would need a {q:,} x {q:,} matrix; on this "
        f"many categories use {option('weights', 'quadratic')} (computed without one) or "
        "Krippendorff's alpha at the data's level (interval or ratio)"
    )
