"""Rater models: Dawid-Skene, one-coin, MACE and GLAD; what each rater is worth, what each
item's label probably is, and which items need another look."""

from .model import MODELS, rater_model, rater_model_from_codes, rater_model_from_counts
from .results import ModelReliability, RaterModel

__all__ = [
    "MODELS",
    "ModelReliability",
    "RaterModel",
    "rater_model",
    "rater_model_from_codes",
    "rater_model_from_counts",
]
