"""Can a judge (a model, a device, a cheaper annotator) replace a human rater?"""

from .alternative_annotator import (
    AltTest,
    AltTestRanking,
    alt_test,
    benjamini_yekutieli,
    human_panel,
)
from .beside_humans import JudgeAgreement, JudgeVsReference, judge_agreement

__all__ = [
    "AltTest",
    "AltTestRanking",
    "JudgeAgreement",
    "JudgeVsReference",
    "alt_test",
    "benjamini_yekutieli",
    "human_panel",
    "judge_agreement",
]
