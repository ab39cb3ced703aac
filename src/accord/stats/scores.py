"""The scored cells of a ratings table: one (item code, rater code, score) per rating.

The REML fit of the ICC reduces its data to sums over the items grouped by their number of
scores (:class:`accord.agreement.icc_mixed.CrossedDesign`). An item's sums need all of its
scores (its rater set and its total), and a streamed file or a dask partition may hold only
part of an item's rows. So the mergeable statistic keeps the scored cells keyed by item code
(shared by every partial of one input) and merges by collecting them; the reduction to the
per-count sums runs once, on the merged cells. It holds three numbers per rating (24 bytes),
whatever the batch or partition sizes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._errors import InvalidInputError, shown
from .._results import Result
from .._types import FloatArray, IntArray
from ..data.encoder import parses_as_number
from ..data.order import stable_order
from ..data.ratings import Ratings

__all__ = ["ScoreCells", "numeric_scale", "rating_scores", "score_matrix"]

_Part = tuple[IntArray, IntArray, FloatArray]


def numeric_scale(categories: Sequence[Any], owner: str) -> FloatArray:
    """The categories read as numbers; an error names the first label that is not one.

    >>> numeric_scale(["1", 2, 3.5], "icc").tolist()
    [1.0, 2.0, 3.5]
    """
    try:
        return np.asarray(categories, dtype=np.float64)
    except (TypeError, ValueError):
        bad = next((c for c in categories if not parses_as_number(c)), categories[0])
        raise InvalidInputError(
            f"{owner} needs numeric scores; the label {shown(bad)!r} is not a number "
            "(read the scores with level='interval' or 'ratio')"
        ) from None


def rating_scores(data: Ratings, owner: str = "icc") -> FloatArray:
    """The numeric score of each rating: its value, or its category read as a number
    (``owner``, the public function, names itself in the error).

    >>> r = Ratings.from_arrays([0, 0, 1], ["a", "b", "a"], [1, 3, 2], level="interval")
    >>> rating_scores(r).tolist()
    [1.0, 3.0, 2.0]
    """
    if data.values is not None:
        return np.asarray(data.values, dtype=np.float64)
    out: FloatArray = numeric_scale(data.categories, owner)[data.label_codes]
    return out


def score_matrix(data: Ratings, owner: str = "icc") -> FloatArray:
    """Items x raters matrix of the numeric scores of ``data`` (NaN: not scored).

    >>> r = Ratings.from_arrays([0, 0, 1], ["a", "b", "a"], [1, 3, 2], level="interval")
    >>> score_matrix(r).tolist()
    [[1.0, 3.0], [2.0, nan]]
    """
    return ScoreCells.from_ratings(data, owner).matrix()


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class ScoreCells(Result):
    """Mergeable scored cells: each rating's item code, rater code and numeric score.

    Attributes
    ----------
    parts : tuple of (item codes, rater codes, scores)
        The cells of each merged partial, in merge order (joined once by :meth:`cells`).
    n_items, n_raters : int
        Sizes of the code spaces (items and raters of the input, scored or not).

    Examples
    --------
    Item 0's two scores arrive in different batches; merged, the cells are those of the
    whole input:

    >>> first = ScoreCells.from_codes(np.array([0, 1]), np.array([0, 0]), np.array([4.0, 2.0]))
    >>> second = ScoreCells.from_codes(np.array([0]), np.array([1]), np.array([5.0]))
    >>> items, raters, scores = first.merge(second).cells()
    >>> items.tolist(), raters.tolist(), scores.tolist()
    ([0, 0, 1], [0, 1, 0], [4.0, 5.0, 2.0])
    """

    parts: tuple[_Part, ...]
    n_items: int
    n_raters: int

    @classmethod
    def from_codes(
        cls,
        items: IntArray,
        raters: IntArray,
        scores: FloatArray,
        *,
        n_items: int = 0,
        n_raters: int = 0,
    ) -> ScoreCells:
        """The cells of per-rating arrays (shape (E,)) with shared codes; the code spaces
        are at least ``n_items`` and ``n_raters`` (and cover the codes given)."""
        part = (
            np.asarray(items, dtype=np.int64),
            np.asarray(raters, dtype=np.int64),
            np.asarray(scores, dtype=np.float64),
        )
        if part[0].size:
            n_items = max(n_items, int(part[0].max()) + 1)
            n_raters = max(n_raters, int(part[1].max()) + 1)
        return cls((part,) if part[0].size else (), n_items, n_raters)

    @classmethod
    def from_ratings(cls, ratings: Ratings, owner: str = "icc") -> ScoreCells:
        """The cells of ratings with numeric scores (values, or numeric categories)."""
        return cls.from_codes(
            ratings.item_codes,
            ratings.rater_codes,
            rating_scores(ratings, owner),
            n_items=ratings.n_items,
            n_raters=ratings.n_raters,
        )

    def merge(self, other: ScoreCells) -> ScoreCells:
        """The cells of both (disjoint ratings with shared codes)."""
        return ScoreCells(
            self.parts + other.parts,
            max(self.n_items, other.n_items),
            max(self.n_raters, other.n_raters),
        )

    @property
    def n_scores(self) -> int:
        return sum(int(p[0].size) for p in self.parts)

    def matrix(self) -> FloatArray:
        """Items x raters matrix of the scores (NaN where an item has no score from a
        rater)."""
        out = np.full((self.n_items, self.n_raters), np.nan)
        for items, raters, scores in self.parts:
            out[items, raters] = scores
        return out

    def cells(self) -> _Part:
        """Item codes, rater codes and scores of every cell, sorted by (item, rater): the
        same arrays whatever the order of the rows and however they were split (not to be
        written to: with one part, already in order, they are its own)."""
        if not self.parts:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty.copy(), np.zeros(0, dtype=np.float64)
        if len(self.parts) == 1:  # the arrays as they are (read only here): no copy
            items, raters, scores = self.parts[0]
        else:
            items, raters, scores = (np.concatenate(c) for c in zip(*self.parts, strict=True))
        width = max(self.n_raters, 1)
        key = items * width + raters
        if key.size > 1 and np.any(key[1:] < key[:-1]):
            order = stable_order(key, max(self.n_items, 1) * width)
            items, raters, scores = items[order], raters[order], scores[order]
        return items, raters, scores
