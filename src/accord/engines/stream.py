"""The stream engine: sufficient statistics of Parquet/CSV files read in batches.

Three stages overlap on three threads: pyarrow decodes the next batches, the encoder turns
each batch into codes with dictionaries that grow as batches arrive (so codes are those the
memory engine gives the whole input), and the counting thread writes the codes into a
compact items x raters matrix of label codes (for a sparse design, at most one cell in 16
rated, the ratings' long codes instead). When the last batch is in, the category domain is
ordered as :class:`accord.Ratings` orders it and every statistic is counted from the matrix
(or its filled cells). Memory is bounded by the size of the statistics (and the matrix: one
byte per item x rater cell, or about 24 bytes per rating of a sparse design), never by the
number of rows.

When neither would fit in ``memory_limit``, the engine reads the input again in passes over
ranges of items, keeping only the ratings of the items in range (bucketed passes).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import itertools
import math
from collections.abc import Iterator, Sequence
from typing import Any, Unpack

import numpy as np
import numpy.typing as npt

from .._errors import InvalidInputError, option
from .._types import IntArray, Level, Missing, release_freed_memory
from .._validate import announce, check_na_values, rows_that, tidy_scalar
from ..data.dictionary import GrowingDictionary, dictionary_codes, new_value_positions
from ..data.dictionary import raw_label_domain as label_domain
from ..data.encoder import LabelRowError, LabelsAs, missing_of, typed_ids
from ..data.label_sets import LabelSets, SetColumn, group_label_sets, split_label_column
from ..data.ratings import column_domain
from ..stats import PairTables
from ..stats.pairs import PairCells
from ..stats.patterns import CountPatterns
from ._blocks import (
    STREAM_STATISTICS,
    Decoded,
    DeferredIds,
    DuplicateInfo,
    LongPartial,
    RatingStatistics,
    assemble,
    long_partial,
    use_sparse,
)
from ._mapreduce import (
    CAPABILITIES,
    READAHEAD,
    MapFn,
    Merge,
    Progress,
    ahead,
    batches,
)
from ._matrix import CodeMatrix, MatrixModes
from ._options import Scan, ScanOptions, check_choice, check_read
from ._pages import small_pages
from ._source import (
    DuckSource,
    HeaderCheck,
    Locator,
    SourceLike,
    dataset_of,
    describe,
    is_duckdb_relation,
    parquet_categories,
    raise_duplicates,
    resolve_files,
)
from .fold import fold_batches, fold_parts

# READAHEAD: also imported from here by the benchmarks
__all__ = ["READAHEAD", "Progress", "StreamRescan", "stream_scan", "stream_statistics"]

#: Bytes per kept rating held by a bucketed pass (codes, rows and sort scratch).
BUCKET_BYTES_PER_RATING = 64


#: Batches encoded ahead of the one being counted.
ENCODE_AHEAD = 1

#: Raw label code of an empty list: its row rates the empty set.
EMPTY_SET = -2


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _SetBatch:
    """The labels of a batch of sets: one entry per single label given (an empty list: one
    entry coded :data:`EMPTY_SET`), with the codes of its item and rater and its row, and
    the counts the read report needs."""

    item: IntArray
    rater: IntArray
    label: IntArray
    row: IntArray
    missing_rows: int  # rows that add no label and are no empty list
    elements: int  # single labels read, missing ones included
    missing: int  # single labels missing
    inside: int  # missing single labels in a list that holds a label


class _Encoder:
    """Dictionaries of one input: items, raters and raw labels, with the missing-label flags."""

    def __init__(
        self,
        columns: tuple[str, str, str],
        *,
        text: bool,
        level: Level,
        categories: Sequence[Any] | None,
        missing: Missing,
        locator: Locator,
        na_values: Sequence[str] | None = None,
        labels_as: LabelsAs = "auto",
        lists: bool = False,
        header: HeaderCheck | None = None,
    ) -> None:
        self.columns = columns
        self.header = header  # CSV text: a row that repeats the header line is an error
        self.lists = lists  # the label column holds lists of labels (read by encode_sets)
        self.items = GrowingDictionary()
        self.raters = GrowingDictionary()
        self.labels = GrowingDictionary()
        self._label_rows: list[IntArray] = []  # the row where each raw label first appeared
        self.text = text
        self.level = level
        self.categories = categories
        self.missing = missing
        self.locator = locator
        self.na_values = check_na_values(na_values)
        self.labels_as: LabelsAs = labels_as
        self.label_missing = np.zeros(0, dtype=bool)
        self.notes: tuple[str, ...] = ()
        self.order = ""

    def encode(
        self, row0: int, batch: Any, *, wide: bool = True
    ) -> tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any], IntArray]:
        """Codes of a batch: items, raters, raw labels, and the positions of missing labels.

        ``wide=False`` gives int32 codes where the dictionaries make them (see
        :meth:`GrowingDictionary.encode`).
        """
        if self.header is not None:
            self.header(batch)
        item, rater = self._ids(row0, batch, wide=wide)
        label, miss = self._labels(row0, batch.column(2), wide=wide)
        return item, rater, label, miss

    def encode_sets(self, row0: int, batch: Any) -> _SetBatch:
        """The single labels of a batch of sets (a column of lists, or of single labels),
        each with the codes of its row's item and rater."""
        if self.header is not None:
            self.header(batch)
        item, rater = self._ids(row0, batch, wide=True)
        n = batch.num_rows
        if self.lists:
            split = split_label_column(batch.column(2))
            elements, parents, empty = split.elements, split.parents, split.is_list
        else:
            elements, parents = batch.column(2), np.arange(n, dtype=np.int64)
            empty = np.zeros(n, dtype=bool)
        label, miss = self._labels(row0, elements, wide=True, parents=parents)
        label = np.asarray(label, dtype=np.int64).copy()
        label[miss] = -1
        present = label >= 0
        row_labels = np.bincount(parents[present], minlength=n)
        # A row rates its (item, rater) when it adds a label, or is an empty list.
        empty &= np.bincount(parents, minlength=n) == 0
        rates = (row_labels > 0) | empty
        if self.missing == "raise" and (miss.size or not rates.all()):
            self._raise_missing(row0 + np.union1d(np.flatnonzero(~rates), parents[miss]))
        at = np.r_[parents[present], np.flatnonzero(empty)]
        return _SetBatch(
            item[at],
            rater[at],
            np.r_[label[present], np.full(int(empty.sum()), EMPTY_SET, dtype=np.int64)],
            row0 + at,
            missing_rows=n - int(np.count_nonzero(rates)),
            elements=label.size,
            missing=int(miss.size),
            inside=int(np.count_nonzero(~present & (row_labels > 0)[parents])),
        )

    def _ids(
        self, row0: int, batch: Any, *, wide: bool
    ) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
        """Item and rater codes of a batch; a row without either is an error."""
        import pyarrow as pa

        item_col, rater_col, _ = self.columns
        known_items, known_raters = self.items.size, self.raters.size
        item = _codes(self.items, batch.column(0), wide=wide)[0]
        rater = _codes(self.raters, batch.column(1), wide=wide)[0]
        for codes, column, what, array, ids, known in (
            (item, item_col, "item", batch.column(0), self.items, known_items),
            (rater, rater_col, "rater", batch.column(1), self.raters, known_raters),
        ):
            if array.null_count == 0 and pa.types.is_integer(array.type):
                continue  # only a null (or a NaN) has no code
            if ids.size > known and not pa.types.is_integer(array.type):
                # New ids that are missing values by the one rule (blank, NA, ...).
                blank = np.flatnonzero(missing_of(ids.values_since(known), self.na_values))
                if blank.size:
                    codes = np.where(np.isin(codes, blank + known), -1, codes)
            bad = np.flatnonzero(codes < 0)
            if bad.size:
                raise InvalidInputError(
                    f"column {column!r}: {rows_that(bad.size)} no {what} id "
                    f"({self.locator.rows(row0 + bad)})"
                )
        return item, rater

    def _labels(
        self, row0: int, labels: Any, *, wide: bool, parents: IntArray | None = None
    ) -> tuple[npt.NDArray[Any], IntArray]:
        """Raw label codes and the positions of the missing labels. ``parents``: the labels
        are the single labels of lists, each of the batch row given."""
        known = self.label_missing.size
        label, nulls, first = _codes(self.labels, labels, wide=wide, new_rows=True)
        if self.labels.size > known:
            self._label_rows.append(row0 + (first if parents is None else parents[first]))
            self._new_labels(known)
        if self.label_missing.any():
            # One gather: raw code -1 (null) reads the appended True.
            miss = np.flatnonzero(np.r_[self.label_missing, True].take(label))
        elif nulls is not None:
            miss = nulls  # no label is a missing value: the nulls are missing
        else:
            miss = np.flatnonzero(label < 0)
        if self.missing == "raise" and miss.size and parents is None:
            self._raise_missing(row0 + miss)
        return label, miss

    def _raise_missing(self, rows: IntArray) -> None:
        raise InvalidInputError(
            f"column {self.columns[2]!r}: rows have a missing label "
            f"({self.locator.rows(rows)}); pass missing='omit' to leave them out"
        )

    def _first_rows(self) -> IntArray:
        """The row where each raw label first appeared."""
        if not self._label_rows:
            return np.zeros(0, dtype=np.int64)
        return np.concatenate(self._label_rows).astype(np.int64)

    def kept(
        self, row0: int, batch: Any, remap: IntArray
    ) -> tuple[IntArray, IntArray, IntArray, IntArray]:
        """Codes of the kept ratings of a batch (int64): item, rater, domain label, and their
        positions in the batch."""
        item, rater, raw, miss = self.encode(row0, batch)
        label = remap[np.maximum(raw, 0)]  # a null (-1) is among ``miss``
        keep = label >= 0
        keep[miss] = False
        if keep.all():  # nothing left out: no gathers
            return item, rater, label, np.arange(item.size)
        at = np.flatnonzero(keep)
        return item[at], rater[at], label[at], at

    def _new_labels(self, known: int) -> None:
        """Flag new labels that are missing values, and check new labels early against the
        declared categories or the numeric level (the final check runs on all labels)."""
        new = self.labels.values_since(known)
        flags = (
            missing_of(new, self.na_values, keep=self.categories)
            if new.size
            else np.zeros(0, dtype=bool)
        )
        self.label_missing = np.r_[self.label_missing, flags]
        strict = self.categories is not None or self.level in ("interval", "ratio")
        present = new[~flags]
        if strict and present.size and not self._plainly_numeric(present):
            rows = self._first_rows()[known:][~flags]
            try:
                self._label_domain(present, rows)
            except LabelRowError as exc:
                if len(self.locator.files) <= 1:
                    raise
                # The row of the label at fault, in its file (rows count over the files).
                where = self.locator.where(exc.row)
                raise InvalidInputError(f"{exc} [first seen at {where}]") from None

    def _plainly_numeric(self, labels: npt.NDArray[Any]) -> bool:
        """Labels the early check passes without sorting them into a domain: numbers in
        their own type (not a text file's cells), finite (and not negative at ratio level),
        no categories declared. The check runs on each batch's new labels, and continuous
        scores bring a new label with nearly every row."""
        if self.categories is not None or self.text:
            return False
        if labels.dtype.kind not in "iuf" or not bool(np.isfinite(labels).all()):
            return False
        return self.level != "ratio" or not bool((labels < 0).any())

    def decode(self, dictionary: GrowingDictionary) -> Any:
        """Decode table of ids, typed as :class:`accord.Ratings` types them (numbers when
        every id of a text file is a number and no two spell the same number)."""
        values = dictionary.values()
        if self.text and values.size:
            return typed_ids(values)
        return values

    def domain(self) -> tuple[IntArray, tuple[Any, ...]]:
        """Each raw label's domain code (-1: missing) and the ordered domain; the order and
        the typing notes are kept for the read report."""
        remap, domain, _, self.order, self.notes = self._label_domain(
            self.labels.values(), self._first_rows()
        )
        return remap, domain

    def _label_domain(self, values: npt.NDArray[Any], rows: IntArray) -> Any:
        return label_domain(
            values,
            rows,
            level=self.level,
            categories=self.categories,
            column=self.columns[2],
            text=self.text,
            na_values=self.na_values,
            labels_as=self.labels_as,
        )


def _batches(
    dataset: Any, columns: list[str], batch_size: int, locator: Locator
) -> Iterator[tuple[int, Any]]:
    """The input's batches, the rater and label columns of Parquet text read as Arrow
    dictionaries: Parquet stores a column of few distinct values as one, so its strings are
    neither made nor hashed row by row. (Item ids are many: a Parquet writer's dictionary
    overflows, and hashing them per batch costs less than reading them as one.)"""
    return batches(dataset, columns, batch_size, locator, 0, dictionary=columns[1:])


def _codes(
    ids: GrowingDictionary, array: Any, *, wide: bool, new_rows: bool = False
) -> tuple[npt.NDArray[Any], IntArray | None, IntArray]:
    """Codes of a batch's column in ``ids`` (-1: null), the positions of the nulls (None
    when not found by the way), and with ``new_rows`` the positions where values new to
    ``ids`` first appear. An Arrow dictionary column (a Parquet column read as one) is
    encoded by its distinct values."""
    import pyarrow as pa

    if pa.types.is_dictionary(array.type):
        return dictionary_codes(ids, array, wide=wide)
    known = ids.size
    codes = ids.encode(array, 0, wide=wide)
    first = new_value_positions(codes, known) if new_rows and ids.size > known else None
    return codes, ids.nulls, np.zeros(0, dtype=np.int64) if first is None else first


def stream_statistics(
    source: SourceLike,
    *,
    batch_size: int = 1_000_000,
    memory_limit: int = 1 << 30,
    reader: str = "pyarrow",
    **options: Unpack[ScanOptions],
) -> RatingStatistics:
    """Sufficient statistics of ratings in Parquet or CSV files, read in batches.

    The numbers are those of the memory engine on the whole input
    (``ItemCategoryCounts.from_ratings(Ratings.from_long(frame, ...))`` and so on), with the
    same item, rater and category codes; memory stays bounded by the size of the statistics.

    Parameters
    ----------
    source : path, glob, list of paths, or a DuckDB relation
        Parquet, CSV or TSV files (one format), read in order: a list as given, a glob or a
        folder sorted by name. Row numbers in messages count data rows across the files.
        A DuckDB relation (``duckdb.sql("SELECT ...")``, ``con.table("ratings")``) is run
        and its result streamed in the query's row order.
    item, rater, label : str
        Column names.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
    categories : sequence, optional
        The declared, ordered category domain; a label outside it is an error naming the
        value and its first row. Default: the observed labels sorted as
        :class:`accord.Ratings` sorts them.
    missing : {"omit", "raise"}, default "omit"
        Missing labels (null, NaN, blank text) are left out and counted, or raise.
    duplicates : {"raise", "first", "last"}, default "raise"
        One rater rating one item more than once, anywhere in the input: raise naming the
        pair and its rows, or keep the first or last in input order. (``"mean"`` needs the
        memory engine.)
    statistics : sequence of {"items", "raters", "pairs", "patterns"}
        Which statistics to return. Item and rater counts are cheap; pairs cost
        ``raters^2 / 2`` per item. ``"patterns"`` gives the item counts as their distinct
        rows and multiplicities (``item_patterns``), which is all the item-count
        coefficients need.
    batch_size : int, default 1_000_000
        Rows per batch (Parquet; CSV batches are about this many rows).
    memory_limit : int, default 1 GiB
        Bytes for the items x raters code matrix (one byte per cell for fewer than 127
        labels; for a sparse design, at most one cell in 16 rated, about 24 bytes per
        rating). Beyond it the input is read again in passes over ranges of items, each
        holding at most this many bytes of ratings. Methods that pass over the ratings again
        and again (EM) keep them decoded from the matrix (24 bytes a rating) while the
        matrix and they fit in it.
    file_format : {"parquet", "csv", "tsv"}, optional
        Overrides the format guessed from the suffix.
    sep : str, optional
        Field separator for CSV/TSV.
    encoding : str, optional
        Text encoding of CSV/TSV files (default UTF-8, with or without a byte-order mark),
        as in :func:`accord.read_ratings`: ``"latin-1"`` or ``"cp1252"`` for many spreadsheet
        exports. A byte the encoding cannot decode is an error naming its offset.
    progress : callable, optional
        ``progress(rows_read, total_rows)`` after each batch (``total_rows`` is None for
        CSV and DuckDB, whose length is not known in advance).
    reader : {"pyarrow", "duckdb"}, default "pyarrow"
        What reads the files: pyarrow's dataset scanner, or DuckDB (``read_parquet`` /
        ``read_csv``), which streams the three columns as Arrow batches. A DuckDB relation
        as ``source`` is always read by DuckDB.
    na_values, labels_as
        As in :meth:`accord.Ratings.from_long`: the same missing-value rule and the same
        typing of a text file's columns.
    multi_label : bool, default False
        Sets of labels: each distinct set is a category, a ``frozenset``, with the codes and
        counts of ``Ratings.from_long(..., multi_label=True)``. Each (item, rater) gets the
        set of the labels of its rows, wherever they are in the input, a row holding one
        label or a list of them (a label column of lists: Parquet, or a DuckDB query); the
        distinct (item, rater, label) codes are kept until the last batch. Repeated rows are
        combined, not duplicates: ``duplicates`` must stay ``"raise"``.

    Returns
    -------
    RatingStatistics
        ``item_counts``, ``rater_counts``, ``pair_tables`` (None where not requested), the
        decode tables ``items``, ``raters``, ``categories``, and ``report``.

    Raises
    ------
    ColumnNotFoundError
        A column is not in the files (the message lists the columns there are).
    InvalidInputError
        A row without an item or rater id, an undeclared or non-numeric label (naming the
        value and its row), duplicates under ``"raise"``, no label at all.
    DuplicateRatingError
        Under ``duplicates="raise"``, naming the first repeated pairs and their rows.

    Notes
    -----
    Items and raters are numbered by first appearance, categories sorted (numbers
    numerically), as in :class:`accord.Ratings`, so every code and count equals the memory
    engine's. CSV cells are read as text and typed from the distinct values of the whole
    column, by the encoder :class:`accord.Ratings` uses (numbers when every value is one,
    else text); ids are compared as written (``"01"`` and ``"1"`` are two items), as in
    :func:`accord.read_ratings`.
    A Parquet label column written from a pandas Categorical (or a polars ``Enum``) declares
    its categories, as :func:`accord.read_ratings` reads them (ordered or not: see
    :doc:`/data-model`). A CSV/TSV row that repeats the header line (files joined with their
    headers) is an error naming the file and the line.

    References
    ----------
    .. [1] The Apache Software Foundation. Apache Parquet file format.
       https://parquet.apache.org/docs/file-format/
    .. [2] Shafranovich, Y. (2005). Common Format and MIME Type for Comma-Separated Values
       (CSV) Files. RFC 4180. IETF. https://doi.org/10.17487/RFC4180
    .. [3] The Apache Software Foundation. Apache Arrow columnar format.
       https://arrow.apache.org/docs/format/Columnar.html
    .. [4] Apache Arrow. Tabular datasets (``pyarrow.dataset``).
       https://arrow.apache.org/docs/python/dataset.html
    .. [5] Raasveldt, M., & Mühleisen, H. (2019). DuckDB: an embeddable analytical
       database. Proceedings of the 2019 International Conference on Management of Data
       (SIGMOD '19), 1981-1984. https://doi.org/10.1145/3299869.3320212

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import pandas as pd
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": list("ababab"),
    ...               "label": ["y", "y", "n", "y", "n", None]}).to_csv(d / "r.csv", index=False)
    >>> s = stream_statistics(d / "r.csv", item="item", rater="rater", label="label")
    >>> s.categories, s.item_counts.counts.tolist()
    (('n', 'y'), [[0, 2], [1, 1], [1, 0]])
    >>> print(s.report)
    read 6 rows: 5 ratings of 3 items by 2 raters; dropped 1 (1 missing label)
    """
    with small_pages():
        return stream_scan(
            source, batch_size=batch_size, memory_limit=memory_limit, reader=reader, **options
        )[0]


def stream_scan(
    source: SourceLike,
    *,
    batch_size: int = 1_000_000,
    memory_limit: int = 1 << 30,
    reader: str = "pyarrow",
    modes: MatrixModes = MatrixModes(),
    **options: Unpack[ScanOptions],
) -> tuple[RatingStatistics, StreamRescan]:
    """:func:`stream_statistics`, and what a second pass over the same batches needs.

    ``modes`` says how the code matrix holds and counts the ratings (by default each way is
    chosen by cost; the numbers are the same every way).
    """
    scan = Scan.of("stream_statistics", options, STREAM_STATISTICS)
    if batch_size < 1:
        raise InvalidInputError(f"batch_size must be a positive number of rows; got {batch_size}")
    check_choice("reader", reader, ("pyarrow", "duckdb"), "stream_statistics")
    dataset, files, fmt = _open(source, scan, reader, batch_size)
    total = int(dataset.count_rows()) if fmt == "parquet" and reader == "pyarrow" else None
    # Sets of labels: the rows of one (item, rater) make its set, a row holding one label or
    # a list of them.
    lists = check_label_column(dataset, scan)
    categories, order = _categories(scan, files, fmt)
    enc = _Encoder(
        scan.columns,
        text=fmt in ("csv", "tsv"),
        level=scan.level,
        categories=categories,
        missing=scan.missing,
        locator=Locator(),
        na_values=scan.na_values,
        labels_as=scan.labels_as,
        lists=lists,
        header=_header_check(files, fmt, scan),
    )
    if scan.multi_label:
        matrix = CodeMatrix(memory_limit, dataclasses.replace(modes, storage="matrix"))
        read, remap, decoded = _set_rows(dataset, enc, scan, batch_size, matrix, files)
    else:
        # no name kept for the matrix: past the limit, the codes it kept until then go
        read = _first_pass(dataset, enc, scan, batch_size, CodeMatrix(memory_limit, modes), total)
        check_read(read.rows, read.missing, files[0], scan.label)
        remap, decoded = _decoded_ids(enc, read, scan, categories is not None, order)
    announce(scan.progress, "counting ratings")
    wanted = tuple(scan.statistics)
    if read.matrix is not None:
        counted = _from_matrix(read.matrix, remap, decoded, wanted, read.dropped)
    else:
        counted = _bucketed(dataset, enc, remap, read, decoded, scan, memory_limit, batch_size)
    if not scan.multi_label:
        release_freed_memory()  # the counts' temporaries, before what follows
    stats = assemble(
        decoded,
        item_counts=counted.item_counts,
        rater_counts=counted.rater_counts,
        pairs=counted.pairs,
        patterns=counted.patterns,
        rated_items=counted.rated,  # without item counts or patterns
        statistics=wanted,
        # Item counts stand in for patterns when the patterns could not be formed.
        keep_items="items" in wanted or ("patterns" in wanted and counted.patterns is None),
        rows=read.rows,
        missing=read.missing,
        dropped=counted.dropped,
        combined=read.combined,
        duplicates=scan.duplicates,
        source=describe(files),
        engine="stream",
        passes=counted.passes,
    )
    rescan = StreamRescan(
        dataset,
        list(scan.columns),
        batch_size,
        enc,
        remap,
        counted.dropped,
        read.rows,
        counted.passes,
        scan.progress,
        # Every kept rating is in the matrix: a second pass reads it, not the files.
        read.matrix,
    )
    return stats, rescan


def _decoded_ids(
    enc: _Encoder, read: _Read, scan: Scan, declared: bool, order: str | None
) -> tuple[Any, Decoded]:
    """The label remap and the decoded raters and domain once the first pass of single
    labels is done. The item ids are decoded when a caller reads them (:class:`DeferredIds`:
    10M text ids take about 0.7 GB as Python strings, which the coefficients never read)."""
    remap, domain = enc.domain()
    if read.matrix is not None:
        remap = read.matrix.merge_labels(remap)
    decoded = Decoded(
        DeferredIds(enc.items.size, functools.partial(enc.decode, enc.items)),
        enc.decode(enc.raters),
        domain,
        scan.level,
        declared,
        enc.notes,
        order or enc.order,
    )
    return remap, decoded


def _header_check(files: list[str], fmt: str, scan: Scan) -> HeaderCheck | None:
    """The check of CSV/TSV batches for a repeated header line (None for other inputs)."""
    if fmt not in ("csv", "tsv"):
        return None
    return HeaderCheck(files, fmt, scan.columns, sep=scan.sep, encoding=scan.encoding)


def _categories(scan: Scan, files: list[str], fmt: str) -> tuple[Sequence[Any] | None, str | None]:
    """The declared categories: those passed, else those a Parquet label column declares
    itself (as :func:`accord.read_ratings` reads them: :func:`column_domain`), and their
    order in words (None: as the encoder orders them)."""
    if scan.categories is not None or scan.multi_label or fmt != "parquet":
        return scan.categories, None
    native = parquet_categories(files, scan.label)
    return (None, None) if native is None else column_domain(native, scan.level)


def check_label_column(dataset: Any, scan: Scan) -> bool:
    """Whether the label column holds lists of labels (a set per item and rater); a column of
    lists is read with ``multi_label=True`` only, and sets at the nominal level only."""
    import pyarrow as pa

    schema = getattr(dataset, "schema", None)
    if isinstance(schema, pa.Schema):
        label_type = schema.field(scan.label).type
        lists = pa.types.is_list(label_type) or pa.types.is_large_list(label_type)
    else:  # a DuckDB query: a list type is spelled with brackets
        lists = str(dataset.relation.types[2]).endswith("]")
    if lists and not scan.multi_label:
        raise InvalidInputError(
            f"column {scan.label!r} holds lists of labels (a set per item and rater): read "
            "them as sets with multi_label=True (read_ratings, stream_statistics) or "
            "--multi-label"
        )
    if scan.multi_label and scan.level != "nominal":
        raise InvalidInputError(
            f"multi_label: sets of labels have no {scan.level} order; use level='nominal' (set "
            "distances: krippendorff_alpha(ratings, distance='masi' or 'jaccard'))"
        )
    if scan.multi_label and scan.duplicates != "raise":
        raise InvalidInputError(
            f"duplicates={scan.duplicates!r} does not apply with multi_label: the rows of one "
            "(item, rater) are combined into its set of labels"
        )
    return bool(lists)


def _set_rows(
    dataset: Any, enc: _Encoder, scan: Scan, batch_size: int, matrix: CodeMatrix, files: list[str]
) -> tuple[_Read, IntArray, Decoded]:
    """Sets of labels from rows of single labels or of lists (the rows of one item and rater
    may be in any batches): the distinct (item, rater, label) codes of every batch are kept,
    grouped into one set per (item, rater) at the end, as :class:`accord.Ratings` groups
    them, and the sets written into a code matrix whose labels are the distinct sets."""
    read = _Read(None, None)
    batched = _batches(dataset, list(scan.columns), batch_size, enc.locator)
    folded = fold_parts(
        batched,
        lambda batch, row0: _SetPart.of(enc.encode_sets(row0, batch), batch.num_rows),
        _SetPart.merge,
        progress=scan.progress,
    )
    got = _SetPart.empty() if folded is None else folded
    read.rows, read.missing = got.rows, got.missing_rows
    check_read(read.rows, read.missing, files[0], scan.label)
    item, rater, raw, row = got.triples
    elements, missing, inside = got.elements, got.missing, got.inside
    if elements:
        # Labels read, every one missing: as Ratings.from_long says it (the labels counted).
        check_read(elements, missing, files[0], scan.label)
        remap, labels = enc.domain()
    else:  # lists, every one empty: one category, the empty set
        remap = np.zeros(0, dtype=np.int64)
        labels = () if scan.categories is None else tuple(map(tidy_scalar, scan.categories))
    codes = np.where(raw >= 0, np.r_[remap, -1][np.maximum(raw, 0)], raw)
    order = np.argsort(row, kind="stable")  # pairs numbered in input order, as in memory
    codes = codes[order]
    empty = codes == EMPTY_SET
    column = SetColumn(None, np.flatnonzero(~empty), empty)
    groups = group_label_sets(
        item[order] * max(enc.raters.size, 1) + rater[order], column, codes[~empty], len(labels)
    )
    at = order[groups.pair_rows]
    sets = LabelSets(labels, groups.membership).sets()
    # Rows combined into the set of their (item, rater): neither dropped nor missing.
    read.combined = read.rows - read.missing - int(at.size)
    given = int(groups.membership.sum(axis=1)[groups.set_codes].sum())
    noted = dataclasses.replace(groups, repeated=elements - missing - given, missing_inside=inside)
    if not matrix.reserve(enc.items.size, enc.raters.size, len(sets)):
        raise InvalidInputError(
            f"multi_label: the sets of {enc.items.size} items by {enc.raters.size} raters "
            f"need more than memory_limit={matrix.limit} bytes; raise memory_limit or read "
            "them with the memory engine"
        )
    matrix.put(item[at], rater[at], groups.set_codes, row[at], "raise")
    read.matrix = matrix
    decoded = Decoded(
        enc.decode(enc.items),
        enc.decode(enc.raters),
        sets,
        "nominal",
        False,
        enc.notes + noted.notes(scan.label),
        "sets by size, then by their labels",
    )
    return read, np.arange(len(sets), dtype=np.int64), decoded


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _SetPart:
    """The distinct (item, rater, label) codes of some batches of sets with the first row
    of each, and the counts of :class:`_SetBatch` summed."""

    triples: tuple[IntArray, IntArray, IntArray, IntArray]
    rows: int
    missing_rows: int
    elements: int
    missing: int
    inside: int

    @classmethod
    def of(cls, got: _SetBatch, rows: int) -> _SetPart:
        triples = _distinct_triples(got.item, got.rater, got.label, got.row)
        return cls(triples, rows, got.missing_rows, got.elements, got.missing, got.inside)

    @classmethod
    def empty(cls) -> _SetPart:
        none = np.zeros(0, dtype=np.int64)
        return cls((none, none, none, none), 0, 0, 0, 0, 0)

    def merge(self, other: _SetPart) -> _SetPart:
        return _SetPart(
            _merged([self.triples, other.triples]),
            self.rows + other.rows,
            self.missing_rows + other.missing_rows,
            self.elements + other.elements,
            self.missing + other.missing,
            self.inside + other.inside,
        )


def _distinct_triples(
    item: npt.NDArray[Any], rater: npt.NDArray[Any], label: npt.NDArray[Any], row: IntArray
) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """The distinct (item, rater, label) codes and the first row of each."""
    item, rater, label = (np.asarray(x, dtype=np.int64) for x in (item, rater, label))
    rows = np.asarray(row, dtype=np.int64)
    order = np.lexsort((rows, label, rater, item))
    item, rater, label, rows = item[order], rater[order], label[order], rows[order]
    new = np.ones(item.size, dtype=bool)
    new[1:] = (item[1:] != item[:-1]) | (rater[1:] != rater[:-1]) | (label[1:] != label[:-1])
    return item[new], rater[new], label[new], rows[new]


def _merged(
    parts: list[tuple[IntArray, IntArray, IntArray, IntArray]],
) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """The distinct (item, rater, label) codes of several batches, and their first rows."""
    item, rater, label, row = (np.concatenate(x) for x in zip(*parts, strict=True))
    return _distinct_triples(item, rater, label, row)


def _open(source: Any, scan: Scan, reader: str, batch_size: int) -> tuple[Any, list[str], str]:
    """The batches' source (a pyarrow dataset or a DuckDB query), its files and format (the
    progress display told that reading starts)."""
    announce(scan.progress, "reading ratings")
    columns = list(scan.columns)
    if is_duckdb_relation(source):
        return DuckSource(source, columns, "DuckDB query"), ["DuckDB query"], "duckdb"
    files, fmt = resolve_files(source, scan.file_format, scan.encoding)
    if reader == "duckdb":
        duck = DuckSource.from_files(files, fmt, columns, sep=scan.sep, encoding=scan.encoding)
        return duck, files, fmt
    # CSV blocks of 4 MB for batches of 1M rows: the streaming reader holds a few dozen
    # blocks read ahead (about 145 MB of 4 MB blocks, 580 MB of 16 MB ones)
    block_bytes = int(min(max(batch_size * 4, 1 << 12), 1 << 28))
    dataset = dataset_of(
        files, fmt, columns, sep=scan.sep, block_bytes=block_bytes, encoding=scan.encoding
    )
    return dataset, files, fmt


@dataclasses.dataclass(slots=True)
class _Read:
    """What the first pass learns: rows read, missing labels, ratings dropped as repeats,
    rows combined into sets of labels, and the code matrix (None when it would not fit)."""

    matrix: CodeMatrix | None
    total: int | None
    rows: int = 0
    missing: int = 0
    dropped: int = 0
    combined: int = 0


class _ItemGuess:
    """The final number of items guessed from the batches so far (0: no guess).

    Items per row so far, extrapolated to the whole input. Trusted only for input ordered by
    item: the batch touches no item seen before the previous batch, and two batches in a row
    give the same guess. Else the matrix grows by half.
    """

    def __init__(self, total: int | None) -> None:
        self.total = total
        self.before = self.items_before = self.items_two_back = 0

    def expect(self, codes_item: npt.NDArray[Any], n_items: int, rows: int) -> int:
        expect = 0
        if self.total is not None and codes_item.size:
            guess = n_items * self.total // max(rows, 1)
            local = int(codes_item.min()) >= self.items_two_back
            if local and guess > 0 and abs(guess - self.before) * 10 <= guess:
                expect = guess + guess // 50
            self.before = guess
        self.items_two_back, self.items_before = self.items_before, n_items
        return expect


def _first_pass(
    dataset: Any, enc: _Encoder, scan: Scan, batch_size: int, matrix: CodeMatrix, total: int | None
) -> _Read:
    """Read every batch: encode it (on a thread, one batch ahead) and write its codes into
    ``matrix`` (empty) while it fits, through the one fold (:func:`fold_parts`)."""
    wanted = scan.statistics
    if "items" in wanted or "patterns" in wanted:
        # Items behind the current batch are counted while the next ones are read (input
        # ordered by item); anything else is counted at the end.
        matrix.plan_tally(pairs="pairs" in wanted, raters=True)
    read = _Read(matrix, total)
    columns = list(scan.columns)

    def encoded() -> Iterator[tuple[int, _Encoded]]:
        # Batches encoded on a thread of their own, one ahead of the counting here: the
        # dictionaries are only touched by that thread, which hands over their sizes.
        for row0, batch in _batches(dataset, columns, batch_size, enc.locator):
            codes = enc.encode(row0, batch, wide=False)
            sizes = (enc.items.size, enc.raters.size, enc.labels.size)
            yield row0, _Encoded(batch.num_rows, codes, sizes)

    put = _PutBatch(read, _ItemGuess(total), scan.duplicates)
    # Closed on the way out, also on an error: the threads stop before the dictionaries
    # are read for a message.
    try:
        with contextlib.closing(ahead(encoded, ENCODE_AHEAD, "accord-encoder")) as pipeline:
            fold_parts(pipeline, put, _no_merge, progress=scan.progress, total=total)
    except _Repeated as repeated:  # the encoder has stopped: its dictionaries can be read
        info = _with_earlier_rows(repeated.info, dataset, columns, batch_size, enc)
        raise_duplicates(info, enc.decode(enc.items), enc.decode(enc.raters), enc.locator,
                         complete=False, listed=True)  # fmt: skip
    for ids in (enc.items, enc.raters, enc.labels):
        ids.drop_index()  # counting needs codes only; a second read builds it again
    release_freed_memory()  # the batches' arrays, before the cells are sorted
    if read.matrix is not None:  # a sparse matrix held as long codes: sorted into cells
        dropped, repeats = read.matrix.finish(scan.duplicates)
        if repeats is not None:
            if not read.matrix.rows_known:  # rows of cells the matrix held: read again
                repeats = _with_earlier_rows(repeats, dataset, columns, batch_size, enc)
            raise_duplicates(repeats, enc.decode(enc.items), enc.decode(enc.raters), enc.locator,
                             complete=True)  # fmt: skip
        read.dropped += dropped
        release_freed_memory()  # the long codes and the sort keys, once they are cells
    return read


def _with_earlier_rows(
    info: DuplicateInfo, dataset: Any, columns: list[str], batch_size: int, enc: _Encoder
) -> DuplicateInfo:
    """``info`` (repeats whose earlier ratings came from the code matrix, which keeps no
    rows) with the rows of those earlier ratings, found by reading the batches before the
    rows known again: the error lists every row of each pair, as the memory engine's does.
    Only on the way to an error."""
    pairs = tuple((i, r) for i, r, _ in info.examples)
    known = [min(rows) for _, _, rows in info.examples if rows]
    upto = min(known) if len(known) == len(pairs) else math.inf

    def before() -> Iterator[tuple[int, Any]]:
        for row0, batch in _batches(dataset, columns, batch_size, Locator()):
            if row0 > upto:
                return
            yield row0, batch

    def rows_of(batch: Any, row0: int) -> tuple[IntArray, ...]:
        item, rater, _, miss = enc.encode(row0, batch)
        rated = np.ones(item.size, dtype=bool)
        rated[miss] = False
        return tuple(row0 + np.flatnonzero(rated & (item == i) & (rater == r)) for i, r in pairs)

    def joined(a: tuple[IntArray, ...], b: tuple[IntArray, ...]) -> tuple[IntArray, ...]:
        return tuple(np.r_[x, y] for x, y in zip(a, b, strict=True))

    found = fold_parts(before(), rows_of, joined) or tuple(np.zeros(0, np.int64) for _ in pairs)
    examples = tuple(
        (i, r, tuple(sorted({*rows, *(int(k) for k in more)})))
        for (i, r, rows), more in zip(info.examples, found, strict=True)
    )
    return DuplicateInfo(examples, info.n_pairs)


@dataclasses.dataclass(frozen=True, slots=True)
class _Encoded:
    """One batch's codes (:meth:`_Encoder.encode`) and the dictionaries' sizes after it."""

    num_rows: int
    codes: Any
    sizes: tuple[int, int, int]


class _Repeated(Exception):
    """A repeated (item, rater) pair found while the encoder runs: raised to the first pass,
    which names it once the encoder has stopped."""

    def __init__(self, info: DuplicateInfo) -> None:
        super().__init__()
        self.info = info


def _no_merge(a: None, b: None) -> None:  # pragma: no cover - the first pass keeps no partial
    return None


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _PutBatch:
    """The first pass's summary of one encoded batch: its codes written into the code matrix
    while it fits (the statistics kept in ``read``, no partial to merge)."""

    read: _Read
    guess: _ItemGuess
    duplicates: str

    def __call__(self, part: _Encoded, row0: int) -> None:
        read = self.read
        codes_item, codes_rater, codes_label, miss = part.codes
        read.rows = row0 + part.num_rows
        read.missing += int(miss.size)
        expect = self.guess.expect(codes_item, part.sizes[0], read.rows)
        if read.matrix is not None and not read.matrix.reserve(*part.sizes, expect, read.rows):
            read.matrix = None  # too big: statistics come from bucketed passes
        if read.matrix is None:
            return
        dropped, repeats = read.matrix.put_batch(
            codes_item, codes_rater, codes_label, miss, row0, self.duplicates
        )
        if repeats is not None:
            raise _Repeated(repeats)
        read.dropped += dropped
        if codes_item.size:
            read.matrix.advance(int(codes_item.min()))


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _Counted:
    """The statistics counted after the first pass, and how many reads they took."""

    item_counts: Any
    rater_counts: IntArray
    pairs: PairTables | PairCells | None
    patterns: CountPatterns | None
    dropped: int
    passes: int
    rated: int | None = None  # items with a rating, when neither items nor patterns were counted


def _from_matrix(
    matrix: CodeMatrix,
    remap: IntArray,
    decoded: Decoded,
    wanted: tuple[str, ...],
    dropped: int,
) -> _Counted:
    """Every statistic from the code matrix (one read of the input). With none asked for
    (the ICC reads the scores in a second pass), the ratings per rater and the rated items
    only, for the read report: nothing is counted by category."""
    if not wanted:
        per_rater, rated = matrix.rated(remap)
        return _Counted(None, per_rater[:, None], None, None, dropped, 1, rated)
    counted = matrix.statistics(
        remap,
        raters=decoded.raters,
        categories=decoded.categories,
        statistics=(
            "raters",
            *(("items",) if "items" in wanted or "patterns" not in wanted else ()),
            *(("pairs",) if "pairs" in wanted else ()),
            *(("patterns",) if "patterns" in wanted else ()),
        ),
        sparse=use_sparse(decoded.items.size, len(decoded.categories)),
    )
    assert counted.rater_counts is not None  # always counted
    assert counted.item_counts is not None or counted.patterns is not None
    return _Counted(
        counted.item_counts, counted.rater_counts, counted.pairs, counted.patterns, dropped, 1
    )


@dataclasses.dataclass(slots=True, eq=False)
class StreamRescan:
    """Another pass over the batches of a :func:`stream_scan`, with the same codes.

    The dictionaries are complete after the first pass, so every batch encodes to the codes
    of the statistics. Used by two-pass methods (consensus, Conger's standard error), which
    sum a function of each rating given statistics of the first pass, without collecting the
    ratings.
    """

    dataset: Any
    columns: list[str]
    batch_size: int
    enc: _Encoder
    remap: IntArray
    dropped: int
    rows: int
    passes: int
    progress: Progress | None
    matrix: CodeMatrix | None = None
    #: The decoded slices of the matrix, kept from the first pass over it when they fit in
    #: its memory limit beside it (read-only: every later pass reads them as they are).
    held: list[tuple[IntArray, IntArray, IntArray, int]] | None = None

    @property
    def capabilities(self) -> frozenset[str]:
        """Every optional second pass while the code matrix holds the ratings, else none."""
        return frozenset(CAPABILITIES) if self.matrix is not None else frozenset()

    def map_reduce(self, fn: MapFn, context: Any, merge: Merge) -> Any:
        """``merge`` of ``fn(context, item, rater, label)`` over the batches (codes of the
        kept ratings: missing labels left out). Returns None for an input without ratings.
        The code matrix holds one rating per (item, rater), repeats resolved as the first
        pass resolved them; read again, the batches must rate each pair once."""
        if self.matrix is not None:
            return self._from_matrix(self.matrix, fn, context, merge)
        require_unique(self.dropped, "the stream engine")
        base, whole = self.rows * self.passes, self.rows * (self.passes + 1)
        report = self.progress
        batched = _batches(self.dataset, self.columns, self.batch_size, Locator())
        enc, remap = self.enc, self.remap
        total = fold_parts(
            batched,
            lambda batch, row0: fn(context, *enc.kept(row0, batch, remap)[:3]),
            merge,
            progress=None if report is None else lambda done, _: report(base + done, whole),
        )
        self.passes += 1
        return total

    def rating_sums(self, table: npt.NDArray[np.float64]) -> npt.NDArray[np.float64] | None:
        """Per item code, the sum over its kept ratings of ``table[rater, label]``, read from
        the code matrix; None when there is no matrix (use :meth:`map_reduce`)."""
        if self.matrix is None:
            return None
        out: npt.NDArray[np.float64] = self.matrix.rating_sums(self.remap, table)
        if self.progress is not None:
            self.progress(self.rows, self.rows)
        return out

    def index_label_counts(self, index: IntArray, n_index: int) -> IntArray | None:
        """Kept ratings counted by (rater, ``index[item]``, domain label), shape
        (n_raters, n_index, q), from the code matrix; None without one (see
        :meth:`accord.engines._mapreduce.Rescan.index_label_counts`)."""
        if self.matrix is None:
            return None
        q = int(self.remap.max(initial=-1)) + 1
        out: IntArray = self.matrix.index_label_counts(self.remap, index, n_index, q)
        if self.progress is not None:
            self.progress(self.rows, self.rows)
        return out

    def _from_matrix(
        self,
        matrix: CodeMatrix,
        fn: MapFn,
        context: Any,
        merge: Merge,
    ) -> Any:
        """The ratings of the code matrix, slice by slice (items in code order)."""
        total: Any = None
        n_items = max(matrix.n_items, 1)
        slices = self.held if self.held is not None else self._decoded(matrix)
        for item, rater, label, hi in slices:
            part = fn(context, item, rater, label)
            total = part if total is None else merge(total, part)
            if self.progress is not None:
                self.progress(self.rows * hi // n_items, self.rows)
        return total

    def _decoded(self, matrix: CodeMatrix) -> Iterator[tuple[IntArray, IntArray, IntArray, int]]:
        """The matrix's slices decoded, kept in :attr:`held` for the passes after this one
        while the matrix and they fit in its memory limit (an EM fit passes over the ratings
        twice an iteration: decoding them once saves most of a pass)."""
        kept: list[tuple[IntArray, IntArray, IntArray, int]] | None = []
        size = matrix.nbytes
        for item, rater, label, hi in matrix.ratings(self.remap):
            if kept is not None:
                size += item.nbytes + rater.nbytes + label.nbytes
                kept = kept if size <= matrix.limit else None
            if kept is not None:
                for codes in (item, rater, label):
                    codes.flags.writeable = False
                kept.append((item, rater, label, hi))
            yield item, rater, label, hi
        self.held = kept


def require_unique(dropped: int, engine: str) -> None:
    """Two-pass methods read the ratings again: every (item, rater) pair must be rated once."""
    if dropped:
        raise InvalidInputError(
            f"{dropped} repeated (item, rater) ratings were dropped as the duplicates policy "
            f"says; methods that read the ratings twice with {engine} need each (item, rater) "
            f"pair rated once. Remove the repeats from the files, or use "
            f"{option('engine', 'memory')}"
        )


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _InRange:
    """One batch's kept ratings of the items ``lo <= code < hi`` (codes from ``lo``), with
    their rows of the whole input: a pass of :func:`_bucketed` (None: none in range)."""

    enc: _Encoder
    remap: IntArray
    lo: int
    hi: int

    def __call__(self, batch: Any, row0: int) -> list[tuple[Any, ...]] | None:
        it, rt, lb, at = self.enc.kept(row0, batch, self.remap)
        sel = np.flatnonzero((it >= self.lo) & (it < self.hi))
        if not sel.size:
            return None
        return [(it[sel] - self.lo, rt[sel], lb[sel], row0 + at[sel])]


@dataclasses.dataclass(frozen=True, slots=True)
class _Passes:
    """Progress of one of ``n`` passes over the input, after ``before`` rows of the run."""

    progress: Progress
    before: int
    total: int | None
    n: int

    def __call__(self, rows: int, total: int | None) -> None:
        self.progress(self.before + rows, None if self.total is None else self.total * self.n)


def _bucketed(
    dataset: Any,
    enc: _Encoder,
    remap: IntArray,
    read: _Read,
    decoded: Decoded,
    scan: Scan,
    memory_limit: int,
    batch_size: int,
) -> _Counted:
    """Statistics from passes over ranges of items (when the code matrix does not fit)."""
    release_freed_memory()  # the codes the first read kept while they fitted
    n_items = enc.items.size
    rows, total, progress = read.rows, read.total, scan.progress
    columns, raters_decode, domain = list(scan.columns), decoded.raters, decoded.categories
    sparse = use_sparse(n_items, len(domain))
    k = max(1, math.ceil((rows - read.missing) * BUCKET_BYTES_PER_RATING / memory_limit))
    k = min(k, n_items)
    bounds = np.linspace(0, n_items, k + 1).round().astype(np.int64)
    # Only what is asked for is counted, and what the read report needs (the items rated,
    # the ratings per rater): no item x category counts unless the items or the patterns
    # (which they stand in for) are asked for, since they take q integers an item.
    wanted = (
        *(("items",) if {"items", "patterns"} & set(scan.statistics) else ()),
        *(("raters",) if "raters" in scan.statistics else ()),
        *(("pairs",) if "pairs" in scan.statistics else ()),
    )
    result: LongPartial | None = None
    blocks: list[Any] = []
    for done, (lo, hi) in enumerate(itertools.pairwise(bounds), start=1):
        passed = None if progress is None else _Passes(progress, done * rows, total, k + 1)
        parts: list[tuple[IntArray, IntArray, IntArray, IntArray]] = fold_batches(
            dataset, columns, batch_size, _InRange(enc, remap, int(lo), int(hi)), list.__add__,
            progress=passed, total=total,
        ) or []  # fmt: skip
        if parts:
            it, rt, lb, rw = (np.concatenate(x) for x in zip(*parts, strict=True))
        else:
            it = rt = lb = rw = np.zeros(0, dtype=np.int64)
        del parts  # the range's ratings held once, not twice, while they are counted
        part = long_partial(
            it,
            rt,
            lb,
            rw,
            n_groups=int(hi - lo),
            raters=raters_decode,
            categories=domain,
            duplicates=scan.duplicates,
            statistics=wanted,
            sparse=sparse,
            report=True,
        )
        del it, rt, lb, rw  # not held while the next range is read
        if part.duplicates is not None:
            info = part.duplicates
            shifted = type(info)(
                tuple((i + int(lo), r, rw_) for i, r, rw_ in info.examples), info.n_pairs
            )
            raise_duplicates(
                shifted, enc.decode(enc.items), enc.decode(enc.raters), enc.locator, complete=True
            )
        blocks.append(part.item_counts)
        part = dataclasses.replace(part, item_counts=None)
        result = part if result is None else result.merge(part)
    assert result is not None
    item_counts: Any = None
    if "items" in wanted and sparse:
        from scipy import sparse as sp

        item_counts = sp.vstack(blocks, format="csr", dtype=np.int64)
    elif "items" in wanted:
        item_counts = np.concatenate(blocks)
    assert result.rater_counts is not None
    release_freed_memory()  # the ranges' ratings
    return _Counted(
        item_counts,
        result.rater_counts,
        result.pair_tables,
        None,
        result.dropped,
        k + 1,
        result.rated,
    )
