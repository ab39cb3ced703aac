"""Can a judge (a model, a device, a cheaper annotator) replace a human rater?"""

from .alternative_annotator import AltTest, AltTestRanking, alt_test, benjamini_yekutieli

__all__ = ["AltTest", "AltTestRanking", "alt_test", "benjamini_yekutieli"]
