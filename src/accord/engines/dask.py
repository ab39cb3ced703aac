"""The dask engine: partial statistics per partition, tree-reduced with ``merge``.

Each partition is read once. Two passes over the partitions:

1. each partition is read and dictionary-encoded on its own (``pyarrow``, as every engine
   encodes a column: one hash per value, no Python object per value). Its codes and its
   dictionaries stay where they were computed (on the workers of a ``distributed.Client``,
   in this process with the local schedulers). Its distinct items, raters and labels, in
   order of first appearance, are merged pairwise in a tree where they are (the values of
   the right one looked up among those of the left one), so that only the distinct values
   of the whole frame reach the client: in partition order they are the dictionaries the
   memory engine builds (first appearance over the whole frame) and the label domain. Sent
   back once, they give each partition, where its codes are, its tables from its own codes
   to the global ones;
2. each partition's labelled ratings, read through its tables, are packed into one integer
   each (four bytes while that fits) and split by block of item codes
   (:mod:`~accord.engines._item_blocks`); each block gathers its pieces from every
   partition, so it holds every rating of its items: it counts its items, its raters and
   its rater pairs and finds a repeated (item, rater) pair. The blocks' counts are merged
   pairwise in a tree. Only when a pair is repeated are the codes shuffled by item with
   their rows, to be resolved or named as the memory engine does. A method that reads the
   ratings again (:class:`DaskRescan`) starts from the same kept codes.

With a scheduler given by its address (a client opened for each call, so nothing outlives
a call) each pass reads the partitions again.

dask and distributed are imported inside the functions that use them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Unpack, cast

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError, require
from .._types import FloatArray, IntArray
from .._validate import announce_unit, check_na_values, rows_that
from ..data.dictionary import as_numpy
from ..data.dictionary import raw_label_domain as label_domain
from ..data.encoder import arrow_of, dictionary_of, missing_of, typed_ids
from ._blocks import (
    Decoded,
    DuplicateInfo,
    LongPartial,
    RatingStatistics,
    assemble,
    long_partial,
)
from ._item_blocks import BlockPlan, Counts, block_counts, merge_counts, pieces_of, stacked
from ._mapreduce import (
    MapFn,
    Merge,
    Progress,
    _client_of,
    compute,
    partition_files,
    partitions_of,
)
from ._options import Scan, ScanOptions, check_read
from ._pages import small_pages
from ._source import Locator, raise_duplicates
from .fold import fold_kept, fold_partitions, partition_locator
from .stream import require_unique

__all__ = ["DaskRescan", "dask_scan", "dask_statistics"]

_SHOW = 5
#: Blocks of items the count exchanges the ratings into, at most (each partition sends a
#: piece to each block: the tasks grow as partitions x blocks).
_MAX_BLOCKS = 16


def n_blocks(n_parts: int) -> int:
    """Blocks of items of the count pass over ``n_parts`` partitions: one a partition, at
    most :data:`_MAX_BLOCKS`.

    >>> n_blocks(8), n_blocks(500)
    (8, 16)
    """
    return min(n_parts, _MAX_BLOCKS)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _Local:
    """A partition's codes into its own dictionaries (-1 for a null), and those dictionaries
    (pyarrow): what the passes after the first start from."""

    item: npt.NDArray[np.int32]
    rater: npt.NDArray[np.int32]
    label: npt.NDArray[np.int32]
    items: Any
    raters: Any
    labels: Any


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _Distinct:
    """What pass 1 learns from one partition or from consecutive partitions merged: their
    lengths, their distinct values (pyarrow) in order of first appearance, the row of each
    label's first appearance and the (column, rows) of the first missing ids (rows counted
    from the first of these partitions)."""

    lengths: tuple[int, ...]
    items: Any
    raters: Any
    labels: Any
    label_first: IntArray
    null_ids: tuple[tuple[str, IntArray], ...]

    def merge(self, other: _Distinct) -> _Distinct:
        """The partitions of ``self`` followed by those of ``other``: the distinct values
        of both, numbered by first appearance (a look-up of the distinct values alone)."""
        rows = sum(self.lengths)
        _, items = _union(self.items, other.items)
        _, raters = _union(self.raters, other.raters)
        new, labels = _union(self.labels, other.labels)
        first = np.r_[self.label_first, other.label_first[new] + rows]
        nulls = self.null_ids or tuple((c, p + rows) for c, p in other.null_ids)
        return _Distinct(self.lengths + other.lengths, items, raters, labels,
                         first.astype(np.int64), nulls)  # fmt: skip


def _column(part: Any, name: str) -> Any:
    """A column of a partition as Arrow (a CSV file's partition is a pyarrow Table)."""
    if isinstance(part, pd.DataFrame):
        return arrow_of(part[name])
    return part.column(name)


def _read(
    part: Any, columns: tuple[str, str, str], na_values: tuple[str, ...]
) -> tuple[_Local, _Distinct]:
    """Pass 1 on one partition: its codes and what the client needs of it."""
    item, rater, label = columns
    codes, uniques, nulls = [], [], []
    for col in (item, rater):
        idx, dictionary = dictionary_of(_column(part, col))
        # A null reads the appended True: missing as a null or by the one rule (blank, NA).
        bad = np.flatnonzero(np.r_[missing_of(dictionary, na_values), True][idx])
        if bad.size:
            nulls.append((col, bad[:_SHOW].astype(np.int64)))
        codes.append(idx)
        uniques.append(dictionary)
    idx, labels = dictionary_of(_column(part, label))
    local = _Local(codes[0], codes[1], idx, uniques[0], uniques[1], labels)
    found = _Distinct((len(idx),), uniques[0], uniques[1], labels, _firsts(idx), tuple(nulls))
    return local, found


def _firsts(codes: npt.NDArray[Any]) -> IntArray:
    """Where each code first appears, for codes numbered by first appearance (-1, a null,
    never does): where a code exceeds every code before it (no sort).

    >>> _firsts(np.array([-1, 0, 1, 0, 2, -1, 1]))
    array([1, 2, 4])
    """
    before = np.maximum.accumulate(np.r_[-1, codes[:-1]]) if codes.size else codes
    return np.flatnonzero(codes > before).astype(np.int64)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _Tables:
    """One partition's tables from its own codes to the global item and rater codes and to
    the label domain codes (-1: missing; the last entry is read by a null's -1)."""

    items: IntArray
    raters: IntArray
    labels: IntArray


def _encode(local: _Local, offset: int, tables: _Tables) -> dict[str, IntArray]:
    """A partition's global codes and row numbers."""
    return {
        "i": tables.items[local.item],
        "r": tables.raters[local.rater],
        "c": tables.labels[local.label],
        "row": np.arange(offset, offset + local.item.size, dtype=np.int64),
    }


def _encoded_frame(local: _Local, offset: int, tables: _Tables) -> pd.DataFrame:
    """:func:`_encode` as a DataFrame, to be shuffled by item."""
    return pd.DataFrame(_encode(local, offset, tables))


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _Partial:
    stats: LongPartial
    missing: int
    missing_rows: IntArray


def _count(
    codes: Any,
    *,
    n_items: int,
    raters: Any,
    categories: tuple[Any, ...],
    duplicates: str,
    statistics: tuple[str, ...],
) -> _Partial:
    """One partition's partial statistics (``codes``: :func:`_encode`'s columns, as a dict
    or a shuffled DataFrame)."""
    c = np.asarray(codes["c"], dtype=np.int64)
    miss = c < 0
    keep = ~miss
    rows = np.asarray(codes["row"], dtype=np.int64)
    stats = long_partial(
        np.asarray(codes["i"], dtype=np.int64)[keep],
        np.asarray(codes["r"], dtype=np.int64)[keep],
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
        Kept for compatibility; a CSV or Parquet file is one partition (split large inputs
        into several files, or pass a dask DataFrame, e.g. ``dd.read_parquet(path,
        split_row_groups=True)``, for more partitions).
    progress : callable, optional
        ``progress(done, total)`` as each partition of the first pass and each block of
        items of the second is done (one block a partition, at most 16; a method that reads
        the ratings again adds a pass over the partitions). With a
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
    Each partition is read once: pass 1 encodes it with its own dictionaries and keeps the
    codes (three int32 per rating) where they were computed; the partitions' distinct
    values are merged where they are, and only those of the whole frame reach the client.
    Later passes read the codes through per-partition tables computed where the codes are
    (a scheduler given by address opens a client per call, so there each pass reads the
    partitions again). Pass 2 sends each labelled rating, packed into one integer (four
    bytes while item, rater and label fit in 32 bits), to the block of items it belongs to
    (one block a partition, at most 16), and each block counts its items, raters and rater
    pairs; only a repeated (item, rater) pair makes the codes move again, shuffled by item
    with their rows (four int64 a rating). Item counts are sparse until the end, so a
    partition never holds an items x categories dense array.

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
    announce_unit(scan.progress, "partitions")  # the bar counts partitions, not rows
    if scan.multi_label:
        raise InvalidInputError(
            "multi_label: the dask engine reads one label per row; read sets of labels with "
            "the stream or memory engine"
        )
    parts, text, source = partitions_of(
        data,
        scan.columns,
        file_format=scan.file_format,
        sep=scan.sep,
        blocksize=blocksize,
        encoding=scan.encoding,
    )
    spellings = check_na_values(scan.na_values)
    kept, found = _first_pass(parts, scan, spellings, scheduler)
    files = partition_files(data, len(parts), scan.file_format, scan.encoding)
    seen = _Seen.of(found, scan, source, files)
    del found
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
    whole = _Globals(seen.items, seen.raters, seen.labels, remap)
    tables = _kept_tables(kept, whole, scheduler)
    pass2 = _Pass(kept, seen.offsets, tables, scheduler, scan.progress)
    total = pass2.count(scan, decoded)
    stats = _checked(total, scan, decoded, seen.locator)
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
    return result, DaskRescan(pass2, int(stats.dropped))


def _first_pass(
    parts: list[Any], scan: Scan, na_values: tuple[str, ...], scheduler: Any
) -> tuple[list[Any], _Distinct]:
    """Pass 1: each partition read and encoded on its own (:func:`fold_kept`). Its codes are
    kept where they were computed, as delayed values the later passes start from; its
    distinct values are merged pairwise in a tree (on the workers of a client), so that
    only the distinct values of the whole frame come here, never a value a rating."""
    read = _Reader(scan.columns, na_values)
    return fold_kept(parts, read, _Distinct.merge, scheduler=scheduler, progress=scan.progress,
                     phase=(0, len(parts) + n_blocks(len(parts))))  # fmt: skip


@dataclasses.dataclass(frozen=True, slots=True)
class _Reader:
    """:func:`_read` of one partition as the fold summarises it: its codes, kept, and its
    distinct values (merged in the order of the partitions)."""

    columns: tuple[str, str, str]
    na_values: tuple[str, ...]

    def __call__(self, part: Any, row0: int) -> tuple[_Local, _Distinct]:
        return _read(part, self.columns, self.na_values)


def _common_type(arrays: Sequence[Any]) -> Any:
    """The type the distinct values of several partitions are compared in: theirs, the
    permissive promotion of theirs, or text when numbers meet text."""
    import pyarrow as pa

    kind = arrays[0].type
    if all(a.type == kind for a in arrays):
        return kind
    try:
        schemas = [pa.schema([("v", a.type)]) for a in arrays]
        return pa.unify_schemas(schemas, promote_options="permissive").field("v").type
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return pa.large_string()  # numbers in some partitions, text in others


def _union(first: Any, then: Any) -> tuple[IntArray, Any]:
    """The distinct values of ``first`` followed by those of ``then`` that ``first`` does
    not hold (each already distinct, in order of first appearance), and where in ``then``
    those are: ``then`` is looked up among ``first`` (no hash of the values again).

    >>> import pyarrow as pa
    >>> new, values = _union(pa.array(["b", "a"]), pa.array(["c", "a", "d"]))
    >>> new.tolist(), values.to_pylist()
    ([0, 2], ['b', 'a', 'c', 'd'])
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(then) == 0 or len(first) == 0:
        return np.arange(len(then), dtype=np.int64), then if len(then) else first
    kind = _common_type([first, then])
    first, then = first.cast(kind), then.cast(kind)
    found = pc.index_in(then, value_set=first)
    new = np.flatnonzero(np.asarray(found.is_null()))
    return new, pa.concat_arrays([first, then.take(new)])


def _codes_in(local: Any, whole: Any) -> IntArray:
    """The codes among ``whole`` (distinct values) of the values ``local``, which are all
    among them.

    >>> import pyarrow as pa
    >>> _codes_in(pa.array(["c", "a"]), pa.array(["a", "b", "c"])).tolist()
    [2, 0]
    """
    import pyarrow.compute as pc

    if len(local) == 0:
        return np.zeros(0, dtype=np.int64)
    kind = _common_type([whole, local]) if len(whole) else local.type
    found = pc.index_in(local.cast(kind), value_set=whole.cast(kind))
    return np.asarray(found.fill_null(-1), dtype=np.int64)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _Seen:
    """What pass 1 learns from all the partitions: rows, each partition's first row, the
    distinct items, raters and labels (pyarrow) in order of first appearance over the frame
    (with each label's first row)."""

    rows: int
    offsets: IntArray
    items: Any
    raters: Any
    labels: Any
    label_rows: IntArray
    locator: Locator

    @classmethod
    def of(cls, found: _Distinct, scan: Scan, source: str, files: list[str] | None) -> _Seen:
        """The merged findings; a missing id is an error naming its rows, an input without
        rows or without a label too."""
        lengths = np.array(found.lengths, dtype=np.int64)
        offsets = np.r_[0, np.cumsum(lengths)[:-1]].astype(np.int64)
        rows = int(lengths.sum())
        check_read(rows, 0, source, scan.label)
        locator = partition_locator(offsets, files)
        for col, positions in found.null_ids:
            what = "item" if col == scan.item else "rater"
            raise InvalidInputError(
                f"column {col!r}: rows have no {what} id ({locator.rows(positions)})"
            )
        seen = cls(rows, offsets, found.items, found.raters, found.labels,
                   found.label_first, locator)  # fmt: skip
        check_read(rows, rows if len(seen.labels) == 0 else 0, source, scan.label)
        return seen


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _Globals:
    """The distinct items, raters and labels of the whole frame, and each label's domain
    code: sent once to where the partitions' codes are."""

    items: Any
    raters: Any
    labels: Any
    remap: IntArray


def _tables_of(local: _Local, whole: _Globals) -> _Tables:
    """One partition's tables from its own codes (computed where its codes are)."""
    labels = whole.remap[_codes_in(local.labels, whole.labels)]
    return _Tables(_codes_in(local.items, whole.items), _codes_in(local.raters, whole.raters),
                   np.r_[labels, -1].astype(np.int64))  # fmt: skip


def _kept_tables(kept: list[Any], whole: _Globals, scheduler: Any) -> list[Any]:
    """Each partition's tables as delayed values, computed once where its codes are (on a
    ``distributed.Client``, persisted there; with the local schedulers, here); on a
    scheduler address, computed by each pass that needs them."""
    dask: Any = require("dask", "dask")
    shared = dask.delayed(whole, traverse=False)
    tables = [dask.delayed(_tables_of)(local, shared) for local in kept]
    if isinstance(scheduler, str) and "://" in scheduler:
        return tables
    client, _ = _client_of(scheduler)
    if client is not None:
        return list(client.persist(tables))
    return [dask.delayed(t, traverse=False) for t in compute(scheduler, *tables)]


def _missing_of(label: IntArray, offset: int) -> tuple[int, IntArray]:
    """A partition's missing labels (``label``: its domain codes, -1 missing): how many,
    and the first rows."""
    miss = np.flatnonzero(label < 0)
    return int(miss.size), (offset + miss[:_SHOW]).astype(np.int64)


@dataclasses.dataclass(frozen=True, slots=True)
class _Pieces:
    """:func:`~accord.engines._item_blocks.pieces_of` of one partition's labelled ratings,
    with its missing labels (module level and frozen: it pickles for the schedulers)."""

    plan: BlockPlan

    def __call__(
        self, local: _Local, offset: int, tables: _Tables
    ) -> tuple[tuple[int, IntArray], tuple[npt.NDArray[Any], ...]]:
        c = tables.labels[local.label]
        keep = np.flatnonzero(c >= 0)
        pieces = pieces_of(tables.items[local.item[keep]], tables.raters[local.rater[keep]],
                           c[keep], self.plan)  # fmt: skip
        return _missing_of(c, offset), pieces


@dataclasses.dataclass(frozen=True, slots=True)
class _Block:
    """:func:`~accord.engines._item_blocks.block_counts` of one block from its
    ``(pieces, missing labels, block, context)`` (module level and frozen: it pickles)."""

    plan: BlockPlan

    def __call__(self, part: tuple[Any, ...], row0: int) -> Counts:
        pieces, missing, block, context = part
        return block_counts(pieces, missing, block, self.plan, context)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _Pass:
    """The passes after the first: each partition's kept codes (delayed), its first row and
    its tables (delayed), and where and how to run."""

    kept: list[Any]
    offsets: IntArray
    tables: list[Any]
    scheduler: Any
    progress: Progress | None

    def encoded(self, fn: Any, nout: int | None = None) -> list[Any]:
        """``fn(local, first row, tables, ...)`` per partition, as delayed values."""
        dask: Any = require("dask", "dask")
        call = dask.delayed(fn, nout=nout)
        return [
            call(local, int(self.offsets[k]), self.tables[k]) for k, local in enumerate(self.kept)
        ]

    def count(self, scan: Scan, decoded: Decoded) -> _Partial:
        """Pass 2: the ratings exchanged by blocks of items, four bytes a rating
        (:mod:`~accord.engines._item_blocks`), each block counted where it lands and the
        blocks' counts merged pairwise. Only a repeated (item, rater) pair, which a block
        finds, has the codes shuffled by item with their rows (four int64 a rating), so
        that its ratings are resolved or named as the memory engine does."""
        blocks = n_blocks(len(self.kept))
        plan = BlockPlan.of(n_items=int(decoded.items.size), n_raters=len(decoded.raters),
                            q=len(decoded.categories), n_blocks=blocks)  # fmt: skip
        if len(self.kept) > 1 and plan is not None:
            total = self._count_blocks(scan, decoded, plan)
            if not total.repeated:
                assert total.stats is not None
                stats = total.stats
                if "items" in scan.statistics:
                    counts = stacked(total, plan.n_items, len(decoded.categories))
                    stats = dataclasses.replace(stats, item_counts=counts)
                return _Partial(stats, total.missing, total.missing_rows)
        return self._count_shuffled(scan, decoded)

    def _count_blocks(self, scan: Scan, decoded: Decoded, plan: BlockPlan) -> Counts:
        """Each block of items counted from its pieces of every partition; block ``k`` also
        counts the missing labels of partition ``k``."""
        dask: Any = require("dask", "dask")
        n_parts = len(self.kept)
        cut = self.encoded(_Pieces(plan), nout=2)
        context = dask.delayed((decoded.raters, decoded.categories, tuple(scan.statistics)),
                               traverse=False)  # fmt: skip
        n = plan.n_blocks
        blocks = [([p[1][b] for p in cut], [p[0] for p in cut[b::n]], b, context) for b in range(n)]
        total = fold_partitions(blocks, _Block(plan), merge_counts, scheduler=self.scheduler,
                                progress=self.progress, phase=(n_parts, n_parts + n))  # fmt: skip
        return cast(Counts, total)  # (a scan has two partitions at least here: never None)

    def _count_shuffled(self, scan: Scan, decoded: Decoded) -> _Partial:
        """Pass 2 with every rating of an item in one partition (see :meth:`count`)."""
        dask: Any = require("dask", "dask")
        n_parts = len(self.kept)
        if n_parts > 1:
            dd: Any = require("dask.dataframe", "dask")
            meta = pd.DataFrame({name: np.zeros(0, np.int64) for name in ("i", "r", "c", "row")})
            frame = dd.from_delayed(self.encoded(_encoded_frame), meta=meta, verify_meta=False)
            codes = frame.shuffle(on="i", npartitions=n_blocks(n_parts)).to_delayed()
        else:
            codes = self.encoded(_encode)
        # One node, not walked per partition: continuous scores make a million categories.
        categories = dask.delayed(decoded.categories, traverse=False)
        counted = _Counted(int(decoded.items.size), decoded.raters, scan.duplicates,
                           scan.statistics)  # fmt: skip
        total = fold_partitions(
            [(p, categories) for p in codes], counted, _merge, scheduler=self.scheduler,
            progress=self.progress, phase=(n_parts, n_parts + len(codes)),
        )  # fmt: skip
        return cast(_Partial, total)  # (a scan has one partition at least: never None)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _Counted:
    """:func:`_count` of one partition's codes, ``(codes, categories)`` (module level and
    frozen: it pickles for the schedulers)."""

    n_items: int
    raters: Any
    duplicates: str
    statistics: Sequence[str]

    def __call__(self, part: tuple[Any, tuple[Any, ...]], row0: int) -> _Partial:
        codes, categories = part
        return _count(codes, n_items=self.n_items, raters=self.raters, categories=categories,
                      duplicates=self.duplicates, statistics=tuple(self.statistics))  # fmt: skip


def _checked(total: _Partial, scan: Scan, decoded: Decoded, locator: Locator) -> LongPartial:
    """The merged statistics, once missing labels (under ``missing="raise"``) and repeated
    (item, rater) pairs (under ``duplicates="raise"``) are ruled out; ``locator`` names the
    file of a row."""
    if scan.missing == "raise" and total.missing:
        raise InvalidInputError(
            f"column {scan.label!r}: {rows_that(total.missing)} a missing label "
            f"({locator.rows(total.missing_rows)}); pass missing='omit' to leave them out"
        )
    stats = total.stats
    if stats.duplicates is not None:
        info = _sorted_info(stats.duplicates)
        raise_duplicates(info, decoded.items, decoded.raters, locator, complete=True)
    return stats


@dataclasses.dataclass(frozen=True, slots=True)
class _Rescanned:
    """``fn`` on the codes of one partition's kept ratings, ``(kept codes, their decode
    tables, the context)`` (module level and frozen: it pickles for the schedulers)."""

    fn: Any

    def __call__(self, part: tuple[_Local, _Tables, Any], row0: int) -> Any:
        local, tables, context = part
        c = tables.labels[local.label]
        keep = np.flatnonzero(c >= 0)
        return self.fn(
            context, tables.items[local.item[keep]], tables.raters[local.rater[keep]], c[keep]
        )


@dataclasses.dataclass(slots=True, eq=False)
class DaskRescan:
    """Another pass over the partitions of a :func:`dask_scan`, from the codes it kept and
    with the same dictionaries: ``fn`` runs on each partition's codes and the results are
    tree-reduced with ``merge``."""

    passes: _Pass
    dropped: int

    @property
    def capabilities(self) -> frozenset[str]:
        """None: every second pass runs over the partitions."""
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
        shared = dask.delayed(context, traverse=False)  # sent once, not with every part
        p = self.passes
        parts = [(local, p.tables[k], shared) for k, local in enumerate(p.kept)]
        n = len(parts) + n_blocks(len(parts))
        return fold_partitions(
            parts, _Rescanned(fn), merge, scheduler=p.scheduler, progress=p.progress,
            phase=(n, n + len(parts)),
        )  # fmt: skip


def _sorted_info(info: DuplicateInfo) -> DuplicateInfo:
    """Order the examples by their first row (partitions finish in any order)."""
    examples = tuple(sorted(info.examples, key=lambda e: e[2][0] if e[2] else 0))
    return DuplicateInfo(examples[:_SHOW], info.n_pairs)


def _decode(values: Any, text: bool) -> npt.NDArray[Any]:
    """Decode table of ids (pyarrow values): typed from the whole column for a text file."""
    if text and len(values):
        return typed_ids(values)
    return as_numpy(values)
