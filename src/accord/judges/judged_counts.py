"""What a judge's verdicts on many items and a human's labels on a few sum to.

A corrected rate (Rogan-Gladen, prediction-powered inference) is a function of two tables of
counts: the confusion matrix of the human labels against the judge's labels on the labelled
items, and the counts of the judge's labels on the unlabelled items. Counts are sums, so the
tables of two batches of items merge into the tables of the whole (:meth:`JudgeCounts.merge`),
and ten million judged items are one ``np.bincount``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError, bad_choice, shown
from .._results import Record
from .._types import IntArray
from .._validate import at_rows

__all__ = ["JudgeCounts"]

_NAMES = ("human", "judge", "unlabelled")


def _column(values: Any, name: str) -> npt.NDArray[Any]:
    """``values`` as a 1-d array, refusing missing labels (named by their rows)."""
    array = np.asarray(values.to_numpy() if hasattr(values, "to_numpy") else values)
    if array.ndim != 1:
        raise InvalidInputError(f"{name} must be one label per item; got shape {array.shape}")
    if array.dtype.kind in "fOcmM":
        missing = np.asarray(pd.isna(array))
        if missing.any():
            rows = at_rows(np.flatnonzero(missing))
            raise InvalidInputError(f"{name} has missing labels in {rows}")
    return array


#: Integer labels spanning fewer values than this are coded by a lookup table, not a search.
_TABLE_SPAN = 1 << 20
#: Integer labels spanning fewer values than this are counted by one comparison per value.
_FEW_VALUES = 16


def _span(arrays: Sequence[npt.NDArray[Any]]) -> tuple[int, int] | None:
    """``(lowest, highest)`` of integer (or boolean) labels in a small range, else None."""
    if not all(a.dtype.kind in "iub" for a in arrays):
        return None
    full = [a for a in arrays if a.size]
    if not full:
        return None
    lo, hi = min(int(a.min()) for a in full), max(int(a.max()) for a in full)
    return (lo, hi) if hi - lo < _TABLE_SPAN else None


def _categories(arrays: Sequence[npt.NDArray[Any]], categories: Sequence[Any] | None) -> Any:
    """The declared categories in their order, or the sorted labels seen."""
    if categories is not None:
        cats = np.asarray(list(categories))
        if np.unique(cats).size != cats.size:
            raise InvalidInputError(f"categories must be distinct; got {cats.tolist()}")
        return cats
    span = _span(arrays)
    if span is None:
        return np.unique(np.concatenate(arrays))
    seen = sum(
        np.bincount(a.astype(np.int64) - span[0], minlength=span[1] - span[0] + 1) for a in arrays
    )
    values = np.flatnonzero(seen) + span[0]
    kind = next(a.dtype for a in arrays if a.size)
    return values.astype(kind)


def _codes(array: npt.NDArray[Any], categories: npt.NDArray[Any], name: str) -> IntArray:
    """The position of each label of ``array`` in ``categories`` (a label read as text
    matches the category it spells)."""
    span = _span([array, categories])
    if span is not None:
        table = np.full(span[1] - span[0] + 1, -1, dtype=np.int64)
        table[categories.astype(np.int64) - span[0]] = np.arange(categories.size)
        codes = table[array.astype(np.int64) - span[0]] if array.size else table[:0]
        wrong = codes < 0
    else:
        labels = pd.Index(array.astype(object), dtype=object)
        codes = pd.Index(categories.tolist(), dtype=object).get_indexer(labels)
        if array.dtype.kind in "UOS" and np.any(codes < 0):  # text read from a file: 1 is "1"
            text = pd.Index([str(c) for c in categories.tolist()], dtype=object)
            spelled = text.get_indexer(pd.Index(array.astype(str).astype(object), dtype=object))
            codes = np.where(codes < 0, spelled, codes)
        wrong = codes < 0
    if np.any(wrong):
        first = array[np.flatnonzero(wrong)[0]]
        raise InvalidInputError(
            f"{name} has the label {shown(first)!r}, which is not one of the categories "
            f"{[shown(c) for c in categories.tolist()]}"
        )
    return codes.astype(np.int64, copy=False)


def _label_counts(array: npt.NDArray[Any], categories: npt.NDArray[Any]) -> IntArray:
    """How often each category is in ``array``: one histogram of small non-negative integer
    labels (ten million judged items without a copy), else through :func:`_codes`."""
    span = _span([array, categories])
    if span is None or span[0] < 0 or array.dtype.kind == "b":
        return np.bincount(_codes(array, categories, "unlabelled"), minlength=categories.size)
    if span[1] - span[0] < _FEW_VALUES:  # a pass per value, on the labels' own width
        hist = np.zeros(span[1] + 1, dtype=np.int64)
        for v in range(span[0], span[1] + 1):
            hist[v] = np.count_nonzero(array == v)
    else:
        hist = np.bincount(array, minlength=span[1] + 1)
    values = categories.astype(np.int64)
    stray = np.setdiff1d(np.flatnonzero(hist), values)
    if stray.size:
        _codes(np.array([stray[0]], dtype=array.dtype), categories, "unlabelled")  # raises
    out: IntArray = hist[values].astype(np.int64)
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class JudgeCounts(Record):
    """The sufficient statistics of a judge-corrected rate.

    Attributes
    ----------
    confusion : numpy.ndarray of int, shape (q, q)
        Labelled items: row ``t`` the human's label, column ``j`` the judge's.
    unlabelled : numpy.ndarray of int, shape (q,)
        Unlabelled items: how many the judge gave each label.
    categories : tuple
        The labels, in the order of the rows and columns.

    Examples
    --------
    >>> counts = JudgeCounts.from_labels([1, 1, 0, 0], [1, 0, 0, 0], [1, 1, 0])
    >>> counts.confusion.tolist(), counts.unlabelled.tolist()
    ([[2, 0], [1, 1]], [1, 2])
    >>> counts.merge(counts).n_unlabelled
    6
    """

    confusion: IntArray
    unlabelled: IntArray
    categories: tuple[Any, ...]

    @classmethod
    def from_labels(
        cls,
        human: Any,
        judge: Any,
        unlabelled: Any,
        *,
        categories: Sequence[Any] | None = None,
    ) -> JudgeCounts:
        """Count the labelled pairs ``(human, judge)`` and the judge's ``unlabelled`` labels.

        ``categories`` (default: the sorted labels seen in the three) fixes the rows'
        order and may list labels none of them uses.
        """
        given = (human, judge, unlabelled)
        arrays = [_column(v, name) for v, name in zip(given, _NAMES, strict=True)]
        if arrays[0].size != arrays[1].size:
            raise InvalidInputError(
                f"human and judge must label the same items; got {arrays[0].size} human "
                f"labels and {arrays[1].size} judge labels"
            )
        cats = _categories(arrays, categories)
        if cats.size < 2:
            raise InvalidInputError(
                f"a corrected rate needs at least two categories; got {cats.tolist()}"
            )
        h, j = (_codes(a, cats, name) for a, name in zip(arrays[:2], _NAMES, strict=False))
        q = cats.size
        confusion = np.bincount(h * q + j, minlength=q * q).reshape(q, q)
        return cls(confusion, _label_counts(arrays[2], cats), tuple(cats.tolist()))

    @property
    def n_labelled(self) -> int:
        """Items with a human label (and the judge's)."""
        return int(self.confusion.sum())

    @property
    def n_unlabelled(self) -> int:
        """Items with the judge's label only."""
        return int(self.unlabelled.sum())

    def merge(self, other: JudgeCounts) -> JudgeCounts:
        """The counts of both sets of items (the same categories in the same order)."""
        if tuple(other.categories) != tuple(self.categories):
            raise InvalidInputError(
                f"cannot merge counts over categories {list(self.categories)} and "
                f"{list(other.categories)}"
            )
        return JudgeCounts(
            self.confusion + other.confusion, self.unlabelled + other.unlabelled, self.categories
        )

    def code(self, label: Any, owner: str) -> int:
        """The row of ``label``; an error naming ``owner``'s ``positive`` otherwise."""
        for i, c in enumerate(self.categories):
            if c == label:
                return i
        raise InvalidInputError(bad_choice(owner, "positive", self.categories, label))
