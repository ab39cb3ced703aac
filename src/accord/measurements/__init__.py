"""Method comparison for continuous measurements: Bland-Altman limits of agreement and
Lin's concordance correlation coefficient."""

from __future__ import annotations

from .comparison import MethodComparison, bland_altman
from .concordance import ConcordanceCorrelation, concordance_correlation
from .limits import BlandAltman

__all__ = [
    "BlandAltman",
    "ConcordanceCorrelation",
    "MethodComparison",
    "bland_altman",
    "concordance_correlation",
]
