"""Does the judge's agreement with the humans change over time? Agreement per time window,
a test of equal agreement across windows and a test of a trend."""

from __future__ import annotations

import dataclasses
import math
import re
import warnings
from collections.abc import Sequence
from typing import Any, Literal, Never

import numpy as np
import pandas as pd

from .._errors import DegenerateDataWarning, InvalidInputError, bad_choice, bad_parameter
from .._interval import check_confidence_level
from .._results import Record, plain_fields, to_plain
from .._types import Level
from .._validate import require_columns
from ..agreement.krippendorff import krippendorff_alpha
from ..agreement.many_raters import fleiss_kappa
from ..agreement.two_raters import cohen_kappa
from ..data.frames import frame_to_pandas
from ..data.ratings import Ratings
from ..data.source import refuse_read_options

__all__ = ["AgreementDrift", "agreement_drift", "homogeneity_test", "parse_window"]

DriftCoefficient = Literal["kappa", "alpha"]
COEFFICIENTS = ("kappa", "alpha")
_WINDOW = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|min|h|d|w)\s*$")
_UNITS = {"s": "s", "min": "min", "h": "h", "d": "D", "w": "W"}


def parse_window(text: str | pd.Timedelta, owner: str = "agreement_drift") -> pd.Timedelta:
    """A window length: a :class:`pandas.Timedelta` or text such as ``"7d"``, ``"12h"``,
    ``"2w"``, ``"30min"``; a bad one is refused naming the ``window`` option of ``owner``.

    >>> parse_window("7d"), parse_window("12h")
    (Timedelta('7 days 00:00:00'), Timedelta('0 days 12:00:00'))
    """
    if isinstance(text, pd.Timedelta):
        value = text
    else:
        match = _WINDOW.match(str(text))
        if match is None:
            raise InvalidInputError(
                bad_parameter(owner, "window", "a length such as '7d', '12h', '2w' or '30min'",
                              text)
            )  # fmt: skip
        value = pd.Timedelta(float(match.group(1)), unit=_UNITS[match.group(2)])  # type: ignore[arg-type]
    if value <= pd.Timedelta(0):
        raise InvalidInputError(bad_parameter(owner, "window", "a positive length", text))
    return value


def homogeneity_test(estimates: Any, standard_errors: Any) -> dict[str, float]:
    r"""Fleiss's (1981) chi-square test that independent estimates are equal, and the
    inverse-variance weighted regression of the estimates on their index (the trend).

    With :math:`w_g = 1/\mathrm{SE}_g^2` and :math:`\bar k = \sum w_g k_g / \sum w_g`,
    :math:`\chi^2 = \sum_g w_g (k_g - \bar k)^2` on :math:`G - 1` degrees of freedom; the
    trend is the weighted least-squares slope :math:`b` of :math:`k_g` on :math:`g` with
    :math:`\mathrm{SE}(b) = (\sum_g w_g (g - \bar g)^2)^{-1/2}` (:math:`\bar g` weighted),
    tested by :math:`z = b/\mathrm{SE}(b)`. Estimates with a NaN or zero SE are left out
    (``n_used`` counts the others).

    >>> out = homogeneity_test([0.6, 0.5, 0.4], [0.05, 0.05, 0.05])
    >>> round(out["chi2"], 6), out["df"], round(out["slope"], 6), round(out["slope_se"], 6)
    (8.0, 2, -0.1, 0.035355)
    """
    from scipy.stats import chi2, norm

    k = np.asarray(estimates, dtype=np.float64)
    se = np.asarray(standard_errors, dtype=np.float64)
    g = np.arange(k.size, dtype=np.float64)
    keep = np.isfinite(k) & np.isfinite(se) & (se > 0)
    k, se, g = k[keep], se[keep], g[keep]
    out = {"pooled": math.nan, "chi2": math.nan, "df": max(int(k.size) - 1, 0),
           "pvalue": math.nan, "slope": math.nan, "slope_se": math.nan,
           "slope_pvalue": math.nan, "n_used": int(k.size)}  # fmt: skip
    if k.size < 2:
        return out
    w = 1.0 / se**2
    pooled = float(np.sum(w * k) / np.sum(w))
    stat = float(np.sum(w * (k - pooled) ** 2))
    gbar = float(np.sum(w * g) / np.sum(w))
    sxx = float(np.sum(w * (g - gbar) ** 2))
    slope = float(np.sum(w * (g - gbar) * (k - pooled)) / sxx)
    slope_se = 1.0 / math.sqrt(sxx)
    out.update(
        pooled=pooled,
        chi2=stat,
        pvalue=float(chi2.sf(stat, k.size - 1)),
        slope=slope,
        slope_se=slope_se,
        slope_pvalue=float(2 * norm.sf(abs(slope / slope_se))),
    )
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class AgreementDrift(Record):
    """Agreement per time window: the judge with the humans, and the humans among
    themselves, with a test of equal agreement across windows and of a trend.

    Attributes
    ----------
    windows : pandas.DataFrame
        One row per (window, ``series``): ``window`` (0, 1, ...), ``start`` and ``end`` of
        the window, ``series`` (``"judge with humans"`` or ``"among humans"``),
        ``n_items``, ``statistic``, ``standard_error``, ``ci_low``, ``ci_high`` and
        ``reason`` (why the statistic is NaN, when it is).
    tests : pandas.DataFrame
        One row per series: ``pooled`` (the inverse-variance weighted mean), ``chi2``,
        ``df`` and ``pvalue`` (the test of equal agreement), ``slope`` (change per window),
        ``slope_se``, ``slope_pvalue`` (the trend test) and ``n_used`` (windows with an SE).
    coefficient : str
        ``"kappa"`` or ``"alpha"``.
    window : str
        The window length.
    judge : str
        The judge.
    confidence_level : float
    method : str
    """

    windows: pd.DataFrame
    tests: pd.DataFrame
    coefficient: str
    window: str
    judge: str
    confidence_level: float
    method: str

    def _headline(self) -> str:
        parts = []
        for _, r in self.tests.iterrows():
            parts.append(
                f"{r['series']}: chi2 = {r['chi2']:.3g} on {r['df']} df (p = {r['pvalue']:.3g}), "
                f"trend {r['slope']:+.3g} per window (p = {r['slope_pvalue']:.3g})"
            )
        return "; ".join(parts)

    def to_frame(self) -> pd.DataFrame:
        """The per-window table."""
        return self.windows

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the fields, the windows' ends as ISO 8601 text."""
        out = plain_fields(self)
        times = self.windows.assign(
            start=[t.isoformat() for t in self.windows["start"]],
            end=[t.isoformat() for t in self.windows["end"]],
        )
        out["windows"] = to_plain(times)
        return out


def _majority(rows: pd.DataFrame) -> pd.Series:
    """The humans' modal label per item; items whose mode is tied are left out."""
    counts = rows.groupby(["item", "label"]).size()
    top = counts.groupby(level="item").transform("max")
    modal = counts[counts == top].reset_index()
    unique = modal.groupby("item")["label"].transform("size") == 1
    out: pd.Series = modal[unique].set_index("item")["label"]
    return out


def _estimate(coefficient: str, ratings: Ratings, level: Level, two: bool) -> Any:
    if coefficient == "alpha":
        return krippendorff_alpha(ratings, level=level)
    return cohen_kappa(ratings) if two else fleiss_kappa(ratings)


def _window_rows(
    rows: pd.DataFrame, judge: str, coefficient: str, level: Level, conf: float
) -> list[dict[str, Any]]:
    """The two series' estimates of one window's ratings."""
    humans = rows[rows["rater"] != judge]
    majority = _majority(humans)
    judged = rows[(rows["rater"] == judge) & rows["item"].isin(majority.index)]
    pair = pd.concat([
        judged[["item", "rater", "label"]],
        pd.DataFrame({"item": judged["item"], "rater": "humans",
                      "label": majority.reindex(judged["item"]).to_numpy()}),
    ])  # fmt: skip
    out = []
    for series, data, two in (("judge with humans", pair, True), ("among humans", humans, False)):
        row: dict[str, Any] = {"series": series, "n_items": int(data["item"].nunique())}
        try:
            ratings = Ratings.from_arrays(
                data["item"].to_numpy(), data["rater"].to_numpy(), data["label"].to_numpy(),
                level=level, na_values=[],
            )  # fmt: skip
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DegenerateDataWarning)
                res = _estimate(coefficient, ratings, level, two)
            ci = res.confidence_interval(conf)
            row.update(statistic=res.statistic, standard_error=res.standard_error,
                       ci_low=ci.low, ci_high=ci.high, reason=res.reason)  # fmt: skip
        except InvalidInputError as exc:
            row.update(statistic=math.nan, standard_error=math.nan, ci_low=math.nan,
                       ci_high=math.nan, reason=str(exc))  # fmt: skip
        out.append(row)
    return out


def agreement_drift(
    data: Any,
    judge: str,
    *,
    time: str,
    window: str | pd.Timedelta = "7d",
    item: str = "item",
    rater: str = "rater",
    label: str = "label",
    level: Level = "nominal",
    coefficient: DriftCoefficient = "kappa",
    humans: Sequence[str] | None = None,
    confidence_level: float = 0.95,
    **read_options: Never,
) -> AgreementDrift:
    r"""Does the judge's agreement with the humans drift? Agreement per time window, the
    test of equal agreement across windows and a trend test.

    Each item falls in the window of its earliest rating: windows of length ``window``
    from the earliest time in the data. In each window, *judge with humans* is the
    agreement of the judge with the humans' majority label (Cohen's kappa, or
    Krippendorff's alpha; items whose majority is tied are left out) and *among humans*
    is the humans' agreement (Fleiss' kappa, or alpha), each with its standard error.
    Windows hold different items, so their estimates are independent, and Fleiss's (1981)
    chi-square

    .. math::

        \chi^2 = \sum_g w_g (\hat\kappa_g - \bar\kappa)^2, \quad w_g = 1/\mathrm{SE}_g^2,
        \quad \bar\kappa = \frac{\sum_g w_g \hat\kappa_g}{\sum_g w_g}

    on :math:`G - 1` degrees of freedom tests that the agreement is the same in every
    window; the weighted least-squares slope of :math:`\hat\kappa_g` on the window index
    :math:`g` (weights :math:`w_g`) tests a steady rise or fall (see
    :func:`homogeneity_test`).

    Parameters
    ----------
    data : DataFrame-like
        One rating per row, with a time column.
    judge : str
        The judge, as named in the ``rater`` column.
    time : str
        The column of the time of each rating (dates, datetimes or text pandas parses).
    window : str or Timedelta, default "7d"
        The window length: ``"7d"``, ``"12h"``, ``"2w"``, ``"30min"``.
    item, rater, label : str
        Column names.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        The level of the labels (alpha's metric; kappa is unweighted).
    coefficient : {"kappa", "alpha"}, default "kappa"
    humans : sequence of str, optional
        The human panel (default: every rater not the judge).
    confidence_level : float, default 0.95

    Returns
    -------
    AgreementDrift

    Raises
    ------
    ColumnNotFoundError
        A column is missing.
    InvalidInputError
        A time pandas cannot read (naming the row), no rows of the judge, a bad window.

    Notes
    -----
    The chi-square is Fleiss's test of the homogeneity of independent kappas (Fleiss 1981,
    section 13.2); it applies as well to any independent, asymptotically normal estimates
    with standard errors, and so to alpha with Gwet's (2014) standard error. The trend test
    is the fixed-effect meta-regression on the window index: it splits the chi-square into
    a trend part (:math:`z^2`, one degree of freedom) and the rest. The standard errors
    are those of the estimators: Fleiss, Cohen & Everitt's (1969) for Cohen's kappa, Gwet's
    (2014) linearisation for Fleiss' kappa and alpha. Windows with fewer than
    two items, or an estimate with no standard error, are left out of the tests.

    References
    ----------
    .. [1] Fleiss, J. L. (1981). Statistical Methods for Rates and Proportions, 2nd ed.
       Wiley, New York, section 13.2.
    .. [2] Borenstein, M., Hedges, L. V., Higgins, J. P. T., & Rothstein, H. R. (2009).
       Introduction to Meta-Analysis, ch. 20 (meta-regression). Wiley.
       https://doi.org/10.1002/9780470743386

    Examples
    --------
    >>> import pandas as pd
    >>> rows = []
    >>> for i in range(40):
    ...     day = pd.Timestamp("2024-01-01") + pd.Timedelta(days=i // 2)
    ...     truth = "ab"[i % 2]
    ...     rows += [(i, h, truth, day) for h in ("h1", "h2")]
    ...     rows.append((i, "llm", truth if i < 30 else "ab"[(i + 1) % 2], day))
    >>> frame = pd.DataFrame(rows, columns=["item", "rater", "label", "time"])
    >>> res = agreement_drift(frame, "llm", time="time", window="7d")
    >>> res.windows[res.windows["series"] == "judge with humans"]["statistic"].tolist()
    [1.0, 1.0, -0.6666666666666667]
    """
    refuse_read_options("agreement_drift", read_options)
    _check_options(coefficient, confidence_level)
    span = parse_window(window)
    frame = data if isinstance(data, pd.DataFrame) else frame_to_pandas(data)
    require_columns([item, rater, label, time], list(frame.columns))
    times = pd.to_datetime(frame[time], errors="coerce")
    bad = np.flatnonzero(times.isna().to_numpy() & frame[time].notna().to_numpy())
    if bad.size:
        raise InvalidInputError(
            f"column {time!r} must hold times; row {bad[0] + 1} holds {frame[time].iloc[bad[0]]!r}"
        )
    long = pd.DataFrame(
        {
            "item": frame[item].to_numpy(),
            "rater": frame[rater].astype(str).to_numpy(),
            "label": frame[label].to_numpy(),
            "time": times.to_numpy(),
        }
    )
    long = long[long["label"].notna() & long["time"].notna()]
    if not (long["rater"] == judge).any():
        raise InvalidInputError(f"agreement_drift: no rows of judge {judge!r} in column {rater!r}")
    if humans is not None:
        long = long[long["rater"].isin([*map(str, humans), judge])]
    start = pd.Timestamp(long["time"].min())
    first = long.groupby("item")["time"].transform("min")
    long["window"] = ((first - start) // span).astype(np.int64)
    rows = []
    for index in sorted(set(long["window"].tolist())):
        part = long[long["window"] == index]
        g = int(index)
        for row in _window_rows(part, judge, coefficient, level, float(confidence_level)):
            rows.append({"window": g, "start": start + g * span, "end": start + (g + 1) * span,
                         **row})  # fmt: skip
    windows = pd.DataFrame(rows)
    tests = []
    for series, part in windows.groupby("series", sort=False):
        full = part.set_index("window").reindex(range(int(windows["window"].max()) + 1))
        tests.append({"series": series,
                      **homogeneity_test(full["statistic"], full["standard_error"])})  # fmt: skip
    return AgreementDrift(
        windows=windows, tests=pd.DataFrame(tests), coefficient=str(coefficient),
        window=str(window), judge=str(judge), confidence_level=float(confidence_level),
        method=(
            f"{coefficient} per window of {window} (each item in the window of its first "
            "rating); the judge against the humans' majority label, and among the humans; "
            "Fleiss's chi-square of equal agreement and the inverse-variance weighted trend"
        ),
    )  # fmt: skip


def _check_options(coefficient: Any, confidence_level: Any) -> None:
    if coefficient not in COEFFICIENTS:
        raise InvalidInputError(
            bad_choice("agreement_drift", "coefficient", COEFFICIENTS, coefficient)
        )
    check_confidence_level(confidence_level, "agreement_drift")
