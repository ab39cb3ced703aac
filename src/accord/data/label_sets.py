"""Set-valued labels: a set of labels per (item, rater), the per-label membership table.

A multi-label :class:`accord.Ratings` (``Ratings.from_long(..., multi_label=True)``) holds
one rating per (item, rater) whose category is the *set* of labels that rater gave the item:
``categories`` are ``frozenset`` values (each distinct set is one category) and
:class:`LabelSets` says which single labels each category holds. Nominal methods therefore
see each distinct set as a category; set methods (MASI or Jaccard distances, per-label
agreement) work on the membership table.

This module reads the label column into single labels and their rows
(:func:`split_label_column`) and groups the encoded labels into sets
(:func:`group_label_sets`), for the memory engine and for the stream engine, which groups
the labels of every batch at the end. It imports nothing above :mod:`accord.data.encoder`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._types import BoolArray, IntArray
from .encoder import arrow_of

__all__ = [
    "LabelSets",
    "SetColumn",
    "SetGroups",
    "group_label_sets",
    "split_label_column",
]

_SET_TYPES = (list, tuple, set, frozenset, np.ndarray)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class LabelSets:
    """Which single labels each set-valued category holds.

    Attributes
    ----------
    labels : tuple
        The single labels, sorted (or in the declared order): the label domain.
    membership : ndarray of bool, shape (n_categories, n_labels)
        ``membership[c, l]``: category ``c`` (a set) holds label ``labels[l]``.

    Examples
    --------
    >>> import numpy as np
    >>> sets = LabelSets(("a", "b"), np.array([[False, False], [True, False], [True, True]]))
    >>> sets.n_labels, sets.sizes.tolist()
    (2, [0, 1, 2])
    >>> [sorted(s) for s in sets.sets()]
    [[], ['a'], ['a', 'b']]
    """

    labels: tuple[Any, ...]
    membership: BoolArray

    @property
    def n_labels(self) -> int:
        """Number of single labels."""
        return len(self.labels)

    @property
    def sizes(self) -> IntArray:
        """Number of labels in each category's set, shape (n_categories,)."""
        out: IntArray = self.membership.sum(axis=1).astype(np.int64)
        return out

    def sets(self) -> tuple[frozenset[Any], ...]:
        """Each category as the frozenset of its labels."""
        names = np.empty(self.n_labels, dtype=object)
        names[:] = list(self.labels)
        return tuple(frozenset(names[row].tolist()) for row in self.membership)

    def of(self, label_codes: IntArray) -> BoolArray:
        """The membership rows of ratings: shape (n_ratings, n_labels)."""
        out: BoolArray = self.membership[label_codes]
        return out


@dataclasses.dataclass(frozen=True, slots=True)
class SetColumn:
    """A label column read as single labels.

    Attributes
    ----------
    elements : pyarrow Array
        Every single label of every row, row after row.
    parents : ndarray of int64, shape (n_elements,)
        The row (0-based) of each element.
    is_list : ndarray of bool, shape (n_rows,)
        Rows whose cell is a list, tuple or set (an empty one is the empty set); other rows
        hold one label (or a missing value).
    """

    elements: Any
    parents: IntArray
    is_list: BoolArray


def split_label_column(values: Any) -> SetColumn:
    """Single labels of a label column whose cells are labels, or lists / tuples / sets of
    labels (an Arrow list column, or Python containers in an object column).

    Examples
    --------
    >>> col = split_label_column(pd.Series([["a", "b"], "c", [], None]))
    >>> col.elements.to_pylist(), col.parents.tolist(), col.is_list.tolist()
    (['a', 'b', 'c', None], [0, 0, 1, 3], [True, False, True, False])
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(values, pd.Series | pd.Index) and values.dtype == object:
        values = np.asarray(values, dtype=object)
    if isinstance(values, list | tuple):
        values = np.asarray(_boxed(values), dtype=object)
    if isinstance(values, np.ndarray) and values.dtype == object:
        return _split_objects(values)
    arr = arrow_of(values)
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type):
        is_list = np.asarray(pc.is_valid(arr).to_numpy(zero_copy_only=False), dtype=bool)
        parents = np.asarray(pc.list_parent_indices(arr).to_numpy(), dtype=np.int64)
        return SetColumn(pc.list_flatten(arr), parents, is_list)
    n = len(arr)
    return SetColumn(arr, np.arange(n, dtype=np.int64), np.zeros(n, dtype=bool))


def _boxed(values: Sequence[Any]) -> list[Any]:
    """A list of cells as a list numpy can hold one cell per entry of."""
    return list(values)


def _split_objects(cells: npt.NDArray[Any]) -> SetColumn:
    """The single labels of an object column of labels and Python containers."""
    is_list = np.fromiter((isinstance(c, _SET_TYPES) for c in cells), bool, cells.size)
    if not is_list.any():
        n = cells.size
        return SetColumn(arrow_of(cells), np.arange(n, dtype=np.int64), is_list)
    sizes = np.ones(cells.size, dtype=np.int64)
    flat: list[Any] = []
    for i in np.flatnonzero(is_list):
        sizes[i] = len(cells[i])
    for cell, listed in zip(cells, is_list, strict=True):
        if listed:
            flat.extend(cell.tolist() if isinstance(cell, np.ndarray) else cell)
        else:
            flat.append(cell)
    parents = np.repeat(np.arange(cells.size, dtype=np.int64), sizes)
    elements = np.empty(len(flat), dtype=object)
    elements[:] = flat
    return SetColumn(arrow_of(elements), parents, is_list)


@dataclasses.dataclass(frozen=True, slots=True)
class SetGroups:
    """Encoded labels grouped into one set per (item, rater).

    Attributes
    ----------
    pair_rows : ndarray of int64, shape (n_sets,)
        The first row (0-based) of each (item, rater) that has a set, in row order.
    set_codes : ndarray of int64, shape (n_sets,)
        The category (distinct set) of each.
    membership : ndarray of bool, shape (n_categories, n_labels)
        The labels of each category, categories ordered by size and then by their labels.
    missing_rows : ndarray of int64
        The first row of each (item, rater) whose every row is missing: an assignment
        without a rating.
    repeated : int
        Labels given twice to one (item, rater) (counted once).
    missing_inside : int
        Missing values inside a list that also holds labels (left out).
    missing_cells : ndarray of int64
        Rows (0-based) that add no label to any set: missing cells, and lists of missing
        values only.
    """

    pair_rows: IntArray
    set_codes: IntArray
    membership: BoolArray
    missing_rows: IntArray
    repeated: int
    missing_inside: int
    missing_cells: IntArray

    def notes(self, column: str) -> tuple[str, ...]:
        """What the read report warns of: labels repeated, missing values inside lists."""
        notes = []
        if self.repeated:
            notes.append(
                f"column {column!r}: {_count(self.repeated, 'label')} given again to the same "
                "(item, rater), counted once"
            )
        if self.missing_inside:
            notes.append(
                f"column {column!r}: {_count(self.missing_inside, 'missing value')} inside "
                "lists of labels left out"
            )
        return tuple(notes)


def _count(n: int, what: str) -> str:
    """``1 label``, ``2 labels``."""
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def group_label_sets(
    pair_key: IntArray, column: SetColumn, label_codes: IntArray, n_labels: int
) -> SetGroups:
    """Group the encoded single labels into one set per (item, rater).

    Parameters
    ----------
    pair_key : ndarray of int64, shape (n_rows,)
        One key per (item, rater) for each row (``item * n_raters + rater``).
    column : SetColumn
        The label column split into single labels.
    label_codes : ndarray of int64, shape (n_elements,)
        The code of each element in the label domain, -1 where missing.
    n_labels : int
        Size of the label domain.

    Examples
    --------
    >>> col = split_label_column(pd.Series([["a", "b"], "b", [], None]))
    >>> g = group_label_sets(np.array([0, 1, 1, 2]), col, np.array([0, 1, 1, -1]), 2)
    >>> g.pair_rows.tolist(), g.set_codes.tolist(), g.membership.tolist()
    ([0, 1], [1, 0], [[False, True], [True, True]])
    >>> g.repeated, g.missing_rows.tolist(), g.missing_cells.tolist()
    (0, [3], [3])
    """
    n_rows = pair_key.size
    present = label_codes >= 0
    row_labels = np.bincount(column.parents[present], minlength=n_rows)
    row_elements = np.bincount(column.parents, minlength=n_rows)
    # A row rates its (item, rater) when it adds a label, or is an empty list (the empty set).
    rates = (row_labels > 0) | (column.is_list & (row_elements == 0))
    missing_inside = int(np.count_nonzero(~present & (row_labels > 0)[column.parents]))
    keys, first, inverse = np.unique(pair_key, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    rated = np.zeros(keys.size, dtype=bool)
    rated[inverse[rates]] = True
    # Pairs in order of their first row; a pair with no rated row is an assignment only.
    by_row = np.argsort(first, kind="stable")
    pair_order = by_row[rated[by_row]]
    pair_index = np.full(keys.size, -1, dtype=np.int64)
    pair_index[pair_order] = np.arange(pair_order.size)
    members = np.zeros((pair_order.size, n_labels), dtype=bool)
    owner = pair_index[inverse[column.parents[present]]]
    members[owner, label_codes[present]] = True
    repeated = int(np.count_nonzero(present)) - int(np.count_nonzero(members))
    membership, set_codes = _distinct_sets(members)
    return SetGroups(
        pair_rows=first[pair_order].astype(np.int64),
        set_codes=set_codes,
        membership=membership,
        missing_rows=np.sort(first[~rated]).astype(np.int64),
        repeated=repeated,
        missing_inside=missing_inside,
        missing_cells=np.flatnonzero(~rates).astype(np.int64),
    )


def _distinct_sets(members: BoolArray) -> tuple[BoolArray, IntArray]:
    """The distinct rows of a membership matrix, ordered by size and then by their labels
    (the set of the lowest label codes first), and the code of each row."""
    n_labels = members.shape[1]
    if members.shape[0] == 0:
        return np.zeros((0, n_labels), dtype=bool), np.zeros(0, dtype=np.int64)
    if n_labels == 0:  # every set is empty: one category
        return np.zeros((1, 0), dtype=bool), np.zeros(members.shape[0], dtype=np.int64)
    packed = np.packbits(members, axis=1)
    width = packed.shape[1]
    as_void = np.ascontiguousarray(packed).view(np.dtype((np.void, max(width, 1))))
    _, first, inverse = np.unique(as_void.reshape(-1), return_index=True, return_inverse=True)
    distinct = members[first]
    keys = [
        (int(row.sum()), tuple(np.flatnonzero(row).tolist())) for row in distinct
    ]  # one per distinct set
    order = sorted(range(len(keys)), key=keys.__getitem__)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return distinct[order], rank[inverse.reshape(-1)]
