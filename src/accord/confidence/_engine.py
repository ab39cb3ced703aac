"""Confidence statistics with the stream and dask engines.

Each batch (stream) or partition (dask) of the correct / confidence [/ group] columns is
validated and summed into :class:`ConfidenceSums` and :class:`ConfidenceValueCounts`; the
partial statistics merge (integer counts exactly, float sums up to rounding), and the
estimators run once on the merged statistics. Memory is bounded by the statistics: groups,
and the distinct confidence values for the calibration metrics.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._errors import InvalidInputError, require
from ..engines._encode import infer_text
from ._inputs import prepare
from ._stats import ConfidenceSums, ConfidenceValueCounts

__all__ = ["confidence_statistics", "read_in_memory"]

Statistics = tuple[ConfidenceSums, ConfidenceValueCounts | None]


def _check_columns(owner: str, correct: Any, confidence: Any, groups: Any) -> list[str]:
    if not isinstance(correct, str) or not isinstance(confidence, str):
        raise InvalidInputError(
            f"{owner} with source= takes column names: correct= and confidence= must name "
            f"columns (and groups= a column, or None); got {type(correct).__name__} and "
            f"{type(confidence).__name__}"
        )
    if groups is not None and not isinstance(groups, str):
        raise InvalidInputError(
            f"{owner} with source= takes column names: groups= must name a column; got a "
            f"{type(groups).__name__}"
        )
    return [correct, confidence] + ([groups] if groups is not None else [])


def read_in_memory(
    source: Any, owner: str, correct: Any, confidence: Any, groups: Any
) -> tuple[Any, Any, Any]:
    """The columns of a file read whole (memory engine with ``source=``)."""
    from ..io.confidence import read_confidences

    _check_columns(owner, correct, confidence, groups)
    frame = read_confidences(source, correct=correct, confidence=confidence, group=groups)
    return frame["correct"], frame["confidence"], frame["group"] if groups is not None else None


def _units_stats(
    y: Any, c: Any, g: Any, out_of_range: Any, owner: str, table: bool, where: str
) -> Statistics:
    try:
        units = prepare(y, c, g, out_of_range, owner)
    except InvalidInputError as exc:
        raise InvalidInputError(
            f"{exc} (rows counted within the batch that starts at {where})"
        ) from None
    return (
        ConfidenceSums.from_units(units),
        ConfidenceValueCounts.from_units(units) if table else None,
    )


def _merge(a: Statistics, b: Statistics) -> Statistics:
    return (
        a[0].merge(b[0]),
        None if a[1] is None or b[1] is None else a[1].merge(b[1]),
    )


def _sorted_groups(sums: ConfidenceSums, text: bool) -> ConfidenceSums:
    """Groups typed as pandas reads them (CSV text) and sorted, as the memory engine orders
    them (first appearance when the labels cannot be sorted)."""
    labels = np.empty(len(sums.groups), dtype=object)
    labels[:] = list(sums.groups)
    if text and labels.size:
        typed = infer_text(labels)
        if np.unique(typed).size == labels.size:
            labels = np.asarray(typed, dtype=object)
    values = [v.item() if isinstance(v, np.generic) else v for v in labels]
    try:
        order = sorted(range(len(values)), key=lambda k: values[k])
    except TypeError:
        order = list(range(len(values)))
    idx = np.asarray(order, dtype=np.int64)
    return ConfidenceSums(
        groups=tuple(values[k] for k in order),
        n=sums.n[idx],
        n_correct=sums.n_correct[idx],
        sum_log2_correct=sums.sum_log2_correct[idx],
        sum_log2_incorrect=sums.sum_log2_incorrect[idx],
        sum_squared_error=sums.sum_squared_error[idx],
        n_clipped=sums.n_clipped[idx],
        n_out_of_range=sums.n_out_of_range[idx],
    )


def _partition(
    frame: pd.DataFrame, columns: list[str], out_of_range: Any, owner: str, table: bool
) -> Statistics:
    g = frame[columns[2]].to_numpy(dtype=object) if len(columns) == 3 else None
    return _units_stats(
        frame[columns[0]].to_numpy(),
        frame[columns[1]].to_numpy(),
        g,
        out_of_range,
        owner,
        table,
        "row 1 of a dask partition",
    )


def confidence_statistics(
    source: Any,
    engine: str,
    *,
    owner: str,
    correct: Any,
    confidence: Any,
    groups: Any,
    out_of_range: Any,
    table: bool,
    scheduler: Any = None,
    progress: Callable[[int, int | None], None] | None = None,
    batch_size: int = 1_000_000,
) -> Statistics:
    """Merged sums (and value counts when ``table``) of the units at ``source``."""
    from ..engines._mapreduce import batches as _batches
    from ..engines._run import check_source
    from ..engines._source import Locator, dataset_of, resolve_files

    columns = _check_columns(owner, correct, confidence, groups)
    check_source(source, engine, owner)
    if engine == "dask":
        from ..engines._mapreduce import compute as _compute
        from ..engines._mapreduce import frame_of as _frame_of
        from ..engines._mapreduce import tree_reduce as _tree

        dask: Any = require("dask", "dask")
        frame, text, _ = _frame_of(
            source,
            tuple(columns),
            file_format=None,
            sep=None,
            blocksize=None,
        )
        parts = [
            dask.delayed(_partition)(p, columns, out_of_range, owner, table)
            for p in frame.to_delayed()
        ]
        (result,) = _compute(scheduler, _tree(parts, _merge))
        sums, counts = result
        return _sorted_groups(sums, text), counts
    if scheduler is not None:
        raise InvalidInputError(f"scheduler= applies to engine='dask'; {owner} streams here")
    if batch_size < 1:
        raise InvalidInputError(f"batch_size must be a positive number of rows; got {batch_size}")
    files, fmt = resolve_files(source if isinstance(source, str | Path) else list(source), None)
    block_bytes = int(min(max(batch_size * 16, 1 << 12), 1 << 28))
    dataset = dataset_of(files, fmt, columns, sep=None, block_bytes=block_bytes)
    total_rows = int(dataset.count_rows()) if fmt == "parquet" else None
    locator = Locator()
    result_: Statistics | None = None
    rows = 0
    for row0, batch in _batches(dataset, columns, batch_size, locator, 0):
        arrays = [batch.column(k).to_numpy(zero_copy_only=False) for k in range(len(columns))]
        part = _units_stats(
            arrays[0],
            arrays[1],
            np.asarray(arrays[2], dtype=object) if len(arrays) == 3 else None,
            out_of_range,
            owner,
            table,
            locator.where(row0),
        )
        result_ = part if result_ is None else _merge(result_, part)
        rows = row0 + batch.num_rows
        if progress is not None:
            progress(rows, total_rows)
    if result_ is None:
        raise InvalidInputError(f"the input is empty: {files[0]} has no rows to read")
    sums, counts = result_
    return _sorted_groups(sums, fmt != "parquet"), counts
