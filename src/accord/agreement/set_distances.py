"""Distances between sets of labels (MASI, Jaccard) for Krippendorff's alpha on set-valued
ratings.

A set-valued :class:`~accord.Ratings` (``multi_label=True``) has one category per distinct
set of labels; the distance between two categories is computed once from their membership
rows (:func:`set_distance_matrix`), and alpha runs on the item x category counts with that
q x q distance, as for any user metric. On many distinct sets alpha reads the distances of
the pairs within items only (:meth:`SetDistanceMetric.pairs`) and the expected disagreement
from blocks of the distances (:meth:`SetDistanceMetric.sums`): exact, in bounded memory.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Literal, TypeAlias

import numpy as np

from .._errors import InvalidInputError, option
from .._types import BoolArray, FloatArray, IntArray
from .._validate import check_choice
from ..data.ratings import Ratings

__all__ = [
    "SET_DISTANCES",
    "SetDistance",
    "SetDistanceMetric",
    "distances_from",
    "membership_of",
    "pair_distance_sums",
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
    sizes = counts.sum(axis=1)
    return distances_from(counts @ counts.T, sizes[:, None], sizes[None, :], distance)


def distances_from(
    inter: FloatArray, size_a: FloatArray, size_b: FloatArray, distance: str
) -> FloatArray:
    r"""The distances of :func:`set_distance_matrix` from the sizes of the intersections and
    of the two sets (arrays that broadcast together): Jaccard and MASI depend on nothing
    else, so any block of pairs is computed exactly as the whole matrix is (``"dice"``:
    the nominal difference of the multi-valued alpha, :math:`1 - 2|A \cap B| / (|A| + |B|)`).

    A set of two inside one of four, two equal sets, two disjoint singletons:

    >>> distances_from(np.array([2.0, 2.0, 0.0]), np.array([2.0, 2.0, 1.0]),
    ...                np.array([4.0, 2.0, 1.0]), "masi").round(4).tolist()
    [0.6667, 0.0, 1.0]
    """
    if distance == "dice":  # the multi-valued alpha's nominal difference
        total = size_a + size_b
        with np.errstate(invalid="ignore", divide="ignore"):
            dice: FloatArray = np.where(
                total > 0, 1.0 - 2.0 * inter / np.where(total > 0, total, 1), 0.0
            )
        return dice
    union = size_a + size_b - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(union > 0, inter / np.where(union > 0, union, 1.0), 1.0)
    if distance == "jaccard":
        out: FloatArray = 1.0 - share
        return out
    smaller = np.minimum(size_a, size_b)
    equal = (inter == size_a) & (inter == size_b)
    weight = np.where(
        equal, 1.0, np.where(inter == smaller, 2.0 / 3.0, np.where(inter > 0, 1.0 / 3.0, 0.0))
    )
    masi: FloatArray = 1.0 - share * weight
    return masi


#: Cells of one block of distances computed at a time (:meth:`SetDistanceMetric.sums`).
BLOCK_CELLS = 2_000_000


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class SetDistanceMetric:
    """A set distance as a metric of :func:`accord.krippendorff_alpha`: called with arrays
    of category positions, it returns their distances; ``metric`` names it.

    Attributes
    ----------
    metric : {"masi", "jaccard", "dice"}
    membership : ndarray of bool, shape (q, n_labels)
        Which labels each category (set) holds.
    """

    metric: SetDistance | Literal["dice"]
    membership: BoolArray

    @property
    def matrix(self) -> FloatArray:
        """The q x q distances (:func:`set_distance_matrix`)."""
        counts = self.membership.astype(np.float64)
        sizes = counts.sum(axis=1)
        return distances_from(counts @ counts.T, sizes[:, None], sizes[None, :], self.metric)

    def __call__(self, x: FloatArray, y: FloatArray) -> FloatArray:
        out: FloatArray = self.matrix[np.asarray(x, dtype=np.int64), np.asarray(y, dtype=np.int64)]
        return out

    def pairs(self, a: IntArray, b: IntArray) -> FloatArray:
        """The distances between the sets ``a[j]`` and ``b[j]`` (category positions), pair
        by pair: memory follows the pairs, never q x q."""
        member = self.membership
        inter = np.einsum("jl,jl->j", member[a], member[b], dtype=np.float64)
        sizes = member.sum(axis=1).astype(np.float64)
        return distances_from(inter, sizes[a], sizes[b], self.metric)

    def sums(self, weights: FloatArray, rows: IntArray) -> tuple[float, FloatArray]:
        r"""Over the categories ``rows``: the largest distance between two of them, and
        :math:`\sum_l \delta_{kl} w_l` for each (``weights`` of shape (q,), positive on
        ``rows``, 0 elsewhere), a block of about :data:`BLOCK_CELLS` pairs at a time.

        A distance depends only on :math:`(|A \cap B|, |A|, |B|)`: each block's
        intersection sizes (one matrix product of the membership rows) are tallied by
        (row, intersection, size of the other set) with the weights, and the tally is read
        against the distances of those few triples; with sets of over
        :data:`_TALLY_SIZES` labels, the distances of the block are computed one by one.

        Examples
        --------
        >>> m = SetDistanceMetric("jaccard", np.array([[1, 1, 0], [0, 1, 0], [0, 0, 1]], bool))
        >>> big, s = m.sums(np.array([0.5, 0.5, 0.0]), np.array([0, 1]))
        >>> big, s.tolist()
        (0.5, [0.25, 0.25, 0.0])
        """
        if _by_subsets(self.membership[rows]):
            return self._subset_sums(weights, rows)
        member = self.membership[rows].astype(np.float64)
        sizes = member.sum(axis=1)
        w = weights[rows]
        out = np.zeros(weights.shape[0], dtype=np.float64)
        largest = 0.0
        top = int(sizes.max()) + 1 if rows.size else 1
        tally = top <= _TALLY_SIZES
        if tally:  # distances of every (intersection, size, size) triple, [i, a, b]
            i, a, b = np.meshgrid(*(np.arange(top, dtype=np.float64),) * 3, indexing="ij")
            triples = distances_from(i, a, b, self.metric)
            size_codes = sizes.astype(np.int64)
        step = max(1, BLOCK_CELLS // max(rows.size, 1))
        for lo in range(0, rows.size, step):
            hi = min(lo + step, rows.size)
            inter = member[lo:hi] @ member.T
            if not tally:
                block = distances_from(inter, sizes[lo:hi, None], sizes[None, :], self.metric)
                largest = max(largest, float(block.max()))
                out[rows[lo:hi]] = block @ w
                continue
            n = hi - lo
            key = (np.arange(n)[:, None] * top + inter.astype(np.int64)) * top + size_codes
            weighted = np.bincount(
                key.ravel(), weights=np.broadcast_to(w, key.shape).ravel(), minlength=n * top**2
            ).reshape(n, top, top)  # [row, intersection, size of the other set]
            seen = triples[:, size_codes[lo:hi], :].transpose(1, 0, 2)  # [row, i, b]
            largest = max(largest, float(seen[weighted > 0].max()))
            out[rows[lo:hi]] = np.einsum("kib,kib->k", weighted, seen)
        return largest, out

    def _subset_sums(self, weights: FloatArray, rows: IntArray) -> tuple[float, FloatArray]:
        r""":meth:`sums` from the label incidence, in time linear in the sets: for each set
        :math:`A_k` and size :math:`b`, the weight of the sets of size :math:`b` that meet
        :math:`A_k` in exactly :math:`i` labels is :math:`E_k(i, b) = \sum_{j \ge i}
        (-1)^{j-i} \binom{j}{i} H_k(j, b)`, with :math:`H_k(j, b) = \sum_{S \subseteq
        A_k, |S| = j} G_b(S)` and :math:`G_b(S)` the weight of the sets of size :math:`b`
        holding :math:`S` (Moebius inversion over the subsets of each set). The same sums
        of counts, in integers, say which (intersection, size) pairs occur, for the
        largest distance."""
        member = self.membership[rows]
        sizes = member.sum(axis=1).astype(np.int64)
        top = int(sizes.max()) + 1
        masks, subset_size = _subsets(member, top - 1)  # (n, 2^(top-1)); -1 = no such subset
        valid = masks >= 0
        owner = np.broadcast_to(np.arange(rows.size)[:, None], masks.shape)[valid]
        key = masks[valid] * top + sizes[owner]  # (subset, size of the set holding it)
        uniq, inverse = np.unique(key, return_inverse=True)
        w = weights[rows]
        g_weight = np.bincount(inverse, weights=w[owner], minlength=uniq.size)
        g_count = np.bincount(inverse, minlength=uniq.size)
        # H_k(j, b): each set's subsets S against every size b of the sets holding S
        n = rows.size
        h_weight = np.zeros((n, top, top))
        h_count = np.zeros((n, top, top), dtype=np.int64)
        sub = masks[valid]
        j = subset_size[np.nonzero(valid)[1]]
        for b in range(top):
            at = np.searchsorted(uniq, sub * top + b)
            hit = (at < uniq.size) & (uniq[np.minimum(at, uniq.size - 1)] == sub * top + b)
            np.add.at(h_weight, (owner[hit], j[hit], b), g_weight[at[hit]])
            np.add.at(h_count, (owner[hit], j[hit], b), g_count[at[hit]])
        mobius = _mobius(top)  # E[i] = sum_j mobius[i, j] H[j]
        e_weight = np.einsum("ij,kjb->kib", mobius, h_weight)
        e_count = np.einsum("ij,kjb->kib", mobius.astype(np.int64), h_count)
        i, a, b_ = np.meshgrid(*(np.arange(top, dtype=np.float64),) * 3, indexing="ij")
        triples = distances_from(i, a, b_, self.metric)  # [i, a, b]
        seen = triples[:, sizes, :].transpose(1, 0, 2)  # [k, i, b]
        out = np.zeros(weights.shape[0], dtype=np.float64)
        out[rows] = np.einsum("kib,kib->k", e_weight, seen)
        return float(seen[e_count > 0].max()), out


#: Largest set size (plus one) for which :meth:`SetDistanceMetric.sums` tallies triples.
_TALLY_SIZES = 64
#: Largest set size for which :meth:`SetDistanceMetric.sums` goes through the subsets of
#: each set (2^size of them), and most labels (bit masks of 62 bits with the size beside).
_SUBSET_SIZE = 10
_SUBSET_LABELS = 56


def _by_subsets(member: BoolArray) -> bool:
    """Whether the sums go through the subsets of the sets (few labels, small sets)."""
    if member.shape[0] == 0 or member.shape[1] > _SUBSET_LABELS:
        return False
    return int(member.sum(axis=1).max()) <= _SUBSET_SIZE


def _subsets(member: BoolArray, largest: int) -> tuple[IntArray, IntArray]:
    """Every subset of each set as a bit mask of its labels, shape (n, 2^largest) (-1 past
    the set's own 2^size subsets), and the size of the subset each column stands for.

    >>> masks, size = _subsets(np.array([[True, False, True], [False, True, False]]), 2)
    >>> masks.tolist(), size.tolist()
    ([[0, 1, 4, 5], [0, 2, -1, -1]], [0, 1, 1, 2])
    """
    n = member.shape[0]
    bits = np.full((n, max(largest, 1)), 0, dtype=np.int64)
    sizes = member.sum(axis=1)
    rows, labels = np.nonzero(member)
    slot = np.arange(rows.size) - np.searchsorted(rows, rows)  # position within its set
    bits[rows, slot] = np.left_shift(1, labels.astype(np.int64))
    t = np.arange(2**largest, dtype=np.int64)
    chosen = (t[:, None] >> np.arange(max(largest, 1))) & 1  # (2^largest, largest)
    masks = bits @ chosen.T
    masks[t[None, :] >= (2 ** sizes.astype(np.int64))[:, None]] = -1
    return masks, chosen.sum(axis=1)


def _mobius(top: int) -> FloatArray:
    """``m[i, j] = (-1)^(j - i) C(j, i)`` for ``j >= i`` (0 below): exactly-``i`` counts
    from the at-least binomial sums."""
    from math import comb

    out = np.zeros((top, top))
    for i in range(top):
        for j in range(i, top):
            out[i, j] = (-1) ** (j - i) * comb(j, i)
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
    return SetDistanceMetric(kind, membership)


def pair_distance_sums(counts: Any, metric: SetDistanceMetric) -> FloatArray:
    r"""Per row of item x set counts, :math:`\sum_{k \ne l} c_k c_l \delta_{kl}`: the
    distances of the pairs of sets within each item, read from its filled cells only (one
    pass per distance between two filled cells of a row, in batches), never q x q.

    >>> m = SetDistanceMetric("jaccard", np.array([[1, 1], [0, 1], [1, 0]], bool))
    >>> pair_distance_sums(np.array([[1, 1, 0], [0, 2, 1]]), m).tolist()
    [1.0, 4.0]
    """
    from scipy import sparse

    csr = sparse.csr_array(counts)
    csr.sum_duplicates()
    n, filled = csr.shape[0], np.diff(csr.indptr)
    row = np.repeat(np.arange(n), filled)
    col, val = csr.indices.astype(np.int64), csr.data.astype(np.float64)
    rest = np.repeat(csr.indptr[1:], filled) - np.arange(col.size) - 1  # cells after, same row
    out = np.zeros(n, dtype=np.float64)
    gap, pos = 1, np.flatnonzero(rest >= 1)
    while pos.size:
        for lo in range(0, pos.size, _PAIR_BATCH):
            at = pos[lo : lo + _PAIR_BATCH]
            both = 2.0 * val[at] * val[at + gap] * metric.pairs(col[at], col[at + gap])
            out += np.bincount(row[at], weights=both, minlength=n)
        gap += 1
        pos = pos[rest[pos] >= gap]
    return out


#: Pairs of filled cells per batch of :func:`pair_distance_sums`.
_PAIR_BATCH = 1_000_000
