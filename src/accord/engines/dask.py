"""The dask engine: partial statistics per partition, tree-reduced with ``merge``.

Two passes over the partitions:

1. a cheap pass collects, per partition, its length and the distinct items, raters and labels
   in order of first appearance; concatenated in partition order they give the dictionaries
   the memory engine builds (first appearance over the whole frame), and the label domain;
2. each partition is encoded with those dictionaries (so codes agree everywhere), the codes
   are shuffled by item so that every rating of an item lands in one partition (pairs and
   repeated (item, rater) pairs are found within items), each partition is counted, and the
   partial statistics are merged pairwise in a tree.

dask and distributed are imported inside the functions that use them.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Unpack

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError, require
from .._types import FloatArray, IntArray
from .._validate import check_na_values
from ..data.dictionary import raw_label_domain as label_domain
from ..data.encoder import missing_mask, typed_ids
from ._blocks import (
    Decoded,
    DuplicateInfo,
    LongPartial,
    RatingStatistics,
    assemble,
    long_partial,
)
from ._mapreduce import MapFn, Merge, Progress, concat_values, frame_of, run_partitions
from ._options import Scan, ScanOptions, check_read
from ._pages import small_pages
from ._source import Locator, raise_duplicates
from .stream import require_unique

__all__ = ["DaskRescan", "dask_scan", "dask_statistics"]

_SHOW = 5


@dataclasses.dataclass(frozen=True, slots=True)
class _Distinct:
    """What pass 1 learns from one partition."""

    rows: int
    items: npt.NDArray[Any]
    raters: npt.NDArray[Any]
    labels: npt.NDArray[Any]
    label_first: IntArray  # position in the partition of each label's first appearance
    null_ids: tuple[tuple[str, IntArray], ...]  # (column, positions) of missing ids


def _values(series: pd.Series) -> npt.NDArray[Any]:
    """Column values as numpy (nullable and text dtypes as object, NA as NaN)."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        series = series.astype(series.dtype.categories.dtype)
    if series.dtype.kind in "biuf":
        out: npt.NDArray[Any] = series.to_numpy()
        return out
    return series.to_numpy(dtype=object, na_value=np.nan)


def _distinct(
    part: pd.DataFrame, columns: tuple[str, str, str], na_values: tuple[str, ...]
) -> _Distinct:
    item, rater, label = columns
    nulls = []
    uniques = []
    for col in (item, rater):
        values = _values(part[col])
        codes, uniq = pd.factorize(values, use_na_sentinel=True)
        bad = np.flatnonzero(missing_mask(values, na_values)) if len(values) else codes[:0]
        if bad.size:
            nulls.append((col, bad[:_SHOW].astype(np.int64)))
        uniques.append(np.asarray(uniq))
    codes, uniq = pd.factorize(_values(part[label]), use_na_sentinel=True)
    present = np.flatnonzero(codes >= 0)
    _, first = np.unique(codes[present], return_index=True)
    return _Distinct(
        rows=len(part),
        items=uniques[0],
        raters=uniques[1],
        labels=np.asarray(uniq),
        label_first=present[first].astype(np.int64),
        null_ids=tuple(nulls),
    )


@dataclasses.dataclass(frozen=True, slots=True)
class _Dictionaries:
    """The global dictionaries, sent once to every worker."""

    items: pd.Index
    raters: pd.Index
    labels: pd.Index
    remap: IntArray  # raw label position -> domain code (-1 missing), shifted by one


def _encode(
    part: pd.DataFrame, offset: int, dicts: _Dictionaries, columns: tuple[str, str, str]
) -> pd.DataFrame:
    item, rater, label = columns
    n = len(part)
    return pd.DataFrame(
        {
            "i": dicts.items.get_indexer(pd.Index(_values(part[item]))).astype(np.int64),
            "r": dicts.raters.get_indexer(pd.Index(_values(part[rater]))).astype(np.int64),
            "c": dicts.remap[dicts.labels.get_indexer(pd.Index(_values(part[label]))) + 1],
            "row": np.arange(offset, offset + n, dtype=np.int64),
        }
    )


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _Partial:
    stats: LongPartial
    missing: int
    missing_rows: IntArray


def _count(
    codes: pd.DataFrame,
    *,
    n_items: int,
    raters: Any,
    categories: tuple[Any, ...],
    duplicates: str,
    statistics: tuple[str, ...],
) -> _Partial:
    c = codes["c"].to_numpy(dtype=np.int64)
    miss = c < 0
    keep = ~miss
    rows = codes["row"].to_numpy(dtype=np.int64)
    stats = long_partial(
        codes["i"].to_numpy(dtype=np.int64)[keep],
        codes["r"].to_numpy(dtype=np.int64)[keep],
        c[keep],
        rows[keep],
        n_groups=n_items,
        raters=raters,
        categories=categories,
        duplicates=duplicates,
        statistics=statistics,
        sparse=True,
        report=True,
    )
    return _Partial(stats, int(miss.sum()), np.sort(rows[miss])[:_SHOW])


def _merge(a: _Partial, b: _Partial) -> _Partial:
    return _Partial(
        a.stats.merge(b.stats),
        a.missing + b.missing,
        np.sort(np.r_[a.missing_rows, b.missing_rows])[:_SHOW],
    )


def dask_statistics(
    data: Any,
    *,
    scheduler: Any = None,
    blocksize: str | int | None = None,
    **options: Unpack[ScanOptions],
) -> RatingStatistics:
    """Sufficient statistics of ratings in a Dask DataFrame (or Parquet/CSV files).

    Each partition is encoded with global dictionaries and counted; the partial statistics
    are tree-reduced with ``merge``. The numbers, codes and decode tables are those of the
    memory engine on the whole frame (partitions concatenated in order).

    Parameters
    ----------
    data : dask DataFrame, path, glob or list of paths
        Parquet files are read with ``dask.dataframe.read_parquet``; CSV/TSV files with
        ``pyarrow.csv``, as the memory and stream engines read them (one partition per
        file; cells as text, typed from the distinct values of the whole column by the one
        encoder).
    item, rater, label : str
        Column names.
    level, categories, missing
        As in :func:`stream_statistics`.
    duplicates : {"raise", "first", "last"}, default "raise"
        Repeated (item, rater) pairs anywhere in the frame; "first"/"last" follow the row
        order of the frame.
    statistics : sequence of {"items", "raters", "pairs"}
        Which statistics to return.
    scheduler : str, distributed.Client or None
        ``None`` for dask's default (the active ``distributed.Client`` if there is one), a
        scheduler name (``"threads"``, ``"processes"``, ``"synchronous"``), a
        ``distributed.Client``, or a scheduler address such as ``"tcp://10.0.0.5:8786"``.
    file_format, sep, encoding
        For paths: the format (default from the suffix), the CSV separator and the CSV
        text encoding, as in :func:`stream_statistics`.
    blocksize : str or int, optional
        Kept for compatibility; a CSV file is one partition (split large inputs into
        several files, or pass a dask DataFrame, for more partitions).
    progress : callable, optional
        ``progress(partitions_done, partitions_total)`` as each partition of each pass is
        done (two passes; a method that reads the ratings again adds a third). With a
        ``distributed.Client`` the partitions are reported as their futures complete; with
        the local schedulers, through a ``dask.diagnostics.Callback``.
    na_values, labels_as
        As in :meth:`accord.Ratings.from_long` (one missing-value rule, one typing of a
        text file's columns for every engine).

    Returns
    -------
    RatingStatistics
        As from :func:`stream_statistics`, with ``engine="dask"`` and ``passes=2``.

    Raises
    ------
    ColumnNotFoundError, InvalidInputError, DuplicateRatingError
        As :func:`stream_statistics`; rows are counted over the partitions in order.

    Notes
    -----
    Pass 1 moves only distinct values to the client; pass 2 shuffles the integer codes
    (four int64 per rating) by item, so that each item's ratings are counted together:
    pairs are formed within items and repeats are found within (item, rater). Partial item
    counts are sparse until the end, so a partition never holds an items x categories
    dense array.

    References
    ----------
    .. [1] Rocklin, M. (2015). Dask: parallel computation with blocked algorithms and task
       scheduling. Proceedings of the 14th Python in Science Conference (SciPy 2015),
       130-136. https://doi.org/10.25080/Majora-7b98e3ed-013
    .. [2] The Apache Software Foundation. Apache Parquet file format.
       https://parquet.apache.org/docs/file-format/
    .. [3] Shafranovich, Y. (2005). Common Format and MIME Type for Comma-Separated Values
       (CSV) Files. RFC 4180. IETF. https://doi.org/10.17487/RFC4180
    """
    with small_pages():
        return dask_scan(data, scheduler=scheduler, blocksize=blocksize, **options)[0]


def dask_scan(
    data: Any,
    *,
    scheduler: Any = None,
    blocksize: str | int | None = None,
    **options: Unpack[ScanOptions],
) -> tuple[RatingStatistics, DaskRescan]:
    """:func:`dask_statistics`, and what a second pass over the partitions needs."""
    scan = Scan.of("dask_statistics", options)
    if scan.multi_label:
        raise InvalidInputError(
            "multi_label: the dask engine reads one label per row; read sets of labels with "
            "the stream or memory engine"
        )
    dask: Any = require("dask", "dask")
    frame, text, source = frame_of(
        data,
        scan.columns,
        file_format=scan.file_format,
        sep=scan.sep,
        blocksize=blocksize,
        encoding=scan.encoding,
    )
    parts = frame.to_delayed()
    n_parts = len(parts)
    spellings = check_na_values(scan.na_values)
    firsts: list[_Distinct] = run_partitions(
        scheduler,
        [dask.delayed(_distinct)(p, scan.columns, spellings) for p in parts],
        None,
        scan.progress,
        0,
        2 * n_parts,
    )
    seen = _Seen.of(firsts, scan, source)
    remap, domain, _, category_order, notes = label_domain(
        seen.labels,
        seen.label_rows,
        level=scan.level,
        categories=scan.categories,
        column=scan.label,
        text=text,
        na_values=spellings,
        labels_as=scan.labels_as,
    )
    check_read(seen.rows, seen.rows if not (remap >= 0).any() else 0, source, scan.label)
    decoded = Decoded(
        _decode(seen.items, text),
        _decode(seen.raters, text),
        domain,
        scan.level,
        scan.categories is not None,
        notes,
        category_order,
    )
    dicts = dask.delayed(seen.dictionaries(remap), pure=True)
    total = _count_partitions(parts, seen.offsets, dicts, scan, decoded, scheduler, n_parts)
    stats = _checked(total, scan, decoded)
    assert stats.rater_counts is not None
    result = assemble(
        decoded,
        item_counts=stats.item_counts,
        rater_counts=stats.rater_counts,
        pairs=stats.pair_tables,
        patterns=None,
        rated_items=stats.rated,  # without item counts
        statistics=scan.statistics,
        keep_items="items" in scan.statistics,
        rows=seen.rows,
        missing=total.missing,
        dropped=stats.dropped,
        duplicates=scan.duplicates,
        source=source,
        engine="dask",
        passes=2,
    )
    rescan = DaskRescan(
        parts, seen.offsets, dicts, scan.columns, scheduler, int(stats.dropped), scan.progress
    )
    return result, rescan


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _Seen:
    """What pass 1 learns from all the partitions: rows, each partition's first row, and
    the distinct items, raters and labels in order of first appearance over the frame
    (with each label's first row)."""

    rows: int
    offsets: IntArray
    items: npt.NDArray[Any]
    raters: npt.NDArray[Any]
    labels: npt.NDArray[Any]
    label_rows: IntArray

    @classmethod
    def of(cls, firsts: list[_Distinct], scan: Scan, source: str) -> _Seen:
        """Concatenate the partitions' findings in order; a missing id is an error naming
        its rows, an input without rows or without a label too."""
        lengths = np.array([d.rows for d in firsts], dtype=np.int64)
        offsets = np.r_[0, np.cumsum(lengths)[:-1]].astype(np.int64)
        rows = int(lengths.sum())
        check_read(rows, 0, source, scan.label)
        locator = Locator()
        for k, d in enumerate(firsts):
            for col, positions in d.null_ids:
                what = "item" if col == scan.item else "rater"
                raise InvalidInputError(
                    f"column {col!r}: rows have no {what} id "
                    f"({locator.rows(offsets[k] + positions)})"
                )
        labels_all = concat_values([d.labels for d in firsts])
        label_rows = np.concatenate(
            [offsets[k] + d.label_first for k, d in enumerate(firsts)]
        ).astype(np.int64)
        _, first_at = np.unique(pd.factorize(labels_all)[0], return_index=True)
        keep_first = first_at[np.argsort(first_at, kind="stable")]
        seen = cls(
            rows,
            offsets,
            pd.unique(concat_values([d.items for d in firsts])),
            pd.unique(concat_values([d.raters for d in firsts])),
            labels_all[keep_first],
            label_rows[keep_first],
        )
        check_read(rows, rows if seen.labels.size == 0 else 0, source, scan.label)
        return seen

    def dictionaries(self, remap: IntArray) -> _Dictionaries:
        """The dictionaries sent to the workers."""

        def index(values: npt.NDArray[Any]) -> pd.Index:
            out: pd.Index = pd.Index(values, dtype=object if values.dtype == object else None)
            return out

        return _Dictionaries(
            index(self.items),
            index(self.raters),
            index(self.labels),
            np.r_[-1, remap].astype(np.int64),
        )


def _count_partitions(
    parts: list[Any],
    offsets: IntArray,
    dicts: Any,
    scan: Scan,
    decoded: Decoded,
    scheduler: Any,
    n_parts: int,
) -> _Partial:
    """Pass 2: encode each partition, shuffle the codes by item, count each partition and
    merge the partial statistics pairwise."""
    dask: Any = require("dask", "dask")
    dd: Any = require("dask.dataframe", "dask")
    meta = pd.DataFrame({name: np.zeros(0, np.int64) for name in ("i", "r", "c", "row")})
    encoded = dd.from_delayed(
        [
            dask.delayed(_encode)(p, int(offsets[k]), dicts, scan.columns)
            for k, p in enumerate(parts)
        ],
        meta=meta,
        verify_meta=False,
    )
    if encoded.npartitions > 1:
        encoded = encoded.shuffle(on="i", npartitions=encoded.npartitions)
    # One node, not walked per partition: continuous scores make a million categories.
    categories = dask.delayed(decoded.categories, traverse=False)
    partials = [
        dask.delayed(_count)(
            p,
            n_items=int(decoded.items.size),
            raters=decoded.raters,
            categories=categories,
            duplicates=scan.duplicates,
            statistics=scan.statistics,
        )
        for p in encoded.to_delayed()
    ]
    total: _Partial = run_partitions(
        scheduler, partials, _merge, scan.progress, n_parts, n_parts + len(partials)
    )
    return total


def _checked(total: _Partial, scan: Scan, decoded: Decoded) -> LongPartial:
    """The merged statistics, once missing labels (under ``missing="raise"``) and repeated
    (item, rater) pairs (under ``duplicates="raise"``) are ruled out."""
    locator = Locator()
    if scan.missing == "raise" and total.missing:
        raise InvalidInputError(
            f"column {scan.label!r}: {total.missing} rows have a missing label "
            f"({locator.rows(total.missing_rows)}); pass missing='omit' to leave them out"
        )
    stats = total.stats
    if stats.duplicates is not None:
        info = _sorted_info(stats.duplicates)
        raise_duplicates(info, decoded.items, decoded.raters, locator, complete=True)
    return stats


def _apply(codes: pd.DataFrame, fn: Any, context: Any) -> Any:
    c = codes["c"].to_numpy(dtype=np.int64)
    keep = c >= 0
    return fn(
        context,
        codes["i"].to_numpy(dtype=np.int64)[keep],
        codes["r"].to_numpy(dtype=np.int64)[keep],
        c[keep],
    )


@dataclasses.dataclass(slots=True, eq=False)
class DaskRescan:
    """Another pass over the partitions of a :func:`dask_scan`, with the same dictionaries:
    ``fn`` runs on each encoded partition and the results are tree-reduced with ``merge``."""

    parts: list[Any]
    offsets: IntArray
    dicts: Any
    columns: tuple[str, str, str]
    scheduler: Any
    dropped: int
    progress: Progress | None = None

    @property
    def capabilities(self) -> frozenset[str]:
        """None: every second pass reads the partitions again."""
        return frozenset()

    def rating_sums(self, table: FloatArray) -> FloatArray | None:
        """None: no capability (see :class:`~accord.engines._mapreduce.Rescan`)."""
        return None

    def index_label_counts(self, index: IntArray, n_index: int) -> IntArray | None:
        """None: no capability (see :class:`~accord.engines._mapreduce.Rescan`)."""
        return None

    def map_reduce(self, fn: MapFn, context: Any, merge: Merge) -> Any:
        """``merge`` of ``fn(context, item, rater, label)`` over the partitions (codes of the
        kept ratings). ``fn``, ``merge`` and ``context`` must pickle (module-level functions)
        for process and cluster schedulers; ``context`` is sent once."""
        require_unique(self.dropped, "the dask engine")
        dask: Any = require("dask", "dask")
        shared = dask.delayed(context, pure=True)
        partials = [
            dask.delayed(_apply)(
                dask.delayed(_encode)(p, int(self.offsets[k]), self.dicts, self.columns),
                fn,
                shared,
            )
            for k, p in enumerate(self.parts)
        ]
        n = len(partials)
        return run_partitions(self.scheduler, partials, merge, self.progress, 2 * n, 3 * n)


def _sorted_info(info: DuplicateInfo) -> DuplicateInfo:
    """Order the examples by their first row (partitions finish in any order)."""
    examples = tuple(sorted(info.examples, key=lambda e: e[2][0] if e[2] else 0))
    return DuplicateInfo(examples[:_SHOW], info.n_pairs)


def _decode(values: npt.NDArray[Any], text: bool) -> npt.NDArray[Any]:
    if text and values.size:
        return typed_ids(values)
    return values
