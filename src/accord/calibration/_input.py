"""A panel's assessments: read from a table, checked, encoded, one per (item, rater) pair.

:func:`read_panel` turns the columns a :class:`~._spec.PanelSpec` names into
:class:`Assessments`: float scores and confidences, integer item and rater codes into sorted
decode tables, the rows dropped and why. The stream and dask engines read each batch or
partition with it too (``batch=True``: no warning, repeated pairs kept for after the merge).
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import DroppedDataWarning, DuplicateRatingError, InvalidInputError, option, shown
from .._types import Duplicates, FloatArray, IntArray
from .._validate import SHOW, at_rows, counted, format_rows, rows_that, tidy_scalar
from ..data.encoder import missing_mask
from ..data.frames import columns_of
from ..data.ratings import IdTables, ReadReport
from ..stats.panel import PanelStatistics
from ._spec import OWNER, EmptyPanelError, PanelSpec

__all__ = [
    "MISSING_REASON",
    "Assessments",
    "check_finite",
    "factorize_ids",
    "listed",
    "numeric_column",
    "pair_name",
    "read_panel",
    "repeated_pairs_error",
    "resolve_duplicates",
]

_LEVEL_NAMES = {"h": 0, "high": 0, "m": 1, "medium": 1, "med": 1, "l": 2, "low": 2}
MISSING_REASON = "missing score or confidence"
"""The reason in the read report for rows without a score or a confidence."""


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Assessments(IdTables):
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

    @classmethod
    def from_statistics(
        cls, stats: PanelStatistics, *, n_rows: int = 0, reasons: Mapping[str, int] | None = None
    ) -> Assessments:
        """One pseudo-assessment per (item, rater) pair, with the pair's totals."""
        return cls(
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

    @property
    def n_assessments(self) -> int:
        if self.count is None:
            return int(self.score.size)
        return round(float(self.count.sum()))

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


# --------------------------------------------------------------------------- reading


def read_panel(data: Any, spec: PanelSpec, *, batch: bool = False, row0: int = 0) -> Assessments:
    """Check and encode the assessments of one table.

    ``batch=True`` reads one batch or partition of a larger input: rows dropped for a
    missing value are counted but not warned about, and repeated (item, rater) pairs are
    kept (the engines resolve them once the batches are merged); otherwise ``spec.duplicates``
    resolves them. ``row0`` is the row of the whole input where a batch starts: errors name
    rows ``row0 + k + 1``. Raises :class:`EmptyPanelError` when no row is complete.
    """
    arrays, _, _ = columns_of(data, spec.columns)
    n_rows = arrays[0].size
    arrays, positions, n_dropped = _complete_rows(arrays, spec, warn=not batch, row0=row0)
    s = numeric_column(arrays[2], positions, spec.score)
    check_finite(s, positions, spec.score, positive=False)
    c = _confidences(arrays[3:], positions, spec, s)
    item_codes, items = factorize_ids(arrays[0], positions, spec.item)
    rater_codes, raters = factorize_ids(arrays[1], positions, spec.rater)
    source = spec.source
    relative = source in ("levels", "equal") if spec.relative is None else bool(spec.relative)
    reasons = {MISSING_REASON: n_dropped} if n_dropped else {}
    if not batch:
        item_codes, rater_codes, s, c, resolved = resolve_duplicates(
            item_codes,
            rater_codes,
            positions,
            s,
            c,
            duplicates=spec.duplicates,
            ids=(items, raters),
        )
        reasons.update(resolved)
    return Assessments(
        item_codes,
        rater_codes,
        s,
        c,
        items,
        raters,
        source,
        relative,
        n_dropped,
        n_rows=n_rows,
        reasons=reasons,
    )


def _complete_rows(
    arrays: list[npt.NDArray[Any]], spec: PanelSpec, *, warn: bool, row0: int = 0
) -> tuple[list[npt.NDArray[Any]], IntArray, int]:
    """The rows with a score and a confidence, their positions (from ``row0``), and how many
    were dropped (``missing="raise"``: an error naming the rows of the first column with a
    gap)."""
    n_rows = arrays[0].size
    positions = np.arange(row0, row0 + n_rows, dtype=np.int64)
    miss = np.zeros(n_rows, dtype=bool)
    for arr, name in zip(arrays[2:], (spec.score, *spec.extra), strict=True):
        m = missing_mask(arr)
        if m.any() and spec.missing == "raise":
            raise InvalidInputError(
                f"column {name!r}: {rows_that(int(m.sum()), 'are')} missing "
                f"({at_rows(positions[m])}); pass missing='omit' to drop them"
            )
        miss |= m
    n_dropped = int(miss.sum())
    if n_dropped and warn:
        warnings.warn(
            f"calibrate_panel dropped {counted(n_dropped, 'row')} with a missing score or "
            f"confidence ({at_rows(np.flatnonzero(miss))})",
            DroppedDataWarning,
            stacklevel=5,
        )
    if n_dropped:
        keep = ~miss
        arrays = [a[keep] for a in arrays]
        positions = positions[keep]
    if positions.size == 0:
        raise EmptyPanelError
    return arrays, positions, n_dropped


def _confidences(
    extra: list[npt.NDArray[Any]], positions: IntArray, spec: PanelSpec, score: FloatArray
) -> FloatArray:
    """The confidence ``c = 1 / sigma^2`` of every kept row, from the columns of ``spec``."""
    source, names = spec.source, spec.extra
    if source == "equal":
        return np.ones_like(score)
    if source == "levels":
        return _level_confidence(extra[0], positions, names[0], spec.confidence_factor)
    columns = [numeric_column(x, positions, name) for x, name in zip(extra, names, strict=True)]
    for x, name in zip(columns, names, strict=True):
        check_finite(x, positions, name, positive=source != "range")
    if source == "confidence":
        return columns[0]
    if source == "sigma":
        sd = columns[0]
    else:
        sd = _range_width(columns[0], columns[1], positions, names) / (
            3.92 if spec.range_convention == "central95" else 2.0
        )
    return np.asarray(1.0 / sd**2)


def _range_width(
    lo: FloatArray, hi: FloatArray, positions: IntArray, names: tuple[str, ...]
) -> FloatArray:
    """``hi - lo``, naming the first row whose range is empty or reversed."""
    width = hi - lo
    bad = np.flatnonzero(~(width > 0))
    if bad.size:
        first = int(bad[0])
        raise InvalidInputError(
            f"columns {names[0]!r}, {names[1]!r}: the range "
            f"[{tidy_scalar(lo[first])!r}, {tidy_scalar(hi[first])!r}] "
            f"at row {int(positions[first]) + 1} is empty or reversed ({bad.size} such rows: "
            f"{format_rows(positions[bad])})"
        )
    return width


def numeric_column(values: npt.NDArray[Any], positions: IntArray, column: str) -> FloatArray:
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


def check_finite(x: FloatArray, positions: IntArray, column: str, positive: bool) -> None:
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


def factorize_ids(
    ids: npt.NDArray[Any], positions: IntArray, column: str
) -> tuple[IntArray, npt.NDArray[Any]]:
    """Codes into the sorted distinct ids (in order of appearance when they cannot be
    sorted), naming the rows without an id."""
    try:
        codes, uniques = pd.factorize(ids, sort=True, use_na_sentinel=True)
    except TypeError:  # mixed types cannot be sorted
        codes, uniques = pd.factorize(ids, sort=False, use_na_sentinel=True)
    bad = np.flatnonzero(codes < 0)
    if bad.size:
        raise InvalidInputError(
            f"column {column!r}: {rows_that(bad.size)} no id ({at_rows(positions[bad])})"
        )
    plain = np.asarray(uniques)
    if plain.dtype.kind in "biuf":
        return codes.astype(np.int64), plain  # numbers stay a numeric array (no objects)
    decode = np.array([tidy_scalar(v) for v in np.asarray(uniques, dtype=object)], dtype=object)
    return codes.astype(np.int64), decode


# --------------------------------------------------------------------------- repeated pairs


def listed(values: npt.NDArray[Any]) -> str:
    """The first few of ``values``, and how many more there are."""
    shown = ", ".join(str(v) for v in values[:SHOW])
    return shown + (f" and {values.size - SHOW} more" if values.size > SHOW else "")


def pair_name(items: npt.NDArray[Any], raters: npt.NDArray[Any], i: int, r: int) -> str:
    """``(item, rater)`` of codes ``i`` and ``r``, as the user wrote them."""
    return f"({tidy_scalar(items[i])!r}, {tidy_scalar(raters[r])!r})"


def repeated_pairs_error(
    n_pairs: int, shown_pairs: list[str], remedy: str, owner: str = OWNER
) -> DuplicateRatingError:
    """The error for ``n_pairs`` repeated (item, rater) pairs (the first few ``shown_pairs``),
    ending with ``remedy``."""
    more = f"; and {n_pairs - SHOW} more" if n_pairs > SHOW else ""
    return DuplicateRatingError(
        f"{n_pairs} (item, rater) pair{'s are' if n_pairs > 1 else ' is'} scored more than "
        f"once: {'; '.join(shown_pairs)}{more}. {owner} takes one assessment per rater and "
        f"item: pass {remedy}"
    )


def resolve_duplicates(
    item_codes: IntArray,
    rater_codes: IntArray,
    positions: IntArray,
    score: FloatArray,
    confidence: FloatArray,
    *,
    duplicates: Duplicates,
    ids: tuple[npt.NDArray[Any], npt.NDArray[Any]],
    owner: str = OWNER,
) -> tuple[IntArray, IntArray, FloatArray, FloatArray, dict[str, int]]:
    """One assessment per (item, rater) pair, as :class:`accord.Ratings` resolves repeats.

    ``"raise"``: a :class:`~accord.DuplicateRatingError` naming the first pairs and their rows;
    ``"first"`` / ``"last"``: the pair's first / last row in input order; ``"mean"``: the mean
    score and the mean confidence of the pair's rows, at its first row. Returns the kept
    arrays (in input order) and the reason for the dropped rows with its count.
    """
    key = item_codes.astype(np.int64) * max(int(ids[1].size), 1) + rater_codes
    order = np.argsort(key, kind="stable")
    same_next = key[order][1:] == key[order][:-1]
    if not same_next.any():
        return item_codes, rater_codes, score, confidence, {}
    starts = np.flatnonzero(np.r_[True, ~same_next])
    sizes = np.diff(np.r_[starts, key.size])
    if duplicates == "raise":
        firsts = np.sort(order[starts[sizes > 1]])  # the pairs in order of their first row
        named = [
            f"{pair_name(*ids, int(item_codes[row]), int(rater_codes[row]))} at rows "
            f"{format_rows(positions[key == key[row]])}"
            for row in firsts[:SHOW]
        ]
        remedy = f"{option('duplicates', 'first', 'last', 'mean')} to resolve"
        raise repeated_pairs_error(int(firsts.size), named, remedy, owner)
    n_drop = int(key.size - starts.size)
    if duplicates in ("first", "last"):
        chosen = np.sort(order[starts] if duplicates == "first" else order[starts + sizes - 1])
        reason = f"duplicate (item, rater): kept the {duplicates}"
        kept = (item_codes[chosen], rater_codes[chosen], score[chosen], confidence[chosen])
        return (*kept, {reason: n_drop})
    group = np.cumsum(np.r_[True, ~same_next]) - 1
    mean_score = np.bincount(group, weights=score[order]) / sizes
    mean_confidence = np.bincount(group, weights=confidence[order]) / sizes
    first = order[starts]
    by_row = np.argsort(first, kind="stable")
    chosen = first[by_row]
    averaged = {"duplicate (item, rater): averaged": n_drop}
    return (
        item_codes[chosen],
        rater_codes[chosen],
        mean_score[by_row],
        mean_confidence[by_row],
        averaged,
    )
