"""Distances between sets of labels (MASI, Jaccard) for Krippendorff's alpha on set-valued
ratings.

A set-valued :class:`~accord.Ratings` (``multi_label=True``) has one category per distinct
set of labels; the distance between two categories is computed once from their membership
rows (:func:`set_distance_matrix`), and alpha runs on the item x category counts with that
q x q distance, as for any user metric.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Literal, TypeAlias

import numpy as np

from .._errors import InvalidInputError, option
from .._types import BoolArray, FloatArray
from .._validate import check_choice
from ..data.ratings import Ratings

__all__ = [
    "SET_DISTANCES",
    "SetDistance",
    "SetDistanceMetric",
    "membership_of",
    "set_distance",
    "set_distance_matrix",
]

SetDistance: TypeAlias = Literal["masi", "jaccard"]
"""A distance between two sets of labels."""

SET_DISTANCES: tuple[str, ...] = ("masi", "jaccard")


def membership_of(data: Any) -> BoolArray | None:
    """Which labels each category holds, shape (q, n_labels), when the categories are sets
    of labels (set-valued ratings, or counts whose categories are frozensets), else None."""
    if isinstance(data, Ratings):
        return None if data.label_sets is None else data.label_sets.membership
    categories = getattr(data, "categories", None)
    if not categories or not all(isinstance(c, frozenset) for c in categories):
        return None
    return _membership(categories)


def _membership(categories: Sequence[frozenset[Any]]) -> BoolArray:
    """Membership rows of sets given as frozensets (labels in order of first appearance)."""
    index: dict[Any, int] = {}
    for c in categories:
        for label in c:
            index.setdefault(label, len(index))
    out = np.zeros((len(categories), len(index)), dtype=bool)
    for row, c in enumerate(categories):
        out[row, [index[label] for label in c]] = True
    return out


def set_distance_matrix(membership: BoolArray, distance: SetDistance) -> FloatArray:
    r"""The q x q distances between sets of labels.

    With :math:`|A \cap B|` and :math:`|A \cup B|` from the membership rows:

    - ``"jaccard"``: :math:`1 - |A \cap B| / |A \cup B|`;
    - ``"masi"`` (Passonneau 2006): :math:`1 - M \cdot |A \cap B| / |A \cup B|`, with the
      monotonicity weight :math:`M = 1` when the sets are equal, :math:`2/3` when one holds
      the other, :math:`1/3` when they overlap otherwise, and 0 when they are disjoint.

    Two empty sets are at distance 0 (the same answer: no label); an empty and a non-empty
    set at distance 1.

    Parameters
    ----------
    membership : ndarray of bool, shape (q, n_labels)
    distance : {"masi", "jaccard"}

    Returns
    -------
    ndarray of float64, shape (q, q)

    Examples
    --------
    >>> m = np.array([[True, True, False, False], [True, True, True, True],
    ...               [False, False, True, False], [False, False, False, False]])
    >>> set_distance_matrix(m, "masi").round(4)[0]
    array([0.    , 0.6667, 1.    , 1.    ])
    >>> set_distance_matrix(m, "jaccard")[0]
    array([0. , 0.5, 1. , 1. ])
    """
    check_choice("distance", distance, SET_DISTANCES, "krippendorff_alpha")
    counts = membership.astype(np.float64)
    inter = counts @ counts.T
    sizes = counts.sum(axis=1)
    union = sizes[:, None] + sizes[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(union > 0, inter / np.where(union > 0, union, 1.0), 1.0)
    if distance == "jaccard":
        out: FloatArray = 1.0 - share
        return out
    smaller = np.minimum(sizes[:, None], sizes[None, :])
    equal = (inter == sizes[:, None]) & (inter == sizes[None, :])
    weight = np.where(
        equal, 1.0, np.where(inter == smaller, 2.0 / 3.0, np.where(inter > 0, 1.0 / 3.0, 0.0))
    )
    masi: FloatArray = 1.0 - share * weight
    return masi


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class SetDistanceMetric:
    """A set distance as a metric of :func:`accord.krippendorff_alpha`: called with arrays
    of category positions, it returns their distances; ``metric`` names it."""

    metric: str
    matrix: FloatArray

    def __call__(self, x: FloatArray, y: FloatArray) -> FloatArray:
        out: FloatArray = self.matrix[np.asarray(x, dtype=np.int64), np.asarray(y, dtype=np.int64)]
        return out


def set_distance(data: Any, distance: str, *, level: str | None, weights: Any) -> SetDistanceMetric:
    """The metric of ``krippendorff_alpha(data, distance="masi" | "jaccard")``, checked:
    the ratings must be sets of labels and no level or weights may be given besides."""
    check_choice("distance", distance, SET_DISTANCES, "krippendorff_alpha")
    if level is not None or weights is not None:
        given = f"level={level!r}" if level is not None else "weights="
        raise InvalidInputError(
            f"krippendorff_alpha: distance={distance!r} measures sets of labels and takes "
            f"no {given}; leave it out"
        )
    membership = membership_of(data)
    if membership is None:
        raise InvalidInputError(
            f"krippendorff_alpha: distance={distance!r} compares sets of labels, and these "
            f"ratings have one label each; read them with {option('multi_label', True)}"
        )
    kind: SetDistance = "masi" if distance == "masi" else "jaccard"
    return SetDistanceMetric(kind, set_distance_matrix(membership, kind))
