"""Agreement of pairwise preference judges, with and without ties, and the consistency of a
judge shown the same pair in both orders, with bootstrap intervals over questions."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Never

import numpy as np
import pandas as pd

from .._bootstrap import bootstrap_interval
from .._interval import check_confidence_level
from .._results import Record
from .._types import FloatArray, IntArray, RngLike
from .._validate import require_columns
from ..agreement.inference import NO_REPLICATES, bootstrap_drawn, check_n_boot
from ..data.frames import frame_to_pandas
from ..data.preferences import TIE, Preferences, preferences_in
from ..data.source import refuse_read_options

__all__ = [
    "PairwisePreferenceAgreement",
    "judgment_frame",
    "pairwise_preference_agreement",
    "swap_counts",
]

#: The three shares, as the intervals' reasons name them, and why a resample can leave one
#: undefined.
SHARES = (
    ("agreement with ties", "no item judged by two judges"),
    ("agreement without ties", "no pair of judgments without a tie"),
    ("position consistency", "no pair judged in both orders"),
)


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
    ci_low, ci_high : float
        Bootstrap interval of ``statistic`` (agreement with ties), at ``confidence_level``.
    without_ties_ci_low, without_ties_ci_high : float
        Bootstrap interval of ``agreement_without_ties``.
    position_consistency_ci_low, position_consistency_ci_high : float
        Bootstrap interval of ``position_consistency``.
    confidence_level : float
        The level of the three intervals.
    n_boot : int
        Bootstrap replicates drawn (0: none, the intervals are NaN).
    n_questions : int
        The questions: the units the bootstrap resamples, each with all its judgments
        (every turn and pair of models of it).
    ci_method : str
        How the intervals are computed, in words.
    ci_reason : str or None
        Why an interval is NaN, when one is, and how many resamples left a share
        undefined when some did (the interval then comes from the others).
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
    ci_low: float = math.nan
    ci_high: float = math.nan
    without_ties_ci_low: float = math.nan
    without_ties_ci_high: float = math.nan
    position_consistency_ci_low: float = math.nan
    position_consistency_ci_high: float = math.nan
    confidence_level: float = 0.95
    n_boot: int = 0
    n_questions: int = 0
    ci_method: str = NO_REPLICATES
    ci_reason: str | None = None

    def _headline(self) -> str:
        return (
            f"agreement {self.statistic:.3f} with ties, {self.agreement_without_ties:.3f} "
            f"without; position consistency {self.position_consistency:.3f}"
        )

    def to_frame(self) -> pd.DataFrame:
        """The per-judge table."""
        return self.judges


def _per_question(codes: Any, counts: Any, n_questions: int) -> IntArray:
    """``counts`` summed per question code (exact integers)."""
    out = np.zeros(n_questions, dtype=np.int64)
    np.add.at(out, np.asarray(codes, dtype=np.int64), np.asarray(counts, dtype=np.int64))
    return out


def _pairs(frame: pd.DataFrame, n_questions: int) -> tuple[IntArray, IntArray]:
    """Per question: agreeing pairs and all pairs of judgments of one item by two different
    judges: C(n, 2) less the pairs within a judge, over items (all pairs) and over (item,
    label) (agreeing pairs). An item belongs to one question."""

    def within(keys: list[str]) -> IntArray:
        sizes = frame.groupby(["question", *keys], sort=False).size()
        n = sizes.to_numpy(dtype=np.int64)
        return _per_question(
            sizes.index.get_level_values("question"), n * (n - 1) // 2, n_questions
        )

    total = within(["item"]) - within(["item", "judge"])
    agree = within(["item", "preferred"]) - within(["item", "judge", "preferred"])
    return agree, total


def swap_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (judge, item) judged in both orders: the item's question, the cross-order pairs,
    those consistent, and those that favour the first (second) position both times."""
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
        frame.groupby(["judge", "question", "item", "forward", "pick"], sort=False)
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
            "question": counts.index.get_level_values("question"),
            "swapped_pairs": n_forward * n_back,
            "consistent": sum(c(True, p) * c(False, p) for p in ("low", "high", "tie")),
            # Forward, the first shown is the low model; backward, the high one.
            "favours_first": c(True, "low") * c(False, "high"),
            "favours_second": c(True, "high") * c(False, "low"),
        }
    )
    return out[out["swapped_pairs"] > 0]


def judgment_frame(prefs: Preferences, questions: Any) -> pd.DataFrame:
    """One row per judgment: its ``question`` (code), ``item``, ``judge``, ``first`` and
    ``second`` model shown and the model ``preferred`` (or ``"tie"``)."""
    return pd.DataFrame(
        {
            "question": questions,
            "item": prefs.items(),
            "judge": prefs.judge,
            "first": prefs.first,
            "second": prefs.second,
            "preferred": prefs.preferred,
        }
    )


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
    confidence_level: float = 0.95,
    n_boot: int = 2000,
    rng: RngLike = None,
    **read_options: Never,
) -> PairwisePreferenceAgreement:
    """Agreement of pairwise preference judges with and without ties, and their position
    consistency, with bootstrap intervals over questions.

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
    confidence_level : float, default 0.95
        The level of the intervals.
    n_boot : int, default 2000
        Bootstrap replicates of the intervals (0: none, the intervals are NaN).
    rng : Generator, int or None
        Random source of the bootstrap; an integer makes the intervals reproducible.

    Returns
    -------
    PairwisePreferenceAgreement

    Raises
    ------
    ColumnNotFoundError
        A column is missing.
    InvalidInputError
        A missing value, a model judged against itself, or a verdict that is neither model
        nor a tie (naming the rows); ``confidence_level`` or ``n_boot`` outside its domain.

    Notes
    -----
    The intervals are percentile intervals (Efron & Tibshirani 1993, ch. 13) of a cluster
    bootstrap (Field & Welsh 2007): each replicate draws as many questions as there are,
    with replacement, and takes every judgment of a question drawn (all its turns and
    pairs of models, by every judge) as many times as it was drawn, then recomputes the
    three shares. The question is the unit resampled because the judgments of one
    question are not independent: the same answers are judged by several judges, in both
    orders, and the turns and pairs of models of a question share its difficulty; only
    the questions are drawn independently (as the 80 MT-Bench questions were written).
    Every pair of judgments lies within one item, so within one question, and each share
    is a ratio of sums over questions: a replicate weights each question's counts by the
    times it was drawn. An interval is NaN, with ``ci_reason``, when ``n_boot`` is 0,
    with fewer than two questions, when its share is NaN, or when the share is undefined
    (no pair to count) in more than half of the resamples; otherwise the resamples where
    it is undefined are left out, and ``ci_reason`` says how many.

    References
    ----------
    .. [1] Zheng, L., Chiang, W.-L., Sheng, Y., et al. (2023). Judging LLM-as-a-judge with
       MT-Bench and Chatbot Arena. NeurIPS 2023 Datasets and Benchmarks.
       https://arxiv.org/abs/2306.05685
    .. [2] Efron, B., & Tibshirani, R. J. (1993). An Introduction to the Bootstrap.
       Chapman & Hall, New York.
    .. [3] Field, C. A., & Welsh, A. H. (2007). Bootstrapping clustered data. Journal of the
       Royal Statistical Society, Series B 69(3), 369-390.
       https://doi.org/10.1111/j.1467-9868.2007.00593.x

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

    One question gives no interval; with more, each share has one:

    >>> result.ci_reason
    'the bootstrap over questions needs at least two questions; the judgments hold 1'
    >>> more = pd.DataFrame({
    ...     "question_id": [81, 81, 82, 82, 83, 83, 84, 84],
    ...     "model_a": ["gpt-4", "llama-13b"] * 4,
    ...     "model_b": ["llama-13b", "gpt-4"] * 4,
    ...     "judge": ["expert_0", "expert_1"] * 4,
    ...     "winner": ["model_a", "model_b", "model_a", "model_a",
    ...                "model_a", "model_b", "tie", "model_b"]})
    >>> result = accord.pairwise_preference_agreement(more, n_boot=1000, rng=1)
    >>> result.statistic, result.n_questions
    (0.5, 4)
    >>> round(result.ci_low, 2), round(result.ci_high, 2)
    (0.0, 1.0)
    """
    refuse_read_options("pairwise_preference_agreement", read_options, "judgments")
    _check_options(confidence_level, n_boot)
    frame = judgments if isinstance(judgments, pd.DataFrame) else frame_to_pandas(judgments)
    keys = (question, model_a, model_b, judge, winner)
    require_columns(list(keys), list(frame.columns))
    table = {k: frame[k].tolist() for k in (*keys, turn) if k is not None and k in frame.columns}
    prefs = preferences_in(table, keys, turn=turn)
    # The question of each judgment, without its turn: the unit the bootstrap resamples (ids
    # as text, as the items name them, in sorted order: the same resamples whatever the
    # order of the rows).
    codes, uniques = pd.factorize(
        pd.Series([str(q) for q in table[question]], dtype=object), sort=True
    )
    result, per_question = _measure(prefs, codes.astype(np.int64), len(uniques))
    ci = _intervals(result, per_question, float(confidence_level), int(n_boot), rng)
    return dataclasses.replace(result, **ci)


def _measure(
    prefs: Preferences, questions: IntArray, n_questions: int
) -> tuple[PairwisePreferenceAgreement, IntArray]:
    """The shares and counts of :class:`PairwisePreferenceAgreement` from the judgments
    (``questions``: the question code of each), and per question (rows) the counts whose
    sums over questions the three shares divide: agreeing pairs, pairs, the same without
    ties, consistent cross-order pairs, cross-order pairs."""
    frame = judgment_frame(prefs, questions)
    pairs = _pairs(frame, n_questions)
    pairs_nt = _pairs(frame[frame["preferred"] != TIE], n_questions)
    swaps = swap_counts(frame)
    consistent = _per_question(swaps["question"], swaps["consistent"], n_questions)
    crossed = _per_question(swaps["question"], swaps["swapped_pairs"], n_questions)
    per_question = np.column_stack([*pairs, *pairs_nt, consistent, crossed])
    agree, total, agree_nt, total_nt = (int(x) for x in per_question[:, :4].sum(axis=0))
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
    result = PairwisePreferenceAgreement(
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
    return result, per_question


def _check_options(confidence_level: Any, n_boot: Any) -> None:
    owner = "pairwise_preference_agreement"
    check_confidence_level(confidence_level, owner)
    check_n_boot(n_boot, owner)


def _ratios(totals: FloatArray) -> FloatArray:
    """The three shares of each row of per-question count totals (NaN where a share has no
    pair to count)."""
    out: FloatArray = totals[:, 0::2] / totals[:, 1::2]
    return out


def _intervals(
    result: PairwisePreferenceAgreement,
    per_question: IntArray,
    level: float,
    n_boot: int,
    rng: RngLike,
) -> dict[str, Any]:
    """The interval fields: percentile intervals of a bootstrap over questions (the rows of
    ``per_question``), NaN with the reason where one is undefined."""
    shares = (result.statistic, result.agreement_without_ties, result.position_consistency)
    ends = np.full((len(SHARES), 2), math.nan)
    n_questions = per_question.shape[0]
    notes: list[str] = []
    if n_boot == 0:
        notes.append("no bootstrap (n_boot=0)")
    elif n_questions < 2:
        notes.append(
            f"the bootstrap over questions needs at least two questions; the judgments "
            f"hold {n_questions}"
        )
    else:
        (reps,) = bootstrap_drawn(
            [per_question.astype(np.float64)], [_ratios], n_boot=n_boot, rng=rng
        )
        for j, ((name, why), share) in enumerate(zip(SHARES, shares, strict=True)):
            undefined = int(np.count_nonzero(~np.isfinite(reps[:, j])))
            if math.isnan(share):
                notes.append(f"{name}: the share itself is undefined")
            elif 2 * undefined > n_boot:
                notes.append(f"{name}: undefined in {undefined} of {n_boot} resamples ({why})")
            else:
                if undefined:
                    notes.append(
                        f"{name}: from the {n_boot - undefined} of {n_boot} resamples where "
                        f"it is defined ({why} in the others)"
                    )
                ends[j] = bootstrap_interval(
                    share, reps[:, j], None, level=level, method="percentile"
                )
    return dict(
        ci_low=float(ends[0, 0]),
        ci_high=float(ends[0, 1]),
        without_ties_ci_low=float(ends[1, 0]),
        without_ties_ci_high=float(ends[1, 1]),
        position_consistency_ci_low=float(ends[2, 0]),
        position_consistency_ci_high=float(ends[2, 1]),
        confidence_level=level,
        n_boot=n_boot,
        n_questions=n_questions,
        ci_method=(
            f"percentile bootstrap over questions ({n_boot} replicates): each replicate "
            "draws the questions with replacement, each with all its judgments (every turn "
            "and pair of models, by every judge)"
            if n_boot
            else NO_REPLICATES
        ),
        ci_reason="; ".join(notes) or None,
    )
