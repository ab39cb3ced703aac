"""accord: how far can you trust your raters?

Agreement between two raters and among many, consensus diagnostics, panel calibration with
confidence and confidence calibration, with uncertainty, from ten rows to hundreds of millions.

>>> import accord
>>> r = accord.Ratings.from_wide([["a", "a", "b"], ["b", "b", "b"], ["a", "a", "a"]])
>>> round(accord.fleiss_kappa(r).statistic, 4)
0.55
"""

from __future__ import annotations

from ._errors import (
    AccordError,
    AccordWarning,
    ColumnNotFoundError,
    ConvergenceError,
    DegenerateDataWarning,
    DroppedDataWarning,
    DuplicateRatingError,
    InvalidInputError,
    MissingDependencyError,
)
from ._results import Coefficient, ConfidenceInterval
from .agreement import FleissKappa, fleiss_kappa, krippendorff_alpha
from .information import conditional_entropy, entropy, mutual_information, surprisal
from .io import read_ratings
from .ratings import ContingencyTable, Ratings, ReadReport
from .stats import ItemCategoryCounts, PairTables, RaterCategoryCounts

__version__ = "0.1.0"

__all__ = [
    "AccordError",
    "AccordWarning",
    "Coefficient",
    "ColumnNotFoundError",
    "ConfidenceInterval",
    "ContingencyTable",
    "ConvergenceError",
    "DegenerateDataWarning",
    "DroppedDataWarning",
    "DuplicateRatingError",
    "FleissKappa",
    "InvalidInputError",
    "ItemCategoryCounts",
    "MissingDependencyError",
    "PairTables",
    "RaterCategoryCounts",
    "Ratings",
    "ReadReport",
    "__version__",
    "conditional_entropy",
    "entropy",
    "fleiss_kappa",
    "krippendorff_alpha",
    "mutual_information",
    "read_ratings",
    "surprisal",
]
