"""What a sample-size plan returns: the number of items, the curve behind it, the assumptions."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import pandas as pd

from .._results import Record

__all__ = ["SampleSize", "SimulatedSampleSize"]

#: What each goal asks of the study, in words (for the headline).
GOALS = {
    "power": "a test with the stated power",
    "width": "an interval of the stated width",
    "significance": "a significant difference from the smallest acceptable value",
}


@dataclasses.dataclass(frozen=True, slots=True)
class SampleSize(Record):
    """The number of items a reliability study needs, from a published closed form.

    Attributes
    ----------
    coefficient : str
        ``"icc"``, ``"cohen_kappa"`` or ``"krippendorff_alpha"``.
    goal : str
        ``"power"`` (a test of ``rho0`` against ``rho1``), ``"width"`` (a confidence
        interval of a given width) or ``"significance"`` (Krippendorff's alpha above its
        smallest acceptable value).
    n_items : int
        The required number of items: the formula's value rounded up.
    n_raters : int
        Raters rating every item.
    n_exact : float
        The formula's value before rounding (for Krippendorff's alpha: of items).
    curve : pandas.DataFrame
        ``n_items`` and what the study attains with that many items under the assumptions:
        ``power``, ``width`` or ``significance`` (the smallest significance level reached).
    assumptions : mapping
        The options the plan was made with, by keyword (``rho0``, ``rho1``, ``alpha``, ...).
    method : str
        The formula in words, with its published source.
    n_values : int or None
        For Krippendorff's alpha, the number of values (codings) the published table gives;
        None otherwise.
    """

    coefficient: str
    goal: str
    n_items: int
    n_raters: int
    n_exact: float
    curve: pd.DataFrame
    assumptions: Mapping[str, Any]
    method: str
    n_values: int | None = None

    def _headline(self) -> str:
        test = self.assumptions.get("hypotheses")
        return (
            f"{self.n_items} items rated by {self.n_raters} raters for "
            f"{GOALS.get(self.goal, self.goal)} ({self.coefficient})"
            + ("" if test is None else f": {test}")
        )

    def to_frame(self) -> pd.DataFrame:
        """The curve (a copy)."""
        return self.curve.copy()


@dataclasses.dataclass(frozen=True, slots=True)
class SimulatedSampleSize(Record):
    """The number of items a study needs, from simulated studies of each size.

    Attributes
    ----------
    coefficient : str
        The estimator run on each simulated study (``"fleiss_kappa"``,
        ``"krippendorff_alpha"``, ``"cohen_kappa"``, ``"icc"`` or ``"alt_test"``).
    goal : str
        ``"power"`` or ``"width"``.
    n_items : int or None
        The smallest number of items in the grid that meets the goal; None when none does
        (``reason`` says so).
    n_raters : int
    curve : pandas.DataFrame
        One row per number of items: ``n_items``, ``mean_estimate`` (mean coefficient over
        the studies where it is defined; for ``alt_test`` the judge's advantage
        probability), ``mean_width`` (mean width of its interval at ``level``), ``power``
        (share of studies that reject the null value, or in which the judge passes),
        ``power_se`` (its Monte-Carlo standard error), ``n_defined`` (studies whose
        coefficient was defined) and ``meets_goal``.
    n_simulations : int
        Studies simulated at each number of items.
    assumptions : mapping
        The model and the goal, by keyword.
    method : str
        The model, the estimator and the decision rule in words.
    reason : str
        Why ``n_items`` is None; empty otherwise.
    """

    coefficient: str
    goal: str
    n_items: int | None
    n_raters: int
    curve: pd.DataFrame
    n_simulations: int
    assumptions: Mapping[str, Any]
    method: str
    reason: str = ""

    def _headline(self) -> str:
        if self.n_items is None:
            return f"no number of items in the grid meets the goal ({self.coefficient})"
        return (
            f"{self.n_items} items rated by {self.n_raters} raters for "
            f"{GOALS.get(self.goal, self.goal)} ({self.coefficient}, "
            f"{self.n_simulations} simulated studies per size)"
        )

    def to_frame(self) -> pd.DataFrame:
        """The curve (a copy)."""
        return self.curve.copy()
