"""Does a judge agree with itself? Test-retest agreement of a judge run several times on the
same items, the items whose verdict flips between runs, and the judge's own noise beside the
humans' disagreement."""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Sequence
from typing import Any, Never

import numpy as np
import pandas as pd

from .._errors import DegenerateDataWarning, InvalidInputError, bad_choice, shown
from .._interval import check_confidence_level
from .._results import Record
from .._types import Level
from .._validate import at_rows, require_columns
from ..agreement.icc import icc
from ..agreement.krippendorff import krippendorff_alpha
from ..agreement.many_raters import fleiss_kappa
from ..data.frames import frame_to_pandas
from ..data.ratings import Ratings
from ..data.source import refuse_read_options
from .alternative_annotator import AltTest, AltTestRanking, alt_test

__all__ = ["JudgeConsistency", "judge_consistency", "majority_over_runs"]

LEVELS = ("nominal", "ordinal", "interval", "ratio")

#: The columns of :attr:`JudgeConsistency.table`.
TABLE_COLUMNS = [
    "rater",
    "kind",
    "n_items",
    "n_runs",
    "alpha",
    "alpha_ci_low",
    "alpha_ci_high",
    "kappa",
    "kappa_ci_low",
    "kappa_ci_high",
    "icc",
    "icc_ci_low",
    "icc_ci_high",
    "flip_rate",
    "mean_pair_disagreement",
    "n_fragile",
]


@dataclasses.dataclass(frozen=True, slots=True)
class JudgeConsistency(Record):
    """A judge's agreement with itself over repeated runs, beside the humans' agreement
    with each other.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per judge (``kind`` ``"intra-rater (runs)"``: the runs in the raters'
        place) and, when the data hold humans, one row ``"humans"`` (``kind``
        ``"inter-rater"``). Columns: ``rater``, ``kind``, ``n_items``, ``n_runs`` (runs, or
        humans), Krippendorff's ``alpha`` at the data's level, Fleiss' ``kappa`` (nominal
        data; NaN otherwise) and ``icc`` (ICC(A,1), interval and ratio data; NaN
        otherwise), each with ``*_ci_low`` and ``*_ci_high``; for a judge ``flip_rate``
        (share of its items whose label is not the same in every run),
        ``mean_pair_disagreement`` (mean over items of the share of pairs of runs that
        disagree) and ``n_fragile`` (items that flipped).
    items : pandas.DataFrame
        One row per (judge, item) with two runs or more: ``judge``, ``item``, ``n_runs``,
        ``n_labels`` (distinct labels over the runs), ``majority`` (the modal label, ties
        going to the one given in the earliest run; the mean at interval and ratio level),
        ``majority_share`` and ``flip_rate`` (share of pairs of runs that disagree), the
        fragile items first (``flip_rate`` descending, then ``item``).
    alt_test : AltTest, AltTestRanking or None
        The alternative annotator test of the judge's majority label over runs against
        the humans, when ``epsilon`` was given.
    level : str
        The level of measurement.
    confidence_level : float
        The level of the intervals.
    n_judges : int
        The judges.
    method : str
        The definitions, in words.
    reason : str or None
        Why a coefficient is NaN, when one is.
    """

    table: pd.DataFrame
    items: pd.DataFrame
    alt_test: AltTest | AltTestRanking | None
    level: str
    confidence_level: float
    n_judges: int
    method: str
    reason: str | None = None

    def _headline(self) -> str:
        judges = self.table[self.table["kind"] != "inter-rater"]
        column = "icc" if self.level in ("interval", "ratio") else "alpha"
        parts = [
            f"{r['rater']} with itself {column} {r[column]:.3f}, flips on "
            f"{r['flip_rate']:.1%} of items"
            for _, r in judges.iterrows()
        ]
        humans = self.table[self.table["kind"] == "inter-rater"]
        if len(humans):
            parts.append(f"humans with each other {column} {humans[column].iloc[0]:.3f}")
        return "; ".join(parts)

    def to_frame(self) -> pd.DataFrame:
        """The table: each judge's test-retest agreement, and the humans'."""
        return self.table

    def fragile(self) -> pd.DataFrame:
        """The items whose label changed between runs, the most fragile first."""
        return self.items[self.items["flip_rate"] > 0].reset_index(drop=True)


def _coefficients(ratings: Ratings, level: Level, confidence: float) -> dict[str, float]:
    """Alpha at ``level``, Fleiss' kappa (nominal) and ICC(A,1) (interval, ratio) of
    ``ratings``, with their analytic intervals (NaN where a form does not apply)."""
    out: dict[str, float] = {}
    reasons: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        found: dict[str, Any] = {"alpha": krippendorff_alpha(ratings, level=level)}
        if level == "nominal":
            found["kappa"] = fleiss_kappa(ratings)
        if level in ("interval", "ratio"):
            found["icc"] = icc(ratings)["ICC(A,1)"]
    for name in ("alpha", "kappa", "icc"):
        res = found.get(name)
        if res is None:
            out.update({name: math.nan, f"{name}_ci_low": math.nan, f"{name}_ci_high": math.nan})
            continue
        ci = res.confidence_interval(confidence)
        out.update({name: res.statistic, f"{name}_ci_low": ci.low, f"{name}_ci_high": ci.high})
        if res.reason and math.isnan(res.statistic):
            reasons.append(f"{name}: {res.reason}")
    out["reason"] = "; ".join(reasons) or None  # type: ignore[assignment]
    return out


def _item_table(rows: pd.DataFrame, level: str) -> pd.DataFrame:
    """Per item of one judge (``rows``: columns item, trial, label, order): runs, distinct
    labels, the majority label (mean at interval/ratio level), its share and the share
    of disagreeing pairs of runs."""
    counts = rows.groupby(["item", "label"], sort=False).agg(
        n=("order", "size"), first=("order", "min")
    )
    counts = counts.reset_index()
    agree_pairs = (counts["n"] * (counts["n"] - 1)).groupby(counts["item"], sort=False).sum()
    runs = counts.groupby("item", sort=False)["n"].sum()
    top = counts.assign(_neg=-counts["n"]).sort_values(["item", "_neg", "first"])
    top = top.drop_duplicates("item").set_index("item")
    out = pd.DataFrame(
        {
            "n_runs": runs,
            "n_labels": counts.groupby("item", sort=False).size(),
            "majority": top["label"].reindex(runs.index),
            "majority_share": (top["n"].reindex(runs.index) / runs),
            "flip_rate": 1.0 - agree_pairs / (runs * (runs - 1)),
        }
    )
    if level in ("interval", "ratio"):
        out["majority"] = rows.groupby("item", sort=False)["label"].mean().reindex(out.index)
    return out.rename_axis("item").reset_index()


def _check_repeats(rows: pd.DataFrame, keys: list[str], names: tuple[str, str]) -> None:
    """Refuse two labels of one (item, trial) of a judge, or of one (item, human)."""
    repeated = rows.duplicated(keys, keep=False).to_numpy()
    if repeated.any():
        first = rows[repeated].iloc[0]
        where = f" in {names[1]} {shown(first['trial'])!r}" if "trial" in keys else ""
        raise InvalidInputError(
            f"judge_consistency: {first['rater']!r} labelled item {shown(first['item'])!r} "
            f"more than once{where} ({at_rows(rows['row'].to_numpy()[repeated] - 1)});"
            f" a judge gives one label per {names[0]!r} and {names[1]!r}, a human one per "
            f"{names[0]!r}"
        )


def _judge_row(
    name: str, rows: pd.DataFrame, level: Level, confidence: float, columns: tuple[str, str, str]
) -> tuple[dict[str, Any], pd.DataFrame]:
    """One judge's row of the table (its runs in the raters' place) and its item table
    (every item, those with one run included)."""
    _check_repeats(rows, ["item", "trial"], (columns[0], columns[1]))
    ratings = Ratings.from_arrays(
        rows["item"].to_numpy(), rows["trial"].to_numpy(), rows["label"].to_numpy(),
        level=level, columns=columns, source=f"judge {name!r}", na_values=[],
    )  # fmt: skip
    every = _item_table(rows, level)
    items = every[every["n_runs"] >= 2]
    coefficients = _coefficients(ratings, level, confidence)
    row = {
        "rater": name,
        "kind": "intra-rater (runs)",
        "n_items": len(items),
        "n_runs": int(rows["trial"].nunique()),
        **coefficients,
        "flip_rate": float((items["flip_rate"] > 0).mean()) if len(items) else math.nan,
        "mean_pair_disagreement": float(items["flip_rate"].mean()) if len(items) else math.nan,
        "n_fragile": int((items["flip_rate"] > 0).sum()),
    }
    return row, every.assign(judge=name)


def _humans_row(
    rows: pd.DataFrame, level: Level, confidence: float, columns: tuple[str, str, str]
) -> tuple[dict[str, Any], Ratings]:
    """The humans' inter-rater row, and their ratings (one label per item and human)."""
    _check_repeats(rows, ["item", "rater"], (columns[0], columns[1]))
    ratings = Ratings.from_arrays(
        rows["item"].to_numpy(), rows["rater"].to_numpy(), rows["label"].to_numpy(),
        level=level, columns=columns, source="the humans", na_values=[],
    )  # fmt: skip
    row = {
        "rater": "humans",
        "kind": "inter-rater",
        "n_items": int(rows["item"].nunique()),
        "n_runs": int(rows["rater"].nunique()),
        **_coefficients(ratings, level, confidence),
        "flip_rate": math.nan,
        "mean_pair_disagreement": math.nan,
        "n_fragile": 0,
    }
    return row, ratings


def _long(
    data: Any, item: str, rater: str, label: str, trial: str
) -> tuple[pd.DataFrame, tuple[str, str, str]]:
    """The four columns as ``item``, ``rater``, ``label``, ``trial`` and ``order`` (the
    rank of the trial), rows with a missing label left out."""
    frame = data if isinstance(data, pd.DataFrame) else frame_to_pandas(data)
    require_columns([item, rater, label, trial], list(frame.columns))
    if frame.empty:
        raise InvalidInputError("judge_consistency: the input has no rows")
    out = pd.DataFrame(
        {
            "item": frame[item].to_numpy(),
            "rater": frame[rater].astype(str).to_numpy(),
            "label": frame[label].to_numpy(),
            "trial": frame[trial].to_numpy(),
            "row": np.arange(1, len(frame) + 1),
        }
    )
    out = out[out["label"].notna()].reset_index(drop=True)
    out["order"] = out["trial"].rank(method="dense").fillna(0).astype(np.int64)
    return out, (item, trial, label)


def judge_consistency(
    data: Any,
    judge: str | Sequence[str],
    *,
    item: str = "item",
    rater: str = "rater",
    label: str = "label",
    trial: str = "trial",
    level: Level = "nominal",
    humans: Sequence[str] | None = None,
    epsilon: float | None = None,
    min_items_per_rater: int = 30,
    min_raters_per_item: int = 2,
    confidence_level: float = 0.95,
    **read_options: Never,
) -> JudgeConsistency:
    r"""Does the judge agree with itself? Test-retest agreement over repeated runs, the items
    whose label flips, and the judge's noise beside the humans' disagreement.

    Each row is one label: the ``judge`` (a model run several times on the same items, the
    run named in ``trial``) or a human (one label per item; the trial column is not read
    for humans). For each judge the runs take the raters' place: its test-retest agreement
    is Krippendorff's alpha at the data's ``level`` over the items x runs table (missing
    runs allowed), with Fleiss' kappa for nominal labels and the intra-rater ICC(A,1)
    (as :func:`accord.intrarater_icc`) for scores. Per item, with :math:`r` runs and
    :math:`n_c` of them giving label :math:`c`,

    .. math::

        \text{flip rate}_i = 1 - \frac{\sum_c n_c (n_c - 1)}{r (r - 1)},

    the share of pairs of runs that disagree; an item is *fragile* when it is above 0.
    The same coefficients over the humans (the humans in the raters' place) put the
    judge's own noise beside the humans' disagreement with each other.

    Parameters
    ----------
    data : DataFrame-like
        One label per row (pandas, polars or pyarrow).
    judge : str or sequence of str
        The judge (or judges), as named in the ``rater`` column.
    item, rater, label, trial : str
        Column names. A judge gives one label per (item, trial): several labels of one
        item by one judge are data, one per run, not duplicates.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of measurement of the labels.
    humans : sequence of str, optional
        The human panel (default: every rater not a judge).
    epsilon : float, optional
        When given, the alternative annotator test (:func:`accord.alt_test`, accuracy for
        labels, negative RMSE at interval and ratio level) of each judge's majority label
        over its runs (the mean at interval and ratio level) against the humans.
    min_items_per_rater, min_raters_per_item : int
        As :func:`accord.alt_test`.
    confidence_level : float, default 0.95
        The level of the intervals (each coefficient's analytic interval).

    Returns
    -------
    JudgeConsistency

    Raises
    ------
    ColumnNotFoundError
        A column is missing.
    InvalidInputError
        No such judge, a judge who labelled an item twice in one trial, a human who
        labelled an item twice, an unknown level.

    Notes
    -----
    Alpha is Krippendorff's (2004), its interval Gwet's (2014) linearisation as
    :func:`accord.krippendorff_alpha` gives it; Fleiss' kappa is Fleiss (1971) with
    Gwet's variance; ICC(A,1) is McGraw & Wong's (1996) absolute agreement of one
    reading, the form Koo & Li (2016) recommend for test-retest reliability. A judge with
    one run has NaN coefficients with a reason. The majority label breaks a tie of counts
    in favour of the label of the earliest run among the tied (runs ordered by the
    ``trial`` values), so that it is reproducible.

    References
    ----------
    .. [1] Krippendorff, K. (2004). Reliability in content analysis: some common
       misconceptions and recommendations. Human Communication Research 30(3), 411-433.
       https://doi.org/10.1111/j.1468-2958.2004.tb00738.x
    .. [2] Koo, T. K., & Li, M. Y. (2016). A guideline of selecting and reporting
       intraclass correlation coefficients for reliability research. Journal of
       Chiropractic Medicine 15(2), 155-163. https://doi.org/10.1016/j.jcm.2016.02.012
    .. [3] Calderon, N., Reichart, R., & Dror, R. (2025). The alternative annotator test
       for LLM-as-a-judge. ACL 2025. https://arxiv.org/abs/2501.10970

    Examples
    --------
    A judge run three times on four items flips on item 3; two humans label the items:

    >>> import pandas as pd
    >>> runs = pd.DataFrame({"item": [1, 2, 3, 4] * 3, "rater": "llm",
    ...                      "trial": [1] * 4 + [2] * 4 + [3] * 4,
    ...                      "label": list("abab") + list("abbb") + list("abab")})
    >>> humans = pd.DataFrame({"item": [1, 2, 3, 4] * 2, "rater": ["h1"] * 4 + ["h2"] * 4,
    ...                        "trial": 1, "label": list("abab") + list("abbb")})
    >>> res = judge_consistency(pd.concat([runs, humans]), "llm")
    >>> res.fragile()[["item", "majority", "flip_rate"]].to_dict(orient="records")
    [{'item': 3, 'majority': 'a', 'flip_rate': 0.6666666666666667}]
    >>> [round(float(a), 3) for a in res.table["alpha"]]
    [0.686, 0.533]
    """
    refuse_read_options("judge_consistency", read_options)
    _check_options(level, confidence_level)
    long, columns = _long(data, item, rater, label, trial)
    judges = [judge] if isinstance(judge, str) else [str(j) for j in judge]
    present = set(long["rater"])
    missing = [j for j in judges if j not in present]
    if missing:
        raise InvalidInputError(
            f"judge_consistency: no rows of judge {missing[0]!r} in column {rater!r}"
        )
    panel = [h for h in present - set(judges)] if humans is None else [str(h) for h in humans]
    rows, tables = [], []
    for name in judges:
        row, items = _judge_row(name, long[long["rater"] == name], level, confidence_level, columns)
        rows.append(row)
        tables.append(items)
    human_rows = long[long["rater"].isin(panel)]
    human_ratings = None
    if len(human_rows):
        row, human_ratings = _humans_row(human_rows, level, confidence_level, columns)
        rows.append(row)
    every = pd.concat(tables, ignore_index=True)
    items = every[every["n_runs"] >= 2].sort_values(
        ["flip_rate", "judge", "item"], ascending=[False, True, True]
    )
    test = None
    if epsilon is not None and human_ratings is None:
        raise InvalidInputError(
            "judge_consistency: epsilon asks for the alt-test against the humans, and the "
            f"data hold no rater but the judges ({', '.join(judges)})"
        )
    if epsilon is not None:
        test = _alt_test(every, human_rows, judges, level, epsilon,
                         min_items_per_rater, min_raters_per_item)  # fmt: skip
    reasons = [f"{r['rater']}: {r['reason']}" for r in rows if r["reason"]]
    if reasons:
        warnings.warn("judge_consistency: " + "; ".join(reasons), DegenerateDataWarning, 2)
    return JudgeConsistency(
        table=pd.DataFrame(rows)[TABLE_COLUMNS],
        items=items[
            ["judge", "item", "n_runs", "n_labels", "majority", "majority_share", "flip_rate"]
        ].reset_index(drop=True),
        alt_test=test,
        level=str(level),
        confidence_level=float(confidence_level),
        n_judges=len(judges),
        method=(
            "each judge's runs in the raters' place (test-retest), the humans in theirs "
            "(inter-rater); flip rate per item: share of pairs of runs that disagree"
        ),
        reason="; ".join(reasons) or None,
    )


def _alt_test(
    items: pd.DataFrame,
    human_rows: pd.DataFrame,
    judges: list[str],
    level: Level,
    epsilon: float,
    min_items_per_rater: int,
    min_raters_per_item: int,
) -> AltTest | AltTestRanking:
    """The alt-test of each judge's majority label over runs against the humans."""
    majority = pd.DataFrame(
        {"item": items["item"], "rater": items["judge"], "label": items["majority"]}
    )
    both = pd.concat([human_rows[["item", "rater", "label"]], majority], ignore_index=True)
    ratings = Ratings.from_arrays(
        both["item"].to_numpy(), both["rater"].to_numpy(), both["label"].to_numpy(),
        level=level, na_values=[],
    )  # fmt: skip
    numeric = level in ("interval", "ratio")
    return alt_test(
        ratings,
        judges if len(judges) > 1 else judges[0],
        epsilon=epsilon,
        scoring="neg_rmse" if numeric else "accuracy",
        humans=sorted(set(human_rows["rater"])),
        min_items_per_rater=min_items_per_rater,
        min_raters_per_item=min_raters_per_item,
    )


def majority_over_runs(
    data: Any,
    judge: str | Sequence[str],
    *,
    item: str = "item",
    rater: str = "rater",
    label: str = "label",
    trial: str = "trial",
    level: Level = "nominal",
    **read_options: Never,
) -> pd.DataFrame:
    """The rows with each judge's runs of an item replaced by one row: its majority label
    over the runs, as :func:`judge_consistency` reads it for the alt-test.

    The majority is the modal label, a tie of counts going to the label of the earliest run
    among the tied (runs ordered by the ``trial`` values); the mean at interval and ratio
    level. The row kept is that of the earliest run of the item (its other columns, a time
    say, are that run's), its label replaced by the majority. The other raters' rows are
    kept as they are, in their order, after the judges' rows.

    Parameters
    ----------
    data : DataFrame-like
        One label per row.
    judge : str or sequence of str
        The judge (or judges) whose runs are folded.
    item, rater, label, trial : str
        Column names.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"

    Returns
    -------
    pandas.DataFrame
        The same columns, one row per (judge, item).

    Raises
    ------
    ColumnNotFoundError
        A column is missing.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"item": [1, 1, 1, 2, 2], "rater": "llm",
    ...                      "trial": [1, 2, 3, 1, 2], "label": list("abbab")})
    >>> majority_over_runs(runs, "llm")[["item", "trial", "label"]].to_dict(orient="list")
    {'item': [1, 2], 'trial': [1, 1], 'label': ['b', 'a']}
    """
    refuse_read_options("majority_over_runs", read_options)
    frame = data if isinstance(data, pd.DataFrame) else frame_to_pandas(data)
    require_columns([item, rater, label, trial], list(frame.columns))
    judges = [judge] if isinstance(judge, str) else [str(j) for j in judge]
    names = frame[rater].astype(str)
    order = frame[trial].rank(method="dense").fillna(0).astype(np.int64)
    parts = []
    for name in judges:
        mine = (names == name).to_numpy()
        rows = frame[mine].assign(_order=order[mine].to_numpy(), _row=np.arange(int(mine.sum())))
        kept = rows.sort_values(["_order", "_row"]).drop_duplicates(item)
        labelled = rows[rows[label].notna()]
        long = pd.DataFrame({"item": labelled[item].to_numpy(), "label": labelled[label].to_numpy(),
                             "order": labelled["_order"].to_numpy()})  # fmt: skip
        majority = _item_table(long, str(level)).set_index("item")["majority"]
        kept = kept.sort_values("_row").drop(columns=["_order", "_row"])
        parts.append(kept.assign(**{label: kept[item].map(majority).to_numpy()}))
    parts.append(frame[~names.isin(judges).to_numpy()])
    return pd.concat(parts, ignore_index=True)


def _check_options(level: Any, confidence_level: Any) -> None:
    if level not in LEVELS:
        raise InvalidInputError(bad_choice("judge_consistency", "level", LEVELS, level))
    check_confidence_level(confidence_level, "judge_consistency")
