"""Calibration with confidence: item values and rater biases from a panel's scores.

MacKay, Kenna, Low & Parker (2017). Every rater ``a`` scores some items ``o`` with
``s_ao = v_o + b_a + sigma_ao * eps`` and confidence ``c_ao = 1 / sigma_ao^2``; the values and
biases minimise ``sum c_ao (s_ao - v_o - b_a)^2`` subject to a gauge.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any, Literal, TypeAlias

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import (
    DroppedDataWarning,
    DuplicateRatingError,
    InvalidInputError,
    option,
    shown,
    warn_degenerate,
)
from .._results import Result, to_plain
from .._types import Duplicates, FloatArray, IntArray, Missing, RngLike, as_generator
from .._validate import check_choice, format_rows, tidy_scalar
from ..data.encoder import missing_mask
from ..data.frames import columns_of
from ..data.ratings import ReadReport
from ..engines._pages import engine_pages
from . import _linalg

__all__ = ["PanelCalibration", "calibrate_panel"]

Gauge: TypeAlias = Literal["sum", "weighted"]
Reliability: TypeAlias = Literal["declared", "estimate"]
Uncertainty: TypeAlias = Literal["auto", "exact", "sample", "none"]
Solver: TypeAlias = Literal["auto", "full", "schur-raters", "schur-items"]
RangeConvention: TypeAlias = Literal["central95", "sd"]

EXACT_LIMIT = 2000
"""``uncertainty="auto"`` inverts exactly when the smaller side has at most this many members."""

FIEDLER_LIMIT = 1_000_000
"""``connectivity="auto"`` computes the algebraic connectivity up to this many rater-item pairs."""

_SHOW = 5
_LEVEL_NAMES = {"h": 0, "high": 0, "m": 1, "medium": 1, "med": 1, "l": 2, "low": 2}


@dataclasses.dataclass(frozen=True, slots=True)
class PanelCalibration(Result):
    """Result of :func:`calibrate_panel`.

    Attributes
    ----------
    values : pandas.DataFrame
        One row per item: ``item``, ``value`` (calibrated), ``sd`` (posterior standard
        deviation), ``confidence`` (``C_o``, the summed confidence), ``plain_mean`` (the
        unweighted mean score, the baseline), ``n`` (assessments), ``component``.
    biases : pandas.DataFrame
        One row per rater: ``rater``, ``bias``, ``sd``, ``confidence`` (``C_a``), ``n``,
        ``residual_rms`` (root mean square raw residual, score units), ``chi2`` (sum of
        ``c r^2`` divided by ``variance_scale``), ``expected_chi2`` (sum of ``1 - leverage``:
        what ``chi2`` would be on average if the rater's declared confidences were right),
        ``misfit`` (``chi2 / expected_chi2``; well above 1: residuals larger than the declared
        confidence allows), ``misfit_pvalue`` (upper tail of chi-square with
        ``expected_chi2`` degrees of freedom; a screening figure), ``component``.
    residuals : pandas.DataFrame
        One row per assessment, in input order (kept rows): ``item``, ``rater``, ``score``,
        ``confidence`` (``c`` as used), ``fitted`` (``v_o + b_a``), ``residual``,
        ``leverage`` (``c Var(v_o + b_a)``, unscaled) and ``standardized``
        (``residual sqrt(c) / sqrt(variance_scale (1 - leverage))``, NaN where leverage is 1
        or no uncertainty was computed).
    n_items, n_raters, n_assessments, n_components : int
    algebraic_connectivity : float
        Second-smallest eigenvalue of the normalised Laplacian of the confidence-weighted
        rater-item graph, in ``[0, 2]``: 0 for a disconnected design, near 0 for a design held
        together by few links (values then rest on long chains of comparisons). NaN with
        ``connectivity=False`` (and with ``"auto"`` above 1M rater-item pairs).
    residual : float
        ``R = sum c (s - v - b)^2``.
    dof : int
        ``E - n_items - n_raters + n_components``.
    residual_per_dof : float
        ``R / dof``: near 1 when declared (absolute) confidences are right; well above 1 means
        raters are over-confident or the additive model does not fit.
    variance_scale : float
        Factor applied to the unscaled variances (``R / dof`` when confidences are relative,
        else 1).
    confidence_source : str
        ``"confidence"``, ``"sigma"``, ``"range"``, ``"levels"`` or ``"equal"``.
    relative : bool
        Whether confidences were treated as relative (variances scaled by ``R / dof``).
    gauge : str
        ``"sum"`` (``sum b = 0``), ``"weighted"`` (``sum C_a b = 0``), or ``"prior"`` when a
        bias prior fixes the location (then ``sum b = 0`` holds in every component).
    per_component : bool
    reliability : str
    reliability_iterations : int
        Reweighting rounds for ``reliability="estimate"`` (0 otherwise).
    bias_prior : float or None
        The prior standard deviation of the biases, in score units.
    uncertainty : str
        ``"exact"``, ``"sample"`` (perturb and solve, ``n_samples`` draws) or ``"none"``.
    n_samples : int
    solver : str
        ``"full"``, ``"schur-raters"`` or ``"schur-items"``.
    iterations : int
        Conjugate-gradient iterations of the final solve.
    converged : bool
        Always True on return (the solver raises otherwise); kept for reports.
    solver_residual : float
        ``||rhs - N x|| / ||rhs||`` at the returned solution.
    n_dropped : int
        Rows dropped for a missing score or confidence (``missing="omit"``).
    method : str
        The variant, in words.
    report : ReadReport or None
        What was read, used and dropped and why (rows, assessments used, items, raters,
        rows with a missing score or confidence, repeated (item, rater) pairs resolved by
        ``duplicates``), as :attr:`accord.Ratings.report` says it for ratings.
    """

    values: pd.DataFrame
    biases: pd.DataFrame
    residuals: pd.DataFrame
    n_items: int
    n_raters: int
    n_assessments: int
    n_components: int
    algebraic_connectivity: float
    residual: float
    dof: int
    residual_per_dof: float
    variance_scale: float
    confidence_source: str
    relative: bool
    gauge: str
    per_component: bool
    reliability: str
    reliability_iterations: int
    bias_prior: float | None
    uncertainty: str
    n_samples: int
    solver: str
    iterations: int
    converged: bool
    solver_residual: float
    n_dropped: int
    method: str
    report: ReadReport | None = None

    def to_dict(self, *, residuals: bool = False) -> dict[str, Any]:
        """Plain-Python dict of every field (the per-assessment table only if asked)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name == "residuals" and not residuals:
                continue
            out[f.name] = to_plain(getattr(self, f.name))
        return out

    def __str__(self) -> str:
        return (
            f"panel calibration: {self.n_items} items, {self.n_raters} raters, "
            f"{self.n_assessments} assessments, {self.n_components} component(s); "
            f"R/dof = {self.residual_per_dof:.4g} on {self.dof} dof"
        )


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _Panel:
    """Validated, encoded assessments (kept rows only)."""

    item_codes: IntArray
    rater_codes: IntArray
    score: FloatArray
    confidence: FloatArray
    items: npt.NDArray[Any]
    raters: npt.NDArray[Any]
    source: str
    relative: bool
    n_dropped: int
    # What was read: rows seen, and each reason for dropping rows with its count.
    n_rows: int = 0
    reasons: dict[str, int] = dataclasses.field(default_factory=dict)
    # Rows aggregated per (item, rater) pair (the stream engine): number of assessments,
    # unweighted sum of their scores, and the within-pair sums of squares about the weighted
    # mean (``sum c (s - score)^2``) and about the unweighted mean. None: one row per
    # assessment.
    count: FloatArray | None = None
    raw_sum: FloatArray | None = None
    within: FloatArray | None = None
    raw_within: FloatArray | None = None

    @property
    def n_assessments(self) -> int:
        if self.count is None:
            return int(self.score.size)
        return round(float(self.count.sum()))

    @property
    def n_items(self) -> int:
        return int(self.items.size)

    @property
    def n_raters(self) -> int:
        return int(self.raters.size)

    def report(self) -> ReadReport:
        """The read report of the kept assessments."""
        kept = self.n_assessments
        return ReadReport(
            rows=self.n_rows,
            ratings=kept,
            items=self.n_items,
            raters=self.n_raters,
            missing=self.n_dropped,
            dropped=self.n_rows - kept,
            reasons=dict(self.reasons),
        )


# --------------------------------------------------------------------------- input


def _numeric(values: npt.NDArray[Any], positions: IntArray, column: str) -> FloatArray:
    """Floats from a column, naming the first row that is not a number."""
    if values.dtype.kind in "biuf":
        return values.astype(np.float64)
    converted = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan
    )
    bad = np.flatnonzero(np.isnan(converted))
    if bad.size:
        first = int(bad[0])
        raise InvalidInputError(
            f"column {column!r}: {shown(values[first])!r} at row {int(positions[first]) + 1} "
            f"is not a number ({bad.size} such rows: {format_rows(positions[bad])})"
        )
    return converted


def _check_finite(x: FloatArray, positions: IntArray, column: str, positive: bool) -> None:
    bad = ~np.isfinite(x)
    what = "finite"
    if positive:
        bad |= ~(x > 0)
        what = "positive and finite"
    idx = np.flatnonzero(bad)
    if idx.size:
        first = int(idx[0])
        raise InvalidInputError(
            f"column {column!r}: {shown(x[first])!r} at row {int(positions[first]) + 1} "
            f"must be {what} ({idx.size} such rows: {format_rows(positions[idx])})"
        )


def _factorize(ids: npt.NDArray[Any], positions: IntArray, column: str) -> tuple[IntArray, Any]:
    try:
        codes, uniques = pd.factorize(ids, sort=True, use_na_sentinel=True)
    except TypeError:  # mixed types cannot be sorted
        codes, uniques = pd.factorize(ids, sort=False, use_na_sentinel=True)
    bad = np.flatnonzero(codes < 0)
    if bad.size:
        raise InvalidInputError(
            f"column {column!r}: {bad.size} rows have no id (rows {format_rows(positions[bad])})"
        )
    plain = np.asarray(uniques)
    if plain.dtype.kind in "biuf":
        return codes.astype(np.int64), plain  # numbers stay a numeric array (no objects)
    decode = np.array([tidy_scalar(v) for v in np.asarray(uniques, dtype=object)], dtype=object)
    return codes.astype(np.int64), decode


def _read_panel(
    data: Any,
    *,
    item: str,
    rater: str,
    score: str,
    confidence: str | None,
    sigma: str | None,
    score_range: Sequence[str] | None,
    levels: str | None,
    confidence_factor: float,
    range_convention: RangeConvention,
    relative: bool | None,
    missing: Missing,
    warn: bool = True,
    duplicates: Duplicates | None = None,
) -> _Panel:
    """Validate and encode the assessments of one table.

    ``duplicates`` resolves an (item, rater) pair scored more than once (see
    :func:`calibrate_panel`); None keeps every row (the stream and dask engines read batches
    and resolve repeated pairs once the batches are merged).
    """
    given = [
        name
        for name, value in (
            ("confidence", confidence),
            ("sigma", sigma),
            ("score_range", score_range),
            ("levels", levels),
        )
        if value is not None
    ]
    if len(given) > 1:
        raise InvalidInputError(
            "give at most one of confidence, sigma, score_range and levels; got "
            + " and ".join(given)
        )
    check_choice("missing", missing, ("omit", "raise"), "calibrate_panel")
    if duplicates is not None:
        check_choice(
            "duplicates", duplicates, ("raise", "first", "last", "mean"), "calibrate_panel"
        )
    check_choice("range_convention", range_convention, ("central95", "sd"), "calibrate_panel")
    extra: list[str] = []
    if confidence is not None:
        extra, source = [confidence], "confidence"
    elif sigma is not None:
        extra, source = [sigma], "sigma"
    elif score_range is not None:
        if isinstance(score_range, str) or len(score_range) != 2:
            raise InvalidInputError(
                "score_range must name two columns (low, high); got " + repr(score_range)
            )
        extra, source = [score_range[0], score_range[1]], "range"
    elif levels is not None:
        extra, source = [levels], "levels"
    else:
        source = "equal"
    if not (math.isfinite(confidence_factor) and confidence_factor > 0):
        raise InvalidInputError(
            f"confidence_factor must be positive and finite, got {confidence_factor!r}"
        )
    arrays, _, _ = columns_of(data, (item, rater, score, *extra))
    n_rows = arrays[0].size
    positions = np.arange(n_rows, dtype=np.int64)
    check = [arrays[2], *arrays[3:]]
    names = [score, *extra]
    miss = np.zeros(n_rows, dtype=bool)
    for arr, name in zip(check, names, strict=True):
        m = missing_mask(arr)
        if m.any() and missing == "raise":
            raise InvalidInputError(
                f"column {name!r}: {int(m.sum())} rows are missing (rows "
                f"{format_rows(np.flatnonzero(m))}); pass missing='omit' to drop them"
            )
        miss |= m
    n_dropped = int(miss.sum())
    if n_dropped and warn:
        import warnings

        warnings.warn(
            f"calibrate_panel dropped {n_dropped} rows with a missing score or confidence "
            f"(rows {format_rows(np.flatnonzero(miss))})",
            DroppedDataWarning,
            stacklevel=3,
        )
    if n_dropped:
        keep = ~miss
        arrays = [a[keep] for a in arrays]
        positions = positions[keep]
    if positions.size == 0:
        raise InvalidInputError("no assessments to calibrate: the input has no complete rows")
    s = _numeric(arrays[2], positions, score)
    _check_finite(s, positions, score, positive=False)
    if source == "confidence":
        c = _numeric(arrays[3], positions, extra[0])
        _check_finite(c, positions, extra[0], positive=True)
    elif source == "sigma":
        sd = _numeric(arrays[3], positions, extra[0])
        _check_finite(sd, positions, extra[0], positive=True)
        c = 1.0 / sd**2
    elif source == "range":
        lo = _numeric(arrays[3], positions, extra[0])
        hi = _numeric(arrays[4], positions, extra[1])
        _check_finite(lo, positions, extra[0], positive=False)
        _check_finite(hi, positions, extra[1], positive=False)
        width = hi - lo
        bad = np.flatnonzero(~(width > 0))
        if bad.size:
            first = int(bad[0])
            raise InvalidInputError(
                f"columns {extra[0]!r}, {extra[1]!r}: the range "
                f"[{tidy_scalar(lo[first])!r}, {tidy_scalar(hi[first])!r}] "
                f"at row {int(positions[first]) + 1} is empty or reversed ({bad.size} such rows: "
                f"{format_rows(positions[bad])})"
            )
        sd = width / (3.92 if range_convention == "central95" else 2.0)
        c = 1.0 / sd**2
    elif source == "levels":
        c = _level_confidence(arrays[3], positions, extra[0], confidence_factor)
    else:
        c = np.ones_like(s)
    item_codes, items = _factorize(arrays[0], positions, item)
    rater_codes, raters = _factorize(arrays[1], positions, rater)
    rel = source in ("levels", "equal") if relative is None else bool(relative)
    reasons = {"missing score or confidence": n_dropped} if n_dropped else {}
    if duplicates is not None:
        item_codes, rater_codes, s, c, resolved = _resolve_duplicates(
            item_codes,
            rater_codes,
            positions,
            s,
            c,
            duplicates=duplicates,
            items=items,
            raters=raters,
        )
        reasons.update(resolved)
    return _Panel(
        item_codes,
        rater_codes,
        s,
        c,
        items,
        raters,
        source,
        rel,
        n_dropped,
        n_rows=n_rows,
        reasons=reasons,
    )


def _pair_names(items: npt.NDArray[Any], raters: npt.NDArray[Any], i: int, r: int) -> str:
    return f"({tidy_scalar(items[i])!r}, {tidy_scalar(raters[r])!r})"


def _resolve_duplicates(
    item_codes: IntArray,
    rater_codes: IntArray,
    positions: IntArray,
    score: FloatArray,
    confidence: FloatArray,
    *,
    duplicates: Duplicates,
    items: npt.NDArray[Any],
    raters: npt.NDArray[Any],
    owner: str = "calibrate_panel",
) -> tuple[IntArray, IntArray, FloatArray, FloatArray, dict[str, int]]:
    """One assessment per (item, rater) pair, as :class:`accord.Ratings` resolves repeats.

    ``"raise"``: a :class:`~accord.DuplicateRatingError` naming the first pairs and their rows;
    ``"first"`` / ``"last"``: the pair's first / last row in input order; ``"mean"``: the mean
    score and the mean confidence of the pair's rows, at its first row. Returns the kept
    arrays (in input order) and the reason for the dropped rows with its count.
    """
    n_raters = max(int(raters.size), 1)
    key = item_codes.astype(np.int64) * n_raters + rater_codes
    order = np.argsort(key, kind="stable")
    same_next = key[order][1:] == key[order][:-1]
    if not same_next.any():
        return item_codes, rater_codes, score, confidence, {}
    starts = np.flatnonzero(np.r_[True, ~same_next])
    sizes = np.diff(np.r_[starts, key.size])
    if duplicates == "raise":
        repeated = starts[sizes > 1]
        firsts = np.sort(order[repeated])  # the pairs in order of their first row
        shown = []
        for row in firsts[:_SHOW]:
            rows = positions[key == key[row]]
            shown.append(
                f"{_pair_names(items, raters, int(item_codes[row]), int(rater_codes[row]))} at "
                f"rows {format_rows(rows)}"
            )
        n_pairs = int(repeated.size)
        raise DuplicateRatingError(
            f"{n_pairs} (item, rater) pair{'s are' if n_pairs > 1 else ' is'} scored more than "
            "once: "
            + "; ".join(shown)
            + (f"; and {n_pairs - _SHOW} more" if n_pairs > _SHOW else "")
            + f". {owner} takes one assessment per rater and item: pass "
            + f"{option('duplicates', 'first', 'last', 'mean')} to resolve"
        )
    n_drop = int(key.size - starts.size)
    if duplicates in ("first", "last"):
        chosen = np.sort(order[starts] if duplicates == "first" else order[starts + sizes - 1])
        reason = f"duplicate (item, rater): kept the {duplicates}"
        return (
            item_codes[chosen],
            rater_codes[chosen],
            score[chosen],
            confidence[chosen],
            {reason: n_drop},
        )
    group = np.cumsum(np.r_[True, ~same_next]) - 1
    mean_score = np.bincount(group, weights=score[order]) / sizes
    mean_confidence = np.bincount(group, weights=confidence[order]) / sizes
    first = order[starts]
    by_row = np.argsort(first, kind="stable")
    chosen = first[by_row]
    return (
        item_codes[chosen],
        rater_codes[chosen],
        mean_score[by_row],
        mean_confidence[by_row],
        {"duplicate (item, rater): averaged": n_drop},
    )


def _resolve_pair_statistics(stats: Any, duplicates: Duplicates, engine: str) -> Any:
    """Apply the ``duplicates`` policy to per-pair statistics (stream and dask engines)."""
    from .stream import PanelStatistics

    repeated = np.flatnonzero(stats.count > 1)
    if repeated.size == 0:
        return stats, {}
    n_pairs = int(repeated.size)
    if duplicates == "raise":
        codes = zip(stats.item_codes[repeated], stats.rater_codes[repeated], strict=True)
        shown = "; ".join(
            f"{_pair_names(stats.items, stats.raters, int(i), int(r))} {int(n)} times"
            for (i, r), n in zip(list(codes)[:_SHOW], stats.count[repeated], strict=False)
        )
        more = f"; and {n_pairs - _SHOW} more" if n_pairs > _SHOW else ""
        raise DuplicateRatingError(
            f"{n_pairs} (item, rater) pair{'s are' if n_pairs > 1 else ' is'} scored more than "
            f"once: {shown}{more}. calibrate_panel takes one "
            "assessment per rater and item: pass duplicates='mean' to resolve (or 'first' or "
            "'last' with engine='memory')"
        )
    if duplicates in ("first", "last"):
        raise InvalidInputError(
            f"duplicates={duplicates!r} keeps one row of each repeated (item, rater) pair by "
            f"its place in the input, which engine={engine!r} does not keep ({n_pairs} pairs "
            "are scored more than once): use engine='memory', or duplicates='mean'"
        )
    n = stats.count
    ones = np.ones_like(n)
    mean = stats.raw_sum / n
    resolved = PanelStatistics(
        stats.item_codes,
        stats.rater_codes,
        ones,
        stats.weight / n,
        mean,
        np.zeros_like(n),
        mean,
        np.zeros_like(n),
        items=stats.items,
        raters=stats.raters,
        source=stats.source,
        relative=stats.relative,
        n_dropped=stats.n_dropped,
    )
    return resolved, {"duplicate (item, rater): averaged": round(float(n.sum() - n.size))}


def _panel_of_statistics(
    stats: Any, *, n_rows: int = 0, reasons: dict[str, int] | None = None
) -> _Panel:
    """A panel of one pseudo-assessment per (item, rater) pair, with the pair's totals."""
    return _Panel(
        stats.item_codes,
        stats.rater_codes,
        stats.mean,
        stats.weight,
        stats.items,
        stats.raters,
        stats.source,
        stats.relative,
        stats.n_dropped,
        n_rows=n_rows,
        reasons=dict(reasons or {}),
        count=stats.count,
        raw_sum=stats.raw_sum,
        within=stats.within,
        raw_within=stats.raw_within,
    )


def _level_confidence(
    values: npt.NDArray[Any], positions: IntArray, column: str, factor: float
) -> FloatArray:
    """H/M/L (or high/medium/low, any case) to ``factor^2, 1, factor^-2``."""
    table = np.array([factor**2, 1.0, factor**-2])
    keys = pd.Series(values, dtype=object).astype(str).str.strip().str.lower()
    codes = keys.map(_LEVEL_NAMES)
    bad = np.flatnonzero(codes.isna().to_numpy())
    if bad.size:
        first = int(bad[0])
        raise InvalidInputError(
            f"column {column!r}: level {tidy_scalar(values[first])!r} at row "
            f"{int(positions[first]) + 1} is "
            f"not one of H, M, L (high, medium, low) ({bad.size} such rows: "
            f"{format_rows(positions[bad])})"
        )
    return np.asarray(table[codes.to_numpy(dtype=np.int64)])


def _describe_components(
    panel: _Panel, n_components: int, item_comp: IntArray, rater_comp: IntArray
) -> str:
    parts = []
    for k in range(min(n_components, _SHOW)):
        raters = panel.raters[rater_comp == k]
        items = panel.items[item_comp == k]
        parts.append(f"component {k + 1}: raters {_names(raters)}; items {_names(items)}")
    more = f" | and {n_components - _SHOW} more components" if n_components > _SHOW else ""
    return " | ".join(parts) + more


def _names(values: npt.NDArray[Any]) -> str:
    shown = ", ".join(str(v) for v in values[:_SHOW])
    return shown + (f" and {values.size - _SHOW} more" if values.size > _SHOW else "")


# --------------------------------------------------------------------------- main


@engine_pages
def calibrate_panel(
    data: Any,
    *,
    item: str,
    rater: str,
    score: str,
    confidence: str | None = None,
    sigma: str | None = None,
    score_range: Sequence[str] | None = None,
    levels: str | None = None,
    confidence_factor: float = 1.75,
    range_convention: RangeConvention = "central95",
    relative: bool | None = None,
    gauge: Gauge = "sum",
    per_component: bool = False,
    reliability: Reliability = "declared",
    bias_prior: float | None = None,
    uncertainty: Uncertainty = "auto",
    n_samples: int = 32,
    connectivity: bool | Literal["auto"] = "auto",
    solver: Solver = "auto",
    tol: float = 1e-10,
    max_iter: int = 5000,
    missing: Missing = "omit",
    duplicates: Duplicates = "raise",
    rng: RngLike = None,
    engine: Literal["memory", "stream", "dask"] = "memory",
    scheduler: Any = None,
    batch_size: int = 1_000_000,
    file_format: str | None = None,
    sep: str | None = None,
) -> PanelCalibration:
    """Calibrate a panel: item values and rater biases, with confidence (MacKay et al. 2017).

    Each rater ``a`` scores some items ``o``; the model is

    .. math::

        s_{ao} = v_o + b_a + \\sigma_{ao}\\,\\varepsilon, \\qquad
        \\varepsilon \\sim N(0, 1), \\qquad c_{ao} = 1 / \\sigma_{ao}^2,

    and the estimates minimise :math:`\\sum_{(a,o)} c_{ao} (s_{ao} - v_o - b_a)^2` subject to a
    gauge (by default :math:`\\sum_a b_a = 0`). They solve the normal equations

    .. math::

        C_o v_o + \\sum_a c_{ao} b_a = \\sum_a c_{ao} s_{ao}, \\qquad
        \\sum_o c_{ao} v_o + C_a b_a = \\sum_o c_{ao} s_{ao},

    which have a unique solution in the gauge if and only if the rater-item graph is connected.

    Parameters
    ----------
    data : DataFrame
        Long table, one row per assessment (pandas, polars, pyarrow, DuckDB; anything narwhals
        reads).
    item, rater, score : str
        Columns of item ids, rater ids and numeric scores.
    confidence : str, optional
        Column of confidences ``c > 0`` (inverse variances, absolute by default).
    sigma : str, optional
        Column of standard deviations ``sigma > 0``; ``c = 1 / sigma^2``.
    score_range : pair of str, optional
        Columns ``(low, high)`` of a range given with each score; see ``range_convention``.
    levels : str, optional
        Column of confidence levels H, M, L (or high, medium, low, any case), mapped to
        ``c = confidence_factor^2, 1, confidence_factor^-2``.
    confidence_factor : float, default 1.75
        The ratio of standard deviations between adjacent levels.
    range_convention : {"central95", "sd"}, default "central95"
        ``"central95"``: the range is a central 95% interval, ``sigma = (high - low) / 3.92``;
        ``"sd"``: the range is plus or minus one standard deviation, ``sigma = (high - low) / 2``.
    relative : bool, optional
        Whether confidences are relative (known up to a common factor): variances are then
        scaled by ``R / dof``. Default: True for ``levels`` and for no confidences at all, False
        for ``confidence``, ``sigma`` and ``score_range``.
    gauge : {"sum", "weighted"}, default "sum"
        ``"sum"``: ``sum_a b_a = 0``; ``"weighted"``: ``sum_a C_a b_a = 0``. The gauge shifts all
        values by one constant (per component), never their differences.
    per_component : bool, default False
        For a disconnected design: calibrate each component with its own gauge (values are
        comparable only within a component) instead of raising.
    reliability : {"declared", "estimate"}, default "declared"
        ``"estimate"``: multiply each rater's declared confidences by a precision estimated from
        their residuals, iterating to a fixed point (see Notes); variances are then absolute.
    bias_prior : float, optional
        Standard deviation ``tau`` (score units) of a Gaussian prior ``b ~ N(0, tau^2)`` on the
        biases. It shrinks biases that the design cannot pin down, keeps weakly connected panels
        from amplifying noise and links disconnected ones. With relative confidences the noise
        scale is first estimated as ``R / dof`` of the fit without the prior.
    uncertainty : {"auto", "exact", "sample", "none"}, default "auto"
        Posterior standard deviations: ``"exact"`` inverts the Schur complement on the smaller
        side (dense, ``m x m``); ``"sample"`` perturbs and re-solves ``n_samples`` times;
        ``"auto"`` is exact when the smaller side has at most 2000 members and the work is
        moderate, else sampled; ``"none"`` skips them (sd, leverage and misfit are NaN).
    n_samples : int, default 32
        Draws for ``uncertainty="sample"`` (sd relative error about ``1 / sqrt(2 n_samples)``).
    connectivity : bool or "auto", default "auto"
        Compute the algebraic connectivity (a Lanczos eigenvalue: hundreds of sparse products
        on a large panel, about 2 s at 5M rater-item pairs on one core); False leaves it NaN.
        ``"auto"`` computes it up to 1M rater-item pairs (``FIEDLER_LIMIT``) and leaves it NaN
        above. Components are always found.
    solver : {"auto", "full", "schur-raters", "schur-items"}, default "auto"
        Conjugate gradients on the full normal equations, or on the Schur complement on raters
        (items eliminated) or on items. ``"auto"`` uses a Schur complement when one side has at
        most a quarter as many members as the other.
    tol : float, default 1e-10
        Relative residual at which conjugate gradients stop.
    max_iter : int, default 5000
        Iterations before :class:`~accord.ConvergenceError`.
    missing : {"omit", "raise"}, default "omit"
        Rows with a missing score or confidence: dropped (with a ``DroppedDataWarning``), or an
        error.
    duplicates : {"raise", "first", "last", "mean"}, default "raise"
        A rater who scored one item more than once, as :class:`accord.Ratings` treats a
        repeated rating: ``"raise"`` names the pairs and their rows; ``"first"`` / ``"last"``
        keep the pair's first / last row in input order (memory engine only: the stream and
        dask engines do not keep the order); ``"mean"`` keeps one assessment with the mean
        of the pair's scores and the mean of its confidences. The resolved rows are counted
        in ``report``.
    rng : numpy.random.Generator, int or None
        Randomness for ``uncertainty="sample"``.
    engine : {"memory", "stream", "dask"}, default "memory"
        ``"stream"``: ``data`` is a path, glob or list of Parquet/CSV files, read in batches of
        ``batch_size`` rows with pyarrow and aggregated to one row per (item, rater) pair
        (:func:`accord.panel_statistics`). ``"dask"``: ``data`` is a Dask DataFrame, or
        Parquet/CSV files read with ``dask.dataframe``; each partition is aggregated the same
        way and the partial statistics are tree-reduced. Either way the values, biases, sds and
        fit are those of the memory engine. ``residuals`` then has one row per pair, with its
        count ``n`` (1: ``duplicates`` leaves one assessment per pair).
    scheduler : str, distributed.Client or None
        ``engine="dask"``: ``None`` for dask's default (the active ``distributed.Client`` if
        there is one), a scheduler name (``"threads"``, ``"processes"``, ``"synchronous"``), a
        ``distributed.Client``, or a scheduler address such as ``"tcp://10.0.0.5:8786"``.
    batch_size : int, default 1_000_000
        Rows per batch for ``engine="stream"``.
    file_format, sep
        Format override and CSV separator for files (``engine="stream"`` or ``"dask"``).

    Returns
    -------
    PanelCalibration
        Values and biases tables, per-assessment residuals, connectivity and fit; see
        :class:`PanelCalibration` for every field.

    Raises
    ------
    InvalidInputError
        A missing column; a score that is not a number (the row is named); a confidence or
        sigma that is not positive; an unknown level; a disconnected design (the components
        are named) without ``per_component`` or ``bias_prior``; ``dof < 1``; a repeated
        (item, rater) pair with ``duplicates="raise"`` (a
        :class:`~accord.DuplicateRatingError`).
    ConvergenceError
        Conjugate gradients (or the reliability reweighting) did not converge.

    Notes
    -----
    *Uncertainty.* The posterior covariance (flat prior on values and biases, Gaussian noise)
    is the inverse of the normal matrix restricted to the gauge, i.e. the top-left block of the
    inverse of the matrix bordered with the gauge row. ``1 / sqrt(C_o)`` is only a lower bound
    for the sd of ``v_o``. With relative confidences the covariance is multiplied by
    ``R / dof``, ``dof = E - n_items - n_raters + n_components``. With equal confidences the
    estimates are Fisher's intra-block analysis of an incomplete block design (Yates 1940):
    raters are blocks, items treatments.

    *Perturb and solve.* For ``uncertainty="sample"``, each draw puts ``N(0, C_ao)`` noise on
    every rater-item pair and solves the Schur complement of the smaller side (to a relative
    residual of 1e-6); the result is an exact posterior draw of that side around its mean.
    The other side's variances (and every fitted value's) are the exact conditional variance
    plus the sampled part propagated from the kept side (Rao-Blackwellised), so they are far
    more accurate than the kept side's, whose sds have relative error about
    ``1 / sqrt(2 n_samples)``. Draws run on threads, each with its own generator seeded from
    ``rng``.

    *Estimated reliability* (``reliability="estimate"``), in the spirit of model PG1 of Piech
    et al. (2013): each rater's precision multiplier is
    ``w_a = (n_a f + nu_0) / (sum_o c_ao r_ao^2 + nu_0 s_0^2)`` with ``f = dof / E`` the
    average residual degrees of freedom per assessment, ``s_0^2`` the panel's ``R / dof`` from
    the declared fit and ``nu_0 = 2`` pseudo-assessments of prior weight; the fit and the
    multipliers are iterated until no multiplier moves by more than 1e-8 (relative). The
    reported sds treat the multipliers as known.

    *Residuals.* ``leverage = c Var(v_o + b_a)`` in units of ``1/c``; a rater's
    ``expected_chi2`` is the sum of ``1 - leverage`` over their assessments. Misfit p-values
    treat a rater's residuals as independent, which they are not quite: use them to rank raters
    for a look, not as tests.

    References
    ----------
    .. [1] MacKay, R. S., Kenna, R., Low, R. J. and Parker, S. (2017). Calibration with
       confidence: a principled method for panel assessment. Royal Society Open Science 4,
       160760. doi:10.1098/rsos.160760
    .. [2] Yates, F. (1940). The recovery of inter-block information in balanced incomplete
       block designs. Annals of Eugenics 10, 317-325. doi:10.1111/j.1469-1809.1940.tb02257.x
    .. [3] Piech, C., Huang, J., Chen, Z., Do, C., Ng, A. and Koller, D. (2013). Tuned models
       of peer assessment in MOOCs. Proceedings of Educational Data Mining 2013.
       arXiv:1307.2579

    Examples
    --------
    A small chain: rater A scores items 1-3, rater B items 2-4, and B is two
    points more generous. Plain means are biased at the ends of the chain; calibration is not.

    >>> import pandas as pd, accord
    >>> frame = pd.DataFrame({
    ...     "item": ["O1", "O2", "O3", "O2", "O3", "O4"],
    ...     "rater": ["A", "A", "A", "B", "B", "B"],
    ...     "score": [4, 5, 6, 7, 8, 9],
    ...     "c": [1.0] * 6})
    >>> result = accord.calibrate_panel(frame, item="item", rater="rater", score="score",
    ...                                 confidence="c")
    >>> result.values[["item", "value", "sd", "plain_mean"]].round(4)
      item  value      sd  plain_mean
    0   O1    5.0  1.1180         4.0
    1   O2    6.0  0.7071         6.0
    2   O3    7.0  0.7071         7.0
    3   O4    8.0  1.1180         9.0
    >>> result.biases["bias"].round(4).tolist()
    [-1.0, 1.0]
    """
    check_choice("gauge", gauge, ("sum", "weighted"), "calibrate_panel")
    check_choice("reliability", reliability, ("declared", "estimate"), "calibrate_panel")
    check_choice("uncertainty", uncertainty, ("auto", "exact", "sample", "none"), "calibrate_panel")
    check_choice(
        "solver", solver, ("auto", "full", "schur-raters", "schur-items"), "calibrate_panel"
    )
    if bias_prior is not None and not (math.isfinite(bias_prior) and bias_prior > 0):
        raise InvalidInputError(f"bias_prior must be positive and finite, got {bias_prior!r}")
    if bias_prior is not None and gauge != "sum":
        raise InvalidInputError(
            "a bias prior fixes the location itself (sum of biases 0 in every component); "
            "leave gauge='sum'"
        )
    if n_samples < 2:
        raise InvalidInputError(f"n_samples must be at least 2, got {n_samples}")
    if not (0 < tol < 1):
        raise InvalidInputError(f"tol must be strictly between 0 and 1, got {tol!r}")
    check_choice("engine", engine, ("memory", "stream", "dask"), "calibrate_panel")
    check_choice("duplicates", duplicates, ("raise", "first", "last", "mean"), "calibrate_panel")
    if scheduler is not None and engine != "dask":
        raise InvalidInputError(
            f"scheduler applies to engine='dask'; got engine={engine!r} with a scheduler"
        )
    options: dict[str, Any] = {
        "gauge": gauge,
        "per_component": per_component,
        "reliability": reliability,
        "bias_prior": bias_prior,
        "uncertainty": uncertainty,
        "n_samples": n_samples,
        "connectivity": connectivity,
        "solver": solver,
        "tol": tol,
        "max_iter": max_iter,
        "rng": rng,
    }
    if engine != "memory":
        read: dict[str, Any] = {
            "item": item,
            "rater": rater,
            "score": score,
            "confidence": confidence,
            "sigma": sigma,
            "score_range": score_range,
            "levels": levels,
            "confidence_factor": confidence_factor,
            "range_convention": range_convention,
            "relative": relative,
            "missing": missing,
            "file_format": file_format,
            "sep": sep,
        }
        if engine == "stream":
            from .stream import panel_statistics

            stats = panel_statistics(data, batch_size=batch_size, **read)
        else:
            from ._dask import dask_panel_statistics

            stats = dask_panel_statistics(data, scheduler=scheduler, **read)
        n_rows = stats.n_assessments + stats.n_dropped
        reasons = {"missing score or confidence": stats.n_dropped} if stats.n_dropped else {}
        stats, resolved = _resolve_pair_statistics(stats, duplicates, engine)
        reasons.update(resolved)
        return _calibrate(_panel_of_statistics(stats, n_rows=n_rows, reasons=reasons), **options)
    panel = _read_panel(
        data,
        item=item,
        rater=rater,
        score=score,
        confidence=confidence,
        sigma=sigma,
        score_range=score_range,
        levels=levels,
        confidence_factor=confidence_factor,
        range_convention=range_convention,
        relative=relative,
        missing=missing,
        duplicates=duplicates,
    )
    return _calibrate(panel, **options)


def _calibrate(
    panel: _Panel,
    *,
    gauge: Gauge,
    per_component: bool,
    reliability: Reliability,
    bias_prior: float | None,
    uncertainty: Uncertainty,
    n_samples: int,
    connectivity: bool | Literal["auto"],
    solver: Solver,
    tol: float,
    max_iter: int,
    rng: RngLike,
) -> PanelCalibration:
    O, A, E = panel.n_items, panel.n_raters, panel.n_assessments  # noqa: E741
    ic, rc = panel.item_codes, panel.rater_codes
    declared = _linalg.build_system(ic, rc, panel.confidence, O, A, 0.0)
    k, item_comp, rater_comp = _linalg.components(None, None, O, A, pattern=declared.CT)
    if k > 1 and not per_component and bias_prior is None:
        raise InvalidInputError(
            f"the panel is disconnected: {k} components, and values in different components "
            "cannot be compared: "
            + _describe_components(panel, k, item_comp, rater_comp)
            + ". Pass per_component=True (--per-component) to calibrate each component on its "
            "own, or bias_prior=tau (--bias-prior) to link them by shrinking the biases"
        )
    dof = E - O - A + k
    if dof < 1 and (bias_prior is None or panel.relative):
        raise InvalidInputError(
            f"too few assessments: {E} assessments of {O} items by {A} raters in {k} "
            f"component(s) leave dof = {E} - {O} - {A} + {k} = {dof} < 1; the residual "
            "cannot be estimated (each item and rater needs more assessments)"
        )
    method: Literal["full", "schur-raters", "schur-items"]
    if solver == "auto":
        if 4 * A <= O:
            method = "schur-raters"
        elif 4 * O <= A:
            method = "schur-items"
        else:
            method = "full"
    else:
        method = solver
    c = panel.confidence.copy()
    s = panel.score
    within = panel.within

    def fit(weights: FloatArray, prior: float) -> tuple[Any, FloatArray, FloatArray, int, float]:
        if prior == 0.0 and weights is panel.confidence:
            system = declared
        else:
            system = _linalg.build_system(ic, rc, weights, O, A, prior)
        r_o, r_a = _linalg.right_hand_side(ic, rc, weights * s, O, A)
        v, b, it, rel = _linalg.solve(system, r_o, r_a, method=method, tol=tol, max_iter=max_iter)
        return system, v, b, it, rel

    def chi2(weights: FloatArray, v: FloatArray, b: FloatArray) -> FloatArray:
        r = s - v[ic] - b[rc]
        out = weights * r * r
        if within is not None:  # sum c (s - f)^2 over a pair = within + C (mean - f)^2
            out += within * (weights / panel.confidence)
        return np.asarray(out)

    # 1. declared fit (no prior): residual scale, and the starting point for reweighting
    scale = 1.0
    reliability_iterations = 0
    need_plain = panel.relative or reliability == "estimate"
    if need_plain:
        _, v, b, _, _ = fit(panel.confidence, 0.0)
        r0 = float(chi2(c, v, b).sum())
        s0 = r0 / dof if dof >= 1 else math.nan
        if reliability == "estimate":
            if not (s0 > 0):
                warn_degenerate(
                    "reliability='estimate': the declared fit has no residual; confidences kept"
                )
            else:
                nu0 = 2.0
                f = dof / E
                n_a = np.bincount(rc, weights=panel.count, minlength=A).astype(np.float64)
                w = np.ones(A)
                for reliability_iterations in range(1, 501):  # noqa: B007
                    ca = np.bincount(rc, weights=chi2(c, v, b), minlength=A)
                    w_new = (n_a * f + nu0) / (ca + nu0 * s0)
                    change = float(np.max(np.abs(w_new / w - 1.0)))
                    w = w_new
                    _, v, b, _, _ = fit(c * w[rc], 0.0)
                    if change <= 1e-8:
                        break
                else:
                    from .._errors import ConvergenceError

                    raise ConvergenceError(
                        "reliability='estimate': the precision multipliers did not settle in "
                        f"500 rounds (last relative change {change:.3g})"
                    )
                c = c * w[rc]
        elif panel.relative:
            scale = s0
    prior = 0.0 if bias_prior is None else scale / bias_prior**2
    system, v, b, iterations, solver_residual = fit(
        panel.confidence if reliability != "estimate" else c, prior
    )
    h = None
    if bias_prior is None:
        h = _linalg.gauge_weights(system.rater_weight, rater_comp, k, gauge)
        v, b = _linalg.apply_gauge(v, b, h, item_comp, rater_comp, k)
    per_edge = chi2(c, v, b)
    R = float(per_edge.sum())
    if panel.relative and bias_prior is None and reliability != "estimate":
        scale = R / dof
    total_ss = float(np.sum(c * s * s)) + (0.0 if within is None else float(per_edge.sum()))
    exact_fit = bool(R <= 1e-24 * total_ss)  # noqa: SIM300
    if exact_fit and panel.relative:
        warn_degenerate(
            "the scores fit the additive model exactly (R = 0 up to rounding): with relative "
            "confidences every sd is 0 and rater misfits are undefined"
        )
    auto = connectivity == "auto"
    want_fiedler = system.C.nnz <= FIEDLER_LIMIT if auto else bool(connectivity)
    fiedler = _linalg.algebraic_connectivity(system, k) if want_fiedler else math.nan

    # 2. uncertainty
    m = min(O, A)
    used = uncertainty
    if uncertainty == "auto":
        work = float(system.C.nnz) * m
        used = "exact" if m <= EXACT_LIMIT and work <= 2e9 else "sample"
    nan_o, nan_a, nan_e = np.full(O, np.nan), np.full(A, np.nan), np.full(E, np.nan)
    if used == "exact":
        var_o, var_a, var_f = _linalg.exact_variances(
            system,
            side="raters" if A <= O else "items",
            h=h,
            item_component=item_comp,
            rater_component=rater_comp,
            n_components=k,
            item_codes=ic,
            rater_codes=rc,
        )
    elif used == "sample":
        var_o, var_a, var_f, _, _ = _linalg.sampled_variances(
            system,
            method=method,
            h=h,
            item_component=item_comp,
            rater_component=rater_comp,
            n_components=k,
            item_codes=ic,
            rater_codes=rc,
            n_samples=n_samples,
            rng=as_generator(rng),
            tol=max(tol, 1e-6),
            max_iter=max_iter,
        )
    else:
        var_o, var_a, var_f = nan_o, nan_a, nan_e
    # 3. tables
    if panel.count is None:
        count_o = np.bincount(ic, minlength=O)
        count_a = np.bincount(rc, minlength=A)
        plain = np.bincount(ic, weights=s, minlength=O) / count_o
    else:
        count_o = np.rint(np.bincount(ic, weights=panel.count, minlength=O)).astype(np.int64)
        count_a = np.rint(np.bincount(rc, weights=panel.count, minlength=A)).astype(np.int64)
        plain = np.bincount(ic, weights=panel.raw_sum, minlength=O) / count_o
    values = pd.DataFrame(
        {
            "item": panel.items,
            "value": v,
            "sd": np.sqrt(scale * var_o),
            "confidence": system.item_weight,
            "plain_mean": plain,
            "n": count_o,
            "component": item_comp,
        },
        copy=False,
    )
    resid = s - v[ic] - b[rc]
    leverage = c * var_f
    with np.errstate(divide="ignore", invalid="ignore"):
        one_minus = 1.0 - leverage
        standardized = np.where(
            one_minus > 1e-9, resid * np.sqrt(c) / np.sqrt(scale * one_minus), np.nan
        )
        chi = np.bincount(rc, weights=per_edge, minlength=A) / scale
        if exact_fit and panel.relative:
            chi = nan_a
        if panel.count is None:
            expected = _linalg.wsum(rc, np.clip(one_minus, 0.0, None), A)
        else:  # sum of 1 - c var_f over the pair's assessments
            expected = _linalg.wsum(rc, np.clip(panel.count - leverage, 0.0, None), A)
        if used == "none":
            expected = nan_a
        misfit = np.where(expected > 1e-9, chi / expected, np.nan)
    pvalue = _chi2_upper(chi, expected)
    if panel.count is None:
        raw_ss = resid**2
    else:  # unweighted sum of squared residuals over each pair's assessments
        assert panel.raw_sum is not None and panel.raw_within is not None
        raw_ss = panel.raw_within + panel.count * (panel.raw_sum / panel.count - v[ic] - b[rc]) ** 2
    biases = pd.DataFrame(
        {
            "rater": panel.raters,
            "bias": b,
            "sd": np.sqrt(scale * var_a),
            "confidence": system.rater_weight,
            "n": count_a,
            "residual_rms": np.sqrt(np.bincount(rc, weights=raw_ss, minlength=A) / count_a),
            "chi2": chi,
            "expected_chi2": expected,
            "misfit": misfit,
            "misfit_pvalue": pvalue,
            "component": rater_comp,
        },
        copy=False,
    )
    columns: dict[str, Any] = {
        "item": panel.items[ic],
        "rater": panel.raters[rc],
        "score": s,
        "confidence": c,
        "fitted": v[ic] + b[rc],
        "residual": resid,
        "leverage": leverage,
        "standardized": standardized,
    }
    if panel.count is not None:
        columns["n"] = np.rint(panel.count).astype(np.int64)
    residuals = pd.DataFrame(columns, copy=False)
    gauge_used = "prior" if bias_prior is not None else gauge
    words = [
        "calibration with confidence (MacKay et al. 2017)",
        f"confidences from {panel.source}" + (" (relative)" if panel.relative else ""),
        {
            "sum": "gauge sum of biases = 0",
            "weighted": "gauge sum of C_a * bias = 0",
            "prior": f"bias prior N(0, {bias_prior}^2)",
        }[gauge_used],
    ]
    if k > 1:
        words.append(
            f"{k} components calibrated separately"
            if bias_prior is None
            else f"{k} components linked by the bias prior"
        )
    if reliability == "estimate":
        words.append(f"rater precisions estimated ({reliability_iterations} rounds)")
    words.append(
        {
            "exact": "exact posterior sd",
            "sample": f"posterior sd from {n_samples} draws",
            "none": "no posterior sd",
        }[used]
    )
    if panel.relative and bias_prior is None and reliability != "estimate":
        words.append("variances scaled by R/dof")
    return PanelCalibration(
        values=values,
        biases=biases,
        residuals=residuals,
        n_items=O,
        n_raters=A,
        n_assessments=E,
        n_components=k,
        algebraic_connectivity=fiedler,
        residual=R,
        dof=int(dof),
        residual_per_dof=R / dof if dof >= 1 else math.nan,
        variance_scale=float(scale),
        confidence_source=panel.source,
        relative=panel.relative,
        gauge=gauge_used,
        per_component=per_component,
        reliability=reliability,
        reliability_iterations=reliability_iterations,
        bias_prior=bias_prior,
        uncertainty=used,
        n_samples=n_samples if used == "sample" else 0,
        solver=method,
        iterations=iterations,
        converged=True,
        solver_residual=solver_residual,
        n_dropped=panel.n_dropped,
        method="; ".join(words),
        report=panel.report(),
    )


def _chi2_upper(chi: FloatArray, dof: FloatArray) -> FloatArray:
    from scipy import special

    with np.errstate(invalid="ignore"):
        out = np.where(
            dof > 1e-9, special.gammaincc(np.maximum(dof, 1e-9) / 2.0, chi / 2.0), np.nan
        )
    return np.asarray(out, dtype=np.float64)
