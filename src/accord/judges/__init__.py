"""Can a judge (a model, a device, a cheaper annotator) replace a human rater?"""

from .alternative_annotator import (
    AltTest,
    AltTestRanking,
    alt_test,
    benjamini_yekutieli,
    human_panel,
)
from .beside_humans import JudgeAgreement, JudgeVsReference, judge_agreement
from .corrected import (
    CorrectedDistribution,
    CorrectedRate,
    corrected_distribution,
    corrected_distribution_from_counts,
    corrected_rate,
    corrected_rate_from_counts,
)
from .judged_counts import JudgeCounts
from .ppi import (
    PredictionMoments,
    PredictionPoweredMean,
    prediction_powered_difference,
    prediction_powered_mean,
    prediction_powered_mean_from_moments,
)
from .rates import JudgeRates, judge_rates

__all__ = [
    "AltTest",
    "AltTestRanking",
    "CorrectedDistribution",
    "CorrectedRate",
    "JudgeAgreement",
    "JudgeCounts",
    "JudgeRates",
    "JudgeVsReference",
    "PredictionMoments",
    "PredictionPoweredMean",
    "alt_test",
    "benjamini_yekutieli",
    "corrected_distribution",
    "corrected_distribution_from_counts",
    "corrected_rate",
    "corrected_rate_from_counts",
    "human_panel",
    "judge_agreement",
    "judge_rates",
    "prediction_powered_difference",
    "prediction_powered_mean",
    "prediction_powered_mean_from_moments",
]
