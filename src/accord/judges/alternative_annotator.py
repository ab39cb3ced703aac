"""Can the judge replace a rater? The alternative annotator test (alt-test).

A judge (a model, a device, a cheaper annotator) is held against a panel of humans one human
at a time: leave human ``h`` out, and on every item ``h`` rated ask who represents the *remaining*
humans better, ``h`` or the judge. The judge wins against ``h`` when a one-sided test shows that
``h`` is better on no more than a share ``epsilon`` of the items more often than the judge is;
it passes when it wins against at least half of the humans, after the Benjamini-Yekutieli
correction over the humans. Calderon, Reichart & Dror (2025), "The Alternative Annotator Test
for LLM-as-a-Judge: How to Statistically Justify Replacing Human Annotators with LLMs",
Proc. ACL 2025, pp. 16051-16081 (arXiv:2501.10970).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from typing import Any, Literal, Never

import numpy as np
import pandas as pd

from .._errors import InvalidInputError, bad_parameter, option, shown
from .._methods import MethodsFormat, judge_methods
from .._results import Record
from .._types import BoolArray, FloatArray, IntArray
from .._validate import check_choice
from ..data.ratings import Ratings
from ..data.source import refuse_read_options

__all__ = ["AltTest", "AltTestRanking", "alt_test", "benjamini_yekutieli", "human_panel"]

Scoring = Literal["accuracy", "neg_rmse"] | Callable[[Any, list[Any]], float]
TestName = Literal["t", "wilcoxon"]

#: Fewest items for the t test's normal approximation (the paper's rule of thumb).
T_TEST_MIN_ITEMS = 30


def benjamini_yekutieli(pvalues: Sequence[float] | FloatArray, q: float) -> BoolArray:
    """Which hypotheses the Benjamini-Yekutieli step-up procedure rejects at level ``q``.

    Sort the ``m`` p-values, find the largest rank ``k`` with
    ``p_(k) <= k q / (m H_m)`` (``H_m = 1 + 1/2 + ... + 1/m``) and reject the ``k``
    smallest. A NaN p-value counts in ``m`` and is never rejected. Benjamini & Yekutieli
    (2001), "The control of the false discovery rate in multiple testing under dependency",
    Ann. Statist. 29(4):1165-1188.

    Parameters
    ----------
    pvalues : sequence of float
    q : float
        The false discovery rate, strictly between 0 and 1.

    Returns
    -------
    numpy.ndarray of bool
        ``True`` where the hypothesis is rejected, in the order given.

    Examples
    --------
    >>> benjamini_yekutieli([0.001, 0.02, 0.4], q=0.05).tolist()
    [True, False, False]
    """
    p = np.asarray(pvalues, dtype=np.float64)
    m = p.size
    rejected = np.zeros(m, dtype=bool)
    if m == 0:
        return rejected
    harmonic = float(np.sum(1.0 / np.arange(1, m + 1)))
    order = np.argsort(np.where(np.isnan(p), np.inf, p), kind="stable")
    thresholds = np.arange(1, m + 1) / m * (q / harmonic)
    below = np.flatnonzero(p[order] <= thresholds)
    if below.size:
        rejected[order[: below[-1] + 1]] = True
    return rejected


@dataclasses.dataclass(frozen=True, slots=True)
class AltTest(Record):
    """The alternative annotator test of one judge.

    Attributes
    ----------
    judge : object
        The judge, as named in the ratings.
    winning_rate : float
        Share of the tested humans against whom the judge wins (the test of ``h`` rejected
        after the Benjamini-Yekutieli correction); NaN when no human could be tested.
    advantage_probability : float
        ``rho``: the mean over the tested humans of the share of items on which the judge
        represents the remaining humans at least as well as the left-out one. It ranks
        judges: higher is better.
    passed : bool
        ``winning_rate >= 0.5``: the judge may replace a human of this panel.
    epsilon : float
        The cost-benefit margin the test allows the judge (see :func:`alt_test`).
    q : float
        The false discovery rate of the Benjamini-Yekutieli step.
    scoring : str
        How a label is scored against the remaining humans' labels.
    test : str
        ``"t"`` (one-sample t test) or ``"wilcoxon"`` (signed-rank test).
    humans : pandas.DataFrame
        One row per human: ``human``, ``n_items`` (items the human rated with at least one
        other human and the judge), ``judge_wins`` (mean of ``W_judge``: the judge's score
        is at least the human's), ``human_wins`` (mean of ``W_h``), ``mean_difference``
        (mean of ``d = W_h - W_judge``), ``statistic`` (t or the signed-rank W of
        ``d - epsilon``), ``pvalue`` (one-sided, H1: mean ``d`` < ``epsilon``),
        ``rejected``, ``tested`` (False: too few items, listed with the ``reason``) and
        ``reason`` (why a p-value is NaN or the human was not tested, or that the p-value is
        the limit for a ``d`` that is the same on every item; empty otherwise).
    n_items : int
        Items kept: rated by the judge and by at least ``min_raters_per_item`` humans.
    n_humans : int
        Humans tested.
    method : str
        The procedure in words.
    """

    judge: Any
    winning_rate: float
    advantage_probability: float
    passed: bool
    epsilon: float
    q: float
    scoring: str
    test: str
    humans: pd.DataFrame
    n_items: int
    n_humans: int
    method: str

    def _headline(self) -> str:
        if self.n_humans == 0:
            return f"{self.judge}: no human could be tested (epsilon = {self.epsilon:g})"
        wins = int(self.humans["rejected"].sum())
        return (
            f"{self.judge} {'passes' if self.passed else 'fails'} at epsilon = {self.epsilon:g}: "
            f"wins against {wins} of {self.n_humans} humans, rho = {self.advantage_probability:.2f}"
        )

    def to_frame(self) -> pd.DataFrame:
        """The per-human table (a copy)."""
        return self.humans.copy()

    def methods_text(self, format: MethodsFormat = "text") -> str:
        """A methods paragraph for a study report, with its references: the test, its
        options and its outcome, the software. Every number comes from this result.
        ``format``: ``"text"`` or ``"markdown"``."""
        return judge_methods(self, format)


@dataclasses.dataclass(frozen=True, slots=True)
class AltTestRanking(Record):
    """The alternative annotator test of several judges, ranked by advantage probability.

    Attributes
    ----------
    tests : tuple of AltTest
        One test per judge, highest advantage probability first.
    table : pandas.DataFrame
        One row per judge: ``judge``, ``advantage_probability``, ``winning_rate``,
        ``passed``, ``n_humans``, ``n_items``, in the order of ``tests``.
    epsilon : float
    method : str
    """

    tests: tuple[AltTest, ...]
    table: pd.DataFrame
    epsilon: float
    method: str

    def _headline(self) -> str:
        passed = [str(t.judge) for t in self.tests if t.passed]
        best = self.tests[0]
        return (
            f"{len(passed)} of {len(self.tests)} judges pass at epsilon = {self.epsilon:g}; "
            f"highest advantage probability: {best.judge} ({best.advantage_probability:.2f})"
        )

    def to_frame(self) -> pd.DataFrame:
        """The ranking table (a copy)."""
        return self.table.copy()

    def methods_text(self, format: MethodsFormat = "text") -> str:
        """The methods paragraph of each judge's test (:meth:`AltTest.methods_text`), the
        references once at the end. ``format``: ``"text"`` or ``"markdown"``."""
        return judge_methods(self.tests, format)


# ---------------------------------------------------------------------------- validation


def _check_options(
    epsilon: float, q: float, min_raters_per_item: int, min_items_per_rater: int, test: str
) -> None:
    owner = "alt_test"
    if isinstance(epsilon, bool) or not isinstance(epsilon, int | float | np.floating):
        raise InvalidInputError(bad_parameter(owner, "epsilon", "a number in [0, 1)", epsilon))
    if not (0.0 <= float(epsilon) < 1.0):
        raise InvalidInputError(bad_parameter(owner, "epsilon", "a number in [0, 1)", epsilon))
    if isinstance(q, bool) or not isinstance(q, int | float | np.floating) or not 0.0 < q < 1.0:
        raise InvalidInputError(bad_parameter(owner, "q", "strictly between 0 and 1", q))
    for name, value, low in (
        ("min_raters_per_item", min_raters_per_item, 2),
        ("min_items_per_rater", min_items_per_rater, 1),
    ):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
            raise InvalidInputError(bad_parameter(owner, name, f"an integer >= {low}", value))
    check_choice("test", test, ("t", "wilcoxon"), owner)


def _rater_code(ratings: Ratings, name: Any, role: str) -> int:
    """The code of the rater the user named (as written, or as its text)."""
    raters = list(ratings.raters)
    for code, rater in enumerate(raters):
        if rater == name or str(rater) == str(name):
            return code
    listed = ", ".join(repr(shown(r)) for r in raters[:8]) + (", ..." if len(raters) > 8 else "")
    raise InvalidInputError(f"{role} {shown(name)!r} is not a rater of these ratings ({listed})")


def human_panel(
    ratings: Ratings, judges: Sequence[Any], humans: Sequence[Any] | None = None
) -> list[Any]:
    """The humans a judge is compared with, as the ratings name them: ``humans`` when given
    (each checked to be a rater, the judges left out), else every rater that is not one of
    ``judges`` (another model named as a judge is not a human).

    >>> import pandas as pd
    >>> from accord import Ratings
    >>> frame = pd.DataFrame([["a", "a", "b", "a"]], columns=["h1", "h2", "m1", "m2"])
    >>> r = Ratings.from_wide(frame)
    >>> human_panel(r, ["m1", "m2"]), human_panel(r, ["m1"], ["h2", "h1"])
    (['h1', 'h2'], ['h1', 'h2'])
    """
    codes = {_rater_code(ratings, j, "judge") for j in judges}
    if humans is None:
        wanted = set(range(ratings.n_raters))
    else:
        wanted = {_rater_code(ratings, h, "human") for h in humans}
    raters = list(ratings.raters)
    return [raters[c] for c in sorted(wanted - codes)]


def _scoring_name(scoring: Any) -> str:
    if callable(scoring):
        return getattr(scoring, "__name__", "custom")
    check_choice("scoring", scoring, ("accuracy", "neg_rmse"), "alt_test")
    return str(scoring)


# ---------------------------------------------------------------------------- the test


@dataclasses.dataclass(frozen=True, slots=True)
class _Panel:
    """The humans' ratings of the kept items, grouped by item, and the judge's label."""

    item: IntArray  # item code of each human rating kept
    rater: IntArray  # human code of each kept rating
    label: IntArray  # label code of each kept rating
    judge_label: IntArray  # the judge's label code of the rating's item
    n_items: int


def _panel(ratings: Ratings, judge: int, humans: IntArray, min_raters: int) -> _Panel:
    items, raters, labels = ratings.item_codes, ratings.rater_codes, ratings.label_codes
    judge_label = np.full(ratings.n_items, -1, dtype=np.int64)
    own = raters == judge
    judge_label[items[own]] = labels[own]
    is_human = np.isin(raters, humans)
    per_item = np.bincount(items[is_human], minlength=ratings.n_items)
    keep_item = (per_item >= min_raters) & (judge_label >= 0)
    kept = is_human & keep_item[items]
    return _Panel(
        item=items[kept].astype(np.int64),
        rater=raters[kept].astype(np.int64),
        label=labels[kept].astype(np.int64),
        judge_label=judge_label[items[kept]],
        n_items=int(np.count_nonzero(keep_item)),
    )


def _wins_by_counts(panel: _Panel, n_items: int, q: int) -> tuple[BoolArray, BoolArray]:
    """``W_h`` and ``W_judge`` for accuracy: the share of the remaining labels equal to a
    label, compared through the integer counts (the denominators are the same)."""
    counts = np.zeros((n_items, q), dtype=np.int64)
    np.add.at(counts, (panel.item, panel.label), 1)
    human_hits = counts[panel.item, panel.label] - 1
    judge_hits = counts[panel.item, panel.judge_label] - (panel.label == panel.judge_label)
    return human_hits >= judge_hits, judge_hits >= human_hits


def _wins_by_squares(
    panel: _Panel, values: FloatArray, n_items: int
) -> tuple[BoolArray, BoolArray]:
    """``W_h`` and ``W_judge`` for minus the RMSE: the sums of squared differences from the
    remaining labels, compared (the number of remaining labels is the same)."""
    v = values[panel.label]
    s1 = np.bincount(panel.item, weights=v, minlength=n_items)[panel.item] - v
    s2 = np.bincount(panel.item, weights=v * v, minlength=n_items)[panel.item] - v * v
    m = np.bincount(panel.item, minlength=n_items)[panel.item] - 1

    def squares(x: FloatArray) -> FloatArray:
        return np.asarray(m * x * x - 2.0 * x * s1 + s2, dtype=np.float64)

    human, judge = squares(v), squares(values[panel.judge_label])
    return human <= judge, judge <= human


def _wins_by_callable(
    panel: _Panel, ratings: Ratings, scoring: Callable[[Any, list[Any]], float]
) -> tuple[BoolArray, BoolArray]:
    categories = ratings.categories
    order = np.argsort(panel.item, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(panel.item[order]) != 0])
    w_h = np.zeros(panel.item.size, dtype=bool)
    w_j = np.zeros(panel.item.size, dtype=bool)
    for block in np.split(order, starts[1:]):
        labels = [categories[c] for c in panel.label[block]]
        judge = categories[panel.judge_label[block[0]]]
        for k, row in enumerate(block):
            others = labels[:k] + labels[k + 1 :]
            human_score = float(scoring(labels[k], others))
            judge_score = float(scoring(judge, others))
            w_h[row] = human_score >= judge_score
            w_j[row] = judge_score >= human_score
    return w_h, w_j


def _one_sided(d: FloatArray, epsilon: float, test: str) -> tuple[float, float, str]:
    """Statistic and p-value of H0: mean d >= epsilon against H1: mean d < epsilon."""
    from scipy import stats

    if test == "wilcoxon":
        x = d - epsilon
        if np.all(x == 0):
            return math.nan, math.nan, "every d equals epsilon: the signed-rank test is undefined"
        res = stats.wilcoxon(x, alternative="less")
        return float(res.statistic), float(res.pvalue), ""
    if d.size < 2:
        reason = f"one item: the t test is undefined (pass {option('test', 'wilcoxon')})"
        return math.nan, math.nan, reason
    if np.all(d == d[0]):
        return _constant_t(float(d[0]), epsilon)
    res = stats.ttest_1samp(d, epsilon, alternative="less")
    return float(res.statistic), float(res.pvalue), ""


def _constant_t(d: float, epsilon: float) -> tuple[float, float, str]:
    """The t test of a d that is the same on every item: its limit as the variance goes to 0.

    Below epsilon the t statistic goes to minus infinity (p = 0: rejected); at or above it
    the test cannot reject (p = 1; the statistic is infinite above, 0/0 at epsilon)."""
    if d < epsilon:
        return -math.inf, 0.0, f"d = {d:g} on every item, below epsilon: t = -inf, p = 0"
    statistic = math.inf if d > epsilon else math.nan
    return statistic, 1.0, f"d = {d:g} on every item, not below epsilon: p = 1"


def _one_judge(
    ratings: Ratings,
    code: int,
    humans: IntArray,
    *,
    epsilon: float,
    scoring: Any,
    q: float,
    min_raters_per_item: int,
    min_items_per_rater: int,
    test: str,
) -> AltTest:
    humans = humans[humans != code]
    panel = _panel(ratings, code, humans, min_raters_per_item)
    if callable(scoring):
        w_h, w_j = _wins_by_callable(panel, ratings, scoring)
    elif scoring == "accuracy":
        w_h, w_j = _wins_by_counts(panel, ratings.n_items, ratings.n_categories)
    else:
        w_h, w_j = _wins_by_squares(panel, ratings.category_values, ratings.n_items)
    table = _human_table(ratings, panel, humans, w_h, w_j, epsilon, min_items_per_rater, test)
    tested = table["tested"].to_numpy(dtype=bool)
    rejected = np.zeros(len(table), dtype=bool)
    rejected[tested] = benjamini_yekutieli(table.loc[tested, "pvalue"].to_numpy(float), q)
    table.insert(7, "rejected", rejected)
    n_tested = int(tested.sum())
    winning_rate = float(rejected.sum() / n_tested) if n_tested else math.nan
    rho = float(table.loc[tested, "judge_wins"].mean()) if n_tested else math.nan
    name = _scoring_name(scoring)
    return AltTest(
        judge=ratings.raters[code],
        winning_rate=winning_rate,
        advantage_probability=rho,
        passed=bool(n_tested and winning_rate >= 0.5),
        epsilon=float(epsilon),
        q=float(q),
        scoring=name,
        test=test,
        humans=table,
        n_items=panel.n_items,
        n_humans=n_tested,
        method=(
            f"alternative annotator test (leave one human out, scoring {name}, one-sided "
            f"{'t' if test == 't' else 'Wilcoxon signed-rank'} test of d = W_h - W_judge < "
            f"epsilon, Benjamini-Yekutieli at q = {q:g})"
        ),
    )


def _human_table(
    ratings: Ratings,
    panel: _Panel,
    humans: IntArray,
    w_h: BoolArray,
    w_j: BoolArray,
    epsilon: float,
    min_items_per_rater: int,
    test: str,
) -> pd.DataFrame:
    """One row per human: the means of the indicators and the one-sided test of d."""
    rows = []
    for h in humans:
        mine = panel.rater == h
        n = int(np.count_nonzero(mine))
        values: tuple[Any, ...]
        if n < min_items_per_rater:
            reason = f"{n} items, fewer than min_items_per_rater={min_items_per_rater}"
            values = (math.nan,) * 5 + (False, reason)
        else:
            d = w_h[mine].astype(np.float64) - w_j[mine].astype(np.float64)
            statistic, pvalue, reason = _one_sided(d, epsilon, test)
            means = (float(w_j[mine].mean()), float(w_h[mine].mean()), float(d.mean()))
            values = (*means, statistic, pvalue, True, reason)
        rows.append((ratings.raters[h], n, *values))
    return pd.DataFrame(rows, columns=list(_HUMAN_COLUMNS))


#: The per-human table's columns, in order.
_HUMAN_COLUMNS = (
    "human",
    "n_items",
    "judge_wins",
    "human_wins",
    "mean_difference",
    "statistic",
    "pvalue",
    "tested",
    "reason",
)


def _numeric(categories: Sequence[Any]) -> bool:
    try:
        np.asarray(categories, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return True


def _check_distinct(judges: list[Any], codes: list[int]) -> None:
    """Each judge is ranked once: a judge named twice is an error naming it."""
    seen: set[int] = set()
    for name, code in zip(judges, codes, strict=True):
        if code in seen:
            raise InvalidInputError(
                f"{option('judge', name)} is given twice: each judge is tested and ranked "
                "once; name it once"
            )
        seen.add(code)


def alt_test(
    ratings: Ratings,
    judge: Any,
    *,
    epsilon: float,
    scoring: Scoring = "accuracy",
    humans: Sequence[Any] | None = None,
    q: float = 0.05,
    min_raters_per_item: int = 2,
    min_items_per_rater: int = 30,
    test: TestName = "t",
    **read_options: Never,
) -> AltTest | AltTestRanking:
    r"""Can the judge replace a human rater? The alternative annotator test.

    Leave one human :math:`h` out at a time. On each item :math:`i` that :math:`h` rated
    (among the items rated by the judge and by at least ``min_raters_per_item`` humans),
    score :math:`h`'s label and the judge's label against the labels of the remaining
    humans of the item, and set :math:`W_{judge} = 1` when the judge's score is at least
    :math:`h`'s and :math:`W_h = 1` when :math:`h`'s score is at least the judge's. With
    :math:`d = W_h - W_{judge}`, a one-sided test of :math:`H_0: E[d] \ge \varepsilon`
    against :math:`H_1: E[d] < \varepsilon` (a one-sample t test, or the Wilcoxon signed-rank
    test of :math:`d - \varepsilon`) says whether the judge wins against :math:`h`. The
    humans' p-values are corrected by Benjamini-Yekutieli at level ``q``; the *winning
    rate* is the share of tested humans the judge wins against, and the judge passes when
    it is at least 0.5. The *advantage probability* :math:`\rho` is the mean over the tested
    humans of the mean of :math:`W_{judge}`: it ranks judges.

    Parameters
    ----------
    ratings : Ratings
        The humans' and the judge's labels.
    judge : rater id or list of rater ids
        The judge, as named in the rater column; a list tests each and ranks them by
        :math:`\rho` (an :class:`AltTestRanking`).
    epsilon : float
        The cost-benefit margin, in [0, 1): how much more often a human may represent the
        others better than the judge, and the judge still be preferred for its lower cost.
        It has no safe default. As a rule of thumb (Calderon et al. 2025): 0.2 when the
        humans are experts, 0.15 for skilled annotators (trained students or workers), 0.1
        for crowd workers; smaller when the humans agree little among themselves.
    scoring : {"accuracy", "neg_rmse"} or callable, default "accuracy"
        How a label is scored against the remaining labels: the share equal to it (nominal
        labels), minus the root mean squared difference (numeric labels; on an ordinal
        scale of text labels, their positions 0, 1, ..., q - 1 in the declared order), or
        ``scoring(label, others) -> float`` (higher is better; labels as written).
    humans : list of rater ids, optional
        The panel (default: every rater that is not a judge).
    q : float, default 0.05
        False discovery rate of the Benjamini-Yekutieli correction over the humans.
    min_raters_per_item : int, default 2
        Fewest humans an item needs to be kept.
    min_items_per_rater : int, default 30
        Fewest items a human needs to be tested; others are listed untested with the reason.
    test : {"t", "wilcoxon"}, default "t"
        The one-sided test; the signed-rank test for humans with fewer than 30 items.

    Returns
    -------
    AltTest or AltTestRanking

    Notes
    -----
    Each human's d takes values in {-1, 0, 1}. When it is the same on every item its
    variance is 0, and the t test takes its limit as the variance goes to 0, as the authors'
    code does (through ``scipy.stats.ttest_1samp``): a constant d below epsilon (a judge
    that ties or beats the human on every item) drives t to minus infinity, so p = 0 and
    the human is rejected; at or above epsilon the test cannot reject, so p = 1 (where
    scipy gives NaN for a d equal to epsilon, which is never rejected either). The reason
    column says so. A human with a single item has no t test (NaN with the reason); the
    signed-rank test is undefined when every d equals epsilon (NaN, never rejected).

    References
    ----------
    Calderon, N., Reichart, R. & Dror, R. (2025). The Alternative Annotator Test for
    LLM-as-a-Judge: How to Statistically Justify Replacing Human Annotators with LLMs.
    Proc. ACL 2025, 16051-16081. arXiv:2501.10970.

    Examples
    --------
    Three humans and a judge on four items (a toy panel: ``min_items_per_rater`` lowered to
    run it; real studies need 30 items or more per human):

    >>> import accord
    >>> import pandas as pd
    >>> r = accord.Ratings.from_long(pd.DataFrame(
    ...     {"item": [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4],
    ...      "rater": ["ann", "bob", "cy", "llm"] * 4,
    ...      "label": list("aaba" "bbbb" "abaa" "bbab")}),
    ...     item="item", rater="rater", label="label")
    >>> res = accord.alt_test(r, "llm", epsilon=0.2, min_items_per_rater=4, test="wilcoxon")
    >>> res.humans[["human", "judge_wins", "human_wins"]]
      human  judge_wins  human_wins
    0   ann         1.0        1.00
    1   bob         1.0        0.75
    2    cy         1.0        0.50
    >>> round(res.advantage_probability, 2)
    1.0
    """
    refuse_read_options("alt_test", read_options)
    _check_options(epsilon, q, min_raters_per_item, min_items_per_rater, test)
    _scoring_name(scoring)
    if scoring == "neg_rmse" and ratings.level == "nominal" and not _numeric(ratings.categories):
        raise InvalidInputError(
            "scoring='neg_rmse' needs numeric labels; these are text: "
            + ", ".join(repr(shown(c)) for c in ratings.categories[:5])
        )
    judges = list(judge) if isinstance(judge, list | tuple) else [judge]
    if not judges:
        raise InvalidInputError("alt_test needs a judge: pass judge='name' or a list of names")
    judge_codes = [_rater_code(ratings, j, "judge") for j in judges]
    _check_distinct(judges, judge_codes)
    if humans is None:
        panel = np.setdiff1d(np.arange(ratings.n_raters), judge_codes)
    else:
        panel = np.unique([_rater_code(ratings, h, "human") for h in humans])
    if panel.size < 2:
        raise InvalidInputError(
            f"alt_test needs at least two humans besides the judge; these ratings have {panel.size}"
        )
    tests = [
        _one_judge(
            ratings,
            code,
            panel,
            epsilon=epsilon,
            scoring=scoring,
            q=q,
            min_raters_per_item=min_raters_per_item,
            min_items_per_rater=min_items_per_rater,
            test=test,
        )
        for code in judge_codes
    ]
    if not isinstance(judge, list | tuple):
        return tests[0]
    tests.sort(
        key=lambda t: (
            -t.advantage_probability if math.isfinite(t.advantage_probability) else math.inf
        )
    )
    table = pd.DataFrame(
        {
            "judge": [t.judge for t in tests],
            "advantage_probability": [t.advantage_probability for t in tests],
            "winning_rate": [t.winning_rate for t in tests],
            "passed": [t.passed for t in tests],
            "n_humans": [t.n_humans for t in tests],
            "n_items": [t.n_items for t in tests],
        }
    )
    return AltTestRanking(
        tests=tuple(tests), table=table, epsilon=float(epsilon), method=tests[0].method
    )
