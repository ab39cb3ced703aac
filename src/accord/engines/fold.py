"""One fold over the batches (stream) or partitions (dask) of an input, for any statistic.

A statistic that merges is computed from a large input in three steps: each part (a batch
read by pyarrow, a dask partition) is summarised into a partial statistic, the partials are
merged, and the estimator runs once on the result. :func:`fold_batches` and
:func:`fold_partitions` run the first two for every statistic, with what every caller needs:

- *row offsets*: the summary of a part is told the row of the whole input where the part
  starts, so that an error names rows of the whole input (row 12 of the input, not row 2 of
  the second batch) on every engine, and the stream engine's add the file the batch is in
  (``in b.csv, whose row 3 is row 7 of the input`` when there are several). Dask
  partitions are summarised without knowing where they start; when one holds bad input, a
  second, cheap pass counts the rows of the partitions before it and the bad one is
  summarised again at its offset to raise the error;
- *progress*: rows read so far (stream) or partitions done (dask);
- *merges in a balanced tree*: batches are merged as they come, pairwise like the dask
  reduction (a binary counter), so partial statistics stay few and float sums are added in
  the same shape on both engines;
- *empty parts*: a part without rows is no partial (a filtered dask frame may have several).

The summary and the merge come from the caller: nothing here knows which statistic is
computed. Decode tables are the statistic's own: a partial carries the decode tables of its
part and its ``merge`` takes their union (as :meth:`accord.PanelStatistics.merge` does), or
the caller keeps growing dictionaries across batches (the ratings engines).

Examples
--------
The sum of a column of a dask frame, and the row an error names:

>>> import dask.dataframe as dd, pandas as pd
>>> from accord._errors import InvalidInputError
>>> def total(part, row0):
...     values = part["x"].to_numpy()
...     if (values < 0).any():
...         raise InvalidInputError(f"negative at row {row0 + int((values < 0).argmax()) + 1}")
...     return int(values.sum())
>>> frame = dd.from_pandas(pd.DataFrame({"x": [1, 2, 3, 4, 5]}), npartitions=2)
>>> fold_partitions(frame.to_delayed(), total, int.__add__, scheduler="synchronous")
15
>>> bad = dd.from_pandas(pd.DataFrame({"x": [1, 2, 3, -4, 5]}), npartitions=2)
>>> fold_partitions(bad.to_delayed(), total, int.__add__, scheduler="synchronous")
Traceback (most recent call last):
...
accord._errors.InvalidInputError: negative at row 4
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, TypeVar, cast

import numpy as np
import numpy.typing as npt

from .._errors import InvalidInputError, located, require
from ._mapreduce import Progress, _client_of, batches, compute, run_partitions
from ._source import Locator

__all__ = [
    "Summarise",
    "fold_batches",
    "fold_kept",
    "fold_partitions",
    "fold_parts",
    "part_columns",
    "partition_locator",
]

T = TypeVar("T")

Summarise = Callable[[Any, int], Any]
"""``summarise(part, row0)``: the partial statistic of one batch or partition whose first
row is row ``row0`` (0-based) of the whole input; its errors name rows ``row0 + k + 1``."""


class _Tree(Generic[T]):
    """Partials merged as they come, pairwise (a binary counter): level ``k`` holds the merge
    of ``2**k`` consecutive partials, so at most log2(n) partials wait."""

    def __init__(self, merge: Callable[[T, T], T]) -> None:
        self.merge = merge
        self.levels: list[tuple[int, T]] = []

    def add(self, value: T) -> None:
        level = 0
        while self.levels and self.levels[-1][0] == level:
            _, left = self.levels.pop()
            value, level = self.merge(left, value), level + 1
        self.levels.append((level, value))

    def result(self) -> T | None:
        if not self.levels:
            return None
        value = self.levels[-1][1]
        for _, left in reversed(self.levels[:-1]):
            value = self.merge(left, value)
        return value


def fold_parts(
    parts: Iterable[tuple[int, Any]],
    summarise: Summarise,
    merge: Callable[[T, T], T],
    *,
    progress: Progress | None = None,
    total: int | None = None,
) -> T | None:
    """Merge of ``summarise(part, row0)`` over ``(row0, part)`` in order (None: no partial).

    ``summarise`` may return None for a part that adds nothing. ``progress(rows, total)`` is
    called after each part with the rows read so far.
    """
    tree: _Tree[T] = _Tree(merge)
    for row0, part in parts:
        value = summarise(part, row0)
        if value is not None:
            tree.add(value)
        if progress is not None:
            progress(row0 + _length(part), total)
    return tree.result()


def fold_batches(
    dataset: Any,
    columns: list[str],
    batch_size: int,
    summarise: Summarise,
    merge: Callable[[T, T], T],
    *,
    progress: Progress | None = None,
    total: int | None = None,
    locator: Locator | None = None,
) -> T | None:
    """:func:`fold_parts` over the record batches of a pyarrow dataset (or DuckDB query) in
    order; ``locator`` learns which file each row is in."""
    where = locator or Locator()
    parts = batches(dataset, columns, batch_size, where, 0)
    return fold_parts(parts, _InFile(summarise, where), merge, progress=progress, total=total)


@dataclasses.dataclass(frozen=True, slots=True)
class _InFile:
    """``summarise`` of one batch whose errors name the file the batch is in after the row
    of the whole input (the same error, its message extended)."""

    summarise: Summarise
    locator: Locator

    def __call__(self, part: Any, row0: int) -> Any:
        with located(self.locator.part(row0)):
            return self.summarise(part, row0)


@dataclasses.dataclass(frozen=True, slots=True)
class _Failed:
    """The first partition (by number) whose summary raised."""

    index: int


@dataclasses.dataclass(frozen=True, slots=True)
class _Summary:
    """``summarise`` of one partition at offset 0, an error turned into :class:`_Failed`
    (module level and frozen: it pickles for process and cluster schedulers)."""

    summarise: Summarise

    def __call__(self, part: Any, index: int) -> Any:
        if _length(part) == 0:
            return None
        try:
            return self.summarise(part, 0)
        except InvalidInputError:
            return _Failed(index)


@dataclasses.dataclass(frozen=True, slots=True)
class _Merge:
    """``merge`` of two partials, skipping None and keeping the first failure."""

    merge: Callable[[Any, Any], Any]

    def __call__(self, a: Any, b: Any) -> Any:
        failed = [x for x in (a, b) if isinstance(x, _Failed)]
        if failed:
            return min(failed, key=lambda f: f.index)
        if a is None or b is None:
            return b if a is None else a
        return self.merge(a, b)


def fold_partitions(
    parts: Sequence[Any],
    summarise: Summarise,
    merge: Callable[[T, T], T],
    *,
    scheduler: Any = None,
    progress: Progress | None = None,
    phase: tuple[int, int] | None = None,
    files: Sequence[str] | None = None,
) -> T | None:
    """Merge of ``summarise(partition, row0)`` over delayed partitions, tree-reduced on
    ``scheduler`` (None: no partial). ``progress(done, total)`` counts partitions; a fold
    that is one phase of a longer run gives ``phase`` (the count done before it, and the
    total of the run) so that one display covers every phase.

    Partitions are summarised in one pass at offset 0. When one raises
    :class:`~accord.InvalidInputError`, the rows of the partitions before the first such
    partition are counted and it is summarised again at its offset, so that its error names
    rows of the whole input; given ``files`` (the file of each partition), the error names
    the file and its row as the stream engine's do.
    """
    dask: Any = require("dask", "dask")
    summary = dask.delayed(_Summary(summarise))
    partials = [summary(part, k) for k, part in enumerate(parts)]
    if not partials:
        return None
    done, whole = phase if phase is not None else (0, len(partials))
    out = run_partitions(scheduler, partials, _Merge(merge), progress, done, whole)
    if not isinstance(out, _Failed):
        return out  # type: ignore[no-any-return]
    before = compute(scheduler, *[dask.delayed(_length)(p) for p in parts[: out.index]])
    row0 = int(sum(before))
    at: Summarise = summarise
    if files is not None:
        starts = np.r_[0, np.cumsum(np.asarray(before, dtype=np.int64))]
        at = _InFile(summarise, partition_locator(starts, files))
    compute(scheduler, dask.delayed(at)(parts[out.index], row0))
    raise InvalidInputError(  # pragma: no cover - the second summary raises the error
        f"partition {out.index + 1} (from row {row0 + 1}) raised only at offset 0"
    )


def fold_kept(
    parts: Sequence[Any],
    summarise: Summarise,
    merge: Callable[[T, T], T],
    *,
    scheduler: Any = None,
    progress: Progress | None = None,
    phase: tuple[int, int] | None = None,
) -> tuple[list[Any], T]:
    """Each partition's kept value, left where it was computed, and the merge of their
    partials: ``summarise(partition, 0)`` returns ``(kept, partial)`` for every partition,
    empty ones too (the kept values line up with ``parts``).

    The kept values are delayed values that later passes start from: on a
    ``distributed.Client`` they stay persisted on the workers (only the partials travel,
    merged there in a tree); on a scheduler address, whose client lives for one call, they
    are recomputed by the pass that needs them; on dask's local schedulers they are
    computed once, here. Partitions are summarised at offset 0: a summary that can find bad
    input returns it in its partial, for the caller to name its rows once the partitions'
    lengths are known. ``progress`` and ``phase`` as in :func:`fold_partitions`.

    >>> import dask.dataframe as dd, pandas as pd
    >>> frame = dd.from_pandas(pd.DataFrame({"x": [1, 2, 3, 4, 5]}), npartitions=2)
    >>> def kept_and_sizes(part, row0):
    ...     return part["x"].to_numpy() * 10, [len(part)]
    >>> kept, sizes = fold_kept(frame.to_delayed(), kept_and_sizes, list.__add__,
    ...                         scheduler="synchronous")
    >>> sizes, [k.compute(scheduler="synchronous").tolist() for k in kept]
    ([3, 2], [[10, 20, 30], [40, 50]])
    """
    dask: Any = require("dask", "dask")
    pairs = [dask.delayed(summarise, nout=2)(part, 0) for part in parts]
    done, whole = phase if phase is not None else (0, len(pairs))
    run = functools.partial(run_partitions, progress=progress, done=done, total=whole)
    if isinstance(scheduler, str) and "://" in scheduler:
        return [p[0] for p in pairs], run(scheduler, [p[1] for p in pairs], merge)
    client, _ = _client_of(scheduler)
    if client is not None:
        pairs = client.persist(pairs)
        merged = run(client, [p[1] for p in pairs], merge)
        # Only the kept values stay on the workers (the partials are released).
        return client.persist([p[0] for p in pairs]), merged
    computed = run(scheduler, pairs, None)
    tree: _Tree[T] = _Tree(merge)
    for _, partial in computed:
        tree.add(partial)
    kept = [dask.delayed(value, traverse=False) for value, _ in computed]
    return kept, cast(T, tree.result())


def partition_locator(
    starts: Sequence[int] | npt.NDArray[Any], files: Sequence[str] | None
) -> Locator:
    """The :class:`Locator` of partitions starting at rows ``starts`` (0-based) of the whole
    input, partition ``k`` in ``files[k]`` (an empty locator without files: rows of the
    whole input alone).

    >>> partition_locator([0, 6], ["a.csv", "b.csv"]).where(8)
    'row 9 (row 3 of b.csv)'
    """
    where = Locator()
    for start, file in zip(starts, files or (), strict=False):
        where.add(int(start), file)
    return where


def _length(part: Any) -> int:
    """Rows of a batch, table or frame."""
    rows = getattr(part, "num_rows", None)
    return int(rows) if rows is not None else len(part)


def part_columns(part: Any, names: Sequence[str]) -> list[npt.NDArray[Any]]:
    """The named columns of a record batch, Arrow table or pandas frame as numpy arrays
    (Arrow nulls as None or NaN, as ``to_numpy(zero_copy_only=False)`` gives them).

    >>> import pandas as pd
    >>> [c.tolist() for c in part_columns(pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}), ["b"])]
    [['x', 'y']]
    """
    if hasattr(part, "num_rows"):
        return [part.column(name).to_numpy(zero_copy_only=False) for name in names]
    return [np.asarray(part[name].to_numpy()) for name in names]
