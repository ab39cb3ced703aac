"""The sufficient statistic of every rater model: the item x (rater, label) count matrix.

Each rating is a code triple ``(item, rater, label)``; repeated ratings of one item by one
rater (Dawid & Skene's repeated assessments) add up. The counts are held twice, as the sparse
matrix ``A`` of shape ``(n_items, n_raters * q)`` (column ``rater * q + label``) and as the
distinct triples with their counts sorted by item, so that an E step is one product
``A @ log E`` and an M step one product ``A.T @ T``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from .._types import FloatArray, IntArray
from ..data.order import stable_order

__all__ = ["Design", "design_from_codes"]


@dataclasses.dataclass(frozen=True, slots=True)
class Design:
    """The counts of one data set (or of one bootstrap resample of its items).

    Attributes
    ----------
    counts : scipy.sparse.csr_matrix, shape (n_items, n_raters * q)
        ``A[i, r * q + l]``: how often rater ``r`` gave item ``i`` label ``l``.
    counts_t : scipy.sparse.csc_matrix, shape (n_raters * q, n_items)
        Its transpose (a view), for the M step.
    item, rater, label : ndarray of int64, shape (m,)
        The distinct triples, sorted by item (read off the matrix when first asked for:
        the steps of the confusion-matrix models need only the matrix).
    weight : ndarray of float64, shape (m,)
        How often each triple occurs.
    gold : ndarray of int64, shape (n_items,)
        The known label of each item, -1 where none.
    n_raters, q : int
    unit_weights : bool
        Whether every weight is 1 (one rating a triple, as in a :class:`~accord.Ratings`).
    """

    counts: Any
    counts_t: Any
    weight: FloatArray
    gold: IntArray
    n_raters: int
    q: int
    unit_weights: bool = False
    _triples: dict[str, IntArray] = dataclasses.field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @property
    def n_items(self) -> int:
        return int(self.gold.size)

    @property
    def n_ratings(self) -> float:
        return float(self.weight.sum())

    @property
    def rated(self) -> Any:
        """Items with at least one rating, shape (n_items,) of bool."""
        return np.diff(self.counts.indptr) > 0

    @property
    def item(self) -> IntArray:
        if "item" not in self._triples:
            sizes = np.diff(self.counts.indptr)
            self._triples["item"] = np.repeat(np.arange(sizes.size, dtype=np.int64), sizes)
        return self._triples["item"]

    @property
    def rater(self) -> IntArray:
        return self._divided()[0]

    @property
    def label(self) -> IntArray:
        return self._divided()[1]

    def _divided(self) -> tuple[IntArray, IntArray]:
        """Rater and label of each triple, from one division of the matrix's columns."""
        if "rater" not in self._triples:
            column = self.counts.indices.astype(np.int64)
            self._triples["rater"], self._triples["label"] = np.divmod(column, self.q)
        return self._triples["rater"], self._triples["label"]

    def votes(self) -> FloatArray:
        """Each item's ratings per label, shape (n_items, q): the sums of
        ``np.bincount(item * q + label, weights=weight)``, term by term in the same order;
        one product of the matrix with the column -> label indicator where that table is
        small, which needs no triples."""
        q, n = self.q, self.n_items
        if self.n_raters * q * q > max(self.weight.size, 1 << 20):
            flat = np.bincount(self.item * q + self.label, weights=self.weight, minlength=n * q)
            return np.asarray(flat, dtype=np.float64).reshape(n, q)
        by_label = np.tile(np.eye(q), (self.n_raters, 1))  # column r*q + l -> label l
        out: FloatArray = np.asarray(self.counts @ by_label, dtype=np.float64)
        return out

    def ratings_per_rater(self) -> FloatArray:
        """Each rater's ratings (the weights summed in the order of the triples, as
        ``np.bincount(rater, weights=weight)``), shape (n_raters,)."""
        if self.unit_weights:  # whole counts, whatever the order they are added in
            by_column = np.bincount(self.counts.indices, minlength=self.n_raters * self.q)
            whole: FloatArray = by_column.reshape(self.n_raters, self.q).sum(axis=1)
            return whole.astype(np.float64)
        rater = self.counts.indices // self.q  # in the narrow type of the matrix's indices
        sums = np.bincount(rater, weights=self.weight, minlength=self.n_raters)
        out: FloatArray = sums.astype(np.float64, copy=False)
        return out

    def take(self, rows: IntArray) -> Design:
        """The design of the items ``rows`` (with repeats: a bootstrap resample)."""
        sub = self.counts[rows]
        return _assemble(sub, self.gold[rows], self.n_raters, self.q, self.unit_weights)

    def with_gold(self, gold: IntArray) -> Design:
        return dataclasses.replace(self, gold=gold)


def _assemble(counts: Any, gold: IntArray, n_raters: int, q: int, unit: bool) -> Design:
    """The design of a CSR matrix whose rows hold each column at most once (``unit``: every
    entry 1)."""
    return Design(
        counts=counts,
        counts_t=counts.T,
        weight=np.asarray(counts.data, dtype=np.float64),  # shared with the counts
        gold=np.asarray(gold, dtype=np.int64),
        n_raters=n_raters,
        q=q,
        unit_weights=unit,
    )


def design_from_codes(
    item: IntArray,
    rater: IntArray,
    label: IntArray,
    *,
    n_items: int,
    n_raters: int,
    q: int,
    weight: FloatArray | None = None,
    gold: IntArray | None = None,
) -> Design:
    """The design of code vectors, shape (n_ratings,) each, with at most one entry per
    ``(item, rater, label)`` (as in a :class:`~accord.Ratings`); ``weight`` a count per
    entry. Built as CSR directly: a sort by item only when the rows are out of order."""
    from scipy import sparse

    item = np.asarray(item)
    # the columns in the index type scipy keeps (int32 where they and the entries fit)
    narrow = n_raters * q < 2**31 and item.size < 2**31
    column = np.multiply(rater, q, dtype=np.int32 if narrow else np.int64, casting="unsafe")
    np.add(column, label, out=column, casting="unsafe")
    w = None if weight is None else np.asarray(weight, dtype=np.float64)
    indptr = np.zeros(n_items + 1, dtype=np.int64)
    np.cumsum(np.bincount(item, minlength=n_items), out=indptr[1:])
    if item.size and np.any(item[1:] < item[:-1]):  # the rows need only the columns in order
        order = stable_order(item, n_items)
        column = column[order]
        w = None if w is None else w[order]
        del order
    w = np.ones(column.size) if w is None else w  # unit weights need no reordering
    counts = sparse.csr_matrix((w, column, indptr), shape=(n_items, n_raters * q))
    known = np.full(n_items, -1, dtype=np.int64) if gold is None else gold
    return _assemble(counts, known, n_raters, q, weight is None)
