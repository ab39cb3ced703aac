"""Intra-rater (test-retest) reliability: each rater's ICC over the trials of their own
scores."""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any, Never

import numpy as np
import pandas as pd

from .._errors import DegenerateDataWarning, InvalidInputError
from .._results import Result, to_plain
from .._validate import at_rows, counted, require_columns, tidy_scalar
from ..data.ratings import Ratings
from ..data.source import refuse_read_options
from .icc import ICCMethod, ICCResult, icc

__all__ = ["IntraRaterICC", "intrarater_icc"]


@dataclasses.dataclass(frozen=True, slots=True)
class IntraRaterICC(Result):
    """Each rater's intra-rater ICCs: the items they scored x the trials.

    Attributes
    ----------
    raters : tuple of str
        The raters, in the order of ``by_rater``.
    by_rater : tuple of ICCResult
        Each rater's six forms, the trials in the role of the raters: ``ICC(A,1)`` is the
        test-retest reliability of one reading (a shift between trials counts as
        disagreement), ``ICC(C,1)`` its consistency (shifts ignored), the ``k`` forms that of
        the mean of the trials.
    n_trials : int
        Distinct trials in the data.
    """

    raters: tuple[str, ...]
    by_rater: tuple[ICCResult, ...]
    n_trials: int

    def __getitem__(self, rater: str) -> ICCResult:
        for name, res in zip(self.raters, self.by_rater, strict=True):
            if name == rater:
                return res
        raise KeyError(rater)

    def table(self, level: float = 0.95) -> pd.DataFrame:
        """One row per rater: ICC(A,1) and ICC(C,1) with their intervals, items, method."""
        rows = []
        for name, res in zip(self.raters, self.by_rater, strict=True):
            a, c = res["ICC(A,1)"], res["ICC(C,1)"]
            ci_a, ci_c = a.confidence_interval(level), c.confidence_interval(level)
            rows.append(
                {
                    "rater": name,
                    "icc_agreement": a.statistic,
                    "ci_low": ci_a.low,
                    "ci_high": ci_a.high,
                    "icc_consistency": c.statistic,
                    "consistency_ci_low": ci_c.low,
                    "consistency_ci_high": ci_c.high,
                    "n_items": res.n_items,
                    "method": res.method,
                }
            )
        return pd.DataFrame(rows)

    def to_dict(self, level: float = 0.95) -> dict[str, Any]:
        """Plain dict: the trials, the confidence level and one entry per rater."""
        return {
            "n_trials": self.n_trials,
            "confidence_level": level,
            "raters": to_plain(self.table(level)),
        }


def intrarater_icc(
    data: Any,
    *,
    item: str = "item",
    rater: str = "rater",
    trial: str = "trial",
    score: str = "score",
    method: ICCMethod = "auto",
    **read_options: Never,
) -> IntraRaterICC:
    """Intra-rater (test-retest) reliability: each rater's ICC over repeated scorings.

    Each rater scores items on several trials (sessions, replicates). For each rater the
    items x trials scores are analysed as :func:`accord.icc` analyses items x raters: the
    trials take the raters' place. The headline is ``ICC(A,1)``, absolute agreement of one
    reading with another by the same rater (Koo & Li 2016 recommend the absolute-agreement
    form for intra-rater reliability; its estimate is the same with trials fixed or random,
    McGraw & Wong 1996). Complete items x trials tables use the ANOVA forms; a rater who
    missed some trials gets the REML forms (``method``, as :func:`accord.icc`).

    Parameters
    ----------
    data : DataFrame-like
        One row per score (pandas, or anything ``pandas.DataFrame`` accepts).
    item, rater, trial, score : str
        Column names. Scores must be numbers; one score per (item, rater, trial).
    method : {"auto", "anova", "reml"}, default "auto"
        As :func:`accord.icc`.

    Returns
    -------
    IntraRaterICC
        ``by_rater`` (an :class:`ICCResult` per rater), ``table(level)``.

    Raises
    ------
    ColumnNotFoundError
        A column is not in ``data``.
    InvalidInputError
        Non-numeric or missing scores, or an (item, rater, trial) scored twice.

    Notes
    -----
    This is each rater's own reliability; raters are not pooled (their test-retest
    reliabilities may differ, and the table shows whether they do). A rater with fewer
    than two items or two trials has NaN ICCs with a reason.

    References
    ----------
    .. [1] Koo, T. K., & Li, M. Y. (2016). A guideline of selecting and reporting intraclass
       correlation coefficients for reliability research. Journal of Chiropractic Medicine,
       15(2), 155-163. https://doi.org/10.1016/j.jcm.2016.02.012

    Examples
    --------
    One reader measures four lesions twice; the second session reads 0.1 higher:

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"item": [1, 2, 3, 4] * 2, "rater": ["A"] * 8,
    ...                       "trial": [1] * 4 + [2] * 4,
    ...                       "score": [10, 12, 15, 11, 10.2, 12.1, 15.1, 11.0]})
    >>> res = intrarater_icc(frame)
    >>> round(res["A"]["ICC(A,1)"].statistic, 3), round(res["A"]["ICC(C,1)"].statistic, 3)
    (0.998, 0.999)
    """
    refuse_read_options("intrarater_icc", read_options)
    frame = pd.DataFrame(data)
    require_columns([item, rater, trial, score], list(frame.columns))
    if frame.empty:
        raise InvalidInputError("intrarater_icc: the input has no rows")
    repeated = frame.duplicated([item, rater, trial], keep=False).to_numpy()
    if repeated.any():
        first = frame[repeated].iloc[0]
        raise InvalidInputError(
            f"intrarater_icc: ({item}, {rater}, {trial}) = ({tidy_scalar(first[item])!r}, "
            f"{tidy_scalar(first[rater])!r}, {tidy_scalar(first[trial])!r}) is scored more "
            f"than once ({at_rows(np.flatnonzero(repeated))}); give each trial its own "
            f"value in {trial!r}"
        )
    out = []
    names = []
    for name, rows in frame.groupby(rater, sort=True):
        ratings = Ratings.from_arrays(
            rows[item].to_numpy(), rows[trial].to_numpy(), rows[score].to_numpy(),
            level="interval", missing="raise", columns=(item, trial, score),
            source=f"rater {name!r}",
        )  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)
            out.append(icc(ratings, method=method))
        names.append(str(name))
    undefined = [n for n, r in zip(names, out, strict=True) if math.isnan(r.forms[1].statistic)]
    if undefined:
        warnings.warn(
            f"intrarater_icc: undefined for {counted(len(undefined), 'rater')} "
            f"({', '.join(undefined[:5])}): {out[names.index(undefined[0])].forms[1].reason}",
            DegenerateDataWarning,
            stacklevel=2,
        )
    return IntraRaterICC(tuple(names), tuple(out), int(frame[trial].nunique()))
