"""Paired measurements from what a user gives: two arrays, or numeric ratings."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import DroppedDataWarning, InvalidInputError, shown
from .._types import FloatArray
from ..data.ratings import Ratings
from ..stats.scores import score_matrix

__all__ = ["Pair", "numeric_vector", "paired_arrays", "pairs_of_ratings", "subject_of_items"]


@dataclasses.dataclass(frozen=True, slots=True)
class Pair:
    """Two methods' measurements of the same items (and the subject of each, if any)."""

    first: str
    second: str
    x: FloatArray
    y: FloatArray
    subject: npt.NDArray[Any] | None
    n_dropped: int = 0


def numeric_vector(values: npt.ArrayLike, name: str, owner: str) -> FloatArray:
    """``values`` as float64 (None and NaN: missing); an error names the first value that is
    not a number or is infinite."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise InvalidInputError(f"{owner}: {name} must be one-dimensional; got shape {arr.shape}")
    if arr.dtype.kind in "biuf":
        out = arr.astype(np.float64)
    else:
        out = np.empty(arr.size, dtype=np.float64)
        for i, value in enumerate(arr.tolist()):
            if value is None:
                out[i] = np.nan
                continue
            try:
                out[i] = float(value)
            except (TypeError, ValueError):
                raise InvalidInputError(
                    f"{owner} needs numeric measurements; {name}[{i}] is {shown(value)!r}"
                ) from None
    bad = np.flatnonzero(np.isinf(out))
    if bad.size:
        raise InvalidInputError(
            f"{owner}: {name}[{int(bad[0])}] is {shown(out[bad[0]])}; measurements must be "
            "finite (NaN marks a missing one)"
        )
    return out


def paired_arrays(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    subject: npt.ArrayLike | None,
    owner: str,
    names: tuple[str, str] = ("x", "y"),
) -> Pair:
    """The pairs of ``x`` and ``y`` where both are present; pairs with a missing value are
    left out with a :class:`~accord.DroppedDataWarning`."""
    xs = numeric_vector(x, names[0], owner)
    ys = numeric_vector(y, names[1], owner)
    if xs.size != ys.size:
        raise InvalidInputError(
            f"{owner}: {names[0]} and {names[1]} must have one value per pair; got "
            f"{xs.size} and {ys.size} values"
        )
    subj = None
    if subject is not None:
        subj = np.asarray(subject, dtype=object)
        if subj.shape != xs.shape:
            raise InvalidInputError(
                f"{owner}: subject must have one id per pair; got {subj.size} ids for "
                f"{xs.size} pairs"
            )
    keep = ~(np.isnan(xs) | np.isnan(ys))
    dropped = int(xs.size - keep.sum())
    if dropped:
        warnings.warn(
            f"{owner}: {dropped} of {xs.size} pairs lack a measurement and were left out",
            DroppedDataWarning,
            stacklevel=3,
        )
    return Pair(
        names[0],
        names[1],
        xs[keep],
        ys[keep],
        None if subj is None else subj[keep],
        dropped,
    )


def subject_of_items(
    ratings: Ratings, subject: Mapping[Any, Any] | npt.ArrayLike | None, owner: str
) -> npt.NDArray[Any] | None:
    """The subject of each item, in the order of ``ratings.items`` (None without one)."""
    if subject is None:
        return None
    if isinstance(subject, Mapping):
        missing = [item for item in ratings.items.tolist() if item not in subject]
        if missing:
            raise InvalidInputError(f"{owner}: subject has no entry for item {shown(missing[0])!r}")
        return np.asarray([subject[item] for item in ratings.items.tolist()], dtype=object)
    arr = np.asarray(subject, dtype=object)
    if arr.shape != ratings.items.shape:
        raise InvalidInputError(
            f"{owner}: subject must give one id per item ({ratings.n_items} items, in the "
            f"order of ratings.items); got {arr.size}"
        )
    return arr


def pairs_of_ratings(
    ratings: Ratings,
    reference: Any | None,
    subject: Mapping[Any, Any] | npt.ArrayLike | None,
    owner: str,
) -> list[Pair]:
    """Each rater against ``reference`` (rater minus reference), or every pair of raters in
    the order of ``ratings.raters`` (first minus second); items rated by both only."""
    scores = score_matrix(ratings, owner)
    raters = ratings.raters.tolist()
    if len(raters) < 2:
        raise InvalidInputError(f"{owner} compares raters; the ratings have {len(raters)} rater")
    subjects = subject_of_items(ratings, subject, owner)
    if reference is not None:
        if reference not in raters:
            listed = ", ".join(repr(shown(r)) for r in raters[:10])
            raise InvalidInputError(
                f"{owner}: the reference {shown(reference)!r} is not a rater; the raters are "
                f"{listed}" + (", ..." if len(raters) > 10 else "")
            )
        ref = raters.index(reference)
        combos: Sequence[tuple[int, int]] = [(j, ref) for j in range(len(raters)) if j != ref]
    else:
        combos = [(a, b) for a in range(len(raters)) for b in range(a + 1, len(raters))]
    out = []
    for a, b in combos:
        both = ~(np.isnan(scores[:, a]) | np.isnan(scores[:, b]))
        out.append(
            Pair(
                str(raters[a]),
                str(raters[b]),
                scores[both, a],
                scores[both, b],
                None if subjects is None else subjects[both],
            )
        )
    return out
