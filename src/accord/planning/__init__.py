"""Before the study: how many items and raters a reliability study needs.

Closed forms where published (:func:`sample_size_icc`, :func:`sample_size_kappa`,
:func:`sample_size_alpha`) and simulated studies run through accord's own estimators and the
judge test (:func:`sample_size_simulated`).
"""

from .closed_form import (
    kappa_cell_probabilities,
    sample_size_alpha,
    sample_size_icc,
    sample_size_kappa,
)
from .panel_size import RatersPerItem, raters_per_item
from .results import SampleSize, SimulatedSampleSize
from .simulation import sample_size_simulated

__all__ = [
    "RatersPerItem",
    "SampleSize",
    "SimulatedSampleSize",
    "kappa_cell_probabilities",
    "raters_per_item",
    "sample_size_alpha",
    "sample_size_icc",
    "sample_size_kappa",
    "sample_size_simulated",
]
