"""Where the ratings come from: paths, globs and lists of Parquet/CSV files."""

from __future__ import annotations

import codecs
import glob
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._errors import (
    DuplicateRatingError,
    FileReadError,
    InvalidInputError,
    option,
    require,
)
from .._validate import CSV_NULLS, SHOW, require_columns, tidy_scalar
from ..data.frames import (
    Declared,
    declared_categories,
    require_unique_columns,
    written_categorical,
)
from ..io.files import (
    check_file,
    header_cells,
    reading,
    repeated_header,
    sniff_csv,
    sniff_text,
)
from ..io.ratings import format_of
from ._blocks import DuplicateInfo

__all__ = [
    "DuckSource",
    "HeaderCheck",
    "Locator",
    "SourceLike",
    "dataset_of",
    "describe",
    "is_duckdb_relation",
    "parquet_categories",
    "resolve_files",
]

SourceLike = str | Path | Sequence[str | Path]
_STREAMABLE = ("parquet", "csv", "tsv")


def resolve_files(
    source: Any, file_format: str | None, encoding: str | None = None
) -> tuple[list[str], str]:
    """Expand a path, a directory, a glob or a list of paths to files and their format.

    A directory is read as every Parquet/CSV/TSV file under it, and a glob as every match,
    in sorted order; a list is read in the order given. Each file must be readable, and the
    first block of a CSV/TSV file text (:func:`accord._files.sniff_text`).
    """
    if isinstance(source, str | Path):
        text = str(source)
        if any(ch in text for ch in "*?["):
            files = sorted(glob.glob(text, recursive=True))
            if not files:
                raise FileNotFoundError(2, "No file matches the pattern", text)
        elif Path(text).is_dir():
            files = sorted(
                str(p)
                for p in Path(text).rglob("*")
                if p.is_file() and not p.name.startswith((".", "_"))
            )
            if not files:
                raise FileNotFoundError(2, "No file in the folder", text)
        else:
            files = [text]
    elif isinstance(source, Sequence):
        files = [str(p) for p in source]
        if not files:
            raise InvalidInputError("the list of files is empty")
    else:
        raise InvalidInputError(
            f"cannot stream ratings from a {type(source).__name__}; pass a path, a glob or a "
            "list of paths to Parquet or CSV files"
        )
    for f in files:
        check_file(f)
    formats = {format_of(Path(f), file_format) for f in files}  # type: ignore[arg-type]
    if len(formats) > 1:
        raise InvalidInputError(
            f"the files mix formats ({', '.join(sorted(formats))}); stream one format at a time"
        )
    fmt = formats.pop()
    if fmt not in _STREAMABLE:
        raise InvalidInputError(
            f"the stream engine reads Parquet, CSV and TSV files; got {fmt!r} "
            f"({files[0]}). Read it with accord.read_ratings (memory engine) instead"
        )
    if fmt != "parquet":
        for f in files:  # binary content or another encoding, named before any engine reads
            sniff_text(f, encoding=encoding, what=fmt.upper())
    return files, fmt


def describe(files: Sequence[str]) -> str:
    """The input's name in a read report: its file, or the first and how many more.

    >>> describe(["a.csv"]), describe(["a.csv", "b.csv", "c.csv"])
    ('a.csv', 'a.csv and 2 more files')
    """
    return files[0] if len(files) == 1 else f"{files[0]} and {len(files) - 1} more files"


#: The read options each CSV/TSV dataset of :func:`dataset_of` was made with: its batches
#: are read by pyarrow's streaming CSV reader with them (a dataset's format keeps no
#: encoding but UTF-8 of its own).
CSV_READS: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def dataset_of(
    files: list[str],
    fmt: str,
    columns: Sequence[str],
    *,
    sep: str | None,
    block_bytes: int,
    encoding: str | None = None,
) -> Any:
    """A pyarrow dataset over the files, checking that the columns are there.

    CSV columns are read as text and typed afterwards from their distinct values, so that a
    value far down a file cannot contradict a type guessed from the first block.
    """
    import pyarrow as pa
    import pyarrow.dataset as ds

    dialect = None
    if fmt == "parquet":
        import pyarrow.parquet as pq

        for f in files:
            with reading(f, "Parquet"):
                names = pq.read_schema(f).names
            require_unique_columns(columns, names, where=f)
        file_format: Any = ds.ParquetFileFormat()
    else:
        import pyarrow.csv as pacsv

        default = "\t" if fmt == "tsv" else ","
        dialects = [sniff_csv(f, sep=sep, encoding=encoding, default_sep=default) for f in files]
        for d in dialects:
            d.require(columns)
        dialect = dialects[0]
        unlike = [
            d
            for d in dialects
            if (d.delimiter, d.skip_rows) != (dialect.delimiter, dialect.skip_rows)
        ]
        if unlike:
            raise InvalidInputError(
                f"{unlike[0].path}: the files of one input are read alike, and this one "
                f"differs from {dialect.path} (its separator, or a spreadsheet's 'sep=' "
                "first line): write them alike"
            )
        compressed = [d for d in dialects if d.compression not in (None, "gzip", "bz2")]
        if compressed:
            raise InvalidInputError(
                f"{compressed[0].path}: the stream engine reads CSV files plain or compressed "
                "with gzip or bz2 (named .gz / .bz2); read this one with the memory engine"
            )
        codec = codecs.lookup(dialect.encoding).name
        read_options = pacsv.ReadOptions(
            block_size=block_bytes,
            encoding="utf8" if codec in ("utf-8", "utf-8-sig") else dialect.encoding,
            # A spreadsheet's 'sep=' line: the header is named, not inferred (the
            # dataset's schema inference reads the first line whatever skip_rows says).
            **(
                {"skip_rows": dialect.skip_rows + 1, "column_names": list(dialect.header)}
                if dialect.skip_rows
                else {}
            ),
        )
        file_format = ds.CsvFileFormat(
            parse_options=pacsv.ParseOptions(delimiter=dialect.delimiter),
            convert_options=pacsv.ConvertOptions(
                column_types={c: pa.string() for c in columns},
                strings_can_be_null=True,
                quoted_strings_can_be_null=True,
                null_values=CSV_NULLS,
            ),
            read_options=read_options,
        )
    with reading(files[0], "Parquet" if fmt == "parquet" else "CSV", dialect):
        dataset = ds.dataset(files, format=file_format)
    if fmt != "parquet":
        CSV_READS[dataset] = (read_options, dict(zip(files, dialects, strict=True)))
    where = files[0] if len(files) == 1 else f"{files[0]} (and {len(files) - 1} more)"
    require_columns(columns, dataset.schema.names, where=where)
    return dataset


def parquet_categories(files: Sequence[str], label: str) -> Declared | None:
    """The categories the label column of Parquet files declares (a column written from a
    pandas Categorical or a polars ``Enum``: :func:`accord.data.frames.declared_categories`),
    read from the first file's schema and the column's first row group; None when it
    declares none."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    with reading(files[0], "Parquet"):
        parquet = pq.ParquetFile(files[0])
        schema = parquet.schema_arrow
        index = schema.get_field_index(label)
        if index < 0 or not pa.types.is_dictionary(schema.field(index).type):
            return None
        if parquet.metadata.num_row_groups == 0:
            return None
        column = parquet.read_row_group(0, columns=[label]).column(label)
    return declared_categories(column, categorical=written_categorical(schema, label))


class HeaderCheck:
    """Batches of CSV/TSV text checked for the header line repeated inside the data (files
    joined with their headers), as the memory engine checks a file it reads
    (:func:`accord.io.files.check_header_rows`): the files are read again, record by record,
    only when a batch holds a row of the column names."""

    def __init__(
        self, files: list[str], fmt: str, columns: Sequence[str], *, sep: str | None,
        encoding: str | None,
    ) -> None:  # fmt: skip
        self.files = files
        self.default_sep = "\t" if fmt == "tsv" else ","
        self.columns = list(columns)
        self.sep = sep
        self.encoding = encoding
        self.clean: set[str] = set()

    def __call__(self, batch: Any) -> None:
        """Raise :class:`~accord._errors.FileReadError` naming the file and line when a row
        of ``batch`` (the columns in order) repeats the header line."""
        columns = [batch.column(i) for i in range(len(self.columns))]
        if not header_cells(columns, self.columns):
            return
        for f in self.files:
            if f in self.clean:
                continue
            dialect = sniff_csv(
                f, sep=self.sep, encoding=self.encoding, default_sep=self.default_sep
            )
            found = repeated_header(dialect)
            if found is not None:
                raise FileReadError(found)
            self.clean.add(f)


class Locator:
    """Turns row numbers over the whole input into "row N of FILE" for messages."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.files: list[str] = []

    def add(self, start: int, file: str) -> None:
        if not self.files or self.files[-1] != file:
            self.starts.append(start)
            self.files.append(file)

    def _at(self, row: int) -> str:
        if len(self.files) <= 1:
            return f"{row + 1}"
        k = int(np.searchsorted(self.starts, row, side="right")) - 1
        return f"{row + 1} (row {row - self.starts[k] + 1} of {self.files[k]})"

    def part(self, row0: int) -> str:
        """ "in FILE": the file of the part that starts at row ``row0`` (0-based) of the
        whole input, with that row's place in the file when there are several files; empty
        before any file is known.

        >>> one, two = Locator(), Locator()
        >>> one.add(0, "a.csv"); two.add(0, "a.csv"); two.add(4, "b.csv")
        >>> one.part(3), two.part(6)
        ('in a.csv', 'in b.csv, whose row 3 is row 7 of the input')
        """
        if not self.files:
            return ""
        k = int(np.searchsorted(self.starts, row0, side="right")) - 1
        if len(self.files) == 1:
            return f"in {self.files[k]}"
        own = row0 - self.starts[k] + 1
        return f"in {self.files[k]}, whose row {own} is row {row0 + 1} of the input"

    def where(self, row: int) -> str:
        """ "row N", with the file and its own row number when there are several files."""
        return f"row {self._at(row)}"

    def rows(self, rows: Sequence[int] | np.ndarray[Any, Any]) -> str:
        """ "row N" or "rows N, M, ..." (the first few)."""
        listed = [int(r) for r in list(rows)]
        shown = ", ".join(self._at(r) for r in listed[:SHOW])
        more = f" and {len(listed) - SHOW} more" if len(listed) > SHOW else ""
        return f"{'row' if len(listed) == 1 else 'rows'} {shown}{more}"


def raise_duplicates(
    info: DuplicateInfo,
    items: Any,
    raters: Any,
    locator: Locator,
    *,
    complete: bool,
    listed: bool | None = None,
) -> None:
    """Raise :class:`DuplicateRatingError` naming the first repeated pairs and their rows
    (``complete``: every repeated pair is counted; ``listed``, by default ``complete``:
    every row of each pair is named)."""
    parts = []
    for item_code, rater_code, rows in info.examples:
        parts.append(
            f"({tidy_scalar(items[item_code])!r}, {tidy_scalar(raters[rater_code])!r}) at "
            f"{locator.rows(rows)}"
        )
    count = f"{info.n_pairs}" if complete else f"at least {info.n_pairs}"
    raise DuplicateRatingError(
        f"{count} (item, rater) pairs are rated more than once: "
        + "; ".join(parts)
        + ("; ..." if info.n_pairs > len(parts) else "")
        + (
            ""
            if (complete if listed is None else listed)
            else " (rows of the earlier ratings in other batches are not listed)"
        )
        + f". Pass {option('duplicates', 'first', 'last')} to resolve"
    )


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _sql_name(value: str) -> str:
    return '"' + value.replace('"', '""') + '"'


def is_duckdb_relation(source: Any) -> bool:
    """Whether ``source`` is a DuckDB relation (``duckdb.sql(...)``, ``con.table(...)``)."""
    return type(source).__name__ == "DuckDBPyRelation" and type(source).__module__.startswith(
        "duckdb"
    )


class DuckSource:
    """Batches of the three columns of a DuckDB query, in the query's row order.

    Built from a DuckDB relation (any query: a join, a filter, a view over a database) or from
    Parquet/CSV files that DuckDB reads (``read_parquet`` / ``read_csv``, in the order of the
    list). Each pass runs the query again and streams its result as Arrow record batches;
    DuckDB keeps the row order of a plain scan (``preserve_insertion_order``), so codes and
    row numbers are those of the files read in order.
    """

    def __init__(self, relation: Any, columns: Sequence[str], name: str) -> None:
        require_columns(columns, relation.columns, where=name)
        self.relation = relation.select(*(_sql_name(c) for c in columns))
        self.name = name

    @classmethod
    def from_files(
        cls,
        files: list[str],
        fmt: str,
        columns: Sequence[str],
        *,
        sep: str | None,
        encoding: str | None = None,
    ) -> DuckSource:
        if encoding is not None and codecs.lookup(encoding).name not in ("utf-8", "utf-8-sig"):
            raise InvalidInputError(
                f"reader='duckdb' reads UTF-8 CSV files; read {files[0]} (encoding "
                f"{encoding!r}) with the default reader='pyarrow'"
            )
        duckdb: Any = require("duckdb", "duckdb")
        con = duckdb.connect()
        listed = "[" + ", ".join(_sql_text(f) for f in files) + "]"
        if fmt == "parquet":
            query = f"SELECT * FROM read_parquet({listed})"
        else:
            delimiter = sep if sep is not None else ("\t" if fmt == "tsv" else ",")
            nulls = "[" + ", ".join(_sql_text(v) for v in CSV_NULLS) + "]"
            # Text cells, typed afterwards from their distinct values as the pyarrow reader
            # and pandas type them.
            query = (
                f"SELECT * FROM read_csv({listed}, all_varchar = true, header = true, "
                f"delim = {_sql_text(delimiter)}, nullstr = {nulls})"
            )
        try:
            relation = con.sql(query)
        except duckdb.Error as exc:
            raise InvalidInputError(f"cannot read {files[0]}: {exc}") from None
        name = files[0] if len(files) == 1 else f"{files[0]} (and {len(files) - 1} more)"
        return cls(relation, columns, name)

    def batches(self, batch_size: int) -> Any:
        """The query's result as Arrow record batches of about ``batch_size`` rows."""
        reader = getattr(self.relation, "to_arrow_reader", None)
        if reader is None:  # older DuckDB
            return self.relation.fetch_record_batch(batch_size)
        return reader(batch_size)
