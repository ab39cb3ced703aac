"""The aggregation step of panel calibration, per partition of a Dask DataFrame (``engine="dask"``).

One pass: every partition is validated and converted exactly as :func:`accord.calibrate_panel`
converts a whole table, and summarised to one row per (item, rater) pair
(:class:`~accord.PanelStatistics`, with the partition's own decode tables). The partial
statistics are tree-reduced; each merge takes the union of the two decode tables, recodes both
sides into it and pools the pairs. Only when a partition holds bad input does a second, cheap
pass count the rows of the partitions before it, so that the error names rows of the whole
input.

dask (and distributed, for a scheduler address) are imported inside the functions.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._errors import ColumnNotFoundError, DroppedDataWarning, InvalidInputError, require
from ..data.ratings import _missing_column_message
from .stream import PanelStatistics, finish

__all__ = ["dask_panel_statistics"]


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _Partial:
    """The statistics of some partitions (codes into ``stats.items`` / ``stats.raters``), or
    the first error met in them (partition number and message)."""

    stats: PanelStatistics | None
    n_dropped: int
    error: tuple[int, str] | None = None


def _summarise(part: pd.DataFrame, index: int, options: dict[str, Any]) -> _Partial:
    from .panel import _read_panel

    if len(part) == 0:
        return _Partial(None, 0)
    try:
        panel = _read_panel(part, warn=False, **options)
    except InvalidInputError as exc:
        if options["missing"] == "omit" and str(exc).startswith("no assessments"):
            return _Partial(None, len(part))
        return _Partial(None, 0, (index, str(exc)))
    stats = PanelStatistics.from_codes(
        panel.item_codes,
        panel.rater_codes,
        panel.score,
        panel.confidence,
        items=panel.items,
        raters=panel.raters,
        source=panel.source,
        relative=panel.relative,
        n_dropped=0,
    )
    return _Partial(stats, panel.n_dropped)


def _union(a: Any, b: Any) -> tuple[Any, Any, Any]:
    """The union of two decode tables (a's values first) and each side's codes into it."""
    from ..engines._mapreduce import concat_values as _concat

    values = pd.unique(_concat([a, b]))
    index = pd.Index(values, dtype=object if values.dtype == object else None)
    return values, index.get_indexer(pd.Index(a)), index.get_indexer(pd.Index(b))


def _merge(a: _Partial, b: _Partial) -> _Partial:
    errors = [e for e in (a.error, b.error) if e is not None]
    dropped = a.n_dropped + b.n_dropped
    if errors:
        return _Partial(None, dropped, min(errors))
    if a.stats is None or b.stats is None:
        return _Partial(a.stats if b.stats is None else b.stats, dropped)
    sa, sb = a.stats, b.stats
    items, ia, ib = _union(sa.items, sb.items)
    raters, ra, rb = _union(sa.raters, sb.raters)
    left = dataclasses.replace(sa, item_codes=ia[sa.item_codes], rater_codes=ra[sa.rater_codes])
    right = dataclasses.replace(
        sb, item_codes=ib[sb.item_codes], rater_codes=rb[sb.rater_codes], items=items, raters=raters
    )
    return _Partial(left.merge(right), dropped)


def _frame(
    data: Any, columns: list[str], *, file_format: str | None, sep: str | None
) -> tuple[Any, bool]:
    """A dask DataFrame of the columns, and whether its cells are CSV text."""
    dd: Any = require("dask.dataframe", "dask")
    if isinstance(data, str | Path) or (
        isinstance(data, Sequence) and not isinstance(data, str | bytes)
    ):
        from ..engines._source import resolve_files

        files, fmt = resolve_files(data, file_format)
        if fmt == "parquet":
            import pyarrow.parquet as pq

            names = list(pq.read_schema(files[0]).names)
        else:
            sep = sep if sep is not None else ("\t" if fmt == "tsv" else ",")
            names = list(pd.read_csv(files[0], sep=sep, nrows=0).columns)
        for name in columns:
            if name not in names:
                raise ColumnNotFoundError(f"{files[0]}: {_missing_column_message(name, names)}")
        if fmt == "parquet":
            return dd.read_parquet(files, columns=columns), False
        frame = dd.read_csv(files, sep=sep, usecols=columns, dtype=dict.fromkeys(columns, object))
        return frame, True
    if not isinstance(data, dd.DataFrame):
        raise InvalidInputError(
            "calibrate_panel(engine='dask') takes a dask DataFrame, a path, a glob or a list of "
            f"paths; got a {type(data).__name__}"
        )
    available = list(data.columns)
    for name in columns:
        if name not in available:
            raise ColumnNotFoundError(_missing_column_message(name, available))
    return data[columns], False


def dask_panel_statistics(
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
    range_convention: str,
    relative: bool | None,
    missing: str,
    scheduler: Any = None,
    file_format: str | None = None,
    sep: str | None = None,
) -> PanelStatistics:
    """The per-pair statistics of a panel in a Dask DataFrame (or Parquet/CSV files).

    The options mean what they mean in :func:`accord.calibrate_panel`; ``scheduler`` is
    ``None`` (dask's default: the active ``distributed.Client`` if there is one), a scheduler
    name (``"threads"``, ``"processes"``, ``"synchronous"``), a ``distributed.Client`` or an
    address such as ``"tcp://10.0.0.5:8786"``. The codes and decode tables are sorted as the
    memory engine sorts them.
    """
    dask: Any = require("dask", "dask")
    from ..engines._mapreduce import compute as _compute
    from ..engines._mapreduce import tree_reduce as _tree

    extra = [c for c in (confidence, sigma, levels, *(score_range or ())) if isinstance(c, str)]
    columns = list(dict.fromkeys([item, rater, score, *extra]))
    frame, text = _frame(data, columns, file_format=file_format, sep=sep)
    options: dict[str, Any] = {
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
    }
    from .panel import _read_panel

    try:  # option errors once, on the empty frame of the right columns, not per partition
        _read_panel(frame._meta, warn=False, **options)
    except InvalidInputError as exc:
        if not str(exc).startswith("no assessments"):
            raise
    parts = frame.to_delayed()
    shared = dask.delayed(options, pure=True)
    partials = [dask.delayed(_summarise)(p, k, shared) for k, p in enumerate(parts)]
    (total,) = _compute(scheduler, _tree(partials, _merge))
    if total.error is not None:
        index, message = total.error
        if index == 0:
            raise InvalidInputError(message)
        lengths = _compute(scheduler, *[dask.delayed(len)(p) for p in parts[:index]])
        start = int(sum(lengths))
        raise InvalidInputError(
            f"{message} [row numbers count from row {start + 1} of the input, where "
            f"partition {index + 1} starts]"
        )
    if total.stats is None:
        raise InvalidInputError("no assessments to calibrate: the input has no complete rows")
    if total.n_dropped:
        warnings.warn(
            f"calibrate_panel dropped {total.n_dropped} rows with a missing score or confidence",
            DroppedDataWarning,
            stacklevel=3,
        )
    stats: PanelStatistics = total.stats
    return finish(
        stats,
        np.asarray(stats.items),
        np.asarray(stats.raters),
        text=text,
        item=item,
        rater=rater,
        n_dropped=total.n_dropped,
    )
