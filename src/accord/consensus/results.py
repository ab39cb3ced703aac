"""The result of a consensus analysis: the per-item, per-rating and per-rater tables."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any, Literal, TypeAlias

import numpy as np
import pandas as pd

from .._methods import MethodsFormat, consensus_methods
from .._results import Result, to_plain
from ..data.ratings import ReadReport
from ..stats.counts import ItemCategoryCounts

__all__ = [
    "CLASSES",
    "MISSING_CATEGORY",
    "Consensus",
    "ConsensusMissing",
    "ConsensusReference",
    "ConsensusSummary",
]

ConsensusReference: TypeAlias = Literal["all", "others"]
"""Which ratings give ``p``: all ratings of the item, or all but the one being scored."""

ConsensusMissing: TypeAlias = Literal["omit", "category"]
"""An assignment without a label: not a rating, or a category of its own."""

CLASSES: tuple[str, str, str, str] = ("good", "acceptable", "poor", "very poor")
"""The classes of a rating's deviation, from the lowest band to the highest."""

MISSING_CATEGORY = "(no label)"
"""Name of the category given to assignments without a label under ``missing="category"``."""


@dataclasses.dataclass(frozen=True, slots=True)
class ConsensusSummary(Result):
    """Whole-data figures of a :func:`accord.consensus` analysis.

    Attributes
    ----------
    n_items, n_raters : int
        Items and raters in the data (items whose every label is missing included).
    n_ratings : int
        Ratings scored (assignments without a label included under ``missing="category"``).
    n_missing_as_category : int
        Assignments without a label scored as the category ``"(no label)"``.
    n_undefined : int
        Ratings whose deviation is undefined (under ``reference="others"``, the only rating of
        an item).
    mean_entropy : float
        Mean entropy over the items with at least one rating, in units of ``base``.
    mean_normalized_entropy : float
        Mean of the entropies divided by ``log(q)`` (0: unanimous, 1: evenly spread over all
        ``q`` categories); NaN when ``q = 1``.
    class_shares : mapping of str to float
        Share of the ratings with a defined deviation in each class.
    mean_ordinal_entropy : float
        Mean ordinal entropy over the rated items (NaN unless ``ordinal=True``).
    reason : str or None
        Why a summary value is NaN, when one is for these data (one category: no normalised
        entropy).
    """

    n_items: int
    n_raters: int
    n_ratings: int
    n_missing_as_category: int
    n_undefined: int
    mean_entropy: float
    mean_normalized_entropy: float
    class_shares: Mapping[str, float]
    mean_ordinal_entropy: float = math.nan
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the summary."""
        out = {f.name: to_plain(getattr(self, f.name)) for f in dataclasses.fields(self)}
        return out


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Consensus(Result):
    """The result of :func:`accord.consensus`: per-item, per-rating and per-rater tables.

    Attributes
    ----------
    items : pandas.DataFrame
        One row per item, in the order of ``Ratings.items``: ``item``, ``n_ratings``,
        ``count_<category>`` for each category (when the counts are dense), ``mode`` (the
        first modal category in category order), ``n_modes`` (how many categories tie for
        the mode), ``modal_share``, ``entropy`` (all ratings of the item, units of ``base``),
        ``normalized_entropy`` (``entropy / log(q)``), ``contested_rank`` (1 = highest
        entropy; ties share the lowest rank), and ``ordinal_entropy`` (with ``ordinal=True``)
        and ``gold`` (with ``gold``).
    ratings : pandas.DataFrame
        One row per scored rating: ``item``, ``rater``, ``label``, ``p`` (share of the
        reference ratings in the same category), ``surprisal``, ``deviation``, ``class``
        (ordered categorical of :data:`CLASSES`); with ``ordinal=True`` also
        ``ordinal_surprisal`` and ``ordinal_deviation``.
    raters : pandas.DataFrame
        One row per rater, the raters who stray most first: ``rank``, ``rater``,
        ``n_ratings``, ``mean_deviation``, ``median_deviation``, ``share_good``,
        ``share_acceptable``, ``share_poor``, ``share_very_poor``, ``mean_surprisal``,
        ``consensus_n`` (ratings whose item has a unique leave-one-out modal label),
        ``consensus_agreement`` (share equal to it), ``consensus_kappa`` (Cohen's kappa of
        the rater against it), ``consensus_ia`` (informational agreement); with ``ordinal=True``
        ``mean_ordinal_deviation``; with ``gold`` ``gold_n``, ``gold_accuracy``, ``gold_kappa``.
    summary : ConsensusSummary
    counts : ItemCategoryCounts
        Item x category counts of the scored ratings (the first pass).
    categories : tuple
        The categories scored (``"(no label)"`` last under ``missing="category"``).
    reference, missing : str
    bands : tuple of float
    base : float
    ordinal : bool
    method : str
        The conventions used, in words.
    report : ReadReport or None
        What was read, kept and dropped (rows, ratings, missing labels): the engine's
        report, or the report of the :class:`~accord.Ratings` scored in memory.
    """

    items: pd.DataFrame
    ratings: pd.DataFrame
    raters: pd.DataFrame
    summary: ConsensusSummary
    counts: ItemCategoryCounts
    categories: tuple[Any, ...]
    reference: ConsensusReference
    missing: ConsensusMissing
    bands: tuple[float, float, float]
    base: float
    ordinal: bool
    method: str
    report: ReadReport | None = None

    def to_dict(self, *, ratings: bool = False) -> dict[str, Any]:
        """Plain-Python dict: the options, the summary, the item and rater tables and the
        read report.

        Parameters
        ----------
        ratings : bool, default False
            Also include the per-rating table (one entry per rating: large).
        """
        out: dict[str, Any] = {
            "reference": self.reference,
            "missing": self.missing,
            "bands": list(self.bands),
            "base": self.base,
            "ordinal": self.ordinal,
            "categories": to_plain(self.categories),
            "method": self.method,
            "summary": self.summary.to_dict(),
            "items": to_plain(self.items),
            "raters": to_plain(self.raters),
        }
        if self.report is not None:
            out["report"] = self.report.to_dict()
        if ratings:
            out["ratings"] = to_plain(self.ratings)
        return out

    def most_contested(self, n: int = 10) -> pd.DataFrame:
        """The ``n`` items with the highest entropy, most contested first.

        Only the items ranked within the ``n`` highest (ties included) are sorted: an item
        ranked below them follows at least ``n`` others, so the first ``n`` are the same."""
        rank = self.items["contested_rank"].to_numpy(dtype=np.float64, na_value=np.nan)
        ranked = ~np.isnan(rank)
        if 0 < n < int(ranked.sum()):
            ranked &= rank <= np.partition(rank[ranked], n - 1)[n - 1]
        shown: pd.DataFrame = self.items[ranked]
        return shown.sort_values(["contested_rank", "modal_share"], kind="stable").head(n)

    def methods_text(self, format: MethodsFormat = "text") -> str:
        """A methods paragraph for a study report, with its references: the design, how
        each rating was scored, missing labels, the software. Every number comes from this
        result. ``format``: ``"text"`` or ``"markdown"``."""
        return consensus_methods(self, format)

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"Consensus({s.n_ratings} ratings, {s.n_items} items, {s.n_raters} raters, "
            f"reference={self.reference!r}, mean entropy {s.mean_entropy:.4g})"
        )
