"""Is a pairwise judge biased? Position bias from pairs judged in both orders, length bias
and self-preference, each with an effect size, an exact interval and an exact test."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any, Never

import numpy as np
import pandas as pd

from .._errors import InvalidInputError, bad_parameter
from .._interval import check_confidence_level
from .._results import Record
from .._types import FloatArray
from .._validate import require_columns
from ..data.frames import frame_to_pandas
from ..data.preferences import TIE, preferences_in
from ..data.source import refuse_read_options
from .preferences import judgment_frame, swap_counts

__all__ = [
    "LengthBias",
    "PositionBias",
    "SelfPreference",
    "binomial_test",
    "clopper_pearson",
    "length_bias",
    "position_bias",
    "self_preference",
]

#: The column names of a pairwise log, as :func:`accord.read_pairwise` reads them.
PAIRWISE_KEYS = ("question_id", "model_a", "model_b", "judge", "winner")

#: The test of position bias a judge's row reports, in words.
POSITION_TEST_WORDS = {
    "mcnemar_exact": "McNemar's exact test on pairs judged in both orders",
    "binomial_unpaired": "exact binomial test, no pair judged in both orders",
}
#: The test of length bias a judge's row reports, in words (the same two tests: paired
#: when some pair was judged in both orders).
LENGTH_TEST_WORDS = POSITION_TEST_WORDS


def clopper_pearson(k: Any, n: Any, level: float = 0.95) -> tuple[FloatArray, FloatArray]:
    r"""The exact (Clopper-Pearson 1934) interval of a binomial proportion :math:`k/n`:
    :math:`[B(\alpha/2; k, n-k+1),\ B(1-\alpha/2; k+1, n-k)]` with :math:`B` the beta
    quantile, 0 (1) at :math:`k = 0` (:math:`k = n`); NaN where :math:`n = 0`.

    >>> low, high = clopper_pearson(7, 10)
    >>> round(float(low), 4), round(float(high), 4)
    (0.3475, 0.9333)
    """
    from scipy.stats import beta

    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    a = (1.0 - level) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(k > 0, beta.ppf(a, k, n - k + 1), 0.0)
        high = np.where(k < n, beta.ppf(1 - a, k + 1, n - k), 1.0)
    bad = n <= 0
    return np.where(bad, np.nan, low), np.where(bad, np.nan, high)


def binomial_test(k: Any, n: Any, p: float = 0.5) -> FloatArray:
    """Two-sided exact binomial test of :math:`H_0: \\pi = p` (the p-value sums the
    probabilities of the outcomes no more likely than ``k``, as ``scipy.stats.binomtest``);
    NaN where ``n`` is 0.

    >>> round(float(binomial_test(16, 18)), 5)
    0.00131
    """
    from scipy.stats import binomtest

    ks = np.atleast_1d(np.asarray(k, dtype=np.int64))
    ns = np.atleast_1d(np.asarray(n, dtype=np.int64))
    pvalues = [
        binomtest(int(a), int(b), p).pvalue if b > 0 else math.nan
        for a, b in zip(ks, ns, strict=True)
    ]
    out = np.array(pvalues, dtype=np.float64)
    return out.reshape(np.shape(k))


def _proportion_columns(
    prefix: str, k: Any, n: Any, level: float, p: float = 0.5
) -> dict[str, Any]:
    """``{prefix}``, ``{prefix}_ci_low``, ``{prefix}_ci_high`` and ``{prefix}_pvalue``: the
    share ``k/n``, its exact interval and the exact binomial test of ``p``."""
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    low, high = clopper_pearson(k, n, level)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n > 0, k / np.where(n > 0, n, 1), np.nan)
    return {
        prefix: share,
        f"{prefix}_ci_low": low,
        f"{prefix}_ci_high": high,
        f"{prefix}_pvalue": binomial_test(k, n, p),
    }


def _odds_columns(prefix: str, b: Any, c: Any, level: float) -> dict[str, Any]:
    """The exact McNemar test of ``b`` against ``c`` discordant pairs: the conditional odds
    ratio ``b / c``, its exact interval (the Clopper-Pearson interval of ``b / (b + c)``
    mapped by ``p / (1 - p)``) and the exact binomial p-value."""
    b = np.asarray(b, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    low, high = clopper_pearson(b, b + c, level)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(b + c > 0, b / c, np.nan)
        return {
            f"{prefix}_odds_ratio": ratio,
            f"{prefix}_ci_low": low / (1 - low),
            f"{prefix}_ci_high": high / (1 - high),
            f"{prefix}_pvalue": binomial_test(b, b + c),
        }


@dataclasses.dataclass(frozen=True, slots=True)
class PositionBias(Record):
    """Does the judge prefer the answer shown first, and does it change its verdict when
    the two answers swap places?

    Attributes
    ----------
    table : pandas.DataFrame
        One row per judge. ``n_judgments``; ``n_decisive`` (judgments that are not a
        tie); ``first_wins`` (decisive judgments preferring the answer shown first),
        ``first_win_rate`` with its exact interval ``first_win_rate_ci_low``,
        ``first_win_rate_ci_high`` and ``first_win_rate_pvalue`` (exact binomial test of
        0.5); ``n_swapped`` ((judge, item) cases judged in both orders),
        ``swapped_pairs`` (cross-order pairs of judgments), ``flips`` (those whose
        verdicts differ), ``flip_rate`` with its exact interval and ``flip_rate_pvalue``
        (NaN: no null value is natural for it); ``favours_first`` and ``favours_second``
        (flipped pairs that preferred the first, the second, position both times),
        ``mcnemar_odds_ratio`` (their ratio), its exact interval ``mcnemar_ci_low``,
        ``mcnemar_ci_high`` and ``mcnemar_pvalue`` (McNemar's exact test);
        ``position_test``, the test of position bias to read (``"mcnemar_exact"``, the
        paired test, when some pair was judged in both orders; ``"binomial_unpaired"``,
        the exact binomial test of the first-position win rate, when no pair was) and
        ``position_pvalue``, its p-value.
    confidence_level : float
        The level of the intervals.
    method : str
        The definitions, in words.
    """

    table: pd.DataFrame
    confidence_level: float
    method: str

    def _headline(self) -> str:
        parts = []
        for _, r in self.table.iterrows():
            text = (
                f"{r['judge']}: first answer wins {r['first_win_rate']:.1%} of decisive judgments"
            )
            if r["swapped_pairs"]:
                text += f", flips on {r['flip_rate']:.1%} of swapped pairs"
            words = POSITION_TEST_WORDS[str(r["position_test"])]
            text += f" ({words} p = {r['position_pvalue']:.3g})"
            parts.append(text)
        return "; ".join(parts)

    def to_frame(self) -> pd.DataFrame:
        """The per-judge table."""
        return self.table


def _judgments(
    judgments: Any, keys: Sequence[str], turn: str | None, extra: Sequence[str] = ()
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The validated judgments as a :func:`~accord.judges.preferences.judgment_frame` (the
    question as text), and the ``extra`` columns of the input, row for row."""
    frame = judgments if isinstance(judgments, pd.DataFrame) else frame_to_pandas(judgments)
    require_columns([*keys, *extra], list(frame.columns))
    names = [*keys, *([turn] if turn is not None and turn in frame.columns else [])]
    table = {k: frame[k].tolist() for k in names}
    prefs = preferences_in(table, tuple(keys), turn=turn)  # type: ignore[arg-type]
    out = judgment_frame(prefs, np.array([str(q) for q in table[keys[0]]], dtype=object))
    return out, frame[list(extra)].reset_index(drop=True)


def position_bias(
    judgments: Any,
    *,
    question: str = "question_id",
    model_a: str = "model_a",
    model_b: str = "model_b",
    judge: str = "judge",
    winner: str = "winner",
    turn: str | None = "turn",
    confidence_level: float = 0.95,
    **read_options: Never,
) -> PositionBias:
    r"""Position bias of pairwise judges: the first-position win rate, the flip rate of
    pairs judged in both orders and McNemar's exact test on the swapped pairs.

    Each row is one judgment (as :func:`accord.pairwise_preference_agreement` reads them:
    ``model_a`` shown first). Per judge:

    - the **first-position win rate** :math:`k/n`, with :math:`n` the decisive judgments
      (not ties) and :math:`k` those preferring the answer shown first, with its exact
      Clopper-Pearson interval and the exact binomial test of :math:`\pi = 1/2`;
    - the **flip rate**: among the cross-order pairs of judgments of one item (each
      judgment in one order paired with each in the other, as position consistency counts
      them), the share whose verdicts differ (one minus position consistency), with its
      exact interval;
    - **McNemar's exact test** on the swapped pairs: of the flipped pairs with no tie,
      :math:`b` preferred the first position both times and :math:`c` the second; without
      position bias :math:`b \sim \mathrm{Bin}(b + c, 1/2)`. The effect is the
      conditional odds ratio :math:`b / c`, its exact interval that of
      :math:`b/(b+c)` mapped by :math:`p/(1-p)`.

    Parameters
    ----------
    judgments : DataFrame-like
        One judgment per row (pandas, polars or pyarrow).
    question, model_a, model_b, judge, winner, turn : str
        Column names, as :func:`accord.pairwise_preference_agreement`.
    confidence_level : float, default 0.95

    Returns
    -------
    PositionBias

    Raises
    ------
    ColumnNotFoundError, InvalidInputError
        As :func:`accord.pairwise_preference_agreement`.

    Notes
    -----
    The binomial test of the first-position win rate treats judgments as independent,
    which the two orders of one pair are not: when some pair was judged in both orders,
    ``position_test`` is McNemar's exact test (the exact conditional binomial test on the
    discordant pairs) and ``position_pvalue`` its p-value; the unpaired binomial test is
    the answer only for a judge with no pair judged in both orders. The flip rate's
    interval is exact when each (judge, item) is judged once in each order (the usual
    design); with repeats the cross-order pairs are not independent
    and the interval is too narrow. A judge with no decisive judgment, or no pair judged
    in both orders, has NaN in the columns that need them; a judge whose pairs judged in
    both orders never flip to the same position twice has McNemar p = 1, as the exact
    conditional test gives with no discordant pair.

    References
    ----------
    .. [1] Zheng, L., Chiang, W.-L., Sheng, Y., et al. (2023). Judging LLM-as-a-judge with
       MT-Bench and Chatbot Arena. NeurIPS 2023. https://arxiv.org/abs/2306.05685
    .. [2] Clopper, C. J., & Pearson, E. S. (1934). The use of confidence or fiducial limits
       illustrated in the case of the binomial. Biometrika 26(4), 404-413.
       https://doi.org/10.1093/biomet/26.4.404
    .. [3] McNemar, Q. (1947). Note on the sampling error of the difference between
       correlated proportions or percentages. Psychometrika 12(2), 153-157.
       https://doi.org/10.1007/BF02295996

    Examples
    --------
    A simulated judge with a built-in position bias, each pair in both orders:

    >>> import accord, pandas as pd
    >>> log = pd.read_json(accord.datasets.path("judge-pairs.jsonl"), lines=True)
    >>> row = position_bias(log).table.set_index("judge").loc["judge-model"]
    >>> p = float(row["mcnemar_pvalue"])
    >>> int(row["favours_first"]), int(row["favours_second"]), round(p, 4)
    (15, 2, 0.0023)
    """
    refuse_read_options("position_bias", read_options, "judgments")
    check_confidence_level(confidence_level, "position_bias")
    frame, _ = _judgments(judgments, (question, model_a, model_b, judge, winner), turn)
    decisive = frame[frame["preferred"] != TIE]
    per_judge = pd.DataFrame(
        {
            "n_judgments": frame.groupby("judge").size(),
            "n_decisive": decisive.groupby("judge").size(),
            "first_wins": (decisive["preferred"] == decisive["first"])
            .groupby(decisive["judge"])
            .sum(),
        }
    )
    swaps = (
        swap_counts(frame)
        .groupby("judge")
        .agg(
            n_swapped=("swapped_pairs", "size"),
            swapped_pairs=("swapped_pairs", "sum"),
            consistent=("consistent", "sum"),
            favours_first=("favours_first", "sum"),
            favours_second=("favours_second", "sum"),
        )
    )
    per_judge = per_judge.join(swaps).fillna(0).astype(np.int64)
    per_judge["flips"] = per_judge["swapped_pairs"] - per_judge.pop("consistent")
    level = float(confidence_level)
    columns = {
        **_proportion_columns(
            "first_win_rate", per_judge["first_wins"], per_judge["n_decisive"], level
        ),
        **_proportion_columns("flip_rate", per_judge["flips"], per_judge["swapped_pairs"], level),
        **_odds_columns("mcnemar", per_judge["favours_first"], per_judge["favours_second"], level),
    }
    columns["flip_rate_pvalue"] = np.full(len(per_judge), math.nan)
    paired = (per_judge["n_swapped"] > 0).to_numpy()
    # Pairs judged in both orders but none discordant: the exact conditional test has
    # p = 1 (no evidence of a preferred position), not NaN.
    no_discordant = paired & (per_judge["favours_first"] + per_judge["favours_second"] == 0)
    columns["mcnemar_pvalue"] = np.where(no_discordant, 1.0, columns["mcnemar_pvalue"])
    columns["position_test"] = np.where(paired, "mcnemar_exact", "binomial_unpaired")
    columns["position_pvalue"] = np.where(
        paired, columns["mcnemar_pvalue"], columns["first_win_rate_pvalue"]
    )
    table = per_judge.assign(**columns).rename_axis("judge").reset_index()
    order = ["judge", "n_judgments", "n_decisive", "first_wins", "first_win_rate",
             "first_win_rate_ci_low", "first_win_rate_ci_high", "first_win_rate_pvalue",
             "n_swapped", "swapped_pairs", "flips", "flip_rate", "flip_rate_ci_low",
             "flip_rate_ci_high", "favours_first", "favours_second", "mcnemar_odds_ratio",
             "mcnemar_ci_low", "mcnemar_ci_high", "mcnemar_pvalue", "position_test",
             "position_pvalue"]  # fmt: skip
    return PositionBias(
        table=table[order],
        confidence_level=level,
        method=(
            "first-position win rate among decisive judgments (exact binomial test of 1/2); "
            "flip rate among cross-order pairs of judgments of one item; McNemar's exact "
            "test of the flipped pairs favouring the first against the second position, "
            "the test to read when pairs were judged in both orders (position_test)"
        ),
    )


@dataclasses.dataclass(frozen=True, slots=True)
class LengthBias(Record):
    """Does the judge prefer the longer answer?

    Attributes
    ----------
    table : pandas.DataFrame
        One row per judge. ``n_decisive`` (judgments not a tie whose answers differ in
        length), ``longer_wins``, ``longer_win_rate`` with its exact interval
        (``longer_win_rate_ci_low``, ``longer_win_rate_ci_high``) and
        ``longer_win_rate_pvalue`` (exact binomial test of 0.5); the logistic regression of
        "the first answer preferred" on the length difference (first minus second) over
        the decisive judgments (equal lengths included): ``intercept`` (the position
        effect at equal length, log odds), ``slope`` (log odds per unit of length
        difference), ``slope_se``, ``slope_ci_low``, ``slope_ci_high`` (Wald),
        ``slope_pvalue`` (Wald), ``odds_ratio_per_sd`` (:math:`e^{\\beta_1 s}`, with
        :math:`s` the standard deviation of the length differences) with its interval
        ``odds_ratio_per_sd_ci_low``, ``odds_ratio_per_sd_ci_high``, ``n_fit`` and
        ``reason`` (why the fit is NaN, when it is). Paired, from the pairs judged in both
        orders: ``length_pairs`` (cross-order pairs of decisive judgments of one item, the
        longer answer shown first in one and second in the other), ``longer_both`` and
        ``shorter_both`` (those preferring the longer, the shorter answer both times),
        ``length_mcnemar_odds_ratio`` (their ratio) with its exact interval
        ``length_mcnemar_ci_low``, ``length_mcnemar_ci_high`` and
        ``length_mcnemar_pvalue`` (McNemar's exact test); ``length_test``, the test of
        length bias to read (``"mcnemar_exact"`` when some pair was judged in both orders,
        ``"binomial_unpaired"``, the exact binomial test of the longer answer's win rate,
        when none was) and ``length_pvalue``, its p-value.
    confidence_level : float
    method : str
    """

    table: pd.DataFrame
    confidence_level: float
    method: str

    def _headline(self) -> str:
        return "; ".join(
            f"{r['judge']}: the longer answer wins {r['longer_win_rate']:.1%} of decisive "
            f"judgments ({LENGTH_TEST_WORDS[str(r['length_test'])]} p = "
            f"{r['length_pvalue']:.3g})"
            for _, r in self.table.iterrows()
        )

    def to_frame(self) -> pd.DataFrame:
        """The per-judge table."""
        return self.table


def logistic_fit(x: FloatArray, y: FloatArray, *, max_iter: int = 100) -> dict[str, Any]:
    """Maximum-likelihood logistic regression of ``y`` (0/1) on an intercept and ``x`` by
    Newton-Raphson, with the Wald standard errors from the inverse observed information.
    NaN with a ``reason`` when the estimates diverge (separation) or ``x`` is constant."""
    nan = {"intercept": math.nan, "slope": math.nan, "slope_se": math.nan}
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return {**nan, "reason": "needs both verdicts and at least two length differences"}
    design = np.column_stack([np.ones_like(x), x])
    beta = np.zeros(2)
    separated = {
        **nan,
        "reason": "no estimate: the length difference separates the verdicts (separation)",
    }
    for _ in range(max_iter):
        p = 1.0 / (1.0 + np.exp(-(design @ beta)))
        info = design.T @ (design * (p * (1 - p))[:, None])
        try:
            step = np.linalg.solve(info, design.T @ (y - p))
        except np.linalg.LinAlgError:
            return separated
        beta = beta + step
        if np.max(np.abs(step)) < 1e-10 * (1 + np.max(np.abs(beta))):
            break
    else:
        return separated
    if np.max(np.abs(design @ beta)) > 30:  # fitted probabilities of 0 and 1: separation
        return separated
    p = 1.0 / (1.0 + np.exp(-(design @ beta)))
    info = design.T @ (design * (p * (1 - p))[:, None])
    cov = np.linalg.inv(info)
    return {
        "intercept": float(beta[0]),
        "slope": float(beta[1]),
        "slope_se": float(math.sqrt(cov[1, 1])),
        "reason": None,
    }


def _per_sd(slope: float, se: float, sd: float, z: float) -> dict[str, float]:
    """The odds ratio for one standard deviation of the length difference, and its Wald
    interval (the slope's, times ``sd``, exponentiated)."""
    return {
        "odds_ratio_per_sd": math.exp(slope * sd),
        "odds_ratio_per_sd_ci_low": math.exp((slope - z * se) * sd),
        "odds_ratio_per_sd_ci_high": math.exp((slope + z * se) * sd),
    }


def _length_pairs(differ: pd.DataFrame, level: float) -> dict[str, Any]:
    r"""McNemar's exact test of length bias on the pairs judged in both orders (``differ``:
    one judge's decisive judgments whose answers differ in length, with ``item``,
    ``difference`` and ``first_won``).

    Each item's judgments with the longer answer shown first are paired with those with it
    shown second. In the 2 x 2 table of "the first answer won" in the one order against the
    other, the discordant cells are the pairs where the longer answer won both times
    (``b``) and where the shorter did (``c``); the concordant ones, the first (second)
    position winning both times, say nothing of length. Without length bias
    :math:`b \sim \mathrm{Bin}(b + c, 1/2)`."""
    longer_first = (differ["difference"] > 0).to_numpy()
    longer_won = longer_first == differ["first_won"].to_numpy(dtype=bool)
    cells = (
        pd.DataFrame({"item": differ["item"].to_numpy(), "first": longer_first, "won": longer_won})
        .groupby(["item", "first", "won"])
        .size()
        .unstack(["first", "won"], fill_value=0)
    )
    for key in ((True, True), (True, False), (False, True), (False, False)):
        if key not in cells.columns:
            cells[key] = 0

    def n(first: bool, won: bool) -> Any:
        return cells[(first, won)].to_numpy(dtype=np.int64)

    pairs = int(np.sum((n(True, True) + n(True, False)) * (n(False, True) + n(False, False))))
    b = int(np.sum(n(True, True) * n(False, True)))
    c = int(np.sum(n(True, False) * n(False, False)))
    odds = {k: float(v[0]) for k, v in _odds_columns("length_mcnemar", [b], [c], level).items()}
    if pairs and b + c == 0:  # pairs in both orders, none discordant: the exact test's p = 1
        odds["length_mcnemar_pvalue"] = 1.0
    return {"length_pairs": pairs, "longer_both": b, "shorter_both": c, **odds}


def _length_row(rows: pd.DataFrame, level: float) -> dict[str, Any]:
    """One judge's length-bias columns (``rows``: the decisive judgments, with ``item``,
    ``first_won`` and ``difference``)."""
    from scipy.stats import norm

    differ = rows[rows["difference"] != 0]
    longer = int(((differ["difference"] > 0) == differ["first_won"]).sum())
    out: dict[str, Any] = {
        "n_decisive": len(differ),
        "longer_wins": longer,
        **{
            k: float(v)
            for k, v in _proportion_columns("longer_win_rate", longer, len(differ), level).items()
        },
    }
    x = rows["difference"].to_numpy(dtype=np.float64)
    fit = logistic_fit(x, rows["first_won"].to_numpy(dtype=np.float64))
    z = float(norm.ppf(0.5 + level / 2))
    slope, se = fit["slope"], fit["slope_se"]
    out.update(
        intercept=fit["intercept"],
        slope=slope,
        slope_se=se,
        slope_ci_low=slope - z * se,
        slope_ci_high=slope + z * se,
        slope_pvalue=float(2 * norm.sf(abs(slope / se))) if se > 0 else math.nan,
        **_per_sd(slope, se, float(np.std(x, ddof=1)) if x.size > 1 else math.nan, z),
        n_fit=int(x.size),
        reason=fit["reason"],
    )
    out.update(_length_pairs(differ, level))
    paired = out["length_pairs"] > 0
    out["length_test"] = "mcnemar_exact" if paired else "binomial_unpaired"
    out["length_pvalue"] = out["length_mcnemar_pvalue"] if paired else out["longer_win_rate_pvalue"]
    return out


def length_bias(
    judgments: Any,
    *,
    length_a: str = "length_a",
    length_b: str = "length_b",
    question: str = "question_id",
    model_a: str = "model_a",
    model_b: str = "model_b",
    judge: str = "judge",
    winner: str = "winner",
    turn: str | None = "turn",
    confidence_level: float = 0.95,
    **read_options: Never,
) -> LengthBias:
    r"""Length bias of pairwise judges: the win rate of the longer answer and a logistic
    regression of the verdict on the length difference.

    Over each judge's decisive judgments (not ties): the share :math:`k/n` preferring the
    longer answer (among those whose answers differ in length), with its exact
    Clopper-Pearson interval and the exact binomial test of :math:`\pi = 1/2`; and the
    logistic regression

    .. math::

        \operatorname{logit} P(\text{first answer preferred}) = \beta_0 + \beta_1
        (\ell_a - \ell_b)

    with :math:`\ell_a, \ell_b` the lengths of the answers shown first and second: the
    slope :math:`\beta_1` (log odds per unit of length, with its Wald interval and test)
    is the length effect with the position effect :math:`\beta_0` held apart.

    When pairs were judged in both orders, the two verdicts on one pair are not
    independent, and the test to read (``length_test``) is paired: McNemar's exact test on
    the cross-order pairs of one item (the longer answer shown first in one judgment,
    second in the other), of :math:`b`, the pairs where the longer answer won both times,
    against :math:`c`, those where the shorter did; without length bias
    :math:`b \sim \mathrm{Bin}(b + c, 1/2)`. The pairs where the same position won both
    times are the concordant cells, which carry the position bias and not the length's
    (:func:`position_bias` tests them). The effect is the conditional odds ratio
    :math:`b / c` with the exact interval of :math:`b / (b + c)` mapped by
    :math:`p / (1 - p)`. With no pair judged in both orders, ``length_test`` is the exact
    binomial test of the longer answer's win rate.

    Parameters
    ----------
    judgments : DataFrame-like
        One judgment per row, with the lengths of both answers (characters, tokens, words:
        any unit, the slope is per unit).
    length_a, length_b : str
        The columns of the lengths of the answers shown first and second.
    question, model_a, model_b, judge, winner, turn : str
        As :func:`position_bias`.
    confidence_level : float, default 0.95

    Returns
    -------
    LengthBias

    Raises
    ------
    ColumnNotFoundError
        A column is missing.
    InvalidInputError
        A length that is missing or not a number (naming the rows), and the errors of
        :func:`position_bias`.

    Notes
    -----
    The fit is Newton-Raphson maximum likelihood; the Wald interval is
    :math:`\hat\beta_1 \pm z\,\mathrm{SE}`, the SE from the inverse observed information
    (as ``statsmodels`` ``Logit``). Under complete separation there is no estimate: NaN
    with a reason. ``odds_ratio_per_sd`` puts the slope on a scale free of the unit.

    References
    ----------
    .. [1] Dubois, Y., Galambosi, B., Liang, P., & Hashimoto, T. B. (2024).
       Length-controlled AlpacaEval: a simple way to debias automatic evaluators.
       https://arxiv.org/abs/2404.04475
    .. [2] Agresti, A. (2013). Categorical Data Analysis, 3rd ed., Wiley, section 4.2.

    Examples
    --------
    >>> import accord, pandas as pd
    >>> log = pd.read_json(accord.datasets.path("judge-pairs.jsonl"), lines=True)
    >>> row = length_bias(log).table.set_index("judge").loc["judge-model"]
    >>> int(row["longer_wins"]), int(row["n_decisive"])
    (83, 131)
    """
    refuse_read_options("length_bias", read_options, "judgments")
    check_confidence_level(confidence_level, "length_bias")
    keys = (question, model_a, model_b, judge, winner)
    frame, lengths = _judgments(judgments, keys, turn, (length_a, length_b))
    values = lengths.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(values).all(axis=1))
    if bad.size:
        col = length_a if not np.isfinite(values[bad[0], 0]) else length_b
        raise InvalidInputError(
            f"column {col!r} must hold a number in every row; row {bad[0] + 1} holds "
            f"{lengths.iloc[bad[0]][col]!r}"
        )
    frame = frame.assign(
        difference=values[:, 0] - values[:, 1], first_won=frame["preferred"] == frame["first"]
    )
    decisive = frame[frame["preferred"] != TIE]
    level = float(confidence_level)
    rows = [
        {"judge": name, **_length_row(decisive[decisive["judge"] == name], level)}
        for name in sorted(set(frame["judge"]))
    ]
    return LengthBias(
        table=pd.DataFrame(rows),
        confidence_level=level,
        method=(
            "win rate of the longer answer among decisive judgments (exact binomial test of "
            "1/2); logistic regression of the first answer preferred on the length "
            "difference (first minus second), Wald interval; McNemar's exact test of the "
            "pairs judged in both orders where the longer answer won both times against "
            "those where the shorter did, the test to read when pairs were judged in both "
            "orders (length_test)"
        ),
    )


@dataclasses.dataclass(frozen=True, slots=True)
class SelfPreference(Record):
    """Does the judge prefer the answers of its own model (family)?

    Attributes
    ----------
    judge : str
        The judge tested.
    own : tuple of str
        The models counted as the judge's own.
    n_decisive : int
        The judge's decisive judgments of a pair with exactly one own model.
    own_wins : int
        Those preferring the own model.
    own_win_rate, ci_low, ci_high, pvalue : float
        Their share, its exact interval and the exact binomial test of 0.5.
    n_matched : int
        Pairs of a decisive judgment of the judge and one of another judge (a human) on the
        same item, neither a tie.
    judge_only, other_only : int
        Matched pairs where only the judge (only the other) preferred the own model.
    difference : float
        Own-model win rate of the judge minus the others' on the matched pairs,
        ``(judge_only - other_only) / n_matched``.
    odds_ratio, odds_ci_low, odds_ci_high, mcnemar_pvalue : float
        ``judge_only / other_only``, its exact interval and McNemar's exact test.
    confidence_level : float
    method : str
    reason : str or None
        Why a figure is NaN, when one is.
    """

    judge: str
    own: tuple[str, ...]
    n_decisive: int
    own_wins: int
    own_win_rate: float
    ci_low: float
    ci_high: float
    pvalue: float
    n_matched: int
    judge_only: int
    other_only: int
    difference: float
    odds_ratio: float
    odds_ci_low: float
    odds_ci_high: float
    mcnemar_pvalue: float
    confidence_level: float
    method: str
    reason: str | None = None

    def _headline(self) -> str:
        text = (
            f"{self.judge} prefers its own model in {self.own_win_rate:.1%} of decisive judgments"
        )
        if self.judge_only + self.other_only:
            text += (
                f"; {self.difference:+.1%} against the other judges on the same items "
                f"(McNemar p = {self.mcnemar_pvalue:.3g})"
            )
        elif self.n_matched:
            text += "; as often as the other judges on the same items"
        return text


def self_preference(
    judgments: Any,
    judge_name: str,
    own: str | Sequence[str],
    *,
    question: str = "question_id",
    model_a: str = "model_a",
    model_b: str = "model_b",
    judge: str = "judge",
    winner: str = "winner",
    turn: str | None = "turn",
    confidence_level: float = 0.95,
    **read_options: Never,
) -> SelfPreference:
    r"""Self-preference of a pairwise judge: how often it prefers its own model, alone and
    against the other judges (humans) on the same items.

    The pairs are those with exactly one of the ``own`` models (the judge's model or its
    family, as named in the ``model_a``/``model_b`` columns). The judge's **own-model win
    rate** :math:`k/n` over its decisive judgments of such pairs comes with its exact
    interval and the exact binomial test of 1/2 (which mixes self-preference with the own
    model's quality). Quality is held fixed by **matching**: each decisive judgment of
    the judge is paired with each decisive judgment of another judge of the same item;
    with :math:`b` pairs where only the judge prefers the own model and :math:`c` where
    only the other does, the effect is the difference :math:`(b - c)/n` of the two
    own-model win rates, the conditional odds ratio :math:`b/c` with its exact interval,
    and McNemar's exact test of :math:`b \sim \mathrm{Bin}(b + c, 1/2)`.

    Parameters
    ----------
    judgments : DataFrame-like
        One judgment per row, as :func:`position_bias`.
    judge_name : str
        The judge tested, as named in the ``judge`` column.
    own : str or sequence of str
        The judge's own models.
    question, model_a, model_b, judge, winner, turn : str
        Column names.
    confidence_level : float, default 0.95

    Returns
    -------
    SelfPreference

    Raises
    ------
    InvalidInputError
        No judgment by ``judge_name``, or no pair with exactly one own model; the errors
        of :func:`position_bias`.

    Notes
    -----
    When the other judges saw an item several times the matched pairs are not
    independent, and the exact test is then approximate. The matched comparison follows
    Panickssery et al. (2024), who measure self-preference against human preferences on
    the same pairs.

    References
    ----------
    .. [1] Panickssery, A., Bowman, S. R., & Feng, S. (2024). LLM evaluators recognize and
       favor their own generations. NeurIPS 2024. https://arxiv.org/abs/2404.13076
    .. [2] McNemar, Q. (1947). Psychometrika 12(2), 153-157.
       https://doi.org/10.1007/BF02295996

    Examples
    --------
    >>> import accord, pandas as pd
    >>> log = pd.read_json(accord.datasets.path("annotation-tools") / "pairwise.jsonl",
    ...                    lines=True)
    >>> res = self_preference(log, "gpt-4-pair", "gpt-4")
    >>> res.own_wins, res.n_decisive, res.n_matched, res.judge_only, res.other_only
    (2, 2, 4, 0, 0)
    """
    refuse_read_options("self_preference", read_options, "judgments")
    check_confidence_level(confidence_level, "self_preference")
    owns = (own,) if isinstance(own, str) else tuple(str(o) for o in own)
    frame, _ = _judgments(judgments, (question, model_a, model_b, judge, winner), turn)
    mine = frame["first"].isin(owns) != frame["second"].isin(owns)
    frame = frame[mine & (frame["preferred"] != TIE)]
    frame = frame.assign(own_won=frame["preferred"].isin(owns))
    by_judge = frame[frame["judge"] == judge_name]
    if by_judge.empty:
        raise InvalidInputError(
            bad_parameter(
                "self_preference",
                "judge_name",
                "a judge with a decisive judgment of a pair with exactly one own model "
                f"({', '.join(owns)})",
                judge_name,
            )
        )
    others = frame[frame["judge"] != judge_name]
    counts = others.groupby(["item", "own_won"]).size().unstack(fill_value=0)
    counts = counts.reindex(columns=[False, True], fill_value=0)
    matched = by_judge.join(counts, on="item").fillna(0)
    b = int((matched[False] * matched["own_won"]).sum())
    c = int((matched[True] * ~matched["own_won"]).sum())
    n = int((matched[False] + matched[True]).sum())
    level = float(confidence_level)
    k = int(by_judge["own_won"].sum())
    rate = _proportion_columns("p", k, len(by_judge), level)
    odds = _odds_columns("m", b, c, level)
    return SelfPreference(
        judge=str(judge_name), own=owns, n_decisive=len(by_judge), own_wins=k,
        own_win_rate=float(rate["p"]), ci_low=float(rate["p_ci_low"]),
        ci_high=float(rate["p_ci_high"]), pvalue=float(rate["p_pvalue"]),
        n_matched=n, judge_only=b, other_only=c,
        difference=(b - c) / n if n else math.nan,
        odds_ratio=float(odds["m_odds_ratio"]), odds_ci_low=float(odds["m_ci_low"]),
        odds_ci_high=float(odds["m_ci_high"]),
        # matched pairs but none discordant: the exact conditional test gives 1
        mcnemar_pvalue=1.0 if n and b + c == 0 else float(odds["m_pvalue"]),
        confidence_level=level,
        method=(
            "own-model win rate among the judge's decisive judgments of pairs with one own "
            "model; matched against each other judge's decisive judgment of the same item "
            "(McNemar's exact test)"
        ),
        reason=None if n else "no other judge judged the same items decisively",
    )  # fmt: skip
