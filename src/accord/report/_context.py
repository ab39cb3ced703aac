"""What the section builders share: the input, the options, and the results computed once
(each from the library's public functions, with the engine the report was asked for)."""

from __future__ import annotations

import dataclasses
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from .._methods import level_pct
from ..data.ratings import Ratings, ReadReport
from ._blocks import Section, fmt_ci

__all__ = ["Context", "SectionUnavailable"]


class SectionUnavailable(Exception):
    """A section whose data is present but which cannot be built (the reason says why)."""


@dataclasses.dataclass
class Context:
    """Input and options of one report, and results computed once and shared by sections.

    Attributes
    ----------
    ratings : Ratings or None
        The labels, when a label column was given and the engine is the memory one.
    frame : pandas.DataFrame or None
        The rows read (for score, confidence and correctness columns; memory engine).
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
    relations : pandas.DataFrame or None
        The relations between the spans (as :func:`accord.relation_agreement` takes them).
    engine : {"memory", "stream", "dask"}
        Where the statistics are computed; with "stream" or "dask" the ratings are read from
        ``path`` by the engine and never held in memory.
    path : str or path or None
        The ratings file(s), for the stream and dask engines.
    level : str
        Level of measurement of the labels.
    duplicates : {"raise", "first", "last"}
        How the stream and dask engines resolve an item rated twice by one rater.
    categories, na_values, labels_as
        How the engines read the labels (as :meth:`accord.Ratings.from_long`).
    judge : object or None
        The rater whose place is in question (the judge section), as named in the ratings;
        or a list of such raters (the section is on the first; none is counted as a human).
    multi_label : bool
        Each (item, rater) has a set of labels: the agreement table holds the set
        coefficients (Krippendorff's alpha with the MASI distance, the multi-valued alpha).
    humans : tuple or None
        The judge's panel of humans (None: every rater that is not a judge).
    epsilon : float or None
        The alternative annotator test's margin for the judge section.
    pairwise : pandas.DataFrame or None
        A pairwise judge log (one judgment a row), for the section "Is the judge biased?".
    trial : str or None
        The column naming the run of each label of a judge run several times, for the
        section "Does the judge agree with itself?".
    time : str or None
        The column of the time of each rating, for the section "Does the judge drift over
        time?".
    window : str
        The length of its windows (``"7d"``, ``"12h"``, ``"2w"``).
    facets : tuple of str
        Facet columns (an occasion, a site) for the section "Designs with several facets".
    facet_names : mapping
        The facet each of those columns was named (``o`` of ``o=occasion``); a column not
        in it is named from the design read from the data (``s`` or ``o``).
    origin : Source or None
        The :class:`~accord.Source` the stream and dask engines read (the path, how it
        reads and the engine), which every section's front-door call takes.
    weights : str or None
        Weights of the agreement table's weighted rows (None: its default).
    inference : mapping
        The agreement table's ``se``, ``rater_population_size``, ``test_value`` and
        ``alternative``, as :func:`accord.agreement` takes them.
    regression : {"passing-bablok", "deming"}
        The regression of the method-comparison section.
    error_ratio : float
        Deming's ratio of the error variances (x to y).
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
    relations: Any = None
    engine: str = "memory"
    duplicates: str = "raise"
    path: str | os.PathLike[str] | None = None
    level: str = "nominal"
    categories: Sequence[Any] | None = None
    na_values: Sequence[str] | None = None
    labels_as: str = "auto"
    multi_label: bool = False
    judge: Any = None
    humans: tuple[Any, ...] | None = None
    epsilon: float | None = None
    pairwise: pd.DataFrame | None = None
    trial: str | None = None
    time: str | None = None
    window: str = "7d"
    facets: tuple[str, ...] = ()
    facet_names: Mapping[str, str] = dataclasses.field(default_factory=dict)
    origin: Any = None
    weights: str | None = None
    inference: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    regression: str = "passing-bablok"
    error_ratio: float = 1.0
    _cache: dict[str, Any] = dataclasses.field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.ratings is not None:
            self.level = self.ratings.level
            self.multi_label = self.multi_label or bool(self.ratings.multi_label)
        if self.frame is not None and not self.needs_rows:
            self.frame = None  # every section reads the ratings: the rows are let go

    @property
    def needs_rows(self) -> bool:
        """Whether a section reads the rows beside the ratings: without labels, at the
        interval and ratio levels (the replicates), and for score, confidence, trial, time
        and facet columns (the gold labels are taken from the rows before)."""
        extra = self.scores or self.confidence or self.trial or self.time or self.facets
        return bool(extra) or self.ratings is None or self.level in ("interval", "ratio")

    def cached(self, key: str, compute: Callable[[], Any]) -> Any:
        """``compute()`` once per report, degenerate-data warnings silenced (the report
        shows each result's ``reason`` instead)."""
        if key not in self._cache:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self._cache[key] = compute()
        return self._cache[key]

    def let_go(self, key: str) -> None:
        """Drop the cached result ``key`` once no section after the one just built reads it
        (its memory is free for the next); with the memory engine only, where reading it
        again would compute it from the ratings in memory, never scan the files again."""
        if self.in_memory:
            self._cache.pop(key, None)

    @property
    def in_memory(self) -> bool:
        """Whether the ratings are held in memory (the memory engine)."""
        return self.engine == "memory"

    @property
    def has_labels(self) -> bool:
        """Whether the report is on labels (a label column, or ratings given)."""
        return self.ratings is not None or (not self.in_memory and self.label is not None)

    @property
    def numeric(self) -> bool:
        """Whether the labels are measurements (interval or ratio level)."""
        return self.has_labels and self.level in ("interval", "ratio")

    @property
    def level_pct(self) -> str:
        """The confidence level as a percentage, e.g. ``"95%"``."""
        return level_pct(self.confidence_level)

    def ci_text(self, low: Any, high: Any) -> str:
        """An interval as the report words it, e.g. ``"95% CI 0.32 to 0.54"``."""
        return f"{self.level_pct} CI {fmt_ci(low, high)}"

    @property
    def data(self) -> Any:
        """What the public functions take as their data: the ratings, or the source the
        engines read."""
        return self.ratings if self.in_memory else self.origin

    def agreement_table(self) -> Any:
        """``accord.agreement`` on the ratings, computed once: the library's default
        coefficients, which are those the page shows (for measurements the ICCs and alpha at
        the data's level, :func:`~accord._verdict.shown_coefficients`). Named explicitly,
        they would bring alpha on the nominal scale too, a row the page leaves out (a tenth
        of a second on 1M distinct scores)."""
        from ..agreement.inference import Inference
        from ..front.agreement import agreement

        sets = self.multi_label or bool(getattr(self.ratings, "multi_label", False))
        chosen: dict[str, Any] = {"multi_label": True} if sets else {}
        if self.weights is not None:
            chosen["weights"] = self.weights
        return self.cached(
            "agreement",
            lambda: agreement(self.data, **chosen, inference=Inference(**self.inference)),
        )

    @property
    def se_kind(self) -> str:
        """The standard error asked for: ``"raters"``, ``"items"`` or ``"unconditional"``."""
        return str(self.inference.get("se", "raters"))

    @property
    def tested(self) -> bool:
        """Whether the p-values test another value than 0, or one side."""
        value = float(self.inference.get("test_value", 0.0))
        return value != 0.0 or self.inference.get("alternative", "two-sided") != "two-sided"

    def consensus_result(self) -> Any:
        """``accord.consensus`` on the ratings (with the gold labels when given), computed
        once, kept without its per-rating table (no section reads it: one row a rating; in
        memory it is not built)."""
        from ..consensus import consensus_from_ratings
        from ..front.consensus import consensus

        gold: dict[str, Any] = {} if self.gold_labels is None else {"gold": self.gold_labels}

        def compute() -> Any:
            if self.ratings is not None:
                return consensus_from_ratings(self.ratings, rows=False, **gold)
            result = consensus(self.data, **gold)
            rows = getattr(result, "ratings", None)
            if isinstance(rows, pd.DataFrame) and dataclasses.is_dataclass(result):
                result = dataclasses.replace(result, ratings=rows.iloc[:0].copy())
            return result

        return self.cached("consensus", compute)

    @property
    def read_report(self) -> ReadReport:
        """What was read: the ratings' report, or the engine's."""
        if self.ratings is not None:
            return self.ratings.report
        report: ReadReport = self.agreement_table().report
        return report

    @property
    def n_raters(self) -> int:
        """The number of raters who gave a rating (as the read report counts them, with
        every engine: a rater of missing labels only is not one)."""
        return int(self.read_report.raters)

    @property
    def label_categories(self) -> tuple[Any, ...]:
        """The categories of the labels, in order."""
        if self.ratings is not None:
            return tuple(self.ratings.categories)
        return tuple(self.consensus_result().categories)

    def without_data(self, section: str, title: str) -> Section | None:
        """A section whose data frame or ratings are absent: left out with the memory engine
        (the data was not given), :meth:`unavailable` with the others."""
        return None if self.in_memory else self.unavailable(section, title)

    def unavailable(self, section: str, title: str) -> Section:
        """The section as the stream and dask engines show it: one sentence saying why."""
        return Section(
            section,
            title,
            f"Not available with the {self.engine} engine: needs per-rating data (run the "
            "report with the memory engine for this section).",
            (),
        )
