r"""Consensus diagnostics: how contested each item is, how far each rating and rater strays.

For one item rated :math:`n` times, :math:`p_c = n_c / n` is the share of its ratings in
category :math:`c` (the rating being scored included). The item's **entropy**
:math:`e = -\sum_c p_c \log_2 p_c` says how contested it is; a rating in category :math:`c`
has **surprisal** :math:`s = -\log_2 p_c`, and its **deviation** :math:`d = s - e` says how much
more surprising it is than the item's average rating (the entropy is the mean surprisal of the
item's ratings). Each rater's deviations are then summarised, and each rater (a model judge is
one more rater) is set against the leave-one-out consensus of the others and, when known, a
gold label.

The work is two vectorised passes over the ratings: (1) item x category counts, from which
every item's entropy, mode and leave-one-out mode follow; (2) per-rating surprisal and
deviation, aggregated per rater with ``np.bincount``. No Python loop runs over items or raters.

The estimators here take ratings in memory (:func:`consensus_from_ratings`) or statistics
(:class:`PatternConsensus`: item counts or their count patterns, then the ratings counted by
(rater, group, label) or another pass over them); :func:`accord.consensus` picks the engine
and calls them.

Reference: Simon, S. (2010). Using entropy and the surprisal value to measure the degree of
agreement with the consensus finding. http://www.pmean.com/.
"""

from __future__ import annotations

from . import results
from ._assemble import RaterSums
from ._options import Options, check_choices
from ._ratings import consensus_from_ratings
from ._statistics import CountRows, PatternConsensus, RatingPass
from .gold import gold_labels
from .results import *  # noqa: F403  (its public names are the package's: see __all__)

__all__ = [
    "CountRows",
    "Options",
    "PatternConsensus",
    "RaterSums",
    "RatingPass",
    "check_choices",
    "consensus_from_ratings",
    "gold_labels",
]
__all__ += results.__all__
