"""Scored units: ``correct`` (0/1), ``confidence`` in [0, 1], optional groups, validated.

The data model of confidence calibration. Every public function of :mod:`accord.confidence`
and the readers go through these helpers, so bad input is rejected once, at the boundary, with
a message naming the column (or parameter), the 1-based row and the value.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal, TypeAlias

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError, option
from .._types import BoolArray, FloatArray, IntArray
from .._validate import check_choice, format_rows, tidy_scalar

__all__ = [
    "OutOfRange",
    "ScoredUnits",
    "coerce_confidence",
    "coerce_correct",
    "coerce_units",
    "prepare",
]

OutOfRange: TypeAlias = Literal["raise", "clip"]
"""What to do with a confidence outside [0, 1]: raise, or clip it to the interval and count it."""

_TRUE = frozenset({"1", "true", "t", "yes", "y", "1.0"})
_FALSE = frozenset({"0", "false", "f", "no", "n", "0.0"})


def _rows(mask: BoolArray, row0: int = 0) -> str:
    pos = np.flatnonzero(mask) + row0
    return f"row{'s' if pos.size > 1 else ''} {format_rows(pos)}"


def _first_value(values: npt.NDArray[Any], mask: BoolArray) -> Any:
    return tidy_scalar(values[int(np.flatnonzero(mask)[0])])


@dataclasses.dataclass(frozen=True, slots=True)
class _Fault:
    """The first bad row (0-based) of a column and the message that names it."""

    row: int
    message: str


def _earliest(*faults: _Fault | None) -> _Fault | None:
    found = [f for f in faults if f is not None]
    return min(found, key=lambda f: f.row) if found else None


def _fault(mask: BoolArray, message: str) -> _Fault | None:
    return _Fault(int(np.flatnonzero(mask)[0]), message) if mask.any() else None


def _correct(
    values: npt.ArrayLike | pd.Series[Any], name: str, row0: int = 0
) -> tuple[BoolArray, _Fault | None]:
    """Correctness as bools, and the first bad row (missing, or not 0/1/true/false)."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise InvalidInputError(f"{name} must be one-dimensional; got shape {arr.shape}")
    if arr.dtype == np.bool_:
        return arr, None
    if arr.dtype.kind in "iuf":
        num = arr.astype(np.float64, copy=False)
        missing = np.isnan(num)
        bad = ~missing & (num != 0.0) & (num != 1.0)
        out: BoolArray = num == 1.0
    else:
        obj = pd.Series(arr, dtype=object)
        missing = obj.isna().to_numpy()
        text = obj.map(lambda v: str(v).strip().lower())
        out = text.isin(_TRUE).to_numpy()
        bad = ~missing & ~(out | text.isin(_FALSE).to_numpy())
    first = _earliest(
        _fault(missing, f"{name}: missing value at {_rows(missing, row0)}"),
        None
        if not bad.any()
        else _fault(
            bad,
            f"{name} must be 0/1 or true/false; found {_first_value(arr, bad)!r} at "
            f"{_rows(bad, row0)}",
        ),
    )
    return out, first


def _confidence(
    values: npt.ArrayLike | pd.Series[Any],
    name: str,
    out_of_range: OutOfRange | None,
    row0: int = 0,
) -> tuple[FloatArray, _Fault | None]:
    """Confidences as floats, and the first bad row: not a number, missing, infinite, or
    (with ``out_of_range="raise"``) outside [0, 1]."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise InvalidInputError(f"{name} must be one-dimensional; got shape {arr.shape}")
    bad = np.zeros(arr.shape, dtype=bool)
    if arr.dtype.kind in "iufb":
        num: FloatArray = arr.astype(np.float64, copy=False)
    else:
        num = pd.to_numeric(pd.Series(arr, dtype=object), errors="coerce").to_numpy(
            dtype=np.float64
        )
        bad = np.isnan(num) & ~pd.Series(arr, dtype=object).isna().to_numpy()
    missing = np.isnan(num) & ~bad
    infinite = np.isinf(num)
    outside = (
        np.isfinite(num) & ((num < 0.0) | (num > 1.0))
        if out_of_range == "raise"
        else np.zeros(arr.shape, dtype=bool)
    )
    faults = [_fault(missing, f"{name}: missing value at {_rows(missing, row0)}")]
    if bad.any():
        faults.append(
            _fault(
                bad,
                f"{name} must be numbers; found {_first_value(arr, bad)!r} at {_rows(bad, row0)}",
            )
        )
    if infinite.any():
        faults.append(
            _fault(
                infinite,
                f"{name} must be finite; found {_first_value(num, infinite)!r} at "
                f"{_rows(infinite, row0)}",
            )
        )
    if outside.any():
        faults.append(
            _fault(
                outside,
                f"{name} must be in [0, 1]; found {_first_value(num, outside)!r} at "
                f"{_rows(outside, row0)}; pass {option('out_of_range', 'clip')} to clip to [0, 1] "
                "as sclite does",
            )
        )
    return num, _earliest(*faults)


def coerce_correct(values: npt.ArrayLike | pd.Series[Any], name: str = "correct") -> BoolArray:
    """Correctness as a bool array: accepts bools, 0/1 numbers and the strings 0/1/true/false.

    Parameters
    ----------
    values : array_like, shape (n,)
    name : str
        Column or parameter name used in error messages.

    Raises
    ------
    InvalidInputError
        On a missing value or anything else than 0/1/true/false, naming the first row at
        fault in row order.
    """
    out, fault = _correct(values, name)
    if fault is not None:
        raise InvalidInputError(fault.message)
    return out


def coerce_confidence(
    values: npt.ArrayLike | pd.Series[Any],
    name: str = "confidence",
    *,
    out_of_range: OutOfRange | None = None,
) -> FloatArray:
    """Confidences as a float64 array; rejects missing and non-numeric values, and, with
    ``out_of_range="raise"``, values outside [0, 1].

    Raises
    ------
    InvalidInputError
        Naming the first offending row in row order (whatever its fault) and value.
    """
    out, fault = _confidence(values, name, out_of_range)
    if fault is not None:
        raise InvalidInputError(fault.message)
    return out


def coerce_units(
    correct: npt.ArrayLike | pd.Series[Any],
    confidence: npt.ArrayLike | pd.Series[Any],
    *,
    names: tuple[str, str] = ("correct", "confidence"),
    out_of_range: OutOfRange | None = None,
    row0: int = 0,
) -> tuple[BoolArray, FloatArray]:
    """Both columns of scored units, checked together: the error names the first row in row
    order that has a fault in either column (rows ``row0 + k + 1``: the units start at row
    ``row0`` of a larger input).

    Examples
    --------
    >>> coerce_units([1, 0, 1], [0.5, 1.5, None], out_of_range="raise")
    Traceback (most recent call last):
    ...
    accord._errors.InvalidInputError: confidence must be in [0, 1]; found 1.5 at row 2; ...
    """
    y, fault_y = _correct(correct, names[0], row0)
    c, fault_c = _confidence(confidence, names[1], out_of_range, row0)
    fault = _earliest(fault_y, fault_c)
    if fault is not None:
        raise InvalidInputError(fault.message)
    return y, c


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class ScoredUnits:
    """Validated scored units, encoded.

    Attributes
    ----------
    correct : ndarray of bool, shape (n,)
    confidence : ndarray of float64, shape (n,)
        In [0, 1] (out-of-range values already clipped when ``out_of_range="clip"``).
    group_codes : ndarray of int64, shape (n,)
        Code of each unit's group (all 0 without groups).
    group_labels : tuple
        Group label of each code.
    out_of_range : ndarray of int64, shape (n_groups,)
        Per group, confidences that were outside [0, 1] and were clipped.
    """

    correct: BoolArray
    confidence: FloatArray
    group_codes: IntArray
    group_labels: tuple[Any, ...]
    out_of_range: IntArray


def _encode_groups(
    groups: npt.ArrayLike | pd.Series[Any], n: int, row0: int = 0
) -> tuple[IntArray, tuple[Any, ...]]:
    series = pd.Series(
        np.asarray(groups, dtype=object) if not isinstance(groups, pd.Series) else groups
    )
    if series.size != n:
        raise InvalidInputError(
            f"groups has {series.size} values but there are {n} scored units; they must align"
        )
    missing = series.isna().to_numpy()
    if missing.any():
        raise InvalidInputError(f"groups: missing value at {_rows(missing, row0)}")
    try:
        codes, uniques = pd.factorize(series, sort=True)
    except TypeError:  # labels of mixed types that cannot be sorted: first appearance
        codes, uniques = pd.factorize(series, sort=False)
    labels = tuple(v.item() if isinstance(v, np.generic) else v for v in uniques)
    return codes.astype(np.int64, copy=False), labels


def prepare(
    correct: npt.ArrayLike | pd.Series[Any],
    confidence: npt.ArrayLike | pd.Series[Any],
    groups: npt.ArrayLike | pd.Series[Any] | None,
    out_of_range: OutOfRange,
    owner: str,
    *,
    row0: int = 0,
) -> ScoredUnits:
    """Validate and encode the inputs of every confidence function.

    Parameters
    ----------
    correct, confidence : array_like, shape (n,)
    groups : array_like, shape (n,), optional
    out_of_range : {"raise", "clip"}
    owner : str
        The public function's name, for option errors.
    row0 : int, default 0
        The row of the whole input where these units start (a batch or partition of a larger
        input): errors name rows ``row0 + k + 1``.
    """
    check_choice("out_of_range", out_of_range, ("raise", "clip"), owner)
    y, fault_y = _correct(correct, "correct", row0)
    c, fault_c = _confidence(confidence, "confidence", out_of_range, row0)
    if y.size == c.size:
        fault = _earliest(fault_y, fault_c)
        if fault is not None:
            raise InvalidInputError(fault.message)
    if y.size != c.size:
        raise InvalidInputError(
            f"correct has {y.size} values and confidence has {c.size}; they must align"
        )
    if y.size == 0:
        raise InvalidInputError("the input is empty: no scored units")
    outside = (c < 0.0) | (c > 1.0)
    if groups is None:
        codes = np.zeros(y.size, dtype=np.int64)
        labels: tuple[Any, ...] = ("all",)
    else:
        codes, labels = _encode_groups(groups, y.size, row0)
    n_outside = np.zeros(len(labels), dtype=np.int64)
    if outside.any():
        if out_of_range == "raise":
            raise InvalidInputError(
                f"confidence must be in [0, 1]; found {_first_value(c, outside)!r} at "
                f"{_rows(outside, row0)}; pass {option('out_of_range', 'clip')} to clip to [0, 1] "
                "as sclite does"
            )
        n_outside = np.bincount(codes[outside], minlength=len(labels)).astype(np.int64)
        c = np.clip(c, 0.0, 1.0)
    return ScoredUnits(y, c, codes, labels, n_outside)
