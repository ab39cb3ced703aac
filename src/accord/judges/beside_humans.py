"""The judge beside the humans, on the same items: does anything change when it takes a seat?

Three views of one judge and its panel of humans, all on the items the judge and at least two
humans rated:

1. mean pairwise agreement (Cohen's kappa, weighted above the nominal level) of the judge with
   each human, beside the mean agreement of the humans with each other, and the difference
   with a paired bootstrap interval over items;
2. the panel's Krippendorff alpha and Fleiss kappa when the judge takes each human's seat in
   turn, and the change in alpha with its bootstrap interval;
3. the judge against the humans' majority label (and against gold labels): accuracy, the
   confusion matrix, Cohen's kappa and the marginal homogeneity test (does the judge over-use
   a label?).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Never

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._bootstrap import bootstrap_interval
from .._errors import InvalidInputError, bad_parameter
from .._interval import ConfidenceInterval, check_confidence_level
from .._results import Record, Result, plain_fields, to_plain
from .._types import BoolArray, FloatArray, IntArray, Level, RngLike, as_generator
from ..agreement import (
    MarginalHomogeneity,
    agreement_weights,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    marginal_homogeneity,
)
from ..agreement._tables import cohen_tables, pair_features
from ..agreement.inference import Totals, bootstrap_drawn, check_n_boot
from ..agreement.krippendorff import alpha_item_totals
from ..agreement.weights import WEIGHT_SCHEMES, has_order, is_scheme, parse_scheme
from ..consensus import consensus_from_ratings
from ..consensus.gold import gold_codes
from ..data.ratings import Ratings
from ..data.source import refuse_read_options
from ..data.table import ContingencyTable
from ..stats.pairs import PairTables
from .alternative_annotator import _rater_code

__all__ = ["JudgeAgreement", "JudgeVsReference", "judge_agreement"]

#: The per-human table's columns, in order.
HUMAN_COLUMNS = (
    "human",
    "n_items",
    "judge_kappa",
    "judge_ci_low",
    "judge_ci_high",
    "human_kappa",
    "alpha_with_judge",
    "alpha_change",
    "alpha_change_low",
    "alpha_change_high",
    "fleiss_with_judge",
)


@dataclasses.dataclass(frozen=True, slots=True)
class JudgeVsReference(Result):
    """The judge's labels against one reference label per item (the humans' majority, or gold).

    Attributes
    ----------
    reference : str
        ``"consensus"`` (the humans' majority label) or ``"gold"``.
    accuracy : float
        Share of the compared items on which the judge gives the reference label.
    kappa : float
        Cohen's kappa of the judge against the reference (weighted as the pairwise kappas).
    confusion : pandas.DataFrame
        Counts: rows the reference label, columns the judge's label, every category.
    homogeneity : MarginalHomogeneity
        Stuart-Maxwell test (McNemar's with two labels) that the judge gives each label as
        often as the reference: a small p-value says it over- or under-uses some label.
    n_items : int
        Items compared.
    n_left_out : int
        Items left out: a tied majority (consensus) or no gold label (gold).
    note : str
        How the reference was formed and what was left out.
    """

    reference: str
    accuracy: float
    kappa: float
    confusion: pd.DataFrame
    homogeneity: MarginalHomogeneity
    n_items: int
    n_left_out: int
    note: str

    def _headline(self) -> str:
        return (
            f"judge vs {self.reference}: accuracy {self.accuracy:.3g} on {self.n_items} items, "
            f"kappa {self.kappa:.3g}, marginal homogeneity p = {self.homogeneity.pvalue:.3g}"
        )

    def to_frame(self) -> pd.DataFrame:
        """The confusion matrix (a copy)."""
        return self.confusion.copy()

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (the confusion matrix as ``{"categories": [...], "counts": [[...]]}``)."""
        out = plain_fields(self)
        out["confusion"] = {
            "categories": [to_plain(c) for c in self.confusion.index],
            "counts": to_plain(self.confusion.to_numpy()),
        }
        return out


@dataclasses.dataclass(frozen=True, slots=True)
class JudgeAgreement(Record):
    """The judge beside the humans, on the same items (:func:`judge_agreement`).

    Attributes
    ----------
    judge : object
        The judge, as named in the ratings.
    weights : str
        Weights of the pairwise kappas and Fleiss' kappa (``"identity"``: unweighted).
    judge_human : float
        Mean Cohen's kappa of the judge with each human.
    human_human : float
        Mean Cohen's kappa over the pairs of humans.
    difference : float
        ``judge_human - human_human``: negative when the judge agrees with the humans less
        than they agree with each other.
    judge_human_interval, human_human_interval, difference_interval : ConfidenceInterval
        Percentile bootstrap intervals over items; the three come from the same resamples.
    alpha : float
        Krippendorff's alpha of the humans (at ``alpha_level``).
    alpha_level : str
        The level (metric) of alpha.
    fleiss_kappa : float
        Fleiss' kappa of the humans (weighted as the pairwise kappas).
    humans : pandas.DataFrame
        One row per human: ``human``, ``n_items`` (items co-rated with the judge),
        ``judge_kappa`` with its t interval (``judge_ci_low``, ``judge_ci_high``; Fleiss,
        Cohen & Everitt SE), ``human_kappa`` (the human's mean kappa with the other humans),
        ``alpha_with_judge`` (the panel's alpha with the judge in this human's seat),
        ``alpha_change`` (that minus ``alpha``) with its bootstrap interval
        (``alpha_change_low``, ``alpha_change_high``) and ``fleiss_with_judge``.
    pairs : pandas.DataFrame
        Every pair of raters: ``rater_a``, ``rater_b``, ``kind`` (``"judge-human"`` or
        ``"human-human"``), ``n_items``, ``kappa``, ``ci_low``, ``ci_high``.
    consensus : JudgeVsReference
        The judge against the humans' majority label.
    gold : JudgeVsReference or None
        The judge against the gold labels, when given.
    n_items : int
        Items compared: rated by the judge and by at least two humans.
    n_items_left_out : int
        Items of the ratings left out (fewer than two humans, or no judge label).
    confidence_level : float
    n_boot : int
        Bootstrap replicates.
    method : str
        The procedure in words.
    """

    judge: Any
    weights: str
    judge_human: float
    human_human: float
    difference: float
    judge_human_interval: ConfidenceInterval
    human_human_interval: ConfidenceInterval
    difference_interval: ConfidenceInterval
    alpha: float
    alpha_level: str
    fleiss_kappa: float
    humans: pd.DataFrame
    pairs: pd.DataFrame
    consensus: JudgeVsReference
    gold: JudgeVsReference | None
    n_items: int
    n_items_left_out: int
    confidence_level: float
    n_boot: int
    method: str

    def _headline(self) -> str:
        ci = self.difference_interval
        shown = (
            f"{self.confidence_level:.0%} CI {ci.low:.3g} to {ci.high:.3g}"
            if ci.low == ci.low and ci.high == ci.high
            else "no interval" + (": n_boot=0" if self.n_boot == 0 else "")
        )
        return (
            f"{self.judge}: kappa with humans {self.judge_human:.3g} vs among humans "
            f"{self.human_human:.3g}, difference {self.difference:.3g} ({shown})"
        )

    def to_frame(self) -> pd.DataFrame:
        """The per-human table (a copy)."""
        return self.humans.copy()


# ------------------------------------------------------------------------------ the panel


@dataclasses.dataclass(frozen=True, slots=True)
class _Seats:
    """The kept ratings: the panel's (humans and judge) on the kept items."""

    panel: Ratings  # humans and judge, kept items
    humans: Ratings  # humans only, kept items
    judge_label: IntArray  # per item code: the judge's label code (-1: none)
    kept: BoolArray  # per item code
    n_left_out: int


def _seats(ratings: Ratings, judge: int, humans: IntArray) -> _Seats:
    items, raters = ratings.item_codes, ratings.rater_codes
    judge_label = np.full(ratings.n_items, -1, dtype=np.int64)
    own = raters == judge
    judge_label[items[own]] = ratings.label_codes[own]
    is_human = np.isin(raters, humans)
    per_item = np.bincount(items[is_human], minlength=ratings.n_items)
    kept = (per_item >= 2) & (judge_label >= 0)
    rated = np.bincount(items, minlength=ratings.n_items) > 0
    on_kept = kept[items]
    return _Seats(
        panel=ratings.subset(on_kept & (is_human | own)),
        humans=ratings.subset(on_kept & is_human),
        judge_label=judge_label,
        kept=kept,
        n_left_out=int(np.count_nonzero(rated & ~kept)),
    )


def _in_seat(humans: Ratings, seats: _Seats, original: Ratings, judge: int, h: int) -> Ratings:
    """The humans' ratings with the judge's labels in human ``h``'s place (same items)."""
    mine = humans.rater_codes == h
    labels = humans.label_codes.copy()
    labels[mine] = seats.judge_label[humans.item_codes[mine]]
    values = humans.values
    if values is not None and original.values is not None:
        judge_value = np.full(original.n_items, np.nan)
        own = original.rater_codes == judge
        judge_value[original.item_codes[own]] = original.values[own]
        values = values.copy()
        values[mine] = judge_value[humans.item_codes[mine]]
    return dataclasses.replace(humans, label_codes=labels, values=values)


# -------------------------------------------------------------------------- pairwise kappas


def _pair_rows(
    pt: PairTables, judge: int, scheme: str | None, level: float
) -> tuple[pd.DataFrame, BoolArray]:
    """One row per rater pair (Cohen's kappa and its interval) and which pairs hold the judge."""
    rows = []
    with_judge = (pt.pairs[:, 0] == judge) | (pt.pairs[:, 1] == judge)
    for (a, b), is_judge in zip(pt.pairs, with_judge, strict=True):
        first, second = (b, a) if b == judge else (a, b)  # the judge first
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an undefined kappa is NaN in the table
            res = cohen_kappa(pt.table(int(first), int(second)), weights=scheme)
            ci = res.confidence_interval(level)
        rows.append(
            (
                pt.raters[first],
                pt.raters[second],
                "judge-human" if is_judge else "human-human",
                round(float(res.table.sum())),
                res.statistic,
                ci.low,
                ci.high,
            )
        )
    columns = ["rater_a", "rater_b", "kind", "n_items", "kappa", "ci_low", "ci_high"]
    return pd.DataFrame(rows, columns=columns), with_judge


def _mean(values: FloatArray) -> float:
    finite = values[np.isfinite(values)]
    return float(finite.mean()) if finite.size else math.nan


def _pair_totals(
    seats: _Seats, pt: PairTables, with_judge: BoolArray, w: FloatArray | None
) -> tuple[FloatArray, Totals]:
    """Per kept item pair features, and (judge-human mean, human-human mean, difference) of
    their totals, shape (B, 3): both means on the same resample."""
    q = seats.panel.n_categories
    n_p = pt.n_pairs
    feats = pair_features(seats.panel, pt, np.arange(n_p))[np.flatnonzero(seats.kept)]

    def stat(t: FloatArray) -> FloatArray:
        k = cohen_tables(t.reshape(t.shape[0], n_p, q, q), w)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a replicate with no defined pair
            jh = np.nanmean(k[:, with_judge], axis=1)
            hh = np.nanmean(k[:, ~with_judge], axis=1)
        return np.column_stack([jh, hh, jh - hh])

    return feats, stat


def _replicates(
    seats: _Seats,
    pair_totals: tuple[FloatArray, Totals],
    panels: Sequence[Ratings],
    level: Level,
    n_boot: int,
    gen: np.random.Generator,
) -> tuple[FloatArray, list[FloatArray | None]]:
    """Bootstrap replicates over the kept items, every statistic on the same resamples: the
    pair means (n_boot, 3) and the alpha of each panel (None where alpha is undefined)."""
    features: list[Any] = [pair_totals[0]]
    statistics: list[Totals] = [pair_totals[1]]
    defined = []
    for panel in panels:
        totals = alpha_item_totals(panel, level)
        defined.append(totals is not None)
        if totals is not None:
            if not np.array_equal(totals[2], seats.kept):  # pragma: no cover - kept items
                raise AssertionError("alpha's pairable items are not the kept items")
            features.append(totals[0])
            statistics.append(totals[1])
    reps = iter(bootstrap_drawn(features, statistics, n_boot=n_boot, rng=gen))
    pair_reps = next(reps)
    return pair_reps, [next(reps) if ok else None for ok in defined]


def _interval(statistic: float, reps: FloatArray | None, level: float) -> ConfidenceInterval:
    if reps is None or reps.size == 0:
        return ConfidenceInterval(math.nan, math.nan)
    return bootstrap_interval(statistic, reps, None, level=level, method="percentile")


# -------------------------------------------------------------------------- seats and alpha


def _seat_rows(
    seats: _Seats,
    seated: Sequence[Ratings],
    alpha_reps: Sequence[FloatArray | None] | None,
    opts: dict[str, Any],
) -> tuple[float, float, list[tuple[float, ...]]]:
    """Alpha and Fleiss of the humans, and per human: alpha and Fleiss with the judge in the
    seat, the change in alpha and its bootstrap interval (both alphas on the same item
    resamples). ``alpha_reps``: replicates of the humans' alpha then of each seating."""
    level, scheme, conf = opts["level"], opts["scheme"], opts["confidence_level"]
    reps = list(alpha_reps) if alpha_reps is not None else [None] * (len(seated) + 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined coefficients are NaN in the table
        base = krippendorff_alpha(seats.humans, level=level).statistic
        fleiss = fleiss_kappa(seats.humans, weights=scheme).statistic
        rows: list[tuple[float, ...]] = []
        for panel, seat_reps in zip(seated, reps[1:], strict=True):
            alpha = krippendorff_alpha(panel, level=level).statistic
            change = alpha - base
            diff = None
            if seat_reps is not None and reps[0] is not None:
                diff = seat_reps - reps[0]
            interval = _interval(change, diff, conf)
            fleiss_seat = fleiss_kappa(panel, weights=scheme).statistic
            rows.append((alpha, change, interval.low, interval.high, fleiss_seat))
    return base, fleiss, rows


# ------------------------------------------------------------------------------ references


def _vs_reference(
    judge_codes: IntArray,
    reference: IntArray,
    categories: tuple[Any, ...],
    scheme: str | None,
    *,
    name: str,
    note: str,
) -> JudgeVsReference:
    """The judge's label codes against the reference codes (-1: no reference, left out)."""
    has = reference >= 0
    q = len(categories)
    counts = np.bincount(reference[has] * q + judge_codes[has], minlength=q * q).reshape(q, q)
    labels = pd.Index(list(categories), dtype=object)
    confusion = pd.DataFrame(
        counts,
        index=labels.rename(name),
        columns=labels.rename("judge"),
    )
    n = int(has.sum())
    if n == 0:  # nothing to compare: NaN with the reason
        why = f"no item has a {name} label"
        homogeneity = MarginalHomogeneity(
            math.nan, 0, math.nan, "stuart_maxwell", pd.Series(dtype=float), 0, (), why
        )
        return JudgeVsReference(
            name, math.nan, math.nan, confusion, homogeneity, 0, int(has.size), f"{note}; {why}"
        )
    table = ContingencyTable(counts, categories, raters=(name, "judge"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kappa = cohen_kappa(table, weights=scheme).statistic
        homogeneity = marginal_homogeneity(table)
    return JudgeVsReference(
        reference=name,
        accuracy=float(np.trace(counts) / n),
        kappa=kappa,
        confusion=confusion,
        homogeneity=homogeneity,
        n_items=n,
        n_left_out=int(has.size - n),
        note=note,
    )


def _majority(seats: _Seats, categories: tuple[Any, ...]) -> IntArray:
    """The humans' majority label code of each kept item (-1 where the mode is tied)."""
    items = consensus_from_ratings(seats.humans).items
    kept = np.flatnonzero(seats.kept)
    rows = items.iloc[kept]
    codes = pd.Index(list(categories), dtype=object).get_indexer(
        pd.Index(rows["mode"].astype(object).tolist(), dtype=object)
    )
    out: IntArray = np.where(rows["n_modes"].to_numpy() == 1, codes, -1).astype(np.int64)
    return out


# ------------------------------------------------------------------------------ entry point


def _check_options(weights: Any, confidence_level: Any, n_boot: Any) -> None:
    owner = "judge_agreement"
    if weights is not None and not is_scheme(weights):
        named = (None, *WEIGHT_SCHEMES, "power:<exponent>", "circular:<u>")
        choices = "one of " + ", ".join(repr(s) for s in named)
        raise InvalidInputError(bad_parameter(owner, "weights", choices, weights))
    if weights is not None:
        parse_scheme(weights, owner)  # a bad number after the colon, in one line
    check_confidence_level(confidence_level, owner)
    check_n_boot(n_boot, owner)


def judge_agreement(
    ratings: Ratings,
    judge: Any,
    *,
    humans: Sequence[Any] | None = None,
    weights: str | None = None,
    confidence_level: float = 0.95,
    n_boot: int = 2000,
    rng: RngLike = None,
    gold: Mapping[Any, Any] | pd.Series | Sequence[Any] | npt.ArrayLike | None = None,
    **read_options: Never,
) -> JudgeAgreement:
    r"""The judge beside the humans, on the same items: pairwise kappas, alpha, consensus.

    On the items rated by the judge and by at least two humans:

    - the mean Cohen's kappa of the judge with each human, :math:`\bar\kappa_{JH}`, beside
      the mean over the pairs of humans, :math:`\bar\kappa_{HH}` (Light's kappa of the
      humans), and :math:`\bar\kappa_{JH} - \bar\kappa_{HH}` with a paired bootstrap
      interval: each replicate resamples the items and recomputes both means on it;
    - Krippendorff's alpha and Fleiss' kappa of the humans, and of the panel with the judge
      in each human's seat (the judge's label on the items that human rated), with the
      change in alpha and its bootstrap interval (both alphas on the same resamples);
    - the judge against the humans' majority label, and against ``gold``: accuracy, the
      confusion matrix, Cohen's kappa and the Stuart-Maxwell test of marginal homogeneity
      (McNemar's with two labels), which says whether the judge over-uses a label.

    Parameters
    ----------
    ratings : Ratings
        The humans' and the judge's labels.
    judge : rater id
        The judge, as named in the rater column.
    humans : list of rater ids, optional
        The panel (default: every other rater).
    weights : str, optional
        Agreement weights of the kappas (a scheme of :func:`accord.agreement_weights`).
        Default: unweighted for nominal ratings, ``"quadratic"`` for ordinal, interval and
        ratio ratings, as :func:`accord.agreement` does. Alpha uses the ratings' level.
    confidence_level : float, default 0.95
    n_boot : int, default 2000
        Bootstrap replicates of the intervals (0: none, the intervals are NaN).
    rng : Generator, int or None
        Random source of the bootstrap; an integer makes the intervals reproducible.
    gold : mapping item -> label, Series indexed by item, or sequence, optional
        Gold labels (a sequence: one per item of ``ratings.items``).

    Returns
    -------
    JudgeAgreement

    Raises
    ------
    InvalidInputError
        A judge or human that is not a rater, fewer than two humans, no item rated by the
        judge and two humans, an option outside its domain, gold labels outside the
        categories.

    Notes
    -----
    Every figure uses the same items: those rated by the judge and at least two humans
    (``n_items``); the others are counted in ``n_items_left_out``. Each pair's kappa uses
    the items both raters rated among them; a pair whose kappa is undefined (both raters
    used one label) is left out of the means. The majority label is the humans' modal
    label; items where two or more labels tie for the mode have none and are left out of
    the consensus comparison (``consensus.n_left_out``). On incomplete designs Fleiss'
    kappa is Gwet's (2014) generalisation (chance agreement from the pooled proportions of
    all rated items), as :func:`accord.fleiss_kappa` computes it. The bootstrap intervals
    are percentile intervals, all from the same resamples of the items: each replicate
    draws its item indices (``rng.integers(0, n, size=n)``) and every statistic is
    recomputed from the per-item contributions weighted by their counts.

    References
    ----------
    .. [1] Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
       Psychological Measurement 20(1), 37-46. https://doi.org/10.1177/001316446002000104
    .. [2] Light, R. J. (1971). Measures of response agreement for qualitative data: some
       generalizations and alternatives. Psychological Bulletin 76(5), 365-377.
    .. [3] Stuart, A. (1955). A test for homogeneity of the marginal distributions in a
       two-way classification. Biometrika 42, 412-416.

    Examples
    --------
    >>> import accord
    >>> import pandas as pd
    >>> r = accord.Ratings.from_long(pd.DataFrame(
    ...     {"item": [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4],
    ...      "rater": ["ann", "bob", "cy", "llm"] * 4,
    ...      "label": list("aaba" "bbbb" "abaa" "bbab")}),
    ...     item="item", rater="rater", label="label")
    >>> res = accord.judge_agreement(r, "llm", n_boot=200, rng=1)
    >>> res.judge_human, res.human_human, res.difference
    (0.5, 0.0, 0.5)
    >>> res.humans[["human", "judge_kappa", "human_kappa", "alpha_change"]]
      human  judge_kappa  human_kappa  alpha_change
    0   ann          1.0         0.25      0.000000
    1   bob          0.5         0.00      0.331746
    2    cy          0.0        -0.25      0.628571
    >>> res.consensus.accuracy
    1.0
    """
    refuse_read_options("judge_agreement", read_options)
    _check_options(weights, confidence_level, n_boot)
    code, panel = _panel_codes(ratings, judge, humans)
    seats = _seats(ratings, code, panel)
    n_items = int(seats.kept.sum())
    if n_items == 0:
        raise InvalidInputError(
            f"judge_agreement: no item is rated by judge {judge!r} and at least two humans"
        )
    scheme = (
        weights if weights is not None else (None if ratings.level == "nominal" else "quadratic")
    )
    ordered = has_order(ratings.categories, ratings.level, ratings.categories_declared)
    w = (
        None
        if scheme is None
        else agreement_weights(scheme, ratings.categories, owner="judge_agreement", ordered=ordered)
    )
    gen = as_generator(rng)
    pt = PairTables.from_ratings(seats.panel)
    pairs, with_judge = _pair_rows(pt, code, scheme, confidence_level)
    kappas = pairs["kappa"].to_numpy(dtype=np.float64)
    jh, hh = _mean(kappas[with_judge]), _mean(kappas[~with_judge])
    seated = [_in_seat(seats.humans, seats, ratings, code, int(h)) for h in panel]
    reps, alpha_reps = None, None
    if n_boot:
        pair_totals = _pair_totals(seats, pt, with_judge, w)
        panels = [seats.humans, *seated]
        reps, alpha_reps = _replicates(seats, pair_totals, panels, ratings.level, n_boot, gen)
    intervals = [
        _interval(value, None if reps is None else reps[:, j], confidence_level)
        for j, value in enumerate((jh, hh, jh - hh))
    ]
    opts = dict(level=ratings.level, scheme=scheme, confidence_level=confidence_level)
    alpha, fleiss, seat_rows = _seat_rows(seats, seated, alpha_reps, opts)
    table = _human_table(ratings, pairs, panel, seat_rows)
    consensus, gold_result = _references(seats, ratings, scheme, gold)
    wname = "identity" if scheme is None else scheme
    return JudgeAgreement(
        judge=ratings.raters[code],
        weights=wname,
        judge_human=jh,
        human_human=hh,
        difference=jh - hh,
        judge_human_interval=intervals[0],
        human_human_interval=intervals[1],
        difference_interval=intervals[2],
        alpha=alpha,
        alpha_level=str(ratings.level),
        fleiss_kappa=fleiss,
        humans=table,
        pairs=pairs,
        consensus=consensus,
        gold=gold_result,
        n_items=n_items,
        n_items_left_out=seats.n_left_out,
        confidence_level=float(confidence_level),
        n_boot=int(n_boot),
        method=(
            f"mean pairwise Cohen's kappa ({wname} weights) judge-human vs human-human on the "
            "items rated by the judge and >= 2 humans; "
            f"percentile bootstrap over items ({n_boot} replicates); Krippendorff's alpha "
            f"({ratings.level}) with the judge in each human's seat; judge vs the humans' "
            "majority label: Stuart-Maxwell marginal homogeneity (McNemar for two labels)"
        ),
    )


def _panel_codes(ratings: Any, judge: Any, humans: Sequence[Any] | None) -> tuple[int, IntArray]:
    """The judge's rater code and the humans', checked."""
    if not isinstance(ratings, Ratings):
        raise InvalidInputError(
            f"judge_agreement needs Ratings (accord.Ratings.from_long / from_wide / "
            f"read_ratings), got {type(ratings).__name__}"
        )
    if ratings.n_categories < 2:
        raise InvalidInputError(
            f"judge_agreement needs at least two categories (kappa is undefined with one); "
            f"these ratings have {list(ratings.categories)!r}: declare the categories"
        )
    code = _rater_code(ratings, judge, "judge")
    if humans is None:
        panel = np.setdiff1d(np.arange(ratings.n_raters), [code])
    else:
        panel = np.setdiff1d(np.unique([_rater_code(ratings, h, "human") for h in humans]), [code])
    if panel.size < 2:
        raise InvalidInputError(
            f"judge_agreement needs at least two humans besides the judge; got {panel.size}"
        )
    return code, panel.astype(np.int64)


def _references(
    seats: _Seats, ratings: Ratings, scheme: str | None, gold: Any
) -> tuple[JudgeVsReference, JudgeVsReference | None]:
    """The judge against the humans' majority label, and against gold when given."""
    judge_codes = seats.judge_label[seats.kept]
    consensus = _vs_reference(
        judge_codes,
        _majority(seats, ratings.categories),
        ratings.categories,
        scheme,
        name="consensus",
        note="the humans' modal label; items with a tied mode are left out",
    )
    if gold is None:
        return consensus, None
    codes = gold_codes(gold, ratings.items, ratings.categories)[seats.kept]
    return consensus, _vs_reference(
        judge_codes,
        codes,
        ratings.categories,
        scheme,
        name="gold",
        note="the gold labels; items without one are left out",
    )


def _human_table(
    ratings: Ratings, pairs: pd.DataFrame, panel: IntArray, seat_rows: list[tuple[float, ...]]
) -> pd.DataFrame:
    """One row per human: the judge's kappa with them, their mean kappa with the other
    humans, and the panel with the judge in their seat."""
    rows = []
    for h, seat in zip(panel, seat_rows, strict=True):
        name = ratings.raters[h]
        with_judge = pairs[(pairs["kind"] == "judge-human") & (pairs["rater_b"] == name)]
        others = pairs[
            (pairs["kind"] == "human-human")
            & ((pairs["rater_a"] == name) | (pairs["rater_b"] == name))
        ]
        if len(with_judge):
            row = with_judge.iloc[0]
            judge_cells = (int(row["n_items"]), row["kappa"], row["ci_low"], row["ci_high"])
        else:
            judge_cells = (0, math.nan, math.nan, math.nan)
        rows.append((name, *judge_cells, _mean(others["kappa"].to_numpy(float)), *seat))
    return pd.DataFrame(rows, columns=list(HUMAN_COLUMNS))
