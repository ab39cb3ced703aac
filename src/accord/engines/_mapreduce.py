"""Map/reduce over a source: batches (stream) or partitions (dask), partial statistics,
merged pairwise.

Every engine runs the same three steps: the source is cut into batches (:func:`batches`,
read on a thread ahead of the consumer) or dask partitions (:func:`frame_of`); a function
maps each to a partial statistic; the partials are merged (in order for batches, pairwise in
a tree for partitions: :func:`tree_reduce`, :func:`compute`, :func:`run_partitions`). A
second pass over the same source, with the codes of the first, is a :class:`Rescan`. Nothing
here knows which statistic or method is computed.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError, require
from .._types import FloatArray, IntArray
from .._validate import CSV_NULLS, require_columns
from ..io.files import read_csv_columns, reading, sniff_csv, text_columns
from ._source import CSV_READS, DuckSource, Locator, describe, resolve_files

__all__ = [
    "CAPABILITIES",
    "PARQUET_AHEAD",
    "READAHEAD",
    "MapFn",
    "Merge",
    "Progress",
    "Rescan",
    "ahead",
    "batches",
    "compute",
    "concat_values",
    "frame_of",
    "partitions_of",
    "run_partitions",
    "tree_reduce",
]

Progress = Callable[[int, int | None], None]
"""Called after each batch with (rows read so far, total rows or None when unknown); with
dask, after each partition with (partitions done, partitions in all passes)."""

MapFn = Callable[[Any, IntArray, IntArray, IntArray], Any]
"""``fn(context, item, rater, label)``: one batch's or partition's part of a second pass."""

Merge = Callable[[Any, Any], Any]
"""Merges two parts (associative: parts are merged in order or pairwise in a tree)."""

#: The optional second passes a :class:`Rescan` may answer without reading the input again.
CAPABILITIES = ("rating_sums", "index_label_counts")


class Rescan(Protocol):
    """Another pass over the ratings of an engine run, with the codes of its statistics.

    ``map_reduce`` is the pass every engine runs. The optional second passes named in
    :data:`CAPABILITIES` are declared in ``capabilities``: a rescan lists those it answers
    from what it keeps in memory (the stream engine's code matrix), and its methods for the
    others return None (the caller then runs ``map_reduce``). Methods supply what is summed;
    the engine never knows which method asks.
    """

    @property
    def capabilities(self) -> frozenset[str]:
        """The optional second passes answered without reading the input again."""
        ...

    def map_reduce(self, fn: MapFn, context: Any, merge: Merge) -> Any:
        """``merge`` of ``fn(context, item, rater, label)`` over the batches or partitions
        (codes of the kept ratings); None for an input without ratings."""
        ...

    def rating_sums(self, table: FloatArray) -> FloatArray | None:
        """Per item code, the sum over its kept ratings of ``table[rater, label]``; None
        unless ``"rating_sums"`` is in ``capabilities``."""
        ...

    def index_label_counts(self, index: IntArray, n_index: int) -> IntArray | None:
        """Kept ratings counted by (rater, ``index[item]``, label), shape
        (n_raters, n_index, q); None unless ``"index_label_counts"`` is in
        ``capabilities``."""
        ...


# ------------------------------------------------------------------------- batches

#: Read-ahead of pyarrow's dataset scanner (datasets of CSV/TSV files not made by
#: ``dataset_of``, whose files the streaming CSV reader reads): one file and 4 batches
#: ahead rather than 4 files and 16 batches.
READAHEAD = {"batch_readahead": 4, "fragment_readahead": 1}

#: Parquet batches decoded ahead of the one being encoded.
PARQUET_AHEAD = 2


def ahead(make: Callable[[], Iterator[Any]], depth: int, name: str) -> Generator[Any]:
    """The items of ``make()``, produced on a thread up to ``depth`` items ahead of the
    consumer (exceptions are raised in the consumer; closing the generator stops the
    thread).

    >>> list(ahead(lambda: iter(range(3)), 1, "example"))
    [0, 1, 2]
    """
    import queue
    import threading

    out: queue.Queue[Any] = queue.Queue(maxsize=depth)
    stop = threading.Event()
    done = object()

    def put(value: Any) -> bool:
        while not stop.is_set():
            try:
                out.put(value, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for value in make():
                if not put(value):
                    return
            put(done)
        except BaseException as exc:  # handed to the consumer
            put(exc)

    thread = threading.Thread(target=produce, name=name, daemon=True)
    thread.start()
    try:
        while True:
            value = out.get()
            if value is done:
                return
            if isinstance(value, BaseException):
                raise value
            yield value
    finally:
        stop.set()
        thread.join()


def _parquet_batches(
    files: list[str], columns: list[str], batch_size: int, dictionary: Sequence[str] = ()
) -> Iterator[Any]:
    """(path, batch) of Parquet files in order, decoded ``PARQUET_AHEAD`` batches ahead on a
    thread; the text columns named in ``dictionary`` are read as Arrow dictionaries (as
    Parquet stores a column of few distinct values: no string per row is made).

    pyarrow's dataset scanner keeps decoding while the batches wait to be counted: with a
    consumer slower than the reader it held about 1 GB of decoded batches for 100M ratings
    in ten files, whatever its read-ahead options. ``ParquetFile.iter_batches`` decodes one
    batch when asked, so a small queue bounds the batches in memory and still overlaps
    reading with counting. Without pre-buffering: a pre-buffered file keeps the column
    chunks it has read until it is closed (about 450 MB by the end of a 100M-rating file),
    and on a local disk it reads no faster.
    """
    import pyarrow.parquet as pq

    def read() -> Iterator[Any]:
        for path in files:
            parquet = pq.ParquetFile(path, pre_buffer=False)
            text = text_columns(parquet.schema_arrow, dictionary)
            if text:
                parquet = pq.ParquetFile(path, metadata=parquet.metadata, read_dictionary=text,
                                         pre_buffer=False)  # fmt: skip
            for batch in parquet.iter_batches(batch_size=batch_size, columns=columns):
                yield path, batch

    return ahead(read, PARQUET_AHEAD, "accord-parquet-reader")


def _csv_batches(dataset: Any, columns: list[str], batch_size: int) -> Iterator[Any]:
    """(path, batch) of the CSV/TSV files of a dataset of :func:`dataset_of` in order, each
    read by pyarrow's streaming CSV reader with the dataset's options, ``PARQUET_AHEAD``
    batches ahead on a thread; a block's batch handed over ``batch_size`` rows at most at a
    time. What the parser raises is named as every engine names it (the file, the line).

    pyarrow's dataset scanner parses a CSV file far ahead of a consumer slower than it,
    whatever its read-ahead options: 1.5-1.8 GB of parsed blocks for a 4.2 GB file of 100M
    ratings. The streaming reader holds a few dozen blocks.
    """
    import copy

    import pyarrow.csv as pacsv

    read_options, dialects = CSV_READS[dataset]
    form = dataset.format
    convert = copy.copy(form.default_fragment_scan_options.convert_options)
    convert.include_columns = list(columns)  # in this order, as the scanner gives them

    def one(path: str) -> Iterator[Any]:
        reader = pacsv.open_csv(
            path, read_options=read_options, parse_options=form.parse_options,
            convert_options=convert,
        )  # fmt: skip
        with reader:
            for batch in reader:
                for lo in range(0, batch.num_rows, batch_size):
                    yield path, batch.slice(lo, batch_size)

    def read() -> Iterator[Any]:
        for path in dataset.files:
            try:
                yield from one(path)
            except Exception:
                with reading(path, "CSV", dialects.get(path)):
                    raise

    return ahead(read, PARQUET_AHEAD, "accord-csv-reader")


def batches(
    dataset: Any,
    columns: list[str],
    batch_size: int,
    locator: Locator,
    row0: int = 0,
    *,
    dictionary: Sequence[str] = (),
) -> Iterator[tuple[int, Any]]:
    """(first row, record batch) over a dataset's files in order (or a DuckDB query's
    result), skipping empty batches; ``locator`` learns which file each row is in. Parquet
    text columns named in ``dictionary`` come as Arrow dictionary arrays."""
    import pyarrow.dataset as ds

    row = row0
    if isinstance(dataset, DuckSource):
        for batch in dataset.batches(batch_size):
            if batch.num_rows == 0:
                continue
            locator.add(row, dataset.name)
            yield row, batch
            row += batch.num_rows
        return
    if isinstance(dataset, ds.FileSystemDataset) and isinstance(
        dataset.format, ds.ParquetFileFormat
    ):
        tagged: Iterator[tuple[str, Any]] = _parquet_batches(
            dataset.files, columns, batch_size, dictionary
        )
    elif dataset in CSV_READS:
        tagged = _csv_batches(dataset, columns, batch_size)
    else:
        scanner = dataset.scanner(columns=columns, batch_size=batch_size, **READAHEAD)
        tagged = ((t.fragment.path, t.record_batch) for t in scanner.scan_batches())
    for path, batch in tagged:
        if batch.num_rows == 0:
            continue
        locator.add(row, path)
        yield row, batch
        row += batch.num_rows


# ---------------------------------------------------------------------- partitions


def frame_of(
    data: Any,
    columns: Sequence[str],
    *,
    file_format: str | None,
    sep: str | None,
    blocksize: str | int | None,
    encoding: str | None = None,
) -> tuple[Any, bool, str]:
    """A dask DataFrame of the columns, whether its cells are CSV text, and a source name.

    Parquet files are read with ``dask.dataframe.read_parquet`` (``blocksize`` does not
    apply); CSV/TSV files by ``pyarrow.csv`` as every engine reads them (text cells, one
    partition per file: ``blocksize`` does not split a file).
    """
    dd: Any = require("dask.dataframe", "dask")
    if _is_paths(data):
        files, fmt = resolve_files(data, file_format, encoding)
        source = describe(files)
        if fmt == "parquet":
            import pyarrow.parquet as pq

            require_columns(columns, pq.read_schema(files[0]).names, where=files[0])
            frame = dd.read_parquet(files, columns=list(columns))
            return frame, False, source
        return _csv_frame(files, fmt, columns, sep=sep, encoding=encoding), True, source
    if not isinstance(data, dd.DataFrame):
        raise InvalidInputError(
            f"dask_statistics takes a dask DataFrame, a path, a glob or a list of paths; got a "
            f"{type(data).__name__}"
        )
    require_columns(columns, list(data.columns))
    return data[list(columns)], False, "dask DataFrame"


def partitions_of(data: Any, columns: Sequence[str], **read: Any) -> tuple[list[Any], bool, str]:
    """The partitions of :func:`frame_of` (``read``: its keywords) as delayed values,
    whether their cells are CSV text, and a source name.

    A file's partition is the ``pyarrow`` Table of its columns: a CSV/TSV file's text
    columns, read as :func:`frame_of` reads it, or a Parquet file's typed columns, left in
    Arrow (no pandas, no Python object per cell, and no import of ``dask.dataframe``); the
    partitions of a dask DataFrame are its own (pandas DataFrames).
    """
    if _is_paths(data):
        files, fmt = resolve_files(data, read["file_format"], read.get("encoding"))
        dask: Any = require("dask", "dask")
        wanted = list(columns)
        if fmt == "parquet":
            import pyarrow.parquet as pq

            for path in files:  # each file's footer: a missing column named before any read
                require_columns(columns, pq.read_schema(path).names, where=path)
            read_file = dask.delayed(_parquet_part)
            return [read_file(path, wanted) for path in files], False, describe(files)
        dialects = _csv_dialects(
            files, fmt, columns, sep=read["sep"], encoding=read.get("encoding")
        )
        part = dask.delayed(read_csv_columns)
        parts = [part(dialect, wanted, null_values=CSV_NULLS) for dialect in dialects]
        return parts, True, describe(files)
    frame, text, source = frame_of(data, columns, **read)
    return frame.to_delayed(), text, source


def _parquet_part(path: str, columns: list[str]) -> Any:
    """One Parquet file's columns as a pyarrow Table (typed as written: no pandas, no
    Python object per cell)."""
    import pyarrow.parquet as pq

    return pq.read_table(path, columns=columns)


def partition_files(
    data: Any, n_partitions: int, file_format: str | None = None, encoding: str | None = None
) -> list[str] | None:
    """The file each partition of :func:`frame_of` or :func:`partitions_of` holds, when
    ``data`` names files read one partition per file (None: a frame, or a file split into
    several partitions), for messages naming a file and its row."""
    if not _is_paths(data):
        return None
    files, _ = resolve_files(data, file_format, encoding)
    return files if len(files) == n_partitions else None


def _is_paths(data: Any) -> bool:
    """A path, a glob or a list of paths (not a DataFrame)."""
    return isinstance(data, str | Path) or (
        isinstance(data, Sequence) and not isinstance(data, str | bytes)
    )


def _csv_dialects(
    files: list[str], fmt: str, columns: Sequence[str], *, sep: str | None, encoding: str | None
) -> list[Any]:
    """Each CSV/TSV file's dialect (separator, encoding, compression), checked to hold the
    columns."""
    default = "\t" if fmt == "tsv" else ","
    dialects = [sniff_csv(f, sep=sep, encoding=encoding, default_sep=default) for f in files]
    for dialect in dialects:
        dialect.require(columns)
    return dialects


def _csv_part(dialect: Any, columns: list[str]) -> pd.DataFrame:
    """One CSV file's columns as text (None where missing), read by ``pyarrow.csv``."""
    table = read_csv_columns(dialect, columns, null_values=CSV_NULLS)
    return pd.DataFrame(
        {name: table.column(name).to_numpy(zero_copy_only=False) for name in columns}
    )


def _csv_frame(
    files: list[str], fmt: str, columns: Sequence[str], *, sep: str | None, encoding: str | None
) -> Any:
    """A dask DataFrame with one partition per CSV/TSV file, each read as the memory and
    stream engines read it (one reader: the same separator, encoding, compression and
    errors, e.g. a row with more fields than the header is an error naming its line)."""
    dask: Any = require("dask", "dask")
    dd: Any = require("dask.dataframe", "dask")
    dialects = _csv_dialects(files, fmt, columns, sep=sep, encoding=encoding)
    wanted = list(columns)
    meta = pd.DataFrame({name: pd.Series([], dtype=object) for name in wanted})
    parts = [dask.delayed(_csv_part)(dialect, wanted) for dialect in dialects]
    return dd.from_delayed(parts, meta=meta, verify_meta=False)


def tree_reduce(values: list[Any], combine: Any) -> Any:
    """Pairwise reduction of delayed values: depth log2(n)."""
    dask: Any = require("dask", "dask")
    level = list(values)
    while len(level) > 1:
        nxt = [
            dask.delayed(combine)(level[k], level[k + 1], dask_key_name=None)
            for k in range(0, len(level) - 1, 2)
        ]
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return level[0]


def compute(scheduler: Any, *values: Any) -> tuple[Any, ...]:
    """``dask.compute`` of the values on ``scheduler`` (a name, a ``distributed.Client``,
    None for dask's default, or a scheduler address, connected to for the call)."""
    dask: Any = require("dask", "dask")
    if isinstance(scheduler, str) and "://" in scheduler:
        distributed: Any = require("distributed", "dask")
        with distributed.Client(scheduler) as client:
            return tuple(dask.compute(*values, scheduler=client))
    return tuple(dask.compute(*values, scheduler=scheduler))


def _client_of(scheduler: Any) -> tuple[Any, bool]:
    """The ``distributed.Client`` that will run the work (and whether it was opened here),
    or (None, False) for dask's local schedulers."""
    import sys

    if isinstance(scheduler, str) and "://" in scheduler:
        distributed: Any = require("distributed", "dask")
        return distributed.Client(scheduler), True
    if scheduler is not None and type(scheduler).__name__ == "Client":
        return scheduler, False
    if scheduler is None and "distributed" in sys.modules:
        try:
            return sys.modules["distributed"].default_client(), False
        except ValueError:
            return None, False
    return None, False


def _gather(
    client: Any,
    partials: list[Any],
    combine: Callable[[Any, Any], Any] | None,
    progress: Progress,
    done: int,
    total: int,
) -> Any:
    """:func:`run_partitions` on a ``distributed.Client``: futures reported in completion
    order and reduced pairwise on the workers."""
    distributed: Any = require("distributed", "dask")
    futures = client.compute(partials)
    for _ in distributed.as_completed(futures):
        done += 1
        progress(done, total)
    if combine is None:
        return client.gather(futures)
    level = list(futures)
    while len(level) > 1:
        nxt = [
            client.submit(combine, level[k], level[k + 1], pure=False)
            for k in range(0, len(level) - 1, 2)
        ]
        level = nxt + ([level[-1]] if len(level) % 2 else [])
    return level[0].result()


def run_partitions(
    scheduler: Any,
    partials: list[Any],
    combine: Callable[[Any, Any], Any] | None,
    progress: Progress | None,
    done: int,
    total: int,
) -> Any:
    """Compute one delayed value per partition and reduce them with ``combine`` (None: the
    list of values), calling ``progress(done, total)`` as each partition's value is ready.

    With a ``distributed.Client``, the partitions are futures reported in completion order
    (``as_completed``) and reduced pairwise on the workers; with the local schedulers, a
    ``dask.diagnostics.Callback`` counts the partitions' tasks as they finish.
    """

    def run() -> Any:
        if combine is None:
            return list(compute(scheduler, *partials))
        (out,) = compute(scheduler, tree_reduce(partials, combine))
        return out

    if progress is None:
        return run()
    client, opened = _client_of(scheduler)
    if client is not None:
        try:
            return _gather(client, partials, combine, progress, done, total)
        finally:
            if opened:
                client.close()
    diagnostics: Any = require("dask.diagnostics", "dask")
    keys = {p.key for p in partials}
    counter = [done]

    def posttask(key: Any, result: Any, dsk: Any, state: Any, worker_id: Any) -> None:
        if key in keys:
            counter[0] += 1
            progress(counter[0], total)

    with diagnostics.Callback(posttask=posttask):
        return run()


def concat_values(arrays: list[npt.NDArray[Any]]) -> npt.NDArray[Any]:
    """Concatenate the non-empty arrays (as objects when their kinds differ).

    >>> concat_values([np.array([1, 2]), np.array(["a"])]).tolist()
    [1, 2, 'a']
    """
    arrays = [a for a in arrays if a.size]
    if not arrays:
        return np.zeros(0, dtype=object)
    kinds = {a.dtype.kind for a in arrays}
    if len(kinds) > 1:
        arrays = [a.astype(object) for a in arrays]
    return np.concatenate(arrays)
