"""What the section builders share: the input, the options, a cache of results, and a way
to reach each capability by its public name (a section appears only when its capability is
importable)."""

from __future__ import annotations

import dataclasses
import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from ..data.ratings import Ratings

__all__ = ["Context", "SectionUnavailable", "api"]

#: Where each public name lives, tried after ``accord.<name>``.
_HOMES: dict[str, tuple[str, ...]] = {
    "agreement": ("accord.agreement.summary", "accord.agreement"),
    "pairwise_agreement": ("accord.agreement.pairwise", "accord.agreement"),
    "cohen_kappa": ("accord.agreement.two_raters", "accord.agreement"),
    "scott_pi": ("accord.agreement.two_raters", "accord.agreement"),
    "informational_agreement": ("accord.agreement.two_raters", "accord.agreement"),
    "best_dichotomization": ("accord.agreement.two_raters", "accord.agreement"),
    "specific_agreement": ("accord.agreement.specific", "accord.agreement"),
    "kappa_vs_negatives": ("accord.agreement.specific", "accord.agreement"),
    "fleiss_kappa": ("accord.agreement.many_raters",),
    "krippendorff_alpha": ("accord.agreement.many_raters",),
    "percent_agreement": ("accord.agreement.many_raters",),
    "gwet_ac1": ("accord.agreement.many_raters",),
    "brennan_prediger": ("accord.agreement.many_raters",),
    "consensus": ("accord.consensus",),
    "calibrate_panel": ("accord.calibration", "accord.calibration.panel"),
    "normalized_cross_entropy": ("accord.confidence",),
    "calibration_metrics": ("accord.confidence",),
    "reliability_diagram": ("accord.confidence",),
    "rater_differences": ("accord.agreement.raters",),
    "rater_permutation_test": ("accord.agreement.raters",),
    "wilson_interval": ("accord.confidence",),
    "span_agreement": ("accord.spans",),
}


def api(name: str) -> Callable[..., Any] | None:
    """The public function ``name`` (``accord.<name>`` or its module), or None when absent."""
    import accord

    found = getattr(accord, name, None)
    if callable(found):
        return found  # type: ignore[no-any-return]
    for module in _HOMES.get(name, ()):
        try:
            mod = importlib.import_module(module)
        except Exception:  # a capability that does not import is a capability not present
            continue
        found = getattr(mod, name, None)
        if callable(found):
            return found  # type: ignore[no-any-return]
    return None


class SectionUnavailable(Exception):
    """A section whose data is present but whose capability is not (the reason says which)."""


@dataclasses.dataclass
class Context:
    """Input and options of one report, and results computed once and shared by sections.

    Attributes
    ----------
    ratings : Ratings or None
        The labels, when a label column was given.
    frame : pandas.DataFrame or None
        The rows read (for score, confidence and correctness columns).
    item, rater, label : str or None
        Column names.
    scores : tuple of str
        Score columns for panel calibration.
    score_confidence : mapping of str to str
        The confidence column (``c > 0``, inverse variances) of each score column that has one.
    confidence, correct : str or None
        Confidence and correctness columns for confidence calibration.
    positive : object
        The category treated as positive for two-category measures (None: chosen).
    confidence_level : float
    n_boot : int
        Bootstrap replicates where a statistic has no analytic SE.
    seed : int
        Seed of every bootstrap (the report is deterministic).
    source : str
        Where the data came from.
    gold : str or None
        The gold-label column.
    gold_labels : pandas.Series or None
        The gold label of each item that has one, indexed by item id.
    spans : Spans or None
        Span annotations, when the report is about spans.
    """

    ratings: Ratings | None
    frame: pd.DataFrame | None
    item: str | None
    rater: str | None
    label: str | None
    scores: tuple[str, ...] = ()
    score_confidence: Mapping[str, str] = dataclasses.field(default_factory=dict)
    confidence: str | None = None
    correct: str | None = None
    positive: Any = None
    confidence_level: float = 0.95
    n_boot: int = 2000
    seed: int = 0
    source: str = ""
    gold: str | None = None
    gold_labels: pd.Series | None = None
    spans: Any = None
    _cache: dict[str, Any] = dataclasses.field(default_factory=dict, repr=False)

    def cached(self, key: str, compute: Callable[[], Any]) -> Any:
        """``compute()`` once per report, degenerate-data warnings silenced (the report
        shows each result's ``reason`` instead)."""
        if key not in self._cache:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self._cache[key] = compute()
        return self._cache[key]

    @property
    def numeric(self) -> bool:
        """Whether the labels are measurements (interval or ratio level)."""
        return self.ratings is not None and self.ratings.level in ("interval", "ratio")

    @property
    def level_pct(self) -> str:
        """The confidence level as a percentage, e.g. ``"95%"``."""
        return f"{100 * self.confidence_level:g}%"

    def need(self, name: str, what: str) -> Callable[..., Any]:
        """The public function ``name``, or :class:`SectionUnavailable` naming ``what``."""
        found = api(name)
        if found is None:
            raise SectionUnavailable(f"{what} needs accord.{name}, which is not available")
        return found
