"""What the tables of a fitted rater model read off the ratings besides the fit itself: the
expected counts of the posteriors and of the gold labels, each rater's ratings, which items
are rated, and Fleiss' kappa of the votes. Memory counts them from the design; the stream
and dask engines in passes."""

from __future__ import annotations

import dataclasses
from typing import Any

from .._types import FloatArray, IntArray
from ._design import Design
from ._em import expected_counts
from ._quality import fleiss_from_counts, gold_onehot

__all__ = ["Tallies", "tallies_of"]


@dataclasses.dataclass(frozen=True, slots=True)
class Tallies:
    """Sums over the ratings that the result's tables need.

    Attributes
    ----------
    counts : ndarray, shape (n_raters, q, q)
        ``N[r, c, l]``: the expected counts of the fitted posteriors.
    gold_counts : ndarray, shape (n_raters, q, q), or None
        The same counts with each gold item's label as its posterior (None without gold).
    n_per_rater : ndarray, shape (n_raters,)
        Each rater's ratings.
    rated : ndarray of bool, shape (n_items,)
        Items with at least one rating.
    observed_fleiss : float
        Fleiss' kappa of each item's votes per label (:func:`fleiss_from_counts`).
    gold : ndarray of int64, shape (n_items,)
        Each item's gold label code, -1 where none.
    """

    counts: FloatArray
    gold_counts: FloatArray | None
    n_per_rater: FloatArray
    rated: Any
    observed_fleiss: float
    gold: IntArray

    @property
    def q(self) -> int:
        return int(self.counts.shape[1])

    @property
    def n_items(self) -> int:
        return int(self.gold.size)


def tallies_of(design: Design, posterior: FloatArray) -> Tallies:
    """The tallies of a design in memory, for the fitted ``posterior``."""
    q = design.q
    votes = design.votes()
    gold = (
        expected_counts(design, gold_onehot(design.gold, q)) if (design.gold >= 0).any() else None
    )
    return Tallies(
        counts=expected_counts(design, posterior),
        gold_counts=gold,
        n_per_rater=design.ratings_per_rater(),
        rated=votes.sum(axis=1) > 0,
        observed_fleiss=fleiss_from_counts(votes),
        gold=design.gold,
    )
