"""The judge's rates on ratings: raw, corrected by Rogan-Gladen or the matrix method, and PPI++.

One table of ratings holds the judge's labels of every item and the humans' labels of some;
the items the humans labelled measure the judge's errors, the others are judged only. Each
label's rate is given three ways: the judge's raw rate, the rate corrected by the judge's
errors (Rogan-Gladen for one label, the matrix method for all), and the prediction-powered
(PPI++) estimate, each with its interval and the number of human labels that would halve it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Never

import numpy as np
import pandas as pd

from .._errors import InvalidInputError
from .._methods import MethodsFormat, judged_rate_methods
from .._results import Record
from .._types import IntArray, RngLike
from ..data.ratings import Ratings
from ..data.source import refuse_read_options
from .alternative_annotator import _rater_code, human_panel
from .corrected import (
    CorrectedDistribution,
    CorrectedRate,
    IntervalMethod,
    corrected_distribution_from_counts,
    corrected_rate_from_counts,
)
from .judged_counts import JudgeCounts
from .ppi import PredictionMoments, PredictionPoweredMean, prediction_powered_mean_from_moments

__all__ = ["JudgeRates", "judge_only_items", "judge_rates"]

TABLE_COLUMNS = [
    "label",
    "raw_rate",
    "corrected",
    "corrected_low",
    "corrected_high",
    "corrected_labels_to_halve",
    "ppi",
    "ppi_low",
    "ppi_high",
    "ppi_labels_to_halve",
]


@dataclasses.dataclass(frozen=True, slots=True)
class JudgeRates(Record):
    """The judge's rates, raw and corrected, from ratings.

    Attributes
    ----------
    judge : object
    reference : str
        What the human label of an item is: one human's, or the humans' majority.
    table : pandas.DataFrame
        One row per label (or only ``positive``'s): ``label``, ``raw_rate`` (the judge's on
        the unlabelled items), ``corrected`` with ``corrected_low`` / ``corrected_high`` and
        ``corrected_labels_to_halve`` (Rogan-Gladen with ``positive``, else the matrix
        method), ``ppi`` with ``ppi_low`` / ``ppi_high`` and ``ppi_labels_to_halve``
        (PPI++ of the label's indicator).
    corrected : CorrectedRate or CorrectedDistribution
    ppi : tuple of PredictionPoweredMean
        One per row of ``table``.
    counts : JudgeCounts
    n_labelled, n_unlabelled : int
    n_tied : int
        Items the humans labelled whose majority was tied (left out).
    confidence_level : float
    method : str
    """

    judge: Any
    reference: str
    table: pd.DataFrame
    corrected: CorrectedRate | CorrectedDistribution
    ppi: tuple[PredictionPoweredMean, ...]
    counts: JudgeCounts
    n_labelled: int
    n_unlabelled: int
    n_tied: int
    confidence_level: float
    method: str

    def _headline(self) -> str:
        row = self.table.iloc[-1] if len(self.table) == 1 else self.table.iloc[0]
        return (
            f"{self.judge}: rate of {row['label']} {row['raw_rate']:.3f} as judged, "
            f"{row['corrected']:.3f} corrected, {row['ppi']:.3f} by PPI++ "
            f"({self.n_labelled} items labelled by humans, {self.n_unlabelled} judged only)"
        )

    def to_frame(self) -> pd.DataFrame:
        """The per-label table (a copy)."""
        return self.table.copy()

    def methods_text(self, format: MethodsFormat = "text") -> str:
        """The methods paragraph of the corrected estimate and the PPI++ estimates, with
        their references. ``format``: ``"text"`` or ``"markdown"``."""
        return judged_rate_methods(self, format)


def _reference_codes(ratings: Ratings, humans: IntArray) -> tuple[IntArray, int]:
    """The human label code of each item (-1: none, or a tied majority) and the ties."""
    q, n_items = ratings.n_categories, ratings.n_items
    mine = np.isin(ratings.rater_codes, humans)
    counts = np.bincount(
        ratings.item_codes[mine] * q + ratings.label_codes[mine], minlength=n_items * q
    ).reshape(n_items, q)
    top = counts.max(axis=1)
    unique = (counts == top[:, None]).sum(axis=1) == 1
    codes = np.where((top > 0) & unique, counts.argmax(axis=1), -1)
    return codes.astype(np.int64), int(np.sum((top > 0) & ~unique))


def _split(ratings: Ratings, judge: int, humans: IntArray) -> tuple[Any, Any, Any, int]:
    """Human and judge codes of the labelled items, judge codes of the others, the ties."""
    reference, n_tied = _reference_codes(ratings, humans)
    mine = ratings.rater_codes == judge
    items, labels = ratings.item_codes[mine], ratings.label_codes[mine]
    if np.unique(items).size != items.size:
        raise InvalidInputError("the judge has more than one label on some items")
    ref = reference[items]
    labelled = ref >= 0
    no_human = ~labelled & ~_human_rated(ratings, humans)[items]
    return ref[labelled], labels[labelled], labels[no_human], n_tied


def _more_labels(unlabelled: Any, judge: Any) -> list[Any]:
    """The judge's labels in ``unlabelled``: labels, or the judge's rows of Ratings."""
    if unlabelled is None:
        return []
    if not isinstance(unlabelled, Ratings):
        return list(unlabelled)
    mine = np.flatnonzero([r == judge or str(r) == str(judge) for r in unlabelled.raters])
    if mine.size == 0:
        raise InvalidInputError(
            f"the unlabelled ratings have no rater {judge!s}: name the judge as in both files"
        )
    codes = unlabelled.label_codes[np.isin(unlabelled.rater_codes, mine)]
    return [unlabelled.categories[c] for c in codes]


def _human_rated(ratings: Ratings, humans: IntArray) -> Any:
    rated = np.zeros(ratings.n_items, dtype=bool)
    rated[ratings.item_codes[np.isin(ratings.rater_codes, humans)]] = True
    return rated


def judge_only_items(ratings: Ratings, judge: Any, humans: Sequence[Any]) -> int:
    """How many items ``judge`` labelled that none of ``humans`` did."""
    code = _rater_code(ratings, judge, "judge")
    panel = np.array([_rater_code(ratings, h, "human") for h in humans], dtype=np.int64)
    items = ratings.item_codes[ratings.rater_codes == code]
    return int(np.unique(items[~_human_rated(ratings, panel)[items]]).size)


def judge_rates(
    ratings: Ratings,
    judge: Any,
    *,
    humans: Sequence[Any] | None = None,
    unlabelled: Any = None,
    positive: Any = None,
    confidence_level: float = 0.95,
    interval: IntervalMethod = "delta",
    n_boot: int = 2000,
    rng: RngLike = 0,
    **read_options: Never,
) -> JudgeRates:
    """The judge's rate of each label on ratings, raw and corrected by its errors.

    The items the humans labelled (one human's label, or the humans' majority; a tied
    majority is left out) measure the judge's errors; the items only the judge labelled,
    and the judge's labels in ``unlabelled``, are the judged set. See
    :func:`corrected_rate`, :func:`corrected_distribution` and
    :func:`prediction_powered_mean` for the estimators.

    Parameters
    ----------
    ratings : Ratings
        The judge's and the humans' labels.
    judge : object
        The judge, as named in the rater column.
    humans : sequence, optional
        The humans (default: every other rater).
    unlabelled : array-like or Ratings, optional
        More labels of the judge on items no human labelled (labels of ``ratings``), or
        ratings whose rows by ``judge`` are those labels.
    positive : object, optional
        One label: its Rogan-Gladen rate. Default: every label, by the matrix method (with
        0/1 labels, the rate of 1).
    confidence_level, interval, n_boot, rng
        As :func:`corrected_rate`.

    Returns
    -------
    JudgeRates

    Examples
    --------
    The PandaLM set with the annotators' labels of the first 200 items only:

    >>> import accord
    >>> ratings = accord.read_ratings(accord.datasets.path("pandalm-judged.csv"), item="item",
    ...                               rater="rater", label="preference")
    >>> r = judge_rates(ratings, "gpt-3.5-turbo", positive="first")
    >>> r.n_labelled, r.n_unlabelled, round(r.corrected.estimate, 3), round(r.ppi[0].estimate, 3)
    (196, 778, 0.332, 0.385)
    """
    refuse_read_options("judge_rates", read_options)
    code = _rater_code(ratings, judge, "judge")
    names = human_panel(ratings, [ratings.raters[code]], humans)
    panel = np.array([_rater_code(ratings, h, "human") for h in names], dtype=np.int64)
    if panel.size == 0:
        raise InvalidInputError("judge_rates needs at least one human rater besides the judge")
    human, judged, extra, n_tied = _split(ratings, code, panel)
    cats = list(ratings.categories)
    extra_labels = [cats[c] for c in extra] + _more_labels(unlabelled, ratings.raters[code])
    counts = JudgeCounts.from_labels(
        [cats[c] for c in human], [cats[c] for c in judged], extra_labels, categories=cats
    )
    options = {"confidence_level": confidence_level, "interval": interval, "n_boot": n_boot}
    binary = positive is not None or set(cats) == {0, 1}
    corrected: CorrectedRate | CorrectedDistribution
    if binary:
        corrected = corrected_rate_from_counts(counts, positive=positive, rng=rng, **options)  # type: ignore[arg-type]
        rows = [counts.code(corrected.label, "judge_rates")]
    else:
        corrected = corrected_distribution_from_counts(counts, rng=rng, **options)  # type: ignore[arg-type]
        rows = list(range(len(cats)))
    ppi = tuple(
        prediction_powered_mean_from_moments(
            PredictionMoments.from_counts(counts, k), confidence_level=confidence_level
        )
        for k in rows
    )
    reference = names[0] if len(names) == 1 else f"the majority of {len(names)} humans"
    return JudgeRates(
        judge=ratings.raters[code],
        reference=str(reference),
        table=_table(corrected, ppi, [cats[k] for k in rows]),
        corrected=corrected,
        ppi=ppi,
        counts=counts,
        n_labelled=counts.n_labelled,
        n_unlabelled=counts.n_unlabelled,
        n_tied=n_tied,
        confidence_level=ppi[0].confidence_level,
        method=f"{corrected.method}; PPI++ of each label's indicator",
    )


def _table(
    corrected: CorrectedRate | CorrectedDistribution,
    ppi: tuple[PredictionPoweredMean, ...],
    labels: list[Any],
) -> pd.DataFrame:
    if isinstance(corrected, CorrectedRate):
        head = pd.DataFrame(
            {
                "label": [corrected.label],
                "raw_rate": [corrected.raw_rate],
                "corrected": [corrected.estimate],
                "corrected_low": [corrected.low],
                "corrected_high": [corrected.high],
                "corrected_labels_to_halve": pd.array([corrected.labels_to_halve], "Int64"),
            }
        )
    else:
        head = corrected.table.rename(
            columns={
                "estimate": "corrected",
                "low": "corrected_low",
                "high": "corrected_high",
                "labels_to_halve": "corrected_labels_to_halve",
            }
        )
    tail = pd.DataFrame(
        {
            "ppi": [p.estimate for p in ppi],
            "ppi_low": [p.low for p in ppi],
            "ppi_high": [p.high for p in ppi],
            "ppi_labels_to_halve": pd.array([p.labels_to_halve for p in ppi], "Int64"),
        }
    )
    table = pd.concat([head.reset_index(drop=True), tail], axis=1)
    table["label"] = labels
    return table[TABLE_COLUMNS]
