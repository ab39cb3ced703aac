"""Agreement of pairwise preference judges, with and without ties, and the consistency of a
judge shown the same pair in both orders."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pandas as pd

from .._results import Record
from .._validate import require_columns
from ..data.frames import frame_to_pandas
from ..data.preferences import TIE, Preferences, preferences_in

__all__ = ["PairwisePreferenceAgreement", "pairwise_preference_agreement"]


@dataclasses.dataclass(frozen=True, slots=True)
class PairwisePreferenceAgreement(Record):
    """How often pairwise judges agree, and how often a judge keeps its verdict when the
    two answers swap places.

    Attributes
    ----------
    statistic : float
        Agreement with ties: the share of agreeing pairs among all pairs of judgments of
        the same item (question and pair of models) by two different judges; two ties
        agree. NaN when no item was judged by two judges.
    agreement_without_ties : float
        The same share among the pairs where neither judgment is a tie.
    n_pairs, n_pairs_without_ties : int
        The pairs of judgments each share counts.
    position_consistency : float
        Among the judgments of one judge on one item shown in both orders (each judgment in
        one order paired with each in the other), the share that prefer the same model (or
        both tie). NaN when no judge saw a pair in both orders.
    n_swapped : int
        (judge, item) cases judged in both orders.
    favours_first, favours_second : int
        Inconsistent pairs of judgments that preferred the answer shown first (second) both
        times: position bias.
    n_items, n_judges, n_judgments : int
        What was read.
    judges : pandas.DataFrame
        One row per judge: ``judge``, ``n_judgments``, ``n_swapped``, ``consistent``,
        ``swapped_pairs``, ``favours_first``, ``favours_second`` and ``position_consistency``
        (NaN for a judge who never saw a pair in both orders).
    method : str
        The definitions, in words.
    reason : str or None
        Why a share is NaN, when one is.
    """

    statistic: float
    agreement_without_ties: float
    n_pairs: int
    n_pairs_without_ties: int
    position_consistency: float
    n_swapped: int
    favours_first: int
    favours_second: int
    n_items: int
    n_judges: int
    n_judgments: int
    judges: pd.DataFrame
    method: str
    reason: str | None = None

    def _headline(self) -> str:
        return (
            f"agreement {self.statistic:.3f} with ties, {self.agreement_without_ties:.3f} "
            f"without; position consistency {self.position_consistency:.3f}"
        )

    def to_frame(self) -> pd.DataFrame:
        """The per-judge table."""
        return self.judges


def _pairs(frame: pd.DataFrame) -> tuple[int, int]:
    """Agreeing pairs and all pairs of judgments of one item by two different judges:
    C(n, 2) less the pairs within a judge, over items (all pairs) and over (item, label)
    (agreeing pairs)."""

    def within(keys: list[str]) -> int:
        n = frame.groupby(keys, sort=False).size().to_numpy(dtype=np.int64)
        return int((n * (n - 1) // 2).sum())

    total = within(["item"]) - within(["item", "judge"])
    agree = within(["item", "preferred"]) - within(["item", "judge", "preferred"])
    return agree, total


def _swaps(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (judge, item) judged in both orders: the cross-order pairs, those consistent,
    and those that favour the first (second) position both times."""
    frame = frame.assign(
        forward=frame["first"] <= frame["second"],
        low=np.minimum(frame["first"].to_numpy(), frame["second"].to_numpy()),
    )
    frame["high"] = np.where(frame["forward"], frame["second"], frame["first"])
    frame["pick"] = np.select(
        [frame["preferred"] == frame["low"], frame["preferred"] == frame["high"]],
        ["low", "high"],
        "tie",
    )
    counts = (
        frame.groupby(["judge", "item", "forward", "pick"], sort=False)
        .size()
        .unstack(["forward", "pick"], fill_value=0)
    )
    for order in (True, False):
        for pick in ("low", "high", "tie"):
            if (order, pick) not in counts.columns:
                counts[(order, pick)] = 0

    def c(order: bool, pick: str) -> Any:
        return counts[(order, pick)].to_numpy(dtype=np.int64)

    n_forward = c(True, "low") + c(True, "high") + c(True, "tie")
    n_back = c(False, "low") + c(False, "high") + c(False, "tie")
    out = pd.DataFrame(
        {
            "judge": counts.index.get_level_values("judge"),
            "swapped_pairs": n_forward * n_back,
            "consistent": sum(c(True, p) * c(False, p) for p in ("low", "high", "tie")),
            # Forward, the first shown is the low model; backward, the high one.
            "favours_first": c(True, "low") * c(False, "high"),
            "favours_second": c(True, "high") * c(False, "low"),
        }
    )
    return out[out["swapped_pairs"] > 0]


def _share(part: int, whole: int) -> float:
    return part / whole if whole else math.nan


def pairwise_preference_agreement(
    judgments: Any,
    *,
    question: str = "question_id",
    model_a: str = "model_a",
    model_b: str = "model_b",
    judge: str = "judge",
    winner: str = "winner",
    turn: str | None = "turn",
) -> PairwisePreferenceAgreement:
    """Agreement of pairwise preference judges with and without ties, and their position
    consistency.

    Each row is one judgment: a judge shown the answers of ``model_a`` (first) and
    ``model_b`` (second) to a question says which is better (``winner``: ``model_a``,
    ``model_b`` or a tie, as in :func:`accord.read_pairwise`). The item is the question
    (and turn) with the unordered pair of models.

    .. math::

        \\text{agreement} = \\frac{\\#\\{\\text{agreeing pairs}\\}}
        {\\#\\{\\text{pairs of judgments of one item by two judges}\\}}

    counted over every pair of judgments by two different judges (a judge who saw an item
    in both orders contributes both judgments); *without ties* counts only the pairs where
    neither judgment is a tie. These are the agreement rates of Zheng et al. (2023, Table
    3 and Figure 4), which count every pair of votes of the same question and models.
    *Position consistency* is the share of a judge's verdicts that stay the same when the
    two answers swap places (Zheng et al. 2023, Table 2): each judgment in one order is
    paired with each judgment of the same judge, item and pair in the other; an
    inconsistent pair that preferred the answer shown first both times *favours the
    first* position.

    Parameters
    ----------
    judgments : DataFrame-like
        A pandas, polars or pyarrow table, one judgment per row.
    question, model_a, model_b, judge, winner : str
        Column names.
    turn : str or None, default "turn"
        The turn column, when the table has one (each turn is its own item).

    Returns
    -------
    PairwisePreferenceAgreement

    Raises
    ------
    ColumnNotFoundError
        A column is missing.
    InvalidInputError
        A missing value, a model judged against itself, or a verdict that is neither model
        nor a tie (naming the rows).

    References
    ----------
    .. [1] Zheng, L., Chiang, W.-L., Sheng, Y., et al. (2023). Judging LLM-as-a-judge with
       MT-Bench and Chatbot Arena. NeurIPS 2023 Datasets and Benchmarks.
       https://arxiv.org/abs/2306.05685

    Examples
    --------
    >>> import pandas as pd, accord
    >>> judgments = pd.DataFrame({
    ...     "question_id": [81, 81, 81, 81],
    ...     "model_a": ["gpt-4", "llama-13b", "gpt-4", "llama-13b"],
    ...     "model_b": ["llama-13b", "gpt-4", "llama-13b", "gpt-4"],
    ...     "judge": ["expert_0", "expert_1", "gpt-4", "gpt-4"],
    ...     "winner": ["model_a", "model_b", "model_a", "model_a"]})
    >>> result = accord.pairwise_preference_agreement(judgments)
    >>> result.statistic, result.n_pairs, result.position_consistency, result.favours_first
    (0.6, 5, 0.0, 1)
    """
    frame = judgments if isinstance(judgments, pd.DataFrame) else frame_to_pandas(judgments)
    keys = (question, model_a, model_b, judge, winner)
    require_columns(list(keys), list(frame.columns))
    table = {k: frame[k].tolist() for k in (*keys, turn) if k is not None and k in frame.columns}
    return _measure(preferences_in(table, keys, turn=turn))


def _measure(prefs: Preferences) -> PairwisePreferenceAgreement:
    """The shares and counts of :class:`PairwisePreferenceAgreement` from the judgments."""
    frame = pd.DataFrame(
        {
            "item": prefs.items(),
            "judge": prefs.judge,
            "first": prefs.first,
            "second": prefs.second,
            "preferred": prefs.preferred,
        }
    )
    agree, total = _pairs(frame)
    agree_nt, total_nt = _pairs(frame[frame["preferred"] != TIE])
    swaps = _swaps(frame)
    per_judge = (
        swaps.groupby("judge", sort=True)
        .agg(
            n_swapped=("swapped_pairs", "size"),
            swapped_pairs=("swapped_pairs", "sum"),
            consistent=("consistent", "sum"),
            favours_first=("favours_first", "sum"),
            favours_second=("favours_second", "sum"),
        )
        .reindex(sorted(set(prefs.judge.tolist())), fill_value=0)
    )
    per_judge.index.name = "judge"
    per_judge.insert(0, "n_judgments", frame.groupby("judge").size())
    per_judge["position_consistency"] = [
        _share(int(c), int(n))
        for c, n in zip(per_judge["consistent"], per_judge["swapped_pairs"], strict=True)
    ]
    n_cross = int(swaps["swapped_pairs"].sum())
    reasons = []
    if not total:
        reasons.append("no item was judged by two judges")
    elif not total_nt:
        reasons.append("every pair of judgments of an item includes a tie")
    if not n_cross:
        reasons.append("no judge saw a pair of answers in both orders")
    return PairwisePreferenceAgreement(
        statistic=_share(agree, total),
        agreement_without_ties=_share(agree_nt, total_nt),
        n_pairs=total,
        n_pairs_without_ties=total_nt,
        position_consistency=_share(int(swaps["consistent"].sum()), n_cross),
        n_swapped=len(swaps),
        favours_first=int(swaps["favours_first"].sum()),
        favours_second=int(swaps["favours_second"].sum()),
        n_items=int(frame["item"].nunique()),
        n_judges=int(frame["judge"].nunique()),
        n_judgments=prefs.n_judgments,
        judges=per_judge.reset_index(),
        method=(
            "pairs of judgments of one item (question and unordered pair of models) by two "
            "different judges, every judgment counted; two ties agree; without ties: pairs "
            "with no tie; position consistency: a judge's verdicts on one item in the two "
            "orders, each judgment in one order paired with each in the other"
        ),
        reason="; ".join(reasons) or None,
    )
