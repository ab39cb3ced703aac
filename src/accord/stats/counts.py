"""Group x category counts: item x category ``n[i, c]`` and rater x category."""

from __future__ import annotations

import dataclasses
from typing import Any, Self

import numpy as np
import numpy.typing as npt

from .._errors import InvalidInputError
from .._results import Result
from .._types import FloatArray, IntArray
from .._validate import check_count_cells
from ..data.ratings import Ratings

__all__ = ["CategoryCounts", "ItemCategoryCounts", "RaterCategoryCounts"]

#: Above this many cells (groups x categories) and this sparsity, counts are kept sparse.
SPARSE_CELLS = 50_000_000


def _bincount_2d(rows: IntArray, cols: IntArray, n_rows: int, q: int, sparse: bool) -> Any:
    if sparse:
        from scipy import sparse as sp

        data = np.ones(rows.size, dtype=np.int64)
        mat = sp.csr_array((data, (rows, cols)), shape=(n_rows, q), dtype=np.int64)
        mat.sum_duplicates()
        return mat
    flat = np.bincount(rows * q + cols, minlength=n_rows * q)
    return flat.reshape(n_rows, q).astype(np.int64, copy=False)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class CategoryCounts(Result):
    """Counts of ratings per (group, category): the base of item and rater counts.

    Attributes
    ----------
    counts : ndarray of int64, shape (n_groups, q), or scipy sparse CSR array
        ``counts[g, c]`` = number of ratings in group ``g`` with category ``c``.
    categories : tuple
        The category domain, in order.
    declared : bool
        False when ``categories`` are the default 0..q-1 of an array given without
        categories (positions, not values anyone gave).
    """

    counts: Any
    categories: tuple[Any, ...]
    declared: bool = True

    @property
    def is_sparse(self) -> bool:
        """Whether ``counts`` is a scipy sparse array."""
        return not isinstance(self.counts, np.ndarray)

    @property
    def shape(self) -> tuple[int, int]:
        """``(n_groups, q)``."""
        rows, cols = self.counts.shape
        return int(rows), int(cols)

    def dense(self) -> IntArray:
        """The counts as a dense int64 array."""
        if self.is_sparse:
            out: IntArray = np.asarray(self.counts.toarray(), dtype=np.int64)
            return out
        dense: IntArray = self.counts
        return dense

    def totals(self) -> IntArray:
        """Ratings per group, shape (n_groups,)."""
        out: IntArray = np.asarray(self.counts.sum(axis=1), dtype=np.int64).ravel()
        return out

    def category_totals(self) -> IntArray:
        """Ratings per category, shape (q,)."""
        out: IntArray = np.asarray(self.counts.sum(axis=0), dtype=np.int64).ravel()
        return out

    def merge(self, other: Self) -> Self:
        """Counts of the union of the ratings behind ``self`` and ``other``.

        Both must be encoded with the same dictionaries (same categories, same group codes);
        the group dimension is padded to the larger of the two.
        """
        if type(other) is not type(self):
            raise InvalidInputError(
                f"cannot merge {type(self).__name__} with {type(other).__name__}"
            )
        if other.categories != self.categories:
            raise InvalidInputError(
                "cannot merge counts over different category domains: "
                f"{self.categories!r} vs {other.categories!r}"
            )
        n = max(self.shape[0], other.shape[0])
        q = self.shape[1]
        if self.is_sparse or other.is_sparse:
            from scipy import sparse as sp

            a = sp.csr_array(self.counts, dtype=np.int64)
            b = sp.csr_array(other.counts, dtype=np.int64)
            a.resize((n, q))
            b.resize((n, q))
            merged: Any = (a + b).tocsr()
        else:
            merged = np.zeros((n, q), dtype=np.int64)
            merged[: self.shape[0]] += self.counts
            merged[: other.shape[0]] += other.counts
        return dataclasses.replace(self, counts=merged)

    def equals(self, other: CategoryCounts) -> bool:
        """Exact equality of the counts (dense or sparse) and categories."""
        if self.shape != other.shape or self.categories != other.categories:
            return False
        return bool(np.array_equal(self.dense(), other.dense()))

    @classmethod
    def from_codes(
        cls,
        group_codes: npt.ArrayLike,
        label_codes: npt.ArrayLike,
        *,
        n_groups: int,
        categories: tuple[Any, ...],
        sparse: bool | None = None,
    ) -> Self:
        """Count from aligned integer codes.

        Parameters
        ----------
        group_codes, label_codes : array_like of int, shape (n_ratings,)
        n_groups : int
            Size of the group dictionary.
        categories : tuple
            The category domain (``q = len(categories)``).
        sparse : bool, optional
            Force sparse or dense; default dense unless ``n_groups * q`` exceeds
            :data:`SPARSE_CELLS`.
        """
        g = np.asarray(group_codes, dtype=np.int64)
        c = np.asarray(label_codes, dtype=np.int64)
        q = len(categories)
        if sparse is None:
            sparse = n_groups * q > SPARSE_CELLS
        return cls(_bincount_2d(g, c, n_groups, q, sparse), categories)

    @classmethod
    def _from_groups(
        cls, ratings: Ratings, group_codes: IntArray, n_groups: int, sparse: bool | None
    ) -> Self:
        """Count ``ratings`` per group (``group_codes``, one per rating) and category."""
        return cls.from_codes(
            group_codes,
            ratings.label_codes,
            n_groups=n_groups,
            categories=ratings.categories,
            sparse=sparse,
        )


class ItemCategoryCounts(CategoryCounts):
    """Item x category counts ``n[i, c]``: what Fleiss, Krippendorff, Gwet and the entropy
    per item are computed from.

    Examples
    --------
    >>> import accord
    >>> r = accord.Ratings.from_wide([[1, 1, 2], [2, 2, 2]])
    >>> ItemCategoryCounts.from_ratings(r).counts
    array([[2, 1],
           [0, 3]])
    """

    __slots__ = ()

    @classmethod
    def from_ratings(cls, ratings: Ratings, *, sparse: bool | None = None) -> ItemCategoryCounts:
        """Count the ratings per item and category."""
        return cls._from_groups(ratings, ratings.item_codes, ratings.n_items, sparse)

    @classmethod
    def from_array(
        cls, counts: npt.ArrayLike, categories: tuple[Any, ...] | None = None
    ) -> ItemCategoryCounts:
        """Wrap an items x categories array of counts (validated: 2-D, integers >= 0)."""
        arr = np.asarray(counts)
        if arr.ndim != 2:
            raise InvalidInputError(
                f"item x category counts must be 2-D (items x categories); got shape {arr.shape}"
            )
        if arr.size == 0:
            raise InvalidInputError("item x category counts are empty")
        cats = tuple(range(arr.shape[1])) if categories is None else tuple(categories)
        if len(cats) != arr.shape[1]:
            raise InvalidInputError(
                f"{len(cats)} categories given for counts with {arr.shape[1]} columns"
            )
        if arr.dtype.kind in "iu":  # whole numbers already: only the sign to check
            if arr.dtype.kind == "i" and int(arr.min()) < 0:
                i, c = np.argwhere(arr < 0)[0]
                raise InvalidInputError(
                    f"item x category counts: cell ({i}, {c}) is negative ({arr[i, c]})"
                )
            return cls(arr.astype(np.int64, copy=False), cats, categories is not None)
        try:
            as_float: FloatArray = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise InvalidInputError("item x category counts must be numbers") from None
        check_count_cells(as_float, "item x category counts: cell")
        if np.any(as_float != np.round(as_float)):
            i, c = np.argwhere(as_float != np.round(as_float))[0]
            raise InvalidInputError(
                f"item x category counts: cell ({i}, {c}) is not a whole number "
                f"({as_float[i, c]:g})"
            )
        return cls(as_float.astype(np.int64), cats, categories is not None)


class RaterCategoryCounts(CategoryCounts):
    """Rater x category counts: each rater's marginal distribution (Conger, rater profiles)."""

    __slots__ = ()

    @classmethod
    def from_ratings(cls, ratings: Ratings, *, sparse: bool | None = None) -> RaterCategoryCounts:
        """Count the ratings per rater and category."""
        return cls._from_groups(ratings, ratings.rater_codes, ratings.n_raters, sparse)
