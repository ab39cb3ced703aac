"""The result of a rater model: per item, per rater, the agreement the model implies."""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

import numpy as np
import pandas as pd

from .._errors import InvalidInputError, bad_choice, bad_parameter
from .._methods import MethodsFormat, rater_model_methods
from .._results import Record
from .._types import FloatArray

__all__ = ["ModelReliability", "RaterModel"]

Table = Literal["raters", "items", "review"]


@dataclasses.dataclass(frozen=True, slots=True)
class ModelReliability(Record):
    """Agreement read off a fitted rater model, beside the agreement observed.

    Attributes
    ----------
    kappa_truth : float
        Mean over raters of each rater's Cohen kappa with the latent truth (per rater in
        :attr:`RaterModel.raters`).
    expected_pairwise_kappa, expected_pairwise_low, expected_pairwise_high : float
        The mean Cohen kappa of two raters drawn from the fitted confusion matrices, with its
        bootstrap interval (NaN without a bootstrap).
    expected_fleiss_kappa, expected_fleiss_low, expected_fleiss_high : float
        The same with the chance agreement of the pooled label shares (Fleiss' chance model).
    observed_fleiss_kappa : float
        Fleiss' kappa of the ratings themselves (items with two or more ratings).
    """

    kappa_truth: float
    expected_pairwise_kappa: float
    expected_pairwise_low: float
    expected_pairwise_high: float
    expected_fleiss_kappa: float
    expected_fleiss_low: float
    expected_fleiss_high: float
    observed_fleiss_kappa: float

    def _headline(self) -> str:
        return (
            f"model kappa with truth {self.kappa_truth:.3f}; expected Fleiss "
            f"{self.expected_fleiss_kappa:.3f} vs observed {self.observed_fleiss_kappa:.3f}"
        )


@dataclasses.dataclass(frozen=True, slots=True)
class RaterModel(Record):
    """A fitted rater model (Dawid-Skene, one-coin, MACE or GLAD).

    Attributes
    ----------
    model : str
        ``"dawid-skene"``, ``"one-coin"``, ``"mace"`` or ``"glad"``.
    categories : tuple
        The labels, in the order of the posterior columns and the confusion matrices.
    items : pandas.DataFrame
        One row per item: ``item``, ``label`` (the most probable), ``probability`` (its
        posterior) with ``probability_low``/``probability_high`` (bootstrap; NaN without),
        ``entropy`` (of the posterior, bits), ``gold`` (the known label, or missing),
        ``difficulty`` (GLAD: ``1 / exp(beta)``), and ``p_<label>`` for every label.
        ``label`` and ``gold`` are categorical over :attr:`categories` (one byte a row).
    raters : pandas.DataFrame
        One row per rater: ``rater``, ``n_ratings``, ``accuracy`` (expected share of the
        rater's labels that are right) with its interval, ``sensitivity`` and
        ``specificity`` (two labels; the second is positive) with intervals, ``competence``
        (MACE's theta; GLAD's ability alpha) with its interval, ``spammer_score``
        (Raykar & Yu 2012), ``kappa_truth`` (Cohen's kappa with the latent truth) with its
        interval, and with gold ``gold_n`` and ``gold_accuracy`` (the rater's labels of the
        gold items alone).
    review : pandas.DataFrame
        The items that need another look, best first: ``rank``, ``item``, ``label``
        (categorical), ``entropy``, ``expected_entropy`` (after one more label from the
        panel's average rater), ``expected_reduction``, and ``entropy_rank`` (the item's
        rank by entropy alone, 1 the most uncertain); gold items are left out.
    confusion : ndarray, shape (n_raters, q, q)
        ``confusion[r, c, l]``: the probability that rater ``r`` says ``l`` of an item whose
        true label is ``c`` (rows sum to 1).
    gold_confusion : ndarray or None
        The same from the gold items alone (NaN where the rater met no gold item of the
        class); None without gold.
    prevalence : ndarray, shape (q,)
        Mean posterior over the rated items.
    reliability : ModelReliability
    log_likelihood : tuple of float
        The log-likelihood after each EM iteration (GLAD: the log posterior).
    converged : bool
    n_items, n_raters, n_gold, n_bootstrap : int
    n_ratings : float
    level : float
        Confidence level of the intervals.
    method : str
        The model and its options in words.
    report : ReadReport or None
        What was read, when the model was fitted to ratings.
    interval : str
        Where the raters' accuracy intervals come from: ``"bootstrap"`` or
        ``"observed-information"`` (then the raters table has ``accuracy_se``).
    """

    model: str
    categories: tuple[Any, ...]
    items: pd.DataFrame
    raters: pd.DataFrame
    review: pd.DataFrame
    confusion: FloatArray
    gold_confusion: FloatArray | None
    prevalence: FloatArray
    reliability: ModelReliability
    log_likelihood: tuple[float, ...]
    converged: bool
    n_items: int
    n_raters: int
    n_gold: int
    n_bootstrap: int
    n_ratings: float
    level: float
    method: str
    report: Any = None
    interval: str = "bootstrap"

    @property
    def n_iter(self) -> int:
        """EM iterations run."""
        return len(self.log_likelihood)

    def _headline(self) -> str:
        best = self.raters.sort_values("accuracy", ascending=False).iloc[0]
        return (
            f"{self.model}: {self.n_items} items, {self.n_raters} raters, "
            f"{self.n_iter} EM iterations; most accurate {best['rater']} "
            f"({best['accuracy']:.3f})"
        )

    def to_frame(self, table: Table = "raters") -> pd.DataFrame:
        """A copy of the ``"raters"``, ``"items"`` or ``"review"`` table."""
        if table not in ("raters", "items", "review"):
            raise InvalidInputError(
                bad_choice("to_frame", "table", ("raters", "items", "review"), table)
            )
        frame: pd.DataFrame = getattr(self, table)
        return frame.copy()

    def next_items(self, n: int = 10) -> pd.DataFrame:
        """The ``n`` items where one more label is expected to reduce the uncertainty of
        the aggregate label most (the head of :attr:`review`)."""
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
            raise InvalidInputError(bad_parameter("next_items", "n", "an integer >= 1", n))
        return self.review.head(int(n)).reset_index(drop=True)

    def confusion_frame(self, rater: Any) -> pd.DataFrame:
        """One rater's confusion matrix: rows the true label, columns the label given."""
        names = self.raters["rater"].tolist()
        hits = [k for k, r in enumerate(names) if r == rater or str(r) == str(rater)]
        if not hits:
            raise InvalidInputError(f"rater {rater!r} is not a rater of this model")
        labels = list(self.categories)
        return pd.DataFrame(self.confusion[hits[0]], index=labels, columns=labels)

    def methods_text(self, format: MethodsFormat = "text") -> str:
        """A methods paragraph with its references; every number comes from this result."""
        return rater_model_methods(self, format)
